"""LiteRT's (tf.lite's, tflite_runtime's) interpreter module surface over picolite: change
one import line.

    from ai_edge_litert import interpreter as tfl       # or tflite_runtime.interpreter
    from picolite import interpreter as tfl              # after

Every keyword LiteRT's Interpreter takes is accepted, with this meaning in picolite:

- ``num_threads``: checked as LiteRT does (an int >= 1); one picolite interpreter runs on
  one thread (as TFLM on a microcontroller), so the value changes no result.
- ``experimental_op_resolver_type``: any OpResolverType; BUILTIN_REF runs picolite's
  portable kernels, the others its host fast paths (``kernels="auto"``); both are
  bit-exact with LiteRT's BUILTIN_REF for integer models.
- ``experimental_delegates``: picolite runs no delegates; None or an empty list only.
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
"""

from __future__ import annotations

import enum
from typing import Any, Optional, Sequence

from picolite import _api

__all__ = ["Delegate", "Interpreter", "InterpreterWithCustomOps", "OpResolverType",
           "load_delegate"]

_NO_DELEGATES = ("picolite runs no delegates: every operator runs on picolite's portable "
                 "kernels, which give the results a microcontroller gets")


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


class Interpreter(_api.Interpreter):
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
                 arena: Optional[_api.Arena] = None, arena_size: Optional[int] = None,
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
                         custom_ops=custom_ops, kernels=kernels)

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
