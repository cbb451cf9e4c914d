"""picolite.analyze: MACs and parameters against independent counts (the architectures of
MLPerf Tiny's four models written out by hand), the MAC convention operator by operator,
the arena live at each step, the flash and RAM totals, and the CLI."""

import json
import subprocess
import sys

import numpy as np
import pytest

import picolite
from conftest import SHARED_MODELS, ZOO
from picolite.analyze import layer_macs

MLPERF = ZOO / "mlperf_tiny"


def _conv(h, w, cin, cout, k, counts):
    counts[0] += h * w * cout * k[0] * k[1] * cin
    counts[1] += k[0] * k[1] * cin * cout + cout


def _dw(h, w, c, k, counts):
    counts[0] += h * w * c * k[0] * k[1]
    counts[1] += k[0] * k[1] * c + c


def _fc(i, o, counts):
    counts[0] += i * o
    counts[1] += i * o + o


def vww_counts():
    """MobileNetV1 alpha 0.25 at 96x96x3, 2 classes (MLPerf Tiny: 7.49 M MACs)."""
    c = [0, 0]
    h, ch = 48, 8
    _conv(h, h, 3, ch, (3, 3), c)
    for out, stride in [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2)] + \
            [(128, 1)] * 5 + [(256, 2), (256, 1)]:
        h //= stride
        _dw(h, h, ch, (3, 3), c)
        _conv(h, h, ch, out, (1, 1), c)
        ch = out
    _fc(256, 2, c)
    return c


def kws_counts():
    """DS-CNN: conv 10x4 stride 2 to 25x5x64, four depthwise-separable blocks, FC 12."""
    c = [0, 0]
    _conv(25, 5, 1, 64, (10, 4), c)
    for _ in range(4):
        _dw(25, 5, 64, (3, 3), c)
        _conv(25, 5, 64, 64, (1, 1), c)
    _fc(64, 12, c)
    return c


def resnet8_counts():
    """ResNet-8 for CIFAR-10: 16, 32, 64 channels, 1x1 shortcuts on the strided stacks."""
    c = [0, 0]
    _conv(32, 32, 3, 16, (3, 3), c)
    _conv(32, 32, 16, 16, (3, 3), c)
    _conv(32, 32, 16, 16, (3, 3), c)
    _conv(16, 16, 16, 32, (3, 3), c)
    _conv(16, 16, 32, 32, (3, 3), c)
    _conv(16, 16, 16, 32, (1, 1), c)
    _conv(8, 8, 32, 64, (3, 3), c)
    _conv(8, 8, 64, 64, (3, 3), c)
    _conv(8, 8, 32, 64, (1, 1), c)
    _fc(64, 10, c)
    return c


def ad_counts():
    """The FC autoencoder: 640 -> 128 x4 -> 8 -> 128 x4 -> 640."""
    c = [0, 0]
    sizes = [640, 128, 128, 128, 128, 8, 128, 128, 128, 128, 640]
    for i, o in zip(sizes, sizes[1:]):
        _fc(i, o, c)
    return c


@pytest.mark.parametrize("name,counts", [
    ("vww_96_int8", vww_counts), ("kws_ref_model", kws_counts),
    ("pretrainedResnet_quant", resnet8_counts), ("ad01_int8", ad_counts)])
def test_mlperf_tiny_macs_and_parameters(name, counts):
    a = picolite.analyze(MLPERF / f"{name}.tflite")
    macs, params = counts()
    assert (a.macs, a.params) == (macs, params)


def test_vww_is_mlperf_tinys_7_49_m_macs():
    assert round(picolite.analyze(MLPERF / "vww_96_int8.tflite").macs / 1e6, 2) == 7.49


