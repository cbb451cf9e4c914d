"""TFLM's arena, computed (targets "tflm" and "tflm-x86-64"), against TFLM itself.

"tflm-x86-64" is checked live against the tflite-micro wheel on every zoo and shared model
the wheel runs, and on random single-operator models (tflm_models.py): RecordingMicroAllocator's
breakdown line by line, and the exact minimum: the wheel constructs its interpreter with that
many bytes and fails with one byte less. Constructions run in a forked child, since TFLM's
kernels may crash on a too small arena (a failed persistent allocation written through).
"tflm" (Cortex-M4F, reference kernels) is checked against the firmware's goldens in
tests/goldens/tflm/m4-reference. Both skip cleanly without the wheel or the goldens, except
in CI.
"""

import json
import os
import re
import sys

import numpy as np
import pytest

import picolite
from picolite import targets
from conftest import ROOT, SHARED_MODELS, ZOO, in_ci, zoo_manifest

import tflm_models

GOLDENS = ROOT / "tests" / "goldens" / "tflm" / "m4-reference"

# TFLM_DECODE builds its decoder object in the tail while its temp tensors are live: at the
# boundary the object overwrites fields of the output's TfLiteTensor that the wheel's
# construction happens not to read back (its dims), so the wheel still constructs (and
# computes garbage) up to 32 bytes below the size where nothing read back is overwritten,
# which is what picolite reports; on another heap (another process's alignment of the
# wheel's arena) the same wheel needed 16 bytes more. Only a band is checked for these.
# The same band holds where DECODE copies per-channel zero points out of the output's temp
# tensor into a tail buffer that can land on them (exact on the M4: its golden's minimum).
DECODE_BELOW = {"decode_huffman_wide_int8", "decode_prune_bool", "decode_prune_float32",
                "decode_prune_int16", "decode_prune_int32", "decode_prune_int64",
                "decode_prune_int8", "decode_prune_axis0_zero_points_int8",
                "decode_prune_axis_last_zero_points_int8"}

LINE = re.compile(r"\[RecordingMicroAllocator\] (?:Arena allocation (\w+) (\d+) bytes|"
                  r"'(.+)' used (\d+) bytes with alignment overhead \(requested (\d+) bytes "
                  r"for (\d+) )")


@pytest.fixture(scope="module")
def wheel():
    try:
        from tflite_micro.python.tflite_micro import runtime
    except ImportError:
        if in_ci():
            pytest.fail("tflite-micro is not installed (pip install '.[test]')")
        pytest.skip("tflite-micro is not installed (pip install tflite-micro)")
    if not hasattr(os, "fork"):
        pytest.skip("the wheel's constructions run in forked children")
    return runtime


