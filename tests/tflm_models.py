"""Small .tflite models with random shapes, written with the schema's object API (the module
the tflite-micro wheel ships), for checking picolite's model of TFLM's arena.

Each generator takes a numpy Generator and returns model bytes; together they cover the
branches of TFLM's kernels that change the arena: per-channel against per-tensor filters,
int8/int16/float, biases present or not, int16 lookup tables, reductions' scratch, dims TFLM
copies into the tail, variables (VAR_HANDLE / ASSIGN_VARIABLE / READ_VARIABLE under
CALL_ONCE), control flow (IF, WHILE) and offline plans.
"""

import numpy as np


def schema():
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as S

    return S


class Model:
    """A model under construction: tensors, operators and subgraphs, packed by bytes()."""

    def __init__(self):
        S = self.S = schema()
        self.types = {"float32": S.TensorType.FLOAT32, "int8": S.TensorType.INT8,
                      "int16": S.TensorType.INT16, "int32": S.TensorType.INT32,
                      "int64": S.TensorType.INT64, "bool": S.TensorType.BOOL,
                      "uint8": S.TensorType.UINT8,
                      "resource": S.TensorType.RESOURCE}
        self.m = S.ModelT()
        self.m.version = 3
        self.m.operatorCodes, self.m.buffers, self.m.subgraphs = [], [S.BufferT()], []
        self.codes = {}
        self.sg = self.subgraph()

    def subgraph(self):
        sg = self.S.SubGraphT()
        sg.tensors, sg.operators, sg.inputs, sg.outputs = [], [], [], []
        self.m.subgraphs.append(sg)
        return sg

    def tensor(self, shape, dtype="int8", q=None, data=None, variable=False, sg=None, axis=0):
        sg = sg or self.sg
        t = self.S.TensorT()
        t.name, t.type, t.shape, t.buffer = f"t{len(sg.tensors)}", self.types[dtype], list(shape), 0
        t.isVariable = variable
        if q is not None:
            t.quantization = self.S.QuantizationParametersT()
            t.quantization.scale = [float(v) for v in np.atleast_1d(q[0])]
            t.quantization.zeroPoint = [int(v) for v in np.atleast_1d(q[1])]
            t.quantization.quantizedDimension = axis
        if data is not None:
            b = self.S.BufferT()
            b.data = list(np.ascontiguousarray(data).tobytes())
            self.m.buffers.append(b)
            t.buffer = len(self.m.buffers) - 1
        sg.tensors.append(t)
        return len(sg.tensors) - 1

    def op(self, name, inputs, outputs, options=None, sg=None):
        S = self.S
        sg = sg or self.sg
        code = getattr(S.BuiltinOperator, name)
        if code not in self.codes:
            oc = S.OperatorCodeT()
            oc.builtinCode, oc.deprecatedBuiltinCode, oc.version = code, min(code, 127), 1
            self.m.operatorCodes.append(oc)
            self.codes[code] = len(self.m.operatorCodes) - 1
        o = S.OperatorT()
        o.opcodeIndex, o.inputs, o.outputs = self.codes[code], list(inputs), list(outputs)
        if options is not None:
            o.builtinOptionsType = getattr(S.BuiltinOptions, type(options).__name__[:-1])
            o.builtinOptions = options
        sg.operators.append(o)

    def io(self, inputs, outputs, sg=None):
        sg = sg or self.sg
        sg.inputs, sg.outputs = list(inputs), list(outputs)

    def offline_plan(self, offsets):
        """OfflineMemoryAllocation metadata: one offset (or -1) per tensor of every
        subgraph, in order."""
        S = self.S
        values = np.array([1, len(self.m.subgraphs), len(offsets)] + list(offsets), np.int32)
        b = S.BufferT()
        b.data = list(values.tobytes())
        self.m.buffers.append(b)
        meta = S.MetadataT()
        meta.name, meta.buffer = "OfflineMemoryAllocation", len(self.m.buffers) - 1
        self.m.metadata = [meta]

    def bytes(self):
        import flatbuffers

        b = flatbuffers.Builder(1024)
        b.Finish(self.m.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())


