"""The arm64 fast paths (csrc/fast/arm/): picolite_core, picolite_fast and tests/c/test_fast*
cross-built with clang for aarch64-linux-gnu (cmake/aarch64-linux-gnu.cmake: Debian's arm64
C library, libgcc and binutils) and run by qemu-user on two emulated CPUs: "max" has the
dot-product extension (the NEON and NEON-DOT kernels both run against the portable ones),
"cortex-a53" has not (the detection leaves NEON alone). The 16x8 kernels (test_fast_s16)
run on both sets: SDOT has no int16 form, so NEON-DOT takes NEON's.

The objects are also read: the float32 kernel multiplies and adds apart (FMUL, FADD; no
fused FMLA, which would round differently from the reference), the int8 kernels use SMLAL
and SDOT. Skipped when the cross toolchain or qemu-user is missing, except in CI (CI=true),
where that is a failure; on an arm64 host tests/c/test_fast* run natively (test_c_units).
"""

import platform
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import background
from background import Step
from conftest import ROOT, in_ci

SYSROOT = Path("/usr/aarch64-linux-gnu")
LIBGCC = Path("/usr/lib/gcc-cross/aarch64-linux-gnu")
TOOLS = ("clang", "aarch64-linux-gnu-ld", "aarch64-linux-gnu-objdump", "qemu-aarch64", "cmake",
         "ninja")
FAST_OBJECTS = Path("CMakeFiles/picolite_fast.dir/csrc/fast/arm")
FAST_TESTS = sorted(p.stem for p in (ROOT / "tests" / "c").glob("test_fast*.c"))
OPS = ("conv", "fully connected", "depthwise", "elementwise", "batch matmul", "pool", "lstm")
FUSED = {"fmla", "fmls", "fmadd", "fmsub", "fnmadd", "fnmsub"}


CPUS = ("max", "cortex-a53")


def _missing():
    if platform.machine().lower() in ("aarch64", "arm64"):
        return None
    missing = [t for t in TOOLS if shutil.which(t) is None]
    return missing + [str(p) for p in (SYSROOT, LIBGCC) if not p.is_dir()]


def _plan(folder):
    """The cross build, then every tests/c/test_fast* program on each emulated cpu."""
    if _missing() != []:
        return []
    steps = [Step(["cmake", "-S", ROOT, "-B", folder, "-G", "Ninja",
                   f"-DCMAKE_TOOLCHAIN_FILE={ROOT / 'cmake/aarch64-linux-gnu.cmake'}",
                   "-DCMAKE_BUILD_TYPE=Release", "-DPL_BUILD_TESTS=ON", "-DPL_WERROR=ON"]),
             Step(["ninja", "-C", folder, "-j2", *FAST_TESTS])]
    for cpu in CPUS:
        steps += [Step(["qemu-aarch64", "-L", SYSROOT, "-cpu", cpu,
                        Path(folder) / "tests" / "c" / name], timeout=120,
                        keep_going=True)
                  for name in FAST_TESTS]
    return steps


background.register("arm64", _plan)


@pytest.fixture(scope="module")
def build():
    """The cross build's folder and the programs' runs, {(cpu, program): process}."""
    missing = _missing()
    if missing is None:
        pytest.skip("an arm64 host runs tests/c/test_fast natively (test_c_units)")
    if missing:
        message = f"the arm64 test needs {', '.join(missing)} (apt-get install clang " \
                  "libc6-dev-arm64-cross libgcc-12-dev-arm64-cross binutils-aarch64-linux-gnu " \
                  "qemu-user cmake ninja-build)"
        if in_ci():
            pytest.fail(message)
        pytest.skip(message)
    outcome = background.result("arm64")
    built = outcome.done[:2]
    assert len(built) == 2 and all(r.returncode == 0 for r in built), outcome.failure()
    runs = {}
    for r in outcome.done[2:]:
        runs[(r.args[4], Path(r.args[5]).name)] = r
    return Path(outcome.folder), runs


