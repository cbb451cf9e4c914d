"""What a model costs on a microcontroller, layer by layer: ``picolite analyze MODEL``.

:func:`analyze` reads a model through picolite's interpreter and returns an
:class:`Analysis`: per layer the operator, shapes, parameters, multiply-accumulates, weight
and activation bytes and the arena live while the layer runs; in total the flash (model +
the code of the kernels the model uses + the runtime's core) and the RAM (arena + stack) of
the target's firmware::

    a = picolite.analyze("model.tflite", target="tflm")
    print(a)                 # a terminal table; in Jupyter a rich table and a plot
    a.macs, a.params, a.flash, a.ram
    a.to_dict()              # what `picolite analyze --json` prints

MACs count the multiply-accumulates of the matrix products, exactly, by one convention:

- CONV_2D: out_n*out_h*out_w*out_c * k_h*k_w*in_c/groups (the filter's last dimension is
  in_c/groups); CONV_3D likewise with k_d.
- DEPTHWISE_CONV_2D: out_n*out_h*out_w*out_c * k_h*k_w.
- FULLY_CONNECTED: batch * out * in (batch = every output element over out).
- BATCH_MATMUL: every output element * the contracted dimension (attention's Q.K^T and
  A.V are BATCH_MATMULs: TFLite has no fused attention operator).
- TRANSPOSE_CONV: in_n*in_h*in_w*in_c * k_h*k_w*out_c (each input element scattered over
  the kernel); CONV_3D_TRANSPOSE likewise.
- The recurrent operators (LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM, BIDIRECTIONAL_SEQUENCE_LSTM,
  RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN, SVDF): every weight matrix
  (input-to-gate, recurrent, projection and auxiliary weights; SVDF's feature and time
  weights) times
  the steps (every input element over the input size: batch x time). A weight kept as
  float16 or int8 and dequantized by a DEQUANTIZE node counts as a constant.
  Gate nonlinearities, peepholes and other element-wise arithmetic are not counted.

Every other operator counts 0 MACs (element-wise, pooling, activations, shape ops).
Parameters are the elements of a layer's constant inputs that hold values (weights and
biases: float, or integers with a quantization scale), not arguments (shapes, axes,
paddings: integers without a scale); in the totals a constant shared by several layers
counts once. Weight bytes are those parameters' bytes.
"""

from __future__ import annotations

import html
import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from picolite._core import TARGETS, required_arena_size
from picolite._unified import Interpreter

ModelLike = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]

# Operators whose MACs this module counts (the rest count 0).
MAC_OPS = ("CONV_2D", "CONV_3D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "BATCH_MATMUL",
           "TRANSPOSE_CONV", "CONV_3D_TRANSPOSE", "LSTM", "UNIDIRECTIONAL_SEQUENCE_LSTM",
           "BIDIRECTIONAL_SEQUENCE_LSTM", "RNN", "UNIDIRECTIONAL_SEQUENCE_RNN",
           "BIDIRECTIONAL_SEQUENCE_RNN", "SVDF")
RECURRENT_OPS = MAC_OPS[7:]
# The weight-matrix inputs of the recurrent operators (TFLite's tensor order); the others
# are the data, biases, peepholes, layer norms and the states.
RECURRENT_WEIGHTS = {
    "LSTM": (1, 2, 3, 4, 5, 6, 7, 8, 16),
    "UNIDIRECTIONAL_SEQUENCE_LSTM": (1, 2, 3, 4, 5, 6, 7, 8, 16),
    "BIDIRECTIONAL_SEQUENCE_LSTM": (1, 2, 3, 4, 5, 6, 7, 8, 16, 18, 19, 20, 21, 22, 23, 24,
                                    25, 33, 40, 41, 42, 43, 44, 45, 46, 47),
    "RNN": (1, 2), "UNIDIRECTIONAL_SEQUENCE_RNN": (1, 2),
    "BIDIRECTIONAL_SEQUENCE_RNN": (1, 2, 5, 6, 10, 11),
    "SVDF": (1, 2),
}

