"""Offline plans: the OfflineMemoryAllocation metadata fixes tensor offsets in the head."""

import numpy as np
import pytest

import picolite
from conftest import ZOO

MODEL = ZOO / "offline_cnn_int8.tflite"


def offline_offsets(path):
    """The metadata's offsets, read independently of picolite with LiteRT's schema-free
    flatbuffer walk: the last 4 * n bytes of the metadata buffer are the offsets."""
    data = path.read_bytes()
    marker = data.find(b"OfflineMemoryAllocation")
    assert marker > 0
    it = picolite.Interpreter(model_path=str(path))
    n = len(it.get_tensor_details())
    header = np.array([0, 1, n], dtype="<i4").tobytes()
    at = data.find(header)
    assert at > 0, "offline plan header not found"
    return np.frombuffer(data, dtype="<i4", count=n, offset=at + 12)


@pytest.fixture
def model():
    if not MODEL.exists():
        pytest.skip("tests/models/offline_cnn_int8.tflite is missing")
    return MODEL


@pytest.mark.parametrize("planner", ["greedy", "bestfit", "linear", "optimal"])
def test_offline_offsets_are_kept_by_every_planner(model, planner):
    fixed = offline_offsets(model)
    it = picolite.Interpreter(model_path=str(model), planner=planner)
    it.allocate_tensors()
    plan = it.memory_plan()
    seen = 0
    for b in plan.buffers:
        if b.tensor >= 0 and fixed[b.tensor] >= 0:
            assert b.offset == fixed[b.tensor] == b.offline_offset
            seen += 1
        else:
            assert b.offline_offset == -1
    assert seen >= 5
    # the -1 buffers were planned around the fixed ones: no live overlap anywhere
    for a in plan.buffers:
        for c in plan.buffers:
            if a is c or a.last < c.first or c.last < a.first:
                continue
            assert a.offset + a.size <= c.offset or c.offset + c.size <= a.offset


def test_preserve_all_tensors_ignores_the_offline_plan(model):
    it = picolite.Interpreter(model_path=str(model), preserve_all_tensors=True)
    it.allocate_tensors()
    assert all(b.offline_offset == -1 for b in it.memory_plan().buffers)
