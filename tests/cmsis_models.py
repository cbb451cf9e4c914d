"""Random one-operator models over the shapes that steer TFLM's cmsis_nn kernels.

CMSIS-NN picks an algorithm, and with it a scratch size, from the shape: a 1x1 or 1xN
convolution, a 3x3 depthwise kernel with padding of at most one, a depthwise multiplier of
one, a single batch, dilation, a fully connected layer that runs as a 1x1 convolution (an
output of rank 3 or more over a depth divisible by 4), a transpose convolution reversed
into a convolution (strides of at most 2 over more than 16 input channels), a quantized
average pool. Each generator draws across those branches, in int8, 16x8 and float32, so the
CMSIS-NN targets' arena figures are checked on every branch (tests/goldens/tflm/
m4-cmsis-nn-random.json: the firmware's figures for these models, by generator and seed).
"""

import numpy as np

from tflm_models import Model, _act, _bias, _filter, schema


def _dtype(rng, int16=True):
    return str(rng.choice(["int8", "int16", "float32"] if int16 else ["int8", "float32"]))


def _out_size(size, k, stride, dilation, same):
    eff = (k - 1) * dilation + 1
    return (size + stride - 1) // stride if same else (size + stride - eff) // stride


def conv(rng):
    """CONV_2D: 1x1 (strided or not), 1xN over a one-row input, or a general kernel."""
    S = schema()
    dtype = _dtype(rng)
    kind = rng.choice(["1x1", "1xn", "general"])
    cin = int(rng.choice([1, 3, 4, 8, 12, 17]))
    cout = int(rng.integers(1, 17))
    h = 1 if kind == "1xn" else int(rng.integers(3, 12))
    w = int(rng.integers(3, 14))
    kh = 1 if kind in ("1x1", "1xn") else int(rng.integers(2, 5))
    kw = 1 if kind == "1x1" else int(rng.integers(2, 5))
    stride_w, stride_h = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    dil = 1 if kind != "general" or rng.random() < 0.7 else 2
    same = bool(rng.random() < 0.5)
    oh, ow = _out_size(h, kh, stride_h, dil, same), _out_size(w, kw, stride_w, dil, same)
    if oh < 1 or ow < 1:
        same, oh, ow = True, _out_size(h, kh, stride_h, dil, True), _out_size(w, kw, stride_w,
                                                                                dil, True)
    per_channel = dtype != "float32" and rng.random() < 0.7
    m = Model()
    x = m.tensor([1, h, w, cin], dtype, _act(rng, dtype))
    f = _filter(m, rng, [cout, kh, kw, cin], dtype, cout, 0, per_channel)
    b = _bias(m, rng, cout, dtype, None, cout if per_channel else 1) if rng.random() < .8 else -1
    y = m.tensor([1, oh, ow, cout], dtype, _act(rng, dtype))
    opt = S.Conv2DOptionsT()
    opt.padding = S.Padding.SAME if same else S.Padding.VALID
    opt.strideW, opt.strideH = stride_w, stride_h
    opt.dilationWFactor = opt.dilationHFactor = dil
    m.op("CONV_2D", [x, f, b], [y], opt)
    m.io([x], [y])
    return m.bytes()


def depthwise(rng):
    """DEPTHWISE_CONV_2D: multiplier one or more, 3x3 or another kernel, padding, dilation,
    one batch or two."""
    S = schema()
    dtype = _dtype(rng)
    cin = int(rng.choice([1, 2, 3, 8, 13]))
    mult = 1 if rng.random() < 0.7 else int(rng.integers(2, 4))
    cout = cin * mult
    k = 3 if rng.random() < 0.5 else int(rng.choice([1, 2, 5]))
    kh, kw = k, (k if rng.random() < 0.8 else int(rng.integers(1, 4)))
    batch = 1 if rng.random() < 0.8 else 2
    h, w = int(rng.integers(4, 12)), int(rng.integers(4, 12))
    stride = int(rng.integers(1, 3))
    dil = 1 if rng.random() < 0.8 else 2
    same = bool(rng.random() < 0.6)
    oh, ow = _out_size(h, kh, stride, dil, same), _out_size(w, kw, stride, dil, same)
    per_channel = dtype != "float32" and rng.random() < 0.7
    m = Model()
    x = m.tensor([batch, h, w, cin], dtype, _act(rng, dtype))
    f = _filter(m, rng, [1, kh, kw, cout], dtype, cout, 3, per_channel)
    b = _bias(m, rng, cout, dtype, None, cout if per_channel else 1)  # TFLM needs one
    y = m.tensor([batch, oh, ow, cout], dtype, _act(rng, dtype))
    opt = S.DepthwiseConv2DOptionsT()
    opt.padding = S.Padding.SAME if same else S.Padding.VALID
    opt.strideW = opt.strideH = stride
    opt.depthMultiplier = mult
    opt.dilationWFactor = opt.dilationHFactor = dil
    m.op("DEPTHWISE_CONV_2D", [x, f, b], [y], opt)
    m.io([x], [y])
    return m.bytes()


