"""Where picolite and TFLM compute different bytes: every zoo and shared model, layer by layer.

    python benchmarks/tflm_survey.py [--target tflm-x86-64] [--json out.jsonl] [--only SUBSTR]

Runs every model of tests/models (the MANIFEST.json files first) and every .tflite under
../shared/models/tflm through the tflite-micro wheel (TFLM's reference kernels on x86-64)
and through picolite with the given target, with the same inputs written before every
invoke: several random samples (one of them with float inputs 16x wider, so that
saturating functions see their tails), on one interpreter each, so stateful models are
compared over several invocations. Both sides keep every tensor (kPreserveAllTensors,
preserve_all_tensors=True); an operator whose inputs agree on both sides and whose output
does not is where a difference starts, and is counted per (operator, dtype).

Each model runs in a child process, so a crash in either runtime costs one model only.
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
ZOO = ROOT / "tests" / "models"
SHARED = ROOT.parent / "shared" / "models" / "tflm"
SAMPLES = 4


def model_list():
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import zoo_manifest

    seen, out = set(), []
    for e in zoo_manifest():
        p = (ZOO / e["file"]).resolve()
        if p not in seen and p.exists():
            seen.add(p)
            out.append(str(p))
    # models no manifest lists (MLPerf Tiny's, TFLM-judged math, strings, dynamic shapes)
    out += [str(p) for p in sorted(ZOO.rglob("*.tflite")) if p.resolve() not in seen]
    if SHARED.is_dir():
        out += [str(p) for p in sorted(SHARED.rglob("*.tflite"))]
    return out


def shown(path):
    """The path relative to the repository's parent (where zoo and shared meet), if inside."""
    try:
        return str(pathlib.Path(path).resolve().relative_to(ROOT.parent))
    except ValueError:
        return str(path)


def samples(details):
    from picolite.testing import random_inputs

    out = []
    for seed in range(SAMPLES):
        xs = random_inputs(details, seed=seed)
        if seed == SAMPLES - 1:
            xs = [x * 16 if x.dtype.kind == "f" else x for x in xs]
        out.append(xs)
    return out


def diff(a, b):
    """(mismatching elements, max abs difference, max relative difference) of two arrays."""
    import numpy as np

    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return int(max(a.size, b.size)), float("inf"), float("inf")
    if a.tobytes() == b.tobytes():
        return 0, 0.0, 0.0
    if a.dtype.kind == "f":
        same = (a == b) | (np.isnan(a) & np.isnan(b))
    else:
        same = a == b
    d = np.abs(a.astype(np.float64) - b.astype(np.float64))
    d = np.where(same, 0.0, d)
    rel = d / np.maximum(np.abs(b.astype(np.float64)), 1e-30)
    return int((~same).sum()), float(np.nanmax(d)), float(np.nanmax(rel))


def dtype_name(t):
    import numpy as np

    return "none" if t is None else np.dtype(t).name


def survey_one(path, target):
    """One model: {"model", "status", "outputs": [...], "origins": [...]}."""
    import numpy as np

    import picolite
    from tflite_micro.python.tflite_micro import runtime

    rec = {"model": shown(path), "status": "ok"}
    try:
        ours = picolite.Interpreter(model_path=path, target=target, preserve_all_tensors=True)
        ours.allocate_tensors()
    except Exception as e:  # noqa: BLE001 - a survey records every refusal
        return {**rec, "status": "picolite-refuses", "error": str(e)[:200]}
    try:
        theirs = runtime.Interpreter.from_file(
            path, arena_size=16 << 20,
            intrepreter_config=runtime.InterpreterConfig.kPreserveAllTensors)
    except Exception as e:  # noqa: BLE001
        return {**rec, "status": "tflm-error", "error": str(e)[:200]}
    ops = ours._get_ops_details()
    tensors = ours.get_tensor_details()
    outs = ours.get_output_details()
    rec["outputs"] = [{"mismatches": 0, "size": 0, "max_abs": 0.0, "max_rel": 0.0,
                       "dtype": dtype_name(d["dtype"])} for d in outs]
    origins = {}
    for s, xs in enumerate(samples(ours.get_input_details())):
        for i, x in enumerate(xs):
            ours.set_input(x, i)
            theirs.set_input(x, i)
        before = unwritten_agree(ours, theirs, ops, tensors)
        try:
            ours.invoke()
        except Exception as e:  # noqa: BLE001
            return {**rec, "status": "picolite-invoke-error", "error": str(e)[:200]}
        try:
            theirs.invoke()
        except Exception as e:  # noqa: BLE001
            return {**rec, "status": "tflm-invoke-error", "error": str(e)[:200]}
        for o, d in enumerate(outs):
            m, a, r = diff(ours.get_output(o), theirs.get_output(o))
            slot = rec["outputs"][o]
            slot["mismatches"] += m
            slot["size"] += int(np.asarray(ours.get_output(o)).size)
            slot["max_abs"] = max(slot["max_abs"], a)
            slot["max_rel"] = max(slot["max_rel"], r)
        layer_origins(ours, theirs, ops, tensors, origins, before)
    rec["origins"] = list(origins.values())
    return rec


