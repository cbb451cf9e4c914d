"""python -m picolite [MODEL]: what a model needs on a microcontroller, and what it computes.

Prints the model (ops, tensors, inputs/outputs with quantization), TFLM's allocation
report, every planner's head against the live-bytes lower bound, the exact required arena
size, and the outputs for the given inputs (or deterministic random ones). --compare runs
LiteRT's reference kernels on the same inputs and compares layer by layer; --target names
the firmware whose bytes and arena are reported (default tflm), and --targets prints the
arena every firmware needs; --bench times invokes against LiteRT's default kernels
(XNNPACK, one thread) and its reference ones; --json prints it all as JSON. Without MODEL it
runs the bundled demo model. --ops lists the operators picolite runs (one name a line, or a
JSON list) and exits; --cflags and --sources print what a C compiler needs to build an
exported model with the installed package alone.

Subcommands for a device build:
  python -m picolite export-c MODEL [--name NAME] [--out-dir DIR] [--planner P] [--target T]
      NAME.c + NAME.h: the model array, a resolver of its kernels only, the exact arena size;
      with --target tflm, NAME.cc + NAME.h for a TFLM firmware (MicroMutableOpResolver<N>,
      kTensorArenaSize)
  python -m picolite analyze MODEL [--target T] [--json | --html] [--measure]
      per layer: params, MACs, bytes, arena live; flash, RAM and time on the target
  python -m picolite plan MODEL --write OUT [--planner P]
      OUT: MODEL with P's plan (default optimal) as its OfflineMemoryAllocation metadata
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

import picolite
from picolite import targets
from picolite._model import read_model

DEMO_MODEL = pathlib.Path(__file__).resolve().parent / "data" / "demo.tflite"


_EPILOG = """subcommands for a device build:
  picolite export-c MODEL [--name NAME] [--out-dir DIR] [--planner P]
      NAME.c + NAME.h: the model array, a resolver of its kernels only, the exact arena size
  picolite plan MODEL --write OUT [--planner P]
      OUT: MODEL with P's plan (default optimal) as its OfflineMemoryAllocation metadata

build an export with the installed package alone:
  cc -o app main.c NAME.c $(picolite --cflags) $(picolite --sources) -lm"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="picolite", epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Validate a .tflite model for TensorFlow Lite Micro: arena size and "
                    "breakdown, planners, outputs, agreement with LiteRT, speed.")
    p.add_argument("--version", action="version",
                   version=f"picolite {picolite.__version__} (C runtime "
                           f"{picolite._picolite.version()})")
    p.add_argument("model", nargs="?", help="the .tflite file (default: the bundled demo)")
    p.add_argument("--arena-size", type=int, default=None,
                   help="arena bytes (default: exactly the required size)")
    p.add_argument("--planner", default="greedy", choices=picolite.PLANNERS,
                   help="memory planner (default: greedy, as TFLM)")
    p.add_argument("--input", action="append", default=[], metavar="FILE.npy",
                   help="an input array, once per model input in order (default: random)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    p.add_argument("--target", default="tflm", choices=picolite.TARGETS,
                   help="the firmware whose output bytes and arena are reported (default: "
                        "tflm, TFLM with reference kernels on a 32-bit Cortex-M)")
    p.add_argument("--targets", action="store_true",
                   help="the arena every firmware needs (TFLM reference, CMSIS-NN per core "
                        "family, the tflite-micro wheel, picolite's own runtime)")
    p.add_argument("--compare", action="store_true",
                   help="compare the target's outputs with LiteRT's reference kernels, layer "
                        "by layer")
    p.add_argument("--bench", type=int, default=0, metavar="N",
                   help="time N invokes, and LiteRT's default (XNNPACK, one thread) and "
                        "reference kernels when installed; ratio LiteRT default / picolite, "
                        "above 1 picolite is faster (the README's tables)")
    p.add_argument("--json", action="store_true", help="print everything as JSON")
    p.add_argument("--ops", action="store_true",
                   help="list the operators picolite runs (builtins, then custom) and exit")
    p.add_argument("--cflags", action="store_true",
                   help="print the C compiler flags for the shipped C runtime and exit")
    p.add_argument("--sources", action="store_true",
                   help="print the shipped C runtime's .c files, one a line, and exit")
    return p


