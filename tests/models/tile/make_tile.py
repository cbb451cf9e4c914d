"""TILE models (tests/models/tile/): Keras RepeatVector and tf.tile, float32.

TFLM has no TILE, and LiteRT 2.3's reference resolver has only its float version (the
converter's int8 TILE is version 3), so these are float32; LiteRT BUILTIN_REF is the judge.

    python tests/models/tile/make_tile.py [--only NAME] [--no-tflm]
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/models, for make_models

import make_models as mm  # noqa: E402

tf, K, L = mm.tf, mm.K, mm.L


def repeat_lstm():
    model = K.Sequential([K.Input((9,), batch_size=1), L.Dense(5), L.RepeatVector(4),
                          L.LSTM(6)])
    for layer in model.layers:
        mm.numpy_weights(layer, mm.seed_of("tile_repeat_vector_lstm" + layer.name))
    return model


# name, description, object to convert, input specs
MODELS = [
    ("tile_repeat_vector_lstm_float32", "Dense(5), RepeatVector(4), LSTM(6) on 1x9",
     repeat_lstm, [((1, 9), tf.float32)]),
    ("tile_2x1x3_float32", "tf.tile(x, [2, 1, 3]) on 2x3x5", lambda: (lambda x: tf.tile(x, [2, 1, 3])),
     [((2, 3, 5), tf.float32)]),
]


def main(argv):
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    zoo = mm.Zoo(only=only, tflm="--no-tflm" not in argv, out_dir=HERE)
    for name, desc, make, specs in MODELS:
        if not zoo.wanted(name):
            continue
        mm.fresh_session(mm.seed_of(name))
        data = mm.convert(make(), specs, mm.F32, mm.seed_of(name))
        ops, ins, outs = mm.check_model(data, "TILE", mm.F32)
        zoo.save(name, data, "TILE", mm.F32, "single_op", desc,
                 {"inputs": [list(s) for s, _ in specs]}, ops, ins, outs)
    entries = zoo.write_manifest("tests/models/tile/make_tile.py")
    print(f"{len(entries)} models, {sum(e['size'] for e in entries)} bytes in "
          "tests/models/tile")


if __name__ == "__main__":
    main(sys.argv[1:])
