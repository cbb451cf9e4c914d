"""picolite: a TensorFlow Lite Micro-compatible inference runtime for validating models.

    import picolite
    it = picolite.Interpreter("model.tflite")          # arena = exactly what it needs
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x); it.invoke()
    print(it.allocations())                             # TFLM's allocation report
    picolite.required_arena_size("model.tflite")        # the exact minimum, in bytes
"""

from picolite._picolite import __version__
from picolite._core import (TARGETS, Arena, kernel_sets, required_arena_size,
                            required_arena_sizes, supported_ops)
from picolite._custom import CustomOp, TensorSpec
from picolite._errors import (ArenaTooSmallError, Error, ModelError, ResizeError, StateError,
                              UnsupportedOpError)
from picolite._reports import (PLANNERS, AllocationReport, MemoryPlan, PlannedBuffer, PlanResult,
                               plan_memory)
from picolite._unified import Interpreter
from picolite.csource import c_flags, c_include_dirs, c_sources
from picolite.evaluate import evaluate
from picolite.analyze import analyze
from picolite.validate import validate
from picolite.offline_plan import write_offline_plan

__all__ = [
    "__version__",
    "PLANNERS",
    "TARGETS",
    "AllocationReport",
    "Arena",
    "ArenaTooSmallError",
    "CustomOp",
    "Error",
    "Interpreter",
    "MemoryPlan",
    "ModelError",
    "PlannedBuffer",
    "PlanResult",
    "ResizeError",
    "StateError",
    "TensorSpec",
    "UnsupportedOpError",
    "c_flags",
    "c_include_dirs",
    "c_sources",
    "kernel_sets",
    "plan_memory",
    "required_arena_size",
    "required_arena_sizes",
    "evaluate",
    "analyze",
    "validate",
    "write_offline_plan",
]


def __getattr__(name):
    # picolite.testing, .plot and .profile load on first use (optional packages, numpy work).
    if name in ("testing", "plot", "profile"):
        import importlib

        return importlib.import_module(f"picolite.{name}")
    raise AttributeError(f"module 'picolite' has no attribute {name!r}")
