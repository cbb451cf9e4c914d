"""target="tflm-x86-64" computes the tflite-micro wheel's bytes, model by model.

Every model of tests/models (MLPerf Tiny's four included) and of ../shared/models/tflm that
the wheel runs: picolite with target="tflm-x86-64" and TFLM's own Python interpreter get the
same inputs, written before every invoke (three random samples, the third with float inputs
16x wider so that saturating functions see their tails), each invoked twice on one
interpreter (state carried over), and must give identical output bytes. Float outputs are
held to 1e-5 relative instead: TFLM's TANH and exp come from the host's libm (glibc here, newlib
on a device), whose last bit picolite does not copy. benchmarks/tflm_survey.py finds, layer
by layer, where a model differs.

Models where TFLM's output depends on memory it never writes are left out, naming why (the
README's table lists them). Skips when the wheel is missing, except in CI.
"""

import pathlib

import numpy as np
import pytest

import picolite
from conftest import SHARED_MODELS, ZOO, in_ci, zoo_manifest
from picolite.testing import random_inputs

ROOT = pathlib.Path(__file__).resolve().parents[1]

# TFLM reads memory it never initialised: no defined bytes to reproduce.
UNDEFINED = {
    "space_to_batch_nd_3d_float32": "SPACE_TO_BATCH_ND pads with its never-set output_offset",
    "space_to_batch_nd_3d_int8": "SPACE_TO_BATCH_ND pads with its never-set output_offset",
    "space_to_batch_nd_4d_pad_float32": "SPACE_TO_BATCH_ND pads with its never-set "
                                        "output_offset",
    "space_to_batch_nd_4d_pad_int8": "SPACE_TO_BATCH_ND pads with its never-set output_offset",
    "greater_bcast_1d_int16": "GREATER int16 compares with scaling parameters TFLM's prepare "
                              "never sets",
    "greater_same_int16x8": "GREATER int16 compares with scaling parameters TFLM's prepare "
                            "never sets",
    "detection_postprocess_fast_2classes_float32": "TFLM's fast NMS with 2 classes per "
                                                   "detection writes past its outputs' end "
                                                   "and leaves gaps unwritten",
}


def models():
    seen, out = set(), []
    for e in zoo_manifest():
        path = (ZOO / e["file"]).resolve()
        if path.exists() and path not in seen and e.get("tflm", {}).get("status") != "error":
            out.append(pytest.param(path, e.get("warmup", 0), id=e["file"]))
        seen.add(path)
    for path in sorted(ZOO.rglob("*.tflite")):  # MLPerf Tiny's and others no manifest lists
        if path.resolve() not in seen:
            seen.add(path.resolve())
            out.append(pytest.param(path, 0, id=path.relative_to(ZOO).as_posix()))
    if SHARED_MODELS.is_dir():
        for path in sorted(SHARED_MODELS.rglob("*.tflite")):
            out.append(pytest.param(path, 0, id=path.relative_to(SHARED_MODELS).as_posix()))
    return out


@pytest.fixture(scope="module")
def runtime():
    try:
        from tflite_micro.python.tflite_micro import runtime
    except ImportError:
        if in_ci():
            pytest.fail("tflite-micro is not installed (pip install '.[test]')")
        pytest.skip("tflite-micro is not installed (pip install tflite-micro)")
    return runtime


def samples(details):
    out = []
    for seed in range(3):
        xs = random_inputs(details, seed=seed)
        out.append([x * 16 if x.dtype.kind == "f" and seed == 2 else x for x in xs])
    return out


def same(mine, tflm):
    if mine.dtype.kind == "f":
        return mine.shape == tflm.shape and np.allclose(mine, tflm, rtol=1e-5, atol=1e-6,
                                                        equal_nan=True)
    return mine.tobytes() == tflm.tobytes()


@pytest.mark.parametrize("path,warmup", models())
def test_equals_the_tflite_micro_wheel(path, warmup, runtime):
    name = path.stem
    if name in UNDEFINED:
        pytest.skip(f"undefined in TFLM: {UNDEFINED[name]}")
    try:
        theirs = runtime.Interpreter.from_file(str(path), arena_size=16 << 20)
    except (RuntimeError, ValueError) as e:
        pytest.skip(f"the wheel does not run it: {str(e)[:80]}")
    ours = picolite.Interpreter(model_path=str(path), target="tflm-x86-64")
    try:
        ours.allocate_tensors()
    except picolite.UnsupportedOpError as e:
        pytest.skip(f"picolite refuses this model on purpose: {str(e)[:80]}")
    step = 0
    for xs in samples(ours.get_input_details()):
        for _ in range(2):
            for i, x in enumerate(xs):
                ours.set_input(x, i)
                theirs.set_input(x, i)
            ours.invoke()
            try:
                theirs.invoke()
            except RuntimeError as e:
                pytest.skip(f"the wheel's invoke fails: {str(e)[:80]}")
            if step >= warmup:  # before, an output holds arena leftovers (CIRCULAR_BUFFER)
                for o in range(len(ours.get_output_details())):
                    mine, tflm = ours.get_output(o), theirs.get_output(o)
                    assert same(mine, tflm), (
                        f"invoke {step}, output {o}: {np.count_nonzero(mine != tflm)} of "
                        f"{mine.size} elements differ from TFLM "
                        f"(benchmarks/tflm_survey.py --only {name} says where)")
            step += 1
