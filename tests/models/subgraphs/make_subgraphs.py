#!/usr/bin/env python3
"""Generate the multi-subgraph zoo: tests/models/subgraphs/*.tflite and MANIFEST.json.

Models with more than one subgraph, as TensorFlow's converter writes them:
  stream_ring_*    a tf.Module holding a tf.Variable ring buffer of past frames: subgraph 0
                   runs CALL_ONCE (subgraph 1 creates the variable with VAR_HANDLE and
                   ASSIGN_VARIABLE), then READ_VARIABLE -> CONCATENATION -> STRIDED_SLICE ->
                   ASSIGN_VARIABLE every step (a streaming wake-word model's state)
  cond_*           tf.cond: IF with a then and an else subgraph
  while_*          tf.while_loop: WHILE with a cond and a body subgraph
  two_signatures   a module with two signatures (one subgraph each)
  *_batch_*        the same control flow with a dynamic batch (input shape_signature
                   [-1, 4]), for resize_tensor_input: tf.cond with a matmul in each branch,
                   tf.while_loop carrying a state and a sum (float32, and int8 with an
                   int8 matmul and tanh in the body), a tf.cond inside a
                   tf.while_loop (its branches come before the body in subgraph order), a
                   tf.Variable scale updated every step (CALL_ONCE); "ops" lists subgraph
                   0's operators only
  dynamic/         models LiteRT runs with tensors it resizes during invoke, which picolite
                   refuses: while_grow (a loop variable doubles every iteration), cond_unequal
                   (the branches give outputs of different shapes); listed under "dynamic"
                   in MANIFEST.json, not "models"

    python tests/models/subgraphs/make_subgraphs.py [--no-tflm]

Needs TensorFlow, ai-edge-litert and (for the cross checks) tflite-micro; CI never runs it,
the generated files are committed. Inputs of the representative datasets come from numpy
RandomState, so rerunning gives the same bytes with the same TensorFlow.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/models, for make_models

import numpy as np  # noqa: E402

import make_models as mm  # noqa: E402

tf = mm.tf

# LiteRT runs these with tensors it resizes while it invokes; picolite refuses them. They
# live in dynamic/, out of the folder's model list, under "dynamic" in MANIFEST.json.
DYNAMIC = {"while_grow_float32.tflite", "cond_unequal_float32.tflite"}

FRAME = 4   # features per frame
FRAMES = 3  # frames the ring buffer keeps


class Ring(tf.Module):
    """Keeps the last FRAMES frames; each step returns them, flattened and scaled."""

    def __init__(self):
        super().__init__()
        self.state = tf.Variable(tf.zeros([1, FRAMES * FRAME]), name="ring")
        self.w = tf.constant(np.linspace(0.5, 1.5, FRAMES * FRAME, dtype=np.float32)
                             .reshape(1, -1))

    @tf.function(input_signature=[tf.TensorSpec([1, FRAME], tf.float32)])
    def __call__(self, x):
        joined = tf.concat([self.state, x], axis=1)
        kept = joined[:, FRAME:]
        self.state.assign(kept)
        return kept * self.w


def ring_model(qtype, seed):
    m = Ring()
    conv = tf.lite.TFLiteConverter.from_concrete_functions(
        [m.__call__.get_concrete_function()], m)
    conv.experimental_enable_resource_variables = True
    if qtype == mm.I8:
        rs = np.random.RandomState(seed)
        samples = [[rs.uniform(-1, 1, size=(1, FRAME)).astype(np.float32)]
                   for _ in range(mm.N_REP)]
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = lambda: iter(samples)
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        conv.inference_input_type = tf.int8
        conv.inference_output_type = tf.int8
    return conv.convert()


def cond_model():
    @tf.function(input_signature=[tf.TensorSpec([], tf.bool),
                                  tf.TensorSpec([1, 4], tf.float32),
                                  tf.TensorSpec([1, 4], tf.float32)])
    def f(p, x, y):
        return tf.cond(p, lambda: x * y + 1.0, lambda: x - y * 2.0)

    conv = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()],
                                                           tf.Module())
    return conv.convert()


def while_model():
    @tf.function(input_signature=[tf.TensorSpec([1, 4], tf.float32)])
    def f(x):
        n = tf.constant(5)

        def body(n, v):
            return n - 1, v * 0.5 + 1.0

        # the count itself is the condition (CAST to bool): no comparison operator needed
        _, out = tf.while_loop(lambda n, v: tf.cast(n, tf.bool), body, [n, x])
        return out

    conv = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()],
                                                           tf.Module())
    return conv.convert()


BATCH = [None, FRAME]  # a dynamic batch: the converter writes shape_signature [-1, 4]


def batch_weights(seed, *shapes):
    rs = np.random.RandomState(seed)
    return [tf.constant(rs.uniform(-0.8, 0.8, s).astype(np.float32)) for s in shapes]


def convert(fn, module=None, qtype=mm.F32, seed=0):
    """fn converted; int8: full-integer quantization with int8 input and output (the
    converter keeps some loop state float, with QUANTIZE/DEQUANTIZE around it)."""
    conv = tf.lite.TFLiteConverter.from_concrete_functions([fn.get_concrete_function()],
                                                           module or tf.Module())
    conv.experimental_enable_resource_variables = True
    if qtype == mm.I8:
        rs = np.random.RandomState(seed)
        (spec,) = fn.input_signature  # one float input
        samples = [[rs.uniform(-1, 1, size=[1, *spec.shape[1:]]).astype(np.float32)]
                   for _ in range(mm.N_REP)]
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = lambda: iter(samples)
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        conv.inference_input_type = tf.int8
        conv.inference_output_type = tf.int8
    return conv.convert()


def cond_batch_model():
    w1, b1, w2 = batch_weights(3, (FRAME, 3), (3,), (FRAME, 3))

    @tf.function(input_signature=[tf.TensorSpec([], tf.bool), tf.TensorSpec(BATCH, tf.float32)])
    def f(p, x):
        y = tf.cond(p, lambda: tf.nn.relu(tf.matmul(x, w1) + b1),
                    lambda: tf.tanh(tf.matmul(x, w2)) * 0.5)
        return y + 1.0

    return convert(f)


def while_batch_model(qtype=mm.F32):
    w, b = batch_weights(4, (FRAME, FRAME), (FRAME,))

    @tf.function(input_signature=[tf.TensorSpec(BATCH, tf.float32)])
    def f(x):
        def body(i, v, acc):
            v = tf.tanh(tf.matmul(v, w) + b)
            return i + 1, v, acc + v

        _, v, acc = tf.while_loop(lambda i, v, acc: i < 3, body, [tf.constant(0), x, x * 0.0])
        return acc - v

    return convert(f, qtype=qtype, seed=7)


def while_cond_batch_model():
    (w,) = batch_weights(5, (FRAME, FRAME))

    @tf.function(input_signature=[tf.TensorSpec(BATCH, tf.float32)])
    def f(x):
        def body(i, v):
            return i + 1, tf.cond(i > 1, lambda: v * 0.5, lambda: tf.tanh(tf.matmul(v, w)))

        _, v = tf.while_loop(lambda i, v: i < 4, body, [tf.constant(0), x])
        return v

    return convert(f)


class Scale(tf.Module):
    """A tf.Variable scale (its initial value assigned by CALL_ONCE), moved each step, on a
    dynamic batch."""

    def __init__(self):
        super().__init__()
        self.s = tf.Variable(np.linspace(0.5, 2.0, FRAME).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec(BATCH, tf.float32)])
    def __call__(self, x):
        y = x * self.s + 1.0
        self.s.assign(self.s * 0.5 + 0.25)
        return y


def variable_batch_model():
    m = Scale()
    return convert(m.__call__, m)


def while_grow_model():
    @tf.function(input_signature=[tf.TensorSpec(BATCH, tf.float32)])
    def f(x):
        def body(n, v):
            return n - 1, tf.concat([v, v], axis=0)

        _, out = tf.while_loop(lambda n, v: tf.cast(n, tf.bool), body, [tf.constant(3), x],
                               shape_invariants=[tf.TensorShape([]), tf.TensorShape(BATCH)])
        return out

    return convert(f)


def cond_unequal_model():
    @tf.function(input_signature=[tf.TensorSpec([], tf.bool), tf.TensorSpec(BATCH, tf.float32)])
    def f(p, x):
        return tf.cond(p, lambda: tf.concat([x, x], axis=0), lambda: x + 1.0)

    return convert(f)


class TwoSignatures(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([1, 3], tf.float32, name="a"),
                                  tf.TensorSpec([1, 3], tf.float32, name="b")])
    def add(self, a, b):
        return {"sum": a + b}

    @tf.function(input_signature=[tf.TensorSpec([2, 2], tf.float32, name="x")])
    def scale(self, x):
        return {"scaled": x * 3.0, "shifted": x - 1.0}


def two_signatures_model():
    m = TwoSignatures()
    conv = tf.lite.TFLiteConverter.from_concrete_functions(
        [m.add.get_concrete_function(), m.scale.get_concrete_function()], m)
    return conv.convert()


def build(zoo):
    made = [
        ("stream_ring_float32", lambda: ring_model(mm.F32, 0), mm.F32, "READ_VARIABLE",
         "tf.Variable ring buffer of past frames (CALL_ONCE, VAR_HANDLE, READ/ASSIGN)"),
        ("stream_ring_int8", lambda: ring_model(mm.I8, 1), mm.I8, "READ_VARIABLE",
         "int8 tf.Variable ring buffer of past frames"),
        ("cond_float32", cond_model, mm.F32, "IF", "tf.cond on a bool input: then/else subgraphs"),
        ("while_float32", while_model, mm.F32, "WHILE", "tf.while_loop: cond/body subgraphs"),
        ("two_signatures_float32", two_signatures_model, mm.F32, "ADD",
         "a module with two signatures, one subgraph each"),
        ("cond_batch_float32", cond_batch_model, mm.F32, "IF",
         "tf.cond with a matmul in each branch on a dynamic batch"),
        ("while_batch_float32", while_batch_model, mm.F32, "WHILE",
         "tf.while_loop carrying a state and its sum on a dynamic batch"),
        ("while_batch_int8", lambda: while_batch_model(mm.I8), mm.I8, "WHILE",
         "int8 tf.while_loop (int8 matmul and tanh in the body) on a dynamic batch"),
        ("while_cond_batch_float32", while_cond_batch_model, mm.F32, "WHILE",
         "tf.cond inside a tf.while_loop on a dynamic batch"),
        ("variable_batch_float32", variable_batch_model, mm.F32, "CALL_ONCE",
         "a tf.Variable scale (CALL_ONCE) on a dynamic batch"),
        ("while_grow_float32", while_grow_model, mm.F32, "WHILE",
         "tf.while_loop doubling its loop variable each iteration (dynamic in LiteRT)"),
        ("cond_unequal_float32", cond_unequal_model, mm.F32, "IF",
         "tf.cond whose branches give different shapes (dynamic in LiteRT)"),
    ]
    for name, make, qtype, target, desc in made:
        if not zoo.wanted(name):
            continue
        data = make()
        try:
            ops, ins, outs = mm.check_model(data, target, qtype)
        except ValueError as e:
            zoo.dropped.append({"name": name, "why": str(e)})
            print(f"  drop {name}: {e}")
            continue
        path = (os.path.join(HERE, "dynamic", name + ".tflite")
                if name + ".tflite" in DYNAMIC else None)
        zoo.save(name, data, target, qtype, "subgraphs", desc, {}, ops, ins, outs, path=path)


def main():
    args = sys.argv[1:]
    zoo = mm.Zoo(tflm="--no-tflm" not in args, out_dir=HERE)
    build(zoo)
    zoo.write_manifest("tests/models/subgraphs/make_subgraphs.py")
    path = os.path.join(HERE, "MANIFEST.json")
    with open(path) as f:
        manifest = json.load(f)
    manifest["dynamic"] = [e for e in manifest["models"] if e["file"].startswith("dynamic/")]
    manifest["models"] = [e for e in manifest["models"] if e not in manifest["dynamic"]]
    mm.write_manifest(path, manifest)


if __name__ == "__main__":
    main()
