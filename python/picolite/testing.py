"""Golden comparison against TFLite: picolite's outputs (and every layer) vs LiteRT.

    report = picolite.testing.compare_with_tflite("model.tflite", layers=True)
    report.ok, report.first_divergence, print(report)
    picolite.testing.assert_matches_tflite("model.tflite")      # for pytest

The reference is LiteRT (``pip install ai-edge-litert``) with the reference op resolver
(BUILTIN_REF): TFLite's reference kernels, which picolite reproduces with target="litert"
(the comparison's default). A model LiteRT refuses but TFLM runs (TFLM's custom operators,
its person detection model) is compared with TFLM's interpreter instead (the tflite-micro
wheel), picolite then running target="tflm"; ``report.reference`` says which. Integer
outputs must be identical bytes; float outputs must agree within ``rtol``/``atol``.
"""

from __future__ import annotations

import html
import os
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

import numpy as np

__all__ = [
    "Comparison",
    "TensorComparison",
    "assert_matches_tflite",
    "compare_with_tflite",
    "random_inputs",
]

DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6


def _model_bytes(model) -> bytes:
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model)
    return open(os.fspath(model), "rb").read()


def _litert(model_bytes: bytes, preserve: bool):
    try:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType
    except ImportError as exc:
        raise ImportError(
            "comparing with TFLite needs LiteRT: pip install ai-edge-litert "
            "(or pip install 'picolite[test]')") from exc
    it = Interpreter(model_content=model_bytes,
                     experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                     experimental_preserve_all_tensors=preserve)
    it.allocate_tensors()
    return it


class _LiteRTJudge:
    name = "litert"
    title = "TFLite (LiteRT reference kernels)"

    def __init__(self, it):
        self.it = it

    def set(self, position: int, index: int, value) -> None:
        self.it.set_tensor(index, value)

    def invoke(self) -> None:
        self.it.invoke()

    def get(self, index: int):
        return self.it.get_tensor(index)


class _TFLMJudge:
    """TFLM's Python interpreter, every tensor kept (kPreserveAllTensors) so that any layer
    can be read; inputs go by position, as its set_input takes them."""

    name = "tflm"

    def __init__(self, data: bytes, arena_size: int, refused: BaseException):
        from tflite_micro.python.tflite_micro import runtime

        self.it = runtime.Interpreter.from_bytes(
            data, arena_size=arena_size,
            intrepreter_config=runtime.InterpreterConfig.kPreserveAllTensors)
        why = (str(refused).strip().splitlines() or [type(refused).__name__])[0]
        self.title = f"TFLM (tflite-micro's interpreter; LiteRT refused the model: {why})"

    def set(self, position: int, index: int, value) -> None:
        self.it.set_input(value, position)

    def invoke(self) -> None:
        self.it.invoke()

    def get(self, index: int):
        return self.it.GetTensor(index, 0)["tensor_data"]


def _judge(data: bytes, preserve: bool):
    """LiteRT's reference kernels, or TFLM's interpreter for a model LiteRT refuses (the
    LiteRT error stands when TFLM is not installed or refuses it too). TFLM's arena: four
    times what picolite needs with every tensor kept (TFLM needs a little more)."""
    try:
        return _LiteRTJudge(_litert(data, preserve))
    except (RuntimeError, ValueError) as refused:
        from picolite._core import required_arena_size

        try:
            need = required_arena_size(data, preserve_all_tensors=True, target="picolite")
            return _TFLMJudge(data, max(1 << 24, 4 * need), refused)
        except Exception:  # TFLM missing or refusing: LiteRT's own error is the answer
            raise refused from None


def random_inputs(details: Sequence[dict], seed: int = 0) -> list:
    """Deterministic random data matching each input's dtype and shape.

    Integer inputs cover their type's full range (bool: 0/1); float inputs are uniform in
    [-1, 1), the range a quantized model's float interface usually expects.
    """
    rng = np.random.default_rng(seed)
    arrays = []
    for d in details:
        shape = tuple(int(s) for s in d["shape"])
        dtype = np.dtype(d["dtype"])
        if dtype == np.bool_:
            arrays.append(rng.integers(0, 2, size=shape).astype(np.bool_))
        elif np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            lo, hi = max(int(info.min), -(2 ** 15)), min(int(info.max), 2 ** 15 - 1)
            arrays.append(rng.integers(lo, hi + 1, size=shape, dtype=np.int64).astype(dtype))
        else:
            arrays.append(rng.uniform(-1.0, 1.0, size=shape).astype(dtype))
    return arrays


def _samples(inputs, details, samples: int) -> list:
    """Normalises the inputs argument into a list of samples (each a list, one per input)."""
    if inputs is None:
        return [random_inputs(details, seed) for seed in range(samples)]
    if isinstance(inputs, np.ndarray):
        return [[inputs]]
    inputs = list(inputs)
    if inputs and all(isinstance(s, (list, tuple)) for s in inputs):
        return [list(s) for s in inputs]
    if len(details) == 1 and len(inputs) > 1:
        return [[np.asarray(x)] for x in inputs]
    return [[np.asarray(x) for x in inputs]]


