"""Does the model still compute what it should on the target? ``picolite.validate``.

:func:`validate` runs a data set through the target's kernels (picolite, on every core,
through :func:`picolite.evaluate`) and through a reference, and reports ST Edge AI's
validation metrics per output, on dequantized (real) values::

    r = picolite.validate("model_int8.tflite", x_test, reference="model_float.tflite",
                          labels=y_test, target="tflm")
    print(r)                  # a terminal table; in Jupyter a rich table and plots
    r.outputs[0].metrics["rmse"], r.outputs[0].confusion

The reference is ``"litert"`` (LiteRT's reference kernels on the same model, the default),
a float model (its path or bytes: it gets the real-valued inputs, the model under test the
same inputs quantized as it expects) or the reference outputs themselves (arrays).

Metrics, with ``p`` the target's and ``r`` the reference's outputs over every sample (as
float64) and ``e = p - r``: ``rmse`` sqrt(mean(e^2)), ``mae`` mean(|e|), ``l2r``
||e|| / ||r|| (relative L2), ``cos`` p.r / (||p|| ||r||), ``nse`` 1 - sum(e^2) /
sum((r - mean(r))^2) (Nash-Sutcliffe), ``mean`` and ``std`` of e, ``top1`` the fraction of
samples whose arg-max agrees; with labels ``acc`` (the target's accuracy), ``ref_acc`` and
the confusion matrix (rows: labels, columns: the target's classes).

:func:`layer_errors` compares every layer of an int8 model with its float original (tensors
matched by name, else by position among the two models' operators), with the statistics
TensorFlow's quantization debugger reports, without TensorFlow.
"""

from __future__ import annotations

import html
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from picolite._unified import Interpreter
from picolite.evaluate import evaluate

METRICS = ("rmse", "mae", "l2r", "cos", "nse", "mean", "std", "top1")
ModelLike = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".pgm", ".ppm")


# --- metrics ------------------------------------------------------------------------------

def metrics(pred: np.ndarray, ref: np.ndarray) -> Dict[str, float]:
    """ST Edge AI's metrics between two arrays of one output, samples first."""
    p = np.asarray(pred, np.float64)
    r = np.asarray(ref, np.float64)
    if p.shape != r.shape:
        raise ValueError(f"the outputs' shapes differ: {p.shape} and {r.shape}")
    e = (p - r).ravel()
    pf, rf = p.ravel(), r.ravel()
    rn, pn = float(np.linalg.norm(rf)), float(np.linalg.norm(pf))
    var = float(np.sum((rf - rf.mean()) ** 2)) if rf.size else 0.0
    sse = float(np.sum(e ** 2))
    out = {"rmse": math.sqrt(sse / max(e.size, 1)), "mae": float(np.mean(np.abs(e))),
           "l2r": float(np.linalg.norm(e)) / rn if rn else (0.0 if sse == 0 else math.inf),
           "cos": float(pf @ rf) / (pn * rn) if pn and rn else float(pn == rn),
           "nse": 1.0 - sse / var if var else (1.0 if sse == 0 else -math.inf),
           "mean": float(e.mean()) if e.size else 0.0,
           "std": float(e.std()) if e.size else 0.0}
    if p.ndim >= 2 and p.shape[0] > 0:
        flat_p = p.reshape(p.shape[0], -1)
        flat_r = r.reshape(r.shape[0], -1)
        out["top1"] = float(np.mean(flat_p.argmax(1) == flat_r.argmax(1)))
    return out


