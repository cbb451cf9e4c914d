"""CMSIS-NN's int4 depthwise kernels (TFLM + CMSIS-NN) on random shapes: which weight each
output multiplies with each input.

The firmware goldens (test_int4.py: tests/goldens/tflm/m4-int4-depthwise-random.json, M4,
M3 and M55) show the cases they hold; this covers every branch of the kernels on random shapes. A
simulation written here from CMSIS-NN's sources, independently of
csrc/kernels/conv/depthwise_s4_cmsis.c, follows each kernel's reads of the packed filter
(which byte, which nibble, for which input) and gives the matrix W with output = W @ input.
picolite's matrix comes from one-hot inputs through a model whose scales are all 1 (the
requantization is then the identity), zero points 0 and a zero bias.

- arm_depthwise_conv_wrapper_s4 runs arm_depthwise_conv_s4_opt for a multiplier of 1, one
  batch and no dilation, else arm_depthwise_conv_s4 (plain C on every core).
- arm_depthwise_conv_s4_opt off Helium: its C loops; the DSP build's SMLAD pairing
  (read_and_pad_s4, read_and_pad_s4_uneven) multiplies the same nibbles with the same
  inputs, so one simulation stands for the M4 and the M3.
- on Helium (ARM_MATH_MVEI): 124-channel passes, four output points through
  arm_nn_depthwise_conv_nt_t_s4 and the rest one by one, both with the same decode. The
  firmware's GCC 12.2 loads the predicate 0x0F0F that should limit the low-nibble sign
  extension to lanes 0 and 2 as all ones (`mov.w r, #-1; vmsr p0, r` before `vpst;
  vrshlt.s32 q, #28` in both objects), so every lane of a gathered {0, 0, 1, 1} takes its
  byte's low nibble.
"""

import numpy as np
import pytest

import picolite
from conftest import require

require("tflite_micro")  # the schema the model builder writes with
from int4_models import pack_int4  # noqa: E402
from tflm_models import Model  # noqa: E402

PASS = 124  # S4_CH_IN_BLOCK_MVE


def cdiv(a, b):
    return int(a / b)  # C's / on ints


def taps(base, size, k, d):
    """The kernel's [start, end) of in-bounds taps."""
    if d > 1:
        return max(0, cdiv(-base + d - 1, d)), min(k, cdiv(size - base + d - 1, d))
    return max(0, -base), min(k, size - base)


class Sim:
    """The reads of one kernel for shape s: contributions[(out index)] = [(input index,
    byte, high nibble)], and the highest byte a kept output reads."""

    def __init__(self, s):
        self.s, self.reads, self.last = s, {}, -1

    def add(self, out, inp, byte, high):
        self.reads.setdefault(out, []).append((inp, byte, high))
        self.last = max(self.last, byte)

    def matrix(self, packed, n_in, n_out):
        raw = packed.view(np.uint8)
        w = np.zeros((n_out, n_in), np.int64)
        for out, terms in self.reads.items():
            for inp, byte, high in terms:
                v = (int(raw[byte]) >> 4) if high else int(raw[byte]) & 15
                w[out, inp] += v - 16 if v >= 8 else v
        return w


