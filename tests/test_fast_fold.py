"""Constants folded once for the host fast paths (csrc/fast/fold.c): weights stored as float16
or int8 and read through DEQUANTIZE at every invoke (MediaPipe's models) take the CONV_2D,
DEPTHWISE_CONV_2D, FULLY_CONNECTED and PRELU fast paths as float32 constants do. On random
models: the outputs are the portable kernels' bit for bit and the float32 twin's, the arena
figures are the portable build's, and the host memory holds the folded values besides the
packed weights (so the fast paths were taken: without the fold they decline)."""

import numpy as np
import pytest

import picolite
from picolite.testing import random_inputs

tflm_models = pytest.importorskip("tflm_models")

FAST_SETS = [k for k in picolite.kernel_sets() if k != "portable"]
pytestmark = pytest.mark.skipif(not FAST_SETS, reason="this CPU has no fast kernel set")


def random_model(seed, mode):
    """(model bytes, bytes of float32 values its DEQUANTIZEs give): mode "float16" keeps the
    weights as float16, "int8" as per-channel int8 (DEQUANTIZE to float32 both), "float32"
    the same values as float32 constants."""
    rng = np.random.default_rng(seed)
    m = tflm_models.Model()
    S = m.S
    m.types["float16"] = S.TensorType.FLOAT16
    folded = [0]

    def const(shape, axis=0):
        values = (rng.standard_normal(shape) * 0.3).astype(np.float16).astype(np.float32)
        if mode == "int8":  # per-channel int8: the float32 twin holds what they dequantize to
            scale = np.abs(values).max(axis=tuple(k for k in range(len(shape)) if k != axis))
            scale = np.maximum(scale, 1e-3) / 127.0
            shaped = scale.reshape([-1 if k == axis else 1 for k in range(len(shape))])
            q = np.clip(np.round(values / shaped), -127, 127).astype(np.int8)
            half = m.tensor(shape, "int8", (scale, np.zeros(len(scale), np.int64)), q, axis=axis)
        elif mode == "float16":
            half = m.tensor(shape, "float16", data=values.astype(np.float16))
        else:
            return m.tensor(shape, "float32", data=values)
        out = m.tensor(shape, "float32")
        m.op("DEQUANTIZE", [half], [out])
        folded[0] += 4 * int(np.prod(shape))
        return out

    h, w, c = (int(v) for v in rng.integers(3, 12, 3))
    oc = int(rng.integers(1, 20))
    x = m.tensor([1, h, w, c], "float32")
    opt = S.Conv2DOptionsT()
    opt.padding, opt.strideW, opt.strideH = S.Padding.SAME, 1, 1
    conv = m.tensor([1, h, w, oc], "float32")
    # biases stay float: the int8 form has per-tensor bias scales TFLite would not write
    m.op("CONV_2D", [x, const([oc, 3, 3, c]), m.tensor([oc], "float32",
                                                       data=np.ones(oc, np.float32))],
         [conv], opt)
    dopt = S.DepthwiseConv2DOptionsT()
    dopt.padding, dopt.strideW, dopt.strideH, dopt.depthMultiplier = S.Padding.SAME, 1, 1, 1
    dw = m.tensor([1, h, w, oc], "float32")
    m.op("DEPTHWISE_CONV_2D", [conv, const([1, 3, 3, oc], axis=3), -1], [dw], dopt)
    act = m.tensor([1, h, w, oc], "float32")
    m.op("PRELU", [dw, const([1, 1, oc], axis=2)], [act])
    flat = m.tensor([1, h * w * oc], "float32")
    ropt = S.ReshapeOptionsT()
    ropt.newShape = [1, h * w * oc]
    m.op("RESHAPE", [act], [flat], ropt)
    units = int(rng.integers(1, 30))
    y = m.tensor([1, units], "float32")
    m.op("FULLY_CONNECTED", [flat, const([units, h * w * oc]), -1], [y],
         S.FullyConnectedOptionsT())
    m.io([x], [y])
    return m.bytes(), folded[0]


def run(data, kernels, inputs):
    it = picolite.Interpreter(model_content=data, kernels=kernels, target="picolite")
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], inputs[0])
    it.invoke()
    out = it.get_tensor(it.get_output_details()[0]["index"])
    plan = [(b.tensor, b.offset, b.size) for b in it.memory_plan().buffers]
    figures = (it.arena_used_bytes(), it.allocations().to_dict(), plan)
    return out, figures, it.host_memory_bytes


@pytest.mark.parametrize("mode", ["float16", "int8"])
@pytest.mark.parametrize("seed", range(6))
def test_dequantized_constants_take_the_fast_paths(seed, mode):
    data, folded = random_model(seed, mode)
    twin, _ = random_model(seed, "float32")
    details = picolite.Interpreter(model_content=data).get_input_details()
    inputs = random_inputs(details, seed=seed)
    want, figures, none = run(data, "portable", inputs)
    assert none == 0
    for kernels in FAST_SETS:
        got, got_figures, host = run(data, kernels, inputs)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), kernels
        assert got_figures == figures, "the arena figures must be the portable build's"
        twin_out, _, twin_host = run(twin, kernels, inputs)
        if mode == "float16":  # the same values as constants: the same bytes
            assert np.array_equal(twin_out.view(np.uint32), got.view(np.uint32))
        # the twin's packed weights and tables, and the folded values besides
        assert host >= twin_host + folded, (kernels, host, twin_host, folded)
