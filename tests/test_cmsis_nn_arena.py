"""The CMSIS-NN targets' arena equals TFLM + CMSIS-NN firmware's, to the byte.

The goldens are the oracle's runs (../shared/tflm-oracle: TFLM 90b983c with its cmsis_nn
kernels over CMSIS-NN 4ab83cc, arm-none-eabi-gcc, release build, on QEMU): for each CPU
directory tests/goldens/tflm/<cpu>-cmsis-nn/ (one JSON per model of ../shared and the zoo)
and <cpu>-cmsis-nn-random.json (tests/cmsis_models.py's random models, by generator and
seed, over the shapes that steer CMSIS-NN's algorithms and scratch sizes). The CPU names the
target: m4 (DSP extension) is "tflm-cmsis-nn", m3 (none) "tflm-cmsis-nn-nodsp", m55
(Helium) "tflm-cmsis-nn-mve". Each target must give the firmware's arena_used_bytes, the
exact minimum arena (one byte less fails) and the minimum in 16-byte steps.
"""

import hashlib
import json

import numpy as np
import pytest

import cmsis_models
import picolite
from conftest import ROOT
from picolite import targets
from test_tflm_arena_target import golden_model

GOLDENS = ROOT / "tests" / "goldens" / "tflm"
TARGET_OF_CPU = {"m4": "tflm-cmsis-nn", "m3": "tflm-cmsis-nn-nodsp", "m55": "tflm-cmsis-nn-mve"}
FIGURES = ("arena_used_bytes", "min_arena_bytes", "min_arena_bytes_16")


def model_goldens():
    found = []
    for cpu in TARGET_OF_CPU:
        folder = GOLDENS / f"{cpu}-cmsis-nn"
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            golden = json.loads(path.read_text())  # refused.json is a list
            if isinstance(golden, dict) and golden.get("arena_used_bytes") is not None:
                found.append((cpu, path))
    return found


@pytest.mark.parametrize("cpu,path", model_goldens(), ids=lambda v: getattr(v, "stem", v))
def test_cmsis_nn_target_equals_the_firmware(cpu, path):
    golden = json.loads(path.read_text())
    model = golden_model(golden["model"])
    if not model.exists():
        pytest.skip(f"{model} is absent")
    target = TARGET_OF_CPU[cpu]
    it = picolite.Interpreter(model_path=str(model), target=target)
    it.allocate_tensors()
    fig = targets.figures(it._c, target, golden.get("arena_size") or 0)
    for key in FIGURES:
        if golden.get(key) is not None:
            assert fig[key] == golden[key], key


def random_goldens():
    found = []
    for cpu in TARGET_OF_CPU:
        path = GOLDENS / f"{cpu}-cmsis-nn-random.json"
        if path.is_file():
            found += [(cpu, g) for g in json.loads(path.read_text())["models"]]
    return found


@pytest.mark.parametrize("cpu,golden", random_goldens(),
                         ids=lambda v: v if isinstance(v, str) else
                         f"{v['generator']}_{v['seed']}")
def test_cmsis_nn_target_equals_the_firmware_on_random_shapes(cpu, golden):
    make = {g.__name__: g for g in cmsis_models.GENERATORS}[golden["generator"]]
    data = make(np.random.default_rng(golden["seed"]))
    if hashlib.sha256(data).hexdigest() != golden["model_sha256"]:
        pytest.skip("this numpy draws another model from the seed")
    target = TARGET_OF_CPU[cpu]
    if "fails" in golden:  # the firmware fails at any arena size: refused at allocate or
        with pytest.raises(picolite.UnsupportedOpError):  # by the allocator model
            it = picolite.Interpreter(model_content=data, target=target)
            it.allocate_tensors()
            targets.figures(it._c, target, golden["arena_size"])
        return
    it = picolite.Interpreter(model_content=data, target=target)
    it.allocate_tensors()
    fig = targets.figures(it._c, target, golden["arena_size"])
    for key in FIGURES:
        assert fig[key] == golden[key], key


def test_targets_differ_where_cmsis_nn_asks_for_scratch():
    """ResNet-8 (MLPerf Tiny): CMSIS-NN's im2col buffers make the DSP build need more than
    the reference kernels, and Helium's lane-sized buffers more again."""
    path = ROOT / "tests" / "models" / "mlperf_tiny" / "pretrainedResnet_quant.tflite"
    sizes = picolite.required_arena_sizes(str(path), ["tflm", "tflm-cmsis-nn",
                                                      "tflm-cmsis-nn-nodsp",
                                                      "tflm-cmsis-nn-mve"])
    assert sizes == {"tflm": 54340, "tflm-cmsis-nn": 55000, "tflm-cmsis-nn-nodsp": 54984,
                     "tflm-cmsis-nn-mve": 55032}


def refused_by_the_firmware():
    found = []
    for cpu in TARGET_OF_CPU:
        path = GOLDENS / f"{cpu}-cmsis-nn" / "refused.json"
        if path.is_file():
            found += [(cpu, g) for g in json.loads(path.read_text())]
    return found


@pytest.mark.parametrize("cpu,golden", refused_by_the_firmware(),
                         ids=lambda v: v if isinstance(v, str) else v["name"])
def test_cmsis_nn_target_refuses_what_the_firmware_refused(cpu, golden):
    model = golden_model(golden["model"])
    if not model.exists():
        pytest.skip(f"{model} is absent")
    target = TARGET_OF_CPU[cpu]
    it = picolite.Interpreter(model_path=str(model), target="picolite")
    it.allocate_tensors()
    with pytest.raises(picolite.UnsupportedOpError):
        targets.figures(it._c, target)
