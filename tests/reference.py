"""Reference runs for picolite's tests: LiteRT with its reference kernels.

picolite aims to be bit-exact with TensorFlow Lite Micro, whose kernels are the TFLite
*reference* kernels; LiteRT's default (optimized) kernels round differently in places. So
every reference run here uses ``OpResolverType.BUILTIN_REF``.

Helpers:
    litert_available()          -> True when ai_edge_litert imports
    run_litert(model, inputs)   -> list of output arrays (in output order)
    input_details(model)        -> LiteRT's input details for a model
    random_inputs(details, seed)-> deterministic random inputs matching dtype/shape/quant
                                   (pass model= to use a float input's QUANTIZE range)
    lcg_inputs(details, k)      -> the LCG inputs of ../shared/models/README.md
"""

from __future__ import annotations

import os
from typing import List, Sequence, Union

import numpy as np

ModelLike = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]"]


def litert_available() -> bool:
    try:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType  # noqa: F401
    except Exception:  # ImportError, or a broken native library
        return False
    return True


def _model_bytes(model: ModelLike) -> bytes:
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model)
    with open(os.fspath(model), "rb") as f:
        return f.read()


def make_interpreter(model: ModelLike, *, preserve_all_tensors: bool = False):
    """A LiteRT interpreter on the reference kernels, tensors allocated."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    it = Interpreter(
        model_content=_model_bytes(model),
        experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
        experimental_preserve_all_tensors=preserve_all_tensors,
    )
    it.allocate_tensors()
    return it


def input_details(model: ModelLike) -> list:
    return make_interpreter(model).get_input_details()


def output_details(model: ModelLike) -> list:
    return make_interpreter(model).get_output_details()


def run_litert(
    model: ModelLike,
    inputs: Sequence[np.ndarray],
    *,
    preserve_all_tensors: bool = False,
    return_interpreter: bool = False,
):
    """Run ``model`` once on ``inputs`` (in input order); return the outputs.

    With ``return_interpreter=True`` returns ``(outputs, interpreter)`` so that a caller
    who asked for ``preserve_all_tensors`` can read every intermediate tensor.
    """
    it = make_interpreter(model, preserve_all_tensors=preserve_all_tensors)
    details = it.get_input_details()
    if len(inputs) != len(details):
        raise ValueError(f"model has {len(details)} inputs, got {len(inputs)}")
    for d, x in zip(details, inputs):
        x = np.asarray(x)
        if x.dtype != d["dtype"] or tuple(x.shape) != tuple(d["shape"]):
            raise ValueError(
                f"input {d['name']!r}: expected {np.dtype(d['dtype']).name}"
                f"{list(d['shape'])}, got {x.dtype.name}{list(x.shape)}"
            )
        it.set_tensor(d["index"], x)
    it.invoke()
    outs: List[np.ndarray] = [it.get_tensor(d["index"]).copy() for d in it.get_output_details()]
    if return_interpreter:
        return outs, it
    return outs


def quantized_float_input_ranges(model: ModelLike) -> dict:
    """{input tensor index: (lo, hi)} for float inputs that feed a QUANTIZE op: the float
    range that op's output quantization can represent."""
    it = make_interpreter(model)
    inputs = {d["index"] for d in it.get_input_details()}
    tensors = {t["index"]: t for t in it.get_tensor_details()}
    ranges = {}
    for op in it._get_ops_details():
        if op["op_name"] != "QUANTIZE" or not len(op["inputs"]):
            continue
        src = int(op["inputs"][0])
        if src not in inputs or tensors[src]["dtype"] != np.float32:
            continue
        q = tensors[int(op["outputs"][0])]
        scale, zp = q["quantization"]
        if scale:
            info = np.iinfo(q["dtype"])
            ranges[src] = (scale * (info.min - zp), scale * (info.max - zp))
    return ranges


def random_inputs(details: list, seed: int = 0, *, model: ModelLike = None,
                  float_range=None) -> List[np.ndarray]:
    """Deterministic random inputs, one per entry of ``details`` (LiteRT input details).

    Integer tensors cover their full range (int8 -128..127, int16 -32768..32767; int32 and
    wider -1000..1000). Float tensors are uniform in ``float_range`` if given, else, when
    ``model`` is given and the input feeds a QUANTIZE op, in the range that op's
    quantization represents, else in [-1, 1] (the range make_models.py calibrated on).
    """
    rng = np.random.RandomState(seed)
    qranges = quantized_float_input_ranges(model) if model is not None else {}
    out: List[np.ndarray] = []
    for d in details:
        shape = tuple(int(s) for s in d["shape"])
        dt = np.dtype(d["dtype"])
        if dt.kind == "f":
            lo, hi = float_range or qranges.get(d["index"], (-1.0, 1.0))
            out.append(rng.uniform(lo, hi, size=shape).astype(dt))
        elif dt == np.bool_:
            out.append(rng.randint(0, 2, size=shape).astype(np.bool_))
        elif dt.kind in "iu":
            info = np.iinfo(dt)
            lo, hi = int(info.min), int(info.max)
            if dt.itemsize >= 4:  # keep int32/int64 small: shapes/indices, not raw bits
                lo, hi = -1000, 1000
                if dt.kind == "u":
                    lo = 0
            out.append(rng.randint(lo, hi + 1, size=shape, dtype=np.int64).astype(dt))
        else:
            raise ValueError(f"random_inputs: unsupported dtype {dt}")
    return out


class _Lcg:
    """state = state*1664525 + 1013904223 (mod 2^32); next() advances then returns."""

    def __init__(self, seed: int):
        self.state = seed & 0xFFFFFFFF

    def take(self, n: int) -> np.ndarray:
        vals = np.empty(n, dtype=np.uint32)
        s = self.state
        for i in range(n):
            s = (s * 1664525 + 1013904223) & 0xFFFFFFFF
            vals[i] = s
        self.state = s
        return vals


def lcg_tensor(dtype, shape, seed: int) -> np.ndarray:
    """One tensor of the LCG data described in ../shared/models/README.md.

    int8 (int8)(next()>>24), int16 (int16)(next()>>16), float ((next()>>8)&0xFFFF)/65536.
    Beyond the README (no reference file uses them): uint8 (uint8)(next()>>24),
    int32 (int32)next(), bool next()>>31.
    """
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    v = _Lcg(seed).take(n)
    if dt == np.int8:
        a = (v >> 24).astype(np.uint8).view(np.int8)
    elif dt == np.uint8:
        a = (v >> 24).astype(np.uint8)
    elif dt == np.int16:
        a = (v >> 16).astype(np.uint16).view(np.int16)
    elif dt == np.float32:
        a = ((v >> 8) & 0xFFFF).astype(np.float32) / np.float32(65536.0)
    elif dt == np.int32:
        a = v.view(np.int32)
    elif dt == np.bool_:
        a = (v >> 31).astype(np.bool_)
    else:
        raise ValueError(f"lcg_tensor: unsupported dtype {dt}")
    return a.reshape(tuple(int(s) for s in shape))


def lcg_inputs(details: list, invocation: int = 0) -> List[np.ndarray]:
    """Inputs for invocation ``k`` as the reference_outputs were made:
    input i uses seed 1234 + 7919*k + 104729*i."""
    return [
        lcg_tensor(d["dtype"], d["shape"], 1234 + 7919 * invocation + 104729 * i)
        for i, d in enumerate(details)
    ]
