#!/usr/bin/env python3
"""Generate picolite's model zoo: tests/models/*.tflite, tests/models/MANIFEST.json and the
bundled demo model python/picolite/data/demo.tflite.

Needs TensorFlow and Keras 2 (tf-keras: Keras 3 turns an LSTM into a WHILE loop instead of
the fused UNIDIRECTIONAL_SEQUENCE_LSTM), plus ai-edge-litert to check every model:

    pip install ".[dev]" tf-keras && python tests/models/make_models.py

CI never runs this: the generated files are committed. Everything is deterministic: single-op
weights come from numpy RandomState(<crc32 of the model name>), net weights from
tf.keras.utils.set_random_seed(<crc32 of the net name>) after a Keras clear_session,
representative datasets from numpy RandomState, so rerunning with the same TensorFlow
gives the same bytes, whatever subset (--only) is regenerated.

Every model is checked after conversion: its operator list is read back from the flatbuffer
(the converter fuses or removes ops: a model whose target op vanished is dropped), and it
must run in LiteRT with the reference kernels (BUILTIN_REF), else it is dropped. Each model
is also run in TFLM's Python interpreter (tflite-micro, in a subprocess so a crash there
cannot stop generation) and in LiteRT's optimized kernels; the manifest records whether
each matches LiteRT BUILTIN_REF bit for bit (fields "tflm" and "litert_optimized").

Options: --only SUBSTRING (regenerate matching models only, keeps the other manifest
entries), --no-tflm (skip the cross checks), --recheck (redo only the cross checks of the
models in MANIFEST.json; needs no TensorFlow).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))  # tests/, for reference.py

import numpy as np  # noqa: E402

import reference  # noqa: E402

TFLM_CHECK_SEED = 0  # random_inputs seed used for the TFLM-vs-LiteRT comparison


# --------------------------------------------------------------------------------------
# TFLM comparison worker: runs in a child process, never imports TensorFlow.
# --------------------------------------------------------------------------------------

def compare(want, got) -> dict:
    diffs = []
    for w, g in zip(want, got):
        g = np.asarray(g).reshape(w.shape)
        diffs.append(float(np.max(np.abs(w.astype(np.float64) - g.astype(np.float64))))
                     if w.size else 0.0)
    worst = max(diffs) if diffs else 0.0
    return {"status": "exact" if worst == 0 else "differs", "max_abs_diff": worst}


def tflm_worker(path: str) -> None:
    from tflite_micro.python.tflite_micro import runtime

    with open(path, "rb") as f:
        data = f.read()
    details = reference.input_details(data)
    inputs = reference.random_inputs(details, TFLM_CHECK_SEED)
    want = reference.run_litert(data, inputs)
    result = {}
    # LiteRT's optimized kernels vs its reference kernels (flags references to distrust).
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    opt = Interpreter(
        model_content=data,
        experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    opt.allocate_tensors()
    for d, x in zip(opt.get_input_details(), inputs):
        opt.set_tensor(d["index"], x)
    opt.invoke()
    got_opt = [opt.get_tensor(d["index"]) for d in opt.get_output_details()]
    print("OPT_RESULT " + json.dumps(compare(want, got_opt)))
    try:
        it = runtime.Interpreter.from_bytes(data, arena_size=4 << 20)
        for i, x in enumerate(inputs):
            it.set_input(x, i)
        it.invoke()
        result = compare(want, [it.get_output(i) for i in range(len(want))])
        sys.stdout.flush()
        it.print_allocations()  # TFLM logs to stderr; cross_check parses the figures
    except Exception as e:  # noqa: BLE001 - any failure is a finding to record
        result = {"status": "error", "error": str(e).strip().splitlines()[-1][:200]}
    print("TFLM_RESULT " + json.dumps(result), flush=True)


def cross_check(path: str) -> dict:
    """{"tflm": ..., "litert_optimized": ...}: each vs LiteRT BUILTIN_REF on the same inputs."""
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--tflm-worker", path],
                           capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return {"tflm": {"status": "error", "error": "timeout"}}
    out = {}
    arena = {}
    for line in (p.stdout + "\n" + p.stderr).splitlines():
        m = re.match(r"\[RecordingMicroAllocator\] Arena allocation (total|head|tail) "
                     r"(\d+) bytes", line)
        if m:
            arena[m.group(1)] = int(m.group(2))
        if line.startswith("TFLM_RESULT "):
            out["tflm"] = json.loads(line[len("TFLM_RESULT "):])
        if line.startswith("OPT_RESULT "):
            out["litert_optimized"] = json.loads(line[len("OPT_RESULT "):])
    if "tflm" not in out:
        tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
        out["tflm"] = {"status": "error", "error": f"exit {p.returncode}: {tail[:200]}"}
    elif arena:
        out["tflm"]["arena"] = arena
    return out


def write_manifest(path: str, manifest: dict) -> None:
    """JSON with one line per model / dropped entry (diffable, greppable)."""
    lines = ["{"]
    for key, value in manifest.items():
        if isinstance(value, list):
            lines.append(f" {json.dumps(key)}: [")
            lines.append(",\n".join("  " + json.dumps(v, default=str) for v in value))
            lines.append(" ],")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value, default=str)},")
    lines[-1] = lines[-1].rstrip(",")
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def recheck() -> None:
    """Redo the cross checks of every manifest entry in place (no TensorFlow needed)."""
    manifest_path = os.path.join(HERE, "MANIFEST.json")
    with open(manifest_path) as f:
        manifest = json.load(f)
    for e in manifest["models"]:
        e.update(cross_check(os.path.join(HERE, e["file"])))
        print(f"{e['file']:<52} tflm={e['tflm']['status']} "
              f"opt={e.get('litert_optimized', {}).get('status')}", flush=True)
    write_manifest(manifest_path, manifest)


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--tflm-worker":
    tflm_worker(sys.argv[2])
    sys.exit(0)
if __name__ == "__main__" and sys.argv[1:] == ["--recheck"]:
    recheck()
    sys.exit(0)


# --------------------------------------------------------------------------------------
# TensorFlow side
# --------------------------------------------------------------------------------------

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_USE_LEGACY_KERAS"] = "1"  # tf.keras = tf_keras (Keras 2)

import tensorflow as tf  # noqa: E402

import warnings  # noqa: E402

warnings.filterwarnings("ignore")
tf.get_logger().setLevel("ERROR")

K = tf.keras
L = tf.keras.layers

OUT_DIR = HERE
DEMO_PATH = os.path.join(ROOT, "python", "picolite", "data", "demo.tflite")
MANIFEST = os.path.join(OUT_DIR, "MANIFEST.json")

F32 = "float32"
I8 = "int8"
I8F = "int8_float_io"
I16 = "int16x8"
STD = (F32, I8, I16)
N_REP = 24  # representative samples


def seed_of(name: str) -> int:
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


def rep_data(specs, seed):
    """Fixed representative dataset: uniform [-1, 1] for every float input."""
    rs = np.random.RandomState(seed)
    samples = []
    for _ in range(N_REP):
        samples.append([rs.uniform(-1, 1, size=s).astype(np.float32) for s, _ in specs])
    return samples


def fresh_session(seed):
    """Reset Keras naming (tensor names must not depend on generation order) and seed."""
    K.backend.clear_session()
    tf.keras.utils.set_random_seed(seed)


def bias_init():
    return K.initializers.RandomUniform(-0.5, 0.5)


# --- the converter ---------------------------------------------------------------------

def converter_for(obj, specs):
    if isinstance(obj, K.Model):
        return tf.lite.TFLiteConverter.from_keras_model(obj)
    fn = tf.function(obj, input_signature=[tf.TensorSpec(s, d) for s, d in specs],
                     autograph=False)
    trackable = getattr(obj, "layer", None) or tf.Module()
    return tf.lite.TFLiteConverter.from_concrete_functions([fn.get_concrete_function()],
                                                           trackable)


def convert(obj, specs, qtype, seed, per_channel=True):
    conv = converter_for(obj, specs)
    if qtype != F32:
        samples = rep_data(fix_specs(specs), seed)
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = lambda: iter(samples)
        if not per_channel:
            conv._experimental_disable_per_channel = True
        if qtype in (I8, I8F):
            conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        else:
            conv.target_spec.supported_ops = [
                tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
        if qtype == I8:
            conv.inference_input_type = tf.int8
            conv.inference_output_type = tf.int8
        elif qtype == I16:
            conv.inference_input_type = tf.int16
            conv.inference_output_type = tf.int16
    return conv.convert()


def op_list(data: bytes):
    from ai_edge_litert.interpreter import Interpreter
    return [o["op_name"] for o in Interpreter(model_content=data)._get_ops_details()]


def io_desc(details):
    out = []
    for d in details:
        scale, zp = d["quantization"]
        e = {"name": d["name"], "shape": [int(s) for s in d["shape"]],
             "dtype": np.dtype(d["dtype"]).name}
        if scale:
            e["quantization"] = [float(scale), int(zp)]
        out.append(e)
    return out


EXPECT_IO = {F32: None, I8: "int8", I8F: "float32", I16: "int16"}


def check_model(data: bytes, target, qtype):
    """(ops, inputs, outputs) or raise ValueError saying why the model is unusable."""
    ops = op_list(data)
    if target and target not in ops:
        raise ValueError(f"target op {target} vanished: {ops}")
    it = reference.make_interpreter(data)
    ins, outs = it.get_input_details(), it.get_output_details()
    want = EXPECT_IO[qtype]
    if want:
        for d in ins + outs:
            if np.dtype(d["dtype"]).name != want:
                raise ValueError(f"I/O dtype {np.dtype(d['dtype']).name}, wanted {want}")
    for seed in (0, 1):
        res = reference.run_litert(data, reference.random_inputs(ins, seed))
        for r in res:
            if r.dtype.kind == "f" and not np.all(np.isfinite(r)):
                raise ValueError("non-finite output in LiteRT")
    return ops, io_desc(ins), io_desc(outs)


# --- bookkeeping -------------------------------------------------------------------------

def jsonable(v):
    """Manifest-safe copy of a params dict (functions become their names)."""
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if callable(v):
        return getattr(v, "__name__", str(v))
    return v


class Zoo:
    """Models of one folder and its MANIFEST.json. Generators for the zoo's sub-folders
    (tests/models/<area>/make_<area>.py) import this module and make a Zoo of their folder."""

    def __init__(self, only=None, tflm=True, out_dir=OUT_DIR):
        self.only = only
        self.tflm = tflm
        self.out_dir = out_dir
        self.entries = []
        self.dropped = []

    def wanted(self, name):
        return self.only is None or self.only in name

    def save(self, name, data, target, qtype, family, desc, params, ops, ins, outs,
             path=None, extra=None):
        path = path or os.path.join(self.out_dir, name + ".tflite")
        with open(path, "wb") as f:
            f.write(data)
        entry = {
            "file": os.path.relpath(path, self.out_dir).replace(os.sep, "/"),
            "family": family,
            "target": target,
            "type": qtype,
            "ops": ops,
            "inputs": ins,
            "outputs": outs,
            "made": {"description": desc, "params": jsonable(params)},
            "size": len(data),
        }
        if extra:
            entry.update(extra)
        if self.tflm:
            entry.update(cross_check(path))
        self.entries.append(entry)
        tf_note = entry.get("tflm", {}).get("status", "-")
        if entry.get("litert_optimized", {}).get("status") == "differs":
            tf_note += ",opt-differs"
        print(f"  ok   {entry['file']:<52} {len(data):>7} B  tflm={tf_note}  {' '.join(ops)}",
              flush=True)
        return entry

    def write_manifest(self, generator):
        """Writes <out_dir>/MANIFEST.json (merged with the old one under --only); returns the
        entries."""
        path = os.path.join(self.out_dir, "MANIFEST.json")
        entries, dropped = self.entries, self.dropped
        if self.only is not None and os.path.exists(path):
            with open(path) as f:
                old = json.load(f)
            names = {e["file"] for e in entries}
            entries = [e for e in old["models"] if e["file"] not in names] + entries
            dropped = [d for d in old.get("dropped", [])
                       if d["name"] not in {x["name"] for x in self.dropped}] + self.dropped
        entries.sort(key=lambda e: e["file"])
        write_manifest(path, {
            "generator": generator,
            "tensorflow": tf.__version__,
            "cross_check": "tflm = TFLM's Python interpreter, litert_optimized = LiteRT "
                           "BUILTIN_WITHOUT_DEFAULT_DELEGATES, each compared with LiteRT "
                           "BUILTIN_REF on reference.random_inputs(input_details, "
                           f"seed={TFLM_CHECK_SEED})",
            "models": entries,
            "dropped": dropped,
        })
        return entries


# --------------------------------------------------------------------------------------
# Single-op models
# --------------------------------------------------------------------------------------

def f32(*shapes):
    return [(tuple(s), tf.float32) for s in shapes]


def numpy_weights(layer, seed):
    """Overwrite a built layer's weights from numpy RandomState(seed): TF's eager RNG
    depends on what ran before in the process, numpy's does not. Kernels get a Glorot
    uniform range, vectors (biases, PReLU alphas) uniform [-0.5, 0.5] ([0, 0.5] for
    alphas)."""
    rs = np.random.RandomState(seed)
    new = []
    for w in layer.get_weights():
        if isinstance(layer, L.PReLU):
            new.append(rs.uniform(0.0, 0.5, w.shape))
        elif w.ndim >= 2:
            fan_in = int(np.prod(w.shape[:-1]))
            limit = np.sqrt(6.0 / (fan_in + w.shape[-1]))
            new.append(rs.uniform(-limit, limit, w.shape))
        else:
            new.append(rs.uniform(-0.5, 0.5, w.shape))
    layer.set_weights([x.astype(np.float32) for x in new])


def layer_fn(make_layer, spec0):
    """A function of one tensor applying a Keras layer built eagerly beforehand."""
    def build(seed):
        layer = make_layer()
        layer(tf.zeros(spec0))
        numpy_weights(layer, seed)

        def fn(x):
            return layer(x)
        fn.layer = layer  # keeps the weights alive through conversion
        return fn
    return build


def const_fn(f):
    def build(seed):
        return f
    return build


def conv_specs():
    out = []

    def conv(name, shape, filters, kernel, params, per_channel=True, types=STD):
        kw = dict(filters=filters, kernel_size=kernel, bias_initializer=bias_init())
        kw.update(params)
        if not kw.get("use_bias", True):
            kw.pop("bias_initializer")
        out.append(("CONV_2D", name, layer_fn(lambda: L.Conv2D(**kw), shape), f32(shape),
                    types, {**params, "filters": filters, "kernel": kernel,
                            "input": list(shape)}, per_channel))

    conv("k3_s1_same", (1, 8, 8, 3), 8, 3, {"padding": "same"}, types=STD + (I8F,))
    conv("k3_s2_valid_relu", (1, 9, 9, 4), 6, 3,
         {"strides": 2, "padding": "valid", "activation": "relu"})
    conv("k3_d2_same_relu6", (1, 10, 10, 3), 4, 3,
         {"dilation_rate": 2, "padding": "same", "activation": tf.nn.relu6})
    conv("k1_s1_valid", (1, 6, 6, 8), 8, 1, {"padding": "valid"})
    conv("k5x3_s2_same_nobias", (1, 11, 7, 2), 5, (5, 3),
         {"strides": 2, "padding": "same", "use_bias": False})
    conv("k3_s1_same_pertensor", (1, 8, 8, 3), 8, 3, {"padding": "same"}, per_channel=False,
         types=(I8,))
    conv("k3_s1_valid_batch2", (2, 6, 6, 3), 4, 3, {"padding": "valid"}, types=(F32, I8))

    def dw(name, shape, kernel, params):
        kw = dict(kernel_size=kernel, bias_initializer=bias_init())
        kw.update(params)
        out.append(("DEPTHWISE_CONV_2D", name, layer_fn(lambda: L.DepthwiseConv2D(**kw), shape),
                    f32(shape), STD, {**params, "kernel": kernel, "input": list(shape)}, True))

    dw("k3_s1_same_m1", (1, 8, 8, 4), 3, {"padding": "same"})
    dw("k3_s2_valid_m2_relu", (1, 9, 9, 3), 3,
       {"strides": 2, "padding": "valid", "depth_multiplier": 2, "activation": "relu"})
    dw("k3_d2_same_relu6", (1, 10, 10, 4), 3,
       {"dilation_rate": 2, "padding": "same", "activation": tf.nn.relu6})
    dw("k5_s1_same_m2", (1, 7, 7, 2), 5, {"padding": "same", "depth_multiplier": 2})

    def fc(name, shape, units, params, types=STD):
        kw = dict(units=units, bias_initializer=bias_init())
        kw.update(params)
        if not kw.get("use_bias", True):
            kw.pop("bias_initializer")
        out.append(("FULLY_CONNECTED", name, layer_fn(lambda: L.Dense(**kw), shape), f32(shape),
                    types, {**params, "units": units, "input": list(shape)}, True))

    fc("in32_out10", (1, 32), 10, {}, types=STD + (I8F,))
    fc("in64_out16_relu", (1, 64), 16, {"activation": "relu"})
    fc("3d_in16_out8", (1, 4, 16), 8, {})
    fc("batch2_nobias", (2, 16), 4, {"use_bias": False})

    def tconv(name, shape, filters, kernel, params):
        kw = dict(filters=filters, kernel_size=kernel, bias_initializer=bias_init())
        kw.update(params)
        if not kw.get("use_bias", True):
            kw.pop("bias_initializer")
        out.append(("TRANSPOSE_CONV", name, layer_fn(lambda: L.Conv2DTranspose(**kw), shape),
                    f32(shape), STD, {**params, "filters": filters, "kernel": kernel,
                                      "input": list(shape)}, True))

    tconv("k3_s2_same", (1, 4, 4, 4), 4, 3, {"strides": 2, "padding": "same"})
    tconv("k2_s2_valid", (1, 5, 5, 3), 2, 2, {"strides": 2, "padding": "valid"})
    tconv("k3_s1_same_nobias", (1, 6, 6, 2), 3, 3, {"padding": "same", "use_bias": False})

    for target, cls in (("AVERAGE_POOL_2D", L.AveragePooling2D), ("MAX_POOL_2D", L.MaxPooling2D)):
        for name, shape, params in (
                ("p2_s2_valid", (1, 8, 8, 4), {"pool_size": 2, "strides": 2, "padding": "valid"}),
                ("p3_s2_same", (1, 9, 9, 3), {"pool_size": 3, "strides": 2, "padding": "same"}),
                ("p3x2_s1_same", (1, 6, 5, 4), {"pool_size": (3, 2), "strides": 1,
                                                "padding": "same"})):
            out.append((target, name, layer_fn(lambda c=cls, p=params: c(**p), shape), f32(shape),
                        STD, {**params, "input": list(shape)}, True))
    return out


def unary_specs():
    out = []

    def un(target, name, shape, f, params=None, types=STD):
        out.append((target, name, const_fn(f), f32(shape), types,
                    {**(params or {}), "input": list(shape)}, True))

    un("SOFTMAX", "1x10", (1, 10), tf.nn.softmax, types=STD + (I8F,))
    un("SOFTMAX", "2x3x16", (2, 3, 16), tf.nn.softmax)
    un("SOFTMAX", "4d_beta2", (1, 4, 4, 8), lambda x: tf.nn.softmax(x * 2.0), {"beta": 2.0})
    un("LOGISTIC", "4d", (1, 4, 4, 8), tf.sigmoid)
    un("LOGISTIC", "1x64", (1, 64), tf.sigmoid)
    un("TANH", "4d", (1, 4, 4, 8), tf.tanh)
    un("TANH", "1x64", (1, 64), tf.tanh)
    un("RELU", "4d", (1, 4, 4, 8), tf.nn.relu)
    un("RELU6", "4d", (1, 4, 4, 8), tf.nn.relu6)
    un("LEAKY_RELU", "a0.2", (1, 4, 4, 8), lambda x: tf.nn.leaky_relu(x, alpha=0.2),
       {"alpha": 0.2})
    un("LEAKY_RELU", "a0.01_1x64", (1, 64), lambda x: tf.nn.leaky_relu(x, alpha=0.01),
       {"alpha": 0.01})
    un("HARD_SWISH", "4d", (1, 4, 4, 8),
       lambda x: x * tf.nn.relu6(x + 3.0) * (1.0 / 6.0), {"formula": "x*relu6(x+3)/6"})
    un("MEAN", "axes12_keep", (1, 4, 4, 8), lambda x: tf.reduce_mean(x, [1, 2], keepdims=True),
       {"axes": [1, 2], "keepdims": True})
    un("MEAN", "axis_last", (1, 6, 10), lambda x: tf.reduce_mean(x, [-1]), {"axes": [-1]})
    un("MEAN", "axis1", (1, 5, 6), lambda x: tf.reduce_mean(x, [1]), {"axes": [1]})
    un("SUM", "axes12_keep", (1, 4, 4, 8), lambda x: tf.reduce_sum(x, [1, 2], keepdims=True),
       {"axes": [1, 2], "keepdims": True})
    un("SUM", "axis_last", (1, 6, 10), lambda x: tf.reduce_sum(x, [-1]), {"axes": [-1]})
    un("RESHAPE", "4d_to_2d", (1, 4, 4, 8), lambda x: tf.reshape(x, (1, 128)),
       {"to": [1, 128]}, types=STD + (I8F,))
    un("RESHAPE", "2d_to_3d", (1, 32), lambda x: tf.reshape(x, (1, 4, 8)), {"to": [1, 4, 8]})
    un("PAD", "4d", (1, 5, 5, 3), lambda x: tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]]),
       {"paddings": [[0, 0], [1, 2], [2, 1], [0, 0]]})
    un("PAD", "2d", (1, 10), lambda x: tf.pad(x, [[0, 0], [3, 1]]), {"paddings": [[0, 0], [3, 1]]})
    un("PADV2", "4d_c0.5", (1, 5, 5, 3),
       lambda x: tf.pad(x, [[0, 0], [1, 1], [0, 2], [0, 0]], constant_values=0.5),
       {"paddings": [[0, 0], [1, 1], [0, 2], [0, 0]], "constant": 0.5})
    un("PADV2", "2d_cm0.25", (1, 10), lambda x: tf.pad(x, [[0, 0], [2, 3]], constant_values=-0.25),
       {"paddings": [[0, 0], [2, 3]], "constant": -0.25})
    un("STRIDED_SLICE", "s2", (1, 8, 8, 4), lambda x: x[:, 1:7:2, 2:, 1:3],
       {"slice": "[:, 1:7:2, 2:, 1:3]"})
    un("STRIDED_SLICE", "shrink", (1, 8, 8, 4), lambda x: x[:, 2, ::2, :],
       {"slice": "[:, 2, ::2, :]"})
    un("STRIDED_SLICE", "masks_neg", (1, 6, 10),
       lambda x: tf.strided_slice(x, [0, 4, 8], [1, 0, 1], [1, -1, -2], begin_mask=1,
                                  end_mask=2),
       {"begin": [0, 4, 8], "end": [1, 0, 1], "strides": [1, -1, -2], "begin_mask": 1,
        "end_mask": 2})
    un("TRANSPOSE", "0312", (1, 4, 6, 8), lambda x: tf.transpose(x, [0, 3, 1, 2]),
       {"perm": [0, 3, 1, 2]})
    un("TRANSPOSE", "021", (1, 5, 7), lambda x: tf.transpose(x, [0, 2, 1]), {"perm": [0, 2, 1]})
    un("TRANSPOSE", "5d", (1, 2, 3, 4, 5), lambda x: tf.transpose(x, [0, 4, 2, 3, 1]),
       {"perm": [0, 4, 2, 3, 1]})
    un("SPLIT", "2_last", (1, 4, 4, 8), lambda x: tuple(tf.split(x, 2, axis=-1)),
       {"num": 2, "axis": -1})
    un("SPLIT_V", "3_5", (1, 4, 4, 8), lambda x: tuple(tf.split(x, [3, 5], axis=-1)),
       {"sizes": [3, 5], "axis": -1})
    un("UNPACK", "axis1", (1, 3, 8), lambda x: tuple(tf.unstack(x, axis=1)), {"axis": 1})
    un("MINIMUM", "const", (1, 4, 4, 8), lambda x: tf.minimum(x, 0.25), {"const": 0.25})
    un("MAXIMUM", "const", (1, 4, 4, 8), lambda x: tf.maximum(x, -0.25), {"const": -0.25})
    un("ADD", "const_1d", (1, 4, 4, 8),
       lambda x: x + tf.constant(np.linspace(-0.5, 0.5, 8, dtype=np.float32)),
       {"const": "linspace(-0.5, 0.5, 8)"})
    un("MUL", "const_1d", (1, 4, 4, 8),
       lambda x: x * tf.constant(np.linspace(-2, 2, 8, dtype=np.float32)),
       {"const": "linspace(-2, 2, 8)"})

    # PRELU is a layer with weights.
    for name, shape, shared in (("shared12", (1, 4, 4, 8), [1, 2]), ("full", (1, 3, 5), None)):
        out.append(("PRELU", name,
                    layer_fn(lambda s=shared: L.PReLU(
                        alpha_initializer=K.initializers.RandomUniform(0.0, 0.5),
                        shared_axes=s), shape),
                    f32(shape), STD, {"shared_axes": shared, "input": list(shape)}, True))
    return out


def binary_specs():
    out = []
    shapes = {
        "same": ((1, 4, 4, 8), (1, 4, 4, 8)),
        "bcast_1d": ((1, 4, 4, 8), (8,)),
        "bcast_4d": ((1, 4, 1, 8), (1, 1, 5, 1)),
        "bcast_5d": ((1, 2, 3, 4, 5), (1, 2, 1, 4, 1)),
        "bcast_scalar": ((1, 4, 4, 8), (1,)),
    }
    ops = {
        "ADD": (tf.add, ("same", "bcast_1d", "bcast_4d", "bcast_5d")),
        "SUB": (tf.subtract, ("same", "bcast_1d", "bcast_4d", "bcast_5d")),
        "MUL": (tf.multiply, ("same", "bcast_1d", "bcast_4d", "bcast_5d", "bcast_scalar")),
        "MINIMUM": (tf.minimum, ("same", "bcast_1d", "bcast_4d", "bcast_5d")),
        "MAXIMUM": (tf.maximum, ("same", "bcast_1d", "bcast_4d", "bcast_5d")),
        "DIV": (lambda a, b: a / (tf.abs(b) + 0.5), ("same",)),
    }
    for target, (f, variants) in ops.items():
        for v in variants:
            a, b = shapes[v]
            types = STD + ((I8F,) if (target == "ADD" and v == "same") else ())
            if target == "DIV":
                types = (F32,)
            out.append((target, v, const_fn(f), f32(a, b), types,
                        {"inputs": [list(a), list(b)]}, True))
    for target, f in (("ADD", tf.add), ("SUB", tf.subtract), ("MUL", tf.multiply)):
        out.append((target, "same_relu", const_fn(lambda a, b, f=f: tf.nn.relu(f(a, b))),
                    f32((1, 4, 4, 8), (1, 4, 4, 8)), STD,
                    {"inputs": [[1, 4, 4, 8]] * 2, "fused": "relu"}, True))
    out.append(("ADD", "same_relu6", const_fn(lambda a, b: tf.nn.relu6(a * 4.0 + b)),
                f32((1, 4, 4, 8), (1, 4, 4, 8)), (F32,),
                {"inputs": [[1, 4, 4, 8]] * 2, "formula": "relu6(4a + b)"}, True))

    out.append(("CONCATENATION", "2_last", const_fn(lambda a, b: tf.concat([a, b], -1)),
                f32((1, 4, 4, 3), (1, 4, 4, 5)), STD + (I8F,), {"axis": -1}, True))
    out.append(("CONCATENATION", "3_axis1", const_fn(lambda a, b, c: tf.concat([a, b, c], 1)),
                f32((1, 2, 8), (1, 3, 8), (1, 1, 8)), STD, {"axis": 1}, True))
    out.append(("CONCATENATION", "scaled_axis1",
                const_fn(lambda a, b: tf.concat([a, b * 3.0], 1)),
                f32((1, 4, 6), (1, 2, 6)), (I8,), {"axis": 1, "formula": "concat(a, 3b)"},
                True))
    out.append(("PACK", "axis1", const_fn(lambda a, b: tf.stack([a, b], axis=1)),
                f32((1, 8), (1, 8)), STD, {"axis": 1}, True))
    out.append(("PACK", "axis0_3", const_fn(lambda a, b, c: tf.stack([a, b, c], axis=0)),
                f32((2, 5), (2, 5), (2, 5)), STD, {"axis": 0}, True))
    out.append(("BATCH_MATMUL", "1x4x8_1x8x6", const_fn(lambda a, b: tf.matmul(a, b)),
                f32((1, 4, 8), (1, 8, 6)), STD, {}, True))
    out.append(("BATCH_MATMUL", "adj_y_2x3x8",
                const_fn(lambda a, b: tf.matmul(a, b, transpose_b=True)),
                f32((2, 3, 8), (2, 5, 8)), STD, {"adj_y": True}, True))
    return out


def other_specs():
    """Ops whose models need non-float inputs or a dynamic batch dimension."""
    out = []
    # CAST: float models with non-float I/O.
    out.append(("CAST", "f32_to_i32", const_fn(lambda x: tf.cast(x * 100.0, tf.int32)),
                f32((1, 4, 8)), (F32,), {"from": "float32", "to": "int32"}, True))
    out.append(("CAST", "i8_to_f32", const_fn(lambda x: tf.cast(x, tf.float32) * 0.5),
                [((1, 4, 8), tf.int8)], (F32,), {"from": "int8", "to": "float32"}, True))
    # EXPAND_DIMS / SQUEEZE are rewritten to RESHAPE when every shape is static; with a
    # dynamic batch (shape_signature -1) EXPAND_DIMS survives (SQUEEZE: see build_squeeze).
    out.append(("EXPAND_DIMS", "axis1_dynbatch", const_fn(lambda x: tf.expand_dims(x, 1)),
                [((None, 16), tf.float32)], STD, {"axis": 1, "input_signature": [-1, 16]},
                True))
    return out


def fix_specs(specs):
    """Representative data and checks need concrete shapes: None -> 1."""
    return [(tuple(1 if d is None else d for d in s), t) for s, t in specs]


def build_single_ops(zoo: Zoo):
    print("single-op models", flush=True)
    for target, variant, builder, specs, types, params, per_channel in (
            conv_specs() + unary_specs() + binary_specs() + other_specs()):
        for qtype in types:
            name = f"{target.lower()}_{variant}_{qtype}".replace(".", "p")
            desc = f"single {target} ({variant})"
            if not zoo.wanted(name):
                continue
            fresh_session(seed_of(name))
            try:
                obj = builder(seed_of(name) ^ 0x3E1)
                data = convert(obj, specs, qtype, seed_of(name) ^ 0x5EED, per_channel)
                ops, ins, outs = check_model(data, target, qtype)
            except Exception as e:  # noqa: BLE001
                msg = [m for m in str(e).strip().splitlines() if m.strip()]
                reason = next((m for m in msg if "error" in m.lower()), msg[-1] if msg else "?")
                zoo.dropped.append({"name": name, "target": target, "type": qtype,
                                    "reason": reason.strip()[:300]})
                print(f"  DROP {name}: {reason.strip()[:160]}", flush=True)
                continue
            zoo.save(name, data, target, qtype, "single_op", desc, params, ops, ins, outs)


def reshape_to_squeeze(data: bytes, dims, version=1):
    """Rewrite a one-RESHAPE model into the equivalent SQUEEZE (the converter never emits
    SQUEEZE for static shapes). The unused shape constant stays in the tensor list."""
    import flatbuffers
    from tensorflow.lite.python import schema_py_generated as sch

    m = sch.ModelT.InitFromObj(sch.Model.GetRootAsModel(data, 0))
    op = m.subgraphs[0].operators[0]
    code = m.operatorCodes[op.opcodeIndex]
    if code.builtinCode != sch.BuiltinOperator.RESHAPE:
        raise ValueError("expected a RESHAPE model")
    code.builtinCode = code.deprecatedBuiltinCode = sch.BuiltinOperator.SQUEEZE
    code.version = version
    op.inputs = np.array([op.inputs[0]], dtype=np.int32)
    opts = sch.SqueezeOptionsT()
    opts.squeezeDims = list(dims)
    op.builtinOptionsType = sch.BuiltinOptions.SqueezeOptions
    op.builtinOptions = opts
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def build_squeeze(zoo: Zoo):
    for variant, shape, dims, to in (("axes12", (1, 1, 1, 16), [1, 2], (1, 16)),
                                     ("axis2", (1, 6, 1, 4), [2], (1, 6, 4))):
        for qtype in STD:
            name = f"squeeze_{variant}_{qtype}"
            if not zoo.wanted(name):
                continue
            try:
                data = convert(lambda x, to=to: tf.reshape(x, to), f32(shape), qtype,
                               seed_of(name) ^ 0x5EED)
                data = reshape_to_squeeze(data, dims, 1)
                ops, ins, outs = check_model(data, "SQUEEZE", qtype)
            except Exception as e:  # noqa: BLE001
                zoo.dropped.append({"name": name, "target": "SQUEEZE", "type": qtype,
                                    "reason": str(e).strip().splitlines()[-1][:300]})
                print(f"  DROP {name}: {e}", flush=True)
                continue
            zoo.save(name, data, "SQUEEZE", qtype, "single_op",
                     f"single SQUEEZE ({variant}): converted as RESHAPE, op rewritten to "
                     "SQUEEZE in the flatbuffer", {"squeeze_dims": dims, "input": list(shape)},
                     ops, ins, outs)


# --------------------------------------------------------------------------------------
# Small realistic nets (Keras functional models, batch size 1)
# --------------------------------------------------------------------------------------

def randomize_bn(model):
    """Give BatchNormalization layers non-trivial statistics so folding matters."""
    rs = np.random.RandomState(7)
    for layer in model.layers:
        if isinstance(layer, L.BatchNormalization):
            n = layer.gamma.shape[0]
            layer.set_weights([rs.uniform(0.5, 1.5, n).astype(np.float32),
                               rs.uniform(-0.3, 0.3, n).astype(np.float32),
                               rs.uniform(-0.3, 0.3, n).astype(np.float32),
                               rs.uniform(0.5, 1.5, n).astype(np.float32)])
    return model


def net_mlp():
    x = i = K.Input((64,), batch_size=1)
    x = L.Dense(32, activation="relu", bias_initializer=bias_init())(x)
    x = L.Dense(16, activation="relu", bias_initializer=bias_init())(x)
    x = L.Dense(10, bias_initializer=bias_init())(x)
    return K.Model(i, L.Softmax()(x))


def net_cnn():
    x = i = K.Input((28, 28, 1), batch_size=1)
    x = L.Conv2D(8, 3, activation="relu", bias_initializer=bias_init())(x)
    x = L.MaxPooling2D(2)(x)
    x = L.Conv2D(16, 3, activation="relu", bias_initializer=bias_init())(x)
    x = L.MaxPooling2D(2)(x)
    x = L.Flatten()(x)
    x = L.Dense(10, bias_initializer=bias_init())(x)
    return K.Model(i, L.Softmax()(x))


def net_ds_cnn():
    x = i = K.Input((49, 10, 1), batch_size=1)
    x = L.Conv2D(32, (10, 4), strides=2, padding="same", use_bias=False)(x)
    x = L.BatchNormalization()(x)
    x = L.ReLU()(x)
    for _ in range(3):
        x = L.DepthwiseConv2D(3, padding="same", use_bias=False)(x)
        x = L.BatchNormalization()(x)
        x = L.ReLU()(x)
        x = L.Conv2D(32, 1, use_bias=False)(x)
        x = L.BatchNormalization()(x)
        x = L.ReLU()(x)
    x = L.AveragePooling2D(pool_size=(25, 5))(x)
    x = L.Flatten()(x)
    x = L.Dense(12, bias_initializer=bias_init())(x)
    return randomize_bn(K.Model(i, L.Softmax()(x)))


def net_mobilenet_v1():
    x = i = K.Input((48, 48, 3), batch_size=1)
    x = L.Conv2D(8, 3, strides=2, padding="same", use_bias=False)(x)
    x = L.BatchNormalization()(x)
    x = L.ReLU(6.0)(x)
    for filters, stride in ((16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2), (128, 1)):
        x = L.DepthwiseConv2D(3, strides=stride, padding="same", use_bias=False)(x)
        x = L.BatchNormalization()(x)
        x = L.ReLU(6.0)(x)
        x = L.Conv2D(filters, 1, use_bias=False)(x)
        x = L.BatchNormalization()(x)
        x = L.ReLU(6.0)(x)
    x = L.GlobalAveragePooling2D()(x)
    x = L.Dense(10, bias_initializer=bias_init())(x)
    return randomize_bn(K.Model(i, L.Softmax()(x)))


def net_mobilenet_v2():
    x = i = K.Input((32, 32, 3), batch_size=1)
    x = L.Conv2D(16, 3, strides=2, padding="same", use_bias=False)(x)
    x = L.BatchNormalization()(x)
    x = L.ReLU(6.0)(x)
    for out_ch, stride in ((16, 1), (24, 2), (24, 1), (32, 2), (32, 1)):
        inp = x
        in_ch = x.shape[-1]
        y = L.Conv2D(in_ch * 4, 1, use_bias=False)(x)
        y = L.BatchNormalization()(y)
        y = L.ReLU(6.0)(y)
        y = L.DepthwiseConv2D(3, strides=stride, padding="same", use_bias=False)(y)
        y = L.BatchNormalization()(y)
        y = L.ReLU(6.0)(y)
        y = L.Conv2D(out_ch, 1, use_bias=False)(y)
        y = L.BatchNormalization()(y)
        x = L.Add()([inp, y]) if stride == 1 and in_ch == out_ch else y
    x = L.Conv2D(64, 1, use_bias=False)(x)
    x = L.BatchNormalization()(x)
    x = L.ReLU(6.0)(x)
    x = L.GlobalAveragePooling2D()(x)
    x = L.Dense(10, bias_initializer=bias_init())(x)
    return randomize_bn(K.Model(i, L.Softmax()(x)))


def net_resnet():
    x = i = K.Input((32, 32, 3), batch_size=1)
    x = L.Conv2D(16, 3, padding="same", use_bias=False)(x)
    x = L.BatchNormalization()(x)
    x = L.ReLU()(x)
    for filters, stride in ((16, 1), (32, 2), (32, 1)):
        y = L.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False)(x)
        y = L.BatchNormalization()(y)
        y = L.ReLU()(y)
        y = L.Conv2D(filters, 3, padding="same", use_bias=False)(y)
        y = L.BatchNormalization()(y)
        if stride != 1 or x.shape[-1] != filters:
            x = L.Conv2D(filters, 1, strides=stride, use_bias=False)(x)
            x = L.BatchNormalization()(x)
        x = L.ReLU()(L.Add()([x, y]))
    x = L.GlobalAveragePooling2D()(x)
    x = L.Dense(10, bias_initializer=bias_init())(x)
    return randomize_bn(K.Model(i, L.Softmax()(x)))


def net_conv1d_audio():
    x = i = K.Input((256, 1), batch_size=1)
    x = L.Conv1D(8, 9, strides=2, padding="same", activation="relu",
                 bias_initializer=bias_init())(x)
    x = L.MaxPooling1D(2)(x)
    x = L.Conv1D(16, 5, padding="same", activation="relu", bias_initializer=bias_init())(x)
    x = L.MaxPooling1D(2)(x)
    x = L.Conv1D(16, 3, padding="valid", activation="relu", bias_initializer=bias_init())(x)
    x = L.GlobalAveragePooling1D()(x)
    x = L.Dense(5, bias_initializer=bias_init())(x)
    return K.Model(i, L.Softmax()(x))


def net_autoencoder():
    x = i = K.Input((64,), batch_size=1)
    for units, act in ((32, "relu"), (8, "tanh"), (32, "relu"), (64, "sigmoid")):
        x = L.Dense(units, activation=act, bias_initializer=bias_init())(x)
    return K.Model(i, x)


def net_lstm():
    x = i = K.Input((16, 8), batch_size=1)
    x = L.LSTM(12, unroll=False, bias_initializer=bias_init())(x)
    x = L.Dense(4, bias_initializer=bias_init())(x)
    return K.Model(i, L.Softmax()(x))


NETS = [
    ("mlp", net_mlp, "MLP 64-32-16-10 + softmax", (F32, I8)),
    ("cnn", net_cnn, "CNN 28x28x1: conv8-pool-conv16-pool-dense10-softmax", (F32, I8, I8F, I16)),
    ("ds_cnn_kws", net_ds_cnn, "DS-CNN keyword spotter, 49x10 MFCC input, 3 DS blocks, BN folded",
     (F32, I8, I16)),
    ("mobilenet_v1_025", net_mobilenet_v1,
     "MobileNetV1-like (alpha 0.25 widths, 7 DS blocks), 48x48x3, relu6, BN folded", (F32, I8)),
    ("mobilenet_v2_like", net_mobilenet_v2,
     "MobileNetV2-like inverted residuals (expand 4, ADD skips), 32x32x3", (F32, I8)),
    ("resnet_like", net_resnet, "ResNet-like: 3 residual blocks with ADD skips, 32x32x3",
     (F32, I8)),
    ("conv1d_audio", net_conv1d_audio, "1-D conv audio net on 256 samples (Conv1D -> CONV_2D)",
     (F32, I8)),
    ("autoencoder", net_autoencoder, "dense autoencoder 64-32-8-32-64", (F32, I8)),
    ("lstm", net_lstm, "LSTM(12) over 16x8 sequence + dense4 + softmax (fused LSTM op)",
     (F32, I8)),
]

NET_TARGET = {"lstm": "UNIDIRECTIONAL_SEQUENCE_LSTM", "mobilenet_v2_like": "ADD",
              "resnet_like": "ADD", "ds_cnn_kws": "DEPTHWISE_CONV_2D",
              "mobilenet_v1_025": "DEPTHWISE_CONV_2D", "cnn": "CONV_2D",
              "conv1d_audio": "CONV_2D", "mlp": "FULLY_CONNECTED",
              "autoencoder": "FULLY_CONNECTED"}


def build_nets(zoo: Zoo):
    print("nets", flush=True)
    for base, fn, desc, types in NETS:
        for qtype in types:
            name = f"net_{base}_{qtype}"
            if not zoo.wanted(name):
                continue
            fresh_session(seed_of("net_" + base))  # same weights per type
            try:
                m = fn()
                specs = [(tuple(t.shape), tf.float32) for t in m.inputs]
                data = convert(m, specs, qtype, seed_of("net_" + base) ^ 0x5EED)
                ops, ins, outs = check_model(data, NET_TARGET[base], qtype)
            except Exception as e:  # noqa: BLE001
                msg = [m for m in str(e).strip().splitlines() if m.strip()]
                reason = next((m for m in msg if "error" in m.lower()), msg[-1] if msg else "?")
                zoo.dropped.append({"name": name, "target": NET_TARGET[base], "type": qtype,
                                    "reason": reason.strip()[:300]})
                print(f"  DROP {name}: {reason.strip()[:160]}", flush=True)
                continue
            zoo.save(name, data, None, qtype, "net", desc,
                     {"params": int(m.count_params())}, ops, ins, outs)


# --------------------------------------------------------------------------------------
# Hybrid (dynamic-range) models: float I/O, int8 weights, inputs quantized at run time
# --------------------------------------------------------------------------------------

HYBRID = [
    # name, target, layer factory, input shape (with batch), per-channel weights
    ("conv_2d_k3_s1_same_hybrid", "CONV_2D",
     lambda: L.Conv2D(8, 3, padding="same", bias_initializer=bias_init()), (1, 12, 12, 16), True),
    ("conv_2d_k3_s1_same_hybrid_per_tensor", "CONV_2D",
     lambda: L.Conv2D(8, 3, padding="same", bias_initializer=bias_init()), (1, 12, 12, 16),
     False),
    ("conv_2d_k5_s2_valid_relu6_batch2_hybrid", "CONV_2D",
     lambda: L.Conv2D(6, 5, strides=2, activation="relu6", bias_initializer=bias_init()),
     (2, 11, 11, 8), True),
    ("conv_2d_k3_d2_same_relu_hybrid_per_tensor", "CONV_2D",
     lambda: L.Conv2D(8, 3, dilation_rate=2, padding="same", activation="relu",
                      bias_initializer=bias_init()), (1, 10, 10, 16), False),
    ("fully_connected_in64_out24_hybrid", "FULLY_CONNECTED",
     lambda: L.Dense(24, bias_initializer=bias_init()), (2, 64), True),
    ("fully_connected_in64_out24_relu_hybrid_per_tensor", "FULLY_CONNECTED",
     lambda: L.Dense(24, activation="relu", bias_initializer=bias_init()), (1, 64), False),
]


def build_hybrid(zoo: Zoo):
    """Dynamic-range quantization (Optimize.DEFAULT, no representative dataset): weights of
    1024 or more elements become int8 (per channel unless disabled), activations stay float."""
    print("hybrid models", flush=True)
    for name, target, layer, shape, per_channel in HYBRID:
        if not zoo.wanted(name):
            continue
        fresh_session(seed_of(name))
        x = i = K.Input(shape[1:], batch_size=shape[0])
        m = K.Model(i, layer()(x))
        conv = tf.lite.TFLiteConverter.from_keras_model(m)
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        if not per_channel:
            conv._experimental_disable_per_channel = True
        data = conv.convert()
        ops, ins, outs = check_model(data, target, F32)
        it = reference.make_interpreter(data)
        scales = [len(q) for q in (t["quantization_parameters"]["scales"]
                                   for t in it.get_tensor_details()
                                   if np.dtype(t["dtype"]) == np.int8) if len(q)]
        if ops != [target] or not scales or (max(scales) > 1) != per_channel:
            raise ValueError(f"{name}: not a hybrid {target} (ops {ops}, scales {scales})")
        zoo.save(name, data, target, "hybrid", "single_op",
                 f"single {target}, hybrid: float I/O, int8 weights with "
                 f"{'per-channel scales' if per_channel else 'one scale'}",
                 {"input": list(shape), "per_channel": per_channel, "weight_scales": scales},
                 ops, ins, outs)


# --------------------------------------------------------------------------------------
# Offline memory plan
# --------------------------------------------------------------------------------------

def tensor_lifetimes(model_t):
    """(first, last) operator index for every non-constant tensor of subgraph 0."""
    sg = model_t.subgraphs[0]
    n_ops = len(sg.operators)
    life = {}

    def touch(t, i):
        if t < 0:
            return
        f, last = life.get(t, (i, i))
        life[t] = (min(f, i), max(last, i))
    for t in sg.inputs:
        touch(int(t), 0)
    for i, op in enumerate(sg.operators):
        for t in list(op.inputs if op.inputs is not None else []) + \
                list(op.outputs if op.outputs is not None else []):
            touch(int(t), i)
    for t in sg.outputs:
        touch(int(t), n_ops - 1)
    const = set()
    for t in life:
        buf = sg.tensors[t].buffer
        if buf and model_t.buffers[buf].data is not None and len(model_t.buffers[buf].data):
            const.add(t)
    return {t: fl for t, fl in life.items() if t not in const}


def tensor_bytes(tensor_t):
    itemsize = {0: 4, 2: 4, 3: 1, 4: 8, 7: 2, 9: 1}[tensor_t.type]  # FLOAT32 INT32 UINT8 ...
    n = 1
    for d in tensor_t.shape:
        n *= int(d)
    return n * itemsize


def plan_offline(model_t, leave_runtime):
    """Greedy first-fit by size among lifetime-overlapping tensors; offsets multiple of 16.

    Tensors in ``leave_runtime`` get -1 (the runtime planner places them around the fixed
    ones); so do constants. Returns the per-tensor offset list."""
    sg = model_t.subgraphs[0]
    life = tensor_lifetimes(model_t)
    planned = [t for t in life if t not in leave_runtime]
    planned.sort(key=lambda t: (-tensor_bytes(sg.tensors[t]), t))
    placed = []  # (offset, size, first, last)
    offsets = [-1] * len(sg.tensors)
    for t in planned:
        size = tensor_bytes(sg.tensors[t])
        first, last = life[t]
        off = 0
        for o, s, f, lst in sorted(placed):
            if lst < first or f > last:
                continue
            if off + size <= o:
                break
            off = max(off, (o + s + 15) // 16 * 16)
        placed.append((off, size, first, last))
        offsets[t] = off
    # validate: no two live-at-once tensors overlap
    for a in range(len(placed)):
        for b in range(a + 1, len(placed)):
            oa, sa, fa, la = placed[a]
            ob, sb, fb, lb = placed[b]
            if not (la < fb or lb < fa) and not (oa + sa <= ob or ob + sb <= oa):
                raise AssertionError("offline plan overlaps")
    return offsets, life


def add_offline_plan(data: bytes):
    import flatbuffers
    from tensorflow.lite.python import schema_py_generated as sch

    model_t = sch.ModelT.InitFromObj(sch.Model.GetRootAsModel(data, 0))
    sg = model_t.subgraphs[0]
    out_t = int(sg.outputs[0])
    offsets, life = plan_offline(model_t, leave_runtime={out_t})
    words = [0, 1, len(sg.tensors)] + offsets
    buf = sch.BufferT()
    buf.data = np.array(words, dtype="<i4").view(np.uint8)
    model_t.buffers.append(buf)
    meta = sch.MetadataT()
    meta.name = "OfflineMemoryAllocation"
    meta.buffer = len(model_t.buffers) - 1
    if model_t.metadata is None:
        model_t.metadata = []
    model_t.metadata.append(meta)
    b = flatbuffers.Builder(1024)
    b.Finish(model_t.Pack(b), file_identifier=b"TFL3")
    plan = [{"tensor": t, "name": sg.tensors[t].name.decode() if isinstance(
                sg.tensors[t].name, bytes) else sg.tensors[t].name,
             "offset": offsets[t], "bytes": tensor_bytes(sg.tensors[t]),
             "first_op": life[t][0], "last_op": life[t][1]} for t in sorted(life)]
    return bytes(b.Output()), words, plan


def net_offline_cnn():
    x = i = K.Input((16, 16, 2), batch_size=1)
    x = L.Conv2D(8, 3, padding="same", activation="relu", bias_initializer=bias_init())(x)
    x = L.Conv2D(8, 3, strides=2, padding="same", activation="relu",
                 bias_initializer=bias_init())(x)
    x = L.MaxPooling2D(2)(x)
    x = L.Conv2D(16, 3, padding="valid", activation="relu", bias_initializer=bias_init())(x)
    x = L.Flatten()(x)
    x = L.Dense(6, bias_initializer=bias_init())(x)
    return K.Model(i, L.Softmax()(x))


def build_offline(zoo: Zoo):
    print("offline plan", flush=True)
    name = "offline_cnn_int8"
    if not zoo.wanted(name):
        return
    fresh_session(seed_of(name))
    m = net_offline_cnn()
    data = convert(m, [((1, 16, 16, 2), tf.float32)], I8, seed_of(name) ^ 0x5EED)
    data, words, plan = add_offline_plan(data)
    ops, ins, outs = check_model(data, "CONV_2D", I8)
    zoo.save(name, data, None, I8, "offline",
             "int8 CNN 16x16x2 with an OfflineMemoryAllocation metadata plan "
             "(greedy first-fit, 16-byte aligned; output tensor left -1 for the runtime)",
             {"params": int(m.count_params())}, ops, ins, outs,
             extra={"offline_plan": {"words": words, "tensors": plan}})


# --------------------------------------------------------------------------------------
# Demo model for `python -m picolite`
# --------------------------------------------------------------------------------------

DEMO_CLASSES = ["horizontal", "vertical", "diagonal", "blob"]


def demo_images(n, seed):
    """16x16 grayscale images in [0, 1] of the four DEMO_CLASSES, with noise."""
    rs = np.random.RandomState(seed)
    xs = np.zeros((n, 16, 16, 1), np.float32)
    ys = rs.randint(0, 4, n)
    for k in range(n):
        img = rs.uniform(0, 0.25, (16, 16)).astype(np.float32)
        c, p = ys[k], rs.randint(3, 13)
        if c == 0:
            img[p:p + 2, 2:14] = 1.0
        elif c == 1:
            img[2:14, p:p + 2] = 1.0
        elif c == 2:
            for t in range(2, 14):
                img[t, t] = img[t, min(t + 1, 15)] = 1.0
        else:
            q = rs.randint(3, 13)
            img[p - 2:p + 2, q - 2:q + 2] = 1.0
        xs[k, :, :, 0] = img
    return xs, ys


def build_demo(zoo: Zoo):
    print("demo model", flush=True)
    if not zoo.wanted("demo"):
        return
    fresh_session(seed_of("demo"))
    tf.config.experimental.enable_op_determinism()
    x = i = K.Input((16, 16, 1), batch_size=1)
    x = L.Conv2D(4, 3, activation="relu")(x)
    x = L.MaxPooling2D(2)(x)
    x = L.Flatten()(x)
    x = L.Dense(len(DEMO_CLASSES))(x)
    m = K.Model(i, L.Softmax()(x))
    xs, ys = demo_images(800, 1)
    # batch size 1 is baked into the Input; train through a batch-free twin sharing weights
    xi = K.Input((16, 16, 1))
    y = xi
    for layer in m.layers[1:]:
        y = layer(y)
    twin = K.Model(xi, y)
    twin.compile(optimizer=K.optimizers.Adam(0.01), loss="sparse_categorical_crossentropy",
                 metrics=["accuracy"])
    twin.fit(xs, ys, epochs=4, batch_size=32, verbose=0, shuffle=False)
    tx, ty = demo_images(200, 2)
    acc = float(np.mean(np.argmax(twin.predict(tx, verbose=0), 1) == ty))
    conv = tf.lite.TFLiteConverter.from_keras_model(m)
    rs_samples = [[s[None]] for s in demo_images(64, 3)[0]]
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = lambda: iter(rs_samples)
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    conv.inference_input_type = tf.int8
    conv.inference_output_type = tf.int8
    data = conv.convert()
    ops, ins, outs = check_model(data, "CONV_2D", I8)
    # int8 accuracy on the test images, through LiteRT's reference kernels
    scale, zp = ins[0]["quantization"]
    hits = 0
    for img, label in zip(tx, ty):
        q = np.clip(np.round(img / scale) + zp, -128, 127).astype(np.int8)[None]
        hits += int(np.argmax(reference.run_litert(data, [q])[0]) == label)
    os.makedirs(os.path.dirname(DEMO_PATH), exist_ok=True)
    zoo.save("demo", data, None, I8, "demo",
             "demo for `python -m picolite`: 16x16x1 int8 CNN trained 4 epochs on synthetic "
             "line/blob images; classes " + ",".join(DEMO_CLASSES),
             {"classes": DEMO_CLASSES, "float_test_accuracy": round(acc, 3),
              "int8_test_accuracy": round(hits / len(ty), 3)},
             ops, ins, outs, path=DEMO_PATH)


# --------------------------------------------------------------------------------------

def main(argv):
    only = None
    if "--only" in argv:
        only = argv[argv.index("--only") + 1]
    zoo = Zoo(only=only, tflm="--no-tflm" not in argv)
    if only is None:
        for f in os.listdir(OUT_DIR):
            if f.endswith(".tflite"):
                os.remove(os.path.join(OUT_DIR, f))
    build_single_ops(zoo)
    build_squeeze(zoo)
    build_nets(zoo)
    build_hybrid(zoo)
    build_offline(zoo)
    build_demo(zoo)

    entries = zoo.write_manifest("tests/models/make_models.py")
    total = sum(e["size"] for e in entries if not e["file"].startswith(".."))
    print(f"{len(entries)} models, {total} bytes in tests/models; {len(zoo.dropped)} dropped")


if __name__ == "__main__":
    main(sys.argv[1:])
