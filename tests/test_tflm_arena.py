"""picolite's own arena against TFLM's figures for the models in ../shared (TFLM_ARENA.tsv).

(TFLM's own figures, computed for targets "tflm" and "tflm-x86-64", are checked against the
tflite-micro wheel and the firmware goldens in test_tflm_arena_target.py.)

For every model whose ops picolite runs: the greedy head equals TFLM's head (smaller only
where picolite's kernels ask for less scratch: never larger), and the whole arena is at most
TFLM's plain arena_used_bytes(). When tflite-micro is installed, its interpreter is also run
side by side on the same model and inputs: same outputs, and picolite's arena no larger.
"""

import csv

import numpy as np
import pytest

import picolite
from conftest import SHARED_MODELS, in_ci

pytestmark = pytest.mark.usefixtures("shared_models")


def tsv_rows():
    path = SHARED_MODELS / "TFLM_ARENA.tsv"
    if not path.exists():
        return []
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def allocated(row, planner="greedy"):
    it = picolite.Interpreter(model_path=str(SHARED_MODELS / row["model"]), planner=planner,
                              target="picolite")
    try:
        it.allocate_tensors()
    except picolite.UnsupportedOpError as e:
        pytest.skip(f"picolite does not run {e.op_name} yet: {e}")
    return it


@pytest.mark.parametrize("row", tsv_rows(), ids=lambda r: r["model"].split("/")[-1])
def test_arena_is_no_larger_than_tflms(row):
    report = allocated(row).allocations()
    assert report.head <= int(row["tflm_head"])
    assert report.total <= int(row["tflm_arena_used_plain"])
    assert picolite.required_arena_size(str(SHARED_MODELS / row["model"]),
                                        target="picolite") <= int(row["tflm_min_arena"])


# Ops whose TFLM reference kernels request no scratch buffer: for models made only of these,
# TFLM's head is its greedy plan of the tensors alone, so picolite's must be equal.
NO_SCRATCH_IN_TFLM = {"ADD", "SUB", "MUL", "LEAKY_RELU", "PAD", "QUANTIZE", "DEQUANTIZE",
                      "STRIDED_SLICE", "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED",
                      "RESHAPE", "SOFTMAX", "MAX_POOL_2D", "LOGISTIC"}


def tflm_ops(row):
    return {op.rsplit(":", 1)[0] for op in row["ops"].split(",")}


@pytest.mark.parametrize("row", [r for r in tsv_rows() if tflm_ops(r) <= NO_SCRATCH_IN_TFLM],
                         ids=lambda r: r["model"].split("/")[-1])
def test_greedy_head_equals_tflms_without_scratch(row):
    report = allocated(row).allocations()
    assert report.head_scratch == 0
    assert report.head == int(row["tflm_head"])


def tflm_interpreter(path):
    try:
        from tflite_micro.python.tflite_micro import runtime
    except ImportError:
        if in_ci():
            pytest.fail("tflite-micro is not installed (pip install '.[test]')")
        pytest.skip("tflite-micro is not installed (pip install tflite-micro)")
    return runtime.Interpreter.from_file(str(path), arena_size=1 << 20)


@pytest.mark.parametrize("row", tsv_rows(), ids=lambda r: r["model"].split("/")[-1])
def test_tflm_side_by_side(row):
    path = SHARED_MODELS / row["model"]
    ours = allocated(row)
    tflm = tflm_interpreter(path)
    rng = np.random.default_rng(7)
    for i, d in enumerate(ours.get_input_details()):
        info = np.iinfo(d["dtype"]) if np.issubdtype(d["dtype"], np.integer) else None
        x = (rng.integers(info.min, info.max + 1, size=d["shape"]) if info is not None
             else rng.uniform(-1, 1, size=d["shape"])).astype(d["dtype"])
        ours.set_input(x, i)
        tflm.set_input(x, i)
    ours.invoke()
    tflm.invoke()
    for o in range(len(ours.get_output_details())):
        theirs, mine = tflm.get_output(o), ours.get_output(o)
        if np.issubdtype(mine.dtype, np.floating):
            np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)
        else:
            # TFLM's kernels are off by one in places where LiteRT's reference decides.
            assert np.abs(mine.astype(np.int64) - theirs.astype(np.int64)).max() <= 1
