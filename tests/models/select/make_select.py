"""SELECT (version one) models (tests/models/select/).

Keras's SELU activation converts to GREATER, EXP, MUL, SUB and a SELECT (version one, not
SELECT_V2) of two same-shaped tensors; tf.compat.v1.where with a vector condition selects
whole rows (LiteRT's RankOneSelect). Converted to float32 and int8 (as make_models.py does);
LiteRT BUILTIN_REF is the judge.

    python tests/models/select/make_select.py [--only NAME] [--no-tflm]
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/models, for make_models

import make_models as mm  # noqa: E402

tf, K, L = mm.tf, mm.K, mm.L


def selu(shape):
    return K.Sequential([K.Input(shape[1:], batch_size=shape[0]), L.Activation("selu")])


def rows(x):
    """Rows of x whose first element is positive, else those rows negated."""
    return tf.compat.v1.where(x[:, 0] > 0.0, x, -x)


# name, description, object to convert, input specs
MODELS = [
    ("selu_1x4x9", "Keras Activation('selu') on 1x4x9", selu((1, 4, 9)), [((1, 4, 9), tf.float32)]),
    ("where_rows_5x6", "tf.compat.v1.where with a vector condition on 5x6 (row choice)", rows,
     [((5, 6), tf.float32)]),
]


def main(argv):
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    zoo = mm.Zoo(only=only, tflm="--no-tflm" not in argv, out_dir=HERE)
    for base, desc, obj, specs in MODELS:
        for qtype in (mm.F32, mm.I8):
            name = f"{base}_{qtype}"
            if not zoo.wanted(name):
                continue
            mm.fresh_session(mm.seed_of(name))
            data = mm.convert(obj, specs, qtype, mm.seed_of(name) ^ 0x5EED)
            ops, ins, outs = mm.check_model(data, "SELECT", qtype)
            zoo.save(name, data, "SELECT", qtype, "single_op", desc,
                     {"inputs": [list(s) for s, _ in specs]}, ops, ins, outs)
    entries = zoo.write_manifest("tests/models/select/make_select.py")
    print(f"{len(entries)} models, {sum(e['size'] for e in entries)} bytes in "
          "tests/models/select")


if __name__ == "__main__":
    main(sys.argv[1:])
