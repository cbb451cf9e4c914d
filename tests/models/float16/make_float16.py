"""Float16-weight models (post-training float16 quantization) (tests/models/float16/).

TensorFlow's float16 quantization (Optimize.DEFAULT with supported_types [float16]) stores
weights as float16 constants, each read through a DEQUANTIZE. A recurrent layer's initial
states become DEQUANTIZEs of float16 zeros into variable tensors, which the LSTM then updates
in place: LiteRT dequantizes a constant once, so the state carries over from invoke to invoke
as in the float32 model. tests/test_golden.py runs three samples in a row on one interpreter
(and again after a reset), so these models check that carry-over.

    python tests/models/float16/make_float16.py [--only NAME] [--no-tflm]
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/models, for make_models

import make_models as mm  # noqa: E402

tf, K, L = mm.tf, mm.K, mm.L

# name, description, model factory, the op that must be in the model
MODELS = [
    ("lstm_u5_t6_i3_float16", "LSTM(5) over 6 steps of 3 features, last output",
     lambda: K.Sequential([K.Input((6, 3), batch_size=1), L.LSTM(5)]),
     "UNIDIRECTIONAL_SEQUENCE_LSTM"),
    ("lstm_u7_t4_i5_b2_seq_float16", "LSTM(7) over 4 steps of 5 features, batch 2, sequences",
     lambda: K.Sequential([K.Input((4, 5), batch_size=2), L.LSTM(7, return_sequences=True)]),
     "UNIDIRECTIONAL_SEQUENCE_LSTM"),
    ("conv_dense_float16", "Conv2D(6, 3) + ReLU, flatten, Dense(4) on 7x7x3",
     lambda: K.Sequential([K.Input((7, 7, 3), batch_size=1),
                           L.Conv2D(6, 3, activation="relu"), L.Flatten(), L.Dense(4)]),
     "CONV_2D"),
]


def convert(model) -> bytes:
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.target_spec.supported_types = [tf.float16]
    return conv.convert()


def main(argv):
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    zoo = mm.Zoo(only=only, tflm="--no-tflm" not in argv, out_dir=HERE)
    for name, desc, make, target in MODELS:
        if not zoo.wanted(name):
            continue
        mm.fresh_session(mm.seed_of(name))
        model = make()
        for layer in model.layers:
            mm.numpy_weights(layer, mm.seed_of(name + layer.name))
        data = convert(model)
        ops, ins, outs = mm.check_model(data, target, mm.F32)
        if "DEQUANTIZE" not in ops:
            raise ValueError(f"{name}: no float16 weights (ops {ops})")
        zoo.save(name, data, None, "float16", "net", desc,
                 {"params": int(model.count_params())}, ops, ins, outs)
    entries = zoo.write_manifest("tests/models/float16/make_float16.py")
    print(f"{len(entries)} models, {sum(e['size'] for e in entries)} bytes in "
          "tests/models/float16")


if __name__ == "__main__":
    main(sys.argv[1:])
