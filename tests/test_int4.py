"""int4 filters (FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D with int8 activations).

TFLM's reference and CMSIS-NN kernels, and LiteRT's, take int4 weights packed two a byte,
the first in the low nibble. Checked here: on every target an int4 model gives the bytes of
its twin with the same weights stored as int8 (tests/int4_models.py), whatever the kernels
(the host fast paths leave packed filters to the portable kernels), except where CMSIS-NN's
int4 depthwise kernels read other nibbles (csrc/kernels/conv/depthwise_s4_cmsis.h); the
firmware goldens give the bytes, arena_used_bytes and (where bisected) smallest arena of
the TFLM targets, or their refusal (TFLM takes per-channel FULLY_CONNECTED weights as int8
only): tests/goldens/tflm/m4-int4-random.json (TFLM's reference and CMSIS-NN builds on a
Cortex-M4F, nine models also on CMSIS-NN for the M55 and M3) and
m4-int4-depthwise-random.json (CMSIS-NN's depthwise walks on the M4F, M3 and M55); LiteRT's
reference kernels, live, the bytes of target "litert"; and a truncated or non-constant int4
filter is refused.
"""

import hashlib
import json

import numpy as np
import pytest

import picolite
from conftest import ROOT, require

require("tflite_micro")  # the schema the model builder writes with
from int4_models import DEPTHWISE_CASES, KINDS, depthwise, make, pack_int4  # noqa: E402
from tflm_models import Model  # noqa: E402

GOLDENS = ROOT / "tests" / "goldens" / "tflm" / "m4-int4-random.json"
# depthwise(seed)'s models on the three CMSIS-NN firmwares and the reference one, by walk
DEPTHWISE_GOLDENS = ROOT / "tests" / "goldens" / "tflm" / "m4-int4-depthwise-random.json"
TARGETS = ("tflm", "tflm-x86-64", "litert", "picolite", "tflm-cmsis-nn", "tflm-cmsis-nn-mve",
           "tflm-cmsis-nn-nodsp")
CASES = [(kind, seed) for kind in KINDS for seed in range(6)]


def run(model, target, x, kernels="auto"):
    it = picolite.Interpreter(model_content=model, target=target, kernels=kernels)
    it.allocate_tensors()
    it.set_input(x.reshape(it.get_input_details()[0]["shape"]), 0)
    it.invoke()
    return it.get_output(0).copy()


def test_packing_is_low_nibble_first():
    assert pack_int4([1, 2, -1, -8, 7]).view(np.uint8).tolist() == [0x21, 0x8F, 0x07]


@pytest.mark.parametrize("kind, seed", CASES)
def test_int4_gives_its_int8_twins_bytes(kind, seed):
    packed, unpacked = make(kind, seed, True), make(kind, seed, False)
    probe = picolite.Interpreter(model_content=unpacked, target="tflm")
    probe.allocate_tensors()
    shape = probe.get_input_details()[0]["shape"]
    mult = probe.get_output_details()[0]["shape"][-1] // shape[-1]
    x = np.random.default_rng(seed).integers(-128, 128, shape).astype(np.int8)
    for target in TARGETS:
        if reads_other_nibbles(target, kind, shape[-1], mult):
            continue  # the firmware's own weights (test_int4_equals_the_firmware)
        want = run(unpacked, target, x, "portable")
        for kernels in ("portable", "auto"):
            np.testing.assert_array_equal(run(packed, target, x, kernels), want,
                                          err_msg=f"{target}, {kernels}")


def reads_other_nibbles(target, kind, depth, mult):
    """Where CMSIS-NN's int4 depthwise kernels multiply other weights than the int8 twin's
    (csrc/kernels/conv/depthwise_s4_cmsis.h), for make()'s one-batch, undilated models:
    arm_depthwise_conv_s4 (multiplier above 1) with an odd input depth on every core, and
    arm_depthwise_conv_s4_opt (multiplier 1) on Helium."""
    if kind != "depthwise" or "cmsis" not in target:
        return False
    return mult > 1 and depth % 2 == 1 or mult == 1 and target.endswith("mve")


