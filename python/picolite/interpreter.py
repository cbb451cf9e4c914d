"""LiteRT's (tf.lite's, tflite_runtime's) interpreter module surface over picolite: change
one import line.

    from ai_edge_litert import interpreter as tfl       # or tflite_runtime.interpreter
    from picolite import interpreter as tfl              # after

Every keyword LiteRT's Interpreter takes is accepted, with this meaning in picolite:

- ``num_threads``: checked as LiteRT does (an int >= 1); the host fast paths split an
  invoke's large operators (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD, SUB, MUL,
  float PRELU, LOGISTIC and TANH) over that many threads (at most 64), each output computed as on
  one thread, so the value changes no byte. The portable kernels (BUILTIN_REF) run on one.
- ``experimental_op_resolver_type``: any OpResolverType; BUILTIN_REF runs picolite's
  portable kernels, the others its host fast paths (``kernels="auto"``); both are
  bit-exact with LiteRT's BUILTIN_REF for integer models.
- ``experimental_delegates``: picolite runs no delegates; None or an empty list only
  (every operator runs on picolite's own kernels: the host fast paths, or the portable
  ones with BUILTIN_REF or ``kernels="portable"``, the same bytes).
- ``experimental_preserve_all_tensors``: every tensor readable after invoke() (linear
  plan), as LiteRT. Without it the arena is TFLM's: later tensors may reuse an input's
  bytes once the model has read it, so set the inputs before each invoke().
- ``experimental_disable_delegate_clustering``, ``experimental_default_delegate_latest_
  features``, ``experimental_disable_delegate_node_fusion``, ``experimental_force_delegate_
  node_profiling``: delegate settings, accepted and without effect (no delegates).
- ``experimental_compress_quantization_zero_points``: accepted; the details always carry
  one zero point per scale, as LiteRT's default.

picolite's own keywords (``arena``, ``arena_size``, ``planner``, ``custom_ops`` for
operators written in Python) may follow as keywords.

The interpreter carries LiteRT's names and picolite's own (allocations(), memory_plan(),
profile() ...), not TFLM's (from_file, set_input, GetTensor ...: see picolite.runtime);
:class:`picolite.Interpreter` has both name sets.
"""

from __future__ import annotations

import enum
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from picolite import metrics_portable as metrics
from picolite._core import Arena, InterpreterCore
from picolite._errors import ResizeError, as_index
from picolite._model import checked_dims, tensor_details

__all__ = ["Delegate", "Interpreter", "InterpreterWithCustomOps", "OpResolverType",
           "load_delegate"]

_NO_DELEGATES = ("picolite runs no delegates: every operator runs on picolite's own kernels "
                 "(the host fast paths, or the portable ones with kernels='portable' or "
                 "BUILTIN_REF), which give the bytes a microcontroller's portable kernels "
                 "give")


class OpResolverType(enum.Enum):
    """LiteRT's op resolver choice. In picolite every value selects the same kernels:
    picolite's, bit-exact with LiteRT's BUILTIN_REF for integer models."""

    AUTO = 0
    BUILTIN = 1
    BUILTIN_REF = 2
    BUILTIN_WITHOUT_DEFAULT_DELEGATES = 3


class Delegate:
    """LiteRT's delegate handle. picolite runs no delegates, so creating one fails."""

    def __init__(self, library: Any, options: Optional[dict] = None):
        raise ValueError(f"Failed to load delegate from {library}\n{_NO_DELEGATES}")


def load_delegate(library: Any, options: Optional[dict] = None) -> Delegate:
    """LiteRT's load_delegate: always ValueError("Failed to load delegate from ..."), the
    error LiteRT raises for a library it cannot load, with the reason after it."""
    return Delegate(library, options)


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