def _run(build, cpu: str) -> str:
    """Every tests/c/test_fast* program's output on the emulated cpu, joined."""
    texts = []
    for name in FAST_TESTS:
        r = build[1].get((cpu, name))
        assert r is not None, f"{name} did not run on {cpu}"
        text = r.stdout + r.stderr
        assert r.returncode == 0 and re.search(r"^\d+ checks, 0 failed$", text, re.M), \
            f"{name} on {cpu} (exit {r.returncode}):\n{text[-3000:]}"
        print(f"\n{name} on qemu {cpu}:\n{text}")
        texts.append(text)
    return "\n".join(texts)


def _fast_cases(text: str) -> dict:
    """{(instruction set, operator): cases that took the fast path} from test_fast's lines."""
    ops = "conv|fully connected|elementwise|batch matmul|pool|lstm"
    # one thread's lines (the threaded runs, fewer cases, are _split_jobs')
    line = rf"^  (\S+)(?:, 1 threads)?: ({ops}) (\d+) fast cases(?:, \d+ split jobs)?$"
    cases = {(m.group(1), m.group(2)): int(m.group(3)) for m in re.finditer(line, text, re.M)}
    # fully connected and elementwise run once per arithmetic (TFLM's, LiteRT's): each counts
    per_arith = rf"^  (\S+), (TFLM|LiteRT) arithmetic: ({ops}) (\d+) fast cases" \
                rf"(?:, \d+ through the pairs table)?$"
    seen = {}
    for m in re.finditer(per_arith, text, re.M):
        key = (m.group(1), m.group(3))
        seen.setdefault(key, set()).add(m.group(2))
        cases[key] = min(cases.get(key, int(m.group(4))), int(m.group(4)))
    assert all(arith == {"TFLM", "LiteRT"} for arith in seen.values()), seen
    # depthwise counts the cases with an output: every one of them must be fast
    for m in re.finditer(r"^  (\S+)(?:, 1 threads)?: depthwise (\d+) of (\d+) cases fast"
                         r"(?:, \d+ split jobs)?$", text, re.M):
        assert m.group(2) == m.group(3), m.group(0)
        cases[(m.group(1), "depthwise")] = int(m.group(2))
    return cases


def _split_jobs(text: str) -> dict:
    """{(instruction set, operator): jobs split over 3 threads} from the threaded runs."""
    line = r"^  (\S+), 3 threads: (conv|depthwise|hybrid conv|hybrid depthwise|logistic/tanh|" \
           r"fully connected|elementwise|prelu) " \
           r".*, (\d+) split jobs$"
    return {(m.group(1), m.group(2)): int(m.group(3)) for m in re.finditer(line, text, re.M)}


OPS16 = ("conv", "fully connected", "depthwise")


def _fast_cases16(text: str) -> dict:
    """{(instruction set, operator): 16x8 cases that took the fast path} from test_fast_s16."""
    line = r"^  (\S+)(?:, (?:TFLM|LiteRT) arithmetic)?: 16x8 (conv|fully connected|depthwise) " \
           r"(\d+) fast cases"
    cases = {}
    for m in re.finditer(line, text, re.M):
        key = (m.group(1), m.group(2))
        cases[key] = min(cases.get(key, int(m.group(3))), int(m.group(3)))
    return cases


@pytest.mark.background("arm64")
def test_dot_product_cpu_runs_neon_and_neon_dot(build):
    text = _run(build, "max")
    cases = _fast_cases(text)
    assert set(cases) == {(isa, op) for isa in ("neon", "neon-dot")
                          for op in OPS}
    # test_fast itself requires most cases to take the fast path; checked here too
    assert all(n > 200 for n in cases.values()), cases
    # num_threads: every threaded run split jobs on both sets
    jobs = _split_jobs(text)
    assert {isa for isa, _ in jobs} == {"neon", "neon-dot"} and len(jobs) == 16, jobs
    assert all(n > 0 for n in jobs.values()), jobs
    cases16 = _fast_cases16(text)
    assert set(cases16) == {(isa, op) for isa in ("neon", "neon-dot") for op in OPS16}
    assert all(n > 200 for n in cases16.values()), cases16


