"""Single-op models for the math, comparison, logical and select kernels (tests/models/math/).

Each operator is converted by TensorFlow's converter for every type the converter produces:
float32, int8 and int16x8 (post-training quantization, as make_models.py does), and the
unquantized integer and bool types through tf.function inputs of those types. Broadcasting
and constant-operand variants are included. A cell the converter cannot make (the target op
disappears, runs on another type, or LiteRT's reference rejects it) is recorded under
"dropped" with the reason.

    python tests/models/math/make_math.py [--only NAME] [--no-tflm]
    python tests/models/math/make_math.py --tflm-oracle   # tests/models/math/tflm/

CEIL, ROUND and ELU have no kernel in LiteRT's reference resolver; their models go to
tests/models/math/tflm/ and tests/test_math_tflm_oracle.py compares them with TFLM.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/models, for make_models

import make_models as mm  # noqa: E402
import numpy as np  # noqa: E402

import reference  # noqa: E402

tf = mm.tf
F32, I8, I16 = mm.F32, mm.I8, mm.I16
STD = (F32, I8, I16)
# plain (unquantized) types: converted as float32 graphs with inputs of that dtype
PLAIN = {"int8": tf.int8, "int16": tf.int16, "int32": tf.int32, "int64": tf.int64,
         "bool": tf.bool}
# the dtype the target op's first input must have for the model to test that cell
OP_DTYPE = {F32: "float32", I8: "int8", I16: "int16", "int8": "int8", "int16": "int16",
            "int32": "int32", "int64": "int64", "bool": "bool"}

SHAPE = (1, 4, 8)
BINARY_SHAPES = {
    "same": ((1, 4, 8), (1, 4, 8)),
    "bcast_1d": ((2, 4, 8), (8,)),
    "bcast_4d": ((1, 4, 1, 8), (1, 1, 5, 1)),
    "bcast_5d": ((1, 2, 3, 4, 5), (1, 2, 1, 4, 1)),
}


def positive(x):
    """Keeps LOG/SQRT/RSQRT inputs in their domain: |x| + 0.1."""
    return tf.abs(x) + 0.1


def unary():
    out = []
    for target, f in (("CEIL", tf.math.ceil), ("FLOOR", tf.math.floor),
                      ("ROUND", tf.math.round), ("COS", tf.math.cos), ("SIN", tf.math.sin),
                      ("SQUARE", tf.math.square), ("EXP", tf.math.exp), ("NEG", tf.negative),
                      ("ELU", tf.nn.elu), ("LOG_SOFTMAX", tf.nn.log_softmax),
                      ("L2_NORMALIZATION", lambda x: tf.math.l2_normalize(x, -1)),
                      ("LOG", lambda x: tf.math.log(positive(x))),
                      ("SQRT", lambda x: tf.math.sqrt(positive(x))),
                      ("RSQRT", lambda x: tf.math.rsqrt(positive(x))),
                      ("ZEROS_LIKE", lambda x: tf.raw_ops.ZerosLike(x=x) + x)):
        out.append((target, "1x4x8", f, [(SHAPE, tf.float32)], STD))
    for t in ("int8", "int16", "int32", "int64"):
        out.append(("NEG", "1x4x8", tf.negative, [(SHAPE, PLAIN[t])], (t,)))
    for t in ("int32", "int64"):
        out.append(("ZEROS_LIKE", "1x4x8", lambda x: tf.raw_ops.ZerosLike(x=x) + x,
                    [(SHAPE, PLAIN[t])], (t,)))
    out.append(("LOGICAL_NOT", "1x4x8", tf.logical_not, [(SHAPE, tf.bool)], ("bool",)))
    return out


COMPARE = {"EQUAL": tf.equal, "NOT_EQUAL": tf.not_equal, "GREATER": tf.greater,
           "GREATER_EQUAL": tf.greater_equal, "LESS": tf.less, "LESS_EQUAL": tf.less_equal}


def by_const(f, value):
    """x -> f(x, constant): a closure, since tf.function treats defaults as arguments."""
    def fn(x):
        return f(x, tf.constant(value))
    return fn


def binary():
    out = []
    for target, f in COMPARE.items():
        # (LiteRT's reference aborts on rank-5 broadcasting comparisons: no bcast_5d here)
        for v, types in (("same", STD), ("bcast_4d", (F32, I8))):
            a, b = BINARY_SHAPES[v]
            out.append((target, v, f, [(a, tf.float32), (b, tf.float32)], types))
        # inputs of different quantizations: the int8 path must rescale
        out.append((target, "scaled", lambda a, b, f=f: f(a * 3.0, b),
                    [(SHAPE, tf.float32), (SHAPE, tf.float32)], (I8, I16)))
        out.append((target, "const", by_const(f, np.linspace(-0.5, 0.5, 8, dtype=np.float32)),
                    [(SHAPE, tf.float32)], (I8,)))
        types = ("int32", "int64", "int16") + (
            ("bool",) if target in ("EQUAL", "NOT_EQUAL") else ())
        for t in types:
            out.append((target, "bcast_1d", f, [((2, 4, 8), PLAIN[t]), ((8,), PLAIN[t])],
                        (t,)))
    for target, f in (("LOGICAL_AND", tf.logical_and), ("LOGICAL_OR", tf.logical_or)):
        for v in ("same", "bcast_1d", "bcast_4d"):
            a, b = BINARY_SHAPES[v]
            out.append((target, v, f, [(a, tf.bool), (b, tf.bool)], ("bool",)))

    sqd = lambda a, b: tf.math.squared_difference(a, b)  # noqa: E731
    for v in ("same", "bcast_1d", "bcast_4d", "bcast_5d"):
        a, b = BINARY_SHAPES[v]
        out.append(("SQUARED_DIFFERENCE", v, sqd, [(a, tf.float32), (b, tf.float32)], STD))
        out.append(("SQUARED_DIFFERENCE", v, sqd, [(a, tf.int32), (b, tf.int32)],
                    ("int32",)))
    out.append(("SQUARED_DIFFERENCE", "scaled", lambda a, b: sqd(a * 3.0, b),
                [(SHAPE, tf.float32), (SHAPE, tf.float32)], STD))

    # divisors kept away from 0: |b| + 0.5 (float), |b| + 1 (int32), constants (int8/16)
    fdiv = {"FLOOR_DIV": tf.math.floordiv, "FLOOR_MOD": tf.math.floormod}
    for target, f in fdiv.items():
        for v in ("same", "bcast_1d", "bcast_4d"):
            a, b = BINARY_SHAPES[v]
            out.append((target, v, lambda x, y, f=f: f(x, tf.abs(y) + 0.5),
                        [(a, tf.float32), (b, tf.float32)], (F32,)))
            # (LiteRT's reference resolver has no int32 ABS, so the divisor is y*y + 1)
            out.append((target, v, lambda x, y, f=f: f(x, y * y + 1),
                        [(a, tf.int32), (b, tf.int32)], ("int32",)))
        out.append((target, "neg_divisor", lambda x, y, f=f: f(x, -tf.abs(y) - 0.5),
                    [(SHAPE, tf.float32), (SHAPE, tf.float32)], (F32,)))
        types = ("int8", "int16", "int32") + (("int64",) if target == "FLOOR_MOD" else ())
        for t in types:
            div = np.array([3, -2, 5, -7, 1, -1, 11, -13], dtype=PLAIN[t].as_numpy_dtype)
            out.append((target, "const", by_const(f, div), [(SHAPE, PLAIN[t])], (t,)))

    add_n = lambda a, b, c: tf.math.add_n([a, b, c])  # noqa: E731
    out.append(("ADD_N", "3", add_n, [(SHAPE, tf.float32)] * 3, (F32,)))
    out.append(("ADD_N", "3", add_n, [(SHAPE, tf.int32)] * 3, ("int32",)))

    sel = lambda c, x, y: tf.where(c, x, y)  # noqa: E731
    for name, shapes in (("same", (SHAPE, SHAPE, SHAPE)),
                         ("bcast", ((1, 4, 1), (1, 1, 8), (8,))),
                         ("bcast_4d", ((2, 1, 3, 1), (1, 4, 1, 5), (1, 1, 1, 5)))):
        for t in ("float32", "int32", "int64", "int8", "int16", "bool"):
            dt = tf.float32 if t == "float32" else PLAIN[t]
            out.append(("SELECT_V2", name, sel,
                        [(shapes[0], tf.bool), (shapes[1], dt), (shapes[2], dt)],
                        (F32 if t == "float32" else t,)))
    # quantized SELECT_V2: the condition comes from a comparison inside the model
    out.append(("SELECT_V2", "where_greater", lambda x, y: tf.where(x > y, x, y),
                [(SHAPE, tf.float32), (SHAPE, tf.float32)], (I8, I16)))
    return out


def target_dtype(data: bytes, target: str) -> str:
    from ai_edge_litert.interpreter import Interpreter
    it = Interpreter(model_content=data)
    tensors = {d["index"]: d for d in it.get_tensor_details()}
    for op in it._get_ops_details():
        if op["op_name"] == target:
            i = [x for x in op["inputs"] if x >= 0]
            idx = i[1] if target == "SELECT_V2" else i[0]
            return np.dtype(tensors[idx]["dtype"]).name
    raise ValueError(f"target op {target} vanished: {mm.op_list(data)}")


def check(data: bytes, target: str, qtype: str):
    got = target_dtype(data, target)
    if got != OP_DTYPE[qtype]:
        raise ValueError(f"the converter runs {target} on {got}, not {OP_DTYPE[qtype]}")
    it = reference.make_interpreter(data)
    ins, outs = it.get_input_details(), it.get_output_details()
    for seed in (0, 1):
        for r in reference.run_litert(data, reference.random_inputs(ins, seed)):
            if r.dtype.kind == "f" and not np.all(np.isfinite(r)):
                raise ValueError("non-finite output in LiteRT")
    return mm.op_list(data), mm.io_desc(ins), mm.io_desc(outs)


# --- cells the converter cannot make: rewritten converted models ----------------------------

# schema TensorType codes and the numpy dtype of each
TT = {"float32": (0, np.float32), "int32": (2, np.int32), "uint8": (3, np.uint8),
      "int64": (4, np.int64), "bool": (6, np.bool_), "int16": (7, np.int16),
      "int8": (9, np.int8)}


def load(data):
    from tensorflow.lite.python import schema_py_generated as sch
    return sch.ModelT.InitFromObj(sch.Model.GetRootAsModel(data, 0))


def pack(m):
    import flatbuffers
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def retype(data: bytes, src: str, dst: str, zero_point=None) -> bytes:
    """Every tensor of type src becomes dst. Constants are converted value by value (and
    refused if a value does not fit); quantized tensors keep their scale and get
    zero_point(old) as zero point."""
    m = load(data)
    for sg in m.subgraphs:
        for t in sg.tensors:
            if t.type != TT[src][0]:
                continue
            t.type = TT[dst][0]
            buf = m.buffers[t.buffer]
            if buf.data is not None and len(buf.data):
                old = np.frombuffer(bytes(bytearray(buf.data)), TT[src][1])
                new = old.astype(TT[dst][1])
                if not np.array_equal(new.astype(np.float64), old.astype(np.float64)):
                    raise ValueError(f"constant of tensor {t.name} does not fit {dst}")
                buf.data = np.frombuffer(new.tobytes(), np.uint8)
            q = t.quantization
            if zero_point is not None and q is not None and q.zeroPoint is not None:
                q.zeroPoint = [int(zero_point(int(z))) for z in q.zeroPoint]
    return pack(m)


def to_op(data: bytes, src: str, dst: str) -> bytes:
    """Rewrite the one src operator into dst (an op without options, e.g. LEAKY_RELU -> ELU),
    as make_models.reshape_to_squeeze does."""
    from tensorflow.lite.python import schema_py_generated as sch
    m = load(data)
    hits = [c for c in m.operatorCodes if c.builtinCode == getattr(sch.BuiltinOperator, src)]
    if len(hits) != 1:
        raise ValueError(f"expected one {src} operator code, got {len(hits)}")
    hits[0].builtinCode = hits[0].deprecatedBuiltinCode = getattr(sch.BuiltinOperator, dst)
    hits[0].version = 1
    for op in m.subgraphs[0].operators:
        if m.operatorCodes[op.opcodeIndex] is hits[0]:
            op.builtinOptionsType = 0
            op.builtinOptions = None
    return pack(m)


def plain_cell(target, variant, fn, specs, dtype):
    """(name, qtype, description, maker): a float32 model retyped to unquantized dtype."""
    def make(seed):
        return retype(mm.convert(fn, specs, F32, seed), "float32", dtype)
    return (f"{target.lower()}_{variant}_{dtype}", target, dtype,
            f"single {target} ({variant}): converted in float32, tensors retyped to {dtype}",
            specs, make)


def from_int8_cell(target, variant, fn, specs, dtype):
    """An int8 post-training-quantized model retyped: to int16 (zero points 0, the 16x8
    convention) or uint8 (zero points + 128)."""
    zp = (lambda z: 0) if dtype == "int16" else (lambda z: z + 128)
    qtype = I16 if dtype == "int16" else "uint8"

    def make(seed):
        return retype(mm.convert(fn, specs, I8, seed), "int8", dtype, zp)
    return (f"{target.lower()}_{variant}_{qtype}", target, qtype,
            f"single {target} ({variant}): converted to int8, tensors retyped to {dtype}",
            specs, make)


OP_DTYPE.update({"uint8": "uint8"})


def not_equal_cell(dtype):
    two = [(SHAPE, tf.float32), (SHAPE, tf.float32)]
    zp = {"int8": None, "int16": lambda z: 0, "uint8": lambda z: z + 128}[dtype]
    qtype = {"int8": I8, "int16": I16, "uint8": "uint8"}[dtype]

    def make(seed):
        data = to_op(mm.convert(tf.equal, two, I8, seed), "EQUAL", "NOT_EQUAL")
        return data if dtype == "int8" else retype(data, "int8", dtype, zp)
    return (f"not_equal_same_{qtype}", "NOT_EQUAL", qtype,
            f"int8 EQUAL rewritten into NOT_EQUAL, tensors retyped to {dtype}", two, make)


def rewritten():
    out = []
    two = [(SHAPE, tf.float32), (SHAPE, tf.float32)]
    bc1 = [((2, 4, 8), tf.float32), ((8,), tf.float32)]
    for t in ("int8", "int16"):
        out.append(plain_cell("NEG", "1x4x8", tf.negative, [(SHAPE, tf.float32)], t))
    for target in ("GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL"):
        out.append(plain_cell(target, "bcast_1d", COMPARE[target], bc1, "int16"))
    for target, f in COMPARE.items():
        if target == "NOT_EQUAL":  # see not_equal_cell
            continue
        out.append(from_int8_cell(target, "same", f, two, "int16"))
        out.append(from_int8_cell(target, "same", f, two, "uint8"))
    # NOT_EQUAL: the converter keeps a quantized NotEqual in float, so an int8 EQUAL model is
    # rewritten into NOT_EQUAL (both take no options), then retyped like the others
    for dtype in ("int8", "int16", "uint8"):
        out.append(not_equal_cell(dtype))
    out.append(plain_cell("SELECT_V2", "bcast", lambda c, x, y: tf.where(c, x, y),
                          [((1, 4, 1), tf.bool), ((1, 1, 8), tf.float32), ((8,), tf.float32)],
                          "uint8"))
    # uint8 (LiteRT's reference has these; its output zero points 128 and 255 are the int8
    # ones moved by 128)
    out.append(from_int8_cell("L2_NORMALIZATION", "1x4x8", lambda x: tf.math.l2_normalize(x, -1),
                              [(SHAPE, tf.float32)], "uint8"))
    out.append(from_int8_cell("LOG_SOFTMAX", "1x4x8", tf.nn.log_softmax,
                              [(SHAPE, tf.float32)], "uint8"))
    # int16 SQRT: the converter stops at 16x8 SQRT, LiteRT has the kernel
    out.append(from_int8_cell("SQRT", "1x4x8", lambda x: tf.math.sqrt(positive(x)),
                              [(SHAPE, tf.float32)], "int16"))
    for t in ("int8", "int16"):
        out.append(plain_cell("SELECT_V2", "bcast", lambda c, x, y: tf.where(c, x, y),
                              [((1, 4, 1), tf.bool), ((1, 1, 8), tf.float32),
                               ((8,), tf.float32)], t))
    for target in ("FLOOR_DIV", "FLOOR_MOD"):
        f = tf.math.floordiv if target == "FLOOR_DIV" else tf.math.floormod
        div = np.array([3, -2, 5, -7, 1, -1, 11, -13], dtype=np.int16)

        def make(seed, f=f, div=div):
            return retype(mm.convert(by_const(f, div), [(SHAPE, tf.int16)], F32, seed),
                          "int16", "int8")
        out.append((f"{target.lower()}_const_int8", target, "int8",
                    f"single {target} (const): converted in int16, retyped to int8",
                    [(SHAPE, tf.int16)], make))
    return out


def build_rewritten(zoo):
    for name, target, qtype, desc, specs, make in rewritten():
        if not zoo.wanted(name):
            continue
        mm.fresh_session(mm.seed_of(name))
        try:
            data = make(mm.seed_of(name) ^ 0x5EED)
            ops, ins, outs = check(data, target, qtype)
        except Exception as e:  # noqa: BLE001 - every failure is recorded
            reason = (str(e).strip().splitlines() or ["?"])[-1][:300]
            zoo.dropped.append({"name": name, "target": target, "type": qtype,
                                "reason": "rewritten model: " + reason})
            print(f"  DROP {name}: {reason[:160]}", flush=True)
            continue
        zoo.dropped = [d for d in zoo.dropped if d["name"] != name]
        params = {"inputs": [[int(d) for d in s] for s, _ in specs]}
        zoo.save(name, data, target, qtype, "single_op", desc, params, ops, ins, outs)


# --- ops LiteRT's reference resolver lacks: TFLM is the oracle --------------------------------

TFLM_DIR = os.path.join(HERE, "tflm")


def tflm_oracle():
    """(name, target, type, description, maker) for cells only TFLM runs: CEIL, ROUND, ELU
    (LiteRT BUILTIN_REF: "Didn't find op for builtin opcode"), int8 ADD_N, ZEROS_LIKE and
    int16 SQUARED_DIFFERENCE (LiteRT's kernels lack those types)."""
    x4 = [(SHAPE, tf.float32)]
    out = [(f"{t.lower()}_x4_float32", t, F32, f"single {t} of 4x (MUL then {t})",
            lambda seed, f=f: mm.convert(lambda x: f(x * 4.0), x4, F32, seed))
           for t, f in (("CEIL", tf.math.ceil), ("ROUND", tf.math.round),
                        ("ELU", tf.nn.elu))]
    # int8 ELU: the converter keeps ELU in float, so a LEAKY_RELU calibrated on ELU's output
    # range [-0.63, 1] is converted to int8 and rewritten into ELU
    out.append(("elu_1x4x8_int8", "ELU", I8,
                "int8 LEAKY_RELU(alpha 0.63) rewritten into ELU",
                lambda seed: to_op(mm.convert(lambda x: tf.nn.leaky_relu(x, alpha=0.63), x4,
                                              I8, seed), "LEAKY_RELU", "ELU")))
    # int8 ADD_N: an int8 ADD of one input with itself plus another, rewritten into ADD_N;
    # TFLM needs every input in one quantization, so both inputs share the first's
    out.append(("add_n_2_int8", "ADD_N", I8, "int8 ADD rewritten into ADD_N, inputs given "
                "one quantization", lambda seed: same_input_quant(to_op(
                    mm.convert(tf.add, [(SHAPE, tf.float32)] * 2, I8, seed), "ADD", "ADD_N"))))
    out.append(("zeros_like_1x4x8_int8", "ZEROS_LIKE", "int8",
                "float NEG retyped to int8 and rewritten into ZEROS_LIKE",
                lambda seed: to_op(retype(mm.convert(tf.negative, x4, F32, seed), "float32",
                                          "int8"), "NEG", "ZEROS_LIKE")))
    for v in ("same", "bcast_1d"):
        a, b = BINARY_SHAPES[v]
        out.append((f"squared_difference_{v}_int16x8", "SQUARED_DIFFERENCE", I16,
                    f"single SQUARED_DIFFERENCE ({v}), 16x8",
                    lambda seed, a=a, b=b: mm.convert(
                        tf.math.squared_difference, [(a, tf.float32), (b, tf.float32)], I16,
                        seed)))
    return out


def same_input_quant(data: bytes) -> bytes:
    """Give every input of the one operator the first input's quantization."""
    m = load(data)
    sg = m.subgraphs[0]
    op = sg.operators[0]
    first = sg.tensors[op.inputs[0]].quantization
    for i in op.inputs[1:]:
        q = sg.tensors[i].quantization
        q.scale, q.zeroPoint = list(first.scale), list(first.zeroPoint)
    return pack(m)


def build_tflm_oracle():
    """Writes tests/models/math/tflm/ and its TFLM_ORACLE.json (read by
    tests/test_math_tflm_oracle.py; not a MANIFEST.json, as LiteRT cannot judge these)."""
    import json
    os.makedirs(TFLM_DIR, exist_ok=True)
    entries = []
    for name, target, qtype, desc, make in tflm_oracle():
        mm.fresh_session(mm.seed_of(name))
        data = make(mm.seed_of(name) ^ 0x5EED)
        if target not in mm.op_list(data):
            raise ValueError(f"{name}: {target} vanished")
        with open(os.path.join(TFLM_DIR, name + ".tflite"), "wb") as f:
            f.write(data)
        entries.append({"file": name + ".tflite", "target": target, "type": qtype,
                        "description": desc, "size": len(data)})
        print(f"  ok   tflm/{name}.tflite {len(data):>7} B", flush=True)
    with open(os.path.join(TFLM_DIR, "TFLM_ORACLE.json"), "w") as f:
        json.dump({"generator": "tests/models/math/make_math.py --tflm-oracle",
                   "models": entries}, f, indent=1)
        f.write("\n")


def build(zoo):
    for target, variant, fn, specs, types in unary() + binary():
        for qtype in types:
            name = f"{target.lower()}_{variant}_{qtype}".replace(".", "p")
            if not zoo.wanted(name):
                continue
            mm.fresh_session(mm.seed_of(name))
            try:
                conv_type = qtype if qtype in STD else F32
                data = mm.convert(fn, specs, conv_type, mm.seed_of(name) ^ 0x5EED)
                ops, ins, outs = check(data, target, qtype)
            except Exception as e:  # noqa: BLE001 - every failure is recorded
                msg = [m for m in str(e).strip().splitlines() if m.strip()]
                reason = next((m for m in msg if "error" in m.lower()), msg[-1] if msg else "?")
                zoo.dropped.append({"name": name, "target": target, "type": qtype,
                                    "reason": reason.strip()[:300]})
                print(f"  DROP {name}: {reason.strip()[:160]}", flush=True)
                continue
            params = {"inputs": [[int(d) for d in s] for s, _ in specs]}
            zoo.save(name, data, target, qtype, "single_op", f"single {target} ({variant})",
                     params, ops, ins, outs)


def main(argv):
    if "--tflm-oracle" in argv:
        build_tflm_oracle()
        return
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    zoo = mm.Zoo(only=only, tflm="--no-tflm" not in argv, out_dir=HERE)
    if only is None:
        for f in os.listdir(HERE):
            if f.endswith(".tflite"):
                os.remove(os.path.join(HERE, f))
    build(zoo)
    build_rewritten(zoo)
    zoo.dropped = [d for d in zoo.dropped if d["name"] != "not_equal_bcast_1d_int16"] + [
        {"name": "not_equal_bcast_1d_int16", "target": "NOT_EQUAL", "type": "int16",
         "reason": "the converter has no int16 NotEqual, and a rewritten model has no result "
                   "to match: LiteRT's NOT_EQUAL leaves the output unwritten for unquantized "
                   "int16"}]
    entries = zoo.write_manifest("tests/models/math/make_math.py")
    total = sum(e["size"] for e in entries)
    print(f"{len(entries)} models, {total} bytes in tests/models/math; "
          f"{len(zoo.dropped)} dropped")


if __name__ == "__main__":
    main(sys.argv[1:])
