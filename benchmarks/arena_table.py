"""picolite's arena against TFLM's figures (../shared/models/tflm/TFLM_ARENA.tsv), as a table.

    python benchmarks/arena_table.py [--markdown]

For every model picolite runs: total/head/tail, the exact required size, the live-bytes lower
bound, each planner's head, and TFLM's recording total, head, tail, plain arena_used_bytes and
minimum arena. Models with ops picolite does not run are listed with the reason.
"""

import argparse
import csv
import pathlib
import sys

import picolite

SHARED = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "models" / "tflm"
PLANNERS = ["greedy", "bestfit", "optimal", "linear"]


def heads(path):
    out = {}
    for planner in PLANNERS:
        it = picolite.Interpreter(model_path=str(path), planner=planner)
        it.allocate_tensors()
        out[planner] = it.allocations().head
    return out


def rows(tsv):
    with open(tsv) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            path = SHARED / row["model"]
            it = picolite.Interpreter(model_path=str(path))
            try:
                it.allocate_tensors()
            except picolite.UnsupportedOpError as e:
                yield row, None, str(e)
                continue
            yield row, (it.allocations(), heads(path),
                        picolite.required_arena_size(str(path))), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    tsv = SHARED / "TFLM_ARENA.tsv"
    if not tsv.exists():
        sys.exit(f"{tsv} not found: this table needs ../shared beside the project")
    head = ["model", "total", "head", "tail", "required", "lower bound", "greedy", "bestfit",
            "optimal", "linear", "TFLM total (plain)", "TFLM head", "TFLM min arena"]
    sep = " | " if args.markdown else "\t"
    print(("| " if args.markdown else "") + sep.join(head) + (" |" if args.markdown else ""))
    if args.markdown:
        print("|" + "---|" * len(head))
    for row, ours, why in rows(tsv):
        name = row["model"].rsplit("/", 1)[-1]
        if ours is None:
            cells = [name, f"not run: {why.split(': ', 1)[-1]}"] + [""] * 8 + [
                row["tflm_arena_used_plain"], row["tflm_head"], row["tflm_min_arena"]]
        else:
            rep, h, required = ours
            cells = [name, rep.total, rep.head, rep.tail, required, rep.lower_bound] + [
                h[p] for p in PLANNERS] + [row["tflm_arena_used_plain"], row["tflm_head"],
                                           row["tflm_min_arena"]]
        line = sep.join(str(c) for c in cells)
        print(("| " + line + " |") if args.markdown else line)


if __name__ == "__main__":
    main()