def _act(rng, dtype):
    """An activation quantization for dtype (None for float)."""
    if dtype == "float32":
        return None
    if dtype == "int16":
        return (float(rng.uniform(1e-4, 1e-3)), 0)
    return (float(rng.uniform(0.01, 0.1)), int(rng.integers(-20, 20)))


def _filter(m, rng, shape, dtype, channels, axis, per_channel):
    """Constant int8 (or float) weights; per-channel scales along axis when asked."""
    if dtype == "float32":
        return m.tensor(shape, "float32", data=rng.uniform(-1, 1, shape).astype(np.float32))
    n = channels if per_channel else 1
    q = (rng.uniform(0.005, 0.02, n), np.zeros(n, np.int64))
    return m.tensor(shape, "int8", q, rng.integers(-127, 128, shape).astype(np.int8), axis=axis)


def _bias(m, rng, n, dtype, in_q, per):
    if dtype == "float32":
        return m.tensor([n], "float32", data=rng.uniform(-1, 1, n).astype(np.float32))
    btype = "int64" if dtype == "int16" else "int32"
    data = rng.integers(-1000, 1000, n).astype(np.int64 if dtype == "int16" else np.int32)
    return m.tensor([n], btype, (np.full(per, 1e-5), np.zeros(per, np.int64)), data)


def fully_connected(rng):
    S = schema()
    dtype = rng.choice(["int8", "int16", "float32"])
    per_channel = dtype != "float32" and rng.random() < 0.5
    batch, units, depth = int(rng.integers(1, 4)), int(rng.integers(1, 24)), int(rng.integers(1, 40))
    m = Model()
    x = m.tensor([batch, depth], dtype, _act(rng, dtype))
    w = _filter(m, rng, [units, depth], dtype, units, 0, per_channel)
    b = _bias(m, rng, units, dtype, None, units if per_channel else 1) if rng.random() < .7 else -1
    y = m.tensor([batch, units], dtype, _act(rng, dtype))
    m.op("FULLY_CONNECTED", [x, w, b], [y], S.FullyConnectedOptionsT())
    m.io([x], [y])
    return m.bytes()


def conv(rng, depthwise=False):
    S = schema()
    dtype = rng.choice(["int8", "int16", "float32"])
    per_channel = dtype != "float32" and rng.random() < 0.7
    h, w, cin = int(rng.integers(3, 10)), int(rng.integers(3, 10)), int(rng.integers(1, 6))
    cout = cin * int(rng.integers(1, 3)) if depthwise else int(rng.integers(1, 12))
    kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    m = Model()
    x = m.tensor([1, h, w, cin], dtype, _act(rng, dtype))
    if depthwise:
        f = _filter(m, rng, [1, kh, kw, cout], dtype, cout, 3, per_channel)
        opt = S.DepthwiseConv2DOptionsT()
        opt.depthMultiplier = cout // cin
    else:
        f = _filter(m, rng, [cout, kh, kw, cin], dtype, cout, 0, per_channel)
        opt = S.Conv2DOptionsT()
    opt.padding, opt.strideW, opt.strideH = S.Padding.VALID, 1, 1
    b = _bias(m, rng, cout, dtype, None, cout if per_channel else 1) if rng.random() < .8 else -1
    y = m.tensor([1, h - kh + 1, w - kw + 1, cout], dtype, _act(rng, dtype))
    m.op("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D", [x, f, b], [y], opt)
    m.io([x], [y])
    return m.bytes()


def depthwise(rng):
    return conv(rng, depthwise=True)


def transpose_conv(rng):
    S = schema()
    dtype = rng.choice(["int8", "int16", "float32"])
    h, w, cin, cout = (int(rng.integers(2, 6)), int(rng.integers(2, 6)), int(rng.integers(1, 5)),
                       int(rng.integers(1, 6)))
    m = Model()
    shape = m.tensor([4], "int32", data=np.array([1, 2 * h, 2 * w, cout], np.int32))
    f = _filter(m, rng, [cout, 2, 2, cin], dtype, cout, 0, dtype != "float32")
    x = m.tensor([1, h, w, cin], dtype, _act(rng, dtype))
    b = _bias(m, rng, cout, dtype, None, cout) if rng.random() < .6 else -1
    y = m.tensor([1, 2 * h, 2 * w, cout], dtype, _act(rng, dtype))
    opt = S.TransposeConvOptionsT()
    opt.padding, opt.strideW, opt.strideH = S.Padding.VALID, 2, 2
    m.op("TRANSPOSE_CONV", [shape, f, x, b], [y], opt)
    m.io([x], [y])
    return m.bytes()


