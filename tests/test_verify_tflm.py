"""The verifier refuses no model TFLM loads.

Every .tflite of tests/models/ and ../shared/models/ that TFLM's Python interpreter accepts
must pass picolite's verifier (picolite.Interpreter's constructor opens and verifies the
model; allocation, where kernels decide, is tested elsewhere). Plus the stale fields TFLM
ignores, made from zoo models: biases with quantized_dimension 3 (rank 1: TFLM's person
detection model has such per-channel biases) and single-scale tensors with an out-of-range
one run exactly as the originals.
"""

import pathlib

import numpy as np
import pytest

import picolite
from conftest import SHARED_MODELS, ZOO, in_ci, require
from picolite.testing import random_inputs

TFLM_ARENA = 8 << 20


def model_files():
    files = sorted(ZOO.rglob("*.tflite"))
    if SHARED_MODELS.is_dir():
        files += sorted(SHARED_MODELS.rglob("*.tflite"))
    return files


def label(path):
    for root in (ZOO, SHARED_MODELS):
        if root in path.parents:
            return f"{root.name}/{path.relative_to(root)}"
    return str(path)


@pytest.fixture(scope="module")
def tflm_runtime():
    try:
        from tflite_micro.python.tflite_micro import runtime
    except ImportError:
        if in_ci():
            pytest.fail("tflite-micro is not installed (pip install '.[test]')")
        pytest.skip("tflite-micro is not installed (pip install tflite-micro)")
    return runtime


def tflm_loads(runtime, data):
    try:
        runtime.Interpreter.from_bytes(data, arena_size=TFLM_ARENA)
    except RuntimeError:
        return False
    return True


def test_shared_models_are_scanned_when_present():
    if not SHARED_MODELS.is_dir():
        pytest.skip(f"{SHARED_MODELS} is absent (it exists only beside the project's CI)")
    assert any(SHARED_MODELS in p.parents for p in model_files())


@pytest.mark.parametrize("path", model_files(), ids=label)
def test_verifier_accepts_what_tflm_loads(tflm_runtime, path: pathlib.Path):
    data = path.read_bytes()
    if not tflm_loads(tflm_runtime, data):
        pytest.skip("TFLM refuses this model too")
    picolite.Interpreter(model_content=data, arena_size=1 << 20)  # raises on refusal


def with_stale_dimensions(data: bytes) -> bytes:
    """The model with quantized_dimension 3 on every quantized rank-1 tensor and 5 on every
    other single-scale tensor: both outside the shape."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as sch

    m = sch.ModelT.InitFromObj(sch.Model.GetRootAsModel(data, 0))
    changed = 0
    for t in m.subgraphs[0].tensors:
        q = t.quantization
        if q is None or q.scale is None:
            continue
        if t.shape is not None and len(t.shape) == 1:
            q.quantizedDimension = 3
        elif len(q.scale) == 1:
            q.quantizedDimension = 5
        else:
            continue
        changed += 1
    assert changed > 0, "no tensor to make stale"
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


@pytest.mark.parametrize("name", ["net_cnn_int8.tflite", "net_cnn_int16x8.tflite",
                                  "net_lstm_int8.tflite"])
def test_stale_quantized_dimension_on_single_scale_runs_as_original(tflm_runtime, name):
    original = (ZOO / name).read_bytes()
    stale = with_stale_dimensions(original)
    assert tflm_loads(tflm_runtime, stale)
    outputs = []
    for data in (original, stale):
        it = picolite.Interpreter(model_content=data)
        it.allocate_tensors()
        for d, x in zip(it.get_input_details(), random_inputs(it.get_input_details(), seed=3)):
            it.set_tensor(d["index"], x)
        it.invoke()
        outputs.append(it.get_tensor(it.get_output_details()[0]["index"]))
    np.testing.assert_array_equal(outputs[0], outputs[1])
