"""export-c --target tflm: a TFLM firmware's sources with exactly the model's operators and
the arena the Cortex-M4 firmware needs (tests/goldens/tflm: real TFLM's bisected minimum)."""

import json
import re

import pytest

import picolite
from conftest import ROOT, SHARED_MODELS, ZOO
from picolite.__main__ import main
from picolite.export_tflm import export_tflm

GOLDENS = ROOT / "tests" / "goldens" / "tflm" / "m4-reference"
CASES = {  # model -> the MicroMutableOpResolver methods it needs, in first-use order
    "mlperf_tiny/ad01_int8.tflite": ["AddFullyConnected"],
    "mlperf_tiny/kws_ref_model.tflite": ["AddConv2D", "AddDepthwiseConv2D",
                                         "AddAveragePool2D", "AddReshape",
                                         "AddFullyConnected", "AddSoftmax"],
}


def golden_minimum(model):
    name = "zoo__" + model.relative_to(ZOO).with_suffix("").as_posix().replace("/", "__")
    path = GOLDENS / f"{name}.json"
    return json.loads(path.read_text())["min_arena_bytes"] if path.exists() else None


@pytest.mark.parametrize("rel", sorted(CASES))
def test_registers_exactly_the_models_operators(rel, tmp_path):
    cc, h = export_tflm(ZOO / rel, tmp_path, "m", "tflm")
    calls = re.findall(r"resolver\.(Add\w+)\(\)", cc.read_text())
    assert calls == CASES[rel]
    assert f"MicroMutableOpResolver<{len(calls)}>" in h.read_text()
    assert "alignas(16) const unsigned char kModel[]" in cc.read_text()
    assert f"kModelSize = {(ZOO / rel).stat().st_size};" in cc.read_text()


@pytest.mark.parametrize("rel", sorted(CASES))
def test_the_arena_constant_is_the_firmwares_minimum(rel, tmp_path):
    model = ZOO / rel
    _, h = export_tflm(model, tmp_path, "m", "tflm")
    size = int(re.search(r"kTensorArenaSize = (\d+);", h.read_text()).group(1))
    it = picolite.Interpreter(str(model))
    it.allocate_tensors()
    assert size == picolite._picolite.tflm_arena(it._c, "tflm")["min_arena_bytes"]
    want = golden_minimum(model)
    if want is None:
        pytest.skip(f"no Cortex-M4 golden for {rel} yet")
    assert size == want


def test_custom_operators_tflm_ships_use_their_own_methods(tmp_path, shared_models):
    model = SHARED_MODELS / "examples/micro_speech/audio_preprocessor_int8.tflite"
    cc, _ = export_tflm(model, tmp_path, "audio", "tflm")
    calls = re.findall(r"resolver\.(Add\w+)\(", cc.read_text())
    assert {"AddWindow", "AddRfft", "AddFilterBankLog", "AddPCAN"} <= set(calls)
    assert "AddCustom" not in calls


def test_cli_writes_cc_and_h(tmp_path, capsys):
    model = ZOO / "mlperf_tiny/ad01_int8.tflite"
    assert main(["export-c", str(model), "--target", "tflm", "--out-dir", str(tmp_path),
                 "--name", "ad"]) == 0
    assert (tmp_path / "ad.cc").exists() and (tmp_path / "ad.h").exists()
    assert "namespace ad {" in (tmp_path / "ad.h").read_text()


def test_a_target_without_a_tflm_firmware_is_refused(tmp_path):
    with pytest.raises(ValueError, match="needs a TFLM target"):
        export_tflm(ZOO / "mlperf_tiny/ad01_int8.tflite", tmp_path, "m", "litert")