def compare_tensor(ours, theirs, t, tensors):
    """diff() of tensor t on both sides, or True when one side does not keep it."""
    if tensors[t]["dtype"] is None:
        return True
    try:
        return diff(ours.get_tensor(t), theirs.GetTensor(t, 0)["tensor_data"])
    except Exception:  # noqa: BLE001 - a tensor one side does not keep
        return True


def unwritten_agree(ours, theirs, ops, tensors):
    """Before an invoke: agreement of every op input that no op writes (model inputs,
    constants, and the variables a stateful op updates in place during the invoke)."""
    written = {int(t) for op in ops for t in op["outputs"]}
    inputs = {int(t) for op in ops for t in op["inputs"] if int(t) >= 0}
    return {t: compare_tensor(ours, theirs, t, tensors) for t in inputs - written}


def layer_origins(ours, theirs, ops, tensors, origins, before):
    """Adds to origins every op whose inputs agree on both sides and whose outputs do not."""
    import numpy as np

    agree = dict(before)

    def same(t):
        if t not in agree:
            agree[t] = compare_tensor(ours, theirs, t, tensors)
        return agree[t] is True or agree[t][0] == 0

    for op in ops:
        inputs_ok = all(same(int(t)) for t in op["inputs"] if int(t) >= 0)
        for t in op["outputs"]:
            t = int(t)
            if inputs_ok and not same(t):
                m, a, r = agree[t]
                ins = [dtype_name(tensors[int(i)]["dtype"]) for i in op["inputs"] if int(i) >= 0]
                key = (op["index"], t)
                slot = origins.setdefault(key, {
                    "node": int(op["index"]), "op": op["op_name"],
                    "dtype": f"{ins[0] if ins else '-'}->{dtype_name(tensors[t]['dtype'])}",
                    "mismatches": 0, "size": 0, "max_abs": 0.0, "max_rel": 0.0})
                slot["mismatches"] += m
                slot["size"] += int(np.prod(tensors[t]["shape"]))
                slot["max_abs"] = max(slot["max_abs"], a)
                slot["max_rel"] = max(slot["max_rel"], r)


def worker(paths, target):
    for p in paths:
        print("BEGIN " + p, flush=True)
        try:
            rec = survey_one(p, target)
        except Exception as e:  # noqa: BLE001
            rec = {"model": p, "status": "survey-error", "error": repr(e)[:200]}
        print("JSON " + json.dumps(rec), flush=True)


def run_all(paths, target):
    done, todo = [], list(paths)
    while todo:
        proc = subprocess.Popen([sys.executable, __file__, "--worker", "--target", target,
                                 *todo], stdout=subprocess.PIPE, text=True,
                                stderr=subprocess.DEVNULL)
        current = None
        for line in proc.stdout:
            if line.startswith("BEGIN "):
                current = line[6:].strip()
            elif line.startswith("JSON "):
                done.append(json.loads(line[5:]))
                todo.remove(current)
                current = None
        proc.wait()
        if current is not None:  # the child died inside this model
            done.append({"model": shown(current),
                         "status": f"crash ({proc.returncode})"})
            todo.remove(current)
    return done


def summarize(records):
    status = collections.Counter(r["status"] for r in records)
    print("models:", len(records), dict(status))
    compared = [r for r in records if r["status"] == "ok"]
    bad = [r for r in compared if any(o["mismatches"] for o in r["outputs"])]
    ints = [r for r in bad if any(o["mismatches"] and o["dtype"][0] != "f" for o in r["outputs"])]
    print(f"outputs differ: {len(bad)} of {len(compared)} compared models "
          f"({len(ints)} with integer outputs)")
    for r in bad:
        o = r["outputs"]
        print(f"  {r['model']}: " + ", ".join(
            f"{x['dtype']} {x['mismatches']}/{x['size']} max {x['max_abs']:g} rel "
            f"{x['max_rel']:.2g}" for x in o if x["mismatches"]))
    per_op = collections.defaultdict(lambda: [set(), 0, 0, 0.0, 0.0])
    for r in compared:
        for g in r["origins"]:
            s = per_op[(g["op"], g["dtype"])]
            s[0].add(r["model"])
            s[1] += g["mismatches"]
            s[2] += g["size"]
            s[3] = max(s[3], g["max_abs"])
            s[4] = max(s[4], g["max_rel"])
    print("where differences start (operator, input->output dtype):")
    for (op, dt), (models, m, n, a, rel) in sorted(per_op.items()):
        print(f"  {op:24s} {dt:18s} {len(models):3d} models  {m}/{n} elements  max abs {a:g}"
              f"  rel {rel:.2g}  e.g. {sorted(models)[0]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", default="tflm-x86-64")
    ap.add_argument("--json", help="write one JSON record per model to this file")
    ap.add_argument("--only", help="only models whose path contains this")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args.paths, args.target)
    paths = [p for p in model_list() if not args.only or args.only in p]
    records = run_all(paths, args.target)
    if args.json:
        with open(args.json, "w") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
    summarize(records)


if __name__ == "__main__":
    main()
