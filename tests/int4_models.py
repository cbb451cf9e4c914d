"""Single-operator models with int4 filters (FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D,
int8 activations) and their twins with the same values stored as int8.

An int4 tensor packs two values per byte, the first in the low nibble (TFLite's
PackInt8IntoDenseInt4). `make(kind, seed, int4)` gives the same bytes for the same arguments;
the committed firmware goldens (tests/goldens/tflm/int4.json) record each model's sha256.
"""

import numpy as np

from tflm_models import Model

KINDS = ("fully_connected", "conv", "depthwise")


def pack_int4(values):
    """int8 values in -8..7 packed two per byte, low nibble first."""
    flat = np.asarray(values, np.int8).ravel()
    nibbles = (flat.astype(np.int16) & 0x0F).astype(np.uint8)
    if nibbles.size % 2:
        nibbles = np.append(nibbles, np.uint8(0))
    return (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8).view(np.int8)


def _filter(m, rng, shape, channels, axis, int4):
    values = rng.integers(-8, 8, shape).astype(np.int8)
    per_channel = rng.random() < 0.7
    n = channels if per_channel else 1
    scales = rng.uniform(0.01, 0.2, n)
    q = (scales, np.zeros(n, np.int64))
    data = pack_int4(values) if int4 else values
    return m.tensor(shape, "int4" if int4 else "int8", q, data, axis=axis), scales


def _bias(m, rng, n, x_scale, w_scales):
    scales = np.float32(x_scale) * np.broadcast_to(w_scales, (n,)).astype(np.float32)
    data = rng.integers(-2000, 2000, n).astype(np.int32)
    return m.tensor([n], "int32", (scales, np.zeros(n, np.int64)), data)


