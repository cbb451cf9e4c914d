#!/usr/bin/env python3
"""Generate tests/models/strings/: models with STRING tensors, as LiteRT's interpreter tests
use them (tests/test_strings.py).

    python tests/models/strings/make_strings.py

  gather_string        GATHER of a [10] string input by a [3] int64 input -> [3] strings
                       (the shape of LiteRT's testString model)
  gather_string_const  GATHER of a constant [5] string vocabulary (an empty string and one
                       with a NUL among them) by a [4] int32 input
  gather_string_0d     a 0-d string input, RESHAPE to [1], GATHER [0, 0] -> [2] strings

The TensorFlow converter writes GATHER of strings for 1-D params only (TFLite's kernel takes
nothing else). There is no MANIFEST.json: the zoo's golden tests feed random numeric inputs,
which a string input cannot take; test_strings.py compares these models with LiteRT itself.
Needs TensorFlow; CI never runs it, the generated files are committed.
"""

from __future__ import annotations

import os

import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
VOCAB = ["zero", "one", "", "three\x00x", "four"]


def convert(fn, specs) -> bytes:
    concrete = tf.function(fn, input_signature=specs).get_concrete_function()
    return tf.lite.TFLiteConverter.from_concrete_functions([concrete]).convert()


def main() -> None:
    vocab = tf.constant(VOCAB)
    models = {
        "gather_string": convert(lambda p, i: tf.gather(p, i),
                                 [tf.TensorSpec([10], tf.string, name="input"),
                                  tf.TensorSpec([3], tf.int64, name="indices")]),
        "gather_string_const": convert(lambda i: tf.gather(vocab, i),
                                       [tf.TensorSpec([4], tf.int32, name="indices")]),
        "gather_string_0d": convert(lambda p: tf.gather(tf.reshape(p, [1]), [0, 0]),
                                    [tf.TensorSpec([], tf.string, name="input")]),
    }
    for name, data in models.items():
        with open(os.path.join(HERE, name + ".tflite"), "wb") as f:
            f.write(data)
        print(f"  ok   {name + '.tflite':<28} {len(data):>5} B")


if __name__ == "__main__":
    main()
