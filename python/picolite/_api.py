"""The Python face of the C runtime: tf.lite's Interpreter API, reports, planning helpers.

The extension (_picolite) returns plain values (tuples, dicts of ints); this module turns
them into what tf.lite / LiteRT users expect (dicts with numpy arrays and numpy type classes)
and into report objects that print TFLM's text and render in notebooks.
"""

from __future__ import annotations

import contextlib
import enum
import html
import operator
import os
import sys
from dataclasses import asdict, dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from picolite import _picolite as _c
from picolite import targets as _targets

Arena = _c.Arena
Error = _c.Error
ModelError = _c.ModelError
ArenaTooSmallError = _c.ArenaTooSmallError
UnsupportedOpError = _c.UnsupportedOpError
StateError = _c.StateError

#: Planner names, in the C enum's order.
PLANNERS: Tuple[str, ...] = tuple(_c.planners())
# The firmwares whose bytes (and, for TFLM targets, arena) picolite predicts: pl_target.h.
TARGETS: Tuple[str, ...] = tuple(_c.targets())

ModelLike = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]

# TFLite TensorType -> numpy type class, as tf.lite reports dtypes.
_DTYPES: Dict[int, Any] = {
    0: np.float32, 1: np.float16, 2: np.int32, 3: np.uint8, 4: np.int64, 5: np.bytes_,
    6: np.bool_, 7: np.int16, 8: np.complex64, 9: np.int8, 10: np.float64,
    11: np.complex128, 12: np.uint64, 15: np.uint32, 16: np.uint16,
}
_TYPE_NAMES: Dict[Any, str] = {
    np.dtype(np.float32): "FLOAT32", np.dtype(np.float16): "FLOAT16",
    np.dtype(np.int32): "INT32", np.dtype(np.uint8): "UINT8", np.dtype(np.int64): "INT64",
    np.dtype(np.bool_): "BOOL", np.dtype(np.int16): "INT16",
    np.dtype(np.complex64): "COMPLEX64", np.dtype(np.int8): "INT8",
    np.dtype(np.float64): "FLOAT64", np.dtype(np.complex128): "COMPLEX128",
    np.dtype(np.uint64): "UINT64", np.dtype(np.uint32): "UINT32",
    np.dtype(np.uint16): "UINT16",
}


_STRING = 5  # TensorType STRING


def _type_name(dtype: np.dtype) -> str:
    if np.dtype(dtype).kind in "OSU":  # what LiteRT takes as a STRING value
        return "STRING"
    return _TYPE_NAMES.get(np.dtype(dtype), str(dtype).upper())


def _string_item(x: Any, k: int) -> bytes:
    if isinstance(x, str):
        return x.encode("utf-8")
    if isinstance(x, bytes):
        return bytes(x)
    raise ValueError(f"PyBytes_AsStringAndSize() failed. (element {k} is "
                     f"{type(x).__name__}, not str or bytes)")


def _string_buffer(value: np.ndarray) -> bytes:
    """TFLite's string buffer of an array of str, bytes or objects (int32 count, int32
    offsets[count + 1] from the buffer's start, the text), as LiteRT fills it: elements in C
    order, str as UTF-8, 'S' elements without their trailing NULs; a 0-d 'S' or 'U' array
    is its raw bytes (UCS-4 for 'U'). A 0-d object array is its one element (LiteRT writes
    the object pointer's bytes there)."""
    if value.ndim == 0 and value.dtype.kind in "SU":
        items = [value.tobytes()]
    else:
        items = [_string_item(x, k) for k, x in enumerate(value.ravel().tolist())]
    head = 4 * (len(items) + 2)
    ends = np.cumsum([0] + [len(b) for b in items], dtype=np.int64) + head
    if ends[-1] > np.iinfo(np.int32).max:
        raise ValueError(f"Cannot set tensor: {int(ends[-1])} bytes of strings exceed int32")
    return (np.concatenate([[len(items)], ends]).astype("<i4").tobytes() + b"".join(items))


def _string_array(data: Any, shape: Tuple[int, ...], index: int) -> np.ndarray:
    """LiteRT's numpy form of a string buffer: an object array of bytes of the tensor's
    shape. A buffer holding no strings (a tensor never set) gives None elements, as LiteRT's
    unset tensors do."""
    n = int(np.prod(shape, dtype=np.int64))
    out = np.empty(n, dtype=object)
    count = int.from_bytes(bytes(data[:4]), "little", signed=True) if len(data) >= 4 else 0
    if count == 0:
        return out.reshape(shape)
    ends = np.frombuffer(data, "<i4", n + 1, 4) if count == n and len(data) >= 4 * (n + 2) \
        else None
    if ends is None or ends[0] < 4 * (n + 2) or np.any(np.diff(ends) < 0) or \
            ends[-1] > len(data):
        raise ValueError(f"Tensor {index} holds no valid string buffer of {n} strings "
                         f"(count {count}, {len(data)} bytes)")
    out[:] = [bytes(data[a:b]) for a, b in zip(ends[:-1].tolist(), ends[1:].tolist())]
    return out.reshape(shape)


def _read_model(model: ModelLike) -> bytes:
    """Model bytes from a path or a bytes-like object (mutable buffers are copied)."""
    if isinstance(model, bytes):
        return model
    if not isinstance(model, (str, os.PathLike)):
        return bytes(memoryview(model))
    path = os.fspath(model)
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise ModelError(f"Could not open '{path}': {e.strerror or e}") from e


def _model_content(content: Any) -> bytes:
    """The bytes the C interpreter holds. The model is verified once, at creation, so only
    an immutable bytes object is used in place; any other buffer (which its owner could
    still modify under the verified view) is copied."""
    if isinstance(content, bytes):
        return content
    return bytes(memoryview(content))


InputShapes = Union[Sequence[Any], Dict[int, Any]]


class ResizeError(Error, ValueError, RuntimeError):
    """resize_tensor_input() refused a shape: a ValueError (picolite's error for a wrong
    shape) and a RuntimeError (what LiteRT raises), so code written for either catches it."""


