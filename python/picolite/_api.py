"""The Python face of the C runtime: tf.lite's Interpreter API, reports, planning helpers.

The extension (_picolite) returns plain values (tuples, dicts of ints); this module turns
them into what tf.lite / LiteRT users expect (dicts with numpy arrays and numpy type classes)
and into report objects that print TFLM's text and render in notebooks.
"""

from __future__ import annotations

import contextlib
import html
import os
from dataclasses import asdict, dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from picolite import _picolite as _c

Arena = _c.Arena
Error = _c.Error
ModelError = _c.ModelError
ArenaTooSmallError = _c.ArenaTooSmallError
UnsupportedOpError = _c.UnsupportedOpError
StateError = _c.StateError

#: Planner names, in the C enum's order.
PLANNERS: Tuple[str, ...] = tuple(_c.planners())

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


def _type_name(dtype: np.dtype) -> str:
    return _TYPE_NAMES.get(np.dtype(dtype), str(dtype).upper())


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


def required_arena_size(model: ModelLike, planner: str = "greedy",
                        preserve_all_tensors: bool = False,
                        input_shapes: Optional[InputShapes] = None) -> int:
    """The exact minimum arena, in bytes, for ``model`` (a path or bytes) with ``planner``:
    allocate_tensors() succeeds with exactly this many bytes and fails with one less.

    ``input_shapes`` sizes the model with its inputs resized as resize_tensor_input() would
    resize them: one shape (or None) per input, or a dict {input position: shape}."""
    return _c.required_arena_size(_read_model(model), planner, preserve_all_tensors,
                                  _shape_pairs(input_shapes))


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

    def to_dict(self) -> Dict[str, Any]:
        keys = ("total", "head", "tail", "head_tensors", "head_scratch", "temp_high_water",
                "required", "lower_bound", "planner", "arena_size")
        d = {k: getattr(self, k) for k in keys}
        d["categories"] = {k: dict(v) for k, v in self.categories.items()}
        return d

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return (f"<AllocationReport total={self.total} head={self.head} tail={self.tail} "
                f"lower_bound={self.lower_bound} planner={self.planner!r}>")

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


def _default_arena_size(content, planner: str, preserve: bool, shapes=None) -> int:
    """The exact arena the model needs. When allocation cannot run at all (an op picolite
    does not support, a shape the model cannot take), an arena that is enough to start, so
    that allocate_tensors() raises the error, as tf.lite reports such problems there too."""
    try:
        return _c.required_arena_size(content, planner, preserve, shapes)
    except UnsupportedOpError:
        return 64 * 1024
    except ModelError:
        if shapes is None:
            raise
        return 64 * 1024


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


