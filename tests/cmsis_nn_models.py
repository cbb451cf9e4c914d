"""Small single-operator models with random shapes for the operators TFLM hands to CMSIS-NN,
one generator per operator and a `variant` per algorithm CMSIS-NN chooses by shape (1x1,
1xN, 3x3 depthwise, channel multiplier, broadcast or not, int8/int16 ...).

Written with the schema's object API (tflm_models.Model); a generator adds one instance to a
model and returns its inputs and outputs, and make() puts several side by side. The models
these produced for the goldens are committed under tests/models/cmsis_nn/, so the tests need
none of this; it is kept so that a golden can be regenerated and checked: `make(name,
variant, seed)` gives the same bytes every time (tests/goldens/tflm/m4-cmsis-nn/ops/*.json
record generator, variant, seed and the sha256).
"""

import numpy as np

from tflm_models import Model, schema

ACT = ["NONE", "RELU", "RELU6", "RELU_N1_TO_1"]


def _i(rng, lo, hi):
    return int(rng.integers(lo, hi + 1))


def _act_q(rng, dtype):
    if dtype == "int16":
        return (float(rng.uniform(2e-5, 4e-4)), 0)
    return (float(rng.uniform(0.004, 0.08)), _i(rng, -40, 40))


def _activation(rng, S, none_only=False):
    name = "NONE" if none_only else str(rng.choice(ACT))
    return getattr(S.ActivationFunctionType, name)


def _weights(m, rng, shape, channels, axis, per_channel):
    """Symmetric int8 weights; the tensor and its scales (the bias's come from them)."""
    n = channels if per_channel else 1
    scales = rng.uniform(0.002, 0.03, n)
    q = (scales, np.zeros(n, np.int64))
    w = m.tensor(shape, "int8", q, rng.integers(-127, 128, shape).astype(np.int8), axis=axis)
    m.w_scales = scales
    return w


def _bias(m, rng, n, dtype, x_scale):
    """int32 (int8 activations) or int64 (int16) biases of a plausible magnitude, at the
    input scale times the last weights' scales (TFLM checks the product)."""
    btype = "int64" if dtype == "int16" else "int32"
    lim = 3000 if dtype == "int8" else 30000
    data = rng.integers(-lim, lim, n).astype(np.int64 if dtype == "int16" else np.int32)
    scales = np.float32(x_scale) * m.w_scales.astype(np.float32)
    return m.tensor([n], btype, (scales, np.zeros(len(scales), np.int64)), data)