def _dims(tensor_size: Any, what: str) -> Tuple[int, ...]:
    """tensor_size as LiteRT reads it (any 1-D int sequence or array), checked for what
    picolite can hold: rank <= 8, every dim >= 1."""
    arr = np.asarray(tensor_size)
    if arr.ndim != 1:
        raise ValueError(f"Shape should be 1D instead of {arr.ndim}.")
    if arr.size and not (np.issubdtype(arr.dtype, np.integer)
                         or np.issubdtype(arr.dtype, np.floating)):
        raise ValueError(f"{what}: the shape must hold integers, got {arr.dtype}")
    dims = tuple(int(d) for d in arr.astype(np.int64))
    if len(dims) > 8:
        raise ResizeError(f"{what}: rank {len(dims)} is above picolite's limit of 8")
    bad = [k for k, d in enumerate(dims) if d < 1]
    if bad:
        raise ResizeError(f"{what}: shape {list(dims)} has dim {bad[0]} = {dims[bad[0]]}; "
                          f"picolite needs every dim to be at least 1")
    return dims


def _shape_pairs(input_shapes: Optional[InputShapes]) -> Optional[List[Tuple[int, Any]]]:
    """(input position, dims) pairs from a dict {position: shape} or a sequence with one
    shape (or None: the model's) per input."""
    if input_shapes is None:
        return None
    items = (input_shapes.items() if isinstance(input_shapes, dict)
             else enumerate(input_shapes))
    return [(int(i), _dims(s, f"input {i}")) for i, s in items if s is not None]


def supported_ops() -> List[str]:
    """The operators picolite runs: BuiltinOperator names (``"CONV_2D"``) in registry order,
    then custom operators by the name TFLM registers them under (``"SignalWindow"``).

    A model whose operators are all listed can still be refused for a type or parameter a
    kernel does not support; :class:`UnsupportedOpError` then names it."""
    return _c.supported_ops()


def kernel_sets() -> List[str]:
    """The ``kernels=`` instruction sets this machine runs from the least to the most
    preferred: "portable" first, then e.g. "sse4.1", "avx2", "avx512" on x86-64 or "neon",
    "neon-dot" on arm64; ``kernels="auto"`` picks the last."""
    return _c._kernel_sets()


def required_arena_size(model: ModelLike, planner: str = "greedy",
                        preserve_all_tensors: bool = False,
                        input_shapes: Optional[InputShapes] = None,
                        custom_ops: Optional[Dict[str, Any]] = None,
                        target: str = "tflm") -> int:
    """The exact minimum arena, in bytes, for ``model`` (a path or bytes) on ``target``:
    allocation succeeds with exactly this many bytes and fails with one less.
    ``target="tflm"`` (the default) is TFLM's AllocateTensors on a 32-bit Cortex-M with its
    reference kernels, ``"tflm-x86-64"`` TFLM as the tflite-micro wheel runs it (see
    :mod:`picolite.targets`), ``"picolite"`` picolite's own runtime with ``planner``.
    The figure is for a 16-byte-aligned buffer (``Arena(size)`` always is); a wrapped buffer
    starting k bytes past a 16-byte boundary needs (16 - k) % 16 bytes more.

    ``input_shapes`` sizes the model with its inputs resized as resize_tensor_input() would
    resize them: one shape (or None) per input, or a dict {input position: shape}.
    ``custom_ops``: as for :class:`Interpreter` (their outputs are planned like any tensor)."""
    _check_target(target)
    content, shapes = _read_model(model), _shape_pairs(input_shapes)
    own = _c.required_arena_size(content, planner, preserve_all_tensors, shapes,
                                 **_custom_kwargs(custom_ops))
    if not _targets.is_tflm(target):
        return own
    _targets.check_plan(target, planner, preserve_all_tensors)
    return _targets.required(content, target, own, shapes, _custom_kwargs(custom_ops))


def _check_target(target: str) -> None:
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r} (known: {', '.join(TARGETS)})")


class CustomOp:
    """What ``custom_ops={"Name": op}`` expects, for operators picolite does not ship
    (any object with these two methods will do; subclassing is optional).

    ``prepare(inputs)`` gets one :class:`TensorSpec` per input (``shape``, ``dtype``,
    ``data``: the values of a constant input, else None) and returns one ``(shape, dtype)``
    per output; the dtype must be the model's, the shape is checked as a builtin kernel's is.
    It may be called more than once (sizing runs), so keep it free of side effects.
    ``invoke(inputs, outputs)`` gets read-only numpy views of the inputs and writable views
    of the outputs over the arena: write the results into ``outputs`` (or return one array
    per output, checked for shape and dtype and copied in). Do not keep the views.
    Exceptions raised in either propagate out of allocate_tensors() / invoke() unchanged."""

    def prepare(self, inputs: List["TensorSpec"]) -> List[Tuple[Tuple[int, ...], Any]]:
        raise NotImplementedError

    def invoke(self, inputs: List[np.ndarray], outputs: List[np.ndarray]) -> Any:
        raise NotImplementedError


@dataclass(frozen=True)
class TensorSpec:
    """A custom operator's view of one input at prepare time."""

    shape: Tuple[int, ...]
    dtype: Any
    data: Optional[np.ndarray]


