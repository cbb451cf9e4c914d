"""Single-op models of TFLM's custom operators outside the Signal library.

Written like tests/models/signal/make_signal.py (the TFLite schema's object API, options as a
FlexBuffer map) and judged by TFLM's interpreter ("oracle": "tflm"). CIRCULAR_BUFFER keeps
its output as state: the older slots start as whatever the arena held, so its entries say
"warmup": the number of invokes after which every slot holds an input, and tests compare from
there on.

    python tests/models/custom/make_custom.py
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/models, for make_models
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "signal"))

import make_models  # noqa: E402
import make_signal  # noqa: E402
from make_signal import S, Graph  # noqa: E402


def circular_buffer(zoo, slots, height, depth):
    g = Graph()
    i = g.tensor("in", [1, 1, height, depth], np.int16)
    o = g.tensor("out", [1, slots, height, depth], np.int16)
    for t in (i, o):
        g.tensors[t].type = S.TensorType.INT8
    options = {"cycles_max": 1}
    data = g.model("CIRCULAR_BUFFER", options, [i], [o])
    make_signal.tflm_runs(data)
    io = [{"name": "in", "shape": [1, 1, height, depth], "dtype": "int8"}]
    out = [{"name": "out", "shape": [1, slots, height, depth], "dtype": "int8"}]
    zoo.save(f"circular_buffer_{slots}x{height}x{depth}", data, "CIRCULAR_BUFFER", "int8",
             "custom", "single CIRCULAR_BUFFER (int8)", options, ["CIRCULAR_BUFFER"], io, out,
             extra={"oracle": "tflm", "warmup": slots, "tflm": {"status": "warmup"}})


if __name__ == "__main__":
    zoo = make_models.Zoo(out_dir=HERE, tflm=False)
    circular_buffer(zoo, 3, 1, 8)
    circular_buffer(zoo, 5, 2, 16)
    zoo.write_manifest("tests/models/custom/make_custom.py")
