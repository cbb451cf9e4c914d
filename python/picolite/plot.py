"""Pictures of what picolite reports: the arena plan, the allocation split, per-layer errors
against TFLite, per-op time. Needs matplotlib (``pip install "picolite[plot]"``).

    import picolite.plot as pp
    pp.plot_memory_plan(interpreter)                                  # one planner
    pp.plot_memory_plan(interpreter, planners=["greedy", "optimal"])  # side by side
    pp.plot_allocations(interpreter.allocations())
    pp.plot_layer_errors(picolite.testing.compare_with_tflite(path, layers=True))
    pp.plot_profile(picolite.profile.profile(interpreter))

Every function returns the matplotlib Figure. Artists carry a ``gid`` ("buffer", "head",
"lower_bound", "section:<name>", "category:<name>", "layer", "node", "op_type") so that
tests and scripts can find them.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Sequence

try:
    import matplotlib
    from matplotlib import pyplot as plt
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        'picolite.plot needs matplotlib: pip install "picolite[plot]" '
        "(or pip install matplotlib)") from exc

__all__ = ["plot_allocations", "plot_layer_errors", "plot_memory_plan", "plot_profile"]


def _new_figure(ax, size, ncols: int = 1, **kw):
    if ax is not None:
        return ax.figure, [ax]
    fig, axes = plt.subplots(1, ncols, figsize=size, squeeze=False, **kw)
    return fig, list(axes[0])


def _bytes(n: float) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.2f} MiB"
    if n >= 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{int(n)} B"


# --- memory plan ----------------------------------------------------------------------

def _model_of(source: Any) -> Optional[bytes]:
    """Model bytes behind an Interpreter, a path or a bytes object (None for a plan)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if isinstance(source, (str, os.PathLike)):
        with open(os.fspath(source), "rb") as f:
            return f.read()
    for attr in ("_model_content", "_model", "model_content"):
        data = getattr(source, attr, None)
        if isinstance(data, (bytes, bytearray, memoryview)):
            return bytes(data)
    return None


def _plan_of(source: Any, planner: Optional[str] = None):
    """A MemoryPlan from a MemoryPlan, an Interpreter, a path or model bytes."""
    from picolite._core import InterpreterCore
    from picolite._unified import Interpreter

    if hasattr(source, "buffers") and hasattr(source, "head") and planner is None:
        return source
    if isinstance(source, InterpreterCore) and planner is None:
        if not source._c.allocated:
            source._allocate()
        return source.memory_plan()
    data = _model_of(source)
    if data is None:
        raise ValueError(
            "planners= needs the model: pass the Interpreter (or the model path/bytes), "
            "not a MemoryPlan")
    preserve = bool(getattr(source, "_preserve", False))
    it = Interpreter(model_content=data, planner=planner or "greedy",
                     preserve_all_tensors=preserve)
    it.allocate_tensors()
    return it.memory_plan()


def _label(b, multi: bool = False) -> str:
    where = f"sg{getattr(b, 'subgraph', 0)} " if multi else ""
    if b.tensor < 0:
        return f"{where}scratch"
    name = b.name.split(";")[0].split("/")[-1] if b.name else ""
    return f"{where}t{b.tensor} {name}" if name else f"{where}t{b.tensor}"


def _subgraphs(plan) -> list:
    return sorted({getattr(b, "subgraph", 0) for b in plan.buffers})


