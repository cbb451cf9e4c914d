"""Many samples through one interpreter in one GIL-free C call: the stacking rules shared by
``Interpreter.invoke_batch`` and :func:`picolite.evaluate`.

It reads the interpreter only through the core's details and its C object, so the
interpreter can call it and evaluate can build on it without either importing the other.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from picolite import _picolite as _c


def sample_layout(details: Sequence[Dict[str, Any]], arrays: Sequence[np.ndarray]):
    """(sample count, squeezed): each array is (N, *shape), or (N, *shape[1:]) when the
    tensor's batch dimension is 1 (squeezed); every batch-1 input is given the same way."""
    n, layouts = None, set()
    for d, a in zip(details, arrays):
        shape = tuple(int(s) for s in d["shape"])
        if a.ndim >= 1 and tuple(a.shape[1:]) == shape:
            squeezed = False
        elif shape[:1] == (1,) and a.ndim >= 1 and tuple(a.shape[1:]) == shape[1:]:
            squeezed = True
        else:
            raise ValueError(f"input {d['name']!r}: samples of shape {list(a.shape)} fit "
                             f"neither (N, {', '.join(map(str, shape))}) nor the same "
                             f"without the batch dimension of 1")
        if shape[:1] == (1,):
            layouts.add(squeezed)
        if n is not None and a.shape[0] != n:
            raise ValueError(f"inputs hold {n} and {a.shape[0]} samples")
        n = a.shape[0]
    if len(layouts) > 1:
        raise ValueError("give every input with or without its batch dimension of 1")
    return n or 0, layouts == {True}


def as_input_list(inputs: Any, details) -> List[np.ndarray]:
    if isinstance(inputs, dict):
        names = [d["name"] for d in details]
        missing = [k for k in names if k not in inputs]
        if missing:
            raise ValueError(f"inputs lack {missing}; the model's inputs are {names}")
        inputs = [inputs[k] for k in names]
    elif isinstance(inputs, np.ndarray) or not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    arrays = [np.asarray(a) for a in inputs]
    if len(arrays) != len(details):
        raise ValueError(f"{len(arrays)} input arrays for a model with {len(details)} inputs")
    for d, a in zip(details, arrays):
        if a.dtype != np.dtype(d["dtype"]):
            raise ValueError(f"input {d['name']!r}: got {a.dtype} samples, the model expects "
                             f"{np.dtype(d['dtype'])}")
    return arrays


def run_batch(it: Any, inputs: Any, independent: bool = False
              ) -> List[np.ndarray]:
    """``it.invoke_batch(inputs)``: every sample through one allocated interpreter in one
    GIL-free C call; one stacked array per output (layout as :func:`picolite.evaluate`). With
    ``independent`` the interpreter is reset before each sample (state never carries)."""
    # the core's own details: each audience's get_input_details() has its own form
    in_details = [it._details(i) for i in it._c.inputs()]
    out_details = [it._details(i) for i in it._c.outputs()]
    arrays = [np.ascontiguousarray(a) for a in as_input_list(inputs, in_details)]
    n, squeezed = sample_layout(in_details, arrays)
    outputs = [np.empty((n,) + stacked_shape(d, squeezed), dtype=d["dtype"])
               for d in out_details]
    _c._invoke_batch(it._c, arrays, tuple(int(d["index"]) for d in in_details), outputs,
                     tuple(int(d["index"]) for d in out_details), independent)
    return outputs


def stacked_shape(detail: Dict[str, Any], squeezed: bool) -> Tuple[int, ...]:
    shape = tuple(int(s) for s in detail["shape"])
    return shape[1:] if squeezed and shape[:1] == (1,) else shape
