"""A Keras 3 model with a dynamic batch (tests/models/shape_ops/, made by make_shape_ops.py):
its converter-made shape arithmetic (SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE, SHAPE ->
GATHER -> REDUCE_PROD -> CONCATENATION -> RESHAPE) is evaluated at prepare, at the converted
batch and resized, and the outputs match LiteRT's reference kernels sized the same way."""

import numpy as np
import pytest

import picolite
from conftest import ZOO

pytestmark = pytest.mark.usefixtures("litert")

KERAS3 = ZOO / "shape_ops" / "keras3_dynbatch_reshape_float32.tflite"


def litert_run(x):
    from reference import make_interpreter

    it = make_interpreter(str(KERAS3))
    it.resize_tensor_input(it.get_input_details()[0]["index"], list(x.shape))
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])


def run(batch):
    x = np.random.default_rng(batch).uniform(-1, 1, (batch, 12)).astype(np.float32)
    it = picolite.Interpreter(model_path=str(KERAS3), arena_size=64 * 1024)
    if batch != 1:
        if not hasattr(it, "resize_tensor_input"):
            pytest.skip("this picolite has no Interpreter.resize_tensor_input yet")
        it.resize_tensor_input(it.get_input_details()[0]["index"], [batch, 12])
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"]), litert_run(x)


@pytest.mark.parametrize("batch", [1, 2, 5])
def test_keras3_dynamic_batch_matches_litert(batch):
    got, want = run(batch)
    assert got.shape == (batch, 2, 3)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
