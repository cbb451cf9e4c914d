"""Invoke speed: picolite (fast paths and portable kernels) against LiteRT (reference and
default kernels, one thread) and TFLM, one run.

    python benchmarks/bench_invoke.py [MODEL ...] [--n 200] [--shared] [--kernels sse4.1]
                                      [--threads 2]

Timings on a shared machine are noisy, so each model's runtimes run interleaved in the same
process and the table reports ratios (peer time / picolite time; > 1 means picolite is
faster) next to the median microseconds per invoke. picolite and LiteRT's default kernels
alternate with each other only; the slower columns (portable, reference, TFLM) are timed
after them, alternating among themselves: on hosts where the first invoke after another
runtime's long run takes 2-3x its usual time, they would otherwise set both medians. Every model's fast-path outputs are
checked against picolite's portable kernels on the same target (every byte equal), and the
summary gives the geometric mean of LiteRT default / picolite per model type (int8 and
float32 by the model's tensors; 16x8, hybrid and float16-weight models apart;
benchmarks/make_hybrid_models.py and make_mediapipe_like.py write such models). Without arguments it runs the zoo's nets and TFLM's example models
from ../shared; --shared adds every model under ../shared/models.
--kernels runs picolite's column on one kernel set (picolite.kernel_sets()) instead of the
best this CPU has. --threads N runs picolite and LiteRT's default kernels (XNNPACK) on N
threads each (the portable and reference columns stay on one), alternating in blocks of
BLOCK invokes whose first is not timed: both runtimes' idle workers spin a while for the
next job, and on a host with as many cores as threads the one just run took a core from the
other (picolite's MobileNetV3-Large-96 float16-weight model, two threads: 1389 us with an
invoke each in turn, 835 in blocks).
"""

import argparse
import math
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np

import picolite
from picolite.testing import random_inputs

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "models"
EXAMPLES = ["examples/hello_world/hello_world_int8.tflite",
            "examples/micro_speech/micro_speech_quantized.tflite",
            "models/keyword_scrambled.tflite", "examples/dtln/dtln_noise_suppression.tflite",
            "testing/test_conv_model.tflite"]
NAMES = ["picolite", "portable", "litert_ref", "litert", "tflm"]
PAIR = ("picolite", "litert")  # the ratio the summary gives, timed alternating on their own
BLOCK = 10  # with threads: invokes timed in a row (after one untimed), runtime by runtime


def default_models(shared_all):
    models = sorted((ROOT / "tests" / "models").glob("net_*.tflite"))
    if shared_all:
        return models + sorted(SHARED.rglob("*.tflite"))
    return models + [SHARED / "tflm" / rel for rel in EXAMPLES if (SHARED / "tflm" / rel).exists()]


def model_kind(it):
    """int8, float32, 16x8, hybrid or float16, from the model's tensors (what its kernels
    compute in): hybrid when an operator takes float input with int8 weights (dynamic-range
    quantization, the input quantized on the fly); float16 when float weights are stored as
    float16 behind DEQUANTIZE (MediaPipe's models)."""
    types = [d["dtype"] for d in it.get_tensor_details()]
    if any(d["dtype"] == np.int16 for d in it.get_input_details()):
        return "16x8"
    ops = it._get_ops_details()
    if any(op["operand_types"][:2] == [np.float32, np.int8] for op in ops):
        return "hybrid"
    if any(op["op_name"] == "DEQUANTIZE" and op["operand_types"][:1] == [np.float16]
           for op in ops):
        return "float16"
    return "int8" if types.count(np.int8) + types.count(np.uint8) > types.count(np.float32) \
        else "float32"


PROBE = """
import sys
from ai_edge_litert.interpreter import Interpreter, OpResolverType
it = Interpreter(model_path=sys.argv[1], num_threads=1,
                 experimental_op_resolver_type=OpResolverType[sys.argv[2]])
it.allocate_tensors()
it.invoke()
"""


def litert_survives(path, kind):
    """LiteRT's kernels crash the process on some models (XNNPACK on
    keyword_scrambled_8bit: a double free): try them in a child process first."""
    r = subprocess.run([sys.executable, "-c", PROBE, str(path), kind.name], capture_output=True)
    return r.returncode >= 0  # an exception exits 1 (handled in-process), a crash by signal


def runtimes(path, probe_litert, fast="auto", threads=1):
    """name -> interpreter for every runtime that loads the model."""
    out = {}
    for name, kernels in [("picolite", fast), ("portable", "portable")]:
        it = picolite.Interpreter(model_path=str(path), kernels=kernels,
                                  num_threads=threads if name == "picolite" else 1)
        it.allocate_tensors()
        out[name] = it
    try:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType

        for name, kind in [("litert_ref", OpResolverType.BUILTIN_REF),
                           ("litert", OpResolverType.AUTO)]:
            if probe_litert and not litert_survives(path, kind):
                continue
            it = Interpreter(model_path=str(path), experimental_op_resolver_type=kind,
                             num_threads=threads if name == "litert" else 1)
            it.allocate_tensors()
            out[name] = it
    except (ImportError, ValueError, RuntimeError):
        pass
    try:
        from tflite_micro.python.tflite_micro import runtime

        out["tflm"] = runtime.Interpreter.from_file(str(path), arena_size=1 << 22)
    except Exception:  # not installed, or a model TFLM cannot load
        pass
    return out


