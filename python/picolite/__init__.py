"""picolite: a TensorFlow Lite Micro-compatible inference runtime for validating models."""

from picolite._picolite import __version__

__all__ = ["__version__"]
