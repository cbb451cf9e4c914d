"""The package's public names for the report modules (analyze, validate, measure), imported
from the modules that define them rather than from ``picolite`` itself, whose ``__init__``
imports those report modules (no import cycle). ``_unified`` / ``_core`` hold them once
``_api`` is split by audience; ``_api`` before."""

try:
    from picolite._core import TARGETS, required_arena_size
    from picolite._unified import Interpreter
except ImportError:  # the package before the split
    from picolite._api import TARGETS, Interpreter, required_arena_size
from picolite.evaluate import evaluate

__all__ = ["TARGETS", "Interpreter", "evaluate", "required_arena_size"]
