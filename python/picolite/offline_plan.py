"""Write a memory plan into a model: the ``OfflineMemoryAllocation`` metadata entry.

TFLM (and picolite) place tensors at the offsets this entry gives instead of running a
planner on the device. :func:`write_offline_plan` computes the plan on the host with any of
picolite's planners (``optimal`` by default) and returns the model's bytes with the entry.

The buffer holds little-endian int32s ``[0 (version), subgraphs, n, offset of tensor 0
.. n-1]``, the tensors of every subgraph in subgraph order (as TFLM reads them: control flow
shares one plan), each offset relative to the start of the arena head, -1 for a tensor the
device plans itself (constants, variables, tensors no node uses). Scratch buffers cannot
be fixed in the format: the device's greedy planner places them around the fixed tensors.

The flatbuffer is rewritten without a schema library: the new root ``Model`` table, the
``buffers`` and ``metadata`` vectors (the old elements plus one each) and the new buffer are
written in front of the original bytes, which follow unchanged, shifted by a multiple of 16
(flatbuffer offsets are relative, so every old reference stays valid and aligned).
"""

import struct
from typing import List, Optional, Tuple, Union

from picolite._errors import ModelError
from picolite._model import ModelLike, read_model
from picolite._reports import PLANNERS
from picolite._unified import Interpreter

NAME = b"OfflineMemoryAllocation"
_MODEL_FIELDS = 8  # version, operator_codes, subgraphs, description, buffers,
#                    metadata_buffer, metadata, signature_defs (schema.fbs)
_BUFFERS, _METADATA = 4, 6


