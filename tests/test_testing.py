"""picolite.testing: the comparison report, its verdicts and its first divergence."""

import numpy as np
import pytest

import picolite
from conftest import ZOO
from picolite.testing import (Comparison, TensorComparison, _compare, _samples,
                              assert_matches_tflite, compare_with_tflite, random_inputs)

CNN = ZOO / "net_cnn_int8.tflite"
LSTM = ZOO / "net_lstm_float32.tflite"
TANH = ZOO / "tanh_1x64_float32.tflite"


def test_integer_tensors_must_be_identical():
    a = np.array([1, 2, 3], np.int8)
    assert _compare(0, "t", a, a.copy(), 1e-5, 1e-6).identical
    c = _compare(0, "t", a, np.array([1, 2, 4], np.int8), 1e-5, 1e-6)
    assert not c.ok and c.mismatches == 1 and c.max_abs_diff == 1


def test_float_tensors_agree_within_tolerance():
    ref = np.array([1.0, 2.0], np.float32)
    close = _compare(0, "t", ref + np.float32(1e-6), ref, 1e-5, 1e-6)
    assert close.ok and not close.identical
    far = _compare(0, "t", ref + np.float32(1e-3), ref, 1e-5, 1e-6)
    assert not far.ok and far.mismatches == 2


def test_shape_mismatch_is_never_ok():
    c = _compare(0, "t", np.zeros(3, np.int8), np.zeros(4, np.int8), 1e-5, 1e-6)
    assert not c.ok and c.max_abs_diff == float("inf")


def test_first_divergence_is_the_earliest_differing_node():
    def layer(index, op_index, ok):
        return TensorComparison(index, f"t{index}", "int8", (2,), 0.0 if ok else 3.0,
                                0 if ok else 2, 2, ok, ok, op_index, "CONV_2D")
    report = Comparison("m", layers=[layer(5, 0, True), layer(9, 3, False), layer(7, 1, False)])
    assert not report.ok
    assert report.first_divergence.index == 7
    assert "first divergence" in str(report) and "tensor 7" in str(report)
    assert "DIFFERS" in report._repr_html_()


def test_random_inputs_are_deterministic_and_typed():
    details = [{"shape": np.array([1, 4]), "dtype": np.int8},
               {"shape": np.array([2]), "dtype": np.float32}]
    a, b = random_inputs(details, seed=3), random_inputs(details, seed=3)
    assert a[0].dtype == np.int8 and a[1].dtype == np.float32
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert np.all(np.abs(a[1]) <= 1)


def test_samples_accept_array_list_and_list_of_samples():
    details = [{"shape": np.array([1]), "dtype": np.int8}]
    x = np.zeros(1, np.int8)
    assert len(_samples(x, details, 3)) == 1
    assert len(_samples([x, x], details, 3)) == 2          # single input: two samples
    assert len(_samples([[x], [x], [x]], details, 3)) == 3
    assert len(_samples(None, details, 4)) == 4


@pytest.mark.usefixtures("litert")
def test_compare_reports_every_layer_of_a_real_net():
    report = compare_with_tflite(str(CNN), layers=True, samples=2)
    assert report.ok and report.first_divergence is None
    assert report.samples == 2
    assert len(report.outputs) == 2
    ops = picolite.Interpreter(model_path=str(CNN))._get_ops_details()
    assert len(report.layers) == 2 * len({t for op in ops for t in op["outputs"]})
    assert "OK" in str(report) and repr(report).startswith("<Comparison")


@pytest.mark.usefixtures("litert")
def test_assert_matches_tflite_raises_the_report():
    assert assert_matches_tflite(str(LSTM), samples=2).ok
    with pytest.raises(AssertionError, match="MISMATCH"):
        # a tolerance nothing but identical bytes meets, on a model whose outputs differ
        # from LiteRT's in the last bit (picolite's tanh, kernels/common/fmath.c, vs libm's):
        # the report becomes the message
        assert_matches_tflite(str(TANH), rtol=-1.0, atol=-1.0, samples=1)


@pytest.mark.usefixtures("litert")
def test_user_inputs_are_used():
    x = np.full(picolite.Interpreter(model_path=str(CNN)).get_input_details()[0]["shape"],
                7, np.int8)
    report = compare_with_tflite(str(CNN), inputs=x)
    assert report.samples == 1 and report.ok


@pytest.mark.parametrize("path", [ZOO / "signal" / "energy_257.tflite",
                                  ZOO / "lstm16x8" / "lstm16x8_b1_t28_i28_s20_mnist_like.tflite"],
                         ids=lambda p: p.name)
def test_a_model_litert_refuses_is_compared_with_tflm(path):
    """A custom op of TFLM's, a 16x8 LSTM: LiteRT refuses them, TFLM runs them, so TFLM
    judges (compare_with_tflite failed with LiteRT's error), picolite in TFLM's arithmetic."""
    from conftest import require

    require("tflite_micro")
    report = compare_with_tflite(str(path), layers=True, samples=2)
    assert report.reference == "tflm" and report.ok, str(report)
    assert report.layers and all(c.identical for c in report.outputs)
    assert str(report).startswith("picolite vs TFLM (tflite-micro's interpreter; LiteRT "
                                  "refused the model: ")
    assert compare_with_tflite(str(CNN), samples=1).reference == "litert"


def test_a_model_both_refuse_raises_litert_s_error():
    data = (ZOO / "add_same_int8.tflite").read_bytes()
    with pytest.raises((RuntimeError, ValueError)):
        compare_with_tflite(data[:200])