# Where picolite's own runtime keeps its stack figures when a measurement has none
# (the costs table's, measured over the zoo on Cortex-M4F).
DEFAULT_OPT = "Os"


@dataclass
class Layer:
    """One node of the model's main graph."""

    index: int
    op: str
    dtype: str  # the first input's type: the kernel variant that runs
    input_shapes: List[List[int]]
    output_shapes: List[List[int]]
    params: int
    macs: int
    weight_bytes: int
    activation_bytes: int
    arena_live: int  # bytes of planned buffers live while the node runs
    arena_extent: int  # the highest planned byte in use then (offset + size)


@dataclass
class Analysis:
    """The per-layer table and the totals of :func:`analyze`."""

    model: str
    target: str
    model_bytes: int
    layers: List[Layer]
    params: int
    macs: int
    weight_bytes: int
    arena: int
    arena_head: int
    arena_tail: int
    stack: int
    flash: Dict[str, Any] = field(default_factory=dict)
    kernels: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    measured: Optional[Dict[str, Any]] = None
    estimate: Optional[Dict[str, Any]] = None

    @property
    def ram(self) -> int:
        """The target's arena plus the stack: the RAM the model needs on the device."""
        return self.arena + self.stack

    def to_dict(self) -> Dict[str, Any]:
        d = asdict(self)
        d["ram"] = self.ram
        return d

    def to_json(self, **kw: Any) -> str:
        return json.dumps(self.to_dict(), **kw)

    # --- text ------------------------------------------------------------------------

    def summary_lines(self) -> List[str]:
        f = self.flash
        opt = f.get("opt", "?")
        opt = f"-{opt}" if opt in ("Os", "O2") else opt
        lines = [f"model {self.model} ({self.model_bytes} B), target {self.target}: "
                 f"{len(self.layers)} layers, {self.macs:,} MACs, {self.params:,} parameters "
                 f"({self.weight_bytes:,} B of weights)",
                 f"flash {f.get('total', 0):,} B = model {self.model_bytes:,} + kernels "
                 f"{f.get('kernels', 0):,} + core {f.get('core', 0):,} "
                 f"({f.get('runtime', '?')}, {f.get('cpu', '?')}, {opt}; "
                 f"{f.get('source', '')})",
                 f"RAM {self.ram:,} B = arena {self.arena:,} (head {self.arena_head:,}, tail "
                 f"{self.arena_tail:,}) + stack {self.stack:,}"]
        if self.measured:
            m = self.measured
            lines.append(f"measured with picolite's runtime on {m['cpu']} (QEMU, -{m['opt']}): "
                         f"{m['invoke_instructions']:,} instructions per invoke, "
                         f"{_ms_range(m)}")
        elif self.estimate:
            e = self.estimate
            lines.append(f"estimated for picolite's runtime on {e['cpu']}: "
                         f"{e['invoke_instructions']:,} instructions per invoke (mean error "
                         f"{e['error_pct']:.0f} % on the zoo), {_ms_range(e)}")
        lines.extend(f"note: {n}" for n in self.notes)
        return lines

    def table_lines(self) -> List[str]:
        instr = self._instructions()
        head = (f"{'#':>4} {'op':<26} {'output':<18} {'params':>9} {'MACs':>12} "
                f"{'weights B':>10} {'act B':>9} {'arena live':>10}")
        if instr is not None:
            head += f" {'instr':>12}"
        rows = [head]
        for layer in self.layers:
            out = "x".join(str(d) for d in layer.output_shapes[0]) if layer.output_shapes else ""
            row = (f"{layer.index:>4} {layer.op[:26]:<26} {out[:18]:<18} {layer.params:>9,} "
                   f"{layer.macs:>12,} {layer.weight_bytes:>10,} {layer.activation_bytes:>9,} "
                   f"{layer.arena_live:>10,}")
            if instr is not None:
                row += f" {instr[layer.index]:>12,}"
            rows.append(row)
        return rows

    def _instructions(self) -> Optional[List[int]]:
        src = self.measured or self.estimate
        return None if src is None else src["layer_instructions"]

    def __str__(self) -> str:
        return "\n".join(self.table_lines() + [""] + self.summary_lines())

    def __repr__(self) -> str:
        return (f"<Analysis {self.model!r} target={self.target!r} layers={len(self.layers)} "
                f"macs={self.macs} params={self.params} flash={self.flash.get('total')} "
                f"ram={self.ram}>")

    # --- Jupyter ---------------------------------------------------------------------

    def to_html(self, plot: bool = True) -> str:
        instr = self._instructions()
        headers = ["#", "op", "inputs", "output", "params", "MACs", "weights B",
                   "activations B", "arena live B"] + (["instructions"] if instr else [])
        rows = []
        for layer in self.layers:
            row = [layer.index, layer.op, _shapes(layer.input_shapes),
                   _shapes(layer.output_shapes), f"{layer.params:,}", f"{layer.macs:,}",
                   f"{layer.weight_bytes:,}", f"{layer.activation_bytes:,}",
                   f"{layer.arena_live:,}"]
            if instr:
                row.append(f"{instr[layer.index]:,}")
            rows.append(row)
        summary = "".join(f"<li>{html.escape(s)}</li>" for s in self.summary_lines())
        figure = _svg_bars(self) if plot else ""
        return (f"<div><ul>{summary}</ul>{figure}{_html_table(headers, rows)}</div>")

    def _repr_html_(self) -> str:
        return self.to_html()

    def plot(self, ax: Any = None) -> Any:
        """MACs per layer (bars) and the arena live at each step (line), with matplotlib."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(max(6, len(self.layers) * 0.25), 3.5))
        x = np.arange(len(self.layers))
        ax.bar(x, [layer.macs for layer in self.layers], color="#4878a8", label="MACs")
        ax.set_xlabel("layer")
        ax.set_ylabel("MACs")
        ax.set_xticks(x)
        ax.set_xticklabels([layer.op[:10] for layer in self.layers], rotation=90,
                           fontsize=7)
        ax2 = ax.twinx()
        ax2.step(x, [layer.arena_live for layer in self.layers], where="mid",
                 color="#c8553d", label="arena live")
        ax2.set_ylabel("arena live (bytes)")
        ax.set_title(f"{Path(self.model).name}: {self.macs:,} MACs, arena {self.arena:,} B")
        return ax


def _ms_range(m: Dict[str, Any]) -> str:
    lo, hi = m.get("ms", (None, None))
    if lo is None:
        return ""
    return (f"{lo:.2f}-{hi:.2f} ms at {m['clock_mhz']:g} MHz (CPI {m['cpi'][0]}-{m['cpi'][1]}, "
            f"{m['cpi_source']})")


def _shapes(shapes: Sequence[Sequence[int]]) -> str:
    return " ".join("x".join(str(d) for d in s) for s in shapes)


def _html_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    th = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>"
                   for r in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def _svg_bars(a: Analysis, width: int = 640, height: int = 140) -> str:
    """A dependency-free picture for the rich repr: MACs per layer as bars, the arena live
    as a line."""
    n = max(len(a.layers), 1)
    top = max([layer.macs for layer in a.layers] + [1])
    live = max([layer.arena_live for layer in a.layers] + [1])
    w = width / n
    bars = "".join(
        f'<rect x="{i * w:.1f}" y="{height - layer.macs / top * height:.1f}" '
        f'width="{max(w - 1, 1):.1f}" height="{layer.macs / top * height:.1f}" '
        f'fill="#4878a8"><title>{layer.index} {html.escape(layer.op)}: '
        f'{layer.macs:,} MACs</title></rect>' for i, layer in enumerate(a.layers))
    points = " ".join(f"{(i + 0.5) * w:.1f},{height - layer.arena_live / live * height:.1f}"
                      for i, layer in enumerate(a.layers))
    return (f'<svg width="{width}" height="{height}" style="background:#fafafa">{bars}'
            f'<polyline points="{points}" fill="none" stroke="#c8553d" stroke-width="2"/>'
            f'</svg><div style="font-size:80%">bars: MACs per layer (max {top:,}); line: '
            f'arena live (max {live:,} B)</div>')


# --- counting ------------------------------------------------------------------------------

def _prod(shape: Sequence[int]) -> int:
    return int(math.prod(int(d) for d in shape))


def layer_macs(op: str, inputs: Sequence[Optional[Sequence[int]]],
               outputs: Sequence[Sequence[int]],
               constant: Sequence[bool]) -> int:
    """The MACs of one layer by the module's convention; ``inputs`` are the input shapes
    (None for an absent optional input), ``constant`` says which inputs are weights
    (constants, or dequantized constants)."""
    out = list(outputs[0]) if outputs else []
    if op in ("CONV_2D", "CONV_3D"):
        filt = inputs[1]  # [out_c, k_h, k_w, in_c/groups] or [k_d, k_h, k_w, in_c, out_c]
        taps = _prod(filt[1:]) if op == "CONV_2D" else _prod(filt[:-1])
        return _prod(out) * taps
    if op == "DEPTHWISE_CONV_2D":
        filt = inputs[1]  # [1, k_h, k_w, out_c]
        return _prod(out) * _prod(filt[1:3])
    if op == "FULLY_CONNECTED":
        return _prod(out) * int(inputs[1][-1])  # weights [out, in]
    if op == "BATCH_MATMUL":
        lhs = inputs[0]
        contracted = lhs[-1] if len(lhs) < 2 or lhs[-2] == out[-2] else lhs[-2]
        return _prod(out) * int(contracted)
    if op == "TRANSPOSE_CONV":
        filt = inputs[1]  # [out_c, k_h, k_w, in_c]; inputs[2] is the data
        return _prod(inputs[2]) * _prod(filt[:3])
    if op == "CONV_3D_TRANSPOSE":
        filt = inputs[1]  # [k_d, k_h, k_w, out_c, in_c]; inputs[2] is the data
        return _prod(inputs[2]) * _prod(filt[:4])
    if op in RECURRENT_OPS:
        data = inputs[0]
        steps = _prod(data[:-1])
        matrices = sum(_prod(inputs[k]) for k in RECURRENT_WEIGHTS[op]
                       if k < len(inputs) and constant[k] and inputs[k] is not None
                       and len(inputs[k]) == 2)
        return steps * matrices
    return 0


def _tensor_facts(it: Interpreter) -> Dict[int, Dict[str, Any]]:
    facts = {}
    for d in it.get_tensor_details():
        info = it._info(d["index"])  # bytes, is_constant, is_variable (as the CLI reads them)
        dtype = np.dtype(d["dtype"]) if d["dtype"] is not None else np.dtype(np.uint8)
        scaled = len(d["quantization_parameters"]["scales"]) > 0
        facts[int(d["index"])] = {"shape": [int(x) for x in d["shape"]],
                                  "bytes": int(info["bytes"]),
                                  "constant": bool(info["is_constant"]),
                                  "values": bool(np.issubdtype(dtype, np.floating) or scaled)}
    return facts


def _node_times(ops: List[Dict[str, Any]], plan: Any) -> List[int]:
    """Each main-graph node's time on the plan's clock: where its outputs are born (node i
    runs at i+1 in a one-subgraph model; control flow's bodies take clock ticks between)."""
    born = {b.tensor: b.first for b in plan.buffers if b.subgraph == 0 and b.tensor >= 0}
    times, last = [], 0
    for o in ops:
        firsts = [born[int(t)] for t in o["outputs"] if int(t) in born]
        last = min(firsts) if firsts else last + 1
        times.append(last)
    return times


def _live(plan: Any, t: int) -> Tuple[int, int]:
    live = [b for b in plan.buffers if b.first <= t <= b.last]
    return (sum(b.size for b in live), max([b.offset + b.size for b in live] + [0]))


def _interpreter(content: bytes, target: str) -> Interpreter:
    it = Interpreter(model_content=content, target=target)
    it.allocate_tensors()
    return it


def _read(model: ModelLike) -> Tuple[bytes, str]:
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model), "<bytes>"
    return Path(model).read_bytes(), os.fspath(model)