def softmax(rng):
    S = schema()
    dtype = rng.choice(["int8", "int16", "float32"])
    n = int(rng.integers(2, 40))
    m = Model()
    x = m.tensor([1, n], dtype, _act(rng, dtype))
    out_q = None if dtype == "float32" else ((1 / 32768, 0) if dtype == "int16" else (1 / 256, -128))
    y = m.tensor([1, n], dtype, out_q)
    opt = S.SoftmaxOptionsT()
    opt.beta = 1.0
    m.op("SOFTMAX", [x], [y], opt)
    m.io([x], [y])
    return m.bytes()


def reduce(rng):
    S = schema()
    op = rng.choice(["MEAN", "SUM", "REDUCE_MAX"])
    dtype = rng.choice(["int8", "float32"] + (["int16"] if op == "MEAN" else []))
    rank = int(rng.integers(2, 5))
    shape = [int(v) for v in rng.integers(1, 6, rank)]
    axes = sorted(rng.choice(rank, int(rng.integers(1, rank + 1)), replace=False).tolist())
    keep = bool(rng.random() < 0.5)
    out = [1 if (i in axes) else d for i, d in enumerate(shape)] if keep else \
        [d for i, d in enumerate(shape) if i not in axes]
    m = Model()
    q = _act(rng, dtype)
    x = m.tensor(shape, dtype, q)
    a = m.tensor([len(axes)], "int32", data=np.array(axes, np.int32))
    y = m.tensor(out, dtype, q)
    opt = S.ReducerOptionsT()
    opt.keepDims = keep
    m.op(op, [x, a], [y], opt)
    m.io([x], [y])
    return m.bytes()


def mirror_pad(rng):
    S = schema()
    rank = int(rng.integers(1, 5))
    shape = [int(v) for v in rng.integers(2, 6, rank)]
    pads = rng.integers(0, 2, (rank, 2)).astype(np.int32)
    m = Model()
    x = m.tensor(shape, "float32")
    p = m.tensor([rank, 2], "int32", data=pads)
    y = m.tensor([d + int(pads[i].sum()) for i, d in enumerate(shape)], "float32")
    opt = S.MirrorPadOptionsT()
    opt.mode = S.MirrorPadMode.SYMMETRIC
    m.op("MIRROR_PAD", [x, p], [y], opt)
    m.io([x], [y])
    return m.bytes()


def add_n_concat(rng):
    """ADD_N over k inputs (a pointer each as scratch), then their concatenation."""
    S = schema()
    k, n = int(rng.integers(2, 6)), int(rng.integers(1, 12))
    m = Model()
    xs = [m.tensor([1, n], "float32") for _ in range(k)]
    s = m.tensor([1, n], "float32")
    m.op("ADD_N", xs, [s], S.AddNOptionsT())
    c = m.tensor([1, n * (k + 1)], "float32")
    opt = S.ConcatenationOptionsT()
    opt.axis = 1
    m.op("CONCATENATION", xs + [s], [c], opt)
    m.io(xs, [c])
    return m.bytes()


def reshape_stretch(rng):
    """RESHAPE by a shape tensor with a -1 (the output tensor's own shape is known: TFLM
    copies the dims to the tail only for a -1 there, which picolite's verifier refuses)."""
    S = schema()
    a, b = int(rng.integers(1, 8)), int(rng.integers(1, 8))
    m = Model()
    x = m.tensor([a, b], "int8", (0.1, 0))
    shape = m.tensor([2], "int32", data=np.array([-1, a], np.int32))
    y = m.tensor([b, a], "int8", (0.1, 0))
    m.op("RESHAPE", [x, shape], [y], S.ReshapeOptionsT())
    m.io([x], [y])
    return m.bytes()


