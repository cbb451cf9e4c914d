"""The interpreter both audiences share: construction in one arena, allocation, invoke,
tensor access by index, and picolite's own reports.

LiteRT's method names are added by picolite.interpreter, TFLM's by picolite.runtime, and
picolite.Interpreter carries both; this class names neither, so each of those modules
exposes only its peer's names.
"""

from __future__ import annotations

import contextlib
import html
import os
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

import numpy as np

from picolite import _picolite as _c
from picolite._batch import run_batch
from picolite._custom import custom_kwargs
from picolite._errors import ArenaTooSmallError, Error, ModelError, StateError, as_index
from picolite._model import (DTYPES, HANDLES, STRING, InputShapes, ModelLike, content_bytes,
                             read_model, shape_pairs, string_array, string_buffer,
                             tensor_details, type_name)
from picolite._reports import AllocationReport, MemoryPlan, PlannedBuffer, html_table
from picolite import targets as _targets

Arena = _c.Arena
# The firmwares whose bytes (and, for TFLM targets, arena) picolite predicts: pl_target.h.
TARGETS: Tuple[str, ...] = tuple(_c.targets())


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
    :mod:`picolite.targets`), ``"picolite"`` picolite's own runtime with ``planner``
    (``"litert"``: picolite's own runtime running LiteRT's kernels).
    The figure is for a 16-byte-aligned buffer (``Arena(size)`` always is); a wrapped buffer
    starting k bytes past a 16-byte boundary needs (16 - k) % 16 bytes more.

    ``input_shapes`` sizes the model with its inputs resized as resize_tensor_input() would
    resize them: one shape (or None) per input, or a dict {input position: shape}.
    ``custom_ops``: as for :class:`Interpreter` (their outputs are planned like any tensor)."""
    content, shapes = read_model(model), shape_pairs(input_shapes)
    own = _c.required_arena_size(content, planner, preserve_all_tensors, shapes,
                                 **custom_kwargs(custom_ops), target=target)
    if not _targets.is_tflm(target):
        return own
    _targets.check_plan(target, planner, preserve_all_tensors)
    return _targets.required(content, target, own, shapes, custom_kwargs(custom_ops))


def required_arena_sizes(model: ModelLike,
                         targets: Optional[List[str]] = None) -> Dict[str, Union[int, str]]:
    """The exact minimum arena of ``model`` on each firmware: {target: bytes}, or the reason
    in words where that firmware cannot run the model (an operator its kernels refuse).
    ``targets`` defaults to every target with an arena of its own (TFLM's reference and
    CMSIS-NN builds, the tflite-micro wheel, picolite's own runtime), so a user sees before
    choosing a board what, say, CMSIS-NN on a Helium core costs."""
    content = read_model(model)
    sizes: Dict[str, Union[int, str]] = {}
    for target in targets or list(_targets.TITLES):
        try:
            sizes[target] = required_arena_size(content, target=target)
        except Error as e:
            sizes[target] = f"{type(e).__name__}: {e}"
    return sizes


def _default_arena_size(content, planner: str, preserve: bool,
                        custom_ops: Optional[Dict[str, Any]], shapes=None,
                        target: str = "tflm") -> Tuple[int, Optional[BaseException]]:
    """The exact arena the model needs (with its inputs resized to ``shapes``, (position,
    dims) pairs), and None. When allocation cannot run at all (an op picolite does not
    support, a kernel refusing its tensors, a shape the model cannot take), an arena that is
    enough to create the interpreter and the error the sizing run met: allocate_tensors()
    raises that error (as tf.lite reports such problems there), never an
    ArenaTooSmallError that only the stand-in size caused."""
    try:
        return _c.required_arena_size(content, planner, preserve, shapes,
                                      **custom_kwargs(custom_ops), target=target), None
    except ArenaTooSmallError:
        raise
    except Exception as e:  # a picolite error, or a Python operator's own
        return 64 * 1024, e


def _arena_bytes(size: Any) -> int:
    """An arena size: an integer >= 0 (TypeError / ValueError otherwise). 0 and every other
    size below what the model needs are accepted here and refused by the interpreter with
    ArenaTooSmallError(required, available), one exception for every too-small arena."""
    n = as_index(size, "arena_size")
    if n < 0:
        raise ValueError(f"arena_size must be >= 0 bytes, got {n}")
    return n


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


def _checked_loop_budget(value: Any) -> int:
    """WHILE iterations per invoke, every loop together: an integer in 1..2**32-1 (1.5 is a
    TypeError, -1 and 2**64 ValueErrors naming them, as the C side checks again)."""
    n = as_index(value, "loop_budget")
    if not 1 <= n <= 0xFFFFFFFF:
        raise ValueError(f"loop_budget must be in 1..4294967295 (WHILE iterations per "
                         f"invoke), got {n}")
    return n


def _checked_num_threads(value: Any) -> int:
    """Threads for the fast paths: an integer in 1..64 (True and 2.0 refused)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"num_threads must be an integer, got {type(value).__name__} "
                        f"{value!r}")
    if not 1 <= value <= 64:
        raise ValueError(f"num_threads must be in 1..64, got {value}")
    return value