def goldens():
    """{name: golden} of both files; a depthwise(seed) model is named walk-<case>-s<seed>."""
    found = {}
    for path in (GOLDENS, DEPTHWISE_GOLDENS):
        found.update(json.loads(path.read_text())["models"] if path.is_file() else {})
    return found


def golden_model(name):
    kind, seed = name.rsplit("-s", 1)
    return depthwise(int(seed)) if kind.startswith("walk-") else make(kind, int(seed), True)


RUNS = (("tflm", "reference"), ("tflm-cmsis-nn", "cmsis-nn"),
        ("tflm-cmsis-nn-mve", "m55-cmsis-nn"), ("tflm-cmsis-nn-nodsp", "m3-cmsis-nn"))


@pytest.mark.parametrize("name", sorted(goldens()))
def test_int4_equals_the_firmware(name):
    g = goldens()[name]
    model = golden_model(name)
    assert hashlib.sha256(model).hexdigest() == g["sha256"], "the model builder changed"
    x = np.frombuffer(bytes.fromhex(g["input_hex"]), np.int8)
    for target, key in RUNS:
        run_ = g.get(key)
        if run_ is None:
            continue
        if run_ == {"allocate": "error"}:  # the firmware's AllocateTensors failed
            with pytest.raises(picolite.UnsupportedOpError, match="TFLM firmware cannot"):
                picolite.required_arena_size(model, target=target)
            continue
        it = picolite.Interpreter(model_content=model, target=target)
        if "min_arena_bytes" in run_:  # the depthwise goldens have the used bytes only
            assert picolite.required_arena_size(model, target=target) == \
                run_["min_arena_bytes"], target
        it.allocate_tensors()
        for want in run_["outputs_hex"]:  # one per invoke, the same input before each
            it.set_input(x.reshape(it.get_input_details()[0]["shape"]), 0)
            it.invoke()
            assert it.get_output(0).tobytes().hex() == want, target
        assert it.arena_used_bytes() == run_["arena_used_bytes"], target


def test_goldens_cover_every_kind():
    names = goldens()
    if not names:
        pytest.skip(f"{GOLDENS} is absent")
    assert {n.rsplit("-s", 1)[0] for n in names} == set(KINDS) | (
        {f"walk-{c}" for c in DEPTHWISE_CASES} if DEPTHWISE_GOLDENS.is_file() else set())


@pytest.mark.parametrize("kind, seed", CASES[::2])
def test_int4_equals_litert_reference_kernels(kind, seed, litert):
    model = make(kind, seed, True)
    theirs = litert.Interpreter(model_content=model, experimental_op_resolver_type=(
        litert.OpResolverType.BUILTIN_REF))
    theirs.allocate_tensors()
    d = theirs.get_input_details()[0]
    x = np.random.default_rng(seed).integers(-128, 128, d["shape"]).astype(np.int8)
    theirs.set_tensor(d["index"], x)
    theirs.invoke()
    want = theirs.get_tensor(theirs.get_output_details()[0]["index"])
    np.testing.assert_array_equal(run(model, "litert", x), want)


def fc_model(filter_bytes, constant=True):
    m = Model()
    S = m.S
    m.types["int4"] = S.TensorType.INT4
    x = m.tensor([1, 5], "int8", (0.05, 0))
    q = (np.array([0.1]), np.array([0]))
    f = m.tensor([3, 5], "int4", q, filter_bytes if constant else None)
    y = m.tensor([1, 3], "int8", (0.1, 0))
    m.op("FULLY_CONNECTED", [x, f, -1], [y], S.FullyConnectedOptionsT())
    m.io([x, f] if not constant else [x], [y])
    return m.bytes()


def test_a_truncated_int4_buffer_is_refused():
    ok = pack_int4(np.zeros(15, np.int8))  # 8 bytes for 15 values
    picolite.Interpreter(model_content=fc_model(ok)).allocate_tensors()
    with pytest.raises(picolite.ModelError, match="INT4 shape needs 8"):
        picolite.Interpreter(model_content=fc_model(ok[:7]))


def test_a_non_constant_int4_filter_is_refused():
    it = picolite.Interpreter(model_content=fc_model(None, constant=False))
    with pytest.raises(picolite.UnsupportedOpError, match="int4 filter must be a constant"):
        it.allocate_tensors()