def svdf(rng):
    S = schema()
    dtype = rng.choice(["int8", "float32"])
    batch, depth, rank = int(rng.integers(1, 3)), int(rng.integers(2, 12)), int(rng.integers(1, 3))
    units, memory = int(rng.integers(1, 5)), int(rng.integers(2, 6))
    filters = units * rank
    m = Model()
    q = _act(rng, dtype)
    x = m.tensor([batch, depth], dtype, q)
    if dtype == "float32":
        wf = m.tensor([filters, depth], "float32", data=rng.uniform(-1, 1, (filters, depth)).astype(np.float32))
        wt = m.tensor([filters, memory], "float32", data=rng.uniform(-1, 1, (filters, memory)).astype(np.float32))
        b = m.tensor([units], "float32", data=np.zeros(units, np.float32))
        state = m.tensor([batch, memory * filters], "float32", variable=True)
    else:
        wf = m.tensor([filters, depth], "int8", (0.01, 0), rng.integers(-127, 128, (filters, depth)).astype(np.int8))
        wt = m.tensor([filters, memory], "int16", (0.0001, 0), rng.integers(-1000, 1000, (filters, memory)).astype(np.int16))
        b = m.tensor([units], "int32", (1e-5, 0), np.zeros(units, np.int32))
        state = m.tensor([batch, memory * filters], "int16", (0.0005, 0), variable=True)
    y = m.tensor([batch, units], dtype, q)
    opt = S.SVDFOptionsT()
    opt.rank = rank
    opt.fusedActivationFunction = S.ActivationFunctionType.RELU if dtype == "int8" else 0
    m.op("SVDF", [x, wf, wt, b, state], [y], opt)
    m.io([x], [y])
    return m.bytes()


def variables(rng):
    """A resource variable made and assigned in a CALL_ONCE init subgraph, read and
    reassigned by subgraph 0."""
    S = schema()
    n = int(rng.integers(1, 20))
    m = Model()
    init = m.subgraph()
    h0 = m.tensor([], "resource", sg=init)
    v0 = m.tensor([1, n], "float32", data=np.zeros((1, n), np.float32), sg=init)
    vh = S.VarHandleOptionsT()
    vh.sharedName = "state"
    m.op("VAR_HANDLE", [], [h0], vh, sg=init)
    m.op("ASSIGN_VARIABLE", [h0, v0], [], S.AssignVariableOptionsT(), sg=init)
    m.io([], [], sg=init)
    x = m.tensor([1, n], "float32")
    h = m.tensor([], "resource")
    r = m.tensor([1, n], "float32")
    y = m.tensor([1, n], "float32")
    once = S.CallOnceOptionsT()
    once.initSubgraphIndex = 1
    m.op("CALL_ONCE", [], [], once)
    m.op("VAR_HANDLE", [], [h], vh)
    m.op("READ_VARIABLE", [h], [r], S.ReadVariableOptionsT())
    m.op("ADD", [x, r], [y], S.AddOptionsT())
    m.op("ASSIGN_VARIABLE", [h, y], [], S.AssignVariableOptionsT())
    m.io([x], [y])
    return m.bytes()


def branch(rng):
    """IF between two subgraphs that reduce (scratch requests in a called subgraph)."""
    S = schema()
    n, k = int(rng.integers(2, 9)), int(rng.integers(1, 5))
    m = Model()
    c = m.tensor([1], "bool")
    x = m.tensor([k, n], "float32")
    y = m.tensor([k], "float32")
    opt = S.IfOptionsT()
    opt.thenSubgraphIndex, opt.elseSubgraphIndex = 1, 2
    m.op("IF", [c, x], [y], opt)
    m.io([c, x], [y])
    for op in ("SUM", "REDUCE_MAX"):
        sg = m.subgraph()
        xi = m.tensor([k, n], "float32", sg=sg)
        a = m.tensor([1], "int32", data=np.array([1], np.int32), sg=sg)
        yi = m.tensor([k], "float32", sg=sg)
        m.op(op, [xi, a], [yi], S.ReducerOptionsT(), sg=sg)
        m.io([xi], [yi], sg=sg)
    return m.bytes()