class LiteRTMethods(InterpreterCore):
    """LiteRT's method names over the shared core (picolite.Interpreter has them too)."""

    # --- lifecycle -------------------------------------------------------------------

    def allocate_tensors(self) -> None:
        """Init, prepare and plan every node; the arena layout is fixed afterwards. After
        resize_tensor_input() the shapes follow the new inputs and the arena is re-planned;
        a default arena (no arena= or arena_size=) grows to what they need."""
        self._allocate()

    def resize_tensor_input(self, input_index: int, tensor_size: Any,
                            strict: bool = False) -> None:
        """LiteRT's resize: input tensor ``input_index`` takes shape ``tensor_size`` (any
        1-D int sequence or array) at the next allocate_tensors(), which re-plans the arena;
        until then invoke() raises. strict=True refuses to change a dim whose
        shape_signature is not -1. Only model inputs can be resized; picolite needs every
        dim >= 1 and rank <= 8. A shape the model cannot take fails allocate_tensors(),
        naming the op and the node."""
        index = as_index(input_index, "input_index")
        inputs = list(self._c.inputs())
        if index not in inputs:
            raise ResizeError(f"Attempting to resize a fixed-size tensor. (tensor {index} is "
                              f"not one of the model's inputs {inputs}; only inputs can be "
                              f"resized)")
        dims = checked_dims(tensor_size, f"Cannot resize input tensor {index}")
        info = self._info(index)
        if strict:
            _check_strict(index, tuple(info["shape"]), tuple(info["shape_signature"]), dims)
        if dims == tuple(info["shape"]):
            return  # LiteRT keeps the allocation too
        self._recreate(self._c.arena, {**self._shapes, inputs.index(index): dims})
        self._resized = True

    def reset_all_variables(self) -> None:
        """Zeroes the variable tensors."""
        self._c.reset()

    # --- details (tf.lite's dicts) ---------------------------------------------------

    def num_subgraphs(self) -> int:
        """How many subgraphs the model has (LiteRT's name)."""
        return self._subgraph_count()

    def _get_tensor_details(self, index: int, subgraph_index: int = 0) -> Dict[str, Any]:
        return self._details(index, subgraph_index)

    def get_input_details(self) -> List[Dict[str, Any]]:
        """tf.lite's list of every input's details."""
        return [self._get_tensor_details(i) for i in self._c.inputs()]

    def get_output_details(self) -> List[Dict[str, Any]]:
        """tf.lite's list of every output's details."""
        return [self._get_tensor_details(i) for i in self._c.outputs()]

    def get_tensor_details(self, subgraph_index: int = 0) -> List[Dict[str, Any]]:
        self._checked_subgraph(subgraph_index)
        with self._subgraph(subgraph_index):
            tensors, _ = self._c.counts
            return [tensor_details(self._info(i)) for i in range(tensors)]

    def _get_op_details(self, op_index: int) -> Dict[str, Any]:
        return self._op_details(op_index)

    def _get_ops_details(self) -> List[Dict[str, Any]]:
        return self._ops_details()

    # --- tensors ---------------------------------------------------------------------

    def set_tensor(self, tensor_index: int, value: Any, subgraph_index: int = 0) -> None:
        """Copies value into the tensor (of subgraph_index); dtype and shape must match."""
        self._set_tensor(tensor_index, value, subgraph_index)

    def get_tensor(self, tensor_index: int, subgraph_index: int = 0) -> np.ndarray:
        """A copy of the tensor (of subgraph_index). An intermediate tensor is readable
        after invoke() only with preserve_all_tensors=True (its memory is shared)."""
        return self._get_tensor(tensor_index, subgraph_index)

    def tensor(self, tensor_index: int, subgraph_index: int = 0) -> Callable[[], np.ndarray]:
        """tf.lite's raw access: a function returning a numpy view into the arena. While a
        view is alive, invoke() and allocate_tensors() raise StateError."""
        index = int(tensor_index)
        return lambda: self._view(index, subgraph_index)

    # --- signatures ------------------------------------------------------------------

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

    def _safe_to_run(self) -> bool:
        """tf.lite's check: no numpy view from tensor() is alive."""
        return self._c.exports == 0