def per_sample(pred: np.ndarray, ref: np.ndarray) -> Dict[str, np.ndarray]:
    """rmse, mae, l2r and cos of every sample (rows of the samples-first arrays)."""
    p = np.asarray(pred, np.float64).reshape(len(pred), -1)
    r = np.asarray(ref, np.float64).reshape(len(ref), -1)
    e = p - r
    rn = np.linalg.norm(r, axis=1)
    pn = np.linalg.norm(p, axis=1)
    en = np.linalg.norm(e, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        l2r = np.where(rn > 0, en / np.where(rn > 0, rn, 1), np.where(en > 0, np.inf, 0.0))
        cos = np.where((pn > 0) & (rn > 0), np.sum(p * r, 1) / (pn * rn), (pn == rn) * 1.0)
    return {"rmse": np.sqrt(np.mean(e ** 2, axis=1)), "mae": np.mean(np.abs(e), axis=1),
            "l2r": l2r, "cos": cos}


def confusion(labels: np.ndarray, predicted: np.ndarray, classes: int) -> np.ndarray:
    m = np.zeros((classes, classes), np.int64)
    np.add.at(m, (np.asarray(labels, np.int64), np.asarray(predicted, np.int64)), 1)
    return m


# --- quantization helpers ------------------------------------------------------------------

def _qparams(detail: Dict[str, Any]):
    q = detail["quantization_parameters"]
    if len(q["scales"]) == 0 or not np.issubdtype(np.dtype(detail["dtype"]), np.integer):
        return None
    return np.asarray(q["scales"], np.float64), np.asarray(q["zero_points"], np.float64), \
        int(q["quantized_dimension"])


def dequantize(x: np.ndarray, detail: Dict[str, Any]) -> np.ndarray:
    """Real values of a tensor, or of samples of it (a leading batch axis): (q - zero_point)
    * scale, per channel along the quantized dimension."""
    qp = _qparams(detail)
    if qp is None:
        return np.asarray(x, np.float64)
    scale, zp, axis = qp
    if scale.size > 1:  # per channel: along the quantized dimension
        shape = [1] * x.ndim
        shape[axis + (x.ndim - len(detail["shape"]))] = scale.size
        scale, zp = scale.reshape(shape), zp.reshape(shape)
    return (np.asarray(x, np.float64) - zp) * scale


def quantize(x: np.ndarray, detail: Dict[str, Any]) -> np.ndarray:
    """Real values as the tensor's type expects them (rounded, clamped); an array already of
    that type passes unchanged."""
    dtype = np.dtype(detail["dtype"])
    x = np.asarray(x)
    if x.dtype == dtype:
        return x
    qp = _qparams(detail)
    if qp is None:
        return x.astype(dtype)
    scale, zp, _ = qp
    info = np.iinfo(dtype)
    q = np.round(x.astype(np.float64) / scale[0]) + zp[0]
    return np.clip(q, info.min, info.max).astype(dtype)


# --- data -------------------------------------------------------------------------------

def _load_image(path: Path) -> np.ndarray:
    try:
        from PIL import Image

        return np.asarray(Image.open(path))
    except ImportError:
        import matplotlib.image as mpimg

        img = mpimg.imread(path)
        return (img * 255).astype(np.uint8) if img.dtype != np.uint8 else img


def load_samples(data: Any) -> List[List[np.ndarray]]:
    """A data set as a list of samples, each a list of one array per model input: from an
    array (samples first), a list or dict of such arrays (one per input), an iterable of
    samples, or a folder of .npy / .npz files or images (sorted by name)."""
    if isinstance(data, (str, os.PathLike)) and Path(data).is_dir():
        files = sorted(p for p in Path(data).iterdir()
                       if p.suffix.lower() in (".npy", ".npz") + IMAGE_SUFFIXES)
        out = []
        for p in files:
            if p.suffix == ".npy":
                out.append([np.load(p)])
            elif p.suffix == ".npz":
                with np.load(p) as z:
                    out.append([z[k] for k in z.files])
            else:
                out.append([_load_image(p)])
        return out
    if isinstance(data, np.ndarray):
        return [[x] for x in data]
    if isinstance(data, dict):
        arrays = list(data.values())
        return [list(s) for s in zip(*arrays)]
    if isinstance(data, (list, tuple)) and data and all(
            isinstance(a, np.ndarray) and a.ndim >= 1 for a in data) and \
            len({len(a) for a in data}) == 1 and not isinstance(data, list):
        return [list(s) for s in zip(*data)]  # a tuple of arrays: one per input
    samples = []
    for s in data:
        samples.append([np.asarray(a) for a in s] if isinstance(s, (list, tuple))
                       else [np.asarray(s)])
    return samples


def _fit(sample: np.ndarray, detail: Dict[str, Any], real: bool) -> np.ndarray:
    """One sample for one input: its shape with or without the batch dim; real values
    quantized for an integer input (or dequantized for a float one)."""
    shape = tuple(int(d) for d in detail["shape"])
    x = np.asarray(sample)
    if x.shape != shape and x.size == math.prod(shape):
        x = x.reshape(shape)
    dtype = np.dtype(detail["dtype"])
    if np.issubdtype(dtype, np.integer) and _qparams(detail) is not None and \
            (np.issubdtype(x.dtype, np.floating) or real):
        return quantize(x.astype(np.float64), detail)
    if np.issubdtype(dtype, np.floating) and np.issubdtype(x.dtype, np.integer):
        return x.astype(dtype)
    return x.astype(dtype, copy=False)


def _stack(samples: List[List[np.ndarray]], details) -> List[np.ndarray]:
    return [np.stack([_fit(s[i], d, False) for s in samples]) for i, d in enumerate(details)]


def _real_inputs(samples, details) -> List[List[np.ndarray]]:
    """Samples as real values: integer samples fed to a quantized input are dequantized."""
    out = []
    for s in samples:
        row = []
        for x, d in zip(s, details):
            x = np.asarray(x)
            if np.issubdtype(x.dtype, np.integer) and x.dtype == np.dtype(d["dtype"]) and \
                    _qparams(d) is not None:
                row.append(dequantize(x, d))
            else:
                row.append(x.astype(np.float64))
        out.append(row)
    return out


# --- the report ------------------------------------------------------------------------------

@dataclass
class OutputReport:
    """One output's metrics over the data set."""

    index: int
    name: str
    metrics: Dict[str, float]
    per_sample: Dict[str, np.ndarray] = field(repr=False, default_factory=dict)
    acc: Optional[float] = None
    ref_acc: Optional[float] = None
    confusion: Optional[np.ndarray] = None

    @property
    def worst_sample(self) -> int:
        """The sample whose output is farthest from the reference (largest rmse)."""
        rmse = self.per_sample.get("rmse")
        return int(np.argmax(rmse)) if rmse is not None and len(rmse) else -1


@dataclass
class ValidationReport:
    """What :func:`validate` found: one :class:`OutputReport` per output."""

    model: str
    reference: str
    target: str
    samples: int
    outputs: List[OutputReport]
    predictions: List[np.ndarray] = field(repr=False, default_factory=list)
    references: List[np.ndarray] = field(repr=False, default_factory=list)

    def to_dict(self) -> Dict[str, Any]:
        return {"model": self.model, "reference": self.reference, "target": self.target,
                "samples": self.samples,
                "outputs": [{"index": o.index, "name": o.name, **o.metrics, "acc": o.acc,
                             "ref_acc": o.ref_acc,
                             "confusion": None if o.confusion is None
                             else o.confusion.tolist()} for o in self.outputs]}

    def rows(self) -> List[List[str]]:
        rows = []
        for o in self.outputs:
            m = o.metrics
            rows.append([str(o.index), o.name[:28]] +
                        [f"{m[k]:.4g}" if k in m else "-" for k in METRICS] +
                        [f"{o.acc:.2%}" if o.acc is not None else "-",
                         f"{o.ref_acc:.2%}" if o.ref_acc is not None else "-"])
        return rows

    HEADERS = ["#", "output"] + [k.upper() if k != "top1" else "top-1" for k in METRICS] + \
        ["ACC", "ref ACC"]

    def __str__(self) -> str:
        rows = [self.HEADERS] + self.rows()
        widths = [max(len(r[c]) for r in rows) for c in range(len(self.HEADERS))]
        lines = [f"{self.model} on {self.target} vs {self.reference}: {self.samples} samples"]
        lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows]
        for o in self.outputs:
            if o.confusion is not None and len(o.confusion) <= 12:
                lines.append(f"confusion of output {o.index} (rows: labels, columns: "
                             "predicted)")
                lines += ["  " + " ".join(f"{v:5d}" for v in row) for row in o.confusion]
        return "\n".join(lines)

    def __repr__(self) -> str:
        worst = min((o.metrics.get("cos", 1.0) for o in self.outputs), default=1.0)
        return (f"<ValidationReport {self.model!r} vs {self.reference!r}: {self.samples} "
                f"samples, {len(self.outputs)} outputs, min cos {worst:.4g}>")

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.HEADERS)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                       for r in self.rows())
        return (f"<p><b>{html.escape(self.model)}</b> on {html.escape(self.target)} vs "
                f"{html.escape(self.reference)}: {self.samples} samples</p>"
                f"<table><tr>{head}</tr>{body}</table>" + _svg_hist(self))

    def plot(self, output: int = 0, axes: Any = None) -> Any:
        """Target vs reference (scatter) and the error's histogram for one output."""
        import matplotlib.pyplot as plt

        if axes is None:
            _, axes = plt.subplots(1, 2, figsize=(9, 3.5))
        p = self.predictions[output].ravel()
        r = self.references[output].ravel()
        axes[0].scatter(r, p, s=3, alpha=0.4)
        lo, hi = float(min(r.min(), p.min())), float(max(r.max(), p.max()))
        axes[0].plot([lo, hi], [lo, hi], color="grey", lw=1)
        axes[0].set_xlabel(f"reference ({self.reference})")
        axes[0].set_ylabel(f"target ({self.target})")
        axes[1].hist(p - r, bins=50)
        axes[1].set_xlabel("error (target - reference)")
        axes[0].set_title(f"output {output}: cos {self.outputs[output].metrics['cos']:.4f}")
        return axes