class _Reader:
    """Bounds-checked little-endian reads of the original flatbuffer."""

    def __init__(self, data: bytes):
        self.data = data

    def _get(self, fmt: str, at: int) -> int:
        size = struct.calcsize(fmt)
        if at < 0 or at + size > len(self.data):
            raise ModelError(f"offline plan: read of {size} bytes at {at} is outside the "
                             f"{len(self.data)}-byte model")
        return struct.unpack_from(fmt, self.data, at)[0]

    def u16(self, at: int) -> int:
        return self._get("<H", at)

    def u32(self, at: int) -> int:
        return self._get("<I", at)

    def i32(self, at: int) -> int:
        return self._get("<i", at)

    def ref(self, at: int) -> int:
        return at + self.u32(at)

    def fields(self, table: int) -> List[int]:
        """The absolute position of each field of ``table`` (0 when absent)."""
        vtable = table - self.i32(table)
        size = self.u16(vtable)
        return [(table + o if o else 0) for o in
                (self.u16(vtable + 4 + 2 * i) for i in range((size - 4) // 2))]

    def vector(self, at: int) -> List[int]:
        """The absolute positions of a vector of tables' elements (``at``: the field)."""
        start = self.ref(at)
        return [self.ref(start + 4 + 4 * i) for i in range(self.u32(start))]

    def string(self, at: int) -> bytes:
        start = self.ref(at)
        n = self.u32(start)
        if start + 4 + n > len(self.data):
            raise ModelError(f"offline plan: string at {start} runs past the model")
        return self.data[start + 4:start + 4 + n]


class _Writer:
    """Builds the front part: objects appended in order, references patched at the end
    (every reference points forward, to a later object or into the original bytes)."""

    def __init__(self):
        self.out = bytearray(8)  # root offset, file identifier
        self.patches: List[Tuple[int, Union[str, int]]] = []
        self.labels = {}

    def align(self, n: int) -> None:
        self.out += bytes(-len(self.out) % n)

    def label(self, name: str) -> None:
        self.labels[name] = len(self.out)

    def ref(self, target: Union[str, int]) -> None:
        """A uoffset to a label (str) or to a position in the original bytes (int)."""
        self.patches.append((len(self.out), target))
        self.out += bytes(4)

    def table(self, name: str, fields: List[Optional[Tuple[str, object]]]) -> None:
        """A table whose fields are all 4 bytes: ("u32", value), ("ref", target) or None."""
        present = [i for i, f in enumerate(fields) if f is not None]
        self.align(4)
        vt = struct.pack("<HH", 4 + 2 * len(fields), 4 + 4 * len(present))
        slot = {i: 4 + 4 * k for k, i in enumerate(present)}
        vt += b"".join(struct.pack("<H", slot.get(i, 0)) for i in range(len(fields)))
        vtable_at = len(self.out)
        self.out += vt
        self.align(4)
        self.label(name)
        self.out += struct.pack("<i", len(self.out) - vtable_at)
        for i in present:
            kind, value = fields[i]
            if kind == "u32":
                self.out += struct.pack("<I", value)
            else:
                self.ref(value)

    def vector(self, name: str, targets: List[Union[str, int]]) -> None:
        self.align(4)
        self.label(name)
        self.out += struct.pack("<I", len(targets))
        for t in targets:
            self.ref(t)

    def finish(self, original: bytes) -> bytes:
        self.align(16)
        shift = len(self.out)
        for at, target in self.patches:
            dest = self.labels[target] if isinstance(target, str) else target + shift
            struct.pack_into("<I", self.out, at, dest - at)
        struct.pack_into("<I", self.out, 0, self.labels["model"])
        self.out[4:8] = original[4:8]  # the file identifier, "TFL3"
        return bytes(self.out) + original


def _tensor_counts(content: bytes) -> List[int]:
    """The tensor count of every subgraph, in order."""
    r = _Reader(content)
    fields = r.fields(r.u32(0)) + [0] * _MODEL_FIELDS
    counts = []
    for sg in (r.vector(fields[2]) if fields[2] else []):
        tensors = r.fields(sg)[:1]
        counts.append(r.u32(r.ref(tensors[0])) if tensors and tensors[0] else 0)
    return counts


def plan_offsets(content: bytes, planner: str = "optimal") -> List[int]:
    """The head offset of each tensor of every subgraph (in subgraph order) in ``planner``'s
    plan, -1 for tensors the plan does not hold."""
    if planner not in PLANNERS:
        raise ValueError(f"unknown planner {planner!r} (one of {', '.join(PLANNERS)})")
    it = Interpreter(model_content=content, planner=planner)
    it.allocate_tensors()
    counts = _tensor_counts(content)
    base = [sum(counts[:k]) for k in range(len(counts))]
    offsets = [-1] * sum(counts)
    for b in it.memory_plan().buffers:
        if b.tensor >= 0:
            offsets[base[b.subgraph] + b.tensor] = b.offset
    return offsets


def _check_model(r: _Reader, fields: List[int]) -> None:
    if len(fields) > _MODEL_FIELDS and any(fields[_MODEL_FIELDS:]):
        raise ModelError(f"offline plan: the Model table has {len(fields)} fields; this "
                         f"writer knows the first {_MODEL_FIELDS} of schema.fbs")
    if not fields[2] or not r.vector(fields[2]):
        raise ModelError("offline plan: the model has no subgraph")
    for i, buf in enumerate(r.vector(fields[_BUFFERS]) if fields[_BUFFERS] else []):
        f = r.fields(buf)
        if len(f) > 1 and any(f[1:3]):  # Buffer.offset/size count from the file's start
            raise ModelError(f"offline plan: buffer {i} lives outside the flatbuffer "
                             "(offset/size fields), which a rewrite would move")


def _is_plan(r: _Reader, metadata: int) -> bool:
    name = r.fields(metadata)[:1]
    return bool(name and name[0]) and r.string(name[0]) == NAME


def _rewrite(content: bytes, offsets: Optional[List[int]]) -> bytes:
    """``content`` without its OfflineMemoryAllocation entry, plus one for ``offsets`` (none
    when ``offsets`` is None)."""
    r = _Reader(content)
    fields = r.fields(r.u32(0)) + [0] * _MODEL_FIELDS
    _check_model(r, fields)
    buffers = r.vector(fields[_BUFFERS]) if fields[_BUFFERS] else []
    metadata = [m for m in (r.vector(fields[_METADATA]) if fields[_METADATA] else [])
                if not _is_plan(r, m)]
    extra = [] if offsets is None else ["plan"]
    w = _Writer()
    model_fields: List[Optional[Tuple[str, object]]] = []
    for i in range(_MODEL_FIELDS):
        if i == 0:
            model_fields.append(("u32", r.u32(fields[0])) if fields[0] else None)
        elif i in (_BUFFERS, _METADATA):
            model_fields.append(("ref", "buffers" if i == _BUFFERS else "metadata"))
        else:
            model_fields.append(("ref", r.ref(fields[i])) if fields[i] else None)
    w.table("model", model_fields)
    w.vector("buffers", [*buffers, *[e + "_buffer" for e in extra]])
    w.vector("metadata", [*metadata, *[e + "_metadata" for e in extra]])
    if offsets is not None:
        w.table("plan_buffer", [("ref", "plan_data")])
        w.table("plan_metadata", [("ref", "plan_name"), ("u32", len(buffers))])
        w.align(4)
        w.label("plan_name")
        w.out += struct.pack("<I", len(NAME)) + NAME + b"\0"
        w.align(16)
        w.out += bytes(12)  # the vector's length sits just before its 16-aligned data
        w.label("plan_data")
        words = [0, len(r.vector(fields[2])), len(offsets), *offsets]
        w.out += struct.pack(f"<I{len(words)}i", 4 * len(words), *words)
    return w.finish(content)


def write_offline_plan(model: ModelLike, planner: str = "optimal") -> bytes:
    """``model`` (a path or bytes) with an ``OfflineMemoryAllocation`` metadata entry holding
    ``planner``'s tensor offsets; an existing entry is replaced (the plan is computed without
    it). The device then uses this plan without running a planner: the head it needs is the
    plan's, plus any scratch buffers that do not fit around the fixed tensors."""
    content = read_model(model)
    Interpreter(model_content=content)  # verifies the model before anything else reads it
    r = _Reader(content)
    fields = r.fields(r.u32(0)) + [0] * _MODEL_FIELDS
    planned = fields[_METADATA] and any(_is_plan(r, m) for m in r.vector(fields[_METADATA]))
    offsets = plan_offsets(_rewrite(content, None) if planned else content, planner)
    return _rewrite(content, offsets)
