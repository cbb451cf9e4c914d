"""Dataset evaluation: picolite.evaluate over 1 and N workers, and a Python invoke loop.

    python benchmarks/bench_evaluate.py [MODEL ...] [--samples 2000] [--workers 2]

The runs of one model alternate (1 worker, N workers, loop, ...) and the table reports the
median seconds of each and the speedups (1 worker / N workers; loop / 1 worker), so that a
busy machine slows all of them alike. Without arguments it runs the zoo's int8 and float32
nets.
"""

import argparse
import pathlib
import statistics
import time

import numpy as np

import picolite
from picolite.testing import random_inputs

ROOT = pathlib.Path(__file__).resolve().parents[1]


def dataset(path, n):
    it = picolite.Interpreter(str(path))
    it.allocate_tensors()
    details = it.get_input_details()
    first = random_inputs(details, seed=0)
    return [np.repeat(x, n, axis=0) for x in first], it


def python_loop(it, arrays):
    details = it.get_input_details()
    out = it.get_output_details()[0]["index"]
    for k in range(len(arrays[0])):
        for d, a in zip(details, arrays):
            it.set_tensor(d["index"], a[k:k + 1])
        it.invoke()
        it.get_tensor(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*")
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    models = args.models or [str(p) for p in sorted((ROOT / "tests" / "models").glob("net_*.tflite"))
                             if p.stem.endswith(("_int8", "_float32"))]
    print(f"{'model':<36} {'1 worker s':>10} {f'{args.workers} workers s':>11} "
          f"{'speedup':>8} {'loop s':>8} {'loop/1w':>8}")
    for path in models:
        arrays, it = dataset(path, args.samples)
        times = {"one": [], "many": [], "loop": []}
        for _ in range(args.rounds):
            for key, run in (("one", lambda: picolite.evaluate(path, arrays, workers=1)),
                             ("many", lambda: picolite.evaluate(path, arrays,
                                                                workers=args.workers)),
                             ("loop", lambda: python_loop(it, arrays))):
                start = time.perf_counter()
                run()
                times[key].append(time.perf_counter() - start)
        one, many, loop = (statistics.median(times[k]) for k in ("one", "many", "loop"))
        print(f"{pathlib.Path(path).stem:<36} {one:>10.3f} {many:>11.3f} {one / many:>8.2f} "
              f"{loop:>8.3f} {loop / one:>8.2f}")


if __name__ == "__main__":
    main()
