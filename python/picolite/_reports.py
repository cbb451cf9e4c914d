"""What the arena holds, as report objects: the allocation report (TFLM's text), the head
plan of an interpreter, and plan_memory's result; each prints and renders in notebooks.
"""

from __future__ import annotations

import html
from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Sequence, Tuple

from picolite import _picolite as _c


#: Planner names, in the C enum's order.
PLANNERS: Tuple[str, ...] = tuple(_c.planners())


@dataclass(frozen=True)
class PlanResult:
    """What :func:`plan_memory` returns: one offset per buffer, the head size (``total``),
    the live-bytes lower bound no plan can beat, and the planner used."""

    offsets: List[int]
    total: int
    lower_bound: int
    planner: str

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


def plan_memory(buffers: Sequence[Sequence[int]], planner: str = "greedy") -> PlanResult:
    """Plans buffers given as ``(size, first, last)`` or ``(size, first, last,
    offline_offset)`` tuples (lifetimes are inclusive node indices)."""
    offsets, total, lower, name = _c.plan_memory([tuple(b) for b in buffers], planner)
    return PlanResult(offsets, total, lower, name)


def html_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


class AllocationReport:
    """Where the arena went: head (planned tensors + scratch), tail (persistent data, by
    TFLM's categories), the temp high-water, and the lower bound of the head.
    ``str(report)``: for a TFLM target, TFLM's RecordingMicroAllocator lines (its figures),
    then picolite's own headed [picolite]; for picolite's own arena, the same lines in
    TFLM's words headed [picolite] (they are not TFLM's figures)."""

    def __init__(self, rec: Dict[str, Any], text: str):
        self.total: int = rec["total"]
        self.head: int = rec["head"]
        self.tail: int = rec["tail"]
        self.head_tensors: int = rec["head_tensors"]
        self.head_scratch: int = rec["head_scratch"]
        self.temp_high_water: int = rec["temp_high_water"]
        self.required: int = rec["peak"]
        self.lower_bound: int = rec["lower_bound"]
        self.planner: str = rec["planner"]
        self.arena_size: int = rec["arena_size"]
        self.categories: Dict[str, Dict[str, int]] = {
            name: {"used": used, "requested": requested, "count": count}
            for name, used, requested, count in rec["categories"]
        }
        self._text = text
        self.target: str = rec.get("target", "picolite")

    def to_dict(self) -> Dict[str, Any]:
        keys = ("total", "head", "tail", "head_tensors", "head_scratch", "temp_high_water",
                "required", "lower_bound", "planner", "arena_size", "target")
        d = {k: getattr(self, k) for k in keys}
        d["categories"] = {k: dict(v) for k, v in self.categories.items()}
        return d

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return (f"<AllocationReport total={self.total} head={self.head} tail={self.tail} "
                f"lower_bound={self.lower_bound} planner={self.planner!r} "
                f"target={self.target!r}>")

    def _repr_html_(self) -> str:
        summary = html_table(
            ["arena", "total", "head", "tail", "temp high-water", "head lower bound",
             "planner"],
            [[self.arena_size, self.total, self.head, self.tail, self.temp_high_water,
              self.lower_bound, self.planner]])
        cats = html_table(["category", "used", "requested", "count"],
                          [[k, v["used"], v["requested"], v["count"]]
                           for k, v in self.categories.items()])
        return summary + cats


@dataclass(frozen=True)
class PlannedBuffer:
    """One buffer of the head plan; tensor is -1 (and name '') for kernel scratch. subgraph
    is the subgraph the tensor (or the kernel that asked for the scratch) belongs to; tensor
    indices are that subgraph's. first/last are on the plan's one clock over every subgraph
    (TFLM's allocation scopes), so buffers of different subgraphs compare."""

    tensor: int
    name: str
    offset: int
    size: int
    first: int
    last: int
    offline_offset: int = -1
    subgraph: int = 0


class MemoryPlan:
    """The head plan: every planned buffer with its lifetime, the head size, and the
    live-bytes lower bound beside it (the gap is planner waste)."""

    def __init__(self, buffers: List[PlannedBuffer], head: int, lower_bound: int,
                 planner: str):
        self.buffers = buffers
        self.head = head
        self.lower_bound = lower_bound
        self.planner = planner

    def to_dict(self) -> Dict[str, Any]:
        return {"planner": self.planner, "head": self.head, "lower_bound": self.lower_bound,
                "buffers": [asdict(b) for b in self.buffers]}

    def __repr__(self) -> str:
        return (f"<MemoryPlan planner={self.planner!r} buffers={len(self.buffers)} "
                f"head={self.head} lower_bound={self.lower_bound}>")

    def _repr_html_(self) -> str:
        width = max(self.head, 1)
        rows = []
        for b in sorted(self.buffers, key=lambda b: b.offset):
            left, span = 100.0 * b.offset / width, max(100.0 * b.size / width, 0.3)
            bar = (f'<div style="position:relative;width:240px;height:10px;background:#eee">'
                   f'<div style="position:absolute;left:{left:.2f}%;width:{span:.2f}%;'
                   f'height:10px;background:#4a7"></div></div>')
            rows.append(f"<tr><td>{b.subgraph}</td><td>{b.tensor}</td>"
                        f"<td>{html.escape(b.name)}</td>"
                        f"<td>{b.offset}</td><td>{b.size}</td><td>{b.first}..{b.last}</td>"
                        f"<td>{bar}</td></tr>")
        head = ("<tr><th>subgraph</th><th>tensor</th><th>name</th><th>offset</th><th>size</th>"
                "<th>nodes</th><th>place in head</th></tr>")
        caption = (f"<p>planner {html.escape(self.planner)}: head {self.head} bytes, "
                   f"lower bound {self.lower_bound}</p>")
        return caption + f"<table>{head}{''.join(rows)}</table>"