def layers_of(it: Interpreter) -> Tuple[List[Layer], int, int, int]:
    """The main graph's layers, and the totals (params, weight bytes) counting each
    constant once."""
    facts = _tensor_facts(it)
    ops = it._get_ops_details()
    plan = it.memory_plan()
    times = _node_times(ops, plan)
    layers, seen, dequantized = [], set(), set()
    params = weight_bytes = 0
    for o, t in zip(ops, times):
        ins = [facts.get(int(i)) if int(i) >= 0 else None for i in o["inputs"]]
        outs = [facts[int(i)] for i in o["outputs"]]
        const = [f is not None and f["constant"] for f in ins]
        # weights dequantized at run time (float16, hybrid): DEQUANTIZE of a constant
        fixed = [c or int(i) in dequantized for i, c in zip(o["inputs"], const)]
        weights = [c and f["values"] for f, c in zip(ins, const)]
        p = sum(_prod(f["shape"]) for f, w in zip(ins, weights) if w)
        wb = sum(f["bytes"] for f, w in zip(ins, weights) if w)
        act = sum(f["bytes"] for f, c in zip(ins, const) if f is not None and not c)
        act += sum(f["bytes"] for f in outs)
        for i, w in zip(o["inputs"], weights):
            if w and int(i) not in seen:
                seen.add(int(i))
                params += _prod(facts[int(i)]["shape"])
                weight_bytes += facts[int(i)]["bytes"]
        macs = layer_macs(o["op_name"], [f["shape"] if f else None for f in ins],
                          [f["shape"] for f in outs], fixed)
        if o["op_name"] == "DEQUANTIZE" and const[0]:
            dequantized.add(int(o["outputs"][0]))
        live, extent = _live(plan, t)
        dtype = np.dtype(o["operand_types"][0]).name if o.get("operand_types") else ""
        layers.append(Layer(int(o["index"]), o["op_name"], dtype,
                            [f["shape"] for f in ins if f is not None],
                            [f["shape"] for f in outs], p, macs, wb, act, live, extent))
    return layers, params, weight_bytes, len(ops)


