"""16x8 UNIDIRECTIONAL_SEQUENCE_LSTM (int16 activations, int8 weights, int64 biases) against
TFLM's interpreter, the only runtime with such a kernel.

The zoo's tests/models/lstm16x8/ models are also judged by tests/test_golden.py (full-range
inputs) and tests/test_tflm_zoo.py; here they run on Gaussian inputs of several magnitudes
(so the gates are neither all saturated nor all linear) over many invokes, with the state
carried across invokes and reset midway, and the variants TFLM's kernel refuses are
refused by picolite too.
"""

import importlib.util

import numpy as np
import pytest

import picolite
from conftest import ZOO, require

GEN = ZOO / "lstm16x8" / "make_lstm16x8.py"
MODELS = sorted((ZOO / "lstm16x8").glob("*.tflite"))


def generator():
    require("tflite_micro.tensorflow.lite.micro.python.schema_py_generated")
    spec = importlib.util.spec_from_file_location("make_lstm16x8", GEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_zoo_has_every_layout():
    names = " ".join(p.stem for p in MODELS)
    assert len(MODELS) >= 6
    assert "time_major" in names and "clip" in names and "zero_points" in names


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.stem)
def test_equals_tflm_over_invokes_and_reset(path):
    runtime = require("tflite_micro.python.tflite_micro.runtime")
    ours = picolite.Interpreter(model_path=str(path))
    ours.allocate_tensors()
    theirs = runtime.Interpreter.from_file(str(path), arena_size=1 << 20)
    shape = ours.get_input_details()[0]["shape"]
    rng = np.random.default_rng(len(path.stem))
    distinct = set()
    for step in range(16):
        if step == 8:
            ours.reset()
            theirs.reset()
        sigma = (200, 2000, 8000, 30000)[step % 4]
        x = np.clip(rng.normal(0, sigma, shape), -32768, 32767).astype(np.int16)
        ours.set_input(x, 0)
        theirs.set_input(x, 0)
        ours.invoke()
        theirs.invoke()
        mine, tflm = ours.get_output(0), theirs.get_output(0)
        assert mine.dtype == np.int16 and mine.shape == tflm.shape
        assert mine.tobytes() == tflm.tobytes(), f"invoke {step} differs from TFLM"
        distinct.update(np.unique(mine).tolist())
    assert len(distinct) > 50  # the outputs are not saturated or constant


def test_state_carries_across_invokes():
    ours = picolite.Interpreter(model_path=str(ZOO / "lstm16x8" / "lstm16x8_b1_t6_i8_s12.tflite"))
    ours.allocate_tensors()
    x = np.full(ours.get_input_details()[0]["shape"], 5000, np.int16)
    outs = []
    for _ in range(2):
        ours.set_input(x, 0)
        ours.invoke()
        outs.append(ours.get_output(0).copy())
    assert outs[0].tobytes() != outs[1].tobytes()
    ours.reset()
    ours.set_input(x, 0)
    ours.invoke()
    assert ours.get_output(0).tobytes() == outs[0].tobytes()


@pytest.mark.parametrize("variant, words", [
    ({"projection": True}, "standard one only"),
    ({"peephole": True}, "standard one only"),
    ({"bias_type": np.int32}, "not supported"),
])
def test_refuses_what_tflm_refuses(variant, words):
    gen = generator()
    data = gen.build(gen.Spec("variant", 1, 2, 3, 4, **variant))
    runtime = require("tflite_micro.python.tflite_micro.runtime")
    if "bias_type" not in variant:  # TFLM reads an int32 bias as int64: out of bounds
        with pytest.raises(RuntimeError):
            runtime.Interpreter.from_bytes(data, arena_size=1 << 20)
    it = picolite.Interpreter(model_content=data)
    with pytest.raises(picolite.UnsupportedOpError, match=words):
        it.allocate_tensors()


def test_refuses_asymmetric_weights():
    import flatbuffers

    gen = generator()
    S = gen.S
    m = S.ModelT.InitFromPackedBuf(gen.build(gen.Spec("asym", 1, 2, 3, 4)), 0)
    m.subgraphs[0].tensors[m.subgraphs[0].operators[0].inputs[2]].quantization.zeroPoint = [3]
    b = flatbuffers.Builder(4096)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    it = picolite.Interpreter(model_content=bytes(b.Output()))
    with pytest.raises(picolite.ModelError, match="zero point 0"):
        it.allocate_tensors()
