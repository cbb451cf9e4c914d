"""The arena a model needs is the same on a 32-bit target as on the 64-bit host.

The core and tests/c32/arena_figures.c are built with ``gcc -m32`` (i386 aligns 64-bit
integers and doubles to 4 inside structs, where ARM's EABI aligns them to 8: records that
agree here and on the host agree on a Cortex-M too). For every zoo model and every model of
../shared/models, the 32-bit build's pl_required_arena_size and the head and tail of an
allocation in exactly that many bytes must equal the host's figures from the Python API.
Skips when no 32-bit program can be built (no gcc-multilib), fails instead under CI=true.
"""

import os
import pathlib
import shutil
import subprocess

import pytest

import picolite
from conftest import ROOT, SHARED, ZOO, in_ci

# Not -Werror: the figures are the point, and gcc's 32-bit object-size analysis has false
# positives the host build does not share.
FLAGS = ["-m32", "-msse2", "-mfpmath=sse", "-std=c11", "-O1"]


def models():
    found = sorted(ZOO.glob("**/*.tflite"))
    shared = SHARED / "models"
    if shared.is_dir():
        found += sorted(shared.glob("**/*.tflite"))
    return found


def skip_or_fail(why):
    if in_ci():
        pytest.fail(why)
    pytest.skip(why)


@pytest.fixture(scope="module")
def figures32(tmp_path_factory):
    """{model path: (status, required, head, tail)} from the 32-bit build."""
    gcc = shutil.which("gcc")
    if gcc is None:
        skip_or_fail("gcc is not installed")
    out = tmp_path_factory.mktemp("arena32")
    probe = out / "probe.c"
    probe.write_text("int main(void) { return sizeof(void *) == 4 ? 0 : 1; }\n")
    r = subprocess.run([gcc, "-m32", str(probe), "-o", str(out / "probe")],
                       capture_output=True, text=True)
    if r.returncode != 0:
        skip_or_fail(f"no 32-bit build (apt-get install gcc-multilib): {r.stderr[-300:]}")
    # the core: every source but the host fast paths, which never change the arena
    sources = sorted(str(p) for p in (ROOT / "csrc").glob("**/*.c")
                     if "fast" not in p.relative_to(ROOT / "csrc").parts)
    exe = out / "arena_figures"
    r = subprocess.run([gcc, *FLAGS, f"-I{ROOT / 'csrc' / 'include'}", f"-I{ROOT / 'csrc'}",
                        *sources, str(ROOT / "tests" / "c32" / "arena_figures.c"), "-o",
                        str(exe), "-lm"], capture_output=True, text=True)
    assert r.returncode == 0, f"the core does not build for 32 bits:\n{r.stderr[-3000:]}"
    paths = [str(p) for p in models()]
    r = subprocess.run([str(exe), *paths], capture_output=True, text=True, check=True,
                       env=dict(os.environ))
    rows = {}
    for line in r.stdout.splitlines():
        path, status, *nums = line.split("\t")
        rows[path] = (int(status), *map(int, nums[:3]))
    assert sorted(rows) == sorted(paths)
    return rows


def host_figures(path):
    """(status, required, head, tail) from the host's Python API; status 0 when it allocates."""
    try:
        required = picolite.required_arena_size(str(path), target="picolite")
        it = picolite.Interpreter(model_path=str(path), arena_size=required, target="picolite")
        it.allocate_tensors()
    except picolite.Error:
        return (1, 0, 0, 0)
    report = it.allocations()
    return (0, required, report.head, report.tail)


@pytest.mark.parametrize("path", models(), ids=lambda p: str(pathlib.Path(p).name))
def test_32bit_arena_equals_the_hosts(figures32, path):
    status, required, head, tail = figures32[str(path)]
    host = host_figures(path)
    assert (status != 0) == (host[0] != 0), f"32-bit status {status}, host {host}"
    if status == 0:
        assert (required, head, tail) == host[1:]


def test_every_model_was_compared(figures32):
    """Most models allocate on both: the equality above is not vacuous."""
    ok = sum(1 for v in figures32.values() if v[0] == 0)
    assert ok >= 0.9 * len(figures32) and ok > 0