class Interpreter:
    """Runs a .tflite model the way TFLM does, in one arena; tf.lite's method names.

    Exactly one of ``model_path``/``model_content``; at most one of ``arena`` (an
    :class:`Arena`) and ``arena_size``. With neither, the arena is exactly
    :func:`required_arena_size` bytes, so allocation always fits.
    """

    def __init__(self, model_path: Optional[Union[str, "os.PathLike[str]"]] = None,
                 model_content: Any = None, arena: Optional[Arena] = None,
                 arena_size: Optional[int] = None, planner: str = "greedy",
                 preserve_all_tensors: bool = False, *,
                 experimental_preserve_all_tensors: bool = False,
                 loop_budget: int = 1_000_000):
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
        if arena is None:
            if arena_size is None:
                arena_size = _default_arena_size(content, planner, preserve_all_tensors)
            arena = Arena(arena_size)
        self._loop_budget = int(loop_budget)
        self._c = _c._Interpreter(content, arena, planner, preserve_all_tensors,
                                  self._loop_budget)
        self._model_content = content  # bytes: what picolite.plot re-plans with planners=
        self._planner = planner
        self._preserve = bool(preserve_all_tensors)
        self._shapes: Dict[int, Tuple[int, ...]] = {}  # input position -> resized shape
        self._resized = False  # a resize waits for allocate_tensors()

    # --- lifecycle -------------------------------------------------------------------

    def allocate_tensors(self) -> None:
        """Init, prepare and plan every node; the arena layout is fixed afterwards. After
        resize_tensor_input() the shapes follow the new inputs and the arena is re-planned;
        a default arena (no arena= or arena_size=) grows to what they need."""
        if self._resized and self._auto_arena and not self._c.allocated:
            need = _default_arena_size(self._model_content, self._planner, self._preserve,
                                       list(self._shapes.items()))
            if need > self._c.arena.size:
                self._recreate(Arena(need))
        self._c.allocate_tensors()
        self._resized = False

    def resize_tensor_input(self, input_index: int, tensor_size: Any,
                            strict: bool = False) -> None:
        """LiteRT's resize: input tensor ``input_index`` takes shape ``tensor_size`` (any
        1-D int sequence or array) at the next allocate_tensors(), which re-plans the arena;
        until then invoke() raises. strict=True refuses to change a dim whose
        shape_signature is not -1. Only model inputs can be resized; picolite needs every
        dim >= 1 and rank <= 8. A shape the model cannot take fails allocate_tensors(),
        naming the op and the node."""
        index = int(input_index)
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
                                      self._preserve, self._loop_budget,
                                      input_shapes=list(shapes.items()))
        except (Error, ValueError):
            self._c = _c._Interpreter(self._model_content, arena, self._planner,
                                      self._preserve, self._loop_budget,
                                      input_shapes=list(self._shapes.items()))
            raise
        self._shapes = shapes

    def invoke(self, profile: bool = False) -> Any:
        """Runs the model. Refused (StateError, a RuntimeError) while numpy views from
        tensor() are alive, as in tf.lite. With profile=True the run is timed per node and
        its picolite.profile.Profile is returned."""
        if self._resized:
            raise StateError("Invoke called on model that is not ready. (an input was "
                             "resized: call allocate_tensors() first)")
        if profile:
            from picolite.profile import profile as run_profiled

            return run_profiled(self, 1, warmup=0)
        self._c.invoke()
        return None

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
        return self._c.tensor_info(int(index))

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

    def get_input_details(self) -> List[Dict[str, Any]]:
        return [self._get_tensor_details(i) for i in self._c.inputs()]

    def get_output_details(self) -> List[Dict[str, Any]]:
        return [self._get_tensor_details(i) for i in self._c.outputs()]

    def get_tensor_details(self, subgraph_index: int = 0) -> List[Dict[str, Any]]:
        with self._subgraph(subgraph_index):
            tensors, _ = self._c.counts
            return [_tensor_details(self._info(i)) for i in range(tensors)]

    def _get_op_details(self, index: int) -> Dict[str, Any]:
        node = self._c.node_info(int(index))
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
        with self._subgraph(subgraph_index):
            self._set(tensor_index, value)

    def _set(self, tensor_index: int, value: Any) -> None:
        info = self._info(tensor_index)
        dtype = self._dtype_of(info)
        value = np.asarray(value)
        if value.dtype != np.dtype(dtype):
            raise ValueError(
                f"Cannot set tensor: Got value of type {_type_name(value.dtype)} but "
                f"expected type {info['type_name']} for input {info['index']}, name: "
                f"{info['name']} ")
        if tuple(value.shape) != tuple(info["shape"]):
            raise ValueError(
                f"Cannot set tensor: Dimension mismatch. Got {list(value.shape)} but "
                f"expected {list(info['shape'])} for input {info['index']}.")
        self._c.set_bytes(info["index"], np.ascontiguousarray(value))

    def get_tensor(self, tensor_index: int, subgraph_index: int = 0) -> np.ndarray:
        """A copy of the tensor (of subgraph_index). An intermediate tensor is readable
        after invoke() only with preserve_all_tensors=True (its memory is shared)."""
        with self._subgraph(subgraph_index):
            return self._get(tensor_index)

    def _get(self, tensor_index: int) -> np.ndarray:
        info = self._info(tensor_index)
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
        self.set_tensor(self._io(self._c.inputs(), index, "input"), input_data)

    def get_output(self, index: int) -> np.ndarray:
        return self.get_tensor(self._io(self._c.outputs(), index, "output"))

    @staticmethod
    def _io(indices: Tuple[int, ...], i: int, what: str) -> int:
        if not 0 <= i < len(indices):
            raise IndexError(f"{what} {i} out of range: the model has {len(indices)} "
                             f"{what}s")
        return indices[i]

    def arena_used_bytes(self) -> int:
        """head + tail after allocate_tensors(), as TFLM's arena_used_bytes()."""
        return self._c.recording()["total"]

    def print_allocations(self) -> None:
        """Prints TFLM's RecordingMicroAllocator report."""
        print(self._c.recording_text())

    def profile(self, n: int = 10, *, warmup: int = 1) -> Any:
        """Per-op times of ``n`` invokes with the current inputs, timed in C without the
        GIL: a :class:`picolite.profile.Profile` (``print()`` it, or ``.nodes``/``.by_op``)."""
        from picolite.profile import profile

        return profile(self, n, warmup=warmup)

    # --- reports ---------------------------------------------------------------------

    def allocations(self) -> AllocationReport:
        return AllocationReport(self._c.recording(), self._c.recording_text())

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
