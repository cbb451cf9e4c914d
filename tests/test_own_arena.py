"""picolite's own runtime needs no more arena than TFLM (issue 19, point 4).

picolite's own figure (target "picolite": the same on a 32-bit MCU as on the host,
tests/test_mcu.py) against TFLM's exact minimum (target "tflm": reference kernels,
Cortex-M4), on every zoo model and every ../shared model both targets accept.
benchmarks/own_vs_tflm_arena.py prints the figures and each arena's breakdown.

Where they stand: picolite keeps its interpreter record (pl_interp, 448 bytes, the same on
every target) and its arena record (32 bytes) in the arena's tail, where TFLM keeps only its
allocator objects (124 bytes on Cortex-M4: SingleArenaBufferAllocator 36, MicroAllocator 36,
GreedyMemoryPlanner 44, the builtin data allocator 8); TFLM's MicroInterpreter, MicroGraph
and MicroContext are the caller's object, outside the arena. That fixed difference, 356
bytes, is larger than what picolite saves elsewhere (8-byte node records against TFLM's
32, no persistent TfLiteTensors for the inputs and outputs) on all but the larger models.
A kernel's prepare also holds its full tensor views in temp at 88 bytes each (a pl_tensor
at its 64-bit size, so the MCU's figure is the host's) where TFLM's temp TfLiteTensor is 32.
So the issue's demand fails today on most small models (test_own_arena_at_most_tflms is an
expected failure, strict: it turns into a failure to remove the mark once it holds), and
what is guarded is the rest: past the interpreter record, picolite needs no more than TFLM
except on the models listed in OVER_PAST_RECORD, each by at most its figure there.
"""

import pytest

import picolite
from conftest import SHARED_MODELS, ZOO

# sizeof(pl_interp) (csrc/runtime/state.h, a static assertion): a multiple of 16, the first
# tail allocation after the arena record, so a model's figure moves by exactly this much
# with the record out of the arena.
INTERP_RECORD = 448

# Past the interpreter record still over TFLM's figure, by these many bytes at most: prepare
# temp (LSTM 16x8: 24 tensors in temp at 88 bytes each against TFLM's 32) and STRIDED_SLICE's
# op data and temp views.
OVER_PAST_RECORD = {
    "lstm16x8/lstm16x8_b1_t6_i8_s12.tflite": 28,
    "strided_slice_masks_neg_int16x8.tflite": 68,
    "strided_slice_masks_neg_int8.tflite": 68,
    "strided_slice_shrink_int8.tflite": 4,
}


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


def _over(figures, allowance=0):
    return {name: own - allowance - tflm for name, (own, tflm) in figures.items()
            if own - allowance > tflm}


def test_both_targets_size_most_models(zoo_figures):
    assert len(zoo_figures) > 600


@pytest.mark.parametrize("which", ["zoo", "shared"])
def test_own_arena_past_the_interpreter_record(which, request):
    """Every byte of picolite's arena but its interpreter record fits in TFLM's figure, but
    on OVER_PAST_RECORD's models, whose excess may only shrink."""
    figures = request.getfixturevalue(f"{which}_figures")
    over = _over(figures, INTERP_RECORD)
    grown = {name: extra for name, extra in over.items()
             if extra > OVER_PAST_RECORD.get(name, 0)}
    assert not grown, grown


@pytest.mark.xfail(strict=True, reason="picolite's interpreter record (448 bytes) and its "
                   "88-byte temp tensor views: a design change (module docstring)")
@pytest.mark.parametrize("which", ["zoo", "shared"])
def test_own_arena_at_most_tflms(which, request):
    figures = request.getfixturevalue(f"{which}_figures")
    over = _over(figures)
    assert not over, f"{len(over)} of {len(figures)} models over, e.g. {sorted(over)[:5]}"


def test_the_issues_examples(zoo_figures, shared_figures):
    """The issue's three examples (picolite's own, TFLM's): hello_world_int8 was (1312, 1068),
    anomaly detection (2992, 2700), micro_speech (6896, 6800)."""
    assert zoo_figures["mlperf_tiny/ad01_int8.tflite"] == (2512, 2700)
    assert shared_figures["examples/hello_world/hello_world_int8.tflite"] == (1168, 1068)
    assert shared_figures["examples/micro_speech/micro_speech_quantized.tflite"] == (6896, 6800)
