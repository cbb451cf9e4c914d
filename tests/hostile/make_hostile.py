"""Hostile and odd models for tests/test_hostile.py: each reproduces a problem a campaign of
hostile models found (issue 22). They live outside tests/models/, so that no test scanning the
zoo runs them (TFLM aborts on some).

Written with the TFLite schema's flatbuffer object API (the schema module the tflite-micro
wheel ships), like tests/models/signal/make_signal.py.

- nested_while_int32.tflite: a WHILE whose body runs another WHILE. Input x (int32 [1]); the
  outer loop runs while x < 5000, its body runs the inner loop (50 iterations, x + 1 each)
  and gives x back. From x = 0: 100 outer and 5000 inner iterations, 5100 in all, output 5000.
  From x = -2**31 it would run for hours: a loop budget per node let nesting multiply it.
- scale_without_zero_point.tflite: ADD int8 whose input has a scale and no zero point.
- zero_point_2_40.tflite: ADD float32 whose input's quantization has the zero point 2**40
  (int64 in the schema; the verifier refuses it on an int8 tensor already).
- custom_name_not_utf8.tflite: a CUSTOM operator whose name is the bytes ff fe.
- sum_dynamic_float32.tflite: SUM over axis 0 of x (float32, shape [1], signature [-1]),
  signature "serving_default" (x -> output_0): the model of LiteRT's testEmptyInputTensor,
  which runs it on an input of shape [0].

    python tests/hostile/make_hostile.py
"""

import os

import numpy as np
from flatbuffers import Builder

from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as S

HERE = os.path.dirname(os.path.abspath(__file__))
OP = S.BuiltinOperator


class Model:
    """A model under construction: buffers and operator codes shared by its subgraphs."""

    def __init__(self):
        self.buffers, self.codes, self.subgraphs = [S.BufferT()], [], []

    def code(self, builtin, custom=None, version=1):
        for i, c in enumerate(self.codes):
            if c.builtinCode == builtin and c.customCode == custom:
                return i
        c = S.OperatorCodeT()
        c.builtinCode, c.version, c.customCode = builtin, version, custom
        c.deprecatedBuiltinCode = min(builtin, 127)
        self.codes.append(c)
        return len(self.codes) - 1

    def pack(self, description):
        m = S.ModelT()
        m.version, m.operatorCodes, m.subgraphs = 3, self.codes, self.subgraphs
        m.buffers, m.description = self.buffers, description
        b = Builder(1024)
        b.Finish(m.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())


class Subgraph:
    def __init__(self, model, name):
        self.m, self.sg = model, S.SubGraphT()
        self.sg.name, self.sg.tensors, self.sg.operators = name, [], []
        model.subgraphs.append(self.sg)

    def tensor(self, name, shape, ttype=S.TensorType.INT32, data=None, quant=None):
        t = S.TensorT()
        t.name, t.shape, t.type, t.buffer, t.quantization = name, list(shape), ttype, 0, quant
        if data is not None:
            b = S.BufferT()
            b.data = np.frombuffer(np.asarray(data).tobytes(), np.uint8)
            self.m.buffers.append(b)
            t.buffer = len(self.m.buffers) - 1
        self.sg.tensors.append(t)
        return len(self.sg.tensors) - 1

    def op(self, builtin, ins, outs, options_type=0, options=None, custom=None):
        o = S.OperatorT()
        o.opcodeIndex = self.m.code(builtin, custom)
        o.inputs, o.outputs = list(ins), list(outs)
        o.builtinOptionsType, o.builtinOptions = options_type, options
        self.sg.operators.append(o)

    def io(self, ins, outs):
        self.sg.inputs, self.sg.outputs = list(ins), list(outs)

    def while_op(self, ins, outs, cond, body):
        w = S.WhileOptionsT()
        w.condSubgraphIndex, w.bodySubgraphIndex = cond, body
        self.op(OP.WHILE, ins, outs, S.BuiltinOptions.WhileOptions, w)


