"""The notebooks in notebooks/ run top to bottom (nbclient) and are committed clean."""

import json
import os

import pytest

from conftest import ROOT, in_ci

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _need(module, extra):
    try:
        return __import__(module)
    except ImportError:
        message = f"{module} is not installed: pip install {extra}"
        if in_ci():
            pytest.fail(message + " (CI must run the notebooks)")
        pytest.skip(message)


def test_there_are_notebooks():
    names = [p.name for p in NOTEBOOKS]
    assert {"01_quickstart.ipynb", "02_memory_planning.ipynb",
            "03_validation_and_profile.ipynb"} <= set(names)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_committed_without_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [] and cell.get("execution_count") is None, (
                f"{path.name}: clear the outputs before committing")


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, litert):
    _need("nbformat", "nbformat")
    _need("nbclient", "nbclient")
    _need("ipykernel", "ipykernel")
    _need("matplotlib", "'.[plot]'")
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(str(path), as_version=4)
    # The kernel is a child process: it must find the same picolite as this test.
    import picolite

    package_dir = os.path.dirname(os.path.dirname(picolite.__file__))
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (package_dir, old) if p)
    try:
        NotebookClient(nb, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.get("output_type") == "error"]
    assert not errors


def _reportables():
    import picolite
    from picolite.profile import profile
    from picolite.testing import Comparison, TensorComparison

    it = picolite.Interpreter(model_path=str(ROOT / "python" / "picolite" / "data" /
                                             "demo.tflite"))
    it.allocate_tensors()
    comparison = Comparison("m.tflite", outputs=[TensorComparison(
        1, "out", "int8", (1, 4), 0.0, 0, 4, True, True)], samples=1)
    return {"Arena": it.arena, "Interpreter": it, "AllocationReport": it.allocations(),
            "MemoryPlan": it.memory_plan(), "Comparison": comparison,
            "Profile": profile(it, n=1)}


@pytest.mark.parametrize("name", ["Arena", "Interpreter", "AllocationReport", "MemoryPlan",
                                  "Comparison", "Profile"])
def test_rich_reprs(name):
    """What a notebook shows: a one-line repr and an HTML table for every report object."""
    obj = _reportables()[name]
    text = repr(obj)
    assert text.startswith("<") and text.endswith(">") and "\n" not in text
    assert "<table" in obj._repr_html_()
