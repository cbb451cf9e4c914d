"""MediaPipe-like float models for benchmarks/bench_invoke.py: the layer mix of face detection
(BlazeFace: a strided 5x5 CONV_2D, then blocks of a 3x3 DEPTHWISE_CONV_2D and a 1x1 CONV_2D
with a residual ADD and RELU) and of face landmark (the same blocks with PRELU, alpha over
the channels), ending in FULLY_CONNECTED heads. Each comes twice: weights and biases as
float16 constants read through DEQUANTIZE (as MediaPipe ships them), and as float32
constants with the same values (so both compute the same bytes).

    python benchmarks/make_mediapipe_like.py [OUT_DIR]   (default build/bench_models)
    python benchmarks/bench_invoke.py build/bench_models/*.tflite --n 100

Needs the tflite-micro wheel (its schema module writes the flatbuffer).
"""

import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from tflm_models import Model  # noqa: E402


class Builder:
    """A float model whose constants are float16 behind DEQUANTIZE, or plain float32."""

    def __init__(self, float16, seed):
        self.m, self.f16, self.rng = Model(), float16, np.random.default_rng(seed)
        self.S = self.m.S
        self.m.types["float16"] = self.S.TensorType.FLOAT16

    def const(self, shape, scale):
        values = (self.rng.standard_normal(shape) * scale).astype(np.float16)
        if not self.f16:
            return self.m.tensor(shape, "float32", data=values.astype(np.float32))
        half = self.m.tensor(shape, "float16", data=values)
        out = self.m.tensor(shape, "float32")
        self.m.op("DEQUANTIZE", [half], [out])
        return out

    def act(self, shape):
        return self.m.tensor(shape, "float32")

    def conv(self, x, shape, cout, k, stride, relu=False):
        n, h, w, cin = shape
        f = self.const([cout, k, k, cin], (2.0 / (k * k * cin)) ** 0.5)
        b = self.const([cout], 0.1)
        opt = self.S.Conv2DOptionsT()
        opt.padding, opt.strideW, opt.strideH = self.S.Padding.SAME, stride, stride
        opt.fusedActivationFunction = 1 if relu else 0
        out = [n, -(-h // stride), -(-w // stride), cout]
        y = self.act(out)
        self.m.op("CONV_2D", [x, f, b], [y], opt)
        return y, out

    def depthwise(self, x, shape, stride):
        n, h, w, c = shape
        f = self.const([1, 3, 3, c], 0.4)
        b = self.const([c], 0.1)
        opt = self.S.DepthwiseConv2DOptionsT()
        opt.padding, opt.strideW, opt.strideH = self.S.Padding.SAME, stride, stride
        opt.depthMultiplier = 1
        out = [n, -(-h // stride), -(-w // stride), c]
        y = self.act(out)
        self.m.op("DEPTHWISE_CONV_2D", [x, f, b], [y], opt)
        return y, out

    def activation(self, x, shape, prelu):
        y = self.act(shape)
        if prelu:
            alpha = self.const([1, 1, shape[3]], 0.2)
            self.m.op("PRELU", [x, alpha], [y])
        else:
            self.m.op("RELU", [x], [y])
        return y

    def block(self, x, shape, cout, stride, prelu):
        """DEPTHWISE 3x3 + CONV 1x1 (+ the input when the shape stays) + the activation."""
        d, dshape = self.depthwise(x, shape, stride)
        y, out = self.conv(d, dshape, cout, 1, 1)
        if stride == 1 and cout == shape[3]:
            s = self.act(out)
            self.m.op("ADD", [y, x], [s], self.S.AddOptionsT())
            y = s
        return self.activation(y, out, prelu), out

    def head(self, x, shape, units):
        flat = [1, int(np.prod(shape))]
        r = self.act(flat)
        opt = self.S.ReshapeOptionsT()
        opt.newShape = flat
        self.m.op("RESHAPE", [x], [r], opt)
        w = self.const([units, flat[1]], flat[1] ** -0.5)
        b = self.const([units], 0.1)
        y = self.act([1, units])
        self.m.op("FULLY_CONNECTED", [r, w, b], [y], self.S.FullyConnectedOptionsT())
        return y


def face_detection(float16):
    """BlazeFace-like on 128x128x3: 24 -> 48 -> 96 channels down to 8x8, RELU."""
    b = Builder(float16, 1)
    shape = [1, 128, 128, 3]
    x = b.act(shape)
    y, s = b.conv(x, shape, 24, 5, 2, relu=True)
    for cout, stride in [(24, 1), (24, 1), (48, 2), (48, 1), (48, 1), (96, 2), (96, 1),
                         (96, 1), (96, 2), (96, 1), (96, 1)]:
        y, s = b.block(y, s, cout, stride, prelu=False)
    out = b.head(y, s, 16)
    b.m.io([x], [out])
    return b.m.bytes()


def face_landmark(float16):
    """Face-landmark-like on 192x192x3: 16 channels at 96x96 with PRELU, down to 6x6."""
    b = Builder(float16, 2)
    shape = [1, 192, 192, 3]
    x = b.act(shape)
    y, s = b.conv(x, shape, 16, 3, 2)
    y = b.activation(y, s, prelu=True)
    for cout, stride in [(16, 1), (16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2),
                         (128, 1), (128, 2), (128, 1)]:
        y, s = b.block(y, s, cout, stride, prelu=True)
    out = b.head(y, s, 32)
    b.m.io([x], [out])
    return b.m.bytes()


def main(argv):
    out = pathlib.Path(argv[0]) if argv else ROOT / "build" / "bench_models"
    out.mkdir(parents=True, exist_ok=True)
    for name, make in [("face_detection_like", face_detection),
                       ("face_landmark_like", face_landmark)]:
        for float16 in (True, False):
            path = out / f"{name}_{'float16' if float16 else 'float32'}.tflite"
            path.write_bytes(make(float16))
            print(path)


if __name__ == "__main__":
    main(sys.argv[1:])
