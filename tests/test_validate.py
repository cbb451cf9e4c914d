"""picolite.validate: ST Edge AI's metrics equal a direct numpy computation; the reference
is LiteRT, a float model or given outputs; data sets as arrays, iterables and folders; the
float-vs-int8 layer report finds a layer whose scale was broken on purpose."""

import numpy as np
import pytest

import picolite
from conftest import ZOO, require
from picolite.validate import (dequantize, layer_errors, load_samples, metrics, per_sample,
                               quantize)

INT8, FLOAT = ZOO / "net_ds_cnn_kws_int8.tflite", ZOO / "net_ds_cnn_kws_float32.tflite"


def _direct(p, r):
    """The metrics written out once more, plainly."""
    p, r = np.asarray(p, np.float64).ravel(), np.asarray(r, np.float64).ravel()
    e = p - r
    return {"rmse": np.sqrt(np.mean(e ** 2)), "mae": np.mean(np.abs(e)),
            "l2r": np.sqrt(np.sum(e ** 2)) / np.sqrt(np.sum(r ** 2)),
            "cos": np.dot(p, r) / np.sqrt(np.dot(p, p) * np.dot(r, r)),
            "nse": 1 - np.sum(e ** 2) / np.sum((r - np.mean(r)) ** 2),
            "mean": np.mean(e), "std": np.std(e)}


def _real_inputs(n, seed=0):
    it = picolite.Interpreter(str(INT8))
    d = it.get_input_details()[0]
    scale, zp = d["quantization"]
    rng = np.random.default_rng(seed)
    shape = (n,) + tuple(int(x) for x in d["shape"][1:])
    return rng.uniform((-128 - zp) * scale, (127 - zp) * scale, shape).astype(np.float32)


def test_metrics_equal_numpy():
    rng = np.random.default_rng(1)
    r = rng.normal(size=(50, 10))
    p = r + rng.normal(scale=0.1, size=r.shape)
    m = metrics(p, r)
    for k, v in _direct(p, r).items():
        assert m[k] == pytest.approx(v, rel=1e-12, abs=1e-15), k
    assert m["top1"] == np.mean(p.argmax(1) == r.argmax(1))
    s = per_sample(p, r)
    for i in (0, 17, 49):
        d = _direct(p[i], r[i])
        assert s["rmse"][i] == pytest.approx(d["rmse"]) and s["cos"][i] == pytest.approx(d["cos"])


def test_identical_outputs():
    m = metrics(np.arange(12.0).reshape(3, 4), np.arange(12.0).reshape(3, 4))
    assert (m["rmse"], m["mae"], m["l2r"], m["nse"], m["top1"]) == (0, 0, 0, 1, 1)
    assert m["cos"] == pytest.approx(1.0)


def test_against_litert_is_exact():
    require("ai_edge_litert")
    r = picolite.validate(INT8, _real_inputs(24), progress=False)
    o = r.outputs[0]
    assert r.samples == 24 and o.metrics["rmse"] == 0 and o.metrics["top1"] == 1.0
    assert "RMSE" in str(r) and "<table>" in r._repr_html_()


def test_against_the_float_model_equals_numpy():
    x = _real_inputs(32)
    labels = np.random.default_rng(2).integers(0, 4, 32)
    r = picolite.validate(INT8, x, reference=FLOAT, labels=labels, progress=False,
                          workers=2)
    # the same computation by hand: quantize, run, dequantize
    q = picolite.Interpreter(str(INT8))
    qi, qo = q.get_input_details()[0], q.get_output_details()[0]
    got, = picolite.evaluate(str(INT8), quantize(x, qi), progress=False)
    want, = picolite.evaluate(str(FLOAT), x, progress=False)
    got = dequantize(got.reshape(32, -1), qo)
    want = np.asarray(want, np.float64).reshape(32, -1)
    o = r.outputs[0]
    for k, v in _direct(got, want).items():
        assert o.metrics[k] == pytest.approx(v, rel=1e-9, abs=1e-12), k
    assert o.acc == np.mean(got.argmax(1) == labels)
    assert o.ref_acc == np.mean(want.argmax(1) == labels)
    assert o.confusion.sum() == 32 and np.trace(o.confusion) == round(o.acc * 32)
    assert o.metrics["cos"] > 0.99  # a well-quantized model


def test_given_reference_outputs():
    x = _real_inputs(8)
    want, = picolite.evaluate(str(FLOAT), x, progress=False)
    r = picolite.validate(INT8, x, reference=[want], progress=False)
    r2 = picolite.validate(INT8, x, reference=FLOAT, progress=False)
    assert r.outputs[0].metrics == pytest.approx(r2.outputs[0].metrics)


def test_data_sources_agree(tmp_path):
    x = _real_inputs(6)
    for i, s in enumerate(x):
        np.save(tmp_path / f"{i:03d}.npy", s)
    a = picolite.validate(INT8, x, reference=FLOAT, progress=False)
    b = picolite.validate(INT8, tmp_path, reference=FLOAT, progress=False)
    c = picolite.validate(INT8, iter(list(x)), reference=FLOAT, progress=False)
    assert a.outputs[0].metrics == b.outputs[0].metrics == c.outputs[0].metrics
    assert len(load_samples(tmp_path)) == 6


def test_image_folder(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.image

    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (3, 28, 28)).astype(np.uint8)
    for i, img in enumerate(images):
        matplotlib.image.imsave(tmp_path / f"{i}.png", img, cmap="gray", vmin=0, vmax=255)
    samples = load_samples(tmp_path)
    assert len(samples) == 3 and samples[0][0].shape[:2] == (28, 28)


def _broken_scale(content: bytes, node: int, factor: float = 4.0) -> bytes:
    """The model with one conv filter's per-channel scales multiplied by ``factor``."""
    it = picolite.Interpreter(model_content=content)
    op = it._get_ops_details()[node]
    w = it.get_tensor_details()[int(op["inputs"][1])]
    scales = np.asarray(w["quantization_parameters"]["scales"], np.float32)
    assert content.count(scales.tobytes()) == 1
    return content.replace(scales.tobytes(), (scales * factor).astype(np.float32).tobytes())


def test_layer_report_of_a_good_model():
    rep = layer_errors(INT8, FLOAT, _real_inputs(4))
    assert rep.matched_by == "name" and len(rep.layers) == 10
    assert rep.first_suspect is None, str(rep)
    assert all(x.rmse_scale < 1.0 and x.cos > 0.999 for x in rep.layers)


@pytest.mark.parametrize("node", [2, 4])
def test_layer_report_finds_a_broken_scale(node):
    broken = _broken_scale(INT8.read_bytes(), node)
    rep = layer_errors(broken, FLOAT, _real_inputs(4))
    assert rep.first_suspect is not None and rep.first_suspect.op_index == node, str(rep)
    assert all(x.rmse_scale < 1.0 for x in rep.layers[:node])
    assert "first suspect: layer" in str(rep)


def test_layers_matched_by_position(tmp_path):
    """Tensor names that differ (another converter run): matched by operator position."""
    content = FLOAT.read_bytes()
    it = picolite.Interpreter(model_content=content)
    name = it.get_tensor_details()[int(it._get_ops_details()[0]["outputs"][0])]["name"]
    renamed = content.replace(name.encode(), b"X" * len(name.encode()))
    rep = layer_errors(INT8, renamed, _real_inputs(2))
    assert "position" in rep.matched_by and len(rep.layers) == 10
    assert rep.first_suspect is None
