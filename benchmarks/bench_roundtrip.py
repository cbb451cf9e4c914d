"""Python call overhead: picolite against LiteRT, interleaved in one process.

    python benchmarks/bench_roundtrip.py [--n 20000] [--rounds 5]

Two measurements, each as the median over rounds of the mean time per call of a tight loop
(so the figure is what a user's loop pays, Python's own loop included):

- round trip: set_tensor + invoke + get_tensor on one-op models (the call overhead dominates);
- invoke alone: TFLM's hello_world (from ../shared when present) and a few zoo nets.

LiteRT runs its default kernels with num_threads=1. The two runtimes alternate round by round,
so load on a shared machine hits both alike; the ratio column is picolite / LiteRT (<= 1.00
means picolite costs no more).
"""

import argparse
import pathlib
import statistics
import time

import numpy as np

import picolite
from picolite import interpreter as pl_interpreter

ROOT = pathlib.Path(__file__).resolve().parents[1]
ZOO = ROOT / "tests" / "models"
SHARED = ROOT.parent / "shared" / "models" / "tflm"

ROUND_TRIP = ["pad_2d_int8.tflite", "softmax_1x10_float32.tflite", "add_same_int8.tflite"]
INVOKE = [SHARED / "examples/hello_world/hello_world_int8.tflite",
          ZOO / "net_mlp_int8.tflite", ZOO / "net_mlp_float32.tflite",
          ZOO / "net_autoencoder_int8.tflite", ZOO / "net_cnn_int8.tflite"]


def litert():
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        return None
    return lambda path: Interpreter(model_path=str(path), num_threads=1)


def inputs_of(it):
    rng = np.random.default_rng(1)
    out = []
    for d in it.get_input_details():
        dt = np.dtype(d["dtype"])
        if dt.kind == "f":
            x = rng.standard_normal(d["shape"]).astype(dt)
        else:
            info = np.iinfo(dt)
            x = rng.integers(info.min, info.max, d["shape"], endpoint=True).astype(dt)
        out.append((d["index"], x))
    return out


def round_trip_loop(it):
    ins = inputs_of(it)
    out = it.get_output_details()[0]["index"]
    set_tensor, invoke, get_tensor = it.set_tensor, it.invoke, it.get_tensor

    def loop(n):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            for i, x in ins:
                set_tensor(i, x)
            invoke()
            get_tensor(out)
        return time.perf_counter_ns() - t0
    return loop


def invoke_loop(it):
    for i, x in inputs_of(it):
        it.set_tensor(i, x)
    invoke = it.invoke

    def loop(n):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            invoke()
        return time.perf_counter_ns() - t0
    return loop


def compare(path, make_loop, n, rounds, make_litert):
    ours = pl_interpreter.Interpreter(model_path=str(path), num_threads=1)
    ours.allocate_tensors()
    loops = {"picolite": make_loop(ours)}
    if make_litert is not None:
        peer = make_litert(path)
        peer.allocate_tensors()
        loops["litert"] = make_loop(peer)
    for loop in loops.values():
        loop(n // 10)  # warm up
    per_call = {name: [] for name in loops}
    for _ in range(rounds):
        for name, loop in loops.items():
            per_call[name].append(loop(n) / n / 1000.0)
    return {name: statistics.median(v) for name, v in per_call.items()}


def report(what, path, us):
    mine, peer = us["picolite"], us.get("litert")
    cells = f"{mine:10.2f}" + (f"{peer:10.2f}{mine / peer:8.2f}" if peer else "         -")
    print(f"{what:12s} {path.name:36s}{cells}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20000, help="calls per timed loop")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    make_litert = litert()
    print(f"{'':12s} {'model':36s}{'picolite':>10s}{'LiteRT':>10s}{'ratio':>8s}  (us per call)")
    for name in ROUND_TRIP:
        report("round trip", ZOO / name,
               compare(ZOO / name, round_trip_loop, args.n, args.rounds, make_litert))
    for path in INVOKE:
        if path.exists():
            report("invoke", path,
                   compare(path, invoke_loop, args.n, args.rounds, make_litert))


if __name__ == "__main__":
    main()
