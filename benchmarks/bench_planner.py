"""Memory planners: each picolite planner's head over the live-bytes lower bound, and its time.

    python benchmarks/bench_planner.py [--instances DIR] [--repeat 5] [--planners greedy,...]

With --instances, every *.csv in DIR is one instance in google/minimalloc's format: a header
``id,lower,upper,size`` and one buffer per row, live over [lower, upper) (picolite's
lifetimes are inclusive: first = lower, last = upper - 1). Without it, synthetic instances of
100, 1,000 and 10,000 buffers from a fixed seed, two kinds per size:

* ``model``: what a network's tensors look like: one buffer made per node, most read by the
  next node or two, a few skip connections, a handful live throughout;
* ``dense``: lifetimes uniform over the rest of the run, so each buffer shares nodes with a
  third of all the others: the worst case for any planner that looks at overlapping buffers.

Each plan goes through ``picolite.plan_memory`` (the list conversion is included: the
``linear`` planner's time is about that overhead alone). The time is the fastest of
--repeat runs in this one process. Ratio = head / lower bound (1.000 is optimal). The last
lines say whether greedy and bestfit planned the 10,000-buffer model instance in under 50 ms.
"""

import argparse
import csv
import pathlib
import random
import time

import picolite

LIMIT_MS = 50.0


def read_csv(path):
    """(size, first, last) buffers of a minimalloc CSV; [lower, upper) -> [lower, upper-1]."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    bufs = []
    for r in rows:
        lower, upper, size = int(r["lower"]), int(r["upper"]), int(r["size"])
        if upper <= lower:
            raise ValueError(f"{path}: buffer {r['id']} has an empty lifetime "
                             f"[{lower}, {upper})")
        bufs.append((size, lower, upper - 1))
    return bufs


def model_like(n, rng):
    """One output per node; most die within a few nodes, some skip ahead, a few stay."""
    bufs = []
    for i in range(n):
        roll = rng.random()
        if roll < 0.005:
            last = n - 1
        elif roll < 0.05:
            last = min(n - 1, i + rng.randint(4, 64))
        else:
            last = min(n - 1, i + int(rng.expovariate(0.5)) + 1)
        size = 16 * max(1, int(2 ** rng.uniform(0, 12)))
        bufs.append((size, i, last))
    return bufs


def dense(n, rng):
    bufs = []
    for _ in range(n):
        first = rng.randrange(n)
        bufs.append((16 * rng.randint(1, 256), first, rng.randint(first, n - 1)))
    return bufs


def synthetic(seed):
    rng = random.Random(seed)
    for n in (100, 1000, 10000):
        yield f"model_{n}", model_like(n, rng)
        yield f"dense_{n}", dense(n, rng)


def time_plan(bufs, planner, repeat):
    """(result, fastest ms) of repeat plans; one run when a plan takes over a second."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = picolite.plan_memory(bufs, planner)
        best = min(best, (time.perf_counter() - start) * 1e3)
        if best > 1000:
            break
    return result, best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--instances", type=pathlib.Path,
                    help="a directory of minimalloc CSV files (id,lower,upper,size)")
    ap.add_argument("--repeat", type=int, default=5, help="runs per plan (fastest is kept)")
    ap.add_argument("--planners", default=",".join(picolite.PLANNERS),
                    help="comma-separated planner names")
    ap.add_argument("--seed", type=int, default=2024, help="seed of the synthetic instances")
    args = ap.parse_args(argv)
    planners = [p.strip() for p in args.planners.split(",") if p.strip()]
    if args.instances is not None:
        files = sorted(args.instances.glob("*.csv"))
        if not files:
            ap.error(f"no *.csv files in {args.instances}")
        instances = [(f.stem, read_csv(f)) for f in files]
    else:
        instances = list(synthetic(args.seed))

    head = f"{'instance':18} {'buffers':>7} {'lower bound':>12}"
    print(head + "".join(f" {p + ' ratio':>14} {'ms':>9}" for p in planners))
    times = {}
    for name, bufs in instances:
        row, lower = [], None
        for p in planners:
            result, ms = time_plan(bufs, p, args.repeat)
            lower = result.lower_bound
            ratio = result.total / lower if lower else 1.0
            row.append(f" {ratio:14.3f} {ms:9.2f}")
            times[(name, p)] = ms
        print(f"{name:18} {len(bufs):7} {lower:12}" + "".join(row))

    for p in ("greedy", "bestfit"):
        ms = times.get(("model_10000", p))
        if ms is not None:
            verdict = "yes" if ms < LIMIT_MS else "NO"
            print(f"{p} on 10,000 buffers (model): {ms:.1f} ms, under {LIMIT_MS:.0f} ms: "
                  f"{verdict}")


if __name__ == "__main__":
    main()
