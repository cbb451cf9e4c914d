"""tflite_micro's Python module surface over picolite: change one import line.

    from tflite_micro.python.tflite_micro import runtime    # before
    from picolite import runtime                            # after

    it = runtime.Interpreter.from_file("model.tflite")     # creates and allocates
    it.set_input(x, 0); it.invoke(); y = it.get_output(0)
    it.get_input_details(0)     # {"dtype", "shape", "quantization_parameters"}
    it.print_allocations()      # TFLM's RecordingMicroAllocator text

The interpreter carries TFLM's names and picolite's own (allocations(), memory_plan(),
arena_used_bytes(), profile() ...), not LiteRT's: :class:`picolite.Interpreter` has both
name sets, :mod:`picolite.interpreter` LiteRT's alone.

Differences from TFLM, all deliberate: ``arena_size=None`` is the exact size the model
needs (TFLM uses 10x the model size); ``custom_op_registerers`` must be a list of strings
as in TFLM, and any name is refused with TFLM's RuntimeError (picolite links no C++
registerers); ``alt_decompression_memory_size`` is accepted and unused (TFLM_DECODE's
outputs are planned in the arena); GetTensor() also reads kept tensors (inputs, outputs,
constants) without kPreserveAllTensors; allocation errors keep picolite's classes
(ArenaTooSmallError, UnsupportedOpError and StateError are RuntimeErrors, ModelError a
ValueError) with TFLM's text "TFLM failed to allocate tensors" first.
"""

from __future__ import annotations

import enum
import os
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from picolite._core import InterpreterCore
from picolite._errors import ArenaTooSmallError, StateError, UnsupportedOpError, as_index
from picolite._model import read_model

__all__ = ["Interpreter", "InterpreterConfig"]


class InterpreterConfig(enum.Enum):
    """tflite_micro's two interpreter configurations (``intrepreter_config=``, TFLM's
    spelling). picolite records allocations in both; kPreserveAllTensors plans every tensor
    apart (the linear planner) so that GetTensor() reads any tensor after invoke()."""

    kAllocationRecording = 0
    kPreserveAllTensors = 1


def _tflm_registerers(custom_op_registerers: Any) -> None:
    """tflite_micro's checks of custom_op_registerers. Its registerers are C++ functions
    linked into TFLM's wheel; picolite has none, so any name is refused (Python operators
    are not registered by name)."""
    if not isinstance(custom_op_registerers, list) or not all(
            isinstance(r, str) for r in custom_op_registerers):
        raise ValueError("Custom ops registerers must be a list of strings")
    for name in custom_op_registerers:
        raise StateError(f"TFLM could not register custom op via {name} (picolite links "
                         f"no C++ op registerers)")


