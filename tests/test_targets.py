"""Targets: every figure names its firmware (pl_target.h, picolite.TARGETS)."""

import pytest

import picolite
from conftest import ZOO

MODEL = ZOO / "net_mlp_int8.tflite"


def test_targets_are_named_in_pl_target_order():
    assert picolite.TARGETS[:4] == ("picolite", "tflm", "tflm-x86-64", "litert")
    assert set(picolite.TARGETS[4:]) == {"tflm-cmsis-nn", "tflm-cmsis-nn-mve",
                                         "tflm-cmsis-nn-nodsp"}


def test_an_unknown_target_is_a_value_error_listing_the_known_ones():
    with pytest.raises(ValueError, match="unknown target 'tflm-m7'.*'tflm-x86-64'"):
        picolite.Interpreter(str(MODEL), target="tflm-m7")


@pytest.mark.parametrize("target", picolite.TARGETS)
def test_every_modelled_target_runs(target):
    it = picolite.Interpreter(str(MODEL), target=target)
    it.allocate_tensors()
    it.invoke()
