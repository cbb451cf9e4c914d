"""The CMSIS-NN targets reproduce TFLM + CMSIS-NN firmware's bytes, operator by operator.

tests/goldens/tflm/m4-cmsis-nn/ops/ holds, for each random model of tests/models/cmsis_nn/
(made by tests/cmsis_nn_models.py: a few independent instances of one operator, shapes
chosen to reach each algorithm CMSIS-NN picks), the outputs of two real firmwares on an
emulated Cortex-M4F: TFLM with its reference kernels ("reference") and TFLM with CMSIS-NN
("cmsis-nn"), both given the same inputs before each of two invokes. target="tflm" must give
the reference firmware's bytes and target="tflm-cmsis-nn" the CMSIS-NN firmware's. Where the
two firmwares differ is listed in the README ("Where CMSIS-NN's bytes differ from TFLM's
reference kernels").

The property tests below check what the goldens cannot show alone: the LSTM's state
handling over many invokes, the int8 TRANSPOSE's permutations on every target (Helium's
included, which no firmware here checks), and that the Helium and no-DSP targets agree with
the DSP one where CMSIS-NN's code says they must.
"""

import hashlib
import json

import numpy as np
import pytest

import picolite
from conftest import ROOT

GOLDENS = ROOT / "tests" / "goldens" / "tflm" / "m4-cmsis-nn" / "ops"
MODELS = ROOT / "tests" / "models" / "cmsis_nn"
CMSIS_TARGETS = ("tflm-cmsis-nn", "tflm-cmsis-nn-mve", "tflm-cmsis-nn-nodsp")
# models where -mve computes otherwise: the int8 TRANSPOSE, the int8-state SVDF, and 1xN
# convolutions with a VALID window one column short of the input's end (conv_1xn_mve.h)
HELIUM_DIFFERS = ("transpose-int8", "svdf-int8_s8", "conv-1xn-s0", "conv-1xn-s1")


def goldens():
    return sorted(GOLDENS.glob("*.json"))


def run(golden, target, kernels):
    """Compare each invoke's outputs of `target` with the firmware run `kernels`: the same
    bytes, or the same refusal where the firmware's AllocateTensors failed. Outputs the
    golden names undefined (the firmware wrote past a buffer) are not compared."""
    model = ROOT / golden["model"]
    data = model.read_bytes()
    assert hashlib.sha256(data).hexdigest() == golden["sha256"], "the model file changed"
    it = picolite.Interpreter(model_content=data, target=target)
    if golden[kernels] == {"allocate": "error"}:
        with pytest.raises(picolite.Error):
            it.allocate_tensors()
        return
    it.allocate_tensors()
    undefined = golden.get("cmsis_nn_undefined_outputs", {}) if kernels == "cmsis-nn" else {}
    details = it.get_input_details()
    assert len(details) == len(golden["inputs"])
    for k, invoke in enumerate(golden[kernels]):
        assert invoke["status"] == "ok"
        for i, (d, item) in enumerate(zip(details, golden["inputs"])):
            hexes = golden.get("invoke_inputs", [golden.get("inputs_hex")] * (k + 1))[k]
            x = np.frombuffer(bytes.fromhex(hexes[i]), dtype=item["dtype"])
            it.set_input(x.reshape(d["shape"]), i)
        it.invoke()
        for o, item in enumerate(invoke["outputs"]):
            if str(o) in undefined:
                continue
            got = it.get_output(o).ravel()
            want = np.frombuffer(bytes.fromhex(item["hex"]), dtype=got.dtype)
            assert got.tobytes() == want.tobytes(), (
                f"{target}, invoke {k}, output {o}: {np.count_nonzero(got != want)} of "
                f"{got.size} elements differ from the {kernels} firmware")


def test_the_goldens_are_committed():
    files = goldens()
    assert len(files) >= 60
    cases = {json.loads(p.read_text())["case"] for p in files}
    assert {"conv", "depthwise", "fully_connected", "pool", "softmax", "binary", "lstm",
            "svdf", "batch_matmul", "transpose_conv", "pad", "transpose"} <= cases


