"""Helium's int8 1xN convolution (arm_convolve_1_x_n_s8 under MVE) on random shapes.

The firmware goldens (test_cmsis_nn_bytes.py: conv-1xn-s0..s2 on a Cortex-M55) show the
case they hold; this covers every branch of the kernel's split on random one-row shapes
(strides 1-4, SAME and VALID, batches, kernel widths past the input's): a simulation of
the kernel's memory operations, written here from its source independently of
csrc/kernels/conv/conv_1xn_mve.c, says what each output column reads. Where it reads only
the input and padding, picolite's tflm-cmsis-nn-mve output column must equal the reference
convolution (target "tflm") of exactly that window; where the kernel fails or reads bytes no
one wrote, picolite must refuse the model.
"""

import numpy as np
import pytest

import picolite
from conftest import require

require("tflite_micro")  # the schema the model builder writes with
from tflm_models import Model  # noqa: E402

UNDEFINED = None  # a buffer byte nothing wrote


def simulate(n, in_w, c, k, stride, pad, out_w):
    """Per batch and output column, what the kernel's row reads: a list of k*c sources, each
    ("in", flat input index), ("pad",) or UNDEFINED; or "fails" / "general" (another
    kernel) for the whole convolution."""
    if (stride * c) % 4 or k == 1 and pad == 0:
        return "general"
    total = (out_w - 1) * stride + k - in_w
    asym = int(np.fmod(total, 2))  # C's %
    if pad * 2 + asym != total:
        return "fails"
    cdiv = lambda a, b: int(a / b)  # noqa: E731  C's / on ints
    right = max(1, cdiv(pad + asym + stride - 1, stride)) if pad + asym != 0 else 0
    left = max(1, cdiv(pad + stride - 1, stride)) if pad != 0 else 0
    middle = max(out_w - (right + left), 0)
    if right + middle + left != out_w:
        return "general"
    pad_left = pad * c
    pad_right = right * c if asym else pad_left
    size = max(pad_left + k * c, (k - 1) * c + pad_right)
    rows = (lambda first, count, base: [base[(first + r) * stride * c:][:k * c]
                                        for r in range(count)])
    total_in = n * in_w * c
    out = []
    buf = [UNDEFINED] * (size + out_w * stride * c + k * c)  # room to read past the end
    for b in range(n):
        src = lambda i: ("in", i) if 0 <= i < total_in else UNDEFINED  # noqa: E731
        base = b * in_w * c
        buf[:pad_left] = [("pad",)] * pad_left
        buf[pad_left:pad_left + k * c] = [src(base + i) for i in range(k * c)]
        cols = rows(0, left, [x if i < size else UNDEFINED for i, x in enumerate(buf)])
        start = (stride * left - pad) * c
        if start < 0:
            return "fails"
        cols += [[src(base + start + r * stride * c + j) for j in range(k * c)]
                 for r in range(middle)]
        start = (stride * (left + middle) - pad) * c
        buf[:(k - 1) * c] = [src(base + start + i) for i in range(k * c - c)]
        buf[(k - 1) * c:(k - 1) * c + pad_right] = [("pad",)] * pad_right
        cols += rows(0, right, [x if i < size else UNDEFINED for i, x in enumerate(buf)])
        out.append(cols)
    return out


