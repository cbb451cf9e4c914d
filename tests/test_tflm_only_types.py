"""Type combinations TFLM runs and LiteRT's reference kernels do not: picolite equals TFLM.

QUANTIZE int8 -> int32 is TFLM's alone (LiteRT's quantize.cc refuses it). The converter never
emits it, so the one-op models are written here with the schema's object API (the module the
tflite-micro wheel ships).
"""

import numpy as np
import pytest

import picolite
from picolite.testing import random_inputs


@pytest.fixture(scope="module")
def tflm():
    try:
        from tflite_micro.python.tflite_micro import runtime
        from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema
    except ImportError:
        pytest.skip("tflite-micro is not installed (pip install tflite-micro)")
    return runtime, schema


def one_op_model(schema, code, in_type, in_q, out_type, out_q, shape):
    import flatbuffers

    def tensor(name, ttype, q):
        t = schema.TensorT()
        t.name, t.type, t.shape, t.buffer = name, ttype, list(shape), 0
        t.quantization = schema.QuantizationParametersT()
        t.quantization.scale, t.quantization.zeroPoint = [q[0]], [q[1]]
        return t

    m = schema.ModelT()
    m.version = 3
    opcode = schema.OperatorCodeT()
    opcode.builtinCode = opcode.deprecatedBuiltinCode = code
    opcode.version = 1
    m.operatorCodes = [opcode]
    op = schema.OperatorT()
    op.opcodeIndex, op.inputs, op.outputs = 0, [0], [1]
    sg = schema.SubGraphT()
    sg.tensors = [tensor("in", in_type, in_q), tensor("out", out_type, out_q)]
    sg.inputs, sg.outputs, sg.operators = [0], [1], [op]
    m.subgraphs = [sg]
    m.buffers = [schema.BufferT()]
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


@pytest.mark.parametrize("in_q,out_q", [((0.05, -3), (0.0004, 7)), ((0.5, 10), (0.25, -1000)),
                                        ((0.02, 0), (0.02, 0))])
def test_quantize_int8_to_int32_equals_tflm(tflm, in_q, out_q):
    runtime, schema = tflm
    data = one_op_model(schema, schema.BuiltinOperator.QUANTIZE, schema.TensorType.INT8, in_q,
                        schema.TensorType.INT32, out_q, (3, 50))
    ours = picolite.Interpreter(model_content=data)
    ours.allocate_tensors()
    ref = runtime.Interpreter.from_bytes(data, arena_size=1 << 16)
    for seed in range(3):
        x = random_inputs(ours.get_input_details(), seed=seed)[0]
        ours.set_tensor(ours.get_input_details()[0]["index"], x)
        ours.invoke()
        ref.set_input(x, 0)
        ref.invoke()
        got = ours.get_tensor(ours.get_output_details()[0]["index"])
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, ref.get_output(0))
