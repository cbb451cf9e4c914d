"""picolite.runtime behaves as tflite_micro's runtime module where scripts depend on it."""

import pathlib

import numpy as np
import pytest

import picolite
from picolite import runtime

HERE = pathlib.Path(__file__).resolve().parent
MODEL = str(HERE / "models" / "add_same_float32.tflite")
INT8 = str(HERE / "models" / "conv_2d_k3_s1_same_int8.tflite")


def test_from_file_allocates_and_runs():
    it = runtime.Interpreter.from_file(MODEL)
    it.set_input(np.full((1, 4, 4, 8), 2, np.float32), 0)
    it.set_input(np.full((1, 4, 4, 8), 3, np.float32), 1)
    assert it.invoke() == 0
    assert (it.get_output(0) == 5).all()
    assert it.reset() == 0


def test_from_bytes_with_tflm_keywords():
    data = pathlib.Path(MODEL).read_bytes()
    it = runtime.Interpreter.from_bytes(
        data, custom_op_registerers=[], arena_size=None,
        intrepreter_config=runtime.InterpreterConfig.kPreserveAllTensors,
        alt_decompression_memory_size=0)
    it.set_input(np.ones((1, 4, 4, 8), np.float32), 0)
    it.set_input(np.ones((1, 4, 4, 8), np.float32), 1)
    it.invoke()
    t = it.GetTensor(2, 0)
    assert sorted(t) == ["dtype", "shape", "tensor_data"] and (t["tensor_data"] == 2).all()


def test_details_have_tflm_keys_and_types():
    d = runtime.Interpreter.from_file(INT8).get_input_details(0)
    assert sorted(d) == ["dtype", "quantization_parameters", "shape"]
    assert d["dtype"] == np.int8
    q = d["quantization_parameters"]
    assert q["scales"].dtype == np.float32 and q["zero_points"].dtype == np.int32
    assert sorted(q) == ["quantized_dimension", "scales", "zero_points"]


def test_picolite_interpreter_keeps_both_name_sets():
    it = picolite.Interpreter(MODEL)
    it.allocate_tensors()
    assert isinstance(it.get_input_details(), list)
    assert it.get_input_details(1)["index"] == it.get_input_details()[1]["index"]
    assert isinstance(picolite.Interpreter.from_file(MODEL), picolite.Interpreter)


def test_index_errors_use_tflm_text():
    it = runtime.Interpreter.from_file(MODEL)
    for call in (lambda: it.get_input_details(2), lambda: it.get_output_details(1),
                 lambda: it.get_output(1), lambda: it.set_input(np.zeros(1), 5)):
        with pytest.raises(IndexError, match="^Tensor is out of bound"):
            call()
    with pytest.raises(ValueError, match="^Index must be a non-negative integer"):
        it.get_output(-1)
    with pytest.raises(ValueError, match="^Input data must not be None"):
        it.set_input(None, 0)
    with pytest.raises(ValueError, match="^Cannot set tensor: Got value of type INT32"):
        it.set_input(np.zeros((1, 4, 4, 8), np.int32), 0)


def test_constructor_errors_use_tflm_text():
    with pytest.raises(ValueError, match="^Invalid model file path"):
        runtime.Interpreter.from_file("missing.tflite")
    with pytest.raises(ValueError, match="^Custom ops registerers must be a list of strings"):
        runtime.Interpreter.from_file(MODEL, custom_op_registerers="X")
    with pytest.raises(RuntimeError, match="^TFLM could not register custom op via X"):
        runtime.Interpreter.from_file(MODEL, custom_op_registerers=["X"])
    with pytest.raises(picolite.ArenaTooSmallError, match="^TFLM failed to allocate tensors"):
        runtime.Interpreter.from_file(MODEL, arena_size=64)


def test_get_tensor_of_an_unkept_intermediate_uses_tflm_text():
    it = runtime.Interpreter.from_file(INT8)
    it.GetTensor(0, 0)  # an input is kept
    tensors, _ = it._c.counts  # TFLM's interpreter has no get_tensor_details()
    shared = [i for i in range(tensors) if it._info(i)["shared"]]
    if shared:
        with pytest.raises(RuntimeError, match="^TFLM only supports GetTensor"):
            it.GetTensor(shared[0], 0)