@dataclass
class TensorComparison:
    """One tensor of one sample, picolite against TFLite."""

    index: int
    name: str
    dtype: str
    shape: tuple
    max_abs_diff: float
    mismatches: int
    size: int
    identical: bool
    ok: bool
    op_index: Optional[int] = None
    op_name: Optional[str] = None
    sample: int = 0

    def __str__(self):
        where = f" (node {self.op_index} {self.op_name})" if self.op_name else ""
        verdict = "identical" if self.identical else ("ok" if self.ok else "DIFFERS")
        return (f"tensor {self.index} '{self.name}'{where} {self.dtype}{list(self.shape)}: "
                f"{verdict}, max abs diff {self.max_abs_diff:g}, "
                f"{self.mismatches}/{self.size} elements differ")


def _compare(index, name, ours, ref, rtol, atol) -> TensorComparison:
    ours = np.asarray(ours)
    ref = np.asarray(ref)
    if ours.dtype == object or ref.dtype == object:  # RESOURCE tensors: None, as LiteRT
        same = ours.shape == ref.shape and ours.tolist() == ref.tolist()
        return TensorComparison(index, name, str(ref.dtype), tuple(ref.shape),
                                0.0 if same else float("inf"), 0 if same else int(ref.size),
                                int(ref.size), same, same)
    same_shape = ours.shape == ref.shape
    identical = same_shape and ours.dtype == ref.dtype and ours.tobytes() == ref.tobytes()
    if not same_shape:
        diff, mismatches = float("inf"), int(max(ours.size, ref.size))
    elif np.issubdtype(ref.dtype, np.floating):
        a, b = ours.astype(np.float64), ref.astype(np.float64)
        d = np.abs(a - b)
        diff = float(d.max()) if d.size else 0.0
        mismatches = int(np.count_nonzero(d > atol + rtol * np.abs(b)))
    else:
        d = np.abs(ours.astype(np.int64) - ref.astype(np.int64))
        diff = float(d.max()) if d.size else 0.0
        mismatches = int(np.count_nonzero(d))
    ok = identical or (same_shape and mismatches == 0 and np.issubdtype(ref.dtype, np.floating))
    return TensorComparison(index, name, str(ref.dtype), tuple(ref.shape), diff, mismatches,
                            int(ref.size), identical, ok)


@dataclass
class Comparison:
    """The result of compare_with_tflite: per-output (and per-layer) agreement."""

    model: str
    reference: str = "litert"  # the judge: "litert" or "tflm" (a model LiteRT refuses)
    reference_title: str = "TFLite (LiteRT reference kernels)"
    outputs: list = field(default_factory=list)   # TensorComparison per sample and output
    layers: list = field(default_factory=list)    # TensorComparison per sample and tensor
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL
    samples: int = 0
    # the effect at the outputs, over the samples: rows of a score output (its last axis)
    # whose arg-max agrees, and the largest change of a score in real units (scale x LSB)
    top1_agree: int = 0
    top1_rows: int = 0
    max_score_change: float = 0.0

    def _add_effect(self, detail: dict, mine, theirs) -> None:
        mine, theirs = np.asarray(mine), np.asarray(theirs)
        if mine.shape != theirs.shape or mine.dtype == object or mine.size == 0:
            return
        scale = 1.0
        q = detail.get("quantization") or (0.0, 0)
        if np.issubdtype(mine.dtype, np.integer) and q[0]:
            scale = float(q[0])
        change = np.abs(mine.astype(np.float64) - theirs.astype(np.float64)) * scale
        self.max_score_change = max(self.max_score_change, float(change.max()))
        if mine.ndim >= 1 and mine.shape[-1] > 1:
            a = mine.reshape(-1, mine.shape[-1]).argmax(axis=1)
            b = theirs.reshape(-1, theirs.shape[-1]).argmax(axis=1)
            self.top1_agree += int(np.count_nonzero(a == b))
            self.top1_rows += int(a.size)

    def divergences(self) -> list:
        """Every layer whose bytes differ, in execution order (needs layers=True): where the
        target leaves the judge, how many elements, the largest difference (in LSB for an
        integer tensor)."""
        return sorted((c for c in self.layers if not c.ok),
                      key=lambda c: (c.sample, c.op_index if c.op_index is not None else -1))

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.outputs) and all(c.ok for c in self.layers)

    @property
    def first_divergence(self) -> Optional[TensorComparison]:
        """The first tensor, in execution order, that differs (needs layers=True)."""
        bad = [c for c in self.layers if not c.ok]
        if not bad:
            return None
        return min(bad, key=lambda c: (c.sample, c.op_index if c.op_index is not None else -1))

    @property
    def max_abs_diff(self) -> float:
        return max((c.max_abs_diff for c in self.outputs), default=0.0)

    def __str__(self):
        lines = [f"picolite vs {self.reference_title} on {self.model}: "
                 f"{'OK' if self.ok else 'MISMATCH'} over {self.samples} sample(s), "
                 f"rtol={self.rtol:g} atol={self.atol:g}"]
        lines += ["  output " + str(c) for c in self.outputs]
        if self.layers:
            bad = [c for c in self.layers if not c.ok]
            lines.append(f"  layers: {len(self.layers) - len(bad)}/{len(self.layers)} agree")
            first = self.first_divergence
            if first is not None:
                lines.append("  first divergence: " + str(first))
            shown = [c for c in self.divergences() if c.sample == 0]
            if len(shown) > 1:
                lines.append("  layers that differ (sample 0; integer differences in LSB):")
                lines += [f"    node {c.op_index} {c.op_name}: {c.mismatches}/{c.size} elements, "
                          f"largest {c.max_abs_diff:g}" for c in shown[:12]]
                if len(shown) > 12:
                    lines.append(f"    ... {len(shown) - 12} more")
        if self.top1_rows:
            lines.append(f"  effect at the outputs: top-1 agrees on {self.top1_agree}/"
                         f"{self.top1_rows} rows, largest score change "
                         f"{self.max_score_change:g}")
        return "\n".join(lines)

    def __repr__(self):
        return (f"<Comparison {self.model}: {'ok' if self.ok else 'MISMATCH'}, "
                f"max abs diff {self.max_abs_diff:g}>")

    def _repr_html_(self):
        rows = "".join(
            "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in (
                c.sample, c.index, c.name, c.dtype, list(c.shape), c.max_abs_diff,
                c.mismatches, "yes" if c.identical else "no", "ok" if c.ok else "DIFFERS"))
            + "</tr>" for c in self.outputs + [c for c in self.layers if not c.ok][:20])
        head = "".join(f"<th>{h}</th>" for h in (
            "sample", "tensor", "name", "dtype", "shape", "max |diff|", "mismatches",
            "identical", "verdict"))
        return (f"<p><b>picolite vs TFLite</b> on {html.escape(self.model)}: "
                f"{'OK' if self.ok else 'MISMATCH'}</p>"
                f"<table><tr>{head}</tr>{rows}</table>")