def generic(s):
    """depthwise_conv_s4_generic (arm_depthwise_conv_s4.c), every branch."""
    sim = Sim(s)
    n, h, w, cin, m = s["n"], s["h"], s["w"], s["cin"], s["m"]
    kh, kw, oh, ow = s["kh"], s["kw"], s["oh"], s["ow"]
    kio = cin >> 1
    i_out = 0
    for b in range(n):
        inp = lambda y, x, c: ((b * h + y) * w + x) * cin + c  # noqa: E731
        for oy in range(oh):
            by = oy * s["sh"] - s["ph"]
            for ox in range(ow):
                bx = ox * s["sw"] - s["pw"]
                ys, ye = taps(by, h, kh, s["dh"])
                xs, xe = taps(bx, w, kw, s["dw"])
                rows = [(ky, by + s["dh"] * ky) for ky in range(ys, ye)]
                cols = [(kx, bx + s["dw"] * kx) for kx in range(xs, xe)]
                s4, low = 0, True
                if cin % 2 == 0 and m == 1:
                    for ic in range(0, cin, 2):
                        for ky, y in rows:
                            ker = (ky * kw + xs) * kio + s4
                            for kx, x in cols:
                                sim.add(i_out, inp(y, x, ic), ker, False)
                                sim.add(i_out + 1, inp(y, x, ic + 1), ker, True)
                                ker += kio
                        i_out += 2
                        s4 += 1
                elif cin % 2 == 0 and m % 2 == 0:
                    for ic in range(cin):
                        for _ in range(0, m, 2):
                            for ky, y in rows:
                                ker = (ky * kw + xs) * kio * m + s4
                                for kx, x in cols:
                                    sim.add(i_out, inp(y, x, ic), ker, False)
                                    sim.add(i_out + 1, inp(y, x, ic), ker, True)
                                    ker += kio * m
                            i_out += 2
                            s4 += 1
                elif cin % 2 == 0:  # odd multiplier
                    for ic in range(cin):
                        for im in range(m):
                            oc = im + ic * m
                            s4 += oc != 0 and oc % 2 == 0
                            for ky, y in rows:
                                ker = (ky * kw + xs) * kio * m + s4
                                for kx, x in cols:
                                    sim.add(i_out, inp(y, x, ic), ker, not low)
                                    ker += kio * m
                            low = not low
                            i_out += 1
                else:
                    for ic in range(cin):
                        for im in range(m):
                            oc = im + ic * m
                            s4 += oc != 0 and oc % 2 == 0
                            uneven = 0
                            for ky, y in rows:
                                ker = (ky * kw + xs) * kio * m + s4 + uneven
                                for kx, x in cols:
                                    sim.add(i_out, inp(y, x, ic), ker, not low)
                                    if low:
                                        low = False
                                    else:
                                        low, uneven = True, uneven + 1
                                    ker += kio * m + low
                            if (kw * kh) % 2:
                                low = not low
                            low = not low
                            i_out += 1
    return sim


def im2col(s, oy, ox):
    """The opt kernels' columns for one output point: per tap (row-major), its input pixel
    (y, x) or None where padding (a zero, or minus the offset on Helium: adds nothing)."""
    by, bx = oy * s["sh"] - s["ph"], ox * s["sw"] - s["pw"]
    return [(by + ky, bx + kx) if 0 <= by + ky < s["h"] and 0 <= bx + kx < s["w"] else None
            for ky in range(s["kh"]) for kx in range(s["kw"])]


