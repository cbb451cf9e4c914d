"""The C runtime's sources and headers, shipped in the package: an exported model
(``picolite export-c``) builds with the installed package alone::

    cc -o app main.c model.c $(picolite --cflags) $(picolite --sources) -lm

or from Python: ``picolite.c_sources()`` and ``picolite.c_include_dirs()``. These are the
portable core and kernels (no host fast paths); a device build may add ``-DPL_NO_VERIFIER``
``-DPL_NO_MESSAGES`` and the other firmware options the README lists.
"""

from pathlib import Path
from typing import List

_PACKAGE = Path(__file__).resolve().parent


def c_root() -> Path:
    """The folder of the C runtime: the wheel's ``picolite/csrc``, or a clone's ``csrc``."""
    for root in (_PACKAGE / "csrc", _PACKAGE.parents[1] / "csrc"):
        if (root / "include" / "picolite" / "picolite.h").is_file():
            return root
    raise FileNotFoundError(f"picolite's C sources are not installed beside {_PACKAGE} "
                            f"(a wheel ships them in picolite/csrc)")


def c_include_dirs() -> List[str]:
    """The include folders: the public headers (``picolite/picolite.h``) and the runtime's
    own (kernels include ``kernels/...``)."""
    root = c_root()
    return [str(root / "include"), str(root)]


def c_sources() -> List[str]:
    """Every .c file of the portable runtime (core, kernels, TFLM's Signal library)."""
    root = c_root()
    return sorted(str(p) for p in root.rglob("*.c") if "fast" not in p.relative_to(root).parts)


def c_flags() -> List[str]:
    """What a compiler needs for them: C11, the include folders, and no fused multiply-add
    (float results are TFLite's bit for bit only without contraction)."""
    return ["-std=c11", "-ffp-contract=off"] + [f"-I{d}" for d in c_include_dirs()]
