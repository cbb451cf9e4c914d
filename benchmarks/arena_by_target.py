"""The exact minimum arena of every model on every firmware, side by side.

    python benchmarks/arena_by_target.py [MODEL ...] [--markdown]

For every model of tests/models and ../shared/models (or the models named):
picolite.required_arena_sizes, one column a target (TFLM's reference kernels, TFLM +
CMSIS-NN on DSP, plain and Helium cores, the tflite-micro wheel, picolite's own runtime);
"-" where that firmware cannot run the model. Then, per CMSIS-NN target, how many models
need more or less than the reference build and the largest ratio.
"""

import argparse
import pathlib

import picolite
from picolite import targets

ROOT = pathlib.Path(__file__).resolve().parents[1]
FOLDERS = (ROOT / "tests" / "models", ROOT.parent / "shared" / "models")


def models(named):
    if named:
        return [pathlib.Path(p) for p in named]
    return [p for folder in FOLDERS if folder.is_dir() for p in sorted(folder.rglob("*.tflite"))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*")
    ap.add_argument("--markdown", action="store_true", help="a markdown table")
    a = ap.parse_args()
    names = list(targets.TITLES)
    rows = []
    for path in models(a.models):
        try:
            sizes = picolite.required_arena_sizes(str(path), names)
        except picolite.Error:  # picolite cannot read the model at all
            continue
        rows.append((path.stem, sizes))
    cell = lambda v: f"{v:,}" if isinstance(v, int) else "-"  # noqa: E731
    if a.markdown:
        print("| model | " + " | ".join(names) + " |")
        print("|---" * (len(names) + 1) + "|")
        for name, sizes in rows:
            print(f"| {name} | " + " | ".join(cell(sizes[t]) for t in names) + " |")
    else:
        print(f"{'model':<48}" + "".join(f"{t:>21}" for t in names))
        for name, sizes in rows:
            print(f"{name[:47]:<48}" + "".join(f"{cell(sizes[t]):>21}" for t in names))
    print(f"\n{len(rows)} models")
    for t in names:
        if t == "tflm":
            continue
        pairs = [(s[t], s["tflm"]) for _, s in rows
                 if isinstance(s[t], int) and isinstance(s["tflm"], int)]
        more = sum(1 for x, ref in pairs if x > ref)
        less = sum(1 for x, ref in pairs if x < ref)
        worst = max((x / ref for x, ref in pairs if ref), default=0)
        print(f"{t:<20} against tflm: {more} need more, {less} less, {len(pairs) - more - less} "
              f"the same; largest ratio {worst:.2f}")


if __name__ == "__main__":
    main()
