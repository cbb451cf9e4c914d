"""A microWakeWord-like streaming model for benchmarks/bench_invoke.py: int8 ring buffers
kept by STRIDED_SLICE (drop the oldest frame, keep every other frame) and CONCATENATION
(append the new one) over [1, T, 1, C] features, the ops that take most of such a model's
time in picolite's portable kernels.

    python benchmarks/make_streaming_like.py [OUT_DIR]   (default build/bench_models)

Needs the tflite-micro wheel (its schema module writes the flatbuffer).
"""

import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from tflm_models import Model  # noqa: E402

Q = (0.05, 0)


def streaming(frames=24, channels=64, stages=6):
    m = Model()
    S = m.S

    def const(values):
        return m.tensor([len(values)], "int32", data=np.array(values, np.int32))

    def slice_(x, shape, begin, end, strides):
        out = [(e - b + s - 1) // s for b, e, s in zip(begin, end, strides)]
        y = m.tensor(out, "int8", Q)
        m.op("STRIDED_SLICE", [x, const(begin), const(end), const(strides)], [y],
             S.StridedSliceOptionsT())
        return y, out

    new = m.tensor([1, 1, 1, channels], "int8", Q)
    state = m.tensor([1, frames, 1, channels], "int8", Q)
    x, shape, outputs = state, [1, frames, 1, channels], []
    for _ in range(stages):
        kept, kshape = slice_(x, shape, [0, 1, 0, 0], shape, [1, 1, 1, 1])
        ring = m.tensor(shape, "int8", Q)
        opt = S.ConcatenationOptionsT()
        opt.axis = 1
        m.op("CONCATENATION", [kept, new], [ring], opt)
        x = ring
        outputs.append(ring)
    half, _ = slice_(x, shape, [0, 0, 0, 0], shape, [1, 2, 1, 1])
    m.io([new, state], outputs + [half])
    return m.bytes()


def main(argv):
    out = pathlib.Path(argv[0]) if argv else ROOT / "build" / "bench_models"
    out.mkdir(parents=True, exist_ok=True)
    path = out / "streaming_ring_int8.tflite"
    path.write_bytes(streaming())
    print(path)


if __name__ == "__main__":
    main(sys.argv[1:])
