"""Golden comparison of every model in tests/models/ against TFLite's reference kernels.

picolite and LiteRT (BUILTIN_REF) run the same deterministic random samples in order on one
interpreter each (so stateful models are compared over several invocations), then again after
reset(). Integer outputs must be identical bytes; float32 within 1e-5 relative, 1e-6 absolute.
Realistic nets are compared layer by layer, so a failure names the first diverging op.
"""


import numpy as np
import pytest

import picolite
from conftest import ZOO, in_ci, zoo_manifest, require
from picolite.testing import compare_with_tflite, random_inputs

pytestmark = pytest.mark.usefixtures("litert")


MODELS = zoo_manifest()


def model_id(entry):
    return entry["file"].rsplit("/", 1)[-1].removesuffix(".tflite")


# Models the judge has no defined answer for, judged by TFLM instead: LiteRT 2.3's
# reference SUM reads int16 data as uint8 bytes and leaves half the output unwritten (its
# values change from run to run); TFLM's SUM runs the int16 template.
TFLM_JUDGED = {"sum_axis_last_int16x8", "sum_axes12_keep_int16x8"}


def tflm_outputs(path, inputs, n_outputs):
    runtime = require("tflite_micro.python.tflite_micro.runtime")
    tflm = runtime.Interpreter.from_file(str(path), arena_size=1 << 20)
    for i, x in enumerate(inputs):
        tflm.set_input(x, i)
    tflm.invoke()
    return [tflm.get_output(i) for i in range(n_outputs)]


# Models of TFLM's custom operators (the Signal library, CIRCULAR_BUFFER) that LiteRT cannot
# load: their manifest entry says "oracle": "tflm", and TFLM's own interpreter is the judge.
# "warmup": n means outputs hold arena leftovers until the n-th invoke (state kept in an
# output tensor); they are compared from then on.
TFLM_ORACLE = [e for e in MODELS if e.get("oracle") == "tflm"]


def wide_inputs(details, seed):
    """Inputs over the whole range of each dtype at a seed-dependent magnitude (so that the
    Signal ops' shifts, square roots and logs see small and large values alike)."""
    rng = np.random.default_rng(seed)
    out = []
    for d in details:
        dtype, shape = np.dtype(d["dtype"]), tuple(int(s) for s in d["shape"])
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            bits = min(info.bits, 63) - (dtype.kind == "i")
            x = rng.integers(0, 2 ** bits, shape, dtype=np.uint64) >> np.uint64(seed * 5 % bits)
            x = x.astype(np.int64) * (rng.integers(0, 2, shape) * 2 - 1 if dtype.kind == "i"
                                      else 1)
            out.append(x.astype(dtype))
        else:
            out.append((rng.uniform(-1, 1, shape) * 10.0 ** (seed % 3)).astype(dtype))
    return out


@pytest.mark.parametrize("entry", TFLM_ORACLE, ids=model_id)
def test_matches_tflm(entry):
    try:
        from tflite_micro.python.tflite_micro import runtime
    except ImportError:
        if in_ci():
            pytest.fail("tflite-micro is not installed (pip install '.[test]')")
        pytest.skip("tflite-micro is not installed (pip install tflite-micro)")
    path = str((ZOO / entry["file"]).resolve())
    # the wheel's own target: x86-64, no fused multiply-adds (tflm's Arm firmware fuses them)
    ours = picolite.Interpreter(model_path=path, target="tflm-x86-64")
    ours.allocate_tensors()
    theirs = runtime.Interpreter.from_file(path, arena_size=1 << 20)
    warmup = entry.get("warmup", 0)
    for step in range(warmup + 6):
        if step == warmup + 3:
            ours.reset()
            theirs.reset()
        for i, x in enumerate(wide_inputs(ours.get_input_details(), step)):
            ours.set_input(x, i)
            theirs.set_input(x, i)
        ours.invoke()
        theirs.invoke()
        for o in range(len(ours.get_output_details()) if step >= warmup else 0):
            a, b = ours.get_output(o), theirs.get_output(o)
            if a.dtype.kind == "f":
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
            else:
                assert a.tobytes() == b.tobytes(), f"step {step}: output {o} differs from TFLM"


@pytest.mark.parametrize("entry", [e for e in MODELS if e.get("oracle") != "tflm"], ids=model_id)
def test_matches_tflite(entry):
    path = (ZOO / entry["file"]).resolve()
    if model_id(entry) in TFLM_JUDGED:
        it = picolite.Interpreter(model_path=str(path))
        it.allocate_tensors()
        for seed in range(3):
            inputs = random_inputs(it.get_input_details(), seed=seed)
            for d, x in zip(it.get_input_details(), inputs):
                it.set_tensor(d["index"], x)
            it.invoke()
            outs = it.get_output_details()
            for d, want in zip(outs, tflm_outputs(path, inputs, len(outs))):
                np.testing.assert_array_equal(it.get_tensor(d["index"]), want)
        return
    layers = entry["family"] != "single_op"
    report = compare_with_tflite(str(path), samples=3, layers=layers)
    assert report.ok, str(report)


# (TFLM-judged stateful models are reset midway in test_matches_tflm)
STATEFUL = [e for e in MODELS if any("LSTM" in op or op == "SVDF" for op in e["ops"])
            and e.get("oracle") != "tflm"]


@pytest.mark.parametrize("entry", STATEFUL, ids=model_id)
def test_stateful_model_matches_after_reset(entry):
    from reference import make_interpreter

    path = str((ZOO / entry["file"]).resolve())
    ours = picolite.Interpreter(model_path=path, target="litert")
    ours.allocate_tensors()
    ref = make_interpreter(path)
    details = ours.get_input_details()
    for step in range(4):
        if step == 2:
            ours.reset()
            ref.reset_all_variables()
        for d, x in zip(details, random_inputs(details, seed=step)):
            ours.set_tensor(d["index"], x)
            ref.set_tensor(d["index"], x)
        ours.invoke()
        ref.invoke()
        for d in ours.get_output_details():
            a, b = ours.get_tensor(d["index"]), ref.get_tensor(d["index"])
            if np.issubdtype(b.dtype, np.floating):
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
            else:
                assert a.tobytes() == b.tobytes(), f"step {step}: outputs differ"


def test_zoo_is_large_and_small():
    files = list(ZOO.rglob("*.tflite"))
    assert len(MODELS) >= 60 and len(files) >= 60
    assert sum(f.stat().st_size for f in files) < 5 * 1024 * 1024
