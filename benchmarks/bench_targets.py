"""Invoke time of one model under two targets' arithmetic, interleaved.

    python benchmarks/bench_targets.py [MODEL ...] [--a tflm] [--b litert] [--n 200]

Both interpreters run in the same process, alternating rounds of invokes on the same inputs,
so a shared machine's noise hits both alike; the table gives each target's median
microseconds per invoke and the median over rounds of the ratio b / a (> 1: target a is
faster). Without arguments it
runs the models whose kernels take a different path per target: FULLY_CONNECTED-heavy nets
(int8 and 16x8) and the int8 LSTMs.
"""

import argparse
import pathlib
import statistics
import time

import picolite
from picolite.testing import random_inputs

ROOT = pathlib.Path(__file__).resolve().parents[1]
ZOO = ROOT / "tests" / "models"
SHARED = ROOT.parent / "shared" / "models" / "tflm"
DEFAULT = [ZOO / "mlperf_tiny" / "ad01_int8.tflite", ZOO / "mlperf_tiny" / "kws_ref_model.tflite",
           ZOO / "net_mlp_int8.tflite", ZOO / "net_autoencoder_int8.tflite",
           ZOO / "fully_connected_in64_out16_relu_int8.tflite",
           ZOO / "net_ds_cnn_kws_int16x8.tflite", ZOO / "fully_connected_in32_out10_int16x8.tflite",
           ZOO / "net_lstm_int8.tflite", SHARED / "examples" / "mnist_lstm" / "trained_lstm_int8.tflite",
           SHARED / "examples" / "dtln" / "dtln_noise_suppression.tflite"]


def interpreter(path, target):
    it = picolite.Interpreter(model_path=str(path), target=target)
    it.allocate_tensors()
    for i, x in enumerate(random_inputs(it.get_input_details(), seed=1)):
        it.set_input(x, i)
    return it


def per_invoke_us(it, n):
    t0 = time.perf_counter()
    for _ in range(n):
        it.invoke()
    return (time.perf_counter() - t0) / n * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", type=pathlib.Path)
    ap.add_argument("--a", default="tflm")
    ap.add_argument("--b", default="litert")
    ap.add_argument("--n", type=int, default=200, help="invokes per round")
    ap.add_argument("--rounds", type=int, default=20)
    args = ap.parse_args()
    models = [m for m in (args.models or DEFAULT) if m.exists()]
    print(f"{'model':42s} {args.a + ' us':>12s} {args.b + ' us':>12s} {'b/a':>6s}  kernels")
    for path in models:
        a, b = interpreter(path, args.a), interpreter(path, args.b)
        per_invoke_us(a, 10), per_invoke_us(b, 10)  # warm up
        ta, tb, ratios = [], [], []
        for r in range(args.rounds):  # which runs first alternates
            first, second = (a, b) if r % 2 == 0 else (b, a)
            t1, t2 = per_invoke_us(first, args.n), per_invoke_us(second, args.n)
            ta.append(t1 if r % 2 == 0 else t2)
            tb.append(t2 if r % 2 == 0 else t1)
            ratios.append(tb[-1] / ta[-1])
        ma, mb = statistics.median(ta), statistics.median(tb)
        print(f"{path.name:42s} {ma:12.2f} {mb:12.2f} {statistics.median(ratios):6.2f}  "
              f"{a.kernels}")


if __name__ == "__main__":
    main()