def fully_connected(rng):
    """FULLY_CONNECTED with a rank-2 or rank-3 output (keep_num_dims), depths divisible by 4
    or not, per-channel or per-tensor weights."""
    S = schema()
    dtype = _dtype(rng)
    rank3 = bool(rng.random() < 0.5)
    depth = int(rng.integers(1, 10)) * (4 if rng.random() < 0.6 else 1) + int(rng.random() < .3)
    units, batch, rows = int(rng.integers(1, 20)), int(rng.integers(1, 3)), int(rng.integers(1, 5))
    per_channel = dtype == "int8" and rng.random() < 0.4
    m = Model()
    in_shape = [batch, rows, depth] if rank3 else [batch, depth]
    out_shape = [batch, rows, units] if rank3 else [batch, units]
    x = m.tensor(in_shape, dtype, _act(rng, dtype))
    w = _filter(m, rng, [units, depth], dtype, units, 0, per_channel)
    b = _bias(m, rng, units, dtype, None, units if per_channel else 1) if rng.random() < .7 else -1
    y = m.tensor(out_shape, dtype, _act(rng, dtype))
    opt = S.FullyConnectedOptionsT()
    opt.keepNumDims = rank3
    m.op("FULLY_CONNECTED", [x, w, b], [y], opt)
    m.io([x], [y])
    return m.bytes()


def transpose_conv(rng):
    """TRANSPOSE_CONV: strides 1 to 3 over 1 to 24 input channels (reversed into a
    convolution above 16 channels at strides of at most 2)."""
    S = schema()
    dtype = _dtype(rng)
    cin = int(rng.choice([1, 4, 16, 17, 24]))
    cout = int(rng.integers(1, 9))
    stride_w, stride_h = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    h, w = int(rng.integers(2, 6)), int(rng.integers(2, 6))
    oh, ow = (h - 1) * stride_h + kh, (w - 1) * stride_w + kw  # VALID
    m = Model()
    shape = m.tensor([4], "int32", data=np.array([1, oh, ow, cout], np.int32))
    f = _filter(m, rng, [cout, kh, kw, cin], dtype, cout, 0, dtype != "float32")
    x = m.tensor([1, h, w, cin], dtype, _act(rng, dtype))
    b = _bias(m, rng, cout, dtype, None, cout) if rng.random() < .6 else -1
    y = m.tensor([1, oh, ow, cout], dtype, _act(rng, dtype))
    opt = S.TransposeConvOptionsT()
    opt.padding, opt.strideW, opt.strideH = S.Padding.VALID, stride_w, stride_h
    m.op("TRANSPOSE_CONV", [shape, f, x, b], [y], opt)
    m.io([x], [y])
    return m.bytes()


def pool(rng):
    """AVERAGE_POOL_2D or MAX_POOL_2D over 1 to 20 channels."""
    S = schema()
    dtype = _dtype(rng)
    op = str(rng.choice(["AVERAGE_POOL_2D", "MAX_POOL_2D"]))
    c, h, w = int(rng.integers(1, 21)), int(rng.integers(2, 10)), int(rng.integers(2, 10))
    k, stride = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    same = bool(rng.random() < 0.5)
    oh, ow = _out_size(h, k, stride, 1, same), _out_size(w, k, stride, 1, same)
    if oh < 1 or ow < 1:
        same, oh, ow = True, _out_size(h, k, stride, 1, True), _out_size(w, k, stride, 1, True)
    q = _act(rng, dtype)
    m = Model()
    x = m.tensor([1, h, w, c], dtype, q)
    y = m.tensor([1, oh, ow, c], dtype, q)
    opt = S.Pool2DOptionsT()
    opt.padding = S.Padding.SAME if same else S.Padding.VALID
    opt.strideW = opt.strideH = stride
    opt.filterWidth = opt.filterHeight = k
    m.op(op, [x], [y], opt)
    m.io([x], [y])
    return m.bytes()


def batch_matmul(rng):
    """BATCH_MATMUL of two activations, either adjoint, in int8, int16 or float32."""
    S = schema()
    dtype = _dtype(rng)
    b, r, d, c = (int(rng.integers(1, 3)), int(rng.integers(1, 6)), int(rng.integers(1, 9)),
                  int(rng.integers(1, 9)))
    adj_x, adj_y = bool(rng.random() < 0.3), bool(rng.random() < 0.5)
    q = None if dtype == "float32" else ((float(rng.uniform(0.01, 0.1)), 0) if dtype == "int8"
                                         else (float(rng.uniform(1e-4, 1e-3)), 0))
    m = Model()
    x = m.tensor([b, d, r] if adj_x else [b, r, d], dtype, q)
    y = m.tensor([b, c, d] if adj_y else [b, d, c], dtype, q)
    z = m.tensor([b, r, c], dtype, _act(rng, dtype) if dtype != "int16" else q)
    opt = S.BatchMatMulOptionsT()
    opt.adjX, opt.adjY = adj_x, adj_y
    m.op("BATCH_MATMUL", [x, y], [z], opt)
    m.io([x, y], [z])
    return m.bytes()


GENERATORS = [conv, depthwise, fully_connected, transpose_conv, pool, batch_matmul]