def offline(rng):
    """Two FULLY_CONNECTED layers whose activations an offline plan places."""
    S = schema()
    n = int(rng.integers(2, 20))
    m = Model()
    x = m.tensor([1, n], "float32")
    w = m.tensor([n, n], "float32", data=rng.uniform(-1, 1, (n, n)).astype(np.float32))
    h = m.tensor([1, n], "float32")
    y = m.tensor([1, n], "float32")
    m.op("FULLY_CONNECTED", [x, w, -1], [h], S.FullyConnectedOptionsT())
    m.op("FULLY_CONNECTED", [h, w, -1], [y], S.FullyConnectedOptionsT())
    m.io([x], [y])
    size = (4 * n + 15) // 16 * 16
    m.offline_plan([0, -1, size, 0] if rng.random() < 0.5 else [0, -1, size, -1])
    return m.bytes()


UNARY = ["ABS", "NEG", "RELU", "RELU6", "LEAKY_RELU", "FLOOR", "CEIL", "ROUND", "SQRT",
         "RSQRT", "SIN", "COS", "LOG", "EXP", "SQUARE", "TANH", "LOGISTIC", "HARD_SWISH", "ELU",
         "ZEROS_LIKE", "LOGICAL_NOT", "TRANSPOSE", "REVERSE_V2", "GATHER", "CAST", "DEQUANTIZE",
         "QUANTIZE"]
BINARY = ["ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "FLOOR_DIV",
          "FLOOR_MOD", "EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL"]
COMPARISONS = BINARY[-6:]
OPTIONS = {"ADD": "AddOptionsT", "SUB": "SubOptionsT", "MUL": "MulOptionsT",
           "DIV": "DivOptionsT", "LEAKY_RELU": "LeakyReluOptionsT",
           "TRANSPOSE": "TransposeOptionsT", "GATHER": "GatherOptionsT",
           "REVERSE_V2": "ReverseV2OptionsT", "CAST": "CastOptionsT"}


def typed(rng):
    """One elementwise or data-movement operator on a random type: the types TFLM's kernels
    run (csrc/tflm/accept.c), and a refusal of the others."""
    S = schema()
    op = str(rng.choice(UNARY + BINARY))
    dtype = str(rng.choice(["float32", "int8", "int16", "int32", "int64", "uint8", "bool"]))
    quantized = dtype in ("int8", "int16", "uint8") and op not in ("ZEROS_LIKE",)
    q = ((0.05, 0) if dtype == "int16" else (0.05, 3)) if quantized else None
    shape = [1, int(rng.integers(1, 5)), int(rng.integers(1, 6))]
    m = Model()
    x = m.tensor(shape, dtype, q)
    inputs, out_type, out_q = [x], dtype, q
    if op in BINARY:
        inputs.append(m.tensor(shape, dtype, q))
        if op in COMPARISONS:
            out_type, out_q = "bool", None
    elif op == "TRANSPOSE":
        inputs.append(m.tensor([3], "int32", data=np.array([0, 2, 1], np.int32)))
        shape = [shape[0], shape[2], shape[1]]
    elif op == "REVERSE_V2":
        inputs.append(m.tensor([1], "int32", data=np.array([1], np.int32)))
    elif op == "GATHER":
        inputs.append(m.tensor([2], "int32", data=np.array([0, 0], np.int32)))
        shape = [1, 2, shape[2]]
    elif op == "CAST":
        out_type = str(rng.choice(["float32", "int8", "int16", "int32", "bool"]))
        out_q = None
    elif op == "DEQUANTIZE":
        out_type, out_q = "float32", None
    elif op == "QUANTIZE":
        out_type = str(rng.choice(["int8", "int16", "uint8"]))
        out_q = (0.05, 0) if out_type == "int16" else (0.05, 3)
    y = m.tensor(shape, out_type, out_q)
    options = None
    if op in OPTIONS:
        options = getattr(S, OPTIONS[op])()
        if op == "GATHER":
            options.axis = 1
        if op == "LEAKY_RELU":
            options.alpha = 0.2
    m.op(op, inputs, [y], options)
    m.io([x] + ([inputs[1]] if op in BINARY else []), [y])
    return m.bytes()


GENERATORS = [fully_connected, conv, depthwise, transpose_conv, softmax, reduce, mirror_pad,
              add_n_concat, reshape_stretch, svdf, variables, branch, offline]
