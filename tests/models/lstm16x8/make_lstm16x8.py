"""16x8 UNIDIRECTIONAL_SEQUENCE_LSTM models: int16 activations, int8 weights, int64 biases.

TensorFlow's converter does not produce a 16x8 LSTM and LiteRT has no kernel for one, so
these models are written directly with the TFLite schema's flatbuffer object API (the schema
module the tflite-micro wheel ships), quantized as a 16x8 LSTM is: int16 input, hidden state
and output (symmetric unless a model says otherwise), int8 weights symmetric per tensor,
int64 biases at input scale x weight scale, an int16 cell state with a power-of-two scale,
the states as variable tensors. TFLM's interpreter (EvalLstm<int16, int8, int16, int64>) is
the judge: every entry says "oracle": "tflm" and each model is run through TFLM here once.

Weights and float ranges come from numpy RandomState(<crc32 of the name>), so a rerun gives
the same bytes.

    python tests/models/lstm16x8/make_lstm16x8.py
"""

import os
import sys
import zlib

import numpy as np
from flatbuffers import Builder

from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as S

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/models, for make_models

GATES = ("input", "forget", "cell", "output")


class Spec:
    """One model: sizes, layout and quantization. Input rows are [batch, time, input]
    (time_major: [time, batch, input]); the states are [batch, cells]."""

    def __init__(self, name, batch, steps, n_input, n_cell, time_major=False, cell_clip=0.0,
                 cell_log2=-11, input_range=2.0, input_zp=0, hidden_zp=0, weight_range=0.6,
                 intermediates=False, peephole=False, projection=False, bias_type=np.int64):
        self.__dict__.update(locals())
        del self.__dict__["self"]


def _quant(scale, zp=0):
    q = S.QuantizationParametersT()
    q.scale, q.zeroPoint = [float(scale)], [int(zp)]
    return q


class _Graph:
    def __init__(self):
        self.tensors, self.buffers = [], [S.BufferT()]

    def tensor(self, name, shape, ttype, quant=None, data=None, variable=False):
        t = S.TensorT()
        t.name, t.shape, t.type, t.quantization = name, list(shape), ttype, quant
        t.isVariable, t.buffer = variable, 0
        if data is not None:
            b = S.BufferT()
            b.data = np.frombuffer(np.ascontiguousarray(data).tobytes(), np.uint8)
            self.buffers.append(b)
            t.buffer = len(self.buffers) - 1
        self.tensors.append(t)
        return len(self.tensors) - 1


def build(spec):
    """The model's flatbuffer bytes."""
    rs = np.random.RandomState(zlib.crc32(spec.name.encode()))
    g = _Graph()
    rows = [spec.steps, spec.batch] if spec.time_major else [spec.batch, spec.steps]
    s_in = spec.input_range / 32767.0
    s_h = 1.0 / 32767.0  # the hidden state is o * tanh(c), within [-1, 1]
    ins = [-1] * 24
    ins[0] = g.tensor("input", rows + [spec.n_input], S.TensorType.INT16,
                      _quant(s_in, spec.input_zp))

    def weights(name, cols):
        w = rs.uniform(-spec.weight_range, spec.weight_range, (spec.n_cell, cols))
        s_w = np.abs(w).max() / 127.0
        wq = np.clip(np.round(w / s_w), -127, 127).astype(np.int8)
        return g.tensor(name, wq.shape, S.TensorType.INT8, _quant(s_w), wq), s_w

    for k, gate in enumerate(GATES):
        ins[1 + k], s_wx = weights(f"input_to_{gate}_w", spec.n_input)
        ins[5 + k], _ = weights(f"recurrent_to_{gate}_w", spec.n_cell)
        b_scale = np.float32(s_in) * np.float32(s_wx)
        bias = rs.uniform(-1.0, 1.0, spec.n_cell) + (1.0 if gate == "forget" else 0.0)
        bq = np.round(bias / b_scale).astype(spec.bias_type)
        btype = S.TensorType.INT64 if spec.bias_type == np.int64 else S.TensorType.INT32
        ins[12 + k] = g.tensor(f"{gate}_bias", [spec.n_cell], btype, _quant(b_scale), bq)
    if spec.peephole:
        for k, gate in enumerate(("input", "forget", "output")):
            p = rs.randint(-1000, 1000, spec.n_cell).astype(np.int16)
            ins[9 + k] = g.tensor(f"cell_to_{gate}_w", [spec.n_cell], S.TensorType.INT16,
                                  _quant(1e-4), p)
    if spec.projection:
        p = rs.randint(-127, 128, (spec.n_cell, spec.n_cell)).astype(np.int8)
        ins[16] = g.tensor("projection_w", p.shape, S.TensorType.INT8, _quant(0.01), p)
    ins[18] = g.tensor("hidden_state", [spec.batch, spec.n_cell], S.TensorType.INT16,
                       _quant(s_h, spec.hidden_zp), variable=True)
    ins[19] = g.tensor("cell_state", [spec.batch, spec.n_cell], S.TensorType.INT16,
                       _quant(2.0 ** spec.cell_log2), variable=True)
    out = g.tensor("output", rows + [spec.n_cell], S.TensorType.INT16,
                   _quant(s_h, spec.hidden_zp))
    op = S.OperatorT()
    op.opcodeIndex, op.inputs, op.outputs = 0, ins, [out]
    if spec.intermediates:  # as the converter leaves them (TFLM's 16x8 kernel reads none)
        op.intermediates = [g.tensor(f"input_to_{gate}_intermediate", [0],
                                     S.TensorType.FLOAT32) for gate in GATES]
        op.intermediates.append(g.tensor("effective_hidden_scale_intermediate", [0],
                                         S.TensorType.INT16, _quant(s_h, spec.hidden_zp)))
    o = S.UnidirectionalSequenceLSTMOptionsT()
    o.fusedActivationFunction = S.ActivationFunctionType.TANH
    o.cellClip, o.timeMajor = spec.cell_clip, spec.time_major
    op.builtinOptionsType = S.BuiltinOptions.UnidirectionalSequenceLSTMOptions
    op.builtinOptions = o
    code = S.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = S.BuiltinOperator.UNIDIRECTIONAL_SEQUENCE_LSTM
    code.version = 1
    sg = S.SubGraphT()
    sg.tensors, sg.operators, sg.name = g.tensors, [op], "main"
    sg.inputs, sg.outputs = [ins[0]], [out]
    m = S.ModelT()
    m.version, m.operatorCodes, m.subgraphs, m.buffers = 3, [code], [sg], g.buffers
    m.description = f"picolite lstm16x8 zoo: {spec.name}"
    b = Builder(4096)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


