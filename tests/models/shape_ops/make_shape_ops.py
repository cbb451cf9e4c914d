#!/usr/bin/env python3
"""Generate tests/models/shape_ops/: single-op models of the shape, gather, reduce, image and
L2 pool kernels, one per op x tensor type the TensorFlow converter can produce, and a Keras 3
model with a dynamic batch (the SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE chain).

    python tests/models/shape_ops/make_shape_ops.py [--only SUBSTRING] [--no-tflm]

Types: float32, int8 and int16x8 are float functions converted with full integer
quantization (make_models.convert); int32, int64, bool and uint8 are tf.functions taking
that type, converted without optimization. Index operands (gather indices, axes, sizes,
paddings) are constants, since the golden tests feed random inputs. Two ops the converter
never emits are written by rewriting a converted model's flatbuffer: EMBEDDING_LOOKUP (from
GATHER on axis 0, inputs swapped) and L2_POOL_2D (from AVERAGE_POOL_2D, same options).
Cells that cannot be made are recorded in MANIFEST.json "dropped" with the reason. The
generated files are committed; CI never runs this.
"""

from __future__ import annotations

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/models, for make_models

import make_models as mm  # noqa: E402
import numpy as np  # noqa: E402

tf = mm.tf
F32, I8, I16 = mm.F32, mm.I8, mm.I16
QUANT = (F32, I8, I16)
INTS = ("int32", "int64")
# TFLM results that depend on memory contents, so no comparison with them can hold.
TFLM_UNDEFINED = {
    "SPACE_TO_BATCH_ND": "TFLM never sets SpaceToBatchParams.output_offset, so its padding "
                         "is whatever byte its persistent buffer held (LiteRT pads with the "
                         "output zero point)",
}
DTYPES = {"int32": tf.int32, "int64": tf.int64, "bool": tf.bool, "uint8": tf.uint8}


def spec(target, variant, fn, shapes, types, params, rewrite=None, fixed=None, retype=()):
    """shapes: list of input shapes (None = dynamic dim); an input's dtype comes from the
    cell's type unless fixed (a dict input position -> tf dtype) gives one. retype: types
    the converter refuses for this op, made from the float32 model by retyping its FLOAT32
    tensors (no float constants may be involved)."""
    return dict(target=target, variant=variant, fn=fn, shapes=shapes,
                types=tuple(types) + tuple(retype), params=params, rewrite=rewrite,
                fixed=fixed or {}, retype=tuple(retype))