def conv(rng, variant, m):
    """CONV_2D. Variants: '1x1' (stride 1, VALID: CMSIS-NN's 1x1 fast kernel), '1x1s2'
    (strided 1x1), '1xn' (one input row, a 1xK filter), 'generic' (padding, strides,
    dilation), each int8; 'int16' (generic shapes, int64 bias); 'int16_nobias' (no bias:
    TFLM's reference sums in 64 bits, its CMSIS-NN kernel in 32)."""
    S = schema()
    dtype = "int16" if variant.startswith("int16") else "int8"
    batch = _i(rng, 1, 2)
    cin, cout = _i(rng, 1, 13), _i(rng, 1, 12)
    pad, stride, dil = S.Padding.VALID, (1, 1), (1, 1)
    if variant in ("1x1", "1x1s2"):
        h, w, kh, kw = _i(rng, 1, 7), _i(rng, 1, 7), 1, 1
        if variant == "1x1s2":
            stride = (2, 2)
    elif variant == "1xn":
        h, w, kh, kw = 1, _i(rng, 4, 16), 1, _i(rng, 2, 5)
        stride = (1, _i(rng, 1, 2))
        pad = S.Padding.SAME if rng.random() < 0.5 else S.Padding.VALID
    else:
        h, w, kh, kw = _i(rng, 3, 9), _i(rng, 3, 9), _i(rng, 1, 3), _i(rng, 1, 3)
        stride = (_i(rng, 1, 2), _i(rng, 1, 2))
        pad = S.Padding.SAME if rng.random() < 0.5 else S.Padding.VALID
        if rng.random() < 0.3 and stride == (1, 1):
            dil = (2, 2)
    ekh, ekw = (kh - 1) * dil[0] + 1, (kw - 1) * dil[1] + 1
    if pad == S.Padding.SAME:
        oh, ow = -(-h // stride[0]), -(-w // stride[1])
    else:
        oh, ow = (h - ekh) // stride[0] + 1, (w - ekw) // stride[1] + 1
    xq = _act_q(rng, dtype)
    x = m.tensor([batch, h, w, cin], dtype, xq)
    f = _weights(m, rng, [cout, kh, kw, cin], cout, 0, rng.random() < 0.8)
    b = _bias(m, rng, cout, dtype, xq[0]) if rng.random() < 0.8 else -1
    if variant == "int16_nobias":
        b = -1
    y = m.tensor([batch, oh, ow, cout], dtype, _act_q(rng, dtype))
    opt = S.Conv2DOptionsT()
    opt.padding, opt.strideH, opt.strideW = pad, stride[0], stride[1]
    opt.dilationHFactor, opt.dilationWFactor = dil
    opt.fusedActivationFunction = _activation(rng, S)
    m.op("CONV_2D", [x, f, b], [y], opt)
    return [x], [y]


def depthwise(rng, variant, m):
    """DEPTHWISE_CONV_2D. Variants: '3x3' (multiplier 1, 3x3 filter, padding <= 1: CMSIS-NN's
    3x3 kernel), 'm1' (multiplier 1, other filters: the 'opt' kernel), 'mult' (multiplier
    > 1: the generic kernel), 'int16' (any)."""
    S = schema()
    dtype = "int16" if variant == "int16" else "int8"
    cin = _i(rng, 1, 12)
    mult = _i(rng, 2, 3) if variant == "mult" else (1 if variant != "int16" else _i(rng, 1, 2))
    cout = cin * mult
    h, w = _i(rng, 3, 9), _i(rng, 3, 9)
    if variant == "3x3":
        kh = kw = 3
    else:
        kh, kw = _i(rng, 1, 4), _i(rng, 1, 4)
        if variant == "m1" and (kh, kw) == (3, 3):
            kw = 2
    stride = (_i(rng, 1, 2), _i(rng, 1, 2))
    dil = (1, 1)
    if variant in ("mult", "int16") and rng.random() < 0.3 and stride == (1, 1):
        dil = (2, 2)
    pad = S.Padding.SAME if rng.random() < 0.6 else S.Padding.VALID
    ekh, ekw = (kh - 1) * dil[0] + 1, (kw - 1) * dil[1] + 1
    h, w = max(h, ekh), max(w, ekw)
    if pad == S.Padding.SAME:
        oh, ow = -(-h // stride[0]), -(-w // stride[1])
    else:
        oh, ow = (h - ekh) // stride[0] + 1, (w - ekw) // stride[1] + 1
    xq = _act_q(rng, dtype)
    x = m.tensor([1, h, w, cin], dtype, xq)
    f = _weights(m, rng, [1, kh, kw, cout], cout, 3, rng.random() < 0.8)
    b = _bias(m, rng, cout, dtype, xq[0])  # TFLM 90b983c fails to allocate one without
    y = m.tensor([1, oh, ow, cout], dtype, _act_q(rng, dtype))
    opt = S.DepthwiseConv2DOptionsT()
    opt.padding, opt.strideH, opt.strideW = pad, stride[0], stride[1]
    opt.dilationHFactor, opt.dilationWFactor = dil
    opt.depthMultiplier = mult
    opt.fusedActivationFunction = _activation(rng, S)
    m.op("DEPTHWISE_CONV_2D", [x, f, b], [y], opt)
    return [x], [y]


def fully_connected(rng, variant, m):
    """FULLY_CONNECTED. Variants: 'int8' (2-D), 'int8_rank3' (a 3-D output whose depth is a
    multiple of 4: TFLM-CMSIS runs it as a 1x1 convolution), 'int16', 'int16_pc' (per-channel
    weights, which TFLM's CMSIS-NN kernel refuses for int16), 'int16_nobias32' (no bias and
    quantized_bias_type INT32: TFLM's reference sums in 32 bits, CMSIS-NN in 64)."""
    S = schema()
    dtype = "int16" if variant.startswith("int16") else "int8"
    units, depth = _i(rng, 1, 20), _i(rng, 1, 40)
    if variant == "int8_rank3":
        depth = 4 * _i(rng, 1, 10)
        lead = [1, _i(rng, 1, 4)]
    else:
        lead = [_i(rng, 1, 4)]
    xq = _act_q(rng, dtype)
    x = m.tensor(lead + [depth], dtype, xq)
    w = _weights(m, rng, [units, depth], units, 0,
                 variant == "int16_pc" or (dtype == "int8" and rng.random() < 0.4))
    b = _bias(m, rng, units, dtype, xq[0]) if rng.random() < 0.8 else -1
    if variant == "int16_nobias32":
        b = -1
    y = m.tensor(lead + [units], dtype, _act_q(rng, dtype))
    opt = S.FullyConnectedOptionsT()
    if variant == "int16_nobias32":  # TFLM's reference then sums in 32 bits
        opt.quantizedBiasType = S.TensorType.INT32
    opt.fusedActivationFunction = _activation(rng, S)
    opt.keepNumDims = len(lead) > 1
    m.op("FULLY_CONNECTED", [x, w, b], [y], opt)
    return [x], [y]


def pool(rng, variant, m):
    """AVERAGE_POOL_2D / MAX_POOL_2D, variant '<avg|max>_<int8|int16>'."""
    S = schema()
    kind, dtype = variant.split("_")
    batch, c = _i(rng, 1, 2), _i(rng, 1, 9)
    h, w = _i(rng, 2, 9), _i(rng, 2, 9)
    fh, fw = _i(rng, 1, min(h, 4)), _i(rng, 1, min(w, 4))
    stride = (_i(rng, 1, 2), _i(rng, 1, 2))
    pad = S.Padding.SAME if rng.random() < 0.6 else S.Padding.VALID
    if pad == S.Padding.SAME:
        oh, ow = -(-h // stride[0]), -(-w // stride[1])
    else:
        oh, ow = (h - fh) // stride[0] + 1, (w - fw) // stride[1] + 1
    q = _act_q(rng, dtype)
    x = m.tensor([batch, h, w, c], dtype, q)
    y = m.tensor([batch, oh, ow, c], dtype, q)
    opt = S.Pool2DOptionsT()
    opt.padding, opt.strideH, opt.strideW, opt.filterHeight, opt.filterWidth = \
        pad, stride[0], stride[1], fh, fw
    opt.fusedActivationFunction = _activation(rng, S)
    m.op("AVERAGE_POOL_2D" if kind == "avg" else "MAX_POOL_2D", [x], [y], opt)
    return [x], [y]


def softmax(rng, variant, m):
    """SOFTMAX: 'int8' (int8 out), 'int8_int16' (int16 out), 'int16'."""
    S = schema()
    din = "int16" if variant == "int16" else "int8"
    dout = "int8" if variant == "int8" else "int16"
    rows, n = _i(rng, 1, 4), _i(rng, 2, 40)
    if din == "int16":
        xq = (float(rng.uniform(1e-4, 6e-4)), 0)
    else:
        xq = (float(rng.uniform(0.02, 0.2)), _i(rng, -20, 20))
    x = m.tensor([rows, n], din, xq)
    yq = (1 / 256, -128) if dout == "int8" else (1 / 32768, 0)
    if variant == "int8_int16":
        yq = (1 / 65536, -32768)
    y = m.tensor([rows, n], dout, yq)
    opt = S.SoftmaxOptionsT()
    opt.beta = float(rng.choice([1.0, 1.0, 0.5, 2.0]))
    m.op("SOFTMAX", [x], [y], opt)
    return [x], [y]


def binary(rng, variant, m):
    """ADD / MUL / MAXIMUM / MINIMUM, variant '<op>_<int8|int16>[_bcast][_zp]' (_zp: int16
    zero points other than 0)."""
    S = schema()
    parts = variant.split("_")
    op, dtype, bcast, zp = parts[0].upper(), parts[1], "bcast" in parts, "zp" in parts
    shape = [1, _i(rng, 1, 4), _i(rng, 1, 5), _i(rng, 1, 9)]
    other = list(shape)
    if bcast:
        other = [1, 1, 1, shape[3]] if rng.random() < 0.5 else [1, shape[1], 1, 1]
    if op in ("MAXIMUM", "MINIMUM"):
        q = _act_q(rng, dtype)
        qa = qb = qy = q
    else:
        qa, qb, qy = _act_q(rng, dtype), _act_q(rng, dtype), _act_q(rng, dtype)
        if op == "MUL" and dtype == "int16":
            qy = (qa[0] * qb[0] * float(rng.uniform(200, 3000)), 0)
        if zp:  # int16 with zero points: TFLM's reference ADD runs it, CMSIS-NN's refuses
            qa, qb, qy = [(q[0], _i(rng, -50, 50)) for q in (qa, qb, qy)]
    a = m.tensor(shape, dtype, qa)
    b = m.tensor(other, dtype, qb)
    y = m.tensor(shape, dtype, qy)
    opt = None
    if op in ("ADD", "MUL"):
        opt = S.AddOptionsT() if op == "ADD" else S.MulOptionsT()
        opt.fusedActivationFunction = _activation(rng, S)
    m.op(op, [a, b], [y], opt)
    return [a, b], [y]


def batch_matmul(rng, variant, m):
    """BATCH_MATMUL with a variable right-hand side: 'int8', 'int16' (adj_x/adj_y random);
    '<dtype>_const': a constant one (TFLM's CMSIS-NN wrapper transposes it at prepare)."""
    S = schema()
    dtype = variant.split("_")[0]
    batch, rows, depth, cols = _i(rng, 1, 3), _i(rng, 1, 6), _i(rng, 1, 20), _i(rng, 1, 8)
    adj_x, adj_y = bool(rng.random() < 0.3), bool(rng.random() < 0.5)
    qa, qb, qy = _act_q(rng, dtype), _act_q(rng, dtype), _act_q(rng, dtype)
    if dtype == "int16":
        qy = (qa[0] * qb[0] * depth * float(rng.uniform(100, 2000)), 0)
    else:
        qy = (qa[0] * qb[0] * float(rng.uniform(200, 3000)), qy[1])
    a = m.tensor([batch] + ([depth, rows] if adj_x else [rows, depth]), dtype, qa)
    b_shape = [batch] + ([cols, depth] if adj_y else [depth, cols])
    const = variant.endswith("_const")
    info = np.iinfo(dtype)
    b_data = rng.integers(info.min, info.max + 1, b_shape).astype(dtype) if const else None
    b = m.tensor(b_shape, dtype, qb, b_data)
    y = m.tensor([batch, rows, cols], dtype, qy)
    opt = S.BatchMatMulOptionsT()
    opt.adjX, opt.adjY = adj_x, adj_y
    m.op("BATCH_MATMUL", [a, b], [y], opt)
    return ([a] if const else [a, b]), [y]


def transpose_conv(rng, variant, m):
    """TRANSPOSE_CONV: 'int8' or 'int16', random stride, filter and padding; 'int8_deep':
    input depth above 16 and strides <= 2 (CMSIS-NN's reverse-convolution kernel)."""
    S = schema()
    dtype = variant.split("_")[0]
    h, w, cin, cout = _i(rng, 2, 6), _i(rng, 2, 6), _i(rng, 1, 6), _i(rng, 1, 6)
    if variant.endswith("_deep"):
        cin = _i(rng, 17, 24)
    kh, kw = _i(rng, 1, 4), _i(rng, 1, 4)
    stride = (_i(rng, 1, 2), _i(rng, 1, 2))
    pad = S.Padding.SAME if rng.random() < 0.5 else S.Padding.VALID
    if pad == S.Padding.SAME:
        oh, ow = h * stride[0], w * stride[1]
    else:
        oh, ow = (h - 1) * stride[0] + kh, (w - 1) * stride[1] + kw
    shape = m.tensor([4], "int32", data=np.array([1, oh, ow, cout], np.int32))
    f = _weights(m, rng, [cout, kh, kw, cin], cout, 0, True)
    xq = _act_q(rng, dtype)
    x = m.tensor([1, h, w, cin], dtype, xq)
    b = _bias(m, rng, cout, dtype, xq[0]) if rng.random() < 0.7 else -1
    y = m.tensor([1, oh, ow, cout], dtype, _act_q(rng, dtype))
    opt = S.TransposeConvOptionsT()
    opt.padding, opt.strideH, opt.strideW = pad, stride[0], stride[1]
    m.op("TRANSPOSE_CONV", [shape, f, x, b], [y], opt)
    return [x], [y]


def pad(rng, variant, m):
    """PAD (constant zero-point padding): 'int8' or 'int16', rank 2..4."""
    S = schema()
    dtype = variant
    rank = _i(rng, 2, 4)
    shape = [_i(rng, 1, 5) for _ in range(rank)]
    pads = rng.integers(0, 3, (rank, 2)).astype(np.int32)
    q = _act_q(rng, dtype)
    x = m.tensor(shape, dtype, q)
    p = m.tensor([rank, 2], "int32", data=pads)
    y = m.tensor([d + int(pads[i].sum()) for i, d in enumerate(shape)], dtype, q)
    m.op("PAD", [x, p], [y], S.PadOptionsT())
    return [x], [y]


PERMS = [[0, 1, 2, 3], [0, 1, 3, 2], [0, 1], [1, 0, 2]]


def transpose(rng, variant, m):
    """TRANSPOSE: 'int8' or 'int16', rank 2..4, a random permutation; 'int8_perms' takes
    the permutations of PERMS in turn (identities and those keeping the first two axes,
    which CMSIS-NN's int8 kernels treat specially)."""
    S = schema()
    dtype = variant.split("_")[0]
    if variant.endswith("_perms"):
        perm = np.array(PERMS[len(m.sg.operators) % len(PERMS)], np.int32)
        rank = len(perm)
    else:
        rank = _i(rng, 2, 4)
    shape = [_i(rng, 1, 6) for _ in range(rank)]
    if not variant.endswith("_perms"):
        perm = rng.permutation(rank).astype(np.int32)
    q = _act_q(rng, dtype)
    x = m.tensor(shape, dtype, q)
    p = m.tensor([rank], "int32", data=perm)
    y = m.tensor([shape[i] for i in perm], dtype, q)
    m.op("TRANSPOSE", [x, p], [y], S.TransposeOptionsT())
    return [x], [y]


def svdf(rng, variant, m):
    """SVDF int8 with an int16 state ('int8'), RELU (the only activation TFLM's integer SVDF
    runs); 'int8_s8': int8 weights_time and state (CMSIS-NN's arm_svdf_s8 only; TFLM's
    reference kernel refuses it)."""
    S = schema()
    s8 = variant.endswith("_s8")
    batch, depth, rank = _i(rng, 1, 2), _i(rng, 2, 16), _i(rng, 1, 2)
    units, memory = _i(rng, 1, 6), _i(rng, 2, 8)
    filters = units * rank
    xq = _act_q(rng, "int8")
    x = m.tensor([batch, depth], "int8", xq)
    wf = m.tensor([filters, depth], "int8", (float(rng.uniform(0.005, 0.02)), 0),
                  rng.integers(-127, 128, (filters, depth)).astype(np.int8))
    if s8:
        wt = m.tensor([filters, memory], "int8", (float(rng.uniform(5e-3, 2e-2)), 0),
                      rng.integers(-127, 128, (filters, memory)).astype(np.int8))
    else:
        wt = m.tensor([filters, memory], "int16", (float(rng.uniform(5e-5, 2e-4)), 0),
                      rng.integers(-3000, 3000, (filters, memory)).astype(np.int16))
    b = m.tensor([units], "int32", (1e-5, 0), rng.integers(-2000, 2000, units).astype(np.int32))
    if s8:
        sq = (float(rng.uniform(0.02, 0.1)), _i(rng, -20, 20))
        b = m.tensor([units], "int32", (sq[0] * m.sg.tensors[wt].quantization.scale[0], 0),
                     rng.integers(-2000, 2000, units).astype(np.int32))
        state = m.tensor([batch, memory * filters], "int8", sq, variable=True)
    else:
        state = m.tensor([batch, memory * filters], "int16",
                         (float(rng.uniform(2e-4, 1e-3)), 0), variable=True)
    y = m.tensor([batch, units], "int8", _act_q(rng, "int8"))
    opt = S.SVDFOptionsT()
    opt.rank = rank
    opt.fusedActivationFunction = S.ActivationFunctionType.RELU
    m.op("SVDF", [x, wf, wt, b, state], [y], opt)
    return [x], [y]


def lstm(rng, variant, m):
    """UNIDIRECTIONAL_SEQUENCE_LSTM, the standard integer one: 'int8' (int8 activations,
    int32 biases) or 'int16' (16x8, int64 biases); batch- or time-major, a cell clip or
    not, zero points. '_wide' weight scales make the gates' products leave int16 (where
    CMSIS-NN and TFLM saturate differently)."""
    S = schema()
    dtype = variant.split("_")[0]
    w_range = (0.05, 0.2) if variant.endswith("_wide") else (0.002, 0.01)
    batch, steps, n_in, n_cell = _i(rng, 1, 3), _i(rng, 1, 5), _i(rng, 1, 12), _i(rng, 1, 10)
    time_major = bool(rng.random() < 0.3)
    rows = [steps, batch] if time_major else [batch, steps]
    bits = 127.0 if dtype == "int8" else 32767.0
    s_in = float(rng.uniform(1.0, 4.0)) / bits
    zp_in = _i(rng, -30, 30) if dtype == "int8" else 0
    s_h = float(rng.uniform(0.8, 1.2)) / bits
    zp_h = _i(rng, -20, 20) if dtype == "int8" else 0
    cell_log2 = _i(rng, -13, -10)
    clip = float(rng.choice([0.0, 0.0, 1.0, 3.0]))
    ins = [-1] * 24
    ins[0] = m.tensor(rows + [n_in], dtype, (s_in, zp_in))
    btype = "int64" if dtype == "int16" else "int32"
    w_scales = []
    for g in range(4):
        sw = float(rng.uniform(*w_range))
        w_scales.append(sw)
        ins[1 + g] = m.tensor([n_cell, n_in], "int8", (sw, 0),
                              rng.integers(-127, 128, (n_cell, n_in)).astype(np.int8))
    for g in range(4):
        sw = float(rng.uniform(*w_range))
        ins[5 + g] = m.tensor([n_cell, n_cell], "int8", (sw, 0),
                              rng.integers(-127, 128, (n_cell, n_cell)).astype(np.int8))
    for g in range(4):
        bs = s_in * w_scales[g]
        bias = (rng.uniform(-1, 1, n_cell) + (1.0 if g == 1 else 0.0)) / bs
        ins[12 + g] = m.tensor([n_cell], btype, (bs, 0),
                               np.round(bias).astype(np.int64 if dtype == "int16" else np.int32))
    ins[18] = m.tensor([batch, n_cell], dtype, (s_h, zp_h), variable=True)
    ins[19] = m.tensor([batch, n_cell], "int16", (2.0 ** cell_log2, 0), variable=True)
    y = m.tensor(rows + [n_cell], dtype, (s_h, zp_h))
    opt = S.UnidirectionalSequenceLSTMOptionsT()
    opt.fusedActivationFunction = S.ActivationFunctionType.TANH
    opt.cellClip, opt.timeMajor = clip, time_major
    m.op("UNIDIRECTIONAL_SEQUENCE_LSTM", ins, [y], opt)
    return [ins[0]], [y]


GENERATORS = {g.__name__: g for g in [conv, depthwise, fully_connected, pool, softmax, binary,
                                      batch_matmul, transpose_conv, pad, transpose, svdf,
                                      lstm]}

# (generator, variant): the algorithm choices the goldens cover
CASES = [
    ("conv", "1x1"), ("conv", "1x1s2"), ("conv", "1xn"), ("conv", "generic"),
    ("conv", "int16"), ("conv", "int16_nobias"),
    ("depthwise", "3x3"), ("depthwise", "m1"), ("depthwise", "mult"), ("depthwise", "int16"),
    ("fully_connected", "int8"), ("fully_connected", "int8_rank3"),
    ("fully_connected", "int16"), ("fully_connected", "int16_pc"),
    ("fully_connected", "int16_nobias32"),
    ("pool", "avg_int8"), ("pool", "avg_int16"), ("pool", "max_int8"), ("pool", "max_int16"),
    ("softmax", "int8"), ("softmax", "int8_int16"), ("softmax", "int16"),
    ("binary", "add_int8"), ("binary", "add_int16"), ("binary", "add_int8_bcast"),
    ("binary", "add_int16_zp"),
    ("binary", "mul_int8"), ("binary", "mul_int16"), ("binary", "mul_int8_bcast"),
    ("binary", "maximum_int8"), ("binary", "minimum_int8"), ("binary", "maximum_int16"),
    ("batch_matmul", "int8"), ("batch_matmul", "int16"), ("batch_matmul", "int8_const"),
    ("batch_matmul", "int16_const"),
    ("transpose_conv", "int8"), ("transpose_conv", "int16"), ("transpose_conv", "int8_deep"),
    ("pad", "int8"), ("pad", "int16"), ("transpose", "int8"), ("transpose", "int16"),
    ("transpose", "int8_perms"),
    ("svdf", "int8"), ("svdf", "int8_s8"), ("lstm", "int8"), ("lstm", "int16"), ("lstm", "int8_wide"),
    ("lstm", "int16_wide"),
]


def make(name, variant, seed, copies=4):
    """One model of `copies` independent instances of generator 'name' (each its own random
    shapes, inputs and outputs, in order), from numpy default_rng(seed): one firmware run
    covers several shapes. The same arguments give the same bytes."""
    rng = np.random.default_rng(seed)
    m = Model()
    ins, outs = [], []
    for _ in range(copies):
        i, o = GENERATORS[name](rng, variant, m)
        ins += i
        outs += o
    m.io(ins, outs)
    return m.bytes()
