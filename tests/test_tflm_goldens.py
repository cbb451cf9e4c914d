"""The TFLM targets reproduce real TFLM firmware's bytes: the goldens in tests/goldens/tflm/.

Each golden is the JSON ../shared/tflm-oracle/oracle.py prints for one run of a model in
TFLM's own firmware (reference kernels or CMSIS-NN's, on a Cortex-M under QEMU): "model" (a
path), the input bytes ("inputs": hex strings, or objects with "hex", one per model input;
or per invoke in "invokes"[k]["inputs"]) and each invoke's output bytes
("invokes"[k]["outputs"], hex). picolite with the firmware's target ("tflm"; for CMSIS-NN
on the M4, M3 and M55 "tflm-cmsis-nn", "tflm-cmsis-nn-nodsp", "tflm-cmsis-nn-mve") must give
the same bytes for integer outputs, and for float outputs too (the M4F's and M55's fused
multiply-adds included) unless the model runs an operator that calls the firmware's libm
(LIBM_OPS: newlib's expf and tanhf are not correctly rounded; picolite's are, on every
platform): then they must lie within FLOAT_ULPS, or within FLOAT_ABS where a recurrence
carries such a last bit on (the float LSTM's cell state).

Every JSON file under tests/goldens/tflm/ is read at run time; with none the test skips.
"""

import json
import pathlib

import numpy as np
import pytest

import picolite
from conftest import ROOT, SHARED_MODELS, ZOO
from picolite.export import model_kernels

GOLDENS = ROOT / "tests" / "goldens" / "tflm"
FLOAT_ULPS = 2
FLOAT_ABS = 1e-5  # the project's bound where a float target computes otherwise
# Float kernels whose TFLM code calls libm (expf, tanhf, logf, sinf, cosf, powf, atan2f,
# erff, expm1f): a model with one of them in any subgraph keeps the tolerance.
LIBM_OPS = {"LOGISTIC", "TANH", "SOFTMAX", "LOG_SOFTMAX", "EXP", "LOG", "SIN", "COS", "POW",
            "ATAN2", "GELU", "ELU", "UNIDIRECTIONAL_SEQUENCE_LSTM", "DETECTION_POSTPROCESS"}


def golden_files():
    """Every run's golden (refused.json lists the models TFLM would not run; *-random.json
    holds arena figures of generated models, which the arena tests read; m4-cmsis-nn/ops/
    holds pairs of runs, reference and CMSIS-NN, and m4-cmsis-nn/m3-nodsp.json the same
    models on the M3's CMSIS-NN firmware, which test_cmsis_nn_bytes.py reads)."""
    if not GOLDENS.is_dir():
        return []
    pairs = GOLDENS / "m4-cmsis-nn" / "ops"
    skip = ("refused.json", "m3-nodsp.json", "m55-mve.json")
    return sorted(p for p in GOLDENS.rglob("*.json")
                  if p.name not in skip and not p.name.endswith("-random.json")
                  and p.parent != pairs)


def model_path(name):
    """The golden's model: "zoo:<path under tests/models>", "shared:<path under
    ../shared/models/tflm>", or a path as written, relative to the repository or a bare
    file name found once in the zoo or ../shared."""
    prefix, _, rest = name.partition(":")
    if prefix == "zoo" and rest:
        return (ZOO / rest).resolve()
    if prefix == "shared" and rest:
        return SHARED_MODELS / rest
    p = pathlib.Path(name)
    for base in (None, ROOT, ZOO, SHARED_MODELS, ROOT.parent):
        q = p if base is None else base / p
        if q.is_file():
            return q
    for base in (ZOO, SHARED_MODELS):  # a bare file name
        hits = sorted(base.rglob(p.name)) if base.is_dir() else []
        if len(hits) == 1:
            return hits[0]
    return None


def target_of(golden):
    """The target that models the golden's firmware (its kernel set and CPU)."""
    if golden.get("kernels", "reference") == "reference":
        return "tflm"
    return {"m3": "tflm-cmsis-nn-nodsp", "m55": "tflm-cmsis-nn-mve"}.get(golden.get("cpu"),
                                                                        "tflm-cmsis-nn")


def hex_of(item):
    return item["hex"] if isinstance(item, dict) else item


def inputs_of(golden, k, details):
    """The arrays written before invoke k, or None when the firmware wrote none then."""
    invoke = golden["invokes"][k]
    items = invoke.get("inputs", golden.get("inputs"))
    if k > 0 and "inputs" not in invoke and "first invoke only" in golden.get("input_source",
                                                                              ""):
        return None
    arrays = []
    for d, item in zip(details, items):
        data = bytes.fromhex(hex_of(item))
        arrays.append(np.frombuffer(data, dtype=d["dtype"]).reshape(d["shape"]))
    return arrays


def ulps(a, b):
    """The largest distance in units in the last place between two float32 arrays."""
    ia = a.astype(np.float32).view(np.int32).astype(np.int64)
    ib = b.astype(np.float32).view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, -(ia & 0x7FFFFFFF), ia)
    ib = np.where(ib < 0, -(ib & 0x7FFFFFFF), ib)
    return int(np.abs(ia - ib).max()) if ia.size else 0


@pytest.mark.parametrize("path", golden_files(), ids=lambda p: p.stem)
def test_tflm_target_reproduces_the_firmware(path):
    golden = json.loads(path.read_text())
    model = model_path(golden["model"])
    if model is None or not model.is_file():
        if golden["model"].startswith("zoo:"):  # the zoo ships with the repository
            pytest.fail(f"{golden['model']}: the zoo model of this golden is missing")
        pytest.skip(f"{golden['model']} is not in this checkout (../shared is absent)")
    if not golden.get("ok", True) or not golden.get("invokes"):
        pytest.skip("the firmware run failed: nothing to reproduce")
    ours = picolite.Interpreter(model_path=str(model), target=target_of(golden))
    ours.allocate_tensors()
    libm = bool(LIBM_OPS & {k[1] for k in model_kernels(model.read_bytes())})
    details = ours.get_input_details()
    for k, invoke in enumerate(golden["invokes"]):
        if invoke.get("status", "ok") != "ok":
            break
        arrays = inputs_of(golden, k, details)
        for i, x in enumerate(arrays or []):
            ours.set_input(x, i)
        ours.invoke()
        for o, item in enumerate(invoke["outputs"]):
            mine = ours.get_output(o)
            want = np.frombuffer(bytes.fromhex(hex_of(item)), dtype=mine.dtype)
            got = mine.ravel()
            if mine.dtype.kind == "f" and not libm:
                assert ulps(got, want) == 0, (
                    f"invoke {k}, output {o}: {ulps(got, want)} ulp from TFLM's firmware "
                    f"(no libm call in this model: the bytes must be equal)")
                continue
            if mine.dtype.kind == "f":
                off = float(np.abs(got.astype(np.float64) - want).max()) if got.size else 0.0
                assert ulps(got, want) <= FLOAT_ULPS or off <= FLOAT_ABS, (
                    f"invoke {k}, output {o}: {ulps(got, want)} ulp ({off:.3g}) from TFLM's "
                    f"firmware")
                continue
            assert got.tobytes() == want.tobytes(), (
                f"invoke {k}, output {o}: {np.count_nonzero(got != want)} of {got.size} "
                f"elements differ from TFLM's firmware")


def test_goldens_are_read_from_the_repository():
    if not golden_files():
        pytest.skip("no TFLM firmware goldens in tests/goldens/tflm yet")
    assert all(p.suffix == ".json" for p in golden_files())