def _svg_hist(r: ValidationReport, width: int = 360, height: int = 90) -> str:
    if not r.predictions:
        return ""
    e = (r.predictions[0] - r.references[0]).ravel()
    if not e.size or not np.isfinite(e).all():
        return ""
    counts, edges = np.histogram(e, bins=40)
    top = max(int(counts.max()), 1)
    w = width / len(counts)
    bars = "".join(f'<rect x="{i * w:.1f}" y="{height - c / top * height:.1f}" '
                   f'width="{w - 1:.1f}" height="{c / top * height:.1f}" fill="#4878a8"/>'
                   for i, c in enumerate(counts))
    return (f'<svg width="{width}" height="{height}">{bars}</svg><div style="font-size:80%">'
            f'error of output 0, {edges[0]:.3g} .. {edges[-1]:.3g}</div>')


# --- running --------------------------------------------------------------------------------

def _read(model: Any) -> bytes:
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model)
    return Path(model).read_bytes()


def _name(model: Any) -> str:
    return os.fspath(model) if isinstance(model, (str, os.PathLike)) else \
        f"<{len(model)} bytes>"


def _details(content: bytes, target: str):
    it = Interpreter(model_content=content, target=target)
    return it.get_input_details(), it.get_output_details()


def _litert_outputs(content: bytes, arrays: List[np.ndarray]) -> List[np.ndarray]:
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    ref = Interpreter(model_content=content,
                      experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    ref.allocate_tensors()
    ins, outs = ref.get_input_details(), ref.get_output_details()
    results: List[List[np.ndarray]] = [[] for _ in outs]
    for s in range(len(arrays[0])):
        for d, a in zip(ins, arrays):
            ref.set_tensor(d["index"], a[s].reshape(d["shape"]))
        ref.invoke()
        for o, d in zip(results, outs):
            o.append(ref.get_tensor(d["index"]).copy())
    return [np.stack(o) for o in results]


def _squeeze(outputs: List[np.ndarray], details) -> List[np.ndarray]:
    """Samples first, each sample its tensor's shape."""
    return [np.asarray(o).reshape((len(o),) + tuple(int(x) for x in d["shape"]))
            for o, d in zip(outputs, details)]


def validate(model: ModelLike, data: Any, reference: Any = "litert", *,
             target: str = "tflm", labels: Optional[Sequence[int]] = None,
             progress: Optional[bool] = None, workers: Optional[int] = None,
             **options: Any) -> ValidationReport:
    """Runs ``data`` through ``model`` on ``target``'s kernels (picolite.evaluate, every
    core) and through ``reference``; returns the metrics per output on real values.

    ``data``: samples first (an array, a list/dict of arrays one per input, an iterable of
    samples or a folder of .npy/.npz/images). Real-valued samples are quantized for an
    integer input. ``labels``: class indices, one per sample (ACC, confusion matrix).
    ``options`` go to the interpreter (``planner``, ``kernels`` ...)."""
    content = _read(model)
    ins, outs = _details(content, target)
    samples = load_samples(data)
    if not samples:
        raise ValueError("validate: the data set is empty")
    arrays = _stack(samples, ins)
    got = evaluate(content, arrays, workers=workers, progress=progress,
                            target=target, **options)
    got = _squeeze(got, outs)
    ref_name = reference if isinstance(reference, str) else "given outputs"
    if isinstance(reference, str) and reference == "litert":
        ref = _squeeze(_litert_outputs(content, arrays), outs)
        ref_real = [dequantize(r, d) for r, d in zip(ref, outs)]
    elif isinstance(reference, (str, os.PathLike, bytes, bytearray)):
        ref_content = _read(reference)
        ref_name = _name(reference)
        rins, routs = _details(ref_content, "tflm")
        real = _real_inputs(samples, ins)
        rarrays = [np.stack([_fit(s[i], d, True) for s in real]) for i, d in enumerate(rins)]
        ref = _squeeze(evaluate(ref_content, rarrays, workers=workers,
                                         progress=progress), routs)
        ref_real = [dequantize(r, d) for r, d in zip(ref, routs)]
    else:
        ref_real = [np.asarray(r, np.float64) for r in
                    (reference if isinstance(reference, (list, tuple)) else [reference])]
    got_real = [dequantize(g, d) for g, d in zip(got, outs)]
    if len(ref_real) != len(got_real):
        raise ValueError(f"the reference has {len(ref_real)} outputs, the model "
                         f"{len(got_real)}")
    reports = []
    for i, (p, r, d) in enumerate(zip(got_real, ref_real, outs)):
        r = r.reshape(p.shape)
        rep = OutputReport(i, d["name"], metrics(p, r), per_sample(p, r))
        if labels is not None:
            lab = np.asarray(labels).reshape(-1)
            pred = p.reshape(len(p), -1).argmax(1)
            classes = max(p.reshape(len(p), -1).shape[1], int(lab.max()) + 1)
            rep.acc = float(np.mean(pred == lab))
            rep.ref_acc = float(np.mean(r.reshape(len(r), -1).argmax(1) == lab))
            rep.confusion = confusion(lab, pred, classes)
        reports.append(rep)
    return ValidationReport(_name(model), ref_name, target, len(samples), reports,
                            got_real, ref_real)


# --- per layer: an int8 model against its float original --------------------------------------

QUANT_OPS = ("QUANTIZE", "DEQUANTIZE")


@dataclass
class LayerError:
    """One layer's output, int8 (dequantized) against float: TF's quantization debugger's
    statistics (num_elements, mean_error, stddev, max_abs_error, mean_squared_error) and
    rmse/scale (about 1/sqrt(12) = 0.29 for a well-quantized layer: rounding alone)."""

    op_index: int
    op: str
    tensor: str
    float_tensor: str
    num_elements: int
    mean_error: float
    stddev: float
    max_abs_error: float
    mean_squared_error: float
    rmse_scale: float
    cos: float
    scale: float


@dataclass
class LayerReport:
    model: str
    reference: str
    layers: List[LayerError]
    matched_by: str
    threshold: float = 1.0  # rmse/scale above it: a suspect

    @property
    def suspects(self) -> List[LayerError]:
        return [x for x in self.layers if x.rmse_scale > self.threshold]

    @property
    def first_suspect(self) -> Optional[LayerError]:
        """The first layer, in execution order, whose error is well above rounding: where
        the quantization went wrong (later layers inherit the error)."""
        s = self.suspects
        return s[0] if s else None

    def __str__(self) -> str:
        lines = [f"{self.model} vs {self.reference} per layer (matched by {self.matched_by})",
                 f"{'#':>4} {'op':<22} {'rmse/scale':>10} {'cos':>8} {'max|err|':>10} "
                 f"{'mean err':>10} {'std':>10}  tensor"]
        for x in self.layers:
            flag = " <-" if x is self.first_suspect else ""
            lines.append(f"{x.op_index:>4} {x.op[:22]:<22} {x.rmse_scale:>10.3f} "
                         f"{x.cos:>8.4f} {x.max_abs_error:>10.4g} {x.mean_error:>10.3g} "
                         f"{x.stddev:>10.3g}  {x.tensor[:60]}{flag}")
        first = self.first_suspect
        lines.append("first suspect: " + (f"layer {first.op_index} {first.op} "
                                          f"({first.tensor})" if first else "none"))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{h}</th>" for h in ("#", "op", "rmse/scale", "cos", "max |err|",
                                                 "mean err", "std", "tensor"))
        bad = ' style="background:#fdd"'
        body = "".join(
            f"<tr{bad if x.rmse_scale > self.threshold else ''}>" +
            "".join(f"<td>{html.escape(str(v))}</td>" for v in (
                x.op_index, x.op, f"{x.rmse_scale:.3f}", f"{x.cos:.4f}",
                f"{x.max_abs_error:.4g}", f"{x.mean_error:.3g}", f"{x.stddev:.3g}",
                x.tensor)) + "</tr>" for x in self.layers)
        return (f"<p>{html.escape(self.model)} vs {html.escape(self.reference)} per layer"
                f"</p><table><tr>{head}</tr>{body}</table>")

    def plot(self, ax: Any = None) -> Any:
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(max(6, len(self.layers) * 0.3), 3))
        ax.bar(range(len(self.layers)), [x.rmse_scale for x in self.layers])
        ax.axhline(self.threshold, color="#c8553d", lw=1)
        ax.set_xticks(range(len(self.layers)))
        ax.set_xticklabels([f"{x.op_index} {x.op[:8]}" for x in self.layers], rotation=90,
                           fontsize=7)
        ax.set_ylabel("rmse / scale")
        return ax


