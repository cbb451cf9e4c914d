"""picolite's own runtime needs no more arena than TFLM (issue 19, point 4).

picolite's own figure (target "picolite": the same on a 32-bit MCU as on the host,
tests/test_mcu.py) against TFLM's exact minimum (target "tflm": reference kernels,
Cortex-M4), on every zoo model and every ../shared model both targets accept.
benchmarks/own_vs_tflm_arena.py prints the figures and each arena's breakdown.

How: the interpreter's record (pl_interp, 448 bytes) is the caller's storage
(pl_interp_options.storage), as TFLM's MicroInterpreter is the caller's object; the arena
keeps only picolite's arena record (32 bytes) where TFLM keeps its allocator objects (124 on
Cortex-M4). Kernels whose prepare needs no quantization read eval views on the stack, not
copies in the arena's temp (STRIDED_SLICE's five tensors, the LSTM's biases). With the
record in the arena (storage NULL) a model needs exactly 448 bytes more (tests/c/
test_interp.c).
"""

import pytest

import picolite
from conftest import SHARED_MODELS, ZOO


def _figures(paths, base):
    """{name: (picolite's own, TFLM's)} of the models both targets accept."""
    out = {}
    for path in paths:
        try:
            own = picolite.required_arena_size(str(path), target="picolite")
            tflm = picolite.required_arena_size(str(path), target="tflm")
        except (picolite.Error, ValueError, RuntimeError):
            continue  # refused by a target: nothing to compare
        out[path.relative_to(base).as_posix()] = (own, tflm)
    return out


@pytest.fixture(scope="module")
def zoo_figures():
    return _figures(sorted(ZOO.rglob("*.tflite")), ZOO)


@pytest.fixture(scope="module")
def shared_figures():
    if not SHARED_MODELS.is_dir():
        pytest.skip(f"{SHARED_MODELS} is absent (it exists only beside the project's CI)")
    return _figures(sorted(SHARED_MODELS.rglob("*.tflite")), SHARED_MODELS)


def test_both_targets_size_most_models(zoo_figures):
    assert len(zoo_figures) > 600


@pytest.mark.parametrize("which", ["zoo", "shared"])
def test_own_arena_at_most_tflms(which, request):
    figures = request.getfixturevalue(f"{which}_figures")
    over = {name: own - tflm for name, (own, tflm) in figures.items() if own > tflm}
    assert not over, f"{len(over)} of {len(figures)} models over TFLM's figure: {over}"


def test_the_issues_examples(zoo_figures, shared_figures):
    """The issue's three examples (picolite's own, TFLM's): hello_world_int8 was (1312, 1068),
    anomaly detection (2992, 2700), micro_speech (6896, 6800)."""
    assert zoo_figures["mlperf_tiny/ad01_int8.tflite"] == (2064, 2700)
    assert shared_figures["examples/hello_world/hello_world_int8.tflite"] == (720, 1068)
    assert shared_figures["examples/micro_speech/micro_speech_quantized.tflite"] == (6448, 6800)
