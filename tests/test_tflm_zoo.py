"""TFLM side by side on the model zoo: same outputs, and picolite's arena never larger.

Runs tflite-micro's own Python interpreter (``pip install tflite-micro``) on every model of
tests/models/ with the same inputs as picolite (target="tflm-x86-64"). Where MANIFEST.json
records TFLM agreeing with LiteRT's reference kernels, picolite must equal TFLM exactly
(tests/test_tflm_target.py holds every model to the wheel's bytes). The arena total that
TFLM's RecordingMicroAllocator prints is compared with picolite's.
"""

import re

import numpy as np
import pytest

import picolite
from conftest import ZOO, in_ci, zoo_manifest
from picolite.testing import random_inputs


MODELS = [e for e in zoo_manifest() if e.get("tflm", {}).get("status") != "error"]


@pytest.fixture(scope="module")
def tflm_runtime():
    try:
        from tflite_micro.python.tflite_micro import runtime
    except ImportError:
        if in_ci():
            pytest.fail("tflite-micro is not installed (pip install '.[test]')")
        pytest.skip("tflite-micro is not installed (pip install tflite-micro)")
    return runtime


def tflm_total(text):
    m = re.search(r"\[RecordingMicroAllocator\] Arena allocation total (\d+) bytes", text)
    return int(m.group(1)) if m else None


@pytest.mark.parametrize("entry", MODELS, ids=lambda e: e["file"].rsplit("/", 1)[-1])
def test_tflm_side_by_side(entry, tflm_runtime, capfd):
    path = ZOO / entry["file"]
    ours = picolite.Interpreter(model_path=str(path), target="tflm-x86-64")
    try:
        ours.allocate_tensors()
    except picolite.UnsupportedOpError as e:
        pytest.skip(f"picolite refuses this model on purpose: {e}")
    theirs = tflm_runtime.Interpreter.from_file(str(path), arena_size=4 << 20)
    for i, x in enumerate(random_inputs(ours.get_input_details(), seed=5)):
        ours.set_input(x, i)
        theirs.set_input(x, i)
    ours.invoke()
    theirs.invoke()
    if entry["tflm"]["status"] == "exact":
        for o in range(len(ours.get_output_details())):
            mine, tflm = ours.get_output(o), theirs.get_output(o)
            if np.issubdtype(mine.dtype, np.floating):
                np.testing.assert_allclose(mine, tflm, rtol=1e-5, atol=1e-6)
            else:
                assert mine.tobytes() == tflm.tobytes(), f"output {o} differs from TFLM"
    capfd.readouterr()
    theirs.print_allocations()
    total = tflm_total("".join(capfd.readouterr()))
    assert total is not None, "TFLM printed no allocation report"
    assert ours.allocations().total <= total