def shape_specs():
    out = []
    s = out.append
    # SHAPE survives conversion only on a dynamic dim (static shapes fold to constants).
    s(spec("SHAPE", "i32_dynbatch", lambda x: tf.shape(x), [(None, 4, 3)],
           (F32, "int32", "bool"), {"out_type": "int32", "input_signature": [-1, 4, 3]}))
    s(spec("SHAPE", "i64_dynbatch", lambda x: tf.shape(x, out_type=tf.int64), [(None, 5)],
           (F32, "int64"), {"out_type": "int64", "input_signature": [-1, 5]}))
    s(spec("SLICE", "4d", lambda x: tf.slice(x, [0, 1, 1, 0], [1, 2, -1, 3]), [(1, 4, 5, 6)],
           QUANT + INTS + ("bool", "uint8"), {"begin": [0, 1, 1, 0], "size": [1, 2, -1, 3]}))
    s(spec("SLICE", "2d_i64", lambda x: tf.slice(x, tf.constant([1, 2], tf.int64),
                                                 tf.constant([2, 3], tf.int64)),
           [(4, 7)], (F32, "int32"), {"begin": [1, 2], "size": [2, 3], "index": "int64"}))
    s(spec("FILL", "scalar_value", lambda x: tf.fill([2, 3, 4], x), [()],
           (F32, I8, I16) + INTS + ("bool",), {"dims": [2, 3, 4]}))
    s(spec("BROADCAST_TO", "3d", lambda x: tf.broadcast_to(x, [2, 3, 4]), [(3, 1)],
           QUANT + INTS + ("bool", "uint8"), {"shape": [2, 3, 4]}))
    s(spec("BROADCAST_TO", "5d", lambda x: tf.broadcast_to(x, [2, 1, 3, 2, 4]),
           [(1, 3, 1, 4)], (F32, "int32"), {"shape": [2, 1, 3, 2, 4]}))
    s(spec("BROADCAST_ARGS", "dynbatch",
           lambda x: tf.broadcast_dynamic_shape(tf.shape(x), tf.constant([3, 1, 5])),
           [(None, 1, 5)], (F32,), {"s1": [3, 1, 5], "input_signature": [-1, 1, 5]}))
    s(spec("REVERSE_V2", "axis1", lambda x: tf.reverse(x, [1]), [(2, 5, 3)],
           QUANT + INTS + ("bool", "uint8"), {"axis": [1]}))
    s(spec("REVERSE_V2", "axes12", lambda x: tf.reverse(x, [1, 2]), [(1, 3, 4, 2)],
           (F32, I8), {"axis": [1, 2]}))
    for mode in ("REFLECT", "SYMMETRIC"):
        pads = [[0, 0], [2, 1], [1, 3], [0, 0]] if mode == "SYMMETRIC" else \
            [[0, 0], [1, 2], [2, 1], [0, 0]]
        s(spec("MIRROR_PAD", mode.lower(), lambda x, p=pads, m=mode: tf.pad(x, p, mode=m),
               [(1, 4, 4, 3)], QUANT + ("int32", "uint8"), {"paddings": pads, "mode": mode}))
    s(spec("MIRROR_PAD", "reflect_1d_audio",
           lambda x: tf.pad(x, [[0, 0], [3, 3], [0, 0]], mode="REFLECT"), [(1, 16, 2)], QUANT,
           {"paddings": [[0, 0], [3, 3], [0, 0]], "mode": "REFLECT"}))
    s(spec("DEPTH_TO_SPACE", "b2", lambda x: tf.nn.depth_to_space(x, 2), [(1, 3, 2, 8)],
           QUANT + INTS + ("uint8",), {"block_size": 2}, rewrite=depth_to_space_v1))
    s(spec("SPACE_TO_DEPTH", "b2", lambda x: tf.nn.space_to_depth(x, 2), [(1, 4, 6, 3)],
           QUANT + INTS, {"block_size": 2}, retype=("uint8",)))
    s(spec("SPACE_TO_BATCH_ND", "4d_pad",
           lambda x: tf.space_to_batch_nd(x, [2, 2], [[1, 1], [0, 2]]), [(1, 4, 4, 3)],
           QUANT + ("int32",), {"block": [2, 2], "paddings": [[1, 1], [0, 2]]}))
    s(spec("SPACE_TO_BATCH_ND", "3d",
           lambda x: tf.space_to_batch_nd(x, [2], [[1, 1]]), [(2, 6, 3)], (F32, I8),
           {"block": [2], "paddings": [[1, 1]]}))
    s(spec("BATCH_TO_SPACE_ND", "4d_crop",
           lambda x: tf.batch_to_space(x, [2, 2], [[1, 0], [0, 1]]), [(4, 3, 3, 2)],
           QUANT + ("int32",), {"block": [2, 2], "crops": [[1, 0], [0, 1]]}))
    s(spec("DYNAMIC_UPDATE_SLICE", "runtime_start", dynamic_update_slice,
           [(2, 5, 3), (1, 2, 3), (3,)], (F32,) + INTS + ("bool",),
           {"start": "input (random: clamped as TFLite does)"}, fixed={2: tf.int32}))
    s(spec("BATCH_TO_SPACE_ND", "3d", lambda x: tf.batch_to_space(x, [2], [[0, 1]]),
           [(4, 3, 2)], (F32, I8), {"block": [2], "crops": [[0, 1]]}))
    return out


def dynamic_update_slice(x, u, i):
    from tensorflow.compiler.tf2xla.python import xla
    return xla.dynamic_update_slice(x, u, i)


