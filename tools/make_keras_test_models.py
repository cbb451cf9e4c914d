"""Write the small Keras models behind tests/goldens/tflm/keras-*.json (not run by the tests:
the models are committed in tests/goldens/tflm/models/, their goldens come from TFLM's own
firmware under ../shared/tflm-oracle).

    python tools/make_keras_test_models.py OUT_DIR

A DS-CNN keyword spotter (int8 and 16x8), a dense autoencoder, a Conv1D audio classifier, a
two-head self-attention block with LayerNormalization (int8 and float32), and a residual
CNN (int8 and 16x8). Weights are random (nothing is downloaded); int8 and 16x8 models are
calibrated on 8 uniform [-1, 1) samples. Needs TensorFlow.
"""

import pathlib
import sys

import numpy as np
import tensorflow as tf

K = tf.keras
L = K.layers
RNG = np.random.default_rng(0)


def convert(model, shape, path, mode):
    c = tf.lite.TFLiteConverter.from_keras_model(model)
    if mode != "float32":
        c.optimizations = [tf.lite.Optimize.DEFAULT]
        c.representative_dataset = lambda: (
            [RNG.uniform(-1, 1, (1,) + shape).astype(np.float32)] for _ in range(8))
        if mode == "int8":
            c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
            c.inference_input_type = c.inference_output_type = tf.int8
        else:
            c.target_spec.supported_ops = [
                tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
            c.inference_input_type = c.inference_output_type = tf.int16
    path.write_bytes(c.convert())


def ds_cnn():
    x = K.Input((49, 10, 1))
    y = L.Conv2D(32, (10, 4), strides=(2, 2), padding="same", activation="relu")(x)
    for _ in range(2):
        y = L.DepthwiseConv2D(3, padding="same", activation="relu")(y)
        y = L.Conv2D(32, 1, activation="relu")(y)
    y = L.Flatten()(L.AveragePooling2D((5, 5))(y))
    return K.Model(x, L.Softmax()(L.Dense(12)(y))), (49, 10, 1)


def autoencoder():
    x = K.Input((64,))
    y = x
    for units in (128, 32, 8, 32, 128):
        y = L.Dense(units, activation="relu")(y)
    return K.Model(x, L.Dense(64)(y)), (64,)


def conv1d_audio():
    x = K.Input((40, 16))
    y = L.Conv1D(24, 3, padding="same", activation="relu")(x)
    y = L.Conv1D(24, 3, strides=2, padding="same", activation="relu")(y)
    y = L.GlobalAveragePooling1D()(L.MaxPooling1D(2)(y))
    return K.Model(x, L.Dense(4)(y)), (40, 16)


def attention():
    x = K.Input((8, 16), batch_size=1)
    y = L.MultiHeadAttention(num_heads=2, key_dim=8)(x, x)
    y = L.LayerNormalization()(L.Add()([y, x]))
    return K.Model(x, L.Dense(16, activation="relu")(y)), (8, 16)


def resnet_tiny():
    x = K.Input((32, 32, 3))
    s = L.Conv2D(16, 3, padding="same", activation="relu")(x)
    y = L.Conv2D(16, 3, padding="same", activation="relu")(s)
    y = L.ReLU()(L.Add()([L.Conv2D(16, 3, padding="same")(y), s]))
    y = L.Conv2D(32, 3, strides=2, padding="same", activation="relu")(y)
    y = L.GlobalAveragePooling2D()(L.MaxPooling2D()(y))
    return K.Model(x, L.Softmax()(L.Dense(10)(y))), (32, 32, 3)


MODELS = {"kws_dscnn": (ds_cnn, ("int8", "16x8")), "autoencoder": (autoencoder, ("int8",)),
          "conv1d_audio": (conv1d_audio, ("int8",)),
          "attention": (attention, ("int8", "float32")),
          "resnet_tiny": (resnet_tiny, ("int8", "16x8"))}

if __name__ == "__main__":
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build/keras_test_models")
    out.mkdir(parents=True, exist_ok=True)
    for name, (make, modes) in MODELS.items():
        model, shape = make()
        for mode in modes:
            convert(model, shape, out / f"{name}_{mode}.tflite", mode)
            print("wrote", name, mode)