def opt_c(s):
    """arm_depthwise_conv_s4_opt without MVE (the C loops)."""
    sim = Sim(s)
    c, k = s["cin"], s["kh"] * s["kw"]
    h = c >> 1
    for oy in range(s["oh"]):
        for ox in range(s["ow"]):
            col = im2col(s, oy, ox)
            first = (oy * s["ow"] + ox) * c

            def add(ch, tap, byte, high):
                if col[tap] is not None:
                    y, x = col[tap]
                    sim.add(first + ch, (y * s["w"] + x) * c + ch, byte, high)

            row_shift = 0
            for g in range(c // 4):
                rp, ch = row_shift, 4 * g
                row_shift += 2
                if c % 2:
                    for pair in range(k // 2):
                        t = 2 * pair
                        for j, (db, hi) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
                            add(ch + j, t, rp + db, hi)
                        for j, (db, hi) in enumerate(((h, 1), (h + 1, 0), (h + 1, 1),
                                                      (h + 2, 0))):
                            add(ch + j, t + 1, rp + db, hi)
                        rp += c
                    if k & 1:
                        for j, (db, hi) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
                            add(ch + j, k - 1, rp + db, hi)
                else:
                    for t in range(k):
                        for j, (db, hi) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
                            add(ch + j, t, rp + db, hi)
                        rp += h
            ch = 4 * (c // 4)
            if c % 2:
                low, rem = True, c & 3
                while rem:
                    ci = 0
                    for t in range(k):
                        add(ch, t, row_shift + t * h + ci, not low)
                        if low:
                            low = False
                        else:
                            low, ci = True, ci + 1
                    if k % 2 == 0:
                        low = not low
                    rem -= 1
                    ch += 1
                    if rem == 1:
                        row_shift += 1
            elif c & 2:
                for t in range(k):
                    add(ch, t, row_shift + t * h, False)
                    add(ch + 1, t, row_shift + t * h, True)
    return sim


def opt_mve(s):
    """arm_depthwise_conv_s4_opt and arm_nn_depthwise_conv_nt_t_s4 under MVE, as GCC 12.2
    builds them (the low-nibble predicate all ones)."""
    sim = Sim(s)
    c, k = s["cin"], s["kh"] * s["kw"]
    points = [(oy, ox) for oy in range(s["oh"]) for ox in range(s["ow"])]
    for block in range(-(-c // PASS)):
        active = min(PASS, c - block * PASS)
        for oy, ox in points:  # in fours, then the rest: the same decode
            col = im2col(s, oy, ox)
            for loop in range(-(-active // 4)):
                offset = block * PASS + 4 * loop
                rp, low = offset >> 1, True
                for t in range(k):
                    if c % 2 == 0:
                        lanes = ((rp, 0), (rp, 0), (rp + 1, 0), (rp + 1, 0))
                    elif low:
                        lanes = ((rp, 0), (rp, 0), (rp + 1, 0), (rp + 1, 0))
                    else:
                        lanes = ((rp, 1), (rp + 1, 0), (rp + 1, 1), (rp + 2, 0))
                    for j, (byte, hi) in enumerate(lanes):
                        if 4 * loop + j < active and col[t] is not None:
                            y, x = col[t]
                            sim.add((oy * s["ow"] + ox) * c + offset + j,
                                    (y * s["w"] + x) * c + offset + j, byte, hi)
                    if c % 2 == 0:
                        rp += c >> 1
                    else:
                        low = not low
                        rp += (c >> 1) + low
    return sim


def simulate(s, target):
    opt = s["m"] == 1 and s["n"] == 1 and s["dh"] == 1 and s["dw"] == 1
    if not opt:
        return generic(s)
    return opt_mve(s) if target.endswith("mve") else opt_c(s)


def shape(rng, case):
    """Random shapes; `case` forces the branch: "opt" (multiplier 1, one batch, no
    dilation), "generic", or "wide" (the opt kernel over more than one Helium pass)."""
    s = {"n": 1, "m": 1, "dh": 1, "dw": 1}
    s["cin"] = int(rng.integers(125, 133)) if case == "wide" else int(rng.integers(1, 8))
    small = case == "wide"
    s["h"], s["w"] = (int(rng.integers(1, 4 if small else 7)) for _ in range(2))
    s["kh"], s["kw"] = (int(rng.integers(1, 3 if small else 5)) for _ in range(2))
    s["sh"], s["sw"] = (int(rng.integers(1, 3 if case == "opt" else 4)) for _ in range(2))
    if case == "generic":
        s["m"], s["n"] = int(rng.integers(1, 4)), int(rng.integers(1, 3))
        s["dh"], s["dw"] = (int(rng.integers(1, 3)) for _ in range(2))
        if s["m"] == 1 and s["n"] == 1 and s["dh"] == s["dw"] == 1:
            s["n"] = 2
    eh, ew = (s["kh"] - 1) * s["dh"] + 1, (s["kw"] - 1) * s["dw"] + 1
    s["same"] = bool(rng.random() < 0.6) or eh > s["h"] or ew > s["w"]
    for a, size, e, st in (("h", s["h"], eh, s["sh"]), ("w", s["w"], ew, s["sw"])):
        o = -(-size // st) if s["same"] else (size - e) // st + 1
        s["o" + a] = o
        s["p" + a] = max(0, ((o - 1) * st + e - size) // 2) if s["same"] else 0
    return s


def model(s, values, bias=True):
    m = Model()
    S = m.S
    m.types["int4"] = S.TensorType.INT4
    cout = s["cin"] * s["m"]
    one = (1.0, 0)
    x = m.tensor([s["n"], s["h"], s["w"], s["cin"]], "int8", one)
    f = m.tensor([1, s["kh"], s["kw"], cout], "int4", (np.ones(1), np.zeros(1, np.int64)),
                 pack_int4(values), axis=3)
    b = m.tensor([cout], "int32", (np.ones(1), np.zeros(1, np.int64)),
                 np.zeros(cout, np.int32)) if bias else -1
    y = m.tensor([s["n"], s["oh"], s["ow"], cout], "int8", one)
    opt = S.DepthwiseConv2DOptionsT()
    opt.depthMultiplier = s["m"]
    opt.padding = S.Padding.SAME if s["same"] else S.Padding.VALID
    opt.strideH, opt.strideW = s["sh"], s["sw"]
    opt.dilationHFactor, opt.dilationWFactor = s["dh"], s["dw"]
    m.op("DEPTHWISE_CONV_2D", [x, f, b], [y], opt)
    m.io([x], [y])
    return m.bytes()


def picolite_matrix(content, target):
    it = picolite.Interpreter(model_content=content, target=target)
    it.allocate_tensors()
    d = it.get_input_details()[0]
    n_in = int(np.prod(d["shape"]))
    cols = []
    for i in range(n_in):
        x = np.zeros(n_in, np.int8)
        x[i] = 1
        it.set_input(x.reshape(d["shape"]), 0)
        it.invoke()
        cols.append(it.get_output(0).astype(np.int64).ravel())
    return np.stack(cols, axis=1)


CASES = [(case, seed) for case, count in (("opt", 110), ("generic", 60), ("wide", 6))
         for seed in range(count)]
SEEDS = {"opt": 0, "generic": 100, "wide": 200}
TARGETS = ("tflm-cmsis-nn", "tflm-cmsis-nn-nodsp", "tflm-cmsis-nn-mve")


@pytest.mark.parametrize("case, seed", CASES)
def test_the_weights_each_kernel_reads(case, seed):
    rng = np.random.default_rng(SEEDS[case] + seed)
    s = shape(rng, case)
    cout = s["cin"] * s["m"]
    values = rng.integers(-8, 8, (1, s["kh"], s["kw"], cout)).astype(np.int8)
    packed, content = pack_int4(values), model(s, values)
    n_in = s["n"] * s["h"] * s["w"] * s["cin"]
    n_out = s["n"] * s["oh"] * s["ow"] * cout
    for target in TARGETS if case != "wide" else TARGETS[2:]:
        sim = simulate(s, target)
        if sim.last >= packed.size:
            with pytest.raises(picolite.UnsupportedOpError, match="past its end"):
                picolite.Interpreter(model_content=content, target=target).allocate_tensors()
            continue
        want = sim.matrix(packed, n_in, n_out)
        np.testing.assert_array_equal(picolite_matrix(content, target), want,
                                      err_msg=f"{target} {s}")


def test_the_cases_reach_every_branch():
    """opt: odd and even depths, every depth mod 4 (the 4-channel groups and their tail), odd
    and even tap counts, with and without a four-point pass; generic: each of its branches
    (even depth with multiplier 1, 2 and 3; odd depth), dilations; wide: both parities."""
    seen = set()
    for case, seed in CASES:
        s = shape(np.random.default_rng(SEEDS[case] + seed), case)
        points = s["oh"] * s["ow"] >= 4
        if case == "generic":
            seen.add(("generic", s["cin"] % 2 or s["m"], s["n"] > 1))
            if max(s["dh"], s["dw"]) > 1:
                seen.add(("dilated", s["cin"] % 2))
        else:
            seen.add((case, s["cin"] % 4, s["kh"] * s["kw"] % 2, points))
    want = {("opt", c4, k2, p) for c4 in range(4) for k2 in (0, 1) for p in (False, True)}
    want |= {("generic", b, n) for b in (1, 2, 3) for n in (False, True)}
    want |= {("dilated", 0), ("dilated", 1), ("wide", 3, 0, True), ("wide", 2, 1, False)}
    assert want - seen == set()