def _producers(ops: list) -> dict:
    """tensor index -> (node index, op name) of the node that writes it."""
    made = {}
    for op in ops:
        for t in op["outputs"]:
            made[int(t)] = (int(op["index"]), op["op_name"])
    return made


def compare_with_tflite(model, inputs=None, *, layers: bool = False,
                        rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL,
                        samples: int = 3, planner: str = "greedy",
                        target: Optional[str] = None) -> Comparison:
    """Runs the model in picolite and in LiteRT's reference kernels and compares (in TFLM's
    interpreter when LiteRT refuses the model and TFLM runs it).

    ``inputs``: None (``samples`` deterministic random samples), one array, a list with one
    array per input, or a list of samples. Samples run in order on one interpreter each, so
    stateful models are compared over several invocations. ``layers=True`` also compares
    every intermediate tensor (preserve-all-tensors on both sides). picolite runs with
    ``target``: None picks the judge's ("litert": LiteRT's bytes, "tflm" for TFLM); another
    target's arithmetic differs from the judge's in the places the README lists.
    """
    from picolite._unified import Interpreter

    data = _model_bytes(model)
    name = model if isinstance(model, str) else os.fspath(model) if isinstance(
        model, os.PathLike) else f"<{len(data)} bytes>"
    ref = _judge(data, layers)
    ours = Interpreter(model_content=data, preserve_all_tensors=layers, planner=planner,
                       target=target or ref.name)
    ours.allocate_tensors()
    details = ours.get_input_details()
    report = Comparison(str(name), ref.name, ref.title, rtol=rtol, atol=atol)
    made = _producers(ours._get_ops_details()) if layers else {}
    tensor_details = ours.get_tensor_details() if layers else []
    names = [d["name"] for d in tensor_details]
    # RESOURCE handles (VAR_HANDLE's output) hold a variable id, not data to compare
    made = {t: v for t, v in made.items()
            if tensor_details[t]["dtype"] not in (None, np.object_)}
    for s, sample in enumerate(_samples(inputs, details, samples)):
        if len(sample) != len(details):
            raise ValueError(f"sample {s} has {len(sample)} arrays, the model has "
                             f"{len(details)} inputs")
        for k, (d, value) in enumerate(zip(details, sample)):
            ours.set_tensor(d["index"], value)
            ref.set(k, d["index"], value)
        ours.invoke()
        ref.invoke()
        for d in ours.get_output_details():
            mine, theirs = ours.get_tensor(d["index"]), ref.get(d["index"])
            c = _compare(d["index"], d["name"], mine, theirs, rtol, atol)
            c.sample = s
            report.outputs.append(c)
            report._add_effect(d, mine, theirs)
        for t, (node, op) in sorted(made.items(), key=lambda kv: kv[1][0]):
            c = _compare(t, names[t], ours.get_tensor(t), ref.get(t), rtol, atol)
            c.op_index, c.op_name, c.sample = node, op, s
            report.layers.append(c)
        report.samples = s + 1
    return report


def assert_matches_tflite(model, **kw: Any) -> Comparison:
    """pytest helper: raises AssertionError whose message is the full report."""
    report = compare_with_tflite(model, **kw)
    if not report.ok:
        raise AssertionError(str(report))
    return report
