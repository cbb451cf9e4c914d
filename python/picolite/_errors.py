"""picolite's exceptions and the index check every module applies to its arguments.

The classes raised by the C runtime come from the extension; ResizeError is the one raised
in Python only, by the resize rules of picolite._model and picolite._core.
"""

from __future__ import annotations

import operator
from typing import Any

from picolite import _picolite as _c

Error = _c.Error
ModelError = _c.ModelError
ArenaTooSmallError = _c.ArenaTooSmallError
UnsupportedOpError = _c.UnsupportedOpError
StateError = _c.StateError


class ResizeError(Error, ValueError, RuntimeError):
    """resize_tensor_input() refused a shape: a ValueError (picolite's error for a wrong
    shape) and a RuntimeError (what LiteRT raises), so code written for either catches it."""


def as_index(value: Any, what: str) -> int:
    """An index as Python's sequences take it: ints and numpy integers, never a float
    (1.5 is a TypeError, not tensor 1)."""
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, got {type(value).__name__} "
                        f"{value!r}") from None
