"""One error hierarchy: everything puretree raises on bad input is a :class:`PuretreeError`.

Each subclass also derives from the built-in exception a Python user would expect
(``ValueError``, ``KeyError``-like lookups are reported as ``ValueError`` so that one
``except ValueError`` keeps working), and every message names the column, row or value.

>>> issubclass(DataError, PuretreeError) and issubclass(DataError, ValueError)
True
"""

from __future__ import annotations

__all__ = [
    "PuretreeError",
    "DataError",
    "SchemaError",
    "ModelFormatError",
    "ParameterError",
    "CodegenError",
    "PuretreeWarning",
    "KernelUnavailableWarning",
]


class PuretreeError(Exception):
    """Base class of every error puretree raises on purpose."""


class DataError(PuretreeError, ValueError):
    """Input data is unusable: a missing column, a bad cell, a ragged row, an empty table."""


class SchemaError(DataError):
    """Data does not match the schema a tree was trained on (columns, kinds, categories)."""


class ModelFormatError(PuretreeError, ValueError):
    """A saved model (JSON) is malformed, of an unknown version, or inconsistent."""


class ParameterError(PuretreeError, ValueError):
    """An option has a value outside its domain (a negative depth, an unknown criterion...)."""


class CodegenError(PuretreeError, ValueError):
    """A tree cannot be compiled with the requested options (e.g. it is too large for an index type)."""


class PuretreeWarning(UserWarning):
    """Base class of every warning puretree gives on purpose."""


class KernelUnavailableWarning(PuretreeWarning):
    """The compiled growth kernel cannot run here (puretree was built without a C compiler, or its
    library is missing or damaged): fits use the numpy engine, the same trees, slower. Given once,
    at the first fit that would have used the kernel; the message says how to get it."""