def _custom_kwargs(custom_ops: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    if custom_ops is None:
        return {}
    if not isinstance(custom_ops, dict):
        raise TypeError(f"custom_ops must be a dict {{name: operator}}, got "
                        f"{type(custom_ops).__name__}")
    for name, op in custom_ops.items():
        if not callable(getattr(op, "prepare", None)) or not callable(getattr(op, "invoke",
                                                                               None)):
            raise TypeError(f"custom_ops[{name!r}] needs prepare(inputs) and "
                            f"invoke(inputs, outputs) methods")
    return {"custom_ops": dict(custom_ops), "custom_adapter": _custom_call}


def _np_root(mem: Any, ttype: int, name: str) -> np.ndarray:
    dtype = _DTYPES.get(ttype)
    if dtype is None or dtype is np.bytes_:
        raise TypeError(f"custom operator {name}: tensor type {ttype} has no numpy dtype")
    return np.frombuffer(mem, dtype=dtype)


def _np_view(mem: Any, ttype: int, shape: Tuple[int, ...], name: str) -> np.ndarray:
    return _np_root(mem, ttype, name).reshape(shape)


def _custom_call(op: Any, name: str, phase: str, inputs: List[Tuple[Any, int, Tuple[int, ...]]],
                 outputs: List[Tuple[Any, int, Tuple[int, ...]]]) -> Any:
    """The C callbacks' way into a Python operator (custom.c): numpy in, checks out."""
    if phase == "prepare":
        return _custom_prepare(op, name, inputs, outputs)
    mems = [m for m, _, _ in inputs + outputs]
    # every view derived from a root array keeps it as its base: a root referenced more
    # after the call than before is a view the operator kept
    roots = [_np_root(m, t, name) for m, t, _ in inputs + outputs]
    refs = _refcounts(roots)
    try:
        views = [r.reshape(s) for r, (_, _, s) in zip(roots, inputs + outputs)]
        ins, outs = views[:len(inputs)], views[len(inputs):]
        result = op.invoke(ins, outs)
        if result is not None:
            _copy_results(name, list(result), outs)
    except BaseException:
        for m in mems:  # the traceback may hold views: they see released memory
            m.release()
        raise
    views = ins = outs = result = None
    kept = _refcounts(roots) != refs
    for m in mems:
        m.release()
    if kept:
        raise StateError(f"custom operator {name} kept a numpy view of its tensors after "
                         f"invoke(); copy what you need to keep")
    return None


def _refcounts(objs: List[Any]) -> List[int]:
    return [sys.getrefcount(o) for o in objs]


def _custom_prepare(op: Any, name: str, inputs: List[Tuple[Any, int, Tuple[int, ...]]],
                    outputs: List[Tuple[Any, int, Tuple[int, ...]]]) -> List[Tuple[int, ...]]:
    specs = [TensorSpec(tuple(s), _DTYPES.get(t),
                        None if m is None else _np_view(m, t, s, name).copy())
             for m, t, s in inputs]
    result = list(op.prepare(specs))
    if len(result) != len(outputs):
        raise ValueError(f"custom operator {name}: prepare returned {len(result)} outputs, "
                         f"the model's node has {len(outputs)}")
    shapes = []
    for i, (spec, (_, t, _)) in enumerate(zip(result, outputs)):
        shape, dtype = spec
        if np.dtype(dtype) != np.dtype(_DTYPES.get(t)):
            raise ValueError(f"custom operator {name}: output {i} has dtype "
                             f"{np.dtype(_DTYPES.get(t)).name} in the model, prepare "
                             f"returned {np.dtype(dtype).name}")
        shapes.append(tuple(_index(d, f"output {i} dimension") for d in shape))
    return shapes


def _copy_results(name: str, result: List[Any], outs: List[np.ndarray]) -> None:
    if len(result) != len(outs):
        raise ValueError(f"custom operator {name}: invoke returned {len(result)} arrays for "
                         f"{len(outs)} outputs")
    for i, (v, o) in enumerate(zip(result, outs)):
        v = np.asarray(v)
        if v.dtype != o.dtype or v.shape != o.shape:
            raise ValueError(f"custom operator {name}: output {i} must be {o.dtype.name} "
                             f"{list(o.shape)}, invoke returned {v.dtype.name} "
                             f"{list(v.shape)}")
        np.copyto(o, v)




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


def _quant_details(info: Dict[str, Any]) -> Tuple[Tuple[float, int], Dict[str, Any]]:
    scales, zero_points = info["quantization"]
    # tf.lite's legacy pair is only filled for per-tensor quantization.
    legacy = (float(scales[0]), int(zero_points[0])) if len(scales) == 1 else (0.0, 0)
    params = {
        "scales": np.array(scales, dtype=np.float32),
        "zero_points": np.array(zero_points, dtype=np.int32),
        "quantized_dimension": int(info["quantized_dimension"]),
        "block_size": 0,
    }
    return legacy, params


def _tensor_details(info: Dict[str, Any]) -> Dict[str, Any]:
    legacy, params = _quant_details(info)
    return {
        "name": info["name"],
        "index": info["index"],
        "shape": np.array(info["shape"], dtype=np.int32),
        "shape_signature": np.array(info["shape_signature"], dtype=np.int32),
        "dtype": _DTYPES.get(info["type"]),
        "quantization": legacy,
        "quantization_parameters": params,
        "sparsity_parameters": {},
    }


def _html_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


class AllocationReport:
    """Where the arena went: head (planned tensors + scratch), tail (persistent data, by
    TFLM's categories), the temp high-water, and the lower bound of the head.
    ``str(report)`` is TFLM's RecordingMicroAllocator text."""

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
        summary = _html_table(
            ["arena", "total", "head", "tail", "temp high-water", "head lower bound",
             "planner"],
            [[self.arena_size, self.total, self.head, self.tail, self.temp_high_water,
              self.lower_bound, self.planner]])
        cats = _html_table(["category", "used", "requested", "count"],
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


def _default_arena_size(content, planner: str, preserve: bool,
                        custom_ops: Optional[Dict[str, Any]], shapes=None
                        ) -> Tuple[int, Optional[BaseException]]:
    """The exact arena the model needs (with its inputs resized to ``shapes``, (position,
    dims) pairs), and None. When allocation cannot run at all (an op picolite does not
    support, a kernel refusing its tensors, a shape the model cannot take), an arena that is
    enough to create the interpreter and the error the sizing run met: allocate_tensors()
    raises that error (as tf.lite reports such problems there), never an
    ArenaTooSmallError that only the stand-in size caused."""
    try:
        return _c.required_arena_size(content, planner, preserve, shapes,
                                      **_custom_kwargs(custom_ops)), None
    except ArenaTooSmallError:
        raise
    except Exception as e:  # a picolite error, or a Python operator's own
        return 64 * 1024, e


def _check_strict(index: int, shape: Tuple[int, ...], signature: Tuple[int, ...],
                  dims: Tuple[int, ...]) -> None:
    """LiteRT's ResizeInputTensorStrict rule, with its message first."""
    rule = "ResizeInputTensorStrict only allows mutating unknown dimensions identified by -1."
    if len(signature) != len(dims):
        raise ResizeError(f"{rule} (tensor {index}: rank {len(signature)} "
                          f"(shape_signature {list(signature)}), requested {list(dims)})")
    for k, (sig, new) in enumerate(zip(signature, dims)):
        if sig != -1 and sig != new:
            raise ResizeError(f"Attempting to resize dimension {k} of tensor {index} with "
                              f"value {shape[k]} to {new}. {rule} (shape_signature "
                              f"{list(signature)})")


class InterpreterConfig(enum.Enum):
    """tflite_micro's two interpreter configurations (``intrepreter_config=``, TFLM's
    spelling). picolite records allocations in both; kPreserveAllTensors plans every tensor
    apart (the linear planner) so that GetTensor() reads any tensor after invoke()."""

    kAllocationRecording = 0
    kPreserveAllTensors = 1


def _tflm_registerers(custom_op_registerers: Any) -> None:
    """tflite_micro's checks of custom_op_registerers. Its registerers are C++ functions
    linked into TFLM's wheel; picolite has none, so any name is refused (Python operators
    are not registered by name)."""
    if not isinstance(custom_op_registerers, list) or not all(
            isinstance(r, str) for r in custom_op_registerers):
        raise ValueError("Custom ops registerers must be a list of strings")
    for name in custom_op_registerers:
        raise StateError(f"TFLM could not register custom op via {name} (picolite links "
                         f"no C++ op registerers)")


def _index(value: Any, what: str) -> int:
    """An index as Python's sequences take it: ints and numpy integers, never a float
    (1.5 is a TypeError, not tensor 1)."""
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, got {type(value).__name__} "
                        f"{value!r}") from None


def _check_shape(got: Tuple[int, ...], expected: Tuple[int, ...], index: int) -> None:
    """tf.lite's and tflite_micro's words for a shape mismatch (rank first, then the first
    differing dimension), then both shapes."""
    if got == expected:
        return
    both = f" (got shape {list(got)}, expected {list(expected)})"
    if len(got) != len(expected):
        raise ValueError(f"Cannot set tensor: Dimension mismatch. Got {len(got)} but "
                         f"expected {len(expected)} for input {index}.{both}")
    for j, (g, e) in enumerate(zip(got, expected)):
        if g != e:
            raise ValueError(f"Cannot set tensor: Dimension mismatch. Got {g} but expected "
                             f"{e} for dimension {j} of input {index}.{both}")


def _arena_bytes(size: Any) -> int:
    """An arena size: an integer >= 0 (TypeError / ValueError otherwise). 0 and every other
    size below what the model needs are accepted here and refused by the interpreter with
    ArenaTooSmallError(required, available), one exception for every too-small arena."""
    n = _index(size, "arena_size")
    if n < 0:
        raise ValueError(f"arena_size must be >= 0 bytes, got {n}")
    return n


class Interpreter:
    """Runs a .tflite model the way TFLM does, in one arena; tf.lite's method names.

    Exactly one of ``model_path``/``model_content``; at most one of ``arena`` (an
    :class:`Arena`) and ``arena_size``. With neither, the arena is exactly
    :func:`required_arena_size` bytes, so allocation always fits.
    ``custom_ops={"Name": op}`` runs the model's custom operator "Name" with a Python object
    (see :class:`CustomOp`); its outputs are planned in the arena like any tensor.
    ``kernels``: ``"auto"`` runs the host SIMD fast paths this CPU has (bit-exact with the
    portable kernels; their packed weights live in host memory, :attr:`host_memory_bytes`,
    never in the arena), ``"portable"`` the portable C kernels alone (the microcontroller's
    code), or a name from :func:`picolite.kernel_sets`.
    """

    def __init__(self, model_path: Optional[Union[str, "os.PathLike[str]"]] = None,
                 model_content: Any = None, arena: Optional[Arena] = None,
                 arena_size: Optional[int] = None, planner: str = "greedy",
                 preserve_all_tensors: bool = False, *,
                 experimental_preserve_all_tensors: bool = False,
                 loop_budget: int = 1_000_000,
                 custom_ops: Optional[Dict[str, Any]] = None,
                 kernels: str = "auto", target: str = "tflm"):
        if model_path is None and model_content is None:
            raise ValueError("`model_path` or `model_content` must be specified.")
        if model_path is not None and model_content is not None:
            raise ValueError("Can't both provide `model_path` and `model_content`")
        if arena is not None and arena_size is not None:
            raise ValueError("Can't both provide `arena` and `arena_size`")
        if arena is not None and not isinstance(arena, Arena):
            raise TypeError(f"arena must be a picolite.Arena, got {type(arena).__name__}")
        # tf.lite's spelling, so code written for it runs unchanged
        preserve_all_tensors = bool(preserve_all_tensors or experimental_preserve_all_tensors)
        content = (_read_model(model_path) if model_path is not None
                   else _model_content(model_content))
        self._auto_arena = arena_size is None and arena is None  # grows with resizes
        self._deferred: Optional[BaseException] = None
        self._custom_ops = custom_ops
        # a TFLM target's arena_size is the firmware's: checked against TFLM's minimum, while
        # the host runs picolite's own arena, at least as large as picolite needs (an Arena
        # passed in is the host's own buffer)
        self._firmware_arena: Optional[int] = None
        if _targets.is_tflm(target) and arena_size is not None:
            self._firmware_arena = _arena_bytes(arena_size)
        if arena is None:
            if arena_size is None:
                arena_size, self._deferred = _default_arena_size(content, planner,
                                                                 preserve_all_tensors,
                                                                 custom_ops)
            elif self._firmware_arena is not None:
                arena_size = _targets.host_arena(content, target, self._firmware_arena,
                                                 planner, preserve_all_tensors,
                                                 _custom_kwargs(custom_ops))
            arena = Arena(_arena_bytes(arena_size))
        self._loop_budget = int(loop_budget)
        try:
            self._c = _c._Interpreter(content, arena, planner, preserve_all_tensors,
                                      self._loop_budget, kernels=kernels, target=target,
                                      **_custom_kwargs(custom_ops))
        except ModelError as e:  # LiteRT's words first for a model that fails verification
            e.args = (f"The model is not a valid Flatbuffer buffer: {e}",) + e.args[1:]
            raise
        self._model_content = content  # bytes: what picolite.plot re-plans with planners=
        self._planner = planner
        self._kernels = kernels
        self._target = target  # validated by the C constructor above
        self._preserve = bool(preserve_all_tensors)
        self._shapes: Dict[int, Tuple[int, ...]] = {}  # input position -> resized shape
        self._resized = False  # a resize waits for allocate_tensors()

    # --- lifecycle -------------------------------------------------------------------

    def allocate_tensors(self) -> None:
        """Init, prepare and plan every node; the arena layout is fixed afterwards. After
        resize_tensor_input() the shapes follow the new inputs and the arena is re-planned;
        a default arena (no arena= or arena_size=) grows to what they need."""
        if self._resized and self._auto_arena and not self._c.allocated:
            need, self._deferred = _default_arena_size(self._model_content, self._planner,
                                                       self._preserve, self._custom_ops,
                                                       list(self._shapes.items()))
            if need > self._c.arena.size:
                self._recreate(Arena(need))
        try:
            self._c.allocate_tensors()
        except ArenaTooSmallError:
            if self._deferred is None:
                raise
            raise self._deferred from None
        self._resized = False
        if self._firmware_arena is not None:
            _targets.check_firmware_arena(self._c, self._target, self._firmware_arena)

    def resize_tensor_input(self, input_index: int, tensor_size: Any,
                            strict: bool = False) -> None:
        """LiteRT's resize: input tensor ``input_index`` takes shape ``tensor_size`` (any
        1-D int sequence or array) at the next allocate_tensors(), which re-plans the arena;
        until then invoke() raises. strict=True refuses to change a dim whose
        shape_signature is not -1. Only model inputs can be resized; picolite needs every
        dim >= 1 and rank <= 8. A shape the model cannot take fails allocate_tensors(),
        naming the op and the node."""
        index = _index(input_index, "input_index")
        inputs = list(self._c.inputs())
        if index not in inputs:
            raise ResizeError(f"Attempting to resize a fixed-size tensor. (tensor {index} is "
                              f"not one of the model's inputs {inputs}; only inputs can be "
                              f"resized)")
        dims = _dims(tensor_size, f"Cannot resize input tensor {index}")
        info = self._info(index)
        if strict:
            _check_strict(index, tuple(info["shape"]), tuple(info["shape_signature"]), dims)
        if dims == tuple(info["shape"]):
            return  # LiteRT keeps the allocation too
        self._recreate(self._c.arena, {**self._shapes, inputs.index(index): dims})
        self._resized = True

    def _recreate(self, arena: Arena, shapes: Optional[Dict[int, Tuple[int, ...]]] = None
                  ) -> None:
        """A new C interpreter in ``arena`` with the resized input shapes (the current ones
        by default), not allocated. If the C side refuses the shapes, the interpreter keeps
        the previous ones (unallocated) and the error propagates."""
        shapes = self._shapes if shapes is None else shapes
        self._c.close()
        try:
            self._c = _c._Interpreter(self._model_content, arena, self._planner,
                                      self._preserve, self._loop_budget, kernels=self._kernels,
                                      target=self._target, input_shapes=list(shapes.items()),
                                      **_custom_kwargs(self._custom_ops))
        except (Error, ValueError):
            self._c = _c._Interpreter(self._model_content, arena, self._planner,
                                      self._preserve, self._loop_budget, kernels=self._kernels,
                                      target=self._target,
                                      input_shapes=list(self._shapes.items()),
                                      **_custom_kwargs(self._custom_ops))
            raise
        self._shapes = shapes

    def invoke(self, profile: bool = False) -> Any:
        """Runs the model. RuntimeError "Invoke called on model that is not ready" before
        allocate_tensors(); refused (StateError, a RuntimeError) while numpy views from
        tensor() are alive, as in tf.lite. With profile=True the run is timed per node and
        its picolite.profile.Profile is returned. As in TFLM's arena, later tensors may
        reuse an input's bytes once the model has read it: set the inputs before each
        invoke (preserve_all_tensors=True keeps every tensor)."""
        if profile:
            from picolite.profile import profile as run_profiled

            self._check_invokable()
            return run_profiled(self, 1, warmup=0)
        if self._resized:  # _run's steps inline: the call itself is the hot path
            self._check_invokable()
        self._c.invoke()
        return None

    def _check_invokable(self) -> None:
        if self._resized:
            raise StateError("Invoke called on model that is not ready. (an input was "
                             "resized: call allocate_tensors() first)")

    def _run(self) -> bool:
        """One invocation; False when a kernel ended it early, as TFLM's kTfLiteAbort does
        (a CIRCULAR_BUFFER between its runs): the later nodes did not run and their outputs
        keep their last values."""
        self._check_invokable()
        return bool(self._c.invoke())

    def invoke_batch(self, inputs: Any) -> List[np.ndarray]:
        """Runs N samples in one C call with the GIL released and returns one stacked array
        per output. ``inputs``: an array, a list in input order or a dict by name, each
        ``(N, *shape)`` or ``(N, *shape[1:])`` for a batch dimension of 1. A runtime error
        carries ``.sample``. State carries from sample to sample, as with invoke() in a loop.
        See :func:`picolite.evaluate` for a data set on every core."""
        from picolite.evaluate import run_batch

        return run_batch(self, inputs)

    def reset(self) -> None:
        """Zeroes the variable tensors (TFLM's reset)."""
        self._c.reset()

    reset_all_variables = reset

    def close(self) -> None:
        """Destroys the C interpreter now; its arena is free for another interpreter."""
        self._c.close()

    def __enter__(self) -> "Interpreter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def arena(self) -> Arena:
        return self._c.arena

    @property
    def planner(self) -> str:
        return self._planner

    @property
    def kernels(self) -> str:
        """The instruction set the kernels run: "portable", "avx2", "avx512", ..."""
        return self._c.kernels

    @property
    def host_memory_bytes(self) -> int:
        """Host memory the fast paths hold outside the arena (packed weights, tables), filled
        by allocate_tensors(); 0 with kernels="portable". Never part of the arena figures."""
        return self._c.host_bytes

    def __repr__(self) -> str:
        if self._c.closed:
            return "<picolite.Interpreter closed>"
        tensors, nodes = self._c.counts
        state = "allocated" if self._c.allocated else "not allocated"
        return (f"<picolite.Interpreter {nodes} ops, {tensors} tensors, planner="
                f"{self._planner!r}, arena {self._c.arena.size} bytes, {state}>")

    def _repr_html_(self) -> str:
        if self._c.closed:
            return "<p>picolite.Interpreter (closed)</p>"
        tensors, nodes = self._c.counts
        state = "allocated" if self._c.allocated else "not allocated"
        caption = (f"<p><b>picolite.Interpreter</b>: {nodes} ops, {tensors} tensors, planner "
                   f"{html.escape(self._planner)}, arena {self._c.arena.size} bytes, "
                   f"{state}</p>")
        return caption + _html_table(
            ["node", "op", "inputs", "outputs"],
            [[d["index"], d["op_name"], d["inputs"].tolist(), d["outputs"].tolist()]
             for d in self._get_ops_details()])

    # --- details (tf.lite's dicts) ---------------------------------------------------

    def _info(self, index: int) -> Dict[str, Any]:
        return self._c.tensor_info(_index(index, "tensor index"))

    @contextlib.contextmanager
    def _subgraph(self, subgraph_index: int) -> Iterator[None]:
        """Addresses subgraph k for the calls inside (0 again after)."""
        self._c.select_subgraph(int(subgraph_index))
        try:
            yield
        finally:
            self._c.select_subgraph(0)

    def num_subgraphs(self) -> int:
        """How many subgraphs the model has (LiteRT's name)."""
        return self._c.subgraphs[0]

    def _get_tensor_details(self, index: int, subgraph_index: int = 0) -> Dict[str, Any]:
        with self._subgraph(subgraph_index):
            return _tensor_details(self._info(index))

    def get_input_details(self, index: Optional[int] = None) -> Any:
        """tf.lite's list of every input's details; with ``index`` (tflite_micro's form),
        the one dict of input ``index`` (IndexError "Tensor is out of bound" past the end)."""
        if index is not None:
            return self._get_tensor_details(self._io(self._c.inputs(), index, "input"))
        return [self._get_tensor_details(i) for i in self._c.inputs()]

    def get_output_details(self, index: Optional[int] = None) -> Any:
        """As get_input_details, for the outputs."""
        if index is not None:
            return self._get_tensor_details(self._io(self._c.outputs(), index, "output"))
        return [self._get_tensor_details(i) for i in self._c.outputs()]

    def get_tensor_details(self, subgraph_index: int = 0) -> List[Dict[str, Any]]:
        count = self.num_subgraphs()
        if not 0 <= _index(subgraph_index, "subgraph_index") < count:
            raise ValueError(f"subgraph_index is out of range: {subgraph_index} for the model,"
                             f" which has {count} subgraphs.")
        with self._subgraph(subgraph_index):
            tensors, _ = self._c.counts
            return [_tensor_details(self._info(i)) for i in range(tensors)]

    def _get_op_details(self, op_index: int) -> Dict[str, Any]:
        index = _index(op_index, "node index")
        node = self._c.node_info(index)
        dtype = [_DTYPES.get(self._info(t)["type"]) for t in node["inputs"] if t != -1]
        rtype = [_DTYPES.get(self._info(t)["type"]) for t in node["outputs"] if t != -1]
        return {
            "index": int(index),
            "op_name": node["op_name"],
            "inputs": np.array(node["inputs"], dtype=np.int32),
            "outputs": np.array(node["outputs"], dtype=np.int32),
            "operand_types": dtype,
            "result_types": rtype,
        }

    def _get_ops_details(self) -> List[Dict[str, Any]]:
        _, nodes = self._c.counts
        return [self._get_op_details(i) for i in range(nodes)]

    # --- tensors ---------------------------------------------------------------------

    def _dtype_of(self, info: Dict[str, Any]) -> Any:
        dtype = _DTYPES.get(info["type"])
        if dtype is None or dtype is np.bytes_:
            raise ValueError(f"Tensor {info['index']} has type {info['type_name']}, which "
                             f"picolite cannot show as a numpy array")
        return dtype

    def set_tensor(self, tensor_index: int, value: Any, subgraph_index: int = 0) -> None:
        """Copies value into the tensor (of subgraph_index); dtype and shape must match."""
        if subgraph_index == 0:  # selected between calls: the round trip stays short
            # the C fast path takes a numpy array of exactly the tensor's dtype and shape
            if self._c.set_tensor(tensor_index, value) is None:
                return None
            return self._set(tensor_index, value)
        with self._subgraph(subgraph_index):
            self._set(tensor_index, value)

    def _set(self, tensor_index: int, value: Any) -> None:
        info = self._info(tensor_index)
        if info["type"] == _STRING:
            return self._set_strings(info, np.asarray(value))
        dtype = self._dtype_of(info)
        value = np.asarray(value)
        if value.dtype != np.dtype(dtype):
            raise ValueError(
                f"Cannot set tensor: Got value of type {_type_name(value.dtype)} but "
                f"expected type {info['type_name']} for input {info['index']}, name: "
                f"{info['name']} ")
        _check_shape(tuple(value.shape), tuple(info["shape"]), info["index"])
        self._c.set_bytes(info["index"], np.ascontiguousarray(value))

    def _set_strings(self, info: Dict[str, Any], value: np.ndarray) -> None:
        """A STRING tensor takes an array of str, bytes or objects (LiteRT's rule); its
        buffer must fit the room the arena gives it (see pl_type_bytes in pl_types.h)."""
        if value.dtype.kind not in "OSU":
            raise ValueError(
                f"Cannot set tensor: Got value of type {_type_name(value.dtype)} but "
                f"expected type STRING for input {info['index']}, name: {info['name']} ")
        _check_shape(tuple(value.shape), tuple(info["shape"]), info["index"])
        buf = _string_buffer(value)
        room = info["bytes"]
        if len(buf) > room:
            n = max(int(np.prod(info["shape"], dtype=np.int64)), 1)
            raise ValueError(
                f"Cannot set tensor: the strings take {len(buf)} bytes (a {4 * (n + 2)}-byte "
                f"header and {len(buf) - 4 * (n + 2)} bytes of text); STRING tensor "
                f"{info['index']} holds {room} bytes in the arena (64 bytes of text per "
                f"string on average, planned once)")
        self._c.set_bytes(info["index"], buf + bytes(room - len(buf)))

    def get_tensor(self, tensor_index: int, subgraph_index: int = 0) -> np.ndarray:
        """A copy of the tensor (of subgraph_index). An intermediate tensor is readable
        after invoke() only with preserve_all_tensors=True (its memory is shared)."""
        if subgraph_index == 0:  # selected between calls
            out = self._c.get_tensor(tensor_index)  # C: a kept tensor's copy in one call
            return out if out is not NotImplemented else self._get(tensor_index)
        with self._subgraph(subgraph_index):
            return self._get(tensor_index)

    def _get(self, tensor_index: int) -> np.ndarray:
        info = self._info(tensor_index)
        if info["type"] == _STRING:
            return _string_array(self._c.get_bytes(info["index"]), tuple(info["shape"]),
                                 info["index"])
        dtype = self._dtype_of(info)
        data = self._c.get_bytes(info["index"])
        return np.frombuffer(data, dtype=dtype).reshape(info["shape"])

    def tensor(self, tensor_index: int, subgraph_index: int = 0) -> Callable[[], np.ndarray]:
        """tf.lite's raw access: a function returning a numpy view into the arena. While a
        view is alive, invoke() and allocate_tensors() raise StateError."""
        index = int(tensor_index)
        return lambda: self._view(index, subgraph_index)

    def _view(self, index: int, subgraph_index: int = 0) -> np.ndarray:
        with self._subgraph(subgraph_index):
            return self._view_selected(index)

    def _view_selected(self, index: int) -> np.ndarray:
        info = self._info(index)
        dtype = self._dtype_of(info)
        exporter = self._c.tensor_buffer(index)
        return np.frombuffer(memoryview(exporter), dtype=dtype).reshape(info["shape"])

    # --- signatures (LiteRT's names) ------------------------------------------------------

    def _get_full_signature_list(self) -> Dict[str, Dict[str, Dict[str, int]]]:
        """{key: {"inputs": {name: tensor index}, "outputs": {...}}}, names sorted."""
        return {s["key"]: {"inputs": dict(sorted(s["inputs"])),
                           "outputs": dict(sorted(s["outputs"]))}
                for s in self._c.signatures()}

    def get_signature_list(self) -> Dict[str, Dict[str, List[str]]]:
        """{key: {"inputs": [names], "outputs": [names]}}, as LiteRT."""
        return {k: {"inputs": list(v["inputs"]), "outputs": list(v["outputs"])}
                for k, v in self._get_full_signature_list().items()}

    def get_signature_runner(self, signature_key: Optional[str] = None) -> "SignatureRunner":
        """The runner of one signature; None is allowed when the model has exactly one."""
        sigs = {s["key"]: s for s in self._c.signatures()}
        if signature_key is None:
            if len(sigs) != 1:
                raise ValueError(
                    "SignatureDef signature_key is None and model has "
                    f"{len(sigs)} Signatures. None is only allowed when the model has 1 "
                    "SignatureDef")
            signature_key = next(iter(sigs))
        if signature_key not in sigs:
            raise ValueError(f'Invalid signature_key provided: "{signature_key}".')
        return SignatureRunner(self, sigs[signature_key])

    def _invoke_subgraph(self, subgraph_index: int) -> None:
        with self._subgraph(subgraph_index):
            self._c.invoke()

    # --- tflite_micro's names ----------------------------------------------------------

    def set_input(self, input_data: Any, index: int) -> None:
        if input_data is None:
            raise ValueError("Input data must not be None")
        self.set_tensor(self._io(self._c.inputs(), index, "input"), input_data)

    def get_output(self, index: int) -> np.ndarray:
        return self.get_tensor(self._io(self._c.outputs(), index, "output"))

    @staticmethod
    def _io(indices: Tuple[int, ...], i: int, what: str) -> int:
        if i is None or _index(i, f"{what} index") < 0:  # tflite_micro's check and text
            raise ValueError(f"Index must be a non-negative integer, got {i!r}")
        i = _index(i, f"{what} index")
        if not 0 <= i < len(indices):
            # tflite_micro's text first, so code matching it keeps working
            raise IndexError(f"Tensor is out of bound, please check tensor index. ({what} "
                             f"{i}: the model has {len(indices)} {what}s)")
        return indices[i]

    def arena_used_bytes(self) -> int:
        """head + tail after allocate_tensors(), as TFLM's C++
        MicroInterpreter::arena_used_bytes() (TFLM's Python interpreter has no such call):
        the target's (a TFLM target's own figure, for the arena_size given or a large one),
        picolite's own arena for target="picolite"."""
        if _targets.is_tflm(self._target):
            return self._tflm()["arena_used_bytes"]
        return self._c.recording()["total"]

    def print_allocations(self) -> None:
        """Prints TFLM's RecordingMicroAllocator report (see :meth:`allocations`)."""
        print(str(self.allocations()), end="")

    def profile(self, n: int = 10, *, warmup: int = 1) -> Any:
        """Per-op times of ``n`` invokes with the current inputs, timed in C without the
        GIL: a :class:`picolite.profile.Profile` (``print()`` it, or ``.nodes``/``.by_op``)."""
        from picolite.profile import profile

        return profile(self, n, warmup=warmup)

    # --- tflite_micro's constructors and names (picolite.runtime) ----------------------

    @classmethod
    def from_file(cls, model_path: Any, custom_op_registerers: Optional[List[str]] = None,
                  arena_size: Optional[int] = None,
                  intrepreter_config: InterpreterConfig = InterpreterConfig.kAllocationRecording,
                  alt_decompression_memory_size: int = 0) -> "Interpreter":
        """tflite_micro's constructor: reads the file and allocates (see from_bytes)."""
        if model_path is None or not os.path.isfile(model_path):
            raise ValueError(f"Invalid model file path: {model_path!r} is not a file")
        return cls.from_bytes(_read_model(model_path), custom_op_registerers, arena_size,
                              intrepreter_config, alt_decompression_memory_size)

    @classmethod
    def from_bytes(cls, model_data: Any, custom_op_registerers: Optional[List[str]] = None,
                   arena_size: Optional[int] = None,
                   intrepreter_config: InterpreterConfig = InterpreterConfig.kAllocationRecording,
                   alt_decompression_memory_size: int = 0) -> "Interpreter":
        """tflite_micro's constructor: allocates as TFLM's does, so set_input() may follow.
        arena_size None is the exact size the model needs (TFLM guesses 10x the model
        size); alt_decompression_memory_size is accepted and unused (TFLM_DECODE's outputs
        are planned in the arena, where TFLM would put them in that memory)."""
        self = cls.__new__(cls)
        Interpreter._tflm_init(self, model_data, custom_op_registerers, arena_size,
                               intrepreter_config, alt_decompression_memory_size)
        return self

    def _tflm_init(self, model_data: Any, custom_op_registerers: Optional[List[str]],
                   arena_size: Optional[int], config: InterpreterConfig,
                   alt_decompression_memory_size: int) -> None:
        if model_data is None:
            raise ValueError("Model must not be None")
        _tflm_registerers([] if custom_op_registerers is None else custom_op_registerers)
        if not isinstance(config, InterpreterConfig):
            raise ValueError(f"intrepreter_config must be an InterpreterConfig, got "
                             f"{config!r}")
        if _index(alt_decompression_memory_size, "alt_decompression_memory_size") < 0:
            raise ValueError("alt_decompression_memory_size must be >= 0")
        try:
            Interpreter.__init__(self, model_content=model_data, arena_size=arena_size,
                                 preserve_all_tensors=(
                                     config is InterpreterConfig.kPreserveAllTensors))
            self.allocate_tensors()
        except (ArenaTooSmallError, UnsupportedOpError, StateError) as e:
            # TFLM's words first; the error keeps its class and fields
            e.args = (f"TFLM failed to allocate tensors: {e}",) + e.args[1:]
            raise

    def GetTensor(self, tensor_index: int, subgraph_index: int = 0) -> Dict[str, Any]:
        """tflite_micro's GetTensor: {"dtype", "shape", "tensor_data" (a copy)}. Any tensor
        whose memory is kept (inputs, outputs, constants, variables; every tensor with
        kPreserveAllTensors); an intermediate otherwise raises StateError (a RuntimeError)."""
        count = self.num_subgraphs()
        if not 0 <= _index(subgraph_index, "subgraph_index") < count:
            raise ValueError(f"subgraph_index is out of range: {subgraph_index} for the model,"
                             f" which has {count} subgraphs.")
        with self._subgraph(subgraph_index):
            info = self._info(tensor_index)
        if info["shared"] and not self._preserve:
            raise StateError(
                "TFLM only supports GetTensor() when using a python interpreter with the "
                "InterpreterConfig.kPeserverAllTensors interpreter_config (tensor "
                f"{info['index']} is an intermediate whose memory other tensors reuse)")
        return {"dtype": self._dtype_of(info),
                "shape": np.array(info["shape"], dtype=np.int32),
                "tensor_data": self.get_tensor(info["index"], subgraph_index=subgraph_index)}

    def _safe_to_run(self) -> bool:
        """tf.lite's check: no numpy view from tensor() is alive."""
        return self._c.exports == 0

    # --- reports ---------------------------------------------------------------------

    def allocations(self) -> AllocationReport:
        """The arena report of the target: for a TFLM target, TFLM's RecordingMicroAllocator
        breakdown (``str()`` prints its lines, then picolite's own labelled [picolite]);
        for target="picolite", picolite's own arena."""
        if _targets.is_tflm(self._target):
            return AllocationReport(*_targets.report(self._tflm(), self._c.recording_text()))
        return AllocationReport(self._c.recording(), self._c.recording_text())

    def _tflm(self) -> Dict[str, Any]:
        """The TFLM target's figures for this allocated model and the firmware's arena."""
        if not self._c.allocated:
            raise StateError("the memory report needs allocate_tensors() first")
        return _targets.figures(self._c, self._target, self._firmware_arena or 0)

    def memory_plan(self) -> MemoryPlan:
        rec = self._c.recording()
        buffers = []
        for tensor, offset, size, first, last, offline, subgraph in self._c.plan():
            name = ""
            if tensor >= 0:
                with self._subgraph(subgraph):
                    name = self._info(tensor)["name"]
            buffers.append(PlannedBuffer(tensor, name, offset, size, first, last, offline,
                                         subgraph))
        return MemoryPlan(buffers, rec["head"], rec["lower_bound"], rec["planner"])


class SignatureRunner:
    """One signature of an Interpreter, as LiteRT's SignatureRunner: inputs and outputs by
    name, in the signature's subgraph. Subgraphs share the arena's head: set the inputs of a
    runner right before invoking it (``runner(**inputs)`` does)."""

    def __init__(self, interpreter: Interpreter, signature: Dict[str, Any]):
        self._it = interpreter
        self._key = signature["key"]
        self._subgraph = int(signature["subgraph"])
        self._inputs = dict(sorted(signature["inputs"]))
        self._outputs = dict(sorted(signature["outputs"]))

    def get_input_details(self) -> Dict[str, Dict[str, Any]]:
        return {n: self._it._get_tensor_details(t, self._subgraph)
                for n, t in self._inputs.items()}

    def get_output_details(self) -> Dict[str, Dict[str, Any]]:
        return {n: self._it._get_tensor_details(t, self._subgraph)
                for n, t in self._outputs.items()}

    def allocate_tensors(self) -> None:
        self._it.allocate_tensors()

    def invoke(self) -> None:
        self._it._invoke_subgraph(self._subgraph)

    def __call__(self, **kwargs: Any) -> Dict[str, np.ndarray]:
        """Sets the named inputs, invokes, returns {output name: array}."""
        if len(kwargs) != len(self._inputs):
            raise ValueError(
                f"Invalid number of inputs provided for running a SignatureDef, expected "
                f"{len(self._inputs)} vs provided {len(kwargs)}")
        for name, value in kwargs.items():
            if name not in self._inputs:
                raise ValueError(f"Invalid Input name ({name}) for SignatureDef")
        self._it.allocate_tensors()
        for name, value in kwargs.items():
            self._it.set_tensor(self._inputs[name], np.asarray(value), self._subgraph)
        self.invoke()
        return {n: self._it.get_tensor(t, self._subgraph) for n, t in self._outputs.items()}