def analyze(model: ModelLike, target: str = "tflm", *, cpu: str = "cortex-m4f",
            opt: str = DEFAULT_OPT, runtime: str = "trimmed", measure: bool = False,
            clock_mhz: float = 120.0, source: Optional[str] = None) -> Analysis:
    """Analyzes ``model`` (a path or the bytes) for ``target`` (a name of
    :data:`picolite.TARGETS`; it picks the arena figures and, for a TFLM target, TFLM's code
    sizes). ``cpu``, ``opt`` (``"Os"`` or ``"O2"``) and ``runtime`` (picolite's core:
    ``"full"``, ``"trimmed"`` or ``"minimal"``) pick the row of the code-size table.
    ``measure=True`` builds the model's firmware with picolite's runtime and counts its
    instructions under QEMU (:mod:`picolite.measure`); without the toolchain, or without it
    asked, the estimate from the per-operator cost table is given."""
    from picolite import costs

    content, name = _read(model)
    it = _interpreter(content, target)
    layers, params, weight_bytes, _ = layers_of(it)
    rec = it.allocations()
    arena, arena_note = _required(content, target)
    kernels = sorted({layer.op for layer in layers} | _subgraph_ops(it))
    table = costs.load()
    flash, notes = costs.flash(table, target, kernels, len(content), cpu, opt, runtime)
    notes += [arena_note] if arena_note else []
    stack = costs.stack(table, target, cpu, runtime)
    a = Analysis(model=name, target=target, model_bytes=len(content), layers=layers,
                 params=params, macs=sum(layer.macs for layer in layers),
                 weight_bytes=weight_bytes, arena=arena, arena_head=rec.head,
                 arena_tail=rec.tail, stack=stack, flash=flash, kernels=kernels, notes=notes)
    a.estimate = costs.estimate(table, layers, cpu, clock_mhz)
    if measure:
        from picolite import measure as measuring

        a.measured = measuring.measure(content, cpu=cpu, opt=opt, clock_mhz=clock_mhz,
                                       source=source)
        stacks = [a.measured.get("stack_invoke"), a.measured.get("stack_allocate")]
        if all(stacks):
            a.stack = max(stacks)  # measured: replaces the table's zoo-wide figure
    it.close()
    return a