@pytest.mark.background("arm64")
def test_cpu_without_dot_product_runs_plain_neon(build):
    text = _run(build, "cortex-a53")
    assert set(_fast_cases(text)) == {("neon", op) for op in OPS}
    cases16 = _fast_cases16(text)
    assert set(cases16) == {("neon", op) for op in OPS16}
    assert all(n > 200 for n in cases16.values()), cases16


def _mnemonics(build, obj: Path) -> dict:
    r = subprocess.run(["aarch64-linux-gnu-objdump", "-d", "--no-show-raw-insn",
                        str(build[0] / obj)], capture_output=True, text=True, check=True)
    counts = {}
    for m in re.finditer(r"^\s+[0-9a-f]+:\s+(\w+)", r.stdout, re.M):
        counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    return counts


# The float products that also run fused, for a target whose firmware fuses them
# (ctx->fused_madd): their FMLA comes from vfmaq intrinsics (resize_neon.c: fmaf, in the fused
# target's bilinear loop alone), their FMUL + FADD stay apart. exp_neon.c's quick exp fuses
# for its accuracy alone: its tie check sends every lane it may round otherwise to the
# unfused exp, whose bits are the scalar's (test_fast_exp).
FUSED_FOR_TARGETS = ("f32_neon.c", "dw_neon.c", "resize_neon.c", "exp_neon.c")


@pytest.mark.background("arm64")
def test_kernels_use_the_intended_instructions(build):
    f32 = _mnemonics(build, FAST_OBJECTS / "f32_neon.c.o")
    assert f32.get("fmul", 0) >= 16 and f32.get("fadd", 0) >= 16, f32
    assert f32.get("fmla", 0) >= 16, f32
    for src in sorted((ROOT / "csrc/fast/arm").glob("*.c")):
        ops = _mnemonics(build, FAST_OBJECTS / f"{src.name}.o")
        if src.name not in FUSED_FOR_TARGETS:
            assert not FUSED & set(ops), (src.name, ops)
    dw = _mnemonics(build, FAST_OBJECTS / "dw_neon.c.o")
    assert dw.get("smlal2", 0) >= 8 and dw.get("fmul", 0) >= 12, dw
    assert dw.get("fmla", 0) >= 12, dw
    s8 = _mnemonics(build, FAST_OBJECTS / "s8_neon.c.o")
    assert s8.get("smlal", 0) >= 16 and s8.get("smlal2", 0) >= 16, s8
    assert _mnemonics(build, FAST_OBJECTS / "s8_neondot.c.o").get("sdot", 0) >= 16
    s16 = _mnemonics(build, FAST_OBJECTS / "s16_neon.c.o")
    assert s16.get("smlal", 0) >= 16 and s16.get("smlal2", 0) >= 16, s16
    dw16 = _mnemonics(build, FAST_OBJECTS / "dw_s16_neon.c.o")
    assert dw16.get("smlal", 0) >= 8 and dw16.get("smlal2", 0) >= 8, dw16


@pytest.mark.background("arm64")
def test_portable_float_kernels_fuse_only_where_asked(build):
    """The oracle the fast paths equal: the core's float conv and fully connected multiply
    and add apart on arm64 too (picolite_core is built with -ffp-contract=off); their only
    fused instructions are the fmaf of a fused target's loops. That the
    unfused loops stay unfused test_fast shows by their bytes (conv_fused_fast_paths_equal_
    portable: fused and unfused outputs differ), which runs above under qemu."""
    for name in ("conv", "fully_connected", "depthwise_conv"):
        ops = _mnemonics(build, Path(f"CMakeFiles/picolite_core.dir/csrc/kernels/conv/"
                                     f"{name}.c.o"))
        assert ops.get("fmul", 0) > 0 and FUSED & set(ops), (name, ops)