# --- inputs ----------------------------------------------------------------------------

def random_input(detail: Dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    """A deterministic input matching the tensor's dtype and shape (full integer range;
    floats in [-1, 1))."""
    dtype, shape = np.dtype(detail["dtype"]), tuple(int(d) for d in detail["shape"])
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, int(info.max) + 1, size=shape, dtype=dtype)
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


def load_inputs(files: Sequence[str], details: List[Dict[str, Any]],
                seed: int) -> List[np.ndarray]:
    if files and len(files) != len(details):
        raise SystemExit(f"picolite: the model has {len(details)} inputs, got "
                         f"{len(files)} --input files")
    if files:
        return [np.load(f) for f in files]
    rng = np.random.default_rng(seed)
    return [random_input(d, rng) for d in details]


# --- gathering ---------------------------------------------------------------------------

def _quant(detail: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    q = detail["quantization_parameters"]
    if len(q["scales"]) == 0:
        return None
    return {"scale": [float(s) for s in q["scales"]],
            "zero_point": [int(z) for z in q["zero_points"]],
            "quantized_dimension": int(q["quantized_dimension"])}


def _tensor_entry(d: Dict[str, Any]) -> Dict[str, Any]:
    dtype = d["dtype"].__name__ if d["dtype"] is not None else "unknown"
    return {"index": int(d["index"]), "name": d["name"], "dtype": dtype,
            "shape": [int(x) for x in d["shape"]], "quantization": _quant(d)}


def model_summary(it: picolite.Interpreter) -> Dict[str, Any]:
    ops = [{"index": o["index"], "op_name": o["op_name"],
            "inputs": [int(x) for x in o["inputs"]],
            "outputs": [int(x) for x in o["outputs"]]} for o in it._get_ops_details()]
    tensors = []
    for d in it.get_tensor_details():
        info, entry = it._info(d["index"]), _tensor_entry(d)
        entry["bytes"] = info["bytes"]
        entry["kind"] = ("constant" if info["is_constant"] else
                         "variable" if info["is_variable"] else "activation")
        entry["arena_offset"] = info["offset"]
        tensors.append(entry)
    return {"ops": ops, "tensors": tensors,
            "inputs": [_tensor_entry(d) for d in it.get_input_details()],
            "outputs": [_tensor_entry(d) for d in it.get_output_details()]}


def planner_table(content: bytes) -> List[Dict[str, Any]]:
    """Every planner on this model: its head, the lower bound, and the arena it needs."""
    rows = []
    for name in picolite.PLANNERS:
        try:
            required = picolite.required_arena_size(content, planner=name, target="picolite")
            it = picolite.Interpreter(model_content=content, arena_size=required,
                                      planner=name, target="picolite")
            it.allocate_tensors()
            rec = it.allocations()
            rows.append({"planner": name, "head": rec.head, "lower_bound": rec.lower_bound,
                         "waste": rec.head - rec.lower_bound, "required": required})
            it.close()
        except picolite.Error as e:
            rows.append({"planner": name, "error": f"{type(e).__name__}: {e}"})
    return rows


def run(it: picolite.Interpreter, inputs: Sequence[np.ndarray]) -> List[np.ndarray]:
    for i, x in enumerate(inputs):
        it.set_input(x, i)
    it.invoke()
    return [it.get_output(i) for i in range(len(it.get_output_details()))]


def _litert():
    try:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType
    except Exception:
        return None
    return Interpreter, OpResolverType


def _litert_interpreter(content: bytes, reference: bool = True):
    """LiteRT's reference kernels (BUILTIN_REF), or its default ones (XNNPACK) on one
    thread, as picolite runs on one."""
    Interpreter, OpResolverType = _litert()
    kind = OpResolverType.BUILTIN_REF if reference else OpResolverType.AUTO
    ref = Interpreter(model_content=content, experimental_op_resolver_type=kind,
                      num_threads=1)
    ref.allocate_tensors()
    return ref


def _litert_run(ref, inputs: Sequence[np.ndarray]) -> List[np.ndarray]:
    for d, x in zip(ref.get_input_details(), inputs):
        ref.set_tensor(d["index"], x)
    ref.invoke()
    return [ref.get_tensor(d["index"]) for d in ref.get_output_details()]


def compare(content: bytes, inputs: Sequence[np.ndarray], outputs: Sequence[np.ndarray],
            target: str = "litert") -> Dict[str, Any]:
    """The target's outputs against LiteRT's reference kernels, then layer by layer
    (picolite.testing.compare_with_tflite): where the target's bytes leave LiteRT's."""
    if _litert() is None:
        return {"available": False,
                "message": "LiteRT is not installed: pip install ai-edge-litert"}
    expected = _litert_run(_litert_interpreter(content), inputs)
    rows = []
    for i, (got, want) in enumerate(zip(outputs, expected)):
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        rows.append({"output": i, "max_abs_diff": float(diff.max()) if diff.size else 0.0,
                     "identical": got.tobytes() == want.tobytes()})
    result: Dict[str, Any] = {"available": True, "target": target, "outputs": rows}
    try:
        from picolite.testing import compare_with_tflite

        layers = compare_with_tflite(content, [list(inputs)], layers=True, target=target)
        result["layers_text"] = str(layers)
    except Exception as e:  # the layer comparison needs LiteRT to run every tensor
        result["layers_text"] = f"layer by layer: {type(e).__name__}: {e}"
    return result


def _time(fn, n: int) -> float:
    fn()  # warm-up: first-touch costs are not the model's
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n


def bench(it: picolite.Interpreter, content: bytes, inputs: Sequence[np.ndarray],
          n: int) -> Dict[str, Any]:
    result: Dict[str, Any] = {"invokes": n, "picolite_us": _time(it.invoke, n) * 1e6,
                              "per_op": [{"index": t.index, "op_name": t.op_name,
                                          "us": t.mean_ns / 1e3}
                                         for t in it.profile(n).nodes]}
    if _litert() is not None:
        for key, reference in (("litert_us", False), ("litert_ref_us", True)):
            ref = _litert_interpreter(content, reference)
            _litert_run(ref, inputs)
            result[key] = _time(ref.invoke, n) * 1e6
        # as the README's tables: peer time / picolite time, above 1 picolite is faster
        result["ratio"] = result["litert_us"] / max(result["picolite_us"], 1e-9)
    return result


def arena_table(content: bytes, target: str, every: bool) -> List[Dict[str, Any]]:
    """The exact minimum arena on ``target`` and on picolite's own runtime side by side, or
    on every firmware: one row each (bytes, or why that firmware cannot run the model)."""
    names = list(targets.TITLES) if every else list(dict.fromkeys([target, "picolite"]))
    sizes = picolite.required_arena_sizes(content, [n for n in names if n in targets.TITLES])
    rows = []
    for name in names:
        size = sizes.get(name, "no arena of its own (picolite's own runtime runs it)")
        rows.append({"target": name, "title": targets.TITLES.get(name, name),
                     "bytes": size if isinstance(size, int) else None,
                     "error": None if isinstance(size, int) else size})
    return rows


def gather(args: argparse.Namespace) -> Dict[str, Any]:
    path = args.model or str(DEMO_MODEL)
    content = read_model(path)
    required = picolite.required_arena_size(content, planner=args.planner, target="picolite")
    it = picolite.Interpreter(model_content=content, planner=args.planner,
                              arena_size=args.arena_size or required, target="picolite")
    it.allocate_tensors()
    report: Dict[str, Any] = {"model": os.fspath(path), "model_bytes": len(content),
                              "target": args.target, "required_arena_size": required,
                              "arena_size": it.arena.size}
    report.update(model_summary(it))
    report["planners"] = planner_table(content)
    report["arena_by_target"] = arena_table(content, args.target, args.targets)
    inputs = load_inputs(args.input, it.get_input_details(), args.seed)
    if args.target != "picolite":  # the target's arithmetic and allocation report
        it.close()
        it = picolite.Interpreter(model_content=content, target=args.target)
        it.allocate_tensors()
    alloc = it.allocations()
    report["allocations"] = alloc.to_dict()
    report["allocations_text"] = str(alloc)
    outputs = run(it, inputs)
    report["output_values"] = [o.tolist() for o in outputs]
    if args.compare:
        report["compare"] = compare(content, inputs, outputs, args.target)
    if args.bench:
        report["bench"] = bench(it, content, inputs, args.bench)
    return report


# --- printing ----------------------------------------------------------------------------

def _fmt_quant(q: Optional[Dict[str, Any]]) -> str:
    if q is None:
        return "-"
    if len(q["scale"]) == 1:
        return f"scale {q['scale'][0]:.6g}, zero point {q['zero_point'][0]}"
    return f"per-channel ({len(q['scale'])} scales, axis {q['quantized_dimension']})"


def _print_text(r: Dict[str, Any], out) -> None:
    w = out.write
    w(f"model {r['model']} ({r['model_bytes']} bytes): {len(r['ops'])} ops, "
      f"{len(r['tensors'])} tensors\n\nops\n")
    for o in r["ops"]:
        w(f"  {o['index']:4d}  {o['op_name']:<24} in {o['inputs']} out {o['outputs']}\n")
    w("\ntensors\n")
    for t in r["tensors"]:
        w(f"  {t['index']:4d}  {t['dtype']:<8} {str(t['shape']):<18} {t['bytes']:>8} B  "
          f"{t['kind']:<10} {t['name']}\n")
    for kind in ("inputs", "outputs"):
        w(f"\n{kind}\n")
        for t in r[kind]:
            w(f"  tensor {t['index']} {t['name']}: {t['dtype']} {t['shape']}, "
              f"{_fmt_quant(t['quantization'])}\n")
    w(f"\nallocations (target {r['target']})\n{r['allocations_text'].rstrip()}\n")
    w("\nplanners (head against the live-bytes lower bound)\n")
    for p in r["planners"]:
        if "error" in p:
            w(f"  {p['planner']:<8} {p['error']}\n")
        else:
            w(f"  {p['planner']:<8} head {p['head']:>9}  lower bound {p['lower_bound']:>9}  "
              f"waste {p['waste']:>8}  arena {p['required']:>9}\n")
    w("\narena (the exact minimum: one byte less fails)\n")
    for row in r["arena_by_target"]:
        figure = f"{row['bytes']:>10,} B" if row["bytes"] is not None else f"{'-':>12}"
        w(f"  {row['target']:<20} {figure}  {row['title']}"
          f"{'' if row['error'] is None else ': ' + row['error']}\n")
    w(f"\noutputs (target {r['target']})\n")
    for i, v in enumerate(r["output_values"]):
        w(f"  output {i}: {np.array(v).ravel()[:16].tolist()}"
          f"{' ...' if np.array(v).size > 16 else ''}\n")
    _print_compare(r.get("compare"), w)
    _print_bench(r.get("bench"), w)


def _print_compare(c: Optional[Dict[str, Any]], w) -> None:
    if c is None:
        return
    if not c["available"]:
        w(f"\ncompare: {c['message']}\n")
        return
    w(f"\ncompare target {c['target']} with LiteRT (reference kernels)\n")
    for row in c["outputs"]:
        w(f"  output {row['output']}: max abs diff {row['max_abs_diff']:g}, identical bytes "
          f"{'yes' if row['identical'] else 'no'}\n")
    w(c["layers_text"].rstrip() + "\n")


def _print_bench(b: Optional[Dict[str, Any]], w) -> None:
    if b is None:
        return
    w(f"\nbench ({b['invokes']} invokes): picolite {b['picolite_us']:.1f} us/invoke")
    if "litert_us" in b:
        w(f", LiteRT default kernels (XNNPACK, 1 thread) {b['litert_us']:.1f} us, LiteRT "
          f"reference kernels {b['litert_ref_us']:.1f} us; LiteRT default / picolite "
          f"{b['ratio']:.2f} (above 1: picolite is faster)\n")
    else:
        w(" (LiteRT not installed: no comparison)\n")
    w("  per op (picolite, mean):\n")
    for op in b["per_op"]:
        w(f"    {op['index']:4d}  {op['op_name']:<24} {op['us']:10.1f} us\n")


def _export_c(argv: Sequence[str]) -> int:
    from picolite.export import export_c
    from picolite.export_tflm import TFLM_TARGETS, export_tflm

    p = argparse.ArgumentParser(prog="picolite export-c",
                                description="Write a firmware's sources: the model as an "
                                "aligned array, only its operators registered, and the "
                                "exact arena the target needs as a constant. --target "
                                "picolite (default): NAME.c and NAME.h for picolite's C "
                                "runtime; --target tflm: NAME.cc and NAME.h for a TFLM "
                                "firmware (a MicroMutableOpResolver<N> and kTensorArenaSize).")
    p.add_argument("model", help="the .tflite file")
    p.add_argument("--name", default="", help="C name prefix (default: the file's stem)")
    p.add_argument("--out-dir", default=".", help="where to write (default: .)")
    p.add_argument("--planner", default="greedy", choices=picolite.PLANNERS,
                   help="the planner the firmware uses, for the arena constant (picolite)")
    p.add_argument("--target", default="picolite", choices=("picolite",) + TFLM_TARGETS,
                   help="the firmware to write for (default: picolite)")
    args = p.parse_args(argv)
    if args.target == "picolite":
        c, h = export_c(args.model, args.out_dir, args.name, args.planner)
    else:
        if args.planner != "greedy":
            p.error("a TFLM firmware plans with its own greedy planner: --planner applies "
                    "to --target picolite only")
        c, h = export_tflm(args.model, args.out_dir, args.name, args.target)
    print(f"wrote {c} and {h}")
    return 0


def _plan(argv: Sequence[str]) -> int:
    p = argparse.ArgumentParser(prog="picolite plan",
                                description="Write the model with an offline memory plan "
                                "(OfflineMemoryAllocation metadata) that TFLM and picolite "
                                "use on the device instead of running a planner.")
    p.add_argument("model", help="the .tflite file")
    p.add_argument("--write", required=True, metavar="OUT", help="the .tflite to write")
    p.add_argument("--planner", default="optimal", choices=picolite.PLANNERS,
                   help="the plan to write (default: optimal)")
    args = p.parse_args(argv)
    data = picolite.write_offline_plan(args.model, args.planner)
    pathlib.Path(args.write).write_bytes(data)
    it = picolite.Interpreter(model_content=data, target="picolite")
    it.allocate_tensors()
    print(f"wrote {args.write}: {args.planner} plan, head {it.allocations().head} bytes")
    return 0


def _analyze(argv: Sequence[str]) -> int:
    from picolite.analyze import main as analyze_main

    return analyze_main(argv)


_SUBCOMMANDS = {"export-c": _export_c, "plan": _plan, "analyze": _analyze}


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        rc = _main(argv)
        sys.stdout.flush()  # here, where a closed pipe is caught, not at exit
        return rc
    except BrokenPipeError:  # `picolite --ops | head`: the reader left, which is no error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's own flush at exit must not fail
        return 0


def _main(argv: Optional[Sequence[str]]) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in _SUBCOMMANDS:
        try:
            return _SUBCOMMANDS[argv[0]](argv[1:])
        except (picolite.Error, ValueError, OSError) as e:
            print(f"picolite: {type(e).__name__}: {e}", file=sys.stderr)
            return 1
    args = _parser().parse_args(argv)
    if args.ops:
        ops = picolite.supported_ops()
        print(json.dumps(ops) if args.json else "\n".join(ops))
        return 0
    if args.cflags or args.sources:  # one line of flags, then one .c file a line
        lines = [" ".join(picolite.c_flags())] if args.cflags else []
        print("\n".join(lines + (picolite.c_sources() if args.sources else [])))
        return 0
    if args.model is None and not DEMO_MODEL.is_file():
        print(f"picolite: no MODEL given and the demo model {DEMO_MODEL} is missing",
              file=sys.stderr)
        return 2
    try:
        report = gather(args)
    except (picolite.Error, ValueError, OSError) as e:  # a bad model, arena or input file
        print(f"picolite: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_text(report, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