def _draw_plan(ax, plan, ymax: float) -> None:
    """One rectangle per buffer. A plan over several subgraphs colours each subgraph's
    buffers alike (legend entries with gid "subgraph:<k>") and labels them "sg<k> t<i>"."""
    subgraphs = _subgraphs(plan)
    multi = len(subgraphs) > 1
    cmap = matplotlib.colormaps["tab10" if multi else "tab20"]
    last = max([b.last for b in plan.buffers] + [0])
    for i, b in enumerate(sorted(plan.buffers, key=lambda b: (b.first, b.offset))):
        offline = getattr(b, "offline_offset", -1) >= 0
        k = getattr(b, "subgraph", 0)
        if multi:
            color = cmap(subgraphs.index(k) % 10)
        else:
            color = "lightgrey" if b.tensor < 0 else cmap(i % 20)
        rect = Rectangle((b.first - 0.45, b.offset), b.last - b.first + 0.9, b.size,
                         facecolor=color, edgecolor="black", linewidth=1.6 if offline else 0.6,
                         hatch="//" if offline else ("xx" if b.tensor < 0 else None),
                         alpha=0.85, gid="buffer")
        ax.add_patch(rect)
        # Label only what is tall enough to read: ~3.5% of the axis height.
        if b.size >= 0.035 * ymax:
            ax.text(b.first + (b.last - b.first) / 2, b.offset + b.size / 2, _label(b, multi),
                    ha="center", va="center", fontsize=7, clip_on=True)
    if multi:
        for k in subgraphs:
            ax.add_patch(Rectangle((0, 0), 0, 0, facecolor=cmap(subgraphs.index(k) % 10),
                                   edgecolor="black", linewidth=0.6, gid=f"subgraph:{k}",
                                   label=f"subgraph {k}"))
    ax.axhline(plan.head, color="tab:red", linewidth=1.5, gid="head",
               label=f"head {_bytes(plan.head)}")
    ax.axhline(plan.lower_bound, color="tab:green", linestyle="--", linewidth=1.5,
               gid="lower_bound", label=f"lower bound {_bytes(plan.lower_bound)}")
    ax.set_xlim(-0.6, last + 0.6)
    ax.set_ylim(0, ymax * 1.04)
    ax.set_xlabel("allocation clock (node scopes of every subgraph)" if multi
                  else "node index (time)")
    waste = (100.0 * (plan.head - plan.lower_bound) / plan.lower_bound
             if plan.lower_bound else 0.0)
    ax.set_title(f"{plan.planner}: head {_bytes(plan.head)} (+{waste:.1f}% over bound)",
                 fontsize=10)
    ax.legend(loc="best", fontsize=8)


def plot_memory_plan(plan_or_interpreter: Any, ax=None, *,
                     planners: Optional[Sequence[str]] = None) -> Figure:
    """The head of the arena as a picture: x = node index (time), y = byte offset, one
    rectangle per planned buffer over its lifetime (first..last node), the head size and
    the live-bytes lower bound as horizontal lines. Offline-planned buffers are hatched
    ``//``, kernel scratch ``xx``.

    ``plan_or_interpreter``: a MemoryPlan, an Interpreter (allocated if needed), or a model
    path/bytes. ``planners=[...]`` draws one panel per planner on shared y axes (needs the
    model, so not a bare MemoryPlan)."""
    if planners is None:
        plans = [_plan_of(plan_or_interpreter)]
    else:
        if ax is not None:
            raise ValueError("ax= draws one plan; planners= makes its own figure")
        if isinstance(planners, str):
            planners = [planners]
        plans = [_plan_of(plan_or_interpreter, p) for p in planners]
        if not plans:
            raise ValueError("planners must name at least one planner")
    ymax = max(max([p.head for p in plans] + [p.lower_bound for p in plans]), 1)
    fig, axes = _new_figure(ax, (5.5 * len(plans), 4.8), len(plans), sharey=True)
    for a, p in zip(axes, plans):
        _draw_plan(a, p, ymax)
    axes[0].set_ylabel("byte offset in the head")
    fig.tight_layout()
    return fig


# --- allocation report ----------------------------------------------------------------

def _segment(ax, y, left, width, color, gid, text, total, hatch=None):
    ax.barh(y, width, left=left, color=color, edgecolor="black", linewidth=0.5, hatch=hatch,
            gid=gid, label=text)
    if width >= 0.08 * total:
        ax.text(left + width / 2, y, _bytes(width), ha="center", va="center", fontsize=8)


