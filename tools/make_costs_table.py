"""Regenerates python/picolite/data/costs.json: picolite's code sizes and instruction costs on
Cortex-M, measured from firmware built with arm-none-eabi-gcc and run under QEMU.

    python tools/make_costs_table.py [--cpus cortex-m4f cortex-m3] [--opts Os O2]
                                     [--tflm-lib DIR] [--skip-instructions]

Code sizes: for each CPU and optimization level, picolite's runtime is built three ways
(full, trimmed, minimal: README "On a microcontroller") and linked into the firmware of
picolite/data/mcu/measure_main.c, once with no kernel (the core) and once per kernel with
that kernel alone. The linker map names every input section (-ffunction-sections: one per
function and constant) with its size; a kernel's sections are those its firmware has and
the core's has not, so a model's kernel code is the union of its operators' sections.

Instruction costs (Cortex-M4F, -Os, trimmed): every model of tests/models runs under QEMU's
instruction counter (picolite.measure); per operator and input type a non-negative least-
squares fit gives instructions = fixed + per_mac * MACs + per_byte * activation bytes, and
the estimate's error on the zoo's nets and MLPerf Tiny's models is recorded beside it.

TFLM's figures (--tflm-lib DIR: a libtensorflow-microlite.a built for the CPU): the sizes of
its members (arm-none-eabi-size), kernels by file name and the framework as the core.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import picolite  # noqa: E402
from picolite import measure  # noqa: E402
from picolite import _picolite  # noqa: E402  (the kernel table, as export-c reads it)

TABLE = ROOT / "python" / "picolite" / "data" / "costs.json"
CUSTOM = 32
FLASH_SECTIONS = (".text", ".rodata", ".data", ".ARM.exidx", ".ARM.extab")  # what flash holds


def dump(table: Dict[str, Any]) -> str:
    """JSON with every list of numbers or short pairs on one line (the table stays diffable
    and a third of the size)."""
    text = json.dumps(table, indent=1, sort_keys=True)
    return re.sub(r"\[\s*([^\[\]{}]*?)\s*\]",
                  lambda m: "[" + re.sub(r"\s*\n\s*", " ", m.group(1)) + "]", text) + "\n"


def _stub(out: Path, kernels: Sequence[Tuple[int, str, str]]) -> None:
    """NAME.c / NAME.h with an empty model and a resolver of ``kernels``: the firmware links
    exactly those kernels (never run)."""
    decls = "\n".join(f"const pl_registration *{k[2]}(void);" for k in kernels)
    entries = "\n".join(f'    {{{k[0]}, "{k[1]}", {k[2]}}},' if k[0] == CUSTOM else
                        f"    {{{k[0]}, NULL, {k[2]}}}," for k in kernels) or "    {0, NULL, NULL},"
    (out / "stub.h").write_text(
        '#include <stddef.h>\n#include "picolite/picolite.h"\n#define STUB_ARENA_SIZE 64u\n'
        "extern const unsigned char stub_model[];\nextern const size_t stub_model_size;\n"
        "const pl_resolver *stub_resolver(void);\n")
    (out / "stub.c").write_text(
        f'#include "stub.h"\n{decls}\n_Alignas(16) const unsigned char stub_model[16] = {{0}};\n'
        "const size_t stub_model_size = 16;\n"
        f"static const pl_kernel_entry kernels[] = {{\n{entries}\n}};\n"
        f"static const pl_kernel_list kernel_list = {{kernels, {len(kernels)}}};\n"
        "static const pl_resolver resolver = {pl_list_resolver_find, &kernel_list};\n"
        "const pl_resolver *stub_resolver(void) { return &resolver; }\n")
    (out / "input.c").write_text(measure._input_c(b""))


_MAP_ENTRY = re.compile(r"^ (\.[^\s]+)\s*\n?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S[^\n]*)$",
                        re.M)


def map_sections(mapfile: Path) -> Dict[str, int]:
    """Input sections linked into flash: 'object:section' -> bytes."""
    text = mapfile.read_text()
    text = text[text.find("Linker script and memory map"):]
    found: Dict[str, int] = {}
    for name, addr, size, obj in _MAP_ENTRY.findall(text):
        if not name.startswith(FLASH_SECTIONS) or int(size, 16) == 0:
            continue
        obj = re.sub(r"^.*/", "", obj.strip())
        found[f"{obj}:{name}"] = int(size, 16)
    return found


def _link(lib: Path, kernels, cpu: str, opt: str) -> Dict[str, int]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        _stub(out, kernels)
        _, mapfile = measure.link_firmware(lib, out, "stub", cpu, opt, 1, str(ROOT))
        return map_sections(mapfile)


def _board(sections: Dict[str, int]) -> Dict[str, int]:
    """The runtime's sections: archive members (picolite's library, newlib, libgcc), not the
    firmware's own objects (main, board, model, input), which gcc compiled on the fly."""
    return {k: v for k, v in sections.items() if "(" in k.split(":")[0]}


