"""picolite.Interpreter: the shared core with LiteRT's names and TFLM's names together.

Where the two name sets collide, LiteRT's form is the default and TFLM's is picked by the
argument: ``get_input_details()`` is tf.lite's list, ``get_input_details(0)`` the one dict.
"""

from __future__ import annotations

from typing import Any, Optional

from picolite.interpreter import LiteRTMethods
from picolite.runtime import TFLMMethods


class Interpreter(LiteRTMethods, TFLMMethods):
    """Runs a .tflite model the way TFLM does, in one arena; tf.lite's method names, and
    tflite_micro's where they do not collide.

    Exactly one of ``model_path``/``model_content``; at most one of ``arena`` (an
    :class:`Arena`) and ``arena_size``. With neither, the arena is exactly
    :func:`required_arena_size` bytes, so allocation always fits.
    ``custom_ops={"Name": op}`` runs the model's custom operator "Name" with a Python object
    (see :class:`CustomOp`); its outputs are planned in the arena like any tensor.
    ``kernels``: ``"auto"`` runs the host SIMD fast paths this CPU has (bit-exact with the
    portable kernels; their packed weights live in host memory, :attr:`host_memory_bytes`,
    never in the arena), ``"portable"`` the portable C kernels alone (the microcontroller's
    code), or a name from :func:`picolite.kernel_sets`.
    ``num_threads`` (1 to 64): the fast paths split large CONV_2D, DEPTHWISE_CONV_2D,
    FULLY_CONNECTED, ADD, SUB, MUL and float PRELU, LOGISTIC and TANH over that many threads, the
    bytes one thread's (:attr:`num_threads`).
    """

    def get_input_details(self, index: Optional[int] = None) -> Any:  # type: ignore[override]
        """tf.lite's list of every input's details; with ``index`` (tflite_micro's form),
        the one dict of input ``index`` (IndexError "Tensor is out of bound" past the end)."""
        if index is not None:
            return self._get_tensor_details(self._io(self._c.inputs(), index, "input"))
        return super().get_input_details()

    def get_output_details(self, index: Optional[int] = None) -> Any:  # type: ignore[override]
        """As get_input_details, for the outputs."""
        if index is not None:
            return self._get_tensor_details(self._io(self._c.outputs(), index, "output"))
        return super().get_output_details()
