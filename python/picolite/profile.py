"""Per-op timing: how long each node of a model takes in picolite's C kernels.

    prof = picolite.profile.profile(interpreter, n=20)   # n timed invokes, current inputs
    print(prof)                     # table per node + totals by op type
    prof.by_op["CONV_2D"]           # {"count", "mean_ns", "share"}
    picolite.plot.plot_profile(prof)

The runs happen in C, back to back without the GIL, timed with the host's monotonic clock
around each node, so the figures hold no Python overhead. They measure this machine, not a
microcontroller: use them to see which ops dominate, not to predict device latency.
"""

from __future__ import annotations

import html
from dataclasses import asdict, dataclass
from typing import Any, Dict, List

import numpy as np

__all__ = ["NodeTime", "Profile", "profile"]


@dataclass(frozen=True)
class NodeTime:
    """One node's time over the runs, in nanoseconds."""

    index: int
    op_name: str
    mean_ns: float
    min_ns: int
    max_ns: int


def _fmt_ns(ns: float) -> str:
    if ns >= 1e9:
        return f"{ns / 1e9:.3f} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.3f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} us"
    return f"{ns:.0f} ns"


class Profile:
    """Per-node times of ``runs`` invokes: ``nodes`` (a :class:`NodeTime` per node, in
    execution order), ``by_op`` (op type -> count, mean_ns, share of the total), ``total_ns``
    (the mean invoke time as the sum of the node means) and ``samples`` (runs x nodes ns)."""

    def __init__(self, samples: np.ndarray, op_names: List[str]):
        samples = np.asarray(samples, dtype=np.uint64)
        if samples.ndim != 2 or samples.shape[1] != len(op_names):
            raise ValueError(f"samples must be runs x {len(op_names)} nanoseconds, got shape "
                             f"{samples.shape}")
        self.samples = samples
        self.runs = int(samples.shape[0])
        mean = samples.mean(axis=0) if self.runs else np.zeros(len(op_names))
        lo = samples.min(axis=0) if self.runs else np.zeros(len(op_names), np.uint64)
        hi = samples.max(axis=0) if self.runs else np.zeros(len(op_names), np.uint64)
        self.nodes: List[NodeTime] = [
            NodeTime(i, name, float(mean[i]), int(lo[i]), int(hi[i]))
            for i, name in enumerate(op_names)
        ]
        self.total_ns: float = float(sum(n.mean_ns for n in self.nodes))
        by_op: Dict[str, Dict[str, Any]] = {}
        for n in self.nodes:
            entry = by_op.setdefault(n.op_name, {"count": 0, "mean_ns": 0.0, "share": 0.0})
            entry["count"] += 1
            entry["mean_ns"] += n.mean_ns
        for entry in by_op.values():
            entry["share"] = entry["mean_ns"] / self.total_ns if self.total_ns else 0.0
        self.by_op: Dict[str, Dict[str, Any]] = dict(
            sorted(by_op.items(), key=lambda kv: -kv[1]["mean_ns"]))

    def sorted_nodes(self) -> List[NodeTime]:
        """The nodes, slowest first."""
        return sorted(self.nodes, key=lambda n: -n.mean_ns)

    def to_dict(self) -> Dict[str, Any]:
        return {"runs": self.runs, "total_ns": self.total_ns,
                "nodes": [asdict(n) for n in self.nodes],
                "by_op": {k: dict(v) for k, v in self.by_op.items()}}

    def _share(self, ns: float) -> float:
        return 100.0 * ns / self.total_ns if self.total_ns else 0.0

    def __str__(self) -> str:
        width = max([len(n.op_name) for n in self.nodes] + [7])
        lines = [f"picolite profile: {len(self.nodes)} nodes, {self.runs} run(s), "
                 f"{_fmt_ns(self.total_ns)} per invoke (sum of node means)",
                 f"{'node':>5}  {'op':<{width}}  {'mean':>11}  {'min':>11}  {'share':>6}"]
        for n in self.nodes:
            lines.append(f"{n.index:>5}  {n.op_name:<{width}}  {_fmt_ns(n.mean_ns):>11}  "
                         f"{_fmt_ns(n.min_ns):>11}  {self._share(n.mean_ns):5.1f}%")
        lines.append(f"{'':>5}  {'op type':<{width}}  {'time':>11}  {'nodes':>11}  "
                     f"{'share':>6}")
        for name, e in self.by_op.items():
            lines.append(f"{'':>5}  {name:<{width}}  {_fmt_ns(e['mean_ns']):>11}  "
                         f"{e['count']:>11}  {100 * e['share']:5.1f}%")
        return "\n".join(lines)

    def __repr__(self) -> str:
        top = next(iter(self.by_op), None)
        slowest = f", slowest op type {top}" if top else ""
        return (f"<Profile {len(self.nodes)} nodes, {self.runs} runs, "
                f"{_fmt_ns(self.total_ns)} per invoke{slowest}>")

    def _repr_html_(self) -> str:
        def table(headers, rows):
            head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
            body = "".join("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in r)
                           + "</tr>" for r in rows)
            return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

        caption = (f"<p><b>picolite profile</b>: {len(self.nodes)} nodes, {self.runs} run(s), "
                   f"{html.escape(_fmt_ns(self.total_ns))} per invoke</p>")
        nodes = table(["node", "op", "mean", "min", "share"],
                      [[n.index, n.op_name, _fmt_ns(n.mean_ns), _fmt_ns(n.min_ns),
                        f"{self._share(n.mean_ns):.1f}%"] for n in self.nodes])
        ops = table(["op type", "nodes", "time", "share"],
                    [[k, e["count"], _fmt_ns(e["mean_ns"]), f"{100 * e['share']:.1f}%"]
                     for k, e in self.by_op.items()])
        return caption + ops + nodes


def _c_interp(interpreter: Any) -> Any:
    """The extension's _Interpreter behind a picolite.Interpreter (or that object itself)."""
    from picolite import _picolite

    if isinstance(interpreter, _picolite._Interpreter):
        return interpreter
    inner = getattr(interpreter, "_c", None)
    if isinstance(inner, _picolite._Interpreter):
        return inner
    raise TypeError(f"expected a picolite.Interpreter, got {type(interpreter).__name__}")


def _timed(c: Any, runs: int) -> np.ndarray:
    from picolite import _picolite

    raw = _picolite._profile(c, runs)
    return np.frombuffer(raw, dtype=np.uint64).reshape(runs, c.counts[1])


def profile(interpreter: Any, n: int = 10, *, warmup: int = 1) -> Profile:
    """Times ``n`` invokes of ``interpreter`` node by node (after ``warmup`` untimed ones)
    with its current inputs, written again before every run (an invoke may reuse their
    memory); allocates the tensors first if that was not done yet.

    Stateful models (variable tensors) advance their state with every run."""
    if int(n) < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if int(warmup) < 0:
        raise ValueError(f"warmup must be >= 0, got {warmup}")
    c = _c_interp(interpreter)
    if not c.allocated:
        c.allocate_tensors()
    # An invoke may overwrite its inputs (later tensors share their memory, as in TFLM):
    # every run starts from the inputs as they were, as a caller setting them would.
    inputs = [(i, c.get_bytes(i)) for i in c.inputs()]

    def runs(k: int) -> np.ndarray:
        rows = []
        for _ in range(k):
            for i, data in inputs:
                c.set_bytes(i, data)
            rows.append(_timed(c, 1))
        return np.concatenate(rows)

    if warmup:
        runs(int(warmup))
    samples = runs(int(n))
    names = [c.node_info(i)["op_name"] for i in range(c.counts[1])]
    return Profile(samples, names)
