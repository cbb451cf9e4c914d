"""Shared fixtures: the TFLM models in ../shared and the LiteRT reference.

Tests that use ../shared skip cleanly when it is absent (a user's clone). A test that needs
LiteRT as its reference must never turn green by skipping in CI: with CI set, a missing
reference is a failure.
"""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SHARED_MODELS = SHARED / "models" / "tflm"
ZOO = ROOT / "tests" / "models"


def zoo_manifest():
    """Every zoo model's manifest entry: tests/models/MANIFEST.json, then one MANIFEST.json per
    sub-folder (each made by its own generator), with "file" made relative to tests/models."""
    import json

    entries = []
    for path in [ZOO / "MANIFEST.json", *sorted(ZOO.glob("*/MANIFEST.json"))]:
        if not path.exists():
            continue
        prefix = path.parent.relative_to(ZOO).as_posix()
        for e in json.loads(path.read_text())["models"]:
            e = dict(e)
            if prefix != ".":
                e["file"] = f"{prefix}/{e['file']}"
            entries.append(e)
    return entries


def require(module):
    """The module, or skip locally and fail in CI: every test dependency is in the ".[test]"
    extra, so a missing one in CI is a broken install, never a reason to skip."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        if in_ci():
            pytest.fail(f"{module} is not installed (pip install '.[test]'): {e}")
        pytest.skip(f"{module} is not installed (pip install '.[test]')", allow_module_level=True)


def in_ci():
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def shared_models():
    """The folder of TFLM's models (../shared/models/tflm), or skip."""
    if not SHARED_MODELS.is_dir():
        pytest.skip(f"{SHARED_MODELS} is absent (it exists only beside the project's CI)")
    return SHARED_MODELS


def litert_interpreter_class():
    try:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType  # noqa: F401
    except ImportError:
        return None
    return Interpreter


@pytest.fixture(scope="session")
def litert():
    """LiteRT's Interpreter module; skip locally when missing, fail in CI."""
    if litert_interpreter_class() is None:
        message = "ai-edge-litert is not installed: pip install '.[test]'"
        if in_ci():
            pytest.fail(message + " (CI must compare against LiteRT)")
        pytest.skip(message)
    import ai_edge_litert.interpreter as module

    return module


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    """Starts the background jobs (background.py) the selected tests check, after -k and -m
    have deselected theirs, and moves those tests to the end, where they wait for them."""
    import background

    waiting = [item for item in items if item.get_closest_marker("background")]
    items[:] = [item for item in items if not item.get_closest_marker("background")] + waiting
    if config.option.collectonly:  # nothing will run: start nothing
        return
    for item in waiting:
        background.start(item.get_closest_marker("background").args[0])


def pytest_sessionfinish(session, exitstatus):
    import background

    background.stop_all()