def build(rng, n, in_w, c, k, stride, same, cout):
    """The 1xN model and a one-window model (1 x k input, VALID) with the same weights,
    bias and quantization: the reference of one output column."""
    x_q = (float(rng.uniform(0.004, 0.08)), int(rng.integers(-40, 41)))
    y_q = (float(rng.uniform(0.004, 0.08)), int(rng.integers(-40, 41)))
    w = rng.integers(-127, 128, (cout, 1, k, c)).astype(np.int8)
    w_scales = rng.uniform(0.002, 0.03, cout)
    bias = rng.integers(-3000, 3000, cout).astype(np.int32)
    out_w = -(-in_w // stride) if same else (in_w - k) // stride + 1
    models = []
    for batch, width, ow, pad, st in ((n, in_w, out_w, same, stride), (1, k, 1, False, 1)):
        m = Model()
        S = m.S
        x = m.tensor([batch, 1, width, c], "int8", x_q)
        f = m.tensor([cout, 1, k, c], "int8", (w_scales, np.zeros(cout, np.int64)), w)
        b = m.tensor([cout], "int32", (np.float32(x_q[0]) * w_scales.astype(np.float32),
                                       np.zeros(cout, np.int64)), bias)
        y = m.tensor([batch, 1, ow, cout], "int8", y_q)
        opt = S.Conv2DOptionsT()
        opt.padding = S.Padding.SAME if pad else S.Padding.VALID
        opt.strideH, opt.strideW = 1, st
        opt.dilationHFactor = opt.dilationWFactor = 1
        m.op("CONV_2D", [x, f, b], [y], opt)
        m.io([x], [y])
        models.append(m.bytes())
    return models[0], models[1], out_w, x_q[1]


def window(x, sources, zero_point):
    """The bytes a row reads: the input's where it reads the input, the zero point (which
    adds nothing, as padding) where it reads padding."""
    flat = x.ravel()
    return np.array([flat[s[1]] if s[0] == "in" else zero_point for s in sources], np.int8)


def shapes(count):
    rng = np.random.default_rng(1234)
    for case in range(count):
        stride = int(rng.integers(1, 5))
        c = int(rng.choice([1, 2, 3, 4, 8, 12]) if case % 5 else
                4 // np.gcd(4, stride) * rng.integers(1, 3))  # every fifth takes the 1xN path
        k = int(rng.integers(2, 7))
        in_w = int(rng.integers(1 if rng.random() < 0.2 else k, 20))
        same = bool(rng.random() < 0.5) or in_w < k
        yield case, int(rng.integers(1, 4)), in_w, c, k, stride, same, int(rng.integers(1, 6))


@pytest.mark.parametrize("case, n, in_w, c, k, stride, same, cout", list(shapes(120)))
def test_helium_1xn_reads_what_the_kernel_reads(case, n, in_w, c, k, stride, same, cout):
    rng = np.random.default_rng(case)
    model, one, out_w, zp = build(rng, n, in_w, c, k, stride, same, cout)
    ref = picolite.Interpreter(model_content=model, target="tflm")
    ref.allocate_tensors()
    plan = simulate(n, in_w, c, k, stride, tflm_pad(in_w, k, stride, same, out_w), out_w)
    ours = picolite.Interpreter(model_content=model, target="tflm-cmsis-nn-mve")
    undefined = plan not in ("fails", "general") and any(
        s is UNDEFINED for cols in plan for row in cols for s in row)
    if plan == "fails" or undefined:
        with pytest.raises(picolite.Error, match="Helium"):
            ours.allocate_tensors()
        return
    ours.allocate_tensors()
    x = rng.integers(-128, 128, (n, 1, in_w, c)).astype(np.int8)
    for it in (ref, ours):
        it.set_input(x, 0)
        it.invoke()
    got = ours.get_output(0)
    if plan == "general":  # arm_convolve_s8: the reference kernel's bytes
        np.testing.assert_array_equal(got, ref.get_output(0))
        return
    col = picolite.Interpreter(model_content=one, target="tflm")
    col.allocate_tensors()
    for b in range(n):
        for o in range(out_w):
            col.set_input(window(x, plan[b][o], zp).reshape(1, 1, k, c), 0)
            col.invoke()
            np.testing.assert_array_equal(got[b, 0, o], col.get_output(0)[0, 0, 0],
                                          err_msg=f"batch {b}, column {o}")


def tflm_pad(in_w, k, stride, same, out_w):
    """The left padding TFLM hands CMSIS-NN: half the total, rounded down (0 for VALID)."""
    return max((out_w - 1) * stride + k - in_w, 0) // 2 if same else 0


def differs_from_reference(plan, n, in_w, c, k, stride, pad):
    """Whether some column reads another window than the reference kernel's."""
    for b in range(n):
        for o, row in enumerate(plan[b]):
            for j, s in enumerate(row):
                col = o * stride - pad + j // c
                want = ("in", (b * in_w + col) * c + j % c) if 0 <= col < in_w else ("pad",)
                if s != want:
                    return True
    return False


def test_the_random_shapes_reach_every_branch():
    seen = set()
    for case, n, in_w, c, k, stride, same, cout in shapes(120):
        out_w = -(-in_w // stride) if same else (in_w - k) // stride + 1
        pad = tflm_pad(in_w, k, stride, same, out_w)
        plan = simulate(n, in_w, c, k, stride, pad, out_w)
        if isinstance(plan, str):
            seen.add(plan)
        elif any(s is UNDEFINED for cols in plan for row in cols for s in row):
            seen.add("undefined")
        else:
            seen.add("differs" if differs_from_reference(plan, n, in_w, c, k, stride, pad)
                     else "taken")
    assert {"general", "fails", "undefined", "taken", "differs"} <= seen, seen


# The stride-3 cases on real firmware (TFLM 90b983c + CMSIS-NN, release, Cortex-M55 under
# QEMU's mps3-an547, three invokes): a 1x10x4 input, a 3x1x3x4 filter, VALID; the model is
# build(default_rng(7), ...) below. Width 10 (total padding -1): the last column drops the
# input's last column (the reference kernel gives ...c88054). Width 11 (total padding -2):
# the kernel fails and the firmware's output stays as the arena held it (zeros there).
M55_STRIDE3 = {
    10: ("11d94345a8f3a6174ff6f78b45fa9f12e00cd3a0cf32d7c8e32526b87fe5541c",
         "7f64a2f9733d8603e628d2413b16d1734d986c88762467a452ef2c522e305a7229f24dbf20af54cf",
         "6c802b2c7f43148052"),
    11: ("601b94ae9a0a078bc02ddf8681e1ec77eb7ee9065d2421adf12f99d26c50fd2e", None, None),
}


def test_stride_3_on_the_m55_firmware():
    import hashlib

    rng = np.random.default_rng(7)
    for in_w, (sha, x_hex, y_hex) in M55_STRIDE3.items():
        model = build(rng, 1, in_w, 4, 3, 3, False, 3)[0]
        assert hashlib.sha256(model).hexdigest() == sha, "the model builder changed"
        it = picolite.Interpreter(model_content=model, target="tflm-cmsis-nn-mve")
        if y_hex is None:
            with pytest.raises(picolite.UnsupportedOpError, match="unwritten"):
                it.allocate_tensors()
            continue
        it.allocate_tensors()
        it.set_input(np.frombuffer(bytes.fromhex(x_hex), np.int8).reshape(1, 1, in_w, 4), 0)
        it.invoke()
        assert it.get_output(0).tobytes().hex() == y_hex
