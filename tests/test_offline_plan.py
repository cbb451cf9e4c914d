"""Offline plans: the OfflineMemoryAllocation metadata fixes tensor offsets in the head."""

import re

import numpy as np
import pytest

import picolite
from conftest import ZOO, in_ci

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


# --- the writer: picolite.write_offline_plan -------------------------------------------

MOBILENET = ZOO / "net_mobilenet_v1_025_int8.tflite"  # optimal beats greedy on it


def _written(tmp_path, planner="optimal", source=MOBILENET):
    if not source.exists():
        pytest.skip(f"{source} is missing")
    path = tmp_path / f"planned_{planner}.tflite"
    path.write_bytes(picolite.write_offline_plan(source, planner))
    return path


def _outputs(it, x):
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return [it.get_tensor(d["index"]).tobytes() for d in it.get_output_details()]


def test_written_plan_is_read_back_at_its_offsets(tmp_path):
    path = _written(tmp_path)
    fixed = offline_offsets(path)
    optimal = picolite.Interpreter(model_path=str(MOBILENET), planner="optimal", target="picolite")
    optimal.allocate_tensors()
    for b in optimal.memory_plan().buffers:
        if b.tensor >= 0:
            assert fixed[b.tensor] == b.offset
    # the device's greedy planner now lands on the optimal head
    it = picolite.Interpreter(model_path=str(path), planner="greedy", target="picolite")
    it.allocate_tensors()
    assert it.allocations().head == optimal.allocations().head
    plain = picolite.Interpreter(model_path=str(MOBILENET), target="picolite")
    plain.allocate_tensors()
    assert it.allocations().head < plain.allocations().head
    x = np.random.default_rng(3).integers(-128, 128, it.get_input_details()[0]["shape"],
                                          dtype=np.int8)
    assert _outputs(it, x) == _outputs(plain, x)


def test_unplanned_tensors_are_minus_one(tmp_path):
    path = _written(tmp_path, "greedy")
    it = picolite.Interpreter(model_path=str(path))
    it.allocate_tensors()
    planned = {b.tensor for b in it.memory_plan().buffers if b.tensor >= 0}
    fixed = offline_offsets(path)
    for d in it.get_tensor_details():
        assert (fixed[d["index"]] >= 0) == (d["index"] in planned)


def test_rewriting_replaces_the_entry(tmp_path):
    once = _written(tmp_path, "greedy")
    twice = picolite.write_offline_plan(once, "optimal")
    assert twice.count(b"OfflineMemoryAllocation") == once.read_bytes().count(
        b"OfflineMemoryAllocation") + 1  # the old name stays as dead bytes, unreferenced
    it = picolite.Interpreter(model_content=twice)
    it.allocate_tensors()
    ref = picolite.Interpreter(model_path=str(_written(tmp_path, "optimal")))
    ref.allocate_tensors()
    assert it.allocations().head == ref.allocations().head


def test_the_original_metadata_is_kept(tmp_path):
    """The converter's entries (min_runtime_version) survive the rewrite."""
    path = _written(tmp_path, "greedy", MOBILENET)
    assert picolite.write_offline_plan(path, "greedy").count(b"min_runtime_version") == \
        MOBILENET.read_bytes().count(b"min_runtime_version")


def test_litert_runs_the_written_model(tmp_path, litert):
    path = _written(tmp_path)
    outs = []
    for p in (MOBILENET, path):
        ref = litert.Interpreter(model_path=str(p),
                                 experimental_op_resolver_type=litert.OpResolverType.BUILTIN_REF)
        ref.allocate_tensors()
        x = np.random.default_rng(4).integers(-128, 128, ref.get_input_details()[0]["shape"],
                                              dtype=np.int8)
        outs.append(_outputs(ref, x))
    assert outs[0] == outs[1]


def test_tflm_uses_the_written_plan(tmp_path, capfd):
    """TFLM's own interpreter: identical outputs, and the smaller head of the plan."""
    try:
        from tflite_micro.python.tflite_micro import runtime
    except ImportError:
        if in_ci():
            pytest.fail("tflite-micro is not installed (pip install '.[test]')")
        pytest.skip("tflite-micro is not installed")
    path = _written(tmp_path)
    heads, outs = [], []
    for p in (MOBILENET, path):
        tflm = runtime.Interpreter.from_file(str(p), arena_size=1 << 20)
        x = np.random.default_rng(5).integers(-128, 128, tflm.get_input_details(0)["shape"],
                                              dtype=np.int8)
        tflm.set_input(x, 0)
        tflm.invoke()
        outs.append(tflm.get_output(0).tobytes())
        capfd.readouterr()
        tflm.print_allocations()
        m = re.search(r"Arena allocation head (\d+) bytes", "".join(capfd.readouterr()))
        heads.append(int(m.group(1)))
    assert outs[0] == outs[1]
    optimal = picolite.Interpreter(model_path=str(MOBILENET), planner="optimal", target="picolite")
    optimal.allocate_tensors()
    assert heads[1] == optimal.allocations().head < heads[0]


def test_unknown_planner_is_refused():
    with pytest.raises(ValueError, match="planner"):
        picolite.write_offline_plan(MOBILENET, "fastest")


