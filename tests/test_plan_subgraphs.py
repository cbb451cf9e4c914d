"""memory_plan() over multi-subgraph models (tests/models/subgraphs): every buffer names its
subgraph, its tensor is that subgraph's, lifetimes are on the plan's one clock, and the
plot tells the subgraphs apart."""

import numpy as np
import pytest

import picolite
from conftest import ZOO, require

SUB = ZOO / "subgraphs"
MODELS = sorted(p.name for p in SUB.glob("*.tflite"))


def plan_of(name):
    it = picolite.Interpreter(str(SUB / name))
    it.allocate_tensors()
    return it, it.memory_plan()


@pytest.mark.parametrize("name", MODELS)
def test_buffers_name_their_subgraph_and_its_tensor(name):
    it, plan = plan_of(name)
    n = it.num_subgraphs()
    assert n > 1
    tensors = [b for b in plan.buffers if b.tensor >= 0]
    assert tensors
    for b in tensors:
        assert 0 <= b.subgraph < n
        d = it._get_tensor_details(b.tensor, b.subgraph)
        assert b.name == d["name"]
        nbytes = int(np.prod(d["shape"])) * np.dtype(d["dtype"]).itemsize
        assert b.size == (nbytes + 15) // 16 * 16
    for b in plan.buffers:
        if b.tensor < 0:
            assert 0 <= b.subgraph < n and b.name == ""
    assert len({(b.subgraph, b.tensor) for b in tensors}) == len(tensors)


@pytest.mark.parametrize("name", MODELS)
def test_lifetimes_share_one_clock_and_live_buffers_never_overlap(name):
    _, plan = plan_of(name)
    bufs = plan.buffers
    for b in bufs:
        assert 0 <= b.first <= b.last
        assert b.offset + b.size <= plan.head
    for i, a in enumerate(bufs):
        for b in bufs[i + 1:]:
            live_together = a.first <= b.last and b.first <= a.last
            apart = a.offset + a.size <= b.offset or b.offset + b.size <= a.offset
            assert not live_together or apart, (a, b)


def test_branches_and_signature_subgraphs_are_in_the_plan():
    # IF's two branches, WHILE's cond and body, and the second signature's subgraph (which
    # subgraph 0 never reaches) all have planned tensors of their own
    for name, expected in [("cond_float32.tflite", {0, 1, 2}),
                           ("while_float32.tflite", {0, 1, 2}),
                           ("two_signatures_float32.tflite", {0, 1})]:
        _, plan = plan_of(name)
        assert {b.subgraph for b in plan.buffers if b.tensor >= 0} == expected, name
    # an unreached subgraph starts after subgraph 0 ends on the clock
    _, plan = plan_of("two_signatures_float32.tflite")
    end0 = max(b.last for b in plan.buffers if b.subgraph == 0)
    assert min(b.first for b in plan.buffers if b.subgraph == 1) > end0


def test_single_subgraph_plan_is_subgraph_zero():
    it = picolite.Interpreter(str(next(iter(sorted(ZOO.glob("*.tflite"))))))
    it.allocate_tensors()
    plan = it.memory_plan()
    assert plan.buffers and all(b.subgraph == 0 for b in plan.buffers)
    assert all("subgraph" in d for d in plan.to_dict()["buffers"])


def test_plot_colours_and_labels_by_subgraph():
    require("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import picolite.plot as pp

    it, plan = plan_of("cond_float32.tflite")
    fig = pp.plot_memory_plan(plan)
    ax = fig.axes[0]
    keys = sorted(p.get_gid() for p in ax.patches if str(p.get_gid()).startswith("subgraph:"))
    assert keys == ["subgraph:0", "subgraph:1", "subgraph:2"]
    colours = {}
    rects = [p for p in ax.patches if p.get_gid() == "buffer"]
    assert len(rects) == len(plan.buffers)
    for b, r in zip(sorted(plan.buffers, key=lambda b: (b.first, b.offset)), rects):
        colours.setdefault(b.subgraph, set()).add(r.get_facecolor())
    assert all(len(c) == 1 for c in colours.values())
    assert len({next(iter(c)) for c in colours.values()}) == 3
    texts = [t.get_text() for t in ax.texts]
    assert texts and all(t.startswith("sg") for t in texts)
    plt.close(fig)