def set_inputs(name, it, details, inputs):
    for i, (d, x) in enumerate(zip(details, inputs)):
        if name == "tflm":
            it.set_input(x, i)
        else:
            it.set_tensor(d["index"], x)


def exact(ours, ref):
    """picolite's fast paths against its portable kernels on the same target: every output
    byte equal (NaNs too: the fast paths promise the portable kernels' bytes)."""
    for d, r in zip(ours.get_output_details(), ref.get_output_details()):
        a, b = ours.get_tensor(d["index"]), ref.get_tensor(r["index"])
        if a.tobytes() != b.tobytes():
            return False
    return True


def bench(path, n, probe_litert, fast="auto", threads=1):
    probe = picolite.Interpreter(model_path=str(path))
    details = probe.get_input_details()
    inputs = random_inputs(details, seed=1)
    its = runtimes(path, probe_litert, fast, threads)
    for name in list(its):
        # one warm-up invoke each, so that models with state (variables) have taken the
        # same number of steps in every runtime when the outputs are compared
        try:  # a peer that loads the model may still refuse to run it: leave it out
            set_inputs(name, its[name], details, inputs)
            its[name].invoke()
        except Exception:  # noqa: BLE001 - any peer failure just drops that peer
            if name in ("picolite", "portable"):
                raise
            del its[name]
    times = {name: [] for name in its}
    # picolite and LiteRT's default kernels alternate on their own, the slow columns apart:
    # an invoke after another runtime's long run (or a pause) takes 2-3x its usual time on
    # this kind of host, whichever runtime it is, and would swing the ratio that matters.
    pair = [name for name in PAIR if name in its]
    block = BLOCK if threads > 1 else 1
    for group in (pair, [name for name in its if name not in pair]):
        for _ in range((n + block - 1) // block):
            for name in group:
                for k in range(block + (block > 1)):
                    # as in TFLM, the arena may reuse an input's bytes once it was read: set
                    # each time
                    set_inputs(name, its[name], details, inputs)
                    t0 = time.perf_counter_ns()
                    its[name].invoke()
                    if k > 0 or block == 1:  # a block's first invoke met the other's spinners
                        times[name].append(time.perf_counter_ns() - t0)
    same = exact(its["picolite"], its["portable"])
    us = {name: statistics.median(t) / 1000.0 for name, t in times.items()}
    return us, same, model_kind(probe), its["picolite"].kernels


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=pathlib.Path)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--shared", action="store_true",
                        help="every model in ../shared (LiteRT is probed in a child process)")
    parser.add_argument("--kernels", default="auto", choices=["auto", *picolite.kernel_sets()],
                        help="picolite's kernel set (default: the best this CPU runs)")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads for picolite and LiteRT's default kernels")
    args = parser.parse_args()
    print(f"{'model':40s} {'kind':>7s} " + " ".join(f"{n + ' us':>13s}" for n in NAMES) +
          "  exact  ratios (peer/picolite)")
    ratios = {}
    for path in args.models or default_models(args.shared):
        try:
            us, same, kind, kernels = bench(path, args.n, args.shared, args.kernels,
                                            args.threads)
        except (picolite.Error, ValueError, RuntimeError) as e:
            print(f"{path.name:40s} not run: {str(e).splitlines()[0][:80]}")
            continue
        cells = " ".join(f"{us[n]:13.1f}" if n in us else f"{'-':>13s}" for n in NAMES)
        peer = " ".join(f"{n}={us[n] / us['picolite']:.2f}" for n in NAMES[1:] if n in us)
        print(f"{path.name[:40]:40s} {kind:>7s} {cells}  {str(same):5s}  {peer}")
        if "litert" in us:
            ratios.setdefault(kind, []).append((us["litert"] / us["picolite"], path.name))
    print(f"\nkernels: {kernels}")
    for kind, r in sorted(ratios.items()):
        geomean = math.exp(sum(math.log(x) for x, _ in r) / len(r))
        print(f"geomean LiteRT default ({args.threads} thread(s)) / picolite, {kind}: "
              f"{geomean:.3f} "
              f"over {len(r)} models")
    worst = sorted(x for r in ratios.values() for x in r)[:5]
    print("worst: " + ", ".join(f"{name} {x:.2f}" for x, name in worst))


if __name__ == "__main__":
    main()
