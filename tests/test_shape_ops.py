"""The shape_ops zoo beyond single runs: a Keras 3 model with a dynamic batch, whose
converter-made shape arithmetic (SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE, SHAPE -> GATHER ->
REDUCE_PROD -> CONCATENATION) picolite evaluates at prepare, run at other batch sizes against
LiteRT's reference kernels resized the same way."""

import numpy as np
import pytest

import picolite
from conftest import ZOO

pytestmark = pytest.mark.usefixtures("litert")

KERAS3 = ZOO / "shape_ops" / "keras3_dynbatch_reshape_float32.tflite"


def litert_run(path, x):
    from reference import make_interpreter

    it = make_interpreter(path)
    it.resize_tensor_input(it.get_input_details()[0]["index"], list(x.shape))
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])


def test_keras3_dynamic_batch_runs_at_its_converted_batch():
    x = np.random.default_rng(0).uniform(-1, 1, (1, 12)).astype(np.float32)
    it = picolite.Interpreter(model_path=str(KERAS3))
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    got = it.get_tensor(it.get_output_details()[0]["index"])
    np.testing.assert_allclose(got, litert_run(str(KERAS3), x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("batch", [2, 5])
def test_keras3_dynamic_batch_resized(batch):
    it = picolite.Interpreter(model_path=str(KERAS3))
    if not hasattr(it, "resize_tensor_input"):
        pytest.skip("this picolite has no Interpreter.resize_tensor_input yet")
    x = np.random.default_rng(batch).uniform(-1, 1, (batch, 12)).astype(np.float32)
    it.resize_tensor_input(it.get_input_details()[0]["index"], [batch, 12])
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    got = it.get_tensor(it.get_output_details()[0]["index"])
    assert got.shape == (batch, 2, 3)
    np.testing.assert_allclose(got, litert_run(str(KERAS3), x), rtol=1e-5, atol=1e-6)