def mobilenet_v2_macs(res=224, classes=1000):
    """The convention on MobileNetV2 1.0 (Keras layout): 300.8 M MACs at 224."""
    h, c = res // 2, 32
    macs = h * h * 32 * 27
    for t, out, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                         (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            e = c * t
            macs += h * h * e * c if t != 1 else 0  # expansion 1x1 on the input size
            h //= s if i == 0 else 1
            macs += layer_macs("DEPTHWISE_CONV_2D", [None, [1, 3, 3, e]], [[1, h, h, e]],
                               [False, True])
            macs += layer_macs("CONV_2D", [None, [out, 1, 1, e]], [[1, h, h, out]],
                               [False, True])
            c = out
    macs += layer_macs("CONV_2D", [None, [1280, 1, 1, c]], [[1, h, h, 1280]], [False, True])
    return macs + layer_macs("FULLY_CONNECTED", [None, [classes, 1280]], [[1, classes]],
                             [False, True])


def test_mobilenet_v2_convention():
    assert round(mobilenet_v2_macs() / 1e6, 1) == 300.8


@pytest.mark.parametrize("op,inputs,outputs,weights,expected", [
    # conv: out_h*out_w*out_c*k_h*k_w*in_c/groups (filter [out_c, k_h, k_w, in_c/groups])
    ("CONV_2D", [[1, 8, 8, 16], [32, 3, 3, 16], [32]], [[1, 8, 8, 32]], [0, 1, 1],
     8 * 8 * 32 * 9 * 16),
    ("CONV_2D", [[1, 8, 8, 16], [32, 3, 3, 4], [32]], [[1, 4, 4, 32]], [0, 1, 1],
     4 * 4 * 32 * 9 * 4),  # 4 groups
    ("CONV_2D", [[2, 8, 8, 3], [4, 1, 1, 3]], [[2, 8, 8, 4]], [0, 1], 2 * 64 * 4 * 3),
    # depthwise: out_h*out_w*out_c*k_h*k_w (a depth multiplier of 2: out_c = 2 * in_c)
    ("DEPTHWISE_CONV_2D", [[1, 10, 10, 4], [1, 3, 3, 8], [8]], [[1, 5, 5, 8]], [0, 1, 1],
     5 * 5 * 8 * 9),
    # FC: batch*out*in, batch from a 3-D output (keep_num_dims)
    ("FULLY_CONNECTED", [[2, 3, 20], [7, 20], [7]], [[2, 3, 7]], [0, 1, 1], 6 * 7 * 20),
    ("BATCH_MATMUL", [[2, 4, 8], [2, 8, 6]], [[2, 4, 6]], [0, 0], 2 * 4 * 6 * 8),
    ("BATCH_MATMUL", [[2, 8, 4], [2, 8, 6]], [[2, 4, 6]], [0, 0], 2 * 4 * 6 * 8),  # adj_x
    ("TRANSPOSE_CONV", [[4], [8, 3, 3, 16], [1, 6, 6, 16]], [[1, 12, 12, 8]], [1, 1, 0],
     6 * 6 * 16 * 9 * 8),
    ("UNIDIRECTIONAL_SEQUENCE_LSTM",
     [[2, 5, 3]] + [[4, 3]] * 4 + [[4, 4]] * 4 + [[4]] * 7 + [None, None] + [[2, 4]] * 2,
     [[2, 5, 4]], [0] + [1] * 15 + [0, 0, 0, 0], 10 * (4 * 12 + 4 * 16)),
    ("SVDF", [[3, 10], [8, 10], [8, 5], [2], [3, 40]], [[3, 2]], [0, 1, 1, 1, 0],
     3 * (80 + 40)),
    ("ADD", [[1, 8], [1, 8]], [[1, 8]], [0, 0], 0),
])
def test_mac_convention(op, inputs, outputs, weights, expected):
    assert layer_macs(op, inputs, outputs, [bool(w) for w in weights]) == expected


def test_svdf_of_tflms_keyword_model(shared_models):
    a = picolite.analyze(shared_models / "models" / "keyword_scrambled.tflite")
    svdf = [x for x in a.layers if x.op == "SVDF"]
    assert svdf
    for x in svdf:
        batch = x.input_shapes[0][0]
        assert x.macs == batch * (np.prod(x.input_shapes[1]) + np.prod(x.input_shapes[2]))


def test_shape_arguments_are_not_parameters():
    """RESHAPE's int32 shape is an argument; the int32 bias (with a scale) is a parameter."""
    a = picolite.analyze(MLPERF / "kws_ref_model.tflite")
    reshape = [x for x in a.layers if x.op == "RESHAPE"][0]
    fc = [x for x in a.layers if x.op == "FULLY_CONNECTED"][0]
    assert reshape.params == 0 and reshape.weight_bytes == 0
    assert fc.params == 64 * 12 + 12


@pytest.mark.parametrize("name", ["net_cnn_int8", "net_ds_cnn_kws_int8", "net_lstm_int8",
                                  "net_mobilenet_v1_025_int8"])
def test_arena_live_follows_the_plan(name):
    path = ZOO / f"{name}.tflite"  # the per-layer figures are picolite's own plan
    a = picolite.analyze(path, target="picolite")
    it = picolite.Interpreter(str(path), target="picolite")
    it.allocate_tensors()
    rep = it.allocations()
    assert max(x.arena_live for x in a.layers) == rep.lower_bound
    assert max(x.arena_extent for x in a.layers) == rep.head
    assert a.arena == picolite.required_arena_size(str(path), target="picolite")
    assert (a.arena_head, a.arena_tail) == (rep.head, rep.tail)
    for x in a.layers:
        assert x.arena_live <= x.arena_extent <= rep.head


def test_totals_add_up():
    a = picolite.analyze(ZOO / "net_cnn_int8.tflite", target="picolite")
    f = a.flash
    assert f["total"] == f["model"] + f["kernels"] + f["core"]
    assert f["model"] == (ZOO / "net_cnn_int8.tflite").stat().st_size
    assert f["kernels"] > 0 and f["core"] > 0, a.notes
    assert a.ram == a.arena + a.stack and a.stack > 0
    assert a.macs == sum(x.macs for x in a.layers)
    assert set(a.kernels) == {x.op for x in a.layers}


def test_flash_counts_shared_code_once():
    """A model's kernels are the union of their linked sections: two ops that share helpers
    cost less together than apart."""
    from picolite import costs

    table = costs.load()
    one = [costs.flash(table, "picolite", [op], 0, "cortex-m4f", "Os", "trimmed")[0]["kernels"]
           for op in ("CONV_2D", "DEPTHWISE_CONV_2D")]
    both = costs.flash(table, "picolite", ["CONV_2D", "DEPTHWISE_CONV_2D"], 0, "cortex-m4f",
                       "Os", "trimmed")[0]["kernels"]
    assert max(one) < both < sum(one)


def test_os_and_o2_rows():
    a = picolite.analyze(ZOO / "net_cnn_int8.tflite", target="picolite", opt="Os")
    b = picolite.analyze(ZOO / "net_cnn_int8.tflite", target="picolite", opt="O2")
    assert a.flash["kernels"] < b.flash["kernels"]


def test_repr_text_html():
    a = picolite.analyze(MLPERF / "kws_ref_model.tflite")
    text = str(a)
    assert "DEPTHWISE_CONV_2D" in text and "2,656,768 MACs" in text
    page = a._repr_html_()
    assert "<table>" in page and "<svg" in page
    assert json.loads(a.to_json())["macs"] == 2656768


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "picolite", "analyze", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def test_cli_json_and_html():
    r = _cli(MLPERF / "vww_96_int8.tflite", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["macs"] == 7489664 and d["params"] == 210850 and len(d["layers"]) == 31
    assert d["flash"]["total"] > d["model_bytes"] and d["ram"] >= d["arena"]
    r = _cli(MLPERF / "vww_96_int8.tflite", "--html", "--target", "picolite")
    assert r.returncode == 0 and r.stdout.startswith("<!DOCTYPE html>")
    r = _cli(MLPERF / "ad01_int8.tflite")
    assert r.returncode == 0 and "264,192 MACs" in r.stdout


def test_plot():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    ax = picolite.analyze(ZOO / "net_cnn_int8.tflite").plot()
    assert ax.get_ylabel() == "MACs"


def test_tflm_flash_from_tflms_own_firmware():
    """For a TFLM target: TFLM's core and kernels, measured from TFLM firmware linked by the
    oracle; the union of the operators' sections was that firmware's to the byte on the
    models the table records."""
    from picolite import costs

    table = costs.load()
    if "tflm" not in table:
        pytest.skip("the costs table has no TFLM figures")
    rows = table["tflm"]["cortex-m4f"]
    for name, check in rows["checks"].items():
        assert check["predicted"] == check["linked"] and not check["missing"], name
    a = picolite.analyze(MLPERF / "kws_ref_model.tflite", target="tflm")
    assert a.flash["runtime"] == "tflm" and a.flash["core"] == rows["core"]
    assert a.flash["kernels"] + a.flash["core"] == rows["checks"]["mlperf_kws_ref_model"][
        "linked"]
    assert a.stack == rows["stack"]
    b = picolite.analyze(MLPERF / "kws_ref_model.tflite", target="picolite")
    assert b.flash["runtime"] == "picolite trimmed"