def nested_while():
    m = Model()
    main, ocond, obody = (Subgraph(m, n) for n in ("main", "outer_cond", "outer_body"))
    icond, ibody = Subgraph(m, "inner_cond"), Subgraph(m, "inner_body")
    x, y = main.tensor("x", [1]), main.tensor("y", [1])
    main.while_op([x], [y], cond=1, body=2)
    main.io([x], [y])
    i, limit = ocond.tensor("i", [1]), ocond.tensor("limit", [1], data=np.int32([5000]))
    b = ocond.tensor("more", [1], S.TensorType.BOOL)
    ocond.op(OP.LESS, [i, limit], [b])
    ocond.io([i], [b])
    i, zero = obody.tensor("i", [1]), obody.tensor("zero", [1], data=np.int32([0]))
    i2, j2 = obody.tensor("i2", [1]), obody.tensor("j2", [1])
    obody.while_op([i, zero], [i2, j2], cond=3, body=4)
    obody.io([i], [i2])
    i, j = icond.tensor("i", [1]), icond.tensor("j", [1])
    n, b = icond.tensor("n", [1], data=np.int32([50])), icond.tensor("more", [1],
                                                                    S.TensorType.BOOL)
    icond.op(OP.LESS, [j, n], [b])
    icond.io([i, j], [b])
    i, j = ibody.tensor("i", [1]), ibody.tensor("j", [1])
    one = ibody.tensor("one", [1], data=np.int32([1]))
    i2, j2 = ibody.tensor("i2", [1]), ibody.tensor("j2", [1])
    ibody.op(OP.ADD, [i, one], [i2])
    ibody.op(OP.ADD, [j, one], [j2])
    ibody.io([i, j], [i2, j2])
    return m.pack("picolite hostile: nested WHILE")


def add(quant_a, ttype=S.TensorType.INT8):
    """out = a + b, [1, 4]; a's quantization as given, b's and out's 0.5 / 0."""
    m = Model()
    g = Subgraph(m, "main")
    plain = S.QuantizationParametersT()
    plain.scale, plain.zeroPoint = [0.5], [0]
    a = g.tensor("a", [1, 4], ttype, quant=quant_a)
    b = g.tensor("b", [1, 4], ttype, quant=plain)
    out = g.tensor("out", [1, 4], ttype, quant=plain)
    g.op(OP.ADD, [a, b], [out], S.BuiltinOptions.AddOptions, S.AddOptionsT())
    g.io([a, b], [out])
    return m.pack("picolite hostile: ADD")


def scale_without_zero_point():
    q = S.QuantizationParametersT()
    q.scale = [0.5]
    return add(q)


def zero_point_2_40():
    q = S.QuantizationParametersT()
    q.scale, q.zeroPoint = [0.5], [1 << 40]
    return add(q, S.TensorType.FLOAT32)  # an int8 one is refused by the verifier


def custom_name_not_utf8():
    m = Model()
    g = Subgraph(m, "main")
    x, y = g.tensor("x", [4], S.TensorType.FLOAT32), g.tensor("y", [4], S.TensorType.FLOAT32)
    g.op(OP.CUSTOM, [x], [y], custom=b"\xff\xfe")
    g.io([x], [y])
    return m.pack("picolite hostile: a custom op name that is not UTF-8")


def sum_dynamic():
    m = Model()
    g = Subgraph(m, "main")
    x = g.tensor("x", [1], S.TensorType.FLOAT32)
    g.sg.tensors[x].shapeSignature = [-1]
    axis = g.tensor("axis", [1], data=np.int32([0]))
    y = g.tensor("output_0", [], S.TensorType.FLOAT32)
    r = S.ReducerOptionsT()
    r.keepDims = False
    g.op(OP.SUM, [x, axis], [y], S.BuiltinOptions.ReducerOptions, r)
    g.io([x], [y])
    sig = S.SignatureDefT()
    sig.signatureKey, sig.subgraphIndex = "serving_default", 0
    tin, tout = S.TensorMapT(), S.TensorMapT()
    tin.name, tin.tensorIndex, tout.name, tout.tensorIndex = "x", x, "output_0", y
    sig.inputs, sig.outputs = [tin], [tout]
    mt = S.ModelT()
    mt.version, mt.operatorCodes, mt.subgraphs = 3, m.codes, m.subgraphs
    mt.buffers, mt.signatureDefs = m.buffers, [sig]
    mt.description = "picolite hostile: SUM of a dynamic input"
    b = Builder(1024)
    b.Finish(mt.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def main():
    for name, make in (("nested_while_int32", nested_while),
                       ("sum_dynamic_float32", sum_dynamic),
                       ("scale_without_zero_point", scale_without_zero_point),
                       ("zero_point_2_40", zero_point_2_40),
                       ("custom_name_not_utf8", custom_name_not_utf8)):
        with open(os.path.join(HERE, name + ".tflite"), "wb") as f:
            f.write(make())
        print(name)


if __name__ == "__main__":
    main()