@pytest.mark.parametrize("path", goldens(), ids=lambda p: p.stem)
def test_tflm_gives_the_reference_firmware_bytes(path):
    run(json.loads(path.read_text()), "tflm", "reference")


@pytest.mark.parametrize("path", goldens(), ids=lambda p: p.stem)
def test_tflm_cmsis_nn_gives_the_cmsis_nn_firmware_bytes(path):
    run(json.loads(path.read_text()), "tflm-cmsis-nn", "cmsis-nn")


M3 = GOLDENS.parent / "m3-nodsp.json"


def m3_models():
    return sorted(json.loads(M3.read_text())["models"].items())


@pytest.mark.parametrize("name, entry", m3_models(), ids=[n for n, _ in m3_models()])
def test_tflm_cmsis_nn_nodsp_gives_the_m3_firmware_bytes(name, entry):
    """The same models on TFLM + CMSIS-NN built for a Cortex-M3 (no DSP extension):
    m3-nodsp.json records where its outputs equal the M4 firmware's (all of them so far)
    and its own bytes where not."""
    golden = json.loads((GOLDENS / f"{name}.json").read_text())
    assert golden["sha256"] == entry["sha256"]
    if not entry["same_as_m4"]:
        golden["cmsis-nn"] = entry["cmsis-nn"]
    run(golden, "tflm-cmsis-nn-nodsp", "cmsis-nn")


M55 = GOLDENS.parent / "m55-mve.json"


def m55_models():
    return sorted(json.loads(M55.read_text())["models"].items()) if M55.is_file() else []


def m55_params():
    return [pytest.param(n, e, id=n) for n, e in m55_models()]


@pytest.mark.parametrize("name, entry", m55_params())
def test_tflm_cmsis_nn_mve_gives_the_m55_firmware_bytes(name, entry):
    """The same models on TFLM + CMSIS-NN built for a Cortex-M55 (Helium): m55-mve.json
    records where its outputs equal the M4 firmware's and its own bytes where not (the
    int8 SVDF with an int8 state and the 4-D int8 TRANSPOSE, as the source says)."""
    golden = json.loads((GOLDENS / f"{name}.json").read_text())
    assert golden["sha256"] == entry["sha256"]
    if not entry["same_as_m4"]:
        golden["cmsis-nn"] = entry["cmsis-nn"]
    run(golden, "tflm-cmsis-nn-mve", "cmsis-nn")


def lstm_models():
    return sorted(MODELS.glob("lstm-*.tflite"))


def gaussian_inputs(it, rng, sigma):
    out = []
    for d in it.get_input_details():
        info = np.iinfo(d["dtype"])
        x = np.clip(np.round(rng.normal(0, sigma * info.max, d["shape"])), info.min, info.max)
        out.append(x.astype(d["dtype"]))
    return out


def invoke(it, inputs):
    for i, x in enumerate(inputs):
        it.set_input(x, i)
    it.invoke()
    return [it.get_output(o).copy() for o in range(len(it.get_output_details()))]


@pytest.mark.parametrize("path", lstm_models(), ids=lambda p: p.stem)
def test_cmsis_nn_lstm_starts_every_invoke_from_zero_state(path):
    """CMSIS-NN's LSTM keeps its cell state in scratch and is given no hidden state: an
    invoke's outputs depend on that invoke's inputs alone (TFLM's carry the state over),
    and its first time step is TFLM's first step from a reset state."""
    rng = np.random.default_rng(7)
    for target in CMSIS_TARGETS:
        ours = picolite.Interpreter(model_path=str(path), target=target)
        ours.allocate_tensors()
        xs = [gaussian_inputs(ours, rng, s) for s in (0.05, 0.3, 1.0, 0.3)]
        first = [invoke(ours, x) for x in xs]
        again = [invoke(ours, x) for x in reversed(xs)][::-1]
        for a, b in zip(first, again):
            assert all(np.array_equal(u, v) for u, v in zip(a, b)), target
        tflm = picolite.Interpreter(model_path=str(path), target="tflm")
        tflm.allocate_tensors()
        carried = [invoke(tflm, x) for x in xs]
        reset = picolite.Interpreter(model_path=str(path), target="tflm")
        reset.allocate_tensors()
        fresh = invoke(reset, xs[-1])
        assert any(not np.array_equal(u, v) for u, v in zip(carried[-1], first[-1])), \
            "TFLM's carried state should show in its last invoke"
        if "wide" not in path.stem:  # there the gates' products leave int16
            assert all(np.array_equal(u, v) for u, v in zip(fresh, first[-1])), \
                "from zero state the two differ only where a gate's product leaves int16"