def gather_specs():
    out = []
    s = out.append
    s(spec("GATHER", "axis1", lambda x: tf.gather(x, [3, 0, 2, 2], axis=1), [(2, 5, 3)],
           QUANT + INTS + ("bool", "uint8"), {"indices": [3, 0, 2, 2], "axis": 1}))
    s(spec("GATHER", "axis_neg_i64",
           lambda x: tf.gather(x, tf.constant([[1, 0], [3, 3]], tf.int64), axis=-1),
           [(2, 3, 4)], (F32, I8, "int32"),
           {"indices": [[1, 0], [3, 3]], "axis": -1, "index": "int64"}))
    s(spec("GATHER", "batch_dims1",
           lambda x: tf.gather(x, [[2, 0], [1, 1]], axis=1, batch_dims=1), [(2, 3, 4)],
           (F32, I8, "int32"), {"indices": [[2, 0], [1, 1]], "axis": 1, "batch_dims": 1}))
    s(spec("GATHER_ND", "pairs", lambda x: tf.gather_nd(x, [[0, 2], [1, 0], [1, 3]]),
           [(2, 4, 3)], QUANT + INTS + ("bool", "uint8"),
           {"indices": [[0, 2], [1, 0], [1, 3]]}))
    s(spec("GATHER_ND", "full_i64",
           lambda x: tf.gather_nd(x, tf.constant([[[1, 2, 0]], [[0, 0, 1]]], tf.int64)),
           [(2, 3, 2)], (F32, "int32"), {"indices": [[[1, 2, 0]], [[0, 0, 1]]],
                                          "index": "int64"}))
    s(spec("EMBEDDING_LOOKUP", "rows", lambda x: tf.gather(x, [4, 0, 2, 4], axis=0),
           [(5, 6)], (F32, I8, "int32"), {"ids": [4, 0, 2, 4]}, rewrite=to_embedding_lookup))
    for name, f in (("ARG_MAX", tf.argmax), ("ARG_MIN", tf.argmin)):
        s(spec(name, "last_i32", lambda x, f=f: f(x, axis=-1, output_type=tf.int32),
               [(2, 3, 7)], QUANT + ("int32", "uint8"), {"axis": -1, "output": "int32"}))
        s(spec(name, "axis1_i64", lambda x, f=f: f(x, axis=1, output_type=tf.int64),
               [(2, 5, 3)], (F32, I8), {"axis": 1, "output": "int64"}, retype=("int64",)))
    s(spec("CUMSUM", "axis1", lambda x: tf.cumsum(x, axis=1), [(2, 5, 3)],
           (F32, I8) + INTS, {"axis": 1}))
    s(spec("CUMSUM", "excl_rev", lambda x: tf.cumsum(x, axis=-1, exclusive=True, reverse=True),
           [(3, 6)], (F32,) + INTS, {"axis": -1, "exclusive": True, "reverse": True}))
    return out


def reduce_specs():
    out = []
    s = out.append
    for name, f in (("REDUCE_MAX", tf.reduce_max), ("REDUCE_MIN", tf.reduce_min)):
        s(spec(name, "axes12_keep", lambda x, f=f: f(x, [1, 2], keepdims=True), [(1, 4, 4, 3)],
               QUANT + INTS, {"axes": [1, 2], "keepdims": True}, retype=("uint8",)))
        s(spec(name, "axis_last", lambda x, f=f: f(x, [-1]), [(2, 3, 5)], QUANT + ("int32",),
               {"axes": [-1]}))
    s(spec("REDUCE_PROD", "axis1", lambda x: tf.reduce_prod(x, [1]), [(2, 4, 3)],
           (F32,) + INTS, {"axes": [1]}))
    for name, f in (("REDUCE_ALL", tf.reduce_all), ("REDUCE_ANY", tf.reduce_any)):
        s(spec(name, "axis1", lambda x, f=f: f(x, [1]), [(2, 6, 3)], ("bool",), {"axes": [1]}))
        s(spec(name, "all_axes_keep", lambda x, f=f: f(x, [0, 1], keepdims=True), [(3, 4)],
               ("bool",), {"axes": [0, 1], "keepdims": True}))
    return out


def resize(kind, size, align, half):
    op = tf.raw_ops.ResizeBilinear if kind == "bilinear" else tf.raw_ops.ResizeNearestNeighbor
    return lambda x: op(images=x, size=size, align_corners=align, half_pixel_centers=half)


def image_specs():
    out = []
    for kind, target, extra in (("bilinear", "RESIZE_BILINEAR", ("uint8",)),
                                ("nearest", "RESIZE_NEAREST_NEIGHBOR", ("int32", "uint8"))):
        for variant, shape, size, align, half in (
                ("up_half_pixel", (1, 4, 5, 3), [7, 9], False, True),
                ("up_align", (1, 4, 5, 3), [7, 10], True, False),
                ("down_plain", (1, 8, 6, 2), [3, 4], False, False),
                ("up_plain", (2, 3, 3, 2), [5, 7], False, False)):
            out.append(spec(target, variant, resize(kind, size, align, half), [shape],
                            QUANT, {"size": size, "align_corners": align,
                                    "half_pixel_centers": half}, retype=extra))
    return out


