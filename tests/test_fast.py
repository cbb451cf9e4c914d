"""The host fast paths (kernels=): every kernel set this machine runs gives the portable
kernels' exact outputs and the portable build's arena figures on every model of the zoo and
of ../shared, in TFLM's arithmetic and in LiteRT's; the host memory they hold is reported
apart."""

import pathlib

import numpy as np
import pytest

import picolite
from picolite.testing import random_inputs

from conftest import SHARED, ZOO

FAST_SETS = [k for k in picolite.kernel_sets() if k != "portable"]
MODELS = sorted(ZOO.glob("**/*.tflite")) + sorted((SHARED / "models").glob("**/*.tflite"))


def run(path, kernels, inputs, target="picolite"):
    """(outputs, arena figures, plan offsets, host bytes) of one invoke, or the error text.
    The figures are picolite's own arena's (a TFLM target's would be its firmware's, which no
    kernel set changes): targets picolite and litert report those; tflm-x86-64 none."""
    try:
        it = picolite.Interpreter(model_path=str(path), kernels=kernels, target=target)
        it.allocate_tensors()
        for d, x in zip(it.get_input_details(), inputs):
            it.set_tensor(d["index"], x)
        it.invoke()
    except (picolite.Error, ValueError, RuntimeError) as e:
        return type(e).__name__ + str(e)
    outputs = [it.get_tensor(d["index"]) for d in it.get_output_details()]
    plan = [(b.tensor, b.offset, b.size) for b in it.memory_plan().buffers]
    own = target in ("picolite", "litert")
    figures = (it.arena_used_bytes(), it.allocations().to_dict(), plan) if own else plan
    return outputs, figures, it.host_memory_bytes


def model_id(path):
    return path.relative_to(ZOO if ZOO in path.parents else SHARED).as_posix()


def test_kernel_sets_start_with_portable_and_auto_picks_one_of_them():
    sets = picolite.kernel_sets()
    assert sets[0] == "portable"
    it = picolite.Interpreter(model_path=str(ZOO / "net_cnn_int8.tflite"))
    assert it.kernels == sets[-1]


def test_an_unknown_kernel_set_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="kernels must be 'auto' or one of"):
        picolite.Interpreter(model_path=str(ZOO / "net_cnn_int8.tflite"), kernels="mmx")


def test_portable_kernels_hold_no_host_memory():
    it = picolite.Interpreter(model_path=str(ZOO / "net_cnn_int8.tflite"), kernels="portable")
    it.allocate_tensors()
    assert it.kernels == "portable" and it.host_memory_bytes == 0


def test_litert_reference_resolver_runs_the_portable_kernels():
    from picolite.interpreter import Interpreter, OpResolverType

    ref = Interpreter(model_path=str(ZOO / "net_cnn_int8.tflite"),
                      experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    auto = Interpreter(model_path=str(ZOO / "net_cnn_int8.tflite"))
    assert ref.kernels == "portable"
    assert auto.kernels == picolite.kernel_sets()[-1]


@pytest.mark.skipif(not FAST_SETS, reason="this CPU has no fast kernel set")
@pytest.mark.parametrize("kernels", FAST_SETS)
def test_conv_nets_hold_packed_weights_in_host_memory(kernels):
    it = picolite.Interpreter(model_path=str(ZOO / "net_cnn_int8.tflite"), kernels=kernels)
    it.allocate_tensors()
    assert it.kernels == kernels
    # both conv filters and the dense weights are packed, outside the 8 KB arena
    assert it.host_memory_bytes > 3 * 8 * 9
    assert it.host_memory_bytes > 0


@pytest.mark.skipif(not FAST_SETS, reason="this CPU has no fast kernel set")
@pytest.mark.parametrize("kernels", FAST_SETS)
def test_16x8_conv_nets_take_the_fast_paths_on_every_set(kernels):
    it = picolite.Interpreter(model_path=str(ZOO / "net_ds_cnn_kws_int16x8.tflite"),
                              kernels=kernels)
    it.allocate_tensors()
    # the four CONV_2D filters and three DEPTHWISE_CONV_2D ones, packed as int16
    assert it.host_memory_bytes > 2 * (32 * 10 * 4 + 3 * 32 * 32 + 3 * 9 * 32)


@pytest.mark.skipif(not FAST_SETS, reason="this CPU has no fast kernel set")
@pytest.mark.parametrize("kernels", FAST_SETS)
def test_lstms_hold_packed_gate_weights_in_host_memory(kernels):
    """The LSTM fast path packs the gates' weights, float32 and 16x8 on every set (float32 for
    an unfused target: SSE4.1 has no FMA to fuse tflm's products with)."""
    it = picolite.Interpreter(model_path=str(ZOO / "net_lstm_float32.tflite"), kernels=kernels,
                              target="picolite")
    it.allocate_tensors()
    # the 4 x 12 x (8 + 12) float gate weights alone, beyond the dense layer's and the table's
    assert it.host_memory_bytes > 4 * 12 * 20 * 4 + 4096
    for path in sorted((ZOO / "lstm16x8").glob("*.tflite")):  # nothing but the LSTM
        it = picolite.Interpreter(model_path=str(path), kernels=kernels, target="picolite")
        it.allocate_tensors()
        assert it.host_memory_bytes > 0, path.name


FLOAT_MODELS = [p for p in MODELS if "float" in p.name or "hybrid" in p.as_posix()]


@pytest.mark.skipif(not FAST_SETS, reason="this CPU has no fast kernel set")
@pytest.mark.parametrize("path", FLOAT_MODELS, ids=model_id)
def test_fast_kernels_equal_portable_on_a_fused_target(path):
    """The `tflm` target multiplies and adds floats fused, as the Cortex-M's VFMA: every
    fast set gives the portable kernels' outputs there too, taking its fused rows or leaving
    a node to the portable kernel (SSE4.1 has none; a hybrid depthwise node had called them
    anyway, a crash)."""
    try:
        details = picolite.Interpreter(model_path=str(path)).get_input_details()
        inputs = random_inputs(details, seed=5)
    except (picolite.Error, ValueError, RuntimeError):
        inputs = []
    want = run(path, "portable", inputs, "tflm")
    for kernels in FAST_SETS:
        got = run(path, kernels, inputs, "tflm")
        if isinstance(want, str):
            assert got == want
            continue
        assert not isinstance(got, str), got
        for a, b in zip(want[0], got[0]):
            assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), kernels


@pytest.mark.skipif(not FAST_SETS, reason="this CPU has no fast kernel set")
@pytest.mark.parametrize("path", MODELS, ids=model_id)
def test_fast_kernels_equal_portable_kernels_and_arena(path):
    try:
        details = picolite.Interpreter(model_path=str(path)).get_input_details()
        inputs = random_inputs(details, seed=3)
    except (picolite.Error, ValueError, RuntimeError):
        inputs = []
    # each arithmetic the fast paths reproduce: TFLM 90b983c's, the wheel's, LiteRT's
    for target in ("picolite", "tflm-x86-64", "litert"):
        want = run(path, "portable", inputs, target)
        for kernels in FAST_SETS:
            got = run(path, kernels, inputs, target)
            if isinstance(want, str):
                assert got == want
                continue
            assert not isinstance(got, str), got
            for a, b in zip(want[0], got[0]):
                assert a.dtype == b.dtype and a.shape == b.shape
                assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), (kernels, target)
            assert got[1] == want[1], "the arena figures must be the portable build's"
