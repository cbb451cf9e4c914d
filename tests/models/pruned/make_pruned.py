"""Models with pruned (all-zero) output channels (tests/models/pruned/).

Structured pruning leaves whole filters at zero. TensorFlow's 16x8 quantizer then gives
such a channel weight scale 0 and bias scale 0; LiteRT and TFLM run it (the channel's
multiplier is 0, its output the zero point). int8 and float32 versions of the same nets go
along. LiteRT BUILTIN_REF is the judge.

    python tests/models/pruned/make_pruned.py [--only NAME] [--no-tflm]
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/models, for make_models

import make_models as mm  # noqa: E402

tf, K, L = mm.tf, mm.K, mm.L


def conv():
    return L.Conv2D(8, 3, padding="same", activation="relu")


def depthwise():
    return L.DepthwiseConv2D(3, padding="same")


def dense():
    return L.Dense(9)


# name, description, input shape (with batch), layer factory, target op, pruned channels
MODELS = [
    ("conv_k3_c6_8_pruned", "Conv2D 3x3 6 -> 8, relu, channels 0, 3 and 7 zero", (1, 9, 9, 6),
     conv, "CONV_2D", [0, 3, 7]),
    ("depthwise_k3_c6_pruned", "DepthwiseConv2D 3x3 on 6 channels, channels 2 and 5 zero",
     (1, 9, 9, 6), depthwise, "DEPTHWISE_CONV_2D", [2, 5]),
    ("dense_20_9_pruned", "Dense 20 -> 9, outputs 0 and 4 zero", (2, 20), dense,
     "FULLY_CONNECTED", [0, 4]),
]


def prune(layer, channels):
    w = layer.get_weights()
    if isinstance(layer, L.DepthwiseConv2D):
        w[0][:, :, channels, :] = 0
    else:
        w[0][..., channels] = 0
    w[1][channels] = 0
    layer.set_weights(w)


def main(argv):
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    zoo = mm.Zoo(only=only, tflm="--no-tflm" not in argv, out_dir=HERE)
    for base, desc, shape, make, target, channels in MODELS:
        for qtype in (mm.F32, mm.I8, mm.I16):
            name = f"{base}_{qtype}"
            if not zoo.wanted(name):
                continue
            mm.fresh_session(mm.seed_of(base))
            x = i = K.Input(shape[1:], batch_size=shape[0])
            lay = make()
            model = K.Model(i, lay(x))
            mm.numpy_weights(lay, mm.seed_of(base))
            prune(lay, channels)
            data = mm.convert(model, [(shape, tf.float32)], qtype, mm.seed_of(base) ^ 0x5EED)
            ops, ins, outs = mm.check_model(data, target, qtype)
            zoo.save(name, data, target, qtype, "single_op", desc,
                     {"input": list(shape), "pruned": channels}, ops, ins, outs)
    entries = zoo.write_manifest("tests/models/pruned/make_pruned.py")
    print(f"{len(entries)} models, {sum(e['size'] for e in entries)} bytes in "
          "tests/models/pruned")


if __name__ == "__main__":
    main(sys.argv[1:])