def plot_allocations(report: Any) -> Figure:
    """The allocation report as stacked bars: top, the arena's sections (head, tail,
    unused) with the head's lower bound and the temp high-water (the temporary allocations
    made during allocate_tensors, from the start of the arena) marked;
    bottom, the tail split into TFLM's categories. Accepts an AllocationReport or an
    Interpreter."""
    if not hasattr(report, "categories") and hasattr(report, "allocations"):
        report = report.allocations()
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 4.8),
                                      gridspec_kw={"height_ratios": [1.2, 1]})
    arena = max(report.arena_size, report.total, 1)
    # Kernel scratch is planned inside the head, beside the tensors: not a section.
    scratch = f", {_bytes(report.head_scratch)} scratch inside" if report.head_scratch else ""
    parts = [("head", report.head, "tab:blue", None, f"head (planned tensors{scratch})"),
             ("tail", report.tail, "tab:orange", None, "tail (persistent)")]
    unused = report.arena_size - report.total
    if unused > 0:
        parts.append(("unused", unused, "white", "..", "unused"))
    left = 0
    for name, size, color, hatch, text in parts:
        _segment(top, 0, left, size, color, f"section:{name}",
                 f"{text}: {_bytes(size)}", arena, hatch)
        left += size
    top.axvline(report.lower_bound, color="tab:green", linestyle="--", gid="lower_bound",
                label=f"head lower bound {_bytes(report.lower_bound)}")
    top.axvline(report.temp_high_water, color="tab:purple", linestyle=":", gid="temp",
                label=f"temp high-water {_bytes(report.temp_high_water)} (during allocate)")
    top.set_yticks([0], ["arena"])
    top.set_xlim(0, arena * 1.01)
    top.set_title(f"arena {_bytes(report.arena_size)}: used {_bytes(report.total)} = head "
                  f"{_bytes(report.head)} + tail {_bytes(report.tail)} (planner "
                  f"{report.planner})", fontsize=10)
    top.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=3, fontsize=8)
    cmap = matplotlib.colormaps["tab10"]
    left = 0
    cats = report.categories
    tail_total = max(sum(c["used"] for c in cats.values()), 1)
    for i, (name, c) in enumerate(cats.items()):
        _segment(bottom, 0, left, c["used"], cmap(i % 10), f"category:{name}",
                 f"{name}: {c['used']} B ({c['count']}x, requested {c['requested']})",
                 tail_total)
        left += c["used"]
    bottom.set_yticks([0], ["tail"])
    bottom.set_xlim(0, tail_total * 1.01)
    bottom.set_xlabel("bytes")
    bottom.legend(loc="upper center", bbox_to_anchor=(0.5, -0.45), ncol=2, fontsize=8)
    fig.tight_layout()
    return fig


# --- layer errors ---------------------------------------------------------------------

