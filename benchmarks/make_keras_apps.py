"""Write Keras application models as .tflite files for bench_invoke.py (not committed: 1-15 MB
each, and the converter makes them in minutes).

    python benchmarks/make_keras_apps.py OUT_DIR [NAME ...]
    python benchmarks/bench_invoke.py OUT_DIR/*.tflite --n 20

Each model is written in float32 and full-integer int8 (int8 input and output, calibrated on
8 uniform [-1, 1) samples). Weights are random (weights=None: nothing is downloaded) and the
classifier has no softmax: with random weights an int8 softmax's input scale is so small that
LiteRT and TFLM abort on it (picolite refuses it: "beta * input scale too small"). Needs
TensorFlow (`pip install tensorflow-cpu`).
"""

import pathlib
import sys

import numpy as np
import tensorflow as tf

APPS = tf.keras.applications
# name: (application, input side, extra arguments)
MODELS = {
    "mnv2_224": (APPS.MobileNetV2, 224, {"alpha": 1.0}),
    "mnv2_96": (APPS.MobileNetV2, 96, {"alpha": 0.35}),
    "mnv3s_96": (APPS.MobileNetV3Small, 96, {}),
    "effb0_96": (APPS.EfficientNetB0, 96, {}),
    "resnet50_64": (APPS.ResNet50, 64, {}),
    "densenet121_64": (APPS.DenseNet121, 64, {}),
}


def build(name):
    app, side, extra = MODELS[name]
    return app(input_shape=(side, side, 3), weights=None, classifier_activation=None, **extra)


def convert(model, int8: bool) -> bytes:
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    if int8:
        shape = (1,) + tuple(model.input_shape[1:])

        def calibration():
            rng = np.random.default_rng(0)
            for _ in range(8):
                yield [rng.uniform(-1, 1, shape).astype(np.float32)]

        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = calibration
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = tf.int8
        converter.inference_output_type = tf.int8
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
        model = build(name)
        for kind in ("float32", "int8"):
            (out / f"{name}_{kind}.tflite").write_bytes(convert(model, kind == "int8"))
        print("wrote", name, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
