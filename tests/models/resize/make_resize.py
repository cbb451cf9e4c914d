#!/usr/bin/env python3
"""Generate tests/models/resize/: small Keras models with a dynamic batch dimension
(shape_signature [-1, ...]) for resize_tensor_input (tests/test_resize.py).

    python tests/models/resize/make_resize.py [--no-tflm]

Keras 2 (tf-keras) and Keras 3 models, float32 and int8 (int8 I/O), converted by the
installed TensorFlow with the zoo's converter settings (make_models.convert), each checked to
keep the -1 batch in its input's shape_signature:

- mlp: Dense 16 -> 12 (relu) -> 4
- cnn: Conv2D 4x3x3 (relu) on 8x8x1 -> MaxPool 2 -> Flatten -> Dense 3. tf-keras flattens with
  a constant RESHAPE; Keras 3 computes the new shape at run time (SHAPE -> STRIDED_SLICE ->
  PACK -> RESHAPE), which picolite evaluates at prepare once the batch is resized.

An LSTM does not convert with a dynamic batch (TensorFlow 2.21: 'tf.TensorListReserve' op
requires element_shape to be static), in Keras 2 or 3: the attempt is recorded under
"dropped". A model using an operator this picolite build lacks is listed under "pending"
(with the operators) instead of "models", so the zoo-wide golden tests skip it; rerun this
script once the operator lands. Deterministic like make_models.py (seeded weights and data).
"""

from __future__ import annotations

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/models, for make_models

import make_models as mm  # noqa: E402  (sets TF_USE_LEGACY_KERAS: tf.keras is tf-keras)

tf = mm.tf
K2, L2 = mm.K, mm.L

import keras as K3  # noqa: E402  (Keras 3, whatever TF_USE_LEGACY_KERAS says)


def keras2_mlp():
    return K2.Sequential([L2.Input((16,)),
                          L2.Dense(12, activation="relu", bias_initializer=mm.bias_init()),
                          L2.Dense(4, bias_initializer=mm.bias_init())])


def keras2_cnn():
    return K2.Sequential([L2.Input((8, 8, 1)),
                          L2.Conv2D(4, 3, activation="relu", bias_initializer=mm.bias_init()),
                          L2.MaxPooling2D(2), L2.Flatten(),
                          L2.Dense(3, bias_initializer=mm.bias_init())])


def keras2_lstm():
    return K2.Sequential([L2.Input((5, 3)), L2.LSTM(4), L2.Dense(2)])


def k3_bias():
    return K3.initializers.RandomUniform(-0.5, 0.5)


def keras3_mlp():
    return K3.Sequential([K3.layers.Input((16,)),
                          K3.layers.Dense(12, activation="relu", bias_initializer=k3_bias()),
                          K3.layers.Dense(4, bias_initializer=k3_bias())])


def keras3_cnn():
    return K3.Sequential([K3.layers.Input((8, 8, 1)),
                          K3.layers.Conv2D(4, 3, activation="relu",
                                           bias_initializer=k3_bias()),
                          K3.layers.MaxPooling2D(2), K3.layers.Flatten(),
                          K3.layers.Dense(3, bias_initializer=k3_bias())])


def keras3_lstm():
    return K3.Sequential([K3.layers.Input((5, 3)), K3.layers.LSTM(4), K3.layers.Dense(2)])


MODELS = [
    # name, factory, Keras major version, input shape without the batch
    ("keras2_mlp", keras2_mlp, 2, (16,)),
    ("keras2_cnn", keras2_cnn, 2, (8, 8, 1)),
    ("keras2_lstm", keras2_lstm, 2, (5, 3)),
    ("keras3_mlp", keras3_mlp, 3, (16,)),
    ("keras3_cnn", keras3_cnn, 3, (8, 8, 1)),
    ("keras3_lstm", keras3_lstm, 3, (5, 3)),
]


_zoo_converter_for = mm.converter_for


def converter_for(obj, specs):
    """The zoo's converter, with Keras 3 models through from_keras_model (as a plain function
    their variables would stay resource variables)."""
    if isinstance(obj, K3.Model):
        return tf.lite.TFLiteConverter.from_keras_model(obj)
    return _zoo_converter_for(obj, specs)


mm.converter_for = converter_for  # make_models.convert looks it up at call time


def make(name, factory, keras, shape, qtype):
    seed = mm.seed_of("resize_" + name)
    if keras == 2:
        mm.fresh_session(seed)
    else:
        K3.backend.clear_session()
        K3.utils.set_random_seed(seed)
    model = factory()
    specs = [((None,) + shape, tf.float32)]
    data = mm.convert(model, specs, qtype, seed ^ 0x5EED)
    ops, ins, outs = mm.check_model(data, None, qtype)
    from ai_edge_litert.interpreter import Interpreter
    sig = Interpreter(model_content=data).get_input_details()[0]["shape_signature"]
    if int(sig[0]) != -1:
        raise ValueError(f"the converter fixed the batch: shape_signature {list(sig)}")
    return data, ops, ins, outs, int(model.count_params())


def missing_ops(data):
    """The operators this picolite build refuses (UnsupportedOpError), or []."""
    import picolite
    missing = []
    try:
        picolite.Interpreter(model_content=data).allocate_tensors()
    except picolite.UnsupportedOpError as e:
        missing.append(e.op_name)
    return missing


def main(argv):
    zoo = mm.Zoo(tflm="--no-tflm" not in argv, out_dir=HERE)
    for f in os.listdir(HERE):
        if f.endswith(".tflite"):
            os.remove(os.path.join(HERE, f))
    pending = {}
    for name, factory, keras, shape in MODELS:
        for qtype in (mm.F32, mm.I8):
            full = f"{name}_{qtype}"
            try:
                data, ops, ins, outs, params = make(name, factory, keras, shape, qtype)
            except Exception as e:  # noqa: BLE001
                lines = [m for m in str(e).strip().splitlines() if m.strip()]
                reason = next((m for m in lines if "error" in m.lower()), lines[-1] if lines
                              else "?")
                op = re.search(r"'tf\.\w+' op [^\n]*", str(e))  # no source locations
                reason = "error: " + op.group(0) if op else reason.strip()
                zoo.dropped.append({"name": full, "type": qtype, "reason": reason[:300]})
                print(f"  DROP {full}: {reason.strip()[:160]}", flush=True)
                continue
            desc = (f"Keras {keras} {name.split('_')[1]} with a dynamic batch "
                    f"(input shape_signature [-1, {', '.join(map(str, shape))}])")
            zoo.save(full, data, None, qtype, "net", desc,
                     {"keras": keras, "params": params, "input_signature": [-1, *shape]},
                     ops, ins, outs)
            need = missing_ops(data)
            if need:
                pending[zoo.entries[-1]["file"]] = need
    zoo.write_manifest("tests/models/resize/make_resize.py")
    path = os.path.join(HERE, "MANIFEST.json")
    with open(path) as f:
        manifest = json.load(f)
    manifest["pending"] = [dict(e, needs=pending[e["file"]]) for e in manifest["models"]
                           if e["file"] in pending]
    manifest["models"] = [e for e in manifest["models"] if e["file"] not in pending]
    mm.write_manifest(path, manifest)
    print(f"{len(manifest['models'])} models, {len(manifest['pending'])} pending, "
          f"{len(zoo.dropped)} dropped")


if __name__ == "__main__":
    main(sys.argv[1:])