def in_child(fn):
    """fn() in a forked child: its stderr (where the wheel prints) and whether it exited
    cleanly; a crash or an exception is a failure."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        code = 1
        try:
            import faulthandler

            faulthandler.disable()  # a crash is an answer here, not a report
            os.dup2(write, 2)
            fn()
            sys.stderr.flush()
            import ctypes

            ctypes.CDLL(None).fflush(None)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    chunks = []
    while True:
        chunk = os.read(read, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    ok = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    return ok, b"".join(chunks).decode(errors="replace")


def constructs(runtime, data, size):
    return in_child(lambda: runtime.Interpreter.from_bytes(data, arena_size=size))[0]


def _each(get):
    """(k, get(k)) for k = 0, 1, ... until get raises (past the last)."""
    k = 0
    while True:
        try:
            item = get(k)
        except Exception:
            return
        yield k, item
        k += 1


def outputs(runtime, data, size, fill):
    """The wheel's output bytes for inputs of fill, or None when it cannot construct the model
    in size bytes or invoke it (a kernel may fail on the values: a division by zero)."""
    def construct_and_invoke():
        it = runtime.Interpreter.from_bytes(data, arena_size=size)
        for k, d in _each(it.get_input_details):
            it.set_input(np.full(d["shape"], fill, d["dtype"]), k)
        it.invoke()  # raises when a kernel fails (CIRCULAR_BUFFER's abort is no failure)
        for _, out in _each(it.get_output):
            sys.stderr.write(f"OUTPUT {np.asarray(out).tobytes().hex()}\n")

    ok, text = in_child(construct_and_invoke)
    return [line for line in text.splitlines() if line.startswith("OUTPUT ")] if ok else None


_LARGE_OUTPUTS = {}  # (model, fill, arena) -> the wheel's outputs there, computed once


def runs(runtime, data, size):
    """Whether the wheel constructs the model in size bytes, invokes it and computes what it
    computes in a large arena (the firmware oracle's criterion), with zero inputs or else
    with inputs of 5."""
    large = 1 << max(22, (4 * size).bit_length())
    for fill in (0, 5):
        got = outputs(runtime, data, size, fill)
        key = (data, fill, large)
        if got is not None and key not in _LARGE_OUTPUTS:
            _LARGE_OUTPUTS[key] = outputs(runtime, data, large, fill)
        if got is not None and got == _LARGE_OUTPUTS[key]:
            return True
    return False


def parse(text):
    report = {}
    for m in LINE.finditer(text):
        if m.group(1):
            report[m.group(1)] = int(m.group(2))
        else:
            report[m.group(3)] = (int(m.group(4)), int(m.group(5)), int(m.group(6)))
    return report


def wheel_report(runtime, data, size):
    """The wheel's print_allocations() for an arena of size bytes, or None when it cannot
    construct the model at all."""
    ok, text = in_child(lambda: runtime.Interpreter.from_bytes(data, arena_size=size)
                        .print_allocations())
    return parse(text) if ok else None


def ours(data, target):
    """picolite's report of target for the model, or skip when picolite cannot run it."""
    it = picolite.Interpreter(model_content=data, target=target)
    try:
        it.allocate_tensors()
    except picolite.Error as e:
        pytest.skip(f"picolite does not run this model: {e}")
    return it.allocations()


def as_lines(report):
    lines = {"total": report.total, "head": report.head, "tail": report.tail}
    for name, c in report.categories.items():
        if c["used"] or c["requested"]:
            lines[name] = (c["used"], c["requested"], c["count"])
    return lines


def check_against_the_wheel(runtime, data, name=""):
    try:
        report = ours(data, "tflm-x86-64")
    except picolite.UnsupportedOpError as e:  # no kernel, or a kernel refuses the types
        assert not runs(runtime, data, 1 << 24), f"the wheel runs it: {e}"
        pytest.skip(f"TFLM does not run this model: {e}")
    theirs = wheel_report(runtime, data, max(1 << 22, 4 * report.required))
    assert theirs is not None, "the tflite-micro wheel does not construct this model"
    assert as_lines(report) == theirs
    need = report.required
    if name in DECODE_BELOW:  # the boundary moves with the wheel's heap (measured: -32..+16)
        assert runs(runtime, data, need + 32), f"the wheel fails with {need + 32} bytes"
        assert not constructs(runtime, data, need - 48), f"the wheel runs with {need - 48}"
        return
    assert runs(runtime, data, need), f"the wheel fails with {need} bytes"
    # one byte less: the wheel cannot construct, or (TFLM_DECODE's copy of zero points from
    # a temp tensor its tail buffer overwrote) computes other bytes
    assert not (constructs(runtime, data, need - 1) and runs(runtime, data, need - 1)), \
        f"the wheel runs with {need - 1} bytes"


def zoo_and_shared_models():
    paths = {os.path.normpath(ZOO / e["file"]) for e in zoo_manifest()}
    if SHARED_MODELS.is_dir():
        paths |= {str(p) for p in SHARED_MODELS.rglob("*.tflite")}
    return sorted(paths)


def model_id(path):
    return os.path.relpath(path, ZOO if path.startswith(str(ZOO)) else SHARED_MODELS)


@pytest.mark.parametrize("path", zoo_and_shared_models(), ids=model_id)
def test_tflm_x86_64_equals_the_wheel(wheel, path):
    with open(path, "rb") as f:
        data = f.read()
    check_against_the_wheel(wheel, data, os.path.basename(path)[:-len(".tflite")])


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("make", tflm_models.GENERATORS, ids=lambda g: g.__name__)
def test_random_models_equal_the_wheel(wheel, make, seed):
    check_against_the_wheel(wheel, make(np.random.default_rng(seed)))


@pytest.mark.parametrize("seed", range(48))
def test_operator_types_refused_exactly_where_the_wheel_fails(wheel, seed):
    """An elementwise or data-movement operator on a random type: refused (the type TFLM's
    kernel rejects or has no code for) exactly when the wheel cannot run it, else sized."""
    check_against_the_wheel(wheel, tflm_models.typed(np.random.default_rng(seed)))


# --- the Cortex-M4F firmware's goldens ---------------------------------------------------

def goldens():
    if not GOLDENS.is_dir():
        return []
    found = []
    for path in sorted(GOLDENS.glob("*.json")):
        golden = json.loads(path.read_text())
        if isinstance(golden, dict) and golden.get("arena_used_bytes") is not None:
            found.append(path)
    return found


def golden_model(name):
    """The model file a golden names ("shared:...", "zoo:...", or a path in the repository
    or in ../shared's TFLM folder)."""
    kind, _, rel = name.partition(":")
    if not rel:
        return ROOT / kind if (ROOT / kind).exists() else SHARED_MODELS / kind
    return SHARED_MODELS / rel if kind == "shared" else ZOO / rel


RECORDED = {"eval_tensor_data": "TfLiteEvalTensor data",
            "persistent_tflite_tensor_data": "Persistent TfLiteTensor data",
            "persistent_tflite_tensor_quantization_data":
                "Persistent TfLiteTensor quantization data",
            "persistent_buffer_data": "Persistent buffer data",
            "tflite_tensor_variable_buffer_data": "TfLiteTensor variable buffer data",
            "node_and_registration_array": "NodeAndRegistration struct",
            "op_data": "Operator runtime data"}


@pytest.mark.parametrize("path", goldens(), ids=lambda p: p.stem)
def test_tflm_equals_the_m4_goldens(path):
    golden = json.loads(path.read_text())
    model = golden_model(golden["model"])
    if not model.exists():
        pytest.skip(f"{model} is absent")
    it = picolite.Interpreter(model_path=str(model), target="tflm")
    it.allocate_tensors()
    fig = targets.figures(it._c, "tflm", golden.get("arena_size") or 0)
    for key in ("arena_used_bytes", "min_arena_bytes", "min_arena_bytes_16"):
        if golden.get(key) is not None:
            assert fig[key] == golden[key], key
    recording = golden.get("recording")
    if recording:
        cats = {name: (used, req, n) for name, used, req, n in fig["recording"]["categories"]}
        assert fig["recording"]["total"] == recording["arena_used_bytes"]
        for key, name in RECORDED.items():
            g = recording[key]
            assert cats.get(name, (0, 0, 0)) == (g["used_bytes"], g["requested_bytes"],
                                                 g["count"]), name


def refused_by_the_firmware():
    path = GOLDENS / "refused.json"
    return json.loads(path.read_text()) if path.is_file() else []


@pytest.mark.parametrize("golden", refused_by_the_firmware(), ids=lambda g: g["name"])
def test_tflm_refuses_what_the_firmware_refused(golden):
    model = golden_model(golden["model"])
    if not model.exists():
        pytest.skip(f"{model} is absent")
    it = picolite.Interpreter(model_path=str(model), target="tflm")
    try:
        it.allocate_tensors()  # picolite's own run
    except picolite.Error as e:
        pytest.skip(f"picolite does not run this model: {e}")
    with pytest.raises(picolite.UnsupportedOpError):
        targets.figures(it._c, "tflm")


RANDOM_GOLDENS = ROOT / "tests" / "goldens" / "tflm" / "m4-random.json"


def random_goldens():
    if not RANDOM_GOLDENS.is_file():
        return []
    return json.loads(RANDOM_GOLDENS.read_text())["models"]


@pytest.mark.parametrize("golden", random_goldens(),
                         ids=lambda g: f"{g['generator']}_{g['seed']}")
def test_tflm_equals_the_m4_firmware_on_random_models(golden):
    """tflm_models' random models (per-channel and per-tensor layers, each kernel's prepare
    allocations, variables, subgraphs, offline plans) as the Cortex-M4F firmware ran them."""
    import hashlib

    make = {g.__name__: g for g in tflm_models.GENERATORS + [tflm_models.typed]}[
        golden["generator"]]
    data = make(np.random.default_rng(golden["seed"]))
    if hashlib.sha256(data).hexdigest() != golden["model_sha256"]:
        pytest.skip("this numpy draws another model from the seed")
    it = picolite.Interpreter(model_content=data, target="tflm")
    it.allocate_tensors()
    if "fails" in golden:  # the firmware fails at any arena size
        with pytest.raises(picolite.UnsupportedOpError):
            targets.figures(it._c, "tflm", golden["arena_size"])
        return
    fig = targets.figures(it._c, "tflm", golden["arena_size"])
    for key in ("arena_used_bytes", "min_arena_bytes", "min_arena_bytes_16"):
        assert fig[key] == golden[key], key


def test_goldens_are_there_in_ci():
    if in_ci() and not goldens():
        pytest.fail(f"no firmware goldens in {GOLDENS}")


# --- the API: figures name their firmware -----------------------------------------------

@pytest.fixture
def hello():
    path = SHARED_MODELS / "examples" / "hello_world" / "hello_world_int8.tflite"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return path.read_bytes()


def test_the_default_target_is_tflm(hello):
    need = picolite.required_arena_size(hello)
    assert need == picolite.required_arena_size(hello, target="tflm")
    assert need != picolite.required_arena_size(hello, target="picolite")
    assert need != picolite.required_arena_size(hello, target="tflm-x86-64")


@pytest.mark.parametrize("target", ["tflm", "tflm-x86-64"])
def test_an_arena_below_the_targets_minimum_is_refused(hello, target):
    need = picolite.required_arena_size(hello, target=target)
    with pytest.raises(picolite.ArenaTooSmallError) as e:
        picolite.Interpreter(model_content=hello, arena_size=need - 1, target=target)
    assert (e.value.required, e.value.available) == (need, need - 1)
    it = picolite.Interpreter(model_content=hello, arena_size=need, target=target)
    it.allocate_tensors()
    it.set_input(np.array([[7]], np.int8), 0)
    it.invoke()
    assert it.arena_used_bytes() <= need
    assert it.arena.size >= picolite.required_arena_size(hello, target="picolite")


def test_the_report_prints_tflms_lines_then_picolites(hello):
    it = picolite.Interpreter(model_content=hello, target="tflm-x86-64")
    it.allocate_tensors()
    report = it.allocations()
    text = str(report).splitlines()
    assert report.target == "tflm-x86-64"
    assert text[0] == f"[RecordingMicroAllocator] Arena allocation total {report.total} bytes"
    first_own = next(i for i, line in enumerate(text) if line.startswith("[picolite]"))
    assert all(line.startswith("[RecordingMicroAllocator]") for line in text[:first_own])
    assert all(line.startswith("[picolite]") for line in text[first_own:])
    assert report.required == picolite.required_arena_size(hello, target="tflm-x86-64")


def test_target_picolite_reports_picolites_own_arena(hello):
    it = picolite.Interpreter(model_content=hello, target="picolite")
    it.allocate_tensors()
    report = it.allocations()
    assert report.target == "picolite"
    assert report.required == it.arena.size == picolite.required_arena_size(
        hello, target="picolite")


def test_tflm_plans_with_its_greedy_planner_only(hello):
    with pytest.raises(ValueError, match="greedy planner"):
        picolite.required_arena_size(hello, planner="bestfit")
    assert picolite.required_arena_size(hello, planner="bestfit", target="picolite") > 0


def test_an_operator_tflm_lacks_is_named():
    path = ZOO / "gelu" / "gelu_exact_float32.tflite"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    with pytest.raises(picolite.UnsupportedOpError, match="TFLM has no kernel for GELU"):
        picolite.required_arena_size(str(path))
    assert picolite.required_arena_size(str(path), target="picolite") > 0