class SignatureRunner:
    """One signature of an Interpreter, as LiteRT's SignatureRunner: inputs and outputs by
    name, in the signature's subgraph. Subgraphs share the arena's head: set the inputs of a
    runner right before invoking it (``runner(**inputs)`` does)."""

    def __init__(self, interpreter: LiteRTMethods, signature: Dict[str, Any]):
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
        values = {name: np.asarray(value) for name, value in kwargs.items()}
        if self._subgraph == 0:  # as LiteRT: each input takes its value's shape (an empty
            for name, value in values.items():  # one included); re-planned only if changed
                index = self._inputs[name]
                if list(self._it._get_tensor_details(index, 0)["shape"]) != list(value.shape):
                    self._it.resize_tensor_input(index, value.shape)
        self._it.allocate_tensors()
        for name, value in values.items():
            self._it.set_tensor(self._inputs[name], value, self._subgraph)
        self.invoke()
        return {n: self._it.get_tensor(t, self._subgraph) for n, t in self._outputs.items()}


class Interpreter(LiteRTMethods):
    """LiteRT's Interpreter, running on picolite (see the module docstring for the
    keywords)."""

    def __init__(self, model_path: Optional[Any] = None, model_content: Any = None,
                 experimental_delegates: Optional[Sequence[Any]] = None,
                 num_threads: Optional[int] = None,
                 experimental_op_resolver_type: Any = OpResolverType.AUTO,
                 experimental_preserve_all_tensors: bool = False,
                 experimental_disable_delegate_clustering: bool = False,
                 experimental_default_delegate_latest_features: bool = False,
                 experimental_compress_quantization_zero_points: bool = False,
                 experimental_disable_delegate_node_fusion: bool = False,
                 experimental_force_delegate_node_profiling: bool = False, *,
                 arena: Optional[Arena] = None, arena_size: Optional[int] = None,
                 planner: str = "greedy", custom_ops: Optional[dict] = None,
                 kernels: Optional[str] = None):
        if not isinstance(experimental_op_resolver_type, OpResolverType):
            raise ValueError(f"Unrecognized passed in op resolver type: "
                             f"{experimental_op_resolver_type}")
        if num_threads is not None:
            if not isinstance(num_threads, int):
                raise ValueError("type of num_threads should be int")
            if num_threads < 1:
                raise ValueError("num_threads should >= 1")
        if experimental_delegates:
            raise ValueError(f"Failed to apply delegates: {_NO_DELEGATES}")
        if kernels is None:  # LiteRT's reference kernels are picolite's portable ones
            kernels = ("portable" if experimental_op_resolver_type == OpResolverType.BUILTIN_REF
                       else "auto")
        super().__init__(model_path=model_path, model_content=model_content, arena=arena,
                         arena_size=arena_size, planner=planner,
                         preserve_all_tensors=bool(experimental_preserve_all_tensors),
                         custom_ops=custom_ops, kernels=kernels,
                         num_threads=1 if num_threads is None else min(num_threads, 64))
        # LiteRT's creation counter (a no-op in its pip package and here), called where
        # LiteRT calls it: once the interpreter exists
        metrics.TFLiteMetrics().increase_counter_interpreter_creation()

    def _get_tensor_details(self, tensor_index: int,  # type: ignore[override]
                            subgraph_index: int = 0) -> Any:
        """LiteRT's private form, with the subgraph index (picolite's details are of
        subgraph 0)."""
        if subgraph_index != 0:
            raise ValueError(f"subgraph_index is out of range: {subgraph_index} (picolite "
                             f"reports tensors of subgraph 0)")
        return super()._get_tensor_details(tensor_index)

    @property
    def experimental_compress_quantization_zero_points(self) -> bool:
        return False


class InterpreterWithCustomOps(Interpreter):
    """LiteRT's InterpreterWithCustomOps. Its registerers are C++ symbols; picolite links
    none, so a non-empty list fails as LiteRT fails on an unknown symbol."""

    def __init__(self, custom_op_registerers: Optional[Sequence[Any]] = None, **kwargs: Any):
        for r in custom_op_registerers or []:
            name = r if isinstance(r, str) else getattr(r, "__name__", repr(r))
            raise ValueError(f"Looking up symbol '{name}' failed with error 'picolite "
                             f"links no C++ op registerers'")
        super().__init__(**kwargs)
