"""The pytest plugin in a fresh project that only installed picolite: pytest finds it by its
pytest11 entry point, records goldens, passes against them, and names the sample, output,
metric and first diverging layer when the model changes."""

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import ZOO, in_ci

MODEL = ZOO / "net_ds_cnn_kws_int8.tflite"

TEST_FILE = '''
import numpy as np

SAMPLES = np.random.default_rng(0).integers(-128, 128, (3, 49, 10, 1)).astype(np.int8)


def test_kws_golden(picolite_golden):
    picolite_golden.check("model.tflite", SAMPLES)


def test_kws_tolerant(picolite_golden):
    picolite_golden.check("model.tflite", SAMPLES, name="tol",
                          tolerances={"cos": 0.99, "rmse": 5.0}, arena="ignore")


def test_interpreter(picolite_interpreter, picolite_target):
    it = picolite_interpreter("model.tflite")
    assert it.arena_used_bytes() > 0 and picolite_target == "tflm"
'''


def _entry_point():
    eps = importlib.metadata.entry_points()
    group = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
    return [e for e in group if e.value == "picolite.pytest_plugin"]


@pytest.fixture
def project(tmp_path):
    if not _entry_point():
        message = "picolite is not installed with its pytest11 entry point (pip install .)"
        if in_ci():
            pytest.fail(message)
        pytest.skip(message)
    shutil.copy(MODEL, tmp_path / "model.tflite")
    (tmp_path / "test_model.py").write_text(textwrap.dedent(TEST_FILE))
    return tmp_path


def _pytest(folder, *args):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the installed package
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-rN", *args], cwd=folder, capture_output=True, text=True,
                          timeout=600, env=env)


def _broken_scale(content: bytes, node: int) -> bytes:
    import picolite

    it = picolite.Interpreter(model_content=content)
    w = it.get_tensor_details()[int(it._get_ops_details()[node]["inputs"][1])]
    scales = np.asarray(w["quantization_parameters"]["scales"], np.float32)
    return content.replace(scales.tobytes(), (scales * 4).astype(np.float32).tobytes())


def test_plugin_in_a_fresh_project(project):
    r = _pytest(project)  # no goldens yet: a failure that says how to record them
    assert r.returncode == 1 and "--picolite-update-goldens" in r.stdout, r.stdout[-3000:]
    r = _pytest(project, "--picolite-update-goldens")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    goldens = project / "test_model.goldens"
    assert (goldens / "test_kws_golden.npz").is_file()
    meta = json.loads((goldens / "test_kws_golden.json").read_text())
    assert meta["target"] == "tflm" and meta["arena"]["required"] > 0
    assert len(meta["fingerprints"]) == 3 and len(meta["layers"]) == 10
    r = _pytest(project)
    assert r.returncode == 0 and "3 passed" in r.stdout, r.stdout[-3000:]
    r = _pytest(project, "--help")
    assert "--picolite-target" in r.stdout and "--picolite-update-goldens" in r.stdout

    # a conv layer's scale broken: outputs and layers from node 4 on differ
    (project / "model.tflite").write_bytes(_broken_scale(MODEL.read_bytes(), 4))
    r = _pytest(project)
    out = r.stdout
    assert r.returncode == 1, out[-3000:]
    assert "sample 0, output 0 (StatefulPartitionedCall:0): max_abs" in out, out[-3000:]
    assert "first diverging layer: node 4 CONV_2D" in out, out[-3000:]
    summary = out.split("short test summary")[-1]
    assert "1 failed, 2 passed" in out, out[-3000:]  # the tolerant check stays within
    assert "test_kws_tolerant" not in summary and "test_interpreter" not in summary


def test_target_option(project):
    r = _pytest(project, "--picolite-update-goldens", "--picolite-target", "picolite",
                "-k", "golden")
    assert r.returncode == 0, r.stdout[-3000:]
    meta = json.loads((project / "test_model.goldens" / "test_kws_golden.json").read_text())
    assert meta["target"] == "picolite"
