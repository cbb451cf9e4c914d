"""GELU models (tests/models/gelu/): tf.nn.gelu, exact (erfc) and approximate (tanh).

Converted to float32, int8 and 16x8 as make_models.py does; the quantized kernels are
TFLite's tables of the float function (256 entries for int8, 513 interpolated for int16).
TFLM has no GELU; LiteRT BUILTIN_REF is the judge.

    python tests/models/gelu/make_gelu.py [--only NAME] [--no-tflm]
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/models, for make_models

import make_models as mm  # noqa: E402

tf = mm.tf

SHAPE = (1, 6, 33)
MODELS = [
    ("gelu_exact", "tf.nn.gelu(x) (erfc form) on 1x6x33", False),
    ("gelu_approximate", "tf.nn.gelu(x, approximate=True) (tanh form) on 1x6x33", True),
]


def main(argv):
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    zoo = mm.Zoo(only=only, tflm="--no-tflm" not in argv, out_dir=HERE)
    for base, desc, approximate in MODELS:
        for qtype in (mm.F32, mm.I8, mm.I16):
            name = f"{base}_{qtype}"
            if not zoo.wanted(name):
                continue
            mm.fresh_session(mm.seed_of(name))
            fn = (lambda x, a=approximate: tf.nn.gelu(x * 3.0, approximate=a))
            data = mm.convert(fn, [(SHAPE, tf.float32)], qtype, mm.seed_of(name) ^ 0x5EED)
            ops, ins, outs = mm.check_model(data, "GELU", qtype)
            zoo.save(name, data, "GELU", qtype, "single_op", desc,
                     {"input": list(SHAPE), "approximate": approximate}, ops, ins, outs)
    entries = zoo.write_manifest("tests/models/gelu/make_gelu.py")
    print(f"{len(entries)} models, {sum(e['size'] for e in entries)} bytes in "
          "tests/models/gelu")


if __name__ == "__main__":
    main(sys.argv[1:])
