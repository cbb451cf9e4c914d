"""Operators written in Python: what ``custom_ops=`` expects, and the bridge the C callbacks
(src/custom.c) call to run one: numpy views in, checked results out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from picolite._errors import as_index
from picolite._model import DTYPES


class CustomOp:
    """What ``custom_ops={"Name": op}`` expects, for operators picolite does not ship
    (any object with these two methods will do; subclassing is optional).

    ``prepare(inputs)`` gets one :class:`TensorSpec` per input (``shape``, ``dtype``,
    ``data``: the values of a constant input, else None) and returns one ``(shape, dtype)``
    per output; the dtype must be the model's, the shape is checked as a builtin kernel's is.
    It may be called more than once (sizing runs), so keep it free of side effects.
    ``invoke(inputs, outputs)`` gets read-only arrays of the inputs and writable arrays of
    the outputs (holding the outputs' current bytes): write the results into ``outputs`` (or
    return one array per output, checked for shape and dtype), and they are copied into the
    arena when invoke returns. The arrays are copies, so keeping one is harmless.
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


def custom_kwargs(custom_ops: Optional[Dict[str, Any]]) -> Dict[str, Any]:
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
    dtype = DTYPES.get(ttype)
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
    try:
        # copies: an array the operator keeps is its own, never a pointer into the arena
        # (which a later invoke reuses and close() frees)
        ins = [_np_view(m, t, s, name).copy() for m, t, s in inputs]
        for a in ins:
            a.flags.writeable = False
        outs = [_np_view(m, t, s, name).copy() for m, t, s in outputs]
        result = op.invoke(ins, outs)
        if result is not None:
            _copy_results(name, list(result), outs)
        for (m, t, s), o in zip(outputs, outs):
            np.copyto(_np_view(m, t, s, name), o)
    finally:
        for m in mems:  # the arena is reachable through no object once the call returns
            m.release()
    return None


def _custom_prepare(op: Any, name: str, inputs: List[Tuple[Any, int, Tuple[int, ...]]],
                    outputs: List[Tuple[Any, int, Tuple[int, ...]]]) -> List[Tuple[int, ...]]:
    specs = [TensorSpec(tuple(s), DTYPES.get(t),
                        None if m is None else _np_view(m, t, s, name).copy())
             for m, t, s in inputs]
    result = list(op.prepare(specs))
    if len(result) != len(outputs):
        raise ValueError(f"custom operator {name}: prepare returned {len(result)} outputs, "
                         f"the model's node has {len(outputs)}")
    shapes = []
    for i, (spec, (_, t, _)) in enumerate(zip(result, outputs)):
        shape, dtype = spec
        if np.dtype(dtype) != np.dtype(DTYPES.get(t)):
            raise ValueError(f"custom operator {name}: output {i} has dtype "
                             f"{np.dtype(DTYPES.get(t)).name} in the model, prepare "
                             f"returned {np.dtype(dtype).name}")
        shapes.append(tuple(as_index(d, f"output {i} dimension") for d in shape))
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