def test_a_broken_model_is_refused():
    with pytest.raises(picolite.ModelError):
        picolite.write_offline_plan(b"\x10\x00\x00\x00TFL3" + bytes(40), "greedy")


def test_a_dynamic_batch_model_keeps_its_plan_until_resized():
    """A -1 in shape_signature alone changes no shape, so the written plan is used, as TFLM
    uses it; resized, the offsets no longer fit the sizes and the planner runs instead."""
    path = ZOO / "resize" / "keras2_cnn_int8.tflite"
    data = picolite.write_offline_plan(path, planner="optimal")
    it = picolite.Interpreter(model_content=data)
    it.allocate_tensors()
    assert all(b.offline_offset >= 0 for b in it.memory_plan().buffers)
    it.resize_tensor_input(it.get_input_details()[0]["index"],
                           [3, *it.get_input_details()[0]["shape"][1:]])
    it.allocate_tensors()
    assert all(b.offline_offset < 0 for b in it.memory_plan().buffers if b.tensor >= 0)


# --- hostile plans: the offsets are data from the file -----------------------------------

ADD = ZOO / "add_same_float32.tflite"  # three float32 [1, 4, 4, 8] tensors, 512 bytes each


def _with_offsets(offsets, source=ADD):
    from picolite.offline_plan import _rewrite

    return _rewrite(source.read_bytes(), offsets)


def _allocated(data):
    it = picolite.Interpreter(model_content=data)
    it.allocate_tensors()
    return it


def test_an_aligned_plan_runs():
    it = _allocated(_with_offsets([0, 512, 1024]))
    assert [b.offset for b in it.memory_plan().buffers] == [0, 512, 1024]


def test_misaligned_offsets_are_refused():
    """float32 tensors at offsets 1, 513, 1025 would be read with misaligned loads (UBSan
    reports them; a device may fault, and export-c would carry the plan there)."""
    with pytest.raises(picolite.ModelError, match=r"OfflineMemoryAllocation.*tensor 0.*"
                                                  r"offset 1, not -1 or a multiple of its element size 4"):
        _allocated(_with_offsets([1, 513, 1025]))
    # an int8 tensor may start at any byte
    it = _allocated(_with_offsets([1, 129, 257], ZOO / "add_same_int8.tflite"))
    assert [b.offset for b in it.memory_plan().buffers] == [1, 129, 257]


def test_overlapping_offsets_are_a_model_error():
    with pytest.raises(picolite.ModelError, match=r"OfflineMemoryAllocation: tensor 0 .*"
                                                  r"overlaps global tensor 1 "):
        _allocated(_with_offsets([0, 256, 1024]))


def test_negative_offsets_other_than_minus_one_are_refused():
    with pytest.raises(picolite.ModelError, match=r"OfflineMemoryAllocation.*tensor 0.*-2"):
        _allocated(_with_offsets([-2, 512, 1024]))
    it = _allocated(_with_offsets([-1, 512, 1024]))  # -1: planned on the device
    assert it.memory_plan().buffers[0].offline_offset == -1


def test_an_offset_past_every_tensor_together_is_refused():
    """A 1 GiB offset in a 1 KiB model must not make the host reserve a gigabyte: no plan
    needs a gap larger than all its buffers laid end to end."""
    data = _with_offsets([0, 512, 1 << 30])
    with pytest.raises(picolite.ModelError, match=r"OfflineMemoryAllocation.*tensor 2.*"
                                                  r"1073741824.*1536"):
        _allocated(data)
    with pytest.raises(picolite.ModelError):
        picolite.required_arena_size(data)


SUBGRAPHS = sorted((ZOO / "subgraphs").glob("*.tflite"))


@pytest.mark.parametrize("path", SUBGRAPHS, ids=lambda p: p.name)
def test_control_flow_models_get_a_plan_of_every_subgraph(path):
    """WHILE, IF and CALL_ONCE models share one plan over their subgraphs, whose offsets the
    entry lists in subgraph order (write_offline_plan raised IndexError on them)."""
    from picolite.testing import random_inputs

    planned = picolite.Interpreter(model_content=picolite.write_offline_plan(path, "optimal"),
                                   planner="greedy", target="picolite")
    plain = picolite.Interpreter(str(path), planner="optimal", target="picolite")
    outs = []
    for it in (plain, planned):
        it.allocate_tensors()
        details = it.get_input_details()
        for d, x in zip(details, random_inputs(details, seed=7)):
            it.set_tensor(d["index"], x)
        it.invoke()
        outs.append([it.get_tensor(d["index"]).tobytes() for d in it.get_output_details()])
    assert outs[0] == outs[1]
    assert all(b.offline_offset == b.offset for b in planned.memory_plan().buffers)
    assert [(b.subgraph, b.tensor, b.offset) for b in planned.memory_plan().buffers] == \
        [(b.subgraph, b.tensor, b.offset) for b in plain.memory_plan().buffers]
    assert planned.allocations().head == plain.allocations().head


def test_export_c_refuses_a_misaligned_plan(tmp_path):
    """export-c carried a misaligned plan to a device that may fault on it."""
    from picolite.export import export_c

    with pytest.raises(picolite.ModelError, match="multiple of its element size 4"):
        export_c(_with_offsets([1, 513, 1025]), tmp_path, "bad")
    assert not list(tmp_path.iterdir())