def _subgraph_ops(it: Interpreter) -> set:
    """Operators of control flow's subgraphs (their kernels are linked too)."""
    try:
        from picolite.export import model_kernels

        return {k[1] for k in model_kernels(it._model_content)}
    except Exception:  # an operator without a kernel: the main graph's ops still count
        return set()


def _required(content: bytes, target: str) -> Tuple[int, str]:
    """The exact arena for the target's firmware, and a note on whose figure it is."""
    note = ("arena: picolite's runtime running LiteRT's kernels (LiteRT's own arena is "
            "not modelled)" if target == "litert" else "")
    return required_arena_size(content, target=target), note


# --- command line ---------------------------------------------------------------------

def main(argv: Sequence[str]) -> int:
    """``picolite analyze MODEL [--target T] [--json | --html] [--measure]``."""
    import argparse
    import sys

    from picolite import measure as measuring

    p = argparse.ArgumentParser(prog="picolite analyze",
                                description="Per layer: operator, shapes, parameters, MACs, "
                                "weight and activation bytes, arena live; flash and RAM on "
                                "the target; time on Cortex-M (estimated, or measured under "
                                "QEMU with --measure).")
    p.add_argument("model", help="the .tflite file")
    p.add_argument("--target", default="tflm", choices=TARGETS,
                   help="the firmware the figures are for (default: tflm)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the analysis as JSON")
    out.add_argument("--html", action="store_true", help="print an HTML page")
    p.add_argument("--measure", action="store_true",
                   help="build the firmware with picolite's runtime and count its "
                        "instructions under QEMU (arm-none-eabi-gcc, qemu-system-arm)")
    p.add_argument("--cpu", default="cortex-m4f", choices=sorted(measuring.CPUS))
    p.add_argument("--opt", default=DEFAULT_OPT, choices=measuring.OPTS,
                   help="optimization level of the code sizes and the measured build")
    p.add_argument("--runtime", default="trimmed", choices=sorted(measuring.RUNTIMES),
                   help="picolite's core: full, trimmed (default) or minimal")
    p.add_argument("--clock", type=float, default=120.0, metavar="MHZ",
                   help="the CPU clock for milliseconds (default: 120)")
    p.add_argument("--source", default=None, help="picolite's source tree (for --measure)")
    args = p.parse_args(list(argv))
    try:
        a = analyze(args.model, args.target, cpu=args.cpu, opt=args.opt, runtime=args.runtime,
                    measure=args.measure, clock_mhz=args.clock, source=args.source)
    except measuring.MeasureError as e:
        print(f"picolite analyze: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(a.to_json(indent=1))
    elif args.html:
        print(f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(a.model)}"
              f"</title></head><body>{a.to_html()}</body></html>")
    else:
        print(a)
    return 0
