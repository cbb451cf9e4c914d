"""Hybrid (dynamic-range) models beyond make_models.py's CONV_2D and FULLY_CONNECTED ones
(tests/models/hybrid/).

TensorFlow's default optimization without a representative dataset (Optimize.DEFAULT alone)
stores weights of 1024 or more elements as int8 with a scale per output channel (one scale
when per-channel quantization is disabled) and keeps activations float: LiteRT quantizes
each batch of the input on the fly, asymmetrically for DEPTHWISE_CONV_2D
(EvalHybridPerChannel) and TRANSPOSE_CONV (EvalHybrid). LiteRT BUILTIN_REF is the judge.

    python tests/models/hybrid/make_hybrid.py [--only NAME] [--no-tflm]
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/models, for make_models

import make_models as mm  # noqa: E402

tf, K, L = mm.tf, mm.K, mm.L

DW, TC = "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV"

# name, description, input shape (with batch), layer factory[, target, per-channel weights]
MODELS = [
    ("depthwise_k3_c128_same_hybrid", "DepthwiseConv2D 3x3, 128 channels, same",
     (1, 5, 6, 128), lambda: L.DepthwiseConv2D(3, padding="same")),
    ("depthwise_k3_m2_c64_s2_valid_relu6_batch2_hybrid",
     "DepthwiseConv2D 3x3, depth multiplier 2, 64 channels, stride 2, valid, relu6, batch 2",
     (2, 7, 7, 64), lambda: L.DepthwiseConv2D(3, strides=2, depth_multiplier=2,
                                               activation="relu6")),
    ("depthwise_k5_c48_d2_same_nobias_hybrid",
     "DepthwiseConv2D 5x5, 48 channels, dilation 2, same, no bias", (1, 9, 9, 48),
     lambda: L.DepthwiseConv2D(5, dilation_rate=2, padding="same", use_bias=False)),
    ("transpose_conv_k3_s2_same_c8_16_hybrid", "Conv2DTranspose 3x3, 8 -> 16, stride 2, same",
     (1, 5, 4, 8), lambda: L.Conv2DTranspose(16, 3, strides=2, padding="same"), TC),
    ("transpose_conv_k4_s2_valid_c9_12_relu_batch2_hybrid_per_tensor",
     "Conv2DTranspose 4x4, 9 -> 12, stride 2, valid, relu, batch 2, one weight scale",
     (2, 3, 5, 9), lambda: L.Conv2DTranspose(12, 4, strides=2, activation="relu"), TC, False),
    ("transpose_conv_k3_s1_same_c16_8_nobias_hybrid",
     "Conv2DTranspose 3x3, 16 -> 8, stride 1, same, no bias", (1, 6, 6, 16),
     lambda: L.Conv2DTranspose(8, 3, padding="same", use_bias=False), TC),
]


def main(argv):
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    zoo = mm.Zoo(only=only, tflm="--no-tflm" not in argv, out_dir=HERE)
    for name, desc, shape, layer, *rest in MODELS:
        target, per_channel = (list(rest) + [DW, True][len(rest):])[:2]
        if not zoo.wanted(name):
            continue
        mm.fresh_session(mm.seed_of(name))
        x = i = K.Input(shape[1:], batch_size=shape[0])
        lay = layer()
        model = K.Model(i, lay(x))
        mm.numpy_weights(lay, mm.seed_of(name))
        conv = tf.lite.TFLiteConverter.from_keras_model(model)
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        if not per_channel:
            conv._experimental_disable_per_channel = True
        data = conv.convert()
        ops, ins, outs = mm.check_model(data, target, mm.F32)
        if ops != [target]:
            raise ValueError(f"{name}: not a hybrid {target} (ops {ops})")
        scales = "a scale per channel" if per_channel else "one scale"
        zoo.save(name, data, target, "hybrid", "single_op",
                 f"single {target}, hybrid: float I/O, int8 weights with {scales} ({desc})",
                 {"input": list(shape), "per_channel": per_channel}, ops, ins, outs)
    entries = zoo.write_manifest("tests/models/hybrid/make_hybrid.py")
    print(f"{len(entries)} models, {sum(e['size'] for e in entries)} bytes in "
          "tests/models/hybrid")


if __name__ == "__main__":
    main(sys.argv[1:])