class InterpreterCore:
    """picolite's interpreter without either peer's method names (see the module docstring);
    the constructor is picolite.Interpreter's."""

    def __init__(self, model_path: Optional[Union[str, "os.PathLike[str]"]] = None,
                 model_content: Any = None, arena: Optional[Arena] = None,
                 arena_size: Optional[int] = None, planner: str = "greedy",
                 preserve_all_tensors: bool = False, *,
                 experimental_preserve_all_tensors: bool = False,
                 loop_budget: int = 1_000_000,
                 custom_ops: Optional[Dict[str, Any]] = None,
                 kernels: str = "auto", target: str = "tflm", num_threads: int = 1):
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
        self._loop_budget = _checked_loop_budget(loop_budget)
        self._num_threads = _checked_num_threads(num_threads)
        content = (read_model(model_path) if model_path is not None
                   else content_bytes(model_content))
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
                                                                 custom_ops, target=target)
            elif self._firmware_arena is not None:
                arena_size = _targets.host_arena(content, target, self._firmware_arena,
                                                 planner, preserve_all_tensors,
                                                 custom_kwargs(custom_ops))
            arena = Arena(_arena_bytes(arena_size))
        try:
            self._c = _c._Interpreter(content, arena, planner, preserve_all_tensors,
                                      self._loop_budget, kernels=kernels, target=target,
                                      num_threads=self._num_threads,
                                      **custom_kwargs(custom_ops))
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

    def _allocate(self) -> None:
        """Init, prepare and plan every node; the arena layout is fixed afterwards. After
        resize_tensor_input() the shapes follow the new inputs and the arena is re-planned;
        a default arena (no arena= or arena_size=) grows to what they need."""
        if self._resized and self._auto_arena and not self._c.allocated:
            need, self._deferred = _default_arena_size(self._model_content, self._planner,
                                                       self._preserve, self._custom_ops,
                                                       list(self._shapes.items()),
                                                       self._target)
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
                                      num_threads=self._num_threads,
                                      **custom_kwargs(self._custom_ops))
        except (Error, ValueError):
            self._c = _c._Interpreter(self._model_content, arena, self._planner,
                                      self._preserve, self._loop_budget, kernels=self._kernels,
                                      target=self._target,
                                      input_shapes=list(self._shapes.items()),
                                      num_threads=self._num_threads,
                                      **custom_kwargs(self._custom_ops))
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
        return run_batch(self, inputs)

    def close(self) -> None:
        """Destroys the C interpreter now; its arena is free for another interpreter."""
        self._c.close()

    def __enter__(self) -> "InterpreterCore":
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
    def num_threads(self) -> int:
        """The threads an invoke's large CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED (their
        output points, rows or channels), ADD, SUB, MUL and float PRELU, LOGISTIC and TANH (their
        elements) split over: the bytes are one thread's. 1 with kernels="portable"."""
        return self._c.num_threads

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
        return caption + html_table(
            ["node", "op", "inputs", "outputs"],
            [[d["index"], d["op_name"], d["inputs"].tolist(), d["outputs"].tolist()]
             for d in self._ops_details()])

    # --- tensors and nodes by index (tf.lite's dicts) ------------------------------

    def _info(self, index: int) -> Dict[str, Any]:
        return self._c.tensor_info(as_index(index, "tensor index"))

    @contextlib.contextmanager
    def _subgraph(self, subgraph_index: int) -> Iterator[None]:
        """Addresses subgraph k for the calls inside (0 again after)."""
        self._c.select_subgraph(int(subgraph_index))
        try:
            yield
        finally:
            self._c.select_subgraph(0)

    def _subgraph_count(self) -> int:
        """How many subgraphs the model has."""
        return self._c.subgraphs[0]

    def _checked_subgraph(self, subgraph_index: int) -> None:
        count = self._subgraph_count()
        if not 0 <= as_index(subgraph_index, "subgraph_index") < count:
            raise ValueError(f"subgraph_index is out of range: {subgraph_index} for the model,"
                             f" which has {count} subgraphs.")

    def _details(self, index: int, subgraph_index: int = 0) -> Dict[str, Any]:
        with self._subgraph(subgraph_index):
            return tensor_details(self._info(index))

    def _op_details(self, op_index: int) -> Dict[str, Any]:
        index = as_index(op_index, "node index")
        node = self._c.node_info(index)
        dtype = [DTYPES.get(self._info(t)["type"]) for t in node["inputs"] if t != -1]
        rtype = [DTYPES.get(self._info(t)["type"]) for t in node["outputs"] if t != -1]
        return {
            "index": int(index),
            "op_name": node["op_name"],
            "inputs": np.array(node["inputs"], dtype=np.int32),
            "outputs": np.array(node["outputs"], dtype=np.int32),
            "operand_types": dtype,
            "result_types": rtype,
        }

    def _ops_details(self) -> List[Dict[str, Any]]:
        _, nodes = self._c.counts
        return [self._op_details(i) for i in range(nodes)]

    # --- tensor values -------------------------------------------------------------

    def _dtype_of(self, info: Dict[str, Any]) -> Any:
        dtype = DTYPES.get(info["type"])
        if dtype is None or dtype is np.bytes_:
            raise ValueError(f"Tensor {info['index']} has type {info['type_name']}, which "
                             f"picolite cannot show as a numpy array")
        return dtype

    def _set_tensor(self, tensor_index: int, value: Any, subgraph_index: int = 0) -> None:
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
        if info["type"] == STRING:
            return self._set_strings(info, np.asarray(value))
        dtype = self._dtype_of(info)
        value = np.asarray(value)
        if value.dtype != np.dtype(dtype):
            raise ValueError(
                f"Cannot set tensor: Got value of type {type_name(value.dtype)} but "
                f"expected type {info['type_name']} for input {info['index']}, name: "
                f"{info['name']} ")
        _check_shape(tuple(value.shape), tuple(info["shape"]), info["index"])
        self._c.set_bytes(info["index"], np.ascontiguousarray(value))

    def _set_strings(self, info: Dict[str, Any], value: np.ndarray) -> None:
        """A STRING tensor takes an array of str, bytes or objects (LiteRT's rule); its
        buffer must fit the room the arena gives it (see pl_type_bytes in pl_types.h)."""
        if value.dtype.kind not in "OSU":
            raise ValueError(
                f"Cannot set tensor: Got value of type {type_name(value.dtype)} but "
                f"expected type STRING for input {info['index']}, name: {info['name']} ")
        _check_shape(tuple(value.shape), tuple(info["shape"]), info["index"])
        buf = string_buffer(value)
        room = info["bytes"]
        if len(buf) > room:
            n = max(int(np.prod(info["shape"], dtype=np.int64)), 1)
            raise ValueError(
                f"Cannot set tensor: the strings take {len(buf)} bytes (a {4 * (n + 2)}-byte "
                f"header and {len(buf) - 4 * (n + 2)} bytes of text); STRING tensor "
                f"{info['index']} holds {room} bytes in the arena (64 bytes of text per "
                f"string on average, planned once)")
        self._c.set_bytes(info["index"], buf + bytes(room - len(buf)))

    def _get_tensor(self, tensor_index: int, subgraph_index: int = 0) -> np.ndarray:
        """A copy of the tensor (of subgraph_index). An intermediate tensor is readable
        after invoke() only with preserve_all_tensors=True (its memory is shared)."""
        if subgraph_index == 0:  # selected between calls
            out = self._c.get_tensor(tensor_index)  # C: a kept tensor's copy in one call
            return out if out is not NotImplemented else self._get(tensor_index)
        with self._subgraph(subgraph_index):
            return self._get(tensor_index)

    def _get(self, tensor_index: int) -> np.ndarray:
        info = self._info(tensor_index)
        if info["type"] in HANDLES:  # a resource or variant handle: LiteRT gives None
            return np.array(None, dtype=object)
        if info["type"] == STRING:
            return string_array(self._c.get_bytes(info["index"]), tuple(info["shape"]),
                                info["index"])
        dtype = self._dtype_of(info)
        data = self._c.get_bytes(info["index"])
        return np.frombuffer(data, dtype=dtype).reshape(info["shape"])

    def _view(self, index: int, subgraph_index: int = 0) -> np.ndarray:
        with self._subgraph(subgraph_index):
            return self._view_selected(index)

    def _view_selected(self, index: int) -> np.ndarray:
        info = self._info(index)
        dtype = self._dtype_of(info)
        exporter = self._c.tensor_buffer(index)
        return np.frombuffer(memoryview(exporter), dtype=dtype).reshape(info["shape"])

    # --- picolite's own: reports, profile ------------------------------------------

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

    def arena_used_bytes(self) -> int:
        """head + tail after allocate_tensors(), as TFLM's C++
        MicroInterpreter::arena_used_bytes() (TFLM's Python interpreter has no such call):
        the target's (a TFLM target's own figure, for the arena_size given or a large one),
        picolite's own arena for target="picolite"."""
        if _targets.is_tflm(self._target):
            return self._tflm()["arena_used_bytes"]
        return self._c.recording()["total"]

    def profile(self, n: int = 10, *, warmup: int = 1) -> Any:
        """Per-op times of ``n`` invokes with the current inputs, timed in C without the
        GIL: a :class:`picolite.profile.Profile` (``print()`` it, or ``.nodes``/``.by_op``)."""
        from picolite.profile import profile

        return profile(self, n, warmup=warmup)
