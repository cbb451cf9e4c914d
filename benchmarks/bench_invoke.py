"""Invoke speed: picolite against LiteRT (reference and default kernels) and TFLM, one run.

    python benchmarks/bench_invoke.py [MODEL ...] [--n 200]

Timings on a shared machine are noisy, so each model's peers run interleaved in the same
process and the table reports ratios (peer time / picolite time; > 1 means picolite is
faster) next to the median microseconds per invoke. Without arguments it runs the zoo's nets
and TFLM's example models from ../shared when present.
"""

import argparse
import pathlib
import statistics
import time

import numpy as np

import picolite
from picolite.testing import random_inputs

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "models" / "tflm"


def default_models():
    models = sorted((ROOT / "tests" / "models").glob("net_*.tflite"))
    for rel in ["examples/hello_world/hello_world_int8.tflite",
                "examples/micro_speech/micro_speech_quantized.tflite",
                "models/keyword_scrambled.tflite", "examples/dtln/dtln_noise_suppression.tflite",
                "testing/test_conv_model.tflite"]:
        if (SHARED / rel).exists():
            models.append(SHARED / rel)
    return models


def peers(path, inputs):
    """name -> (set inputs, invoke) closures for every runtime that loads the model."""
    out = {}
    ours = picolite.Interpreter(model_path=str(path))
    ours.allocate_tensors()
    out["picolite"] = ours
    try:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType

        for name, kind in [("litert_ref", OpResolverType.BUILTIN_REF),
                           ("litert", OpResolverType.AUTO)]:
            it = Interpreter(model_path=str(path), experimental_op_resolver_type=kind,
                             num_threads=1)
            it.allocate_tensors()
            out[name] = it
    except ImportError:
        pass
    try:
        from tflite_micro.python.tflite_micro import runtime

        out["tflm"] = runtime.Interpreter.from_file(str(path), arena_size=1 << 22)
    except Exception:  # not installed, or a model TFLM cannot load
        pass
    for name, it in out.items():
        for i, (d, x) in enumerate(zip(ours.get_input_details(), inputs)):
            if name == "tflm":
                it.set_input(x, i)
            else:
                it.set_tensor(d["index"], x)
    return out


def bench(path, n):
    probe = picolite.Interpreter(model_path=str(path))
    inputs = random_inputs(probe.get_input_details(), seed=1)
    runtimes = peers(path, inputs)
    times = {name: [] for name in runtimes}
    for _ in range(n):
        for name, it in runtimes.items():
            t0 = time.perf_counter_ns()
            it.invoke()
            times[name].append(time.perf_counter_ns() - t0)
    return {name: statistics.median(t) / 1000.0 for name, t in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=pathlib.Path)
    parser.add_argument("--n", type=int, default=200)
    args = parser.parse_args()
    names = ["picolite", "litert_ref", "litert", "tflm"]
    print(f"{'model':40s} " + " ".join(f"{n + ' us':>14s}" for n in names) +
          "  ratios (peer/picolite)")
    for path in args.models or default_models():
        try:
            us = bench(path, args.n)
        except picolite.Error as e:
            print(f"{path.name:40s} not run: {e}")
            continue
        cells = " ".join(f"{us[n]:14.1f}" if n in us else f"{'-':>14s}" for n in names)
        ratios = " ".join(f"{n}={us[n] / us['picolite']:.2f}" for n in names[1:] if n in us)
        print(f"{path.name:40s} {cells}  {ratios}")


if __name__ == "__main__":
    main()
