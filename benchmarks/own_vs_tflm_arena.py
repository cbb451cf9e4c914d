"""picolite's own runtime's arena against TFLM's, model by model (issue 19, point 4).

    python benchmarks/own_vs_tflm_arena.py [MODEL ...] [--all] [--breakdown]

For every model of tests/models and ../shared/models that both targets accept (or the models
named): picolite's own exact minimum arena (target "picolite", the same figure on a 32-bit
MCU as on the host: tests/test_mcu.py) against TFLM's (target "tflm": reference kernels,
Cortex-M4). Prints the models where picolite needs more (every model with --all), then a
summary. --breakdown adds, for those models, both allocation reports: where each arena's
bytes went (head, tail by category and the records outside them, and what the exact minimum
needs beyond head + tail: temp during prepare or planning). TFLM's report is its
RecordingMicroAllocator's, whose records are bigger than those of the plain allocator its
exact minimum is for, so TFLM's "peak beyond the total" can be negative.
"""

import argparse
import pathlib
import sys

import picolite

ROOT = pathlib.Path(__file__).resolve().parents[1]
ZOO = ROOT / "tests" / "models"
SHARED = ROOT.parent / "shared" / "models"


def models(named):
    if named:
        return [pathlib.Path(p) for p in named]
    found = sorted(ZOO.rglob("*.tflite"))
    if SHARED.is_dir():
        found += sorted(SHARED.rglob("*.tflite"))
    return found


def figures(path):
    """(own, tflm) exact minimum arenas, or None when either target refuses the model."""
    try:
        return (picolite.required_arena_size(str(path), target="picolite"),
                picolite.required_arena_size(str(path), target="tflm"))
    except (picolite.Error, ValueError, RuntimeError):
        return None


def report(path, target):
    it = picolite.Interpreter(str(path), target=target)
    it.allocate_tensors()
    return it.allocations()


def breakdown(path):
    """Both reports side by side: head, tail (its categories, and what is outside them: the
    runtime's own records, picolite's interpreter and arena records against TFLM's allocator
    objects), and what the peak needs beyond the final arena (temp during prepare or plan)."""
    own, tflm = report(path, "picolite"), report(path, "tflm")
    rows = [("head", own.head, tflm.head), ("tail", own.tail, tflm.tail)]
    names = sorted(set(own.categories) | set(tflm.categories))
    used = [(name, own.categories.get(name, {}).get("used", 0),
             tflm.categories.get(name, {}).get("used", 0)) for name in names]
    rows += [(f"  {name}", a, b) for name, a, b in used if a or b]
    rows.append(("  outside the categories (records, allocator)",
                 own.tail - sum(a for _, a, _ in used), tflm.tail - sum(b for _, _, b in used)))
    rows.append(("total (head + tail)", own.total, tflm.total))
    rows.append(("peak beyond the total (temp)", own.required - own.total,
                 tflm.required - tflm.total))
    rows.append(("exact minimum", own.required, tflm.required))
    lines = [f"    {'':46} {'picolite':>9} {'tflm':>9}"]
    lines += [f"    {name:46} {a:9} {b:9}" for name, a, b in rows]
    return "\n".join(lines)


def name_of(path):
    for base in (ZOO, SHARED):
        try:
            return str(path.resolve().relative_to(base))
        except ValueError:
            pass
    return str(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*")
    parser.add_argument("--all", action="store_true", help="print every model, not only over")
    parser.add_argument("--breakdown", action="store_true")
    args = parser.parse_args()
    compared = over = 0
    worst = (0, "")
    print(f"{'model':60} {'tflm':>9} {'picolite':>9} {'excess':>7}")
    for path in models(args.models):
        pair = figures(path)
        if pair is None:
            continue
        own, tflm = pair
        compared += 1
        if own > tflm:
            over += 1
            worst = max(worst, (own - tflm, name_of(path)))
        if own > tflm or args.all:
            print(f"{name_of(path):60} {tflm:9} {own:9} {own - tflm:7}")
            if own > tflm and args.breakdown:
                print(breakdown(path))
        sys.stdout.flush()
    print(f"\n{compared} models both targets accept; picolite needs more on {over}"
          + (f" (worst: {worst[1]}, +{worst[0]} bytes)" if over else ""))


if __name__ == "__main__":
    main()