class TFLMMethods(InterpreterCore):
    """tflite_micro's method names over the shared core (picolite.Interpreter has them
    too)."""

    # --- constructors ----------------------------------------------------------------

    @classmethod
    def from_file(cls, model_path: Any, custom_op_registerers: Optional[List[str]] = None,
                  arena_size: Optional[int] = None,
                  intrepreter_config: InterpreterConfig = InterpreterConfig.kAllocationRecording,
                  alt_decompression_memory_size: int = 0) -> "Interpreter":
        """tflite_micro's constructor: reads the file and allocates (see from_bytes)."""
        if model_path is None or not os.path.isfile(model_path):
            raise ValueError(f"Invalid model file path: {model_path!r} is not a file")
        return cls.from_bytes(read_model(model_path), custom_op_registerers, arena_size,
                              intrepreter_config, alt_decompression_memory_size)

    @classmethod
    def from_bytes(cls, model_data: Any, custom_op_registerers: Optional[List[str]] = None,
                   arena_size: Optional[int] = None,
                   intrepreter_config: InterpreterConfig = InterpreterConfig.kAllocationRecording,
                   alt_decompression_memory_size: int = 0) -> "Interpreter":
        """tflite_micro's constructor: allocates as TFLM's does, so set_input() may follow.
        arena_size None is the exact size the model needs (TFLM guesses 10x the model
        size); alt_decompression_memory_size is accepted and unused (TFLM_DECODE's outputs
        are planned in the arena, where TFLM would put them in that memory)."""
        self = cls.__new__(cls)
        TFLMMethods._tflm_init(self, model_data, custom_op_registerers, arena_size,
                               intrepreter_config, alt_decompression_memory_size)
        return self

    def _tflm_init(self, model_data: Any, custom_op_registerers: Optional[List[str]],
                   arena_size: Optional[int], config: InterpreterConfig,
                   alt_decompression_memory_size: int) -> None:
        if model_data is None:
            raise ValueError("Model must not be None")
        _tflm_registerers([] if custom_op_registerers is None else custom_op_registerers)
        if not isinstance(config, InterpreterConfig):
            raise ValueError(f"intrepreter_config must be an InterpreterConfig, got "
                             f"{config!r}")
        if as_index(alt_decompression_memory_size, "alt_decompression_memory_size") < 0:
            raise ValueError("alt_decompression_memory_size must be >= 0")
        try:
            InterpreterCore.__init__(self, model_content=model_data, arena_size=arena_size,
                                     preserve_all_tensors=(
                                         config is InterpreterConfig.kPreserveAllTensors))
            self._allocate()
        except (ArenaTooSmallError, UnsupportedOpError, StateError) as e:
            # TFLM's words first; the error keeps its class and fields
            e.args = (f"TFLM failed to allocate tensors: {e}",) + e.args[1:]
            raise

    # --- tensors and reports -------------------------------------------------------

    def set_input(self, input_data: Any, index: int) -> None:
        if input_data is None:
            raise ValueError("Input data must not be None")
        self._set_tensor(self._io(self._c.inputs(), index, "input"), input_data)

    def get_output(self, index: int) -> np.ndarray:
        return self._get_tensor(self._io(self._c.outputs(), index, "output"))

    @staticmethod
    def _io(indices: Tuple[int, ...], i: int, what: str) -> int:
        if i is None or as_index(i, f"{what} index") < 0:  # tflite_micro's check and text
            raise ValueError(f"Index must be a non-negative integer, got {i!r}")
        i = as_index(i, f"{what} index")
        if not 0 <= i < len(indices):
            # tflite_micro's text first, so code matching it keeps working
            raise IndexError(f"Tensor is out of bound, please check tensor index. ({what} "
                             f"{i}: the model has {len(indices)} {what}s)")
        return indices[i]

    def GetTensor(self, tensor_index: int, subgraph_index: int = 0) -> Dict[str, Any]:
        """tflite_micro's GetTensor: {"dtype", "shape", "tensor_data" (a copy)}. Any tensor
        whose memory is kept (inputs, outputs, constants, variables; every tensor with
        kPreserveAllTensors); an intermediate otherwise raises StateError (a RuntimeError)."""
        self._checked_subgraph(subgraph_index)
        with self._subgraph(subgraph_index):
            info = self._info(tensor_index)
        if info["shared"] and not self._preserve:
            raise StateError(
                "TFLM only supports GetTensor() when using a python interpreter with the "
                "InterpreterConfig.kPeserverAllTensors interpreter_config (tensor "
                f"{info['index']} is an intermediate whose memory other tensors reuse)")
        return {"dtype": self._dtype_of(info),
                "shape": np.array(info["shape"], dtype=np.int32),
                "tensor_data": self._get_tensor(info["index"], subgraph_index=subgraph_index)}

    def print_allocations(self) -> None:
        """Prints the target's arena report: TFLM's RecordingMicroAllocator lines for a TFLM
        target (see :meth:`allocations`)."""
        print(str(self.allocations()), end="")

    def reset(self) -> None:
        """Zeroes the variable tensors and resets the kernels (TFLM's reset)."""
        self._c.reset()


class Interpreter(TFLMMethods):
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
        return _tflm_details(self._details(self._io(self._c.inputs(), index, "input")))

    def get_output_details(self, index: Optional[int] = None) -> Any:  # type: ignore[override]
        """TFLM's dict for output ``index``: dtype, shape, quantization_parameters."""
        return _tflm_details(self._details(self._io(self._c.outputs(), index, "output")))

    def invoke(self) -> int:  # type: ignore[override]
        """Runs the model; returns 0 (TFLM's kTfLiteOk), 15 (TFLM's kTfLiteAbort) when a
        kernel ended the run early (a CIRCULAR_BUFFER between its runs: the nodes after it
        did not run), or raises."""
        return 0 if self._run() else 15

    def reset(self) -> int:  # type: ignore[override]
        """Zeroes the variable tensors and resets the kernels; returns 0 (kTfLiteOk)."""
        self._c.reset()
        return 0


def _tflm_details(d: Dict[str, Any]) -> Dict[str, Any]:
    q = d["quantization_parameters"]
    return {"dtype": d["dtype"], "shape": d["shape"],
            "quantization_parameters": {"scales": q["scales"], "zero_points": q["zero_points"],
                                        "quantized_dimension": q["quantized_dimension"]}}