def _graph(content: bytes):
    it = Interpreter(model_content=content, preserve_all_tensors=True)
    it.allocate_tensors()
    return it, it._get_ops_details(), it.get_tensor_details()


def _match(qops, qtensors, fops, ftensors):
    """(int8 op, int8 output tensor, float output tensor) pairs, and how they were matched."""
    fnames = {t["name"]: t for t in ftensors}
    core_q = [o for o in qops if o["op_name"] not in QUANT_OPS]
    core_f = [o for o in fops if o["op_name"] not in QUANT_OPS]
    pairs, by_name = [], 0
    positional = [o["op_name"] for o in core_q] == [o["op_name"] for o in core_f]
    for k, o in enumerate(core_q):
        q = qtensors[int(o["outputs"][0])]
        f = fnames.get(q["name"])
        if f is not None and list(f["shape"]) == list(q["shape"]):
            by_name += 1
        elif positional:
            f = ftensors[int(core_f[k]["outputs"][0])]
        else:
            continue
        pairs.append((o, q, f))
    how = "name" if by_name == len(pairs) else "position" if by_name == 0 else \
        f"name ({by_name}) and position"
    return pairs, how


def layer_errors(model: ModelLike, float_model: ModelLike, data: Any = None, *,
                 samples: int = 4, threshold: float = 1.0) -> LayerReport:
    """Every layer of the quantized ``model`` against the same layer of ``float_model``,
    over ``samples`` samples of ``data`` (real values; default: uniform in [-1, 1))."""
    qc, fc = _read(model), _read(float_model)
    qit, qops, qts = _graph(qc)
    fit, fops, fts = _graph(fc)
    pairs, how = _match(qops, qts, fops, fts)
    fin = fit.get_input_details()
    if data is None:
        rng = np.random.default_rng(0)
        data = [[rng.uniform(-1, 1, [int(x) for x in d["shape"]]).astype(np.float32)
                 for d in fin] for _ in range(samples)]
    real = _real_inputs(load_samples(data)[:samples], qit.get_input_details())
    acc: Dict[int, List[Any]] = {}
    for s in real:
        for d, x in zip(qit.get_input_details(), s):
            qit.set_tensor(d["index"], _fit(x, d, True))
        for d, x in zip(fin, s):
            fit.set_tensor(d["index"], _fit(x, d, True))
        qit.invoke()
        fit.invoke()
        for k, (o, q, f) in enumerate(pairs):
            qv = dequantize(qit.get_tensor(q["index"]), q)
            fv = np.asarray(fit.get_tensor(f["index"]), np.float64)
            acc.setdefault(k, []).append((qv.ravel(), fv.ravel()))
    rows = []
    for k, (o, q, f) in enumerate(pairs):
        qv = np.concatenate([a for a, _ in acc[k]])
        fv = np.concatenate([b for _, b in acc[k]])
        e = qv - fv
        qp = _qparams(q)
        scale = float(qp[0][0]) if qp is not None else 0.0
        mse = float(np.mean(e ** 2))
        m = metrics(qv[None], fv[None])
        rows.append(LayerError(int(o["index"]), o["op_name"], q["name"], f["name"], int(e.size),
                               float(e.mean()), float(e.std()), float(np.abs(e).max()), mse,
                               math.sqrt(mse) / scale if scale else math.inf, m["cos"], scale))
    return LayerReport(_name(model), _name(float_model), rows, how, threshold)