def outputs_of(path, target, kernels, xs):
    """Each input set's outputs, or the error's type when the target refuses the model."""
    it = picolite.Interpreter(model_path=str(path), target=target, kernels=kernels)
    try:
        it.allocate_tensors()
    except picolite.Error as e:
        return type(e).__name__
    return [invoke(it, x) for x in xs]


def same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return all(np.array_equal(u, v) for x, y in zip(a, b) for u, v in zip(x, y))


def test_cmsis_nn_targets_agree_where_their_code_does():
    """The DSP, Helium and plain builds compute the same bytes on every committed model
    (the 16x8 LSTM's Helium sum truncates only a bias beyond int32, which none has), but
    for Helium's int8 TRANSPOSE (test below) and int8-state SVDF (its feature sum's extra
    zero-point term); the host fast paths decline or reproduce each (kernels="auto"
    against "portable")."""
    rng = np.random.default_rng(11)
    for path in sorted(MODELS.glob("*.tflite")):
        probe = picolite.Interpreter(model_path=str(path), target="tflm")
        probe.allocate_tensors()
        xs = [gaussian_inputs(probe, rng, s) for s in (0.1, 1.0)]
        want = outputs_of(path, "tflm-cmsis-nn", "portable", xs)
        for target in CMSIS_TARGETS:
            if target.endswith("-mve") and path.stem.startswith(HELIUM_DIFFERS):
                continue
            for kernels in ("portable", "auto"):
                assert same(outputs_of(path, target, kernels, xs), want), (path.stem, target,
                                                                          kernels)


def cmsis_perm(perm, mve):
    """The permutation arm_transpose_s8 carries out (README: "Where CMSIS-NN's bytes
    differ"): any 2-D one is the 2-D transpose; Helium swaps the last two axes of a 4-D
    one that keeps the first two."""
    perm = list(perm)
    if len(perm) == 2:
        return [1, 0]
    if mve and len(perm) == 4 and perm[:2] == [0, 1]:
        return [0, 1, 3, 2]
    return perm


@pytest.mark.parametrize("target", ("tflm",) + CMSIS_TARGETS)
def test_int8_transpose_moves_what_each_firmware_moves(target):
    """Every TRANSPOSE of the committed int8 models, on random data: TFLM's reference
    permutes by perm, CMSIS-NN by cmsis_perm (the output keeps perm's shape)."""
    rng = np.random.default_rng(5)
    for path in sorted(MODELS.glob("transpose-int8-*.tflite")):
        it = picolite.Interpreter(model_path=str(path), target=target)
        it.allocate_tensors()
        data = {}
        for op in it._get_ops_details():
            x = op["inputs"][0]
            data[x] = rng.integers(-128, 128, it.get_tensor(x).shape).astype(np.int8)
            it.set_tensor(x, data[x])
        it.invoke()  # (the inputs' memory may be reused: compare with the arrays written)
        for op in it._get_ops_details():
            x, perm = op["inputs"]
            p = it.get_tensor(perm).tolist()
            moved = p if target == "tflm" else cmsis_perm(p, target.endswith("-mve"))
            want = np.transpose(data[x], moved).ravel()
            assert np.array_equal(it.get_tensor(op["outputs"][0]).ravel(), want), (path, p)
