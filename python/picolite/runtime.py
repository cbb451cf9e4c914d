"""tflite_micro's Python module surface over picolite: change one import line.

    from tflite_micro.python.tflite_micro import runtime    # before
    from picolite import runtime                            # after

    it = runtime.Interpreter.from_file("model.tflite")     # creates and allocates
    it.set_input(x, 0); it.invoke(); y = it.get_output(0)
    it.get_input_details(0)     # {"dtype", "shape", "quantization_parameters"}
    it.print_allocations()      # TFLM's RecordingMicroAllocator text

The interpreter is picolite's (:class:`picolite.Interpreter`), so every picolite method
(allocations(), memory_plan(), get_tensor_details() ...) is there too. Differences from
TFLM, all deliberate: ``arena_size=None`` is the exact size the model needs (TFLM uses 10x
the model size); ``custom_op_registerers`` must be a list of strings as in TFLM, and any
name is refused with TFLM's RuntimeError (picolite links no C++ registerers);
``alt_decompression_memory_size`` is accepted and unused (TFLM_DECODE's outputs are planned
in the arena); GetTensor() also reads kept tensors (inputs, outputs, constants) without
kPreserveAllTensors; allocation errors keep picolite's classes (ArenaTooSmallError,
UnsupportedOpError and StateError are RuntimeErrors, ModelError a ValueError) with TFLM's
text "TFLM failed to allocate tensors" first.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from picolite import _api
from picolite._api import InterpreterConfig

__all__ = ["Interpreter", "InterpreterConfig"]


class Interpreter(_api.Interpreter):
    """tflite_micro's Interpreter: construction allocates; from_file / from_bytes."""

    def __init__(self, model_data: Any, custom_op_registerers: Optional[List[str]],
                 arena_size: Optional[int],
                 intrepreter_config: InterpreterConfig = InterpreterConfig.kAllocationRecording,
                 alt_decompression_memory_size: int = 0):
        self._tflm_init(model_data, custom_op_registerers, arena_size, intrepreter_config,
                        alt_decompression_memory_size)

    @classmethod
    def from_bytes(cls, model_data: Any, custom_op_registerers: Optional[List[str]] = None,
                   arena_size: Optional[int] = None,
                   intrepreter_config: InterpreterConfig = InterpreterConfig.kAllocationRecording,
                   alt_decompression_memory_size: int = 0) -> "Interpreter":
        return cls(model_data, [] if custom_op_registerers is None else custom_op_registerers,
                   arena_size, intrepreter_config, alt_decompression_memory_size)

    def get_input_details(self, index: Optional[int] = None) -> Any:  # type: ignore[override]
        """TFLM's dict for input ``index``: dtype, shape, quantization_parameters."""
        if index is None:
            raise ValueError("Index must be a non-negative integer, got None")
        return _tflm_details(super().get_input_details(index))

    def get_output_details(self, index: Optional[int] = None) -> Any:  # type: ignore[override]
        """TFLM's dict for output ``index``: dtype, shape, quantization_parameters."""
        if index is None:
            raise ValueError("Index must be a non-negative integer, got None")
        return _tflm_details(super().get_output_details(index))

    def invoke(self) -> int:  # type: ignore[override]
        """Runs the model; returns 0 (TFLM's kTfLiteOk), 15 (TFLM's kTfLiteAbort) when a
        kernel ended the run early (a CIRCULAR_BUFFER between its runs: the nodes after it
        did not run), or raises."""
        return 0 if self._run() else 15

    def reset(self) -> int:  # type: ignore[override]
        """Zeroes the variable tensors and resets the kernels; returns 0 (kTfLiteOk)."""
        super().reset()
        return 0


def _tflm_details(d: Dict[str, Any]) -> Dict[str, Any]:
    q = d["quantization_parameters"]
    return {"dtype": d["dtype"], "shape": d["shape"],
            "quantization_parameters": {"scales": q["scales"], "zero_points": q["zero_points"],
                                        "quantized_dimension": q["quantized_dimension"]}}
