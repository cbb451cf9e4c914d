"""Per-op profile: _picolite._profile (C, GIL-free runs) and picolite.profile.Profile."""

import json
import threading

import numpy as np
import pytest

import picolite
from picolite import _picolite
from picolite.profile import NodeTime, Profile, profile
from conftest import ZOO

DEMO = ZOO.parent.parent / "python" / "picolite" / "data" / "demo.tflite"
MOBILENET = ZOO / "net_mobilenet_v1_025_int8.tflite"


def model_path():
    for p in (MOBILENET, DEMO):
        if p.exists():
            return p
    pytest.skip("no zoo model and no demo model")


@pytest.fixture
def interp():
    it = picolite.Interpreter(model_path=str(model_path()))
    it.allocate_tensors()
    yield it
    it.close()


def node_count(it):
    return it._c.counts[1]


def test_raw_profile_is_runs_rows_of_node_ns(interp):
    n = node_count(interp)
    raw = _picolite._profile(interp._c, 3)
    assert isinstance(raw, bytes) and len(raw) == 3 * n * 8
    ns = np.frombuffer(raw, dtype=np.uint64).reshape(3, n)
    assert (ns > 0).any(axis=1).all()  # every run timed something
    assert ns.sum() < 60 * 10**9


def test_raw_profile_refusals(interp):
    with pytest.raises(ValueError, match="at least 1"):
        _picolite._profile(interp._c, 0)
    with pytest.raises(TypeError):
        _picolite._profile(object(), 1)
    view = interp.tensor(interp.get_input_details()[0]["index"])()
    with pytest.raises(picolite.StateError, match="reference to internal data"):
        _picolite._profile(interp._c, 1)
    del view
    _picolite._profile(interp._c, 1)
    interp.close()
    with pytest.raises(picolite.StateError, match="closed"):
        _picolite._profile(interp._c, 1)


def test_raw_profile_needs_allocated_tensors():
    it = picolite.Interpreter(model_path=str(model_path()))
    with pytest.raises(picolite.StateError, match="allocate_tensors"):
        _picolite._profile(it._c, 1)


def test_profiling_keeps_results_and_the_interpreters_own_profiler(interp):
    x = picolite.testing.random_inputs(interp.get_input_details())[0]
    interp.set_tensor(interp.get_input_details()[0]["index"], x)
    interp.invoke()
    before = interp.get_output(0)
    interp._c.set_profiling(True)
    try:
        _picolite._profile(interp._c, 2)
        assert np.array_equal(interp.get_output(0), before)
        interp._c.set_profiling(True)  # still on: node_ns keeps answering
        interp.invoke()
        assert len(interp._c.node_ns()) == node_count(interp)
    finally:
        interp._c.set_profiling(False)
    assert interp._c.node_ns() is None


def test_busy_during_profile_refuses_other_threads(interp):
    """The runs happen without the GIL: another thread gets StateError meanwhile."""
    results = []
    worker = threading.Thread(
        target=lambda: results.append(_picolite._profile(interp._c, 300)))
    worker.start()
    refused = 0
    try:
        while worker.is_alive() and refused == 0:
            try:
                interp.invoke()
            except picolite.StateError as e:
                assert "busy" in str(e)
                refused += 1
    finally:
        worker.join()
    assert refused == 1  # 300 runs take far longer than one refused call
    assert len(results) == 1 and len(results[0]) == 300 * node_count(interp) * 8
    assert interp._c.busy is False


def test_profile_object(interp):
    prof = profile(interp, n=4)
    n = node_count(interp)
    ops = [d["op_name"] for d in interp._get_ops_details()]
    assert isinstance(prof, Profile)
    assert prof.runs == 4 and prof.samples.shape == (4, n)
    assert [t.op_name for t in prof.nodes] == ops
    assert [t.index for t in prof.nodes] == list(range(n))
    for t in prof.nodes:
        assert isinstance(t, NodeTime)
        assert t.min_ns <= t.mean_ns <= t.max_ns
    assert prof.total_ns == pytest.approx(sum(t.mean_ns for t in prof.nodes))
    assert sum(e["count"] for e in prof.by_op.values()) == n
    assert set(prof.by_op) == set(ops)
    assert sum(e["share"] for e in prof.by_op.values()) == pytest.approx(1.0)
    times = [e["mean_ns"] for e in prof.by_op.values()]
    assert times == sorted(times, reverse=True)
    slow = prof.sorted_nodes()
    assert [t.mean_ns for t in slow] == sorted((t.mean_ns for t in slow), reverse=True)


def test_profile_reprs(interp):
    prof = profile(interp, n=2)
    r = repr(prof)
    assert r.startswith("<Profile ") and "\n" not in r and f"{node_count(interp)} nodes" in r
    text = str(prof)
    for name in prof.by_op:
        assert name in text
    assert len(text.splitlines()) >= node_count(interp) + len(prof.by_op) + 2
    h = prof._repr_html_()
    assert h.count("<table>") == 2 and "<th>op type</th>" in h
    d = json.loads(json.dumps(prof.to_dict()))
    assert d["runs"] == 2 and len(d["nodes"]) == node_count(interp)


def test_profile_allocates_and_checks_arguments():
    it = picolite.Interpreter(model_path=str(model_path()))
    prof = profile(it, n=1, warmup=0)
    assert prof.runs == 1 and it._c.allocated
    with pytest.raises(ValueError):
        profile(it, n=0)
    with pytest.raises(ValueError):
        profile(it, n=1, warmup=-1)
    with pytest.raises(TypeError):
        profile("not an interpreter")
    # the C object itself is accepted too
    assert profile(it._c, n=1).runs == 1


def test_profile_of_a_model_without_nodes_is_empty():
    """A Profile over zero nodes still prints (e.g. a model that only passes data)."""
    prof = Profile(np.zeros((3, 0), dtype=np.uint64), [])
    assert prof.total_ns == 0 and prof.by_op == {} and "0 nodes" in repr(prof)
    str(prof)
    prof._repr_html_()


def test_invoke_with_profile_returns_one_timed_run():
    it = picolite.Interpreter(model_path=str(DEMO))
    it.allocate_tensors()
    p = it.invoke(profile=True)
    assert p.samples.shape == (1, len(p.nodes))
    assert len(p.nodes) == len(it._get_ops_details())
    assert all(n.min_ns > 0 for n in p.nodes)
    assert it.invoke() is None


def test_every_run_starts_from_the_callers_inputs(interp, monkeypatch):
    """An invoke may reuse its inputs' memory (TFLM's arena does): each timed run must see
    the inputs the caller set, not what the previous run left there."""
    import picolite.profile as prof_mod

    index = interp.get_input_details()[0]["index"]
    rng = np.random.default_rng(3)
    detail = interp.get_input_details()[0]
    data = rng.integers(-128, 128, detail["shape"]).astype(detail["dtype"])
    interp.set_tensor(index, data)
    seen = []
    real = prof_mod._timed

    def spy(c, runs):
        seen.append((runs, c.get_bytes(index)))
        c.set_bytes(index, bytes(len(seen[-1][1])))  # as if the run overwrote its input
        return real(c, runs)

    monkeypatch.setattr(prof_mod, "_timed", spy)
    profile(interp, n=3, warmup=2)
    assert [r for r, _ in seen] == [1] * 5
    assert all(b == data.tobytes() for _, b in seen)