def pool_specs():
    return [spec("L2_POOL_2D", f"{p}_{pad.lower()}",
                 lambda x, p=p, pad=pad: tf.nn.avg_pool2d(x, int(p[1]), int(p[3]), pad),
                 [(1, 7, 7, 3)], (F32,), {"pool": int(p[1]), "stride": int(p[3]),
                                          "padding": pad}, rewrite=to_l2_pool)
            for p, pad in (("p2s2", "VALID"), ("p3s2", "SAME"))]


# --- flatbuffer rewrites -----------------------------------------------------------------

def rewrite_model(data, fix):
    import flatbuffers
    from tensorflow.lite.python import schema_py_generated as sch

    m = sch.ModelT.InitFromObj(sch.Model.GetRootAsModel(data, 0))
    fix(m, sch)
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def only_op(m, sch, code):
    ops = m.subgraphs[0].operators
    hits = [o for o in ops if m.operatorCodes[o.opcodeIndex].builtinCode == code]
    if len(hits) != 1:
        raise ValueError(f"expected one operator {code}, got {len(hits)}")
    return hits[0]


def set_code(m, op, code, version=1):
    c = m.operatorCodes[op.opcodeIndex]
    c.builtinCode = c.deprecatedBuiltinCode = code
    c.version = version


def to_embedding_lookup(data):
    """GATHER(params, ids, axis 0) -> EMBEDDING_LOOKUP(ids, params): the same rows."""
    def fix(m, sch):
        op = only_op(m, sch, sch.BuiltinOperator.GATHER)
        set_code(m, op, sch.BuiltinOperator.EMBEDDING_LOOKUP)
        op.inputs = np.array([op.inputs[1], op.inputs[0]], dtype=np.int32)
        op.builtinOptionsType, op.builtinOptions = 0, None
    return rewrite_model(data, fix)


def retype(data, dtype):
    """Every FLOAT32 tensor becomes dtype; refused when a float constant would be retyped."""
    def fix(m, sch):
        code = getattr(sch.TensorType, dtype.upper())
        for t in m.subgraphs[0].tensors:
            if t.type == sch.TensorType.FLOAT32:
                if m.buffers[t.buffer].data is not None and len(m.buffers[t.buffer].data):
                    raise ValueError("a float constant cannot be retyped")
                t.type = code
    return rewrite_model(data, fix)


def depth_to_space_v1(data):
    """LiteRT's reference resolver registers DEPTH_TO_SPACE version 1 only, while the converter
    marks int8 models version 2 (the kernel is the same): the version is set to 1."""
    def fix(m, sch):
        op = only_op(m, sch, sch.BuiltinOperator.DEPTH_TO_SPACE)
        m.operatorCodes[op.opcodeIndex].version = 1
    return rewrite_model(data, fix)


def to_l2_pool(data):
    """AVERAGE_POOL_2D -> L2_POOL_2D with the same Pool2DOptions."""
    def fix(m, sch):
        set_code(m, only_op(m, sch, sch.BuiltinOperator.AVERAGE_POOL_2D),
                 sch.BuiltinOperator.L2_POOL_2D)
    return rewrite_model(data, fix)


# --- conversion --------------------------------------------------------------------------

def input_specs(sp, dtype):
    return [(s, sp["fixed"].get(i, dtype)) for i, s in enumerate(sp["shapes"])]


def check_quantized(data, target, qtype):
    """The converter may keep an op in float between DEQUANTIZE and QUANTIZE: such a model
    does not test the quantized kernel, so it is refused."""
    want = {I8: np.int8, I16: np.int16}.get(qtype)
    if want is None:
        return
    it = mm.reference.make_interpreter(data)
    types = {t["index"]: t["dtype"] for t in it.get_tensor_details()}
    for op in it._get_ops_details():
        tensors = [int(i) for i in list(op["inputs"]) + list(op["outputs"]) if i >= 0]
        if op["op_name"] == target and not any(types[i] == want for i in tensors):
            raise ValueError(f"the converter kept {target} in float (no "
                             f"{np.dtype(want).name} operand)")