def make(kind, seed, int4=True):
    rng = np.random.default_rng(seed)
    m = Model()
    S = m.S
    m.types["int4"] = S.TensorType.INT4
    x_q = (float(rng.uniform(0.01, 0.05)), int(rng.integers(-20, 21)))
    y_q = (float(rng.uniform(0.05, 0.5)), int(rng.integers(-20, 21)))
    if kind == "fully_connected":
        batch, depth, units = int(rng.integers(1, 4)), int(rng.integers(1, 40)), int(rng.integers(1, 20))
        x = m.tensor([batch, depth], "int8", x_q)
        f, ws = _filter(m, rng, [units, depth], units, 0, int4)
        b = _bias(m, rng, units, x_q[0], ws) if rng.random() < 0.8 else -1
        y = m.tensor([batch, units], "int8", y_q)
        opt = S.FullyConnectedOptionsT()
        m.op("FULLY_CONNECTED", [x, f, b], [y], opt)
    else:
        h, w, cin = int(rng.integers(2, 9)), int(rng.integers(2, 9)), int(rng.integers(1, 9))
        kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        stride = int(rng.integers(1, 3))
        same = bool(rng.random() < 0.5) or kh > h or kw > w
        oh = -(-h // stride) if same else (h - kh) // stride + 1
        ow = -(-w // stride) if same else (w - kw) // stride + 1
        x = m.tensor([1, h, w, cin], "int8", x_q)
        if kind == "conv":
            cout = int(rng.integers(1, 10))
            f, ws = _filter(m, rng, [cout, kh, kw, cin], cout, 0, int4)
            opt = S.Conv2DOptionsT()
        else:
            mult = int(rng.integers(1, 3))
            cout = cin * mult
            f, ws = _filter(m, rng, [1, kh, kw, cout], cout, 3, int4)
            opt = S.DepthwiseConv2DOptionsT()
            opt.depthMultiplier = mult
        b = _bias(m, rng, cout, x_q[0], ws)
        y = m.tensor([1, oh, ow, cout], "int8", y_q)
        opt.padding = S.Padding.SAME if same else S.Padding.VALID
        opt.strideH = opt.strideW = stride
        opt.dilationHFactor = opt.dilationWFactor = 1
        m.op("CONV_2D" if kind == "conv" else "DEPTHWISE_CONV_2D", [x, f, b], [y], opt)
    m.io([x], [y])
    return m.bytes()


# depthwise(seed)'s cases, seed % 6: the walk CMSIS-NN's int4 kernels take
# (csrc/kernels/conv/depthwise_s4_cmsis.h): arm_depthwise_conv_s4_opt (multiplier 1, one
# batch, no dilation) with an odd or even depth; arm_depthwise_conv_s4 with an odd input
# depth reached by a multiplier of 2 or 3, by two batches, by a dilation; and with an even one.
DEPTHWISE_CASES = ("opt_odd", "opt_even", "mult_odd", "batch_odd", "dilation_odd",
                   "generic_even")


def depthwise(seed):
    """A random int4 DEPTHWISE_CONV_2D (strides, SAME or VALID, filters up to 4x4, a bias) of
    case DEPTHWISE_CASES[seed % 6]; seeds 12 and up of the opt cases take 125-140 channels,
    so Helium's kernel makes two passes of 124."""
    rng = np.random.default_rng(1000 + seed)
    case = DEPTHWISE_CASES[seed % len(DEPTHWISE_CASES)]
    m = Model()
    S = m.S
    m.types["int4"] = S.TensorType.INT4
    batch, mult, dil = 1, 1, (1, 1)
    cin = int(rng.integers(1, 10))
    if case.startswith("opt"):
        cin = int(rng.integers(125, 141)) if seed >= 12 else cin
        cin += (cin % 2) != (case == "opt_odd")
    elif case == "generic_even":
        cin += cin % 2
        mult, batch = int(rng.integers(1, 4)), 2
    else:
        cin -= 1 - cin % 2 if cin > 1 else 0
        mult = int(rng.integers(2, 4)) if case == "mult_odd" else int(rng.integers(1, 4))
        batch = 2 if case == "batch_odd" else int(rng.integers(1, 3))
        if case == "dilation_odd":
            dil = (int(rng.integers(1, 3)), 2) if rng.random() < 0.5 else (2, 1)
    h, w = int(rng.integers(2, 9)), int(rng.integers(2, 9))
    if cin > 100:
        h, w = int(rng.integers(2, 5)), int(rng.integers(2, 5))
    kh, kw = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    sh, sw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    ekh, ekw = (kh - 1) * dil[0] + 1, (kw - 1) * dil[1] + 1
    same = bool(rng.random() < 0.6) or ekh > h or ekw > w
    oh = -(-h // sh) if same else (h - ekh) // sh + 1
    ow = -(-w // sw) if same else (w - ekw) // sw + 1
    x_q = (float(rng.uniform(0.01, 0.05)), int(rng.integers(-20, 21)))
    y_q = (float(rng.uniform(0.05, 0.5)), int(rng.integers(-20, 21)))
    cout = cin * mult
    x = m.tensor([batch, h, w, cin], "int8", x_q)
    f, ws = _filter(m, rng, [1, kh, kw, cout], cout, 3, True)
    rng.random()  # once a bias-or-none draw: TFLM's depthwise prepare needs the bias
    b = _bias(m, rng, cout, x_q[0], ws)
    y = m.tensor([batch, oh, ow, cout], "int8", y_q)
    opt = S.DepthwiseConv2DOptionsT()
    opt.depthMultiplier = mult
    opt.padding = S.Padding.SAME if same else S.Padding.VALID
    opt.strideH, opt.strideW = sh, sw
    opt.dilationHFactor, opt.dilationWFactor = dil
    # mostly none: a clamp hides which weight a clamped output summed
    opt.fusedActivationFunction = int(rng.choice([0, 0, 0, 1, 3]))  # none, RELU, RELU6
    m.op("DEPTHWISE_CONV_2D", [x, f, b], [y], opt)
    m.io([x], [y])
    return m.bytes()
