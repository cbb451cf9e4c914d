"""Time on the target: a model's firmware built with picolite's runtime for Cortex-M and run
under QEMU's instruction counter (``picolite analyze MODEL --measure``).

The runtime (every ``.c`` of ``csrc/`` but the host fast paths) is compiled with
arm-none-eabi-gcc for the CPU at ``-Os`` or ``-O2`` into a cached static library; the model
is exported with :func:`picolite.export.export_c` (a resolver of its kernels only) and linked
with ``data/mcu/measure_main.c`` and the board support of ``tests/mcu/`` (startup,
semihosting, stack painting). QEMU runs it with ``-icount shift=0`` (one instruction, one
nanosecond of virtual time) on MPS2 AN386 (Cortex-M4F), AN385 (Cortex-M3) or MPS3 AN547
(Cortex-M55, ``data/mcu/an547.ld``); a timer at 25 MHz (40 instructions a tick; the AN547's
system counter at 32 MHz, 31.25), read around every node by the interpreter's profiler,
gives the instructions per layer and per invoke, exact to a tick. These are instructions,
not cycles: :data:`picolite.costs.CPI` converts.

Building needs picolite's C sources (a clone or an sdist: ``source=`` or the environment's
``PICOLITE_SOURCE``, else the folders above the working directory and the package are
searched), arm-none-eabi-gcc with newlib and qemu-system-arm.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

PACKAGE_DATA = Path(__file__).resolve().parent / "data" / "mcu"
TOOLS = ("arm-none-eabi-gcc", "arm-none-eabi-ar", "arm-none-eabi-size", "qemu-system-arm")

CPUS: Dict[str, Dict[str, Any]] = {
    "cortex-m4f": {"board": "mps2-an386", "per_tick": 40.0, "ld": None, "defines": [],
                   "flags": ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard",
                             "-mfpu=fpv4-sp-d16"]},
    "cortex-m3": {"board": "mps2-an385", "per_tick": 40.0, "ld": None, "defines": [],
                  "flags": ["-mcpu=cortex-m3", "-mthumb", "-mfloat-abi=soft"]},
    # Helium (MVE) and the FPU: the compiler may vectorize the portable kernels' loops. No
    # if-conversion: with MVE on, Debian's binutils 2.40 refuses the conditional
    # VCVTNE.F64.F32 that gcc 12 puts in an IT block (activations.c's rounding).
    "cortex-m55": {"board": "mps3-an547", "per_tick": 31.25, "ld": "an547.ld",
                   "defines": ["-DPL_MEASURE_AN547"],
                   "flags": ["-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard",
                             "-fno-if-conversion", "-fno-if-conversion2"]},
}
# picolite's runtimes (README "On a microcontroller"): the firmware options each defines.
RUNTIMES: Dict[str, List[str]] = {
    "full": [],
    "trimmed": ["PL_NO_VERIFIER", "PL_NO_MESSAGES", "PL_GREEDY_ONLY"],
    "minimal": ["PL_NO_VERIFIER", "PL_NO_MESSAGES", "PL_GREEDY_ONLY", "PL_NO_RESIZE",
                "PL_NO_RESOURCE_VARIABLES", "PL_NO_INTEGRITY", "PL_SINGLE_SUBGRAPH"],
}
OPTS = ("Os", "O2")


class MeasureError(RuntimeError):
    """The firmware could not be built or run (missing tools or sources, a failed run)."""


def missing_tools() -> List[str]:
    return [t for t in TOOLS if shutil.which(t) is None]


def available(source: Optional[str] = None) -> bool:
    """True when a measurement can run here: the tools and picolite's C sources."""
    if missing_tools():
        return False
    try:
        find_source(source)
    except MeasureError:
        return False
    return True


def find_source(source: Optional[str] = None) -> Path:
    """picolite's source tree: the one given, $PICOLITE_SOURCE, or a folder above the
    working directory or the package that holds csrc/ and tests/mcu/."""
    candidates = [source, os.environ.get("PICOLITE_SOURCE")]
    for start in (Path.cwd(), Path(__file__).resolve()):
        candidates.extend(str(p) for p in [start, *start.parents])
    for c in candidates:
        if c and (Path(c) / "csrc/include/picolite/picolite.h").is_file() and \
                (Path(c) / "tests/mcu/startup.c").is_file():
            return Path(c)
    raise MeasureError("picolite's C sources were not found: pass source= (a clone of "
                       "picolite) or set PICOLITE_SOURCE")


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "picolite" / "mcu"