def build_cell(sp, qtype, name):
    if qtype in sp["retype"]:
        data = retype(mm.convert(sp["fn"], input_specs(sp, tf.float32), F32, 0), qtype)
    elif qtype in DTYPES:
        data = mm.convert(sp["fn"], input_specs(sp, DTYPES[qtype]), F32, 0)
    else:
        data = mm.convert(sp["fn"], input_specs(sp, tf.float32), qtype,
                          mm.seed_of(name) ^ 0x5EED)
    if sp["rewrite"]:
        data = sp["rewrite"](data)
    ops, ins, outs = mm.check_model(data, sp["target"], F32)
    check_quantized(data, sp["target"], qtype)
    return data, ops, ins, outs


def build_single_ops(zoo):
    for sp in shape_specs() + gather_specs() + reduce_specs() + image_specs() + pool_specs():
        for qtype in sp["types"]:
            name = f"{sp['target'].lower()}_{sp['variant']}_{qtype}"
            if not zoo.wanted(name):
                continue
            mm.fresh_session(mm.seed_of(name))
            try:
                data, ops, ins, outs = build_cell(sp, qtype, name)
            except Exception as e:  # noqa: BLE001 - every failure is recorded as a drop
                msg = [re.sub(r"/\S*\.py:\d+:\d+: ", " ", m)  # no local paths
                       for m in str(e).strip().splitlines() if m.strip()]
                reason = next((m for m in msg if "error" in m.lower()), msg[-1] if msg else "?")
                zoo.dropped.append({"name": name, "target": sp["target"], "type": qtype,
                                    "reason": reason.strip()[:300]})
                print(f"  DROP {name}: {reason.strip()[:160]}", flush=True)
                continue
            params = {**sp["params"], "inputs": [list(s) for s in sp["shapes"]]}
            how = f"; flatbuffer rewritten ({sp['rewrite'].__name__})" if sp["rewrite"] else ""
            if qtype in sp["retype"]:
                how = f"; converted as float32, FLOAT32 tensors retyped to {qtype}"
            entry = zoo.save(name, data, sp["target"], qtype, "single_op",
                             f"single {sp['target']} ({sp['variant']}){how}", params, ops,
                             ins, outs)
            if sp["target"] in TFLM_UNDEFINED and entry.get("tflm", {}).get("status") != "error":
                entry["tflm"] = {**entry["tflm"], "status": "undefined",
                                 "why": TFLM_UNDEFINED[sp["target"]]}


def build_keras3_dynamic_batch(zoo):
    """A Keras 3 model with a dynamic batch: Keras 3's Reshape on a None batch converts to
    SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE, and its Dense on 3-D input to SHAPE -> GATHER ->
    REDUCE_PROD -> CONCATENATION -> RESHAPE. The converter writes placeholder shapes for what
    these compute (RESHAPE to [1, 1] with shape_signature [-1, -1]), so picolite must compute
    them at prepare; tests/test_shape_ops.py also runs it resized."""
    import keras

    name = "keras3_dynbatch_reshape_float32"
    if not zoo.wanted(name):
        return
    keras.utils.set_random_seed(mm.seed_of(name))
    model = keras.Sequential([keras.Input((12,)), keras.layers.Dense(8),
                              keras.layers.Reshape((2, 4)), keras.layers.Dense(3)])
    try:
        data = tf.lite.TFLiteConverter.from_keras_model(model).convert()
        ops, ins, outs = mm.check_model(data, "SHAPE", F32)
    except Exception as e:  # noqa: BLE001
        zoo.dropped.append({"name": name, "target": "SHAPE", "type": F32,
                            "reason": str(e).strip().splitlines()[-1][:300]})
        return
    zoo.save(name, data, "SHAPE", F32, "net", "Keras 3 Dense-Reshape-Dense, dynamic batch "
             "(shape_signature -1), run at batch 1", {"keras": keras.__version__}, ops, ins,
             outs)


def main(argv):
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    zoo = mm.Zoo(only=only, tflm="--no-tflm" not in argv, out_dir=HERE)
    if only is None:
        for f in os.listdir(HERE):
            if f.endswith(".tflite"):
                os.remove(os.path.join(HERE, f))
    build_single_ops(zoo)
    build_keras3_dynamic_batch(zoo)
    entries = zoo.write_manifest("tests/models/shape_ops/make_shape_ops.py")
    total = sum(e["size"] for e in entries)
    print(f"{len(entries)} models, {total} bytes in {HERE}; {len(zoo.dropped)} dropped")


if __name__ == "__main__":
    main(sys.argv[1:])
