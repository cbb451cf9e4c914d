"""LiteRT's metrics hook (``ai_edge_litert.metrics_portable``), kept so that code written for
LiteRT runs after its import lines change from ``ai_edge_litert`` to ``picolite``.

LiteRT's pip package counts nothing: every method of its portable TFLiteMetrics is a no-op,
and so are picolite's. ``picolite.interpreter.Interpreter`` calls
``TFLiteMetrics().increase_counter_interpreter_creation()`` once per interpreter it creates,
where LiteRT's does, so a test that mocks the counter (LiteRT's own ``testCreationCounter``)
sees the call. Nothing is recorded or sent anywhere.
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = ["TFLiteConverterMetrics", "TFLiteMetrics"]


class TFLiteMetrics:
    """LiteRT's TFLiteMetrics, with its method names; every method does nothing."""

    def __init__(self, model_hash: Optional[str] = None,
                 model_path: Optional[str] = None) -> None:
        pass

    def increase_counter_debugger_creation(self) -> None:
        pass

    def increase_counter_interpreter_creation(self) -> None:
        pass

    def increase_counter_converter_attempt(self) -> None:
        pass

    def increase_counter_converter_success(self) -> None:
        pass

    def set_converter_param(self, name: Any, value: Any) -> None:
        pass

    def set_converter_error(self, error_data: Any) -> None:
        pass

    def set_converter_latency(self, value: Any) -> None:
        pass


class TFLiteConverterMetrics(TFLiteMetrics):
    """LiteRT's converter variant; also without effect."""

    def set_export_required(self) -> None:
        pass

    def export_metrics(self) -> None:
        pass