def code_sizes(cpu: str, opt: str) -> Dict[str, Any]:
    kernels = list(_picolite._builtin_kernels())
    cores = {}
    for runtime in measure.RUNTIMES:
        lib = measure.build_library(cpu, opt, runtime, str(ROOT))
        cores[runtime] = sum(_board(_link(lib, [], cpu, opt)).values())
    lib = measure.build_library(cpu, opt, "trimmed", str(ROOT))
    base = _board(_link(lib, [], cpu, opt))
    sections: Dict[str, int] = {}
    per_op: Dict[str, List[str]] = {}
    for k in kernels:
        linked = _board(_link(lib, [k], cpu, opt))
        added = {s: n for s, n in linked.items() if s not in base}
        sections.update(added)
        per_op[k[1]] = sorted(added)
    print(f"{cpu} -{opt}: core {cores}, {len(per_op)} kernels, "
          f"{sum(sections.values())} B of kernel code in all", flush=True)
    names = sorted(sections)
    index = {n: i for i, n in enumerate(names)}
    return {"core": cores, "sections": [[short_name(n), sections[n]] for n in names],
            "kernels": {op: sorted(index[s] for s in secs) for op, secs in sorted(per_op.items())}}


def short_name(key: str) -> str:
    """'libpicolite.a(kernels__conv__conv.c.o):.text.f' -> 'kernels/conv/conv:.text.f'
    (libc_nano.a(lib_a-memcpy.o) -> libc_nano/lib_a-memcpy)."""
    obj, section = key.split(":", 1)
    obj = obj.replace("libpicolite.a(", "").replace(".c.o)", "").replace("__", "/")
    obj = re.sub(r"^(lib\w+)\.a\((.*)\.o\)$", r"\1/\2", obj)
    return f"{obj}:{section}"


def zoo_models() -> List[Path]:
    """The zoo's own models (tests/models/*.tflite: every kernel and type once, and the
    nets); the sub-folders' variants add time, not operators."""
    return sorted((ROOT / "tests/models").glob("*.tflite"))


def _layer_rows(path: Path, cpu: str) -> Tuple[List[Any], Dict[str, Any]]:
    from picolite.analyze import analyze

    a = analyze(path, target="picolite", cpu=cpu)
    m = measure.measure(path, cpu=cpu, opt="Os", runtime="trimmed", source=str(ROOT))
    return a.layers, m


def _fit(rows: List[Tuple[int, int, int]]) -> Dict[str, float]:
    """instructions = fixed + per_mac * macs + per_byte * bytes, non-negative."""
    y = np.array([r[0] for r in rows], float)
    x = np.array([[1.0, r[1], r[2]] for r in rows], float)
    cols = [c for c in range(3) if x[:, c].any()]
    coef = np.zeros(3)
    active = list(cols)
    while active:  # least squares, dropping a negative coefficient until none is left
        sol, *_ = np.linalg.lstsq(x[:, active], y, rcond=None)
        if (sol >= 0).all():
            coef[active] = sol
            break
        active.pop(int(np.argmin(sol)))
    return {"fixed": round(float(coef[0]), 3), "per_mac": round(float(coef[1]), 5),
            "per_byte": round(float(coef[2]), 5), "layers": len(rows)}