def compile_flags(src: Path, cpu: str, opt: str, runtime: str) -> List[str]:
    if cpu not in CPUS:
        raise ValueError(f"unknown cpu {cpu!r} (one of {sorted(CPUS)})")
    if opt not in OPTS or runtime not in RUNTIMES:
        raise ValueError(f"opt must be one of {OPTS}, runtime one of {sorted(RUNTIMES)}")
    return (["-std=c11", *CPUS[cpu]["flags"], f"-{opt}", "-DNDEBUG", "-ffunction-sections",
             "-fdata-sections", "-ffp-contract=off", "-DPL_CONV_GATHER=64",
             f"-I{src / 'csrc/include'}", f"-I{src / 'csrc'}"] +
            [f"-D{o}" for o in RUNTIMES[runtime]])


def _sources(src: Path) -> List[Path]:
    return sorted(p for p in (src / "csrc").rglob("*.c") if "fast" not in p.parts)


def _digest(src: Path, flags: Sequence[str]) -> str:
    h = hashlib.sha256(" ".join(flags).replace(str(src), "SRC").encode())  # any checkout
    for p in sorted((src / "csrc").rglob("*")):
        if p.suffix in (".c", ".h") and "fast" not in p.parts:
            h.update(str(p.relative_to(src)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _run(cmd: Sequence[str], what: str, timeout: float = 600) -> subprocess.CompletedProcess:
    r = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise MeasureError(f"{what} failed:\n{' '.join(cmd)}\n{r.stdout[-2000:]}"
                           f"{r.stderr[-3000:]}")
    return r


def build_library(cpu: str = "cortex-m4f", opt: str = "Os", runtime: str = "trimmed",
                  source: Optional[str] = None, jobs: int = 2) -> Path:
    """picolite's runtime as ``libpicolite.a`` for the CPU, cached by the sources' hash."""
    src = find_source(source)
    flags = compile_flags(src, cpu, opt, runtime)
    out = _cache_root() / f"{cpu}-{opt}-{runtime}-{_digest(src, flags)}"
    lib = out / "libpicolite.a"
    if lib.is_file():
        return lib
    objs = out / "obj"
    objs.mkdir(parents=True, exist_ok=True)
    files = _sources(src)

    def compile_one(c: Path) -> Path:
        o = objs / (str(c.relative_to(src / "csrc")).replace(os.sep, "__") + ".o")
        _run(["arm-none-eabi-gcc", *flags, "-c", str(c), "-o", str(o)], f"compiling {c.name}")
        return o

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        built = list(pool.map(compile_one, files))
    tmp = out / "libpicolite.a.tmp"
    _run(["arm-none-eabi-ar", "rcs", str(tmp), *map(str, built)], "archiving")
    tmp.replace(lib)
    return lib


def _input_c(data: bytes) -> str:
    rows = ",\n".join(", ".join(str(b) for b in data[i:i + 24])
                      for i in range(0, len(data), 24))
    return ("#include <stddef.h>\n"
            f"const unsigned char pl_mcu_input[{max(len(data), 1)}] = {{\n{rows or '0'}\n}};\n"
            f"const size_t pl_mcu_input_size = {len(data)};\n")


def link_firmware(lib: Path, export_dir: Path, name: str, cpu: str, opt: str,
                  nodes: int, source: Optional[str] = None) -> Tuple[Path, Path]:
    """Links ``export_dir``'s NAME.c / NAME.h / input.c with the measuring main and the
    board support against ``lib``; returns the ELF and its link map."""
    src = find_source(source)
    board = src / "tests" / "mcu"
    flags = compile_flags(src, cpu, opt, "full")
    elf, mapfile = export_dir / f"{name}.elf", export_dir / f"{name}.map"
    ld = PACKAGE_DATA / CPUS[cpu]["ld"] if CPUS[cpu]["ld"] else board / "mps2.ld"
    cmd = ["arm-none-eabi-gcc", *flags, *CPUS[cpu]["defines"], f"-I{board}", f"-I{export_dir}",
           f"-DPL_MCU_MODEL={name}", f"-DPL_MCU_MODEL_UPPER={name.upper()}",
           f'-DPL_MCU_HEADER="{name}.h"', f"-DPL_MEASURE_NODES={max(nodes, 1)}",
           str(PACKAGE_DATA / "measure_main.c"), str(export_dir / f"{name}.c"),
           str(export_dir / "input.c"), str(board / "startup.c"), str(board / "stack.c"),
           str(lib), "-lm", "-nostartfiles", "--specs=nano.specs", "-Wl,--gc-sections",
           f"-T{ld}", f"-Wl,-Map={mapfile}", "-o", str(elf)]
    _run(cmd, f"linking {name}")
    return elf, mapfile


def run_firmware(elf: Path, cpu: str, timeout: float = 900) -> Dict[str, Any]:
    """Runs the firmware under QEMU's instruction counter and reads its report."""
    cmd = ["qemu-system-arm", "-machine", CPUS[cpu]["board"], "-nographic", "-monitor",
           "none", "-serial", "none", "-icount", "shift=0", "-semihosting-config",
           "enable=on,target=native", "-kernel", str(elf)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    text = r.stdout + r.stderr
    if r.returncode != 0 or "done" not in text:
        raise MeasureError(f"{elf.name} on {CPUS[cpu]['board']}: {text[-2000:]}")
    figures: Dict[str, Any] = {"nodes": {}}
    for line in text.splitlines():
        m = re.match(r"^node (\d+) (\d+)$", line)
        if m:
            figures["nodes"][int(m.group(1))] = int(m.group(2))
            continue
        m = re.match(r"^(\w+) (\d+)$", line)
        if m:
            figures[m.group(1)] = int(m.group(2))
    return figures


def section_sizes(elf: Path) -> Dict[str, int]:
    """text (code and constants: the linker script keeps .rodata in .text), data, bss."""
    out = _run(["arm-none-eabi-size", "-A", str(elf)], "size").stdout
    sizes = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].startswith(".") and parts[1].isdigit():
            sizes[parts[0]] = int(parts[1])
    return sizes


def _random(detail: Dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    """Inputs as the CLI draws them: integers over their type's range, floats in [-1, 1)."""
    dtype, shape = np.dtype(detail["dtype"]), tuple(int(d) for d in detail["shape"])
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, int(info.max) + 1, size=shape, dtype=dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


def _inputs(content: bytes, seed: int) -> Tuple[bytes, int]:
    from picolite._unified import Interpreter

    it = Interpreter(model_content=content)
    it.allocate_tensors()
    rng = np.random.default_rng(seed)
    data = b"".join(_random(d, rng).tobytes() for d in it.get_input_details())
    return data, len(it._get_ops_details())


def measure(model: Any, cpu: str = "cortex-m4f", opt: str = "Os", runtime: str = "trimmed",
            clock_mhz: float = 120.0, source: Optional[str] = None, seed: int = 0,
            workdir: Optional[str] = None) -> Dict[str, Any]:
    """Builds ``model``'s firmware with picolite's runtime and counts the instructions of
    one invoke, per layer and in all, under QEMU; also the firmware's sections and the
    stack high-water marks. Raises :class:`MeasureError` when it cannot."""
    from picolite import costs
    from picolite.export import export_c

    missing = missing_tools()
    if missing:
        raise MeasureError(f"--measure needs {', '.join(missing)} (Debian: gcc-arm-none-eabi "
                           "libnewlib-arm-none-eabi qemu-system-arm)")
    content = Path(model).read_bytes() if isinstance(model, (str, os.PathLike)) else \
        bytes(model)
    lib = build_library(cpu, opt, runtime, source)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        out = Path(tmp)
        export_c(content, out, "model")
        data, nodes = _inputs(content, seed)
        (out / "input.c").write_text(_input_c(data))
        elf, _ = link_firmware(lib, out, "model", cpu, opt, nodes, source)
        figures = run_firmware(elf, cpu)
        sections = section_sizes(elf)
    tick = CPUS[cpu]["per_tick"]
    per_layer = [round(figures["nodes"].get(i, 0) * tick) for i in range(nodes)]
    invoke = round(figures["invoke_ticks"] * tick)
    return {"cpu": cpu, "board": CPUS[cpu]["board"], "opt": opt, "runtime": runtime,
            "layer_instructions": per_layer, "invoke_instructions": invoke,
            "allocate_instructions": round(figures["allocate_ticks"] * tick),
            "resolution": tick, "stack_invoke": figures.get("stack_invoke"),
            "stack_allocate": figures.get("stack_allocate"),
            "firmware_text": sections.get(".text", 0), "firmware_sections": sections,
            "input_bytes": len(data),  # the input held in the firmware's flash
            **costs.milliseconds(invoke, clock_mhz)}