def plot_layer_errors(comparison_report: Any, ax=None) -> Figure:
    """Per-layer max |picolite - TFLite| in execution order (the worst over the samples):
    green = identical or within tolerance, red = differs; the first divergence is marked.
    Needs ``compare_with_tflite(..., layers=True)``."""
    layers = getattr(comparison_report, "layers", comparison_report)
    if not layers:
        raise ValueError("no layers to plot: use compare_with_tflite(..., layers=True)")
    worst: Dict[int, Any] = {}
    for c in layers:
        prev = worst.get(c.index)
        if prev is None or (c.max_abs_diff, not c.ok) > (prev.max_abs_diff, not prev.ok):
            worst[c.index] = c
    rows = sorted(worst.values(), key=lambda c: (c.op_index if c.op_index is not None
                                                  else -1, c.index))
    diffs = [c.max_abs_diff for c in rows]
    positive = [d for d in diffs if d > 0 and d != float("inf")]
    fig, axes = _new_figure(ax, (max(6.0, 0.35 * len(rows) + 2), 4.2))
    a = axes[0]
    floor = min(positive) / 10 if positive else 0.0
    top = max(positive) * 10 if positive else 1.0
    heights = [top if d == float("inf") else (d if d > 0 else floor) for d in diffs]
    colors = ["tab:red" if not c.ok else ("tab:green" if c.identical else "yellowgreen")
              for c in rows]
    x = list(range(len(rows)))
    a.bar(x, heights, color=colors, edgecolor="black", linewidth=0.4, gid="layer")
    same = [i for i, c in enumerate(rows) if c.identical]
    if same:  # an identical layer has no bar to see: mark it on the baseline
        a.plot(same, [floor if positive else 0.0] * len(same), linestyle="none", marker="o",
               color="tab:green", markersize=4, gid="identical", clip_on=False,
               label="identical")
    if positive:
        a.set_yscale("log")
        a.set_ylim(floor / 2, top)
    else:
        a.set_ylim(0, 1)
        a.text(0.5, 0.5, "every layer identical to TFLite", transform=a.transAxes,
               ha="center", va="center")
    labels = [f"{c.op_index} {c.op_name}" if c.op_name else f"t{c.index}" for c in rows]
    a.set_xticks(x, labels, rotation=60, ha="right", fontsize=7)
    a.set_ylabel("max |picolite - TFLite|")
    bad = [i for i, c in enumerate(rows) if not c.ok]
    if bad:
        first = bad[0]
        a.annotate("first divergence", (first, heights[first]), xytext=(0, 12),
                   textcoords="offset points", ha="center", fontsize=8, color="tab:red",
                   arrowprops={"arrowstyle": "->", "color": "tab:red"})
    ok = sum(1 for c in rows if c.ok)
    name = os.path.basename(str(getattr(comparison_report, "model", "")))
    a.set_title(f"{name}: {ok}/{len(rows)} layers agree, {len(same)} identical",
                fontsize=10)
    fig.tight_layout()
    return fig


# --- profile --------------------------------------------------------------------------

def plot_profile(profile: Any, *, top: int = 40) -> Figure:
    """Per-op time: left, the ``top`` slowest nodes (mean over the runs, whiskers to the
    minimum), coloured by op type; right, the total per op type with its share. Accepts a
    picolite.profile.Profile or an Interpreter (profiled with 10 runs)."""
    if not hasattr(profile, "by_op"):
        from picolite.profile import profile as run_profile

        profile = run_profile(profile)
    cmap = matplotlib.colormaps["tab10"]
    colors = {name: cmap(i % 10) for i, name in enumerate(profile.by_op)}
    nodes = profile.sorted_nodes()[:top]
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(11, max(3.0, 0.22 * len(nodes) + 1.2)),
        gridspec_kw={"width_ratios": [1.6, 1]})
    y = list(range(len(nodes)))
    means = [n.mean_ns / 1e3 for n in nodes]
    lows = [max(n.mean_ns - n.min_ns, 0) / 1e3 for n in nodes]
    left.barh(y, means, xerr=[lows, [0] * len(nodes)], color=[colors[n.op_name] for n in nodes],
              edgecolor="black", linewidth=0.4, gid="node", error_kw={"elinewidth": 0.6})
    left.set_yticks(y, [f"#{n.index} {n.op_name}" for n in nodes], fontsize=7)
    left.invert_yaxis()
    left.set_xlabel("mean time per invoke (us); whisker to the minimum")
    shown = "" if len(nodes) == len(profile.nodes) else f" ({len(nodes)} slowest shown)"
    left.set_title(f"{len(profile.nodes)} nodes, {profile.runs} runs{shown}", fontsize=10)
    ops = list(profile.by_op.items())
    yo = list(range(len(ops)))
    right.barh(yo, [e["mean_ns"] / 1e3 for _, e in ops],
               color=[colors[k] for k, _ in ops], edgecolor="black", linewidth=0.4,
               gid="op_type")
    right.set_yticks(yo, [f"{k} (x{e['count']})" for k, e in ops], fontsize=8)
    right.invert_yaxis()
    for i, (_, e) in enumerate(ops):
        right.text(e["mean_ns"] / 1e3, i, f" {100 * e['share']:.1f}%", va="center",
                   fontsize=8)
    right.set_xlabel("time per invoke (us)")
    right.set_title(f"by op type: {profile.total_ns / 1e3:.1f} us per invoke", fontsize=10)
    right.margins(x=0.2)
    fig.tight_layout()
    return fig