def instruction_costs(cpu: str, extra: Sequence[Path]) -> Dict[str, Any]:
    from picolite import costs

    runs, stacks = {}, {"invoke": 0, "allocate": 0}
    for path in zoo_models() + list(extra):
        try:
            layers, m = _layer_rows(path, cpu)
        except Exception as e:  # a model the MCU runtime refuses (dynamic shapes ...)
            print(f"  skipped {path.name}: {str(e).splitlines()[0][:100]}", flush=True)
            continue
        runs[path] = (layers, m)
        stacks["invoke"] = max(stacks["invoke"], m["stack_invoke"] or 0)
        stacks["allocate"] = max(stacks["allocate"], m["stack_allocate"] or 0)
    by_op: Dict[str, List[Tuple[int, int, int]]] = {}
    overhead = []
    zoo = [p for p in runs if p not in extra]
    for path in zoo:
        layers, m = runs[path]
        for layer, n in zip(layers, m["layer_instructions"]):
            by_op.setdefault(costs.op_key(layer), []).append(
                (n, layer.macs, layer.activation_bytes))
        overhead.append(m["invoke_instructions"] - sum(m["layer_instructions"]))
    ops = {k: _fit(v) for k, v in sorted(by_op.items())}
    table = {"ops": ops, "invoke_fixed": int(np.median(overhead)) if overhead else 0}
    errors, checks = [], {}
    for path, (layers, m) in runs.items():
        est = costs.estimate({"instructions": {cpu: table}}, layers, cpu, 120.0)
        err = (est["invoke_instructions"] - m["invoke_instructions"]) / m["invoke_instructions"]
        if path in extra:
            checks[path.stem] = {"measured": m["invoke_instructions"],
                                 "estimated": est["invoke_instructions"],
                                 "error_pct": round(100 * err, 1)}
        elif path.name.startswith("net_"):
            errors.append(abs(err))
            checks[path.stem] = {"measured": m["invoke_instructions"],
                                 "estimated": est["invoke_instructions"],
                                 "error_pct": round(100 * err, 1)}
    table["error_pct"] = round(100 * float(np.mean(errors)), 1) if errors else 0.0
    table["checks"] = checks
    print(f"{cpu}: {len(runs)} models, mean |error| on the zoo's nets {table['error_pct']} %",
          flush=True)
    return table, stacks


def tflm_sizes(lib: Path) -> Dict[str, Any]:
    """TFLM's objects by arm-none-eabi-size: kernels (micro/kernels/*) by operator, the rest
    of the library (framework, schema, flatbuffers) as its core."""
    out = subprocess.run(["arm-none-eabi-size", "-t", str(lib)], capture_output=True,
                         text=True, check=True).stdout
    kernels, core = {}, 0
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 6 or not parts[0].isdigit():
            continue
        text, data, name = int(parts[0]), int(parts[1]), parts[5]
        m = re.search(r"\(ex (\S+)\)", line)
        stem = Path(name).stem
        if "/kernels/" in line or stem in ("conv", "fully_connected"):
            kernels[stem] = kernels.get(stem, 0) + text + data
        else:
            core += text + data
    return {"kernels_by_file": kernels, "core": core}


def main(argv: Sequence[str] = ()) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cpus", nargs="+", default=["cortex-m4f", "cortex-m3"])
    p.add_argument("--opts", nargs="+", default=list(measure.OPTS))
    p.add_argument("--extra", nargs="*", default=[], help="models to check the estimate on "
                   "(MLPerf Tiny's four), not fitted")
    p.add_argument("--skip-instructions", action="store_true")
    p.add_argument("--skip-sizes", action="store_true")
    args = p.parse_args(list(argv))
    table: Dict[str, Any] = json.loads(TABLE.read_text()) if TABLE.is_file() else {}
    table["about"] = ("picolite's code sizes and instruction costs on Cortex-M, measured by "
                      "tools/make_costs_table.py; see picolite/costs.py")
    if not args.skip_sizes:
        for cpu in args.cpus:
            for opt in args.opts:
                table.setdefault("picolite", {}).setdefault(cpu, {})[opt] = code_sizes(cpu, opt)
                TABLE.write_text(dump(table))
    if not args.skip_instructions:
        extra = [Path(x) for x in args.extra]
        ins, stacks = instruction_costs("cortex-m4f", extra)
        table.setdefault("instructions", {})["cortex-m4f"] = ins
        table.setdefault("stack", {}).setdefault("cortex-m4f", {})["trimmed"] = stacks
    TABLE.write_text(dump(table))
    print(f"wrote {TABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
