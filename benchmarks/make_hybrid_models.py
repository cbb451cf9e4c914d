"""Write hybrid (dynamic-range quantized) models as .tflite files for bench_invoke.py (not
committed: the converter makes them in a minute).

    python benchmarks/make_hybrid_models.py OUT_DIR [NAME ...]
    python benchmarks/bench_invoke.py OUT_DIR/*.tflite --n 500

TensorFlow's default optimization with no representative dataset keeps activations and I/O
float32 and stores weights of 1024 or more elements as int8 (a scale per output channel, or
one with per-channel quantization disabled): the kernels quantize their input on the fly.
Weights are random. Needs TensorFlow (`pip install tensorflow-cpu`).
"""

import pathlib
import sys

import tensorflow as tf

L = tf.keras.layers


def anomaly(batch=1):
    """MLPerf Tiny's anomaly detection autoencoder: 640 -> 4 x 128 -> 8 -> 4 x 128 -> 640."""
    x = inp = L.Input((640,), batch_size=batch)
    for units in (128, 128, 128, 128, 8, 128, 128, 128, 128):
        x = L.Dense(units, activation="relu")(x)
    return tf.keras.Model(inp, L.Dense(640)(x))


def convnet():
    """Three 3x3 convolutions (the first 8 -> 32 channels) on 32x32, a depthwise one between."""
    x = inp = L.Input((32, 32, 8), batch_size=1)
    x = L.Conv2D(32, 3, padding="same", activation="relu")(x)
    x = L.Conv2D(64, 3, strides=2, padding="same", activation="relu")(x)
    x = L.DepthwiseConv2D(3, padding="same", activation="relu6")(x)
    x = L.Conv2D(64, 3, padding="same")(x)
    return tf.keras.Model(inp, x)


def depthwise():
    """Depthwise 3x3 on 128 channels (1152 weights: quantized) at 24x24, then 5x5 on 128."""
    x = inp = L.Input((24, 24, 128), batch_size=1)
    x = L.DepthwiseConv2D(3, padding="same", activation="relu")(x)
    x = L.DepthwiseConv2D(5, padding="same", use_bias=False)(x)
    return tf.keras.Model(inp, x)


# name: (builder, per-channel weights)
MODELS = {
    "hybrid_anomaly": (anomaly, True),
    "hybrid_anomaly_per_tensor": (anomaly, False),
    "hybrid_anomaly_batch4": (lambda: anomaly(4), True),
    "hybrid_convnet": (convnet, True),
    "hybrid_depthwise": (depthwise, True),
}


def convert(model, per_channel: bool) -> bytes:
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    if not per_channel:
        converter._experimental_disable_per_channel = True
    return converter.convert()


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    out = pathlib.Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for name in argv[1:] or MODELS:
        if name not in MODELS:
            sys.exit(f"unknown model {name!r}; choose from {', '.join(MODELS)}")
        tf.keras.utils.set_random_seed(0)
        builder, per_channel = MODELS[name]
        (out / f"{name}.tflite").write_bytes(convert(builder(), per_channel))
        print("wrote", name, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