SPECS = [
    Spec("lstm16x8_b1_t6_i8_s12", 1, 6, 8, 12),
    Spec("lstm16x8_b3_t4_i5_s7_clip0p8", 3, 4, 5, 7, cell_clip=0.8, cell_log2=-12),
    Spec("lstm16x8_time_major_t5_b2_i6_s10", 2, 5, 6, 10, time_major=True),
    Spec("lstm16x8_time_major_t3_b4_i16_s8_clip1", 4, 3, 16, 8, time_major=True, cell_clip=1.0,
         cell_log2=-10),
    Spec("lstm16x8_b2_t3_i20_s24_cell2e-15", 2, 3, 20, 24, cell_log2=-15, input_range=8.0),
    Spec("lstm16x8_b2_t4_i6_s9_zero_points", 2, 4, 6, 9, input_zp=120, hidden_zp=-37,
         cell_log2=-9),
    Spec("lstm16x8_b1_t28_i28_s20_mnist_like", 1, 28, 28, 20, cell_clip=10.0, cell_log2=-12,
         input_range=1.0, intermediates=True),
]


def tflm_runs(data):
    """TFLM loads and invokes the model (the oracle must have an answer)."""
    from tflite_micro.python.tflite_micro import runtime
    it = runtime.Interpreter.from_bytes(data, arena_size=1 << 20)
    it.invoke()


def main():
    import make_models
    zoo = make_models.Zoo(out_dir=HERE, tflm=False)
    for spec in SPECS:
        data = build(spec)
        tflm_runs(data)
        rows = [spec.steps, spec.batch] if spec.time_major else [spec.batch, spec.steps]
        io = [{"name": "input", "shape": rows + [spec.n_input], "dtype": "int16"}]
        out = [{"name": "output", "shape": rows + [spec.n_cell], "dtype": "int16"}]
        params = {k: v for k, v in vars(spec).items()
                  if k not in ("name", "peephole", "projection", "bias_type")}
        zoo.save(spec.name, data, "UNIDIRECTIONAL_SEQUENCE_LSTM", "int16x8", "single_op",
                 "single UNIDIRECTIONAL_SEQUENCE_LSTM (16x8: int16 activations, int8 weights, "
                 "int64 biases)", params, ["UNIDIRECTIONAL_SEQUENCE_LSTM"], io, out,
                 extra={"oracle": "tflm", "tflm": {"status": "exact"}})
    zoo.write_manifest("tests/models/lstm16x8/make_lstm16x8.py")


if __name__ == "__main__":
    main()
