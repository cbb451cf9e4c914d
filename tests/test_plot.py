"""picolite.plot: every function returns a Figure with the artists it promises."""

import os
import subprocess
import sys

import pytest

import picolite
from conftest import ZOO, in_ci

DEMO = ZOO.parent.parent / "python" / "picolite" / "data" / "demo.tflite"
MOBILENET = ZOO / "net_mobilenet_v1_025_int8.tflite"  # the planners all differ on it
OFFLINE = ZOO / "offline_cnn_int8.tflite"


def _need(module):
    try:
        return __import__(module)
    except ImportError:
        message = f"{module} is not installed: pip install '.[plot]'"
        if in_ci():
            pytest.fail(message + " (CI must test the plots)")
        pytest.skip(message)


@pytest.fixture(scope="module")
def pp():
    _need("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import picolite.plot as module

    yield module
    plt.close("all")


def model(path=MOBILENET):
    if path.exists():
        return path
    if DEMO.exists() and path != OFFLINE:
        return DEMO
    pytest.skip(f"{path.name} is missing")


def interpreter(path=None, planner="greedy"):
    it = picolite.Interpreter(model_path=str(path or model()), planner=planner)
    it.allocate_tensors()
    return it


def by_gid(ax, gid):
    return [a for a in ax.get_children() if a.get_gid() == gid]


def test_memory_plan_one_rectangle_per_buffer_and_the_two_lines(pp):
    from matplotlib.figure import Figure

    it = interpreter()
    plan = it.memory_plan()
    fig = pp.plot_memory_plan(plan)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    ax = fig.axes[0]
    rects = by_gid(ax, "buffer")
    assert len(rects) == len(plan.buffers)
    spans = sorted((r.get_y(), r.get_height()) for r in rects)
    assert spans == sorted((b.offset, b.size) for b in plan.buffers)
    head, = by_gid(ax, "head")
    lower, = by_gid(ax, "lower_bound")
    assert list(head.get_ydata()) == [plan.head, plan.head]
    assert list(lower.get_ydata()) == [plan.lower_bound, plan.lower_bound]
    assert ax.get_ylim()[1] >= plan.head
    assert "node" in ax.get_xlabel() and "offset" in ax.get_ylabel()
    # the same picture from the interpreter itself, and into a given axes
    assert len(by_gid(pp.plot_memory_plan(it).axes[0], "buffer")) == len(plan.buffers)
    import matplotlib.pyplot as plt

    fig2, ax2 = plt.subplots()
    assert pp.plot_memory_plan(plan, ax=ax2) is fig2


def test_memory_plan_several_planners_share_the_y_axis(pp):
    path = model()
    names = ["greedy", "bestfit", "optimal", "linear"]
    fig = pp.plot_memory_plan(str(path), planners=names)
    assert len(fig.axes) == 4
    plans = [interpreter(path, p).memory_plan() for p in names]
    for ax, name, plan in zip(fig.axes, names, plans):
        assert ax.get_title().startswith(name)
        assert len(by_gid(ax, "buffer")) == len(plan.buffers)
        assert by_gid(ax, "head")[0].get_ydata()[0] == plan.head
        assert fig.axes[0].get_shared_y_axes().joined(fig.axes[0], ax)
    top = max(p.head for p in plans)
    assert all(ax.get_ylim()[1] >= top for ax in fig.axes)


def test_memory_plan_planners_from_an_interpreter(pp):
    it = interpreter()
    fig = pp.plot_memory_plan(it, planners=["greedy", "optimal"])
    assert [ax.get_title().split(":")[0] for ax in fig.axes] == ["greedy", "optimal"]


def test_memory_plan_argument_errors(pp):
    plan = interpreter().memory_plan()
    with pytest.raises(ValueError, match="model"):
        pp.plot_memory_plan(plan, planners=["greedy"])
    with pytest.raises(ValueError):
        pp.plot_memory_plan(str(model()), planners=[])
    with pytest.raises(ValueError):
        pp.plot_memory_plan(str(model()), planners=["nope"])
    import matplotlib.pyplot as plt

    with pytest.raises(ValueError):
        pp.plot_memory_plan(str(model()), plt.subplots()[1], planners=["greedy"])


def test_memory_plan_marks_offline_buffers(pp):
    it = interpreter(model(OFFLINE))
    plan = it.memory_plan()
    offline = [b for b in plan.buffers if b.offline_offset >= 0]
    assert offline
    rects = by_gid(pp.plot_memory_plan(plan).axes[0], "buffer")
    assert sum(1 for r in rects if r.get_hatch() == "//") == len(offline)


def test_allocations_sections_and_one_bar_per_category(pp):
    rep = interpreter().allocations()
    fig = pp.plot_allocations(rep)
    top, bottom = fig.axes[:2]

    def widths(ax, prefix):
        return {a.get_gid().split(":", 1)[1]: a.get_width() for a in ax.patches
                if (a.get_gid() or "").startswith(prefix)}

    sections = widths(top, "section:")
    assert sections["head"] == rep.head
    assert sections["tail"] == rep.tail
    assert sections.get("unused", 0) == rep.arena_size - rep.total
    assert sum(sections.values()) == max(rep.arena_size, rep.total)
    cats = widths(bottom, "category:")
    assert cats == {k: v["used"] for k, v in rep.categories.items()}
    assert by_gid(top, "lower_bound")[0].get_xdata()[0] == rep.lower_bound
    # numbers are written on the wide segments
    texts = [t.get_text() for t in top.texts]
    assert any("KiB" in t or " B" in t for t in texts)
    # an interpreter is accepted too
    assert len(pp.plot_allocations(interpreter()).axes) == 2


def _comparison():
    from picolite.testing import Comparison, TensorComparison

    def tc(index, op, diff, ok, identical, sample=0):
        return TensorComparison(index, f"t{index}", "float32", (1, 4), diff,
                                0 if ok else 2, 4, identical, ok, op, "CONV_2D", sample)

    rep = Comparison("synthetic.tflite")
    rep.layers = [tc(5, 0, 0.0, True, True), tc(6, 1, 1e-7, True, False),
                  tc(7, 2, 0.5, False, False), tc(8, 3, 0.25, False, False),
                  tc(6, 1, 3e-7, True, False, sample=1)]  # worst sample wins
    return rep


def test_layer_errors_one_bar_per_layer(pp):
    rep = _comparison()
    fig = pp.plot_layer_errors(rep)
    ax = fig.axes[0]
    bars = [p for p in ax.patches if p.get_gid() == "layer"]
    assert len(bars) == 4
    heights = [b.get_height() for b in bars]
    assert heights[1:] == [3e-7, 0.5, 0.25]
    assert ax.get_yscale() == "log"
    assert any("first divergence" in t.get_text() for t in ax.texts)
    assert len(by_gid(ax, "identical")) == 1
    assert [t.get_text() for t in ax.get_xticklabels()][2] == "2 CONV_2D"


def test_layer_errors_all_identical_and_errors(pp):
    from picolite.testing import Comparison

    rep = _comparison()
    rep.layers = rep.layers[:1]
    ax = pp.plot_layer_errors(rep).axes[0]
    assert ax.get_yscale() == "linear"
    assert any("identical" in t.get_text() for t in ax.texts)
    with pytest.raises(ValueError, match="layers=True"):
        pp.plot_layer_errors(Comparison("m"))


def test_layer_errors_of_a_real_comparison(pp, litert):
    from picolite.testing import compare_with_tflite

    rep = compare_with_tflite(str(model()), layers=True, samples=1)
    ax = pp.plot_layer_errors(rep).axes[0]
    assert len([p for p in ax.patches if p.get_gid() == "layer"]) == len(rep.layers)


def test_profile_bars_per_node_and_per_op_type(pp):
    from picolite.profile import profile

    prof = profile(interpreter(), n=2)
    fig = pp.plot_profile(prof)
    left, right = fig.axes[:2]
    nodes = [p for p in left.patches if p.get_gid() == "node"]
    types = [p for p in right.patches if p.get_gid() == "op_type"]
    assert len(nodes) == len(prof.nodes) and len(types) == len(prof.by_op)
    slowest = prof.sorted_nodes()[0]
    assert nodes[0].get_width() == pytest.approx(slowest.mean_ns / 1e3)
    assert len(pp.plot_profile(prof, top=3).axes[0].patches) >= 3
    assert len([p for p in pp.plot_profile(prof, top=3).axes[0].patches
                if p.get_gid() == "node"]) == min(3, len(prof.nodes))


def _python(code):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)


def test_without_matplotlib_picolite_imports_and_plot_names_the_extra():
    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "import picolite, picolite.testing, picolite.profile\n"
            "try:\n    import picolite.plot\nexcept ImportError as e:\n    print(e)\n"
            "else:\n    print('imported')\n")
    out = _python(code)
    assert out.returncode == 0, out.stderr
    assert 'pip install "picolite[plot]"' in out.stdout
