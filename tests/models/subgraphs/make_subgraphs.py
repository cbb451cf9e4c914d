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

    python tests/models/subgraphs/make_subgraphs.py [--no-tflm]

Needs TensorFlow, ai-edge-litert and (for the cross checks) tflite-micro; CI never runs it,
the generated files are committed. Inputs of the representative datasets come from numpy
RandomState, so rerunning gives the same bytes with the same TensorFlow.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/models, for make_models

import numpy as np  # noqa: E402

import make_models as mm  # noqa: E402

tf = mm.tf

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
        zoo.save(name, data, target, qtype, "subgraphs", desc, {}, ops, ins, outs)


def main():
    args = sys.argv[1:]
    zoo = mm.Zoo(tflm="--no-tflm" not in args, out_dir=HERE)
    build(zoo)
    zoo.write_manifest("tests/models/subgraphs/make_subgraphs.py")


if __name__ == "__main__":
    main()
