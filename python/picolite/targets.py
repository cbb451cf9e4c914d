"""The firmware a figure is for: picolite's own runtime, or TFLM (what its arena needs).

picolite always runs its own arena on the host. For a TFLM target ("tflm": TFLM with its
reference kernels on a 32-bit Cortex-M; "tflm-x86-64": TFLM on a 64-bit host, as the
``tflite-micro`` wheel builds it) the arena figures are computed by the C runtime's model of
TFLM's allocator (``csrc/tflm/``) from the model and the shapes picolite's allocate
resolved: ``arena_used_bytes``, the exact minimum arena, and RecordingMicroAllocator's
breakdown, line for line.

The wheel's interpreter records its allocations (a RecordingMicroAllocator, whose objects
are larger than a plain MicroAllocator's), makes its resource variables before the
interpreter and is built with TFLM's compression support; "tflm-x86-64" is exactly that.
A plain C++ MicroInterpreter on the same host needs a few hundred bytes less.
"""

from typing import Any, Dict, List, Optional, Tuple

from picolite import _picolite as _c

#: Targets whose arena figures come from the model of TFLM's allocator.
TFLM_TARGETS: Tuple[str, ...] = ("tflm", "tflm-x86-64", "tflm-cmsis-nn", "tflm-cmsis-nn-mve",
                                 "tflm-cmsis-nn-nodsp")


#: What each target's figures are for, in words (the CLI's --targets table).
TITLES: Dict[str, str] = {
    "tflm": "TFLM, reference kernels, 32-bit Cortex-M",
    "tflm-cmsis-nn": "TFLM + CMSIS-NN, DSP extension (Cortex-M4, M7, M33)",
    "tflm-cmsis-nn-nodsp": "TFLM + CMSIS-NN, no DSP extension (Cortex-M0, M0+, M3)",
    "tflm-cmsis-nn-mve": "TFLM + CMSIS-NN, Helium (Cortex-M55, M85)",
    "tflm-x86-64": "TFLM as the tflite-micro wheel runs it (x86-64)",
    "picolite": "picolite's own runtime",
}


def is_tflm(target: str) -> bool:
    """Whether ``target``'s arena figures are TFLM's (computed), not picolite's own."""
    return target in TFLM_TARGETS


def check_plan(target: str, planner: str, preserve_all_tensors: bool) -> None:
    """TFLM plans with its greedy planner (what ``planner="greedy"`` reproduces); the other
    planners and preserve_all_tensors size picolite's own arena only."""
    if is_tflm(target) and (planner != "greedy" or preserve_all_tensors):
        raise ValueError(f"target {target!r} plans its arena with TFLM's greedy planner; "
                         f"planner={planner!r}, preserve_all_tensors={preserve_all_tensors} "
                         f"size picolite's own arena: pass target='picolite'")


def figures(c_interp: Any, target: str, arena_size: int = 0) -> Dict[str, Any]:
    """TFLM's figures for an allocated C interpreter (the ``_picolite._Interpreter``), for
    an arena of ``arena_size`` bytes (0: a large one). ArenaTooSmallError(required,
    available) when ``arena_size`` is below TFLM's minimum."""
    return _c.tflm_arena(c_interp, target, arena_size)


def required(content: bytes, target: str, own_required: int,
             input_shapes: Optional[List[Tuple[int, Any]]] = None,
             custom: Optional[Dict[str, Any]] = None) -> int:
    """TFLM's exact minimum arena for ``content``: picolite allocates the model in an arena
    of ``own_required`` bytes (its own minimum), then TFLM's allocator is replayed on it."""
    Arena = _c.Arena

    it = _c._Interpreter(content, Arena(own_required), "greedy", False, 1_000_000,
                         kernels="portable", target="picolite", input_shapes=input_shapes,
                         **(custom or {}))
    try:
        it.allocate_tensors()
        return figures(it, target)["min_arena_bytes"]
    finally:
        it.close()


def check(target: str, required_bytes: int, firmware: int) -> None:
    """ArenaTooSmallError(required, available) when the firmware's arena is too small."""
    from picolite._errors import ArenaTooSmallError

    if firmware < required_bytes:
        e = ArenaTooSmallError(f"arena too small: TFLM ({target}) needs an arena of "
                               f"{required_bytes} bytes, {firmware} given")
        e.required, e.available = required_bytes, firmware
        raise e


def host_arena(content: bytes, target: str, firmware: int, planner: str,
               preserve_all_tensors: bool, custom: Dict[str, Any]) -> int:
    """The host arena for an interpreter whose firmware has ``firmware`` bytes: refused
    (ArenaTooSmallError) when TFLM needs more, else at least what picolite's own run needs.
    When either figure cannot be computed (an operator picolite or TFLM lacks), the host
    takes ``firmware`` bytes and the error shows where it belongs (allocate_tensors(), or
    the arena report)."""
    from picolite._errors import ArenaTooSmallError

    try:
        own = _c.required_arena_size(content, planner, preserve_all_tensors, None, **custom)
    except ArenaTooSmallError:
        raise
    except Exception:
        return firmware
    try:
        need = required(content, target, own, None, custom)
    except Exception:
        return max(firmware, own)
    check(target, need, firmware)
    return max(firmware, own)


def check_firmware_arena(c_interp: Any, target: str, firmware: int) -> None:
    """After allocate_tensors() (a resize may have changed the shapes): ArenaTooSmallError
    when the firmware's arena is below TFLM's minimum; other errors wait for the report."""
    try:
        need = figures(c_interp, target)["min_arena_bytes"]
    except Exception:
        return
    check(target, need, firmware)


def report(tflm: Dict[str, Any], own_text: str) -> Tuple[Dict[str, Any], str]:
    """The AllocationReport fields of TFLM's figures, and the report's text."""
    rec = tflm["recording"]
    fields = {"total": rec["total"], "head": rec["head"], "tail": rec["tail"],
              "head_tensors": rec["head_tensors"], "head_scratch": rec["head_scratch"],
              "temp_high_water": rec["temp_high_water"], "peak": tflm["min_arena_bytes"],
              "lower_bound": rec["lower_bound"], "planner": "greedy",
              "arena_size": tflm["arena_size"] or (rec["min_arena_bytes"] + 15) // 16 * 16,
              "categories": rec["categories"],
              "target": tflm["target"]}
    return fields, report_text(tflm, own_text)


def report_text(tflm: Dict[str, Any], own_text: str) -> str:
    """TFLM's RecordingMicroAllocator lines, then a [picolite] line with the target's
    arena_used_bytes and minimum, then picolite's own lines (its own arena's figures)."""
    sizes = [line.split("Arena allocation ", 1)[1].replace(" bytes", "")
             for line in own_text.splitlines() if "] Arena allocation " in line]
    own = [line for line in own_text.splitlines()  # the lines in TFLM's words are above
           if "] Arena allocation " not in line and "with alignment overhead" not in line]
    lines = [tflm["recording"]["text"].rstrip("\n"),
             f"[picolite] target {tflm['target']}: arena_used_bytes "
             f"{tflm['arena_used_bytes']} bytes, minimum arena {tflm['min_arena_bytes']} "
             f"bytes"]
    if sizes:
        lines.append(f"[picolite] picolite's own arena: {', '.join(sizes)} bytes")
    return "\n".join(lines + own) + "\n"
