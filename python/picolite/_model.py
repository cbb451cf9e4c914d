"""A model as the Python side sees it: its bytes, its tensor types and shapes, tf.lite's
detail dicts, and TFLite's string buffers.

Plain functions of values; nothing here holds an interpreter.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from picolite._errors import ModelError, ResizeError

ModelLike = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]
InputShapes = Union[Sequence[Any], Dict[int, Any]]


# TFLite TensorType -> numpy type class, as tf.lite reports dtypes.
DTYPES: Dict[int, Any] = {
    0: np.float32, 1: np.float16, 2: np.int32, 3: np.uint8, 4: np.int64, 5: np.bytes_,
    6: np.bool_, 7: np.int16, 8: np.complex64, 9: np.int8, 10: np.float64,
    11: np.complex128, 12: np.uint64, 15: np.uint32, 16: np.uint16,
}

TYPE_NAMES: Dict[Any, str] = {
    np.dtype(np.float32): "FLOAT32", np.dtype(np.float16): "FLOAT16",
    np.dtype(np.int32): "INT32", np.dtype(np.uint8): "UINT8", np.dtype(np.int64): "INT64",
    np.dtype(np.bool_): "BOOL", np.dtype(np.int16): "INT16",
    np.dtype(np.complex64): "COMPLEX64", np.dtype(np.int8): "INT8",
    np.dtype(np.float64): "FLOAT64", np.dtype(np.complex128): "COMPLEX128",
    np.dtype(np.uint64): "UINT64", np.dtype(np.uint32): "UINT32",
    np.dtype(np.uint16): "UINT16",
}

STRING = 5  # TensorType STRING
HANDLES = (13, 14)  # RESOURCE, VARIANT: LiteRT shows them as numpy.object_, valued None


def details_dtype(ttype: int) -> Any:
    """The dtype tensor details show for a TensorType, as LiteRT's (RESOURCE and VARIANT
    handles are numpy.object_)."""
    return np.object_ if ttype in HANDLES else DTYPES.get(ttype)


def type_name(dtype: np.dtype) -> str:
    if np.dtype(dtype).kind in "OSU":  # what LiteRT takes as a STRING value
        return "STRING"
    return TYPE_NAMES.get(np.dtype(dtype), str(dtype).upper())


def read_model(model: ModelLike) -> bytes:
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


def content_bytes(content: Any) -> bytes:
    """The bytes the C interpreter holds. The model is verified once, at creation, so only
    an immutable bytes object is used in place; any other buffer (which its owner could
    still modify under the verified view) is copied."""
    if isinstance(content, bytes):
        return content
    return bytes(memoryview(content))


def checked_dims(tensor_size: Any, what: str) -> Tuple[int, ...]:
    """tensor_size as LiteRT reads it (any 1-D int sequence or array), checked for what
    picolite can hold: rank <= 8, every dim >= 0 (0: an empty tensor, as LiteRT takes)."""
    arr = np.asarray(tensor_size)
    if arr.ndim != 1:
        raise ValueError(f"Shape should be 1D instead of {arr.ndim}.")
    if arr.size and not (np.issubdtype(arr.dtype, np.integer)
                         or np.issubdtype(arr.dtype, np.floating)):
        raise ValueError(f"{what}: the shape must hold integers, got {arr.dtype}")
    dims = tuple(int(d) for d in arr.astype(np.int64))
    if len(dims) > 8:
        raise ResizeError(f"{what}: rank {len(dims)} is above picolite's limit of 8")
    bad = [k for k, d in enumerate(dims) if d < 0]
    if bad:
        raise ResizeError(f"{what}: shape {list(dims)} has dim {bad[0]} = {dims[bad[0]]}; "
                          f"a dim must be at least 0")
    return dims


def shape_pairs(input_shapes: Optional[InputShapes]) -> Optional[List[Tuple[int, Any]]]:
    """(input position, dims) pairs from a dict {position: shape} or a sequence with one
    shape (or None: the model's) per input."""
    if input_shapes is None:
        return None
    items = (input_shapes.items() if isinstance(input_shapes, dict)
             else enumerate(input_shapes))
    return [(int(i), checked_dims(s, f"input {i}")) for i, s in items if s is not None]


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


def tensor_details(info: Dict[str, Any]) -> Dict[str, Any]:
    legacy, params = _quant_details(info)
    return {
        "name": info["name"],
        "index": info["index"],
        "shape": np.array(info["shape"], dtype=np.int32),
        "shape_signature": np.array(info["shape_signature"], dtype=np.int32),
        "dtype": details_dtype(info["type"]),
        "quantization": legacy,
        "quantization_parameters": params,
        "sparsity_parameters": {},
    }


# --- STRING tensors: TFLite's string buffer <-> numpy -------------------------------


def _string_item(x: Any, k: int) -> bytes:
    if isinstance(x, str):
        return x.encode("utf-8")
    if isinstance(x, bytes):
        return bytes(x)
    raise ValueError(f"PyBytes_AsStringAndSize() failed. (element {k} is "
                     f"{type(x).__name__}, not str or bytes)")


def string_buffer(value: np.ndarray) -> bytes:
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


def string_array(data: Any, shape: Tuple[int, ...], index: int) -> np.ndarray:
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
