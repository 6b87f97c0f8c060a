"""One error hierarchy: everything puretree raises on bad input is a :class:`PuretreeError`.

Each subclass also derives from the built-in exception a Python user would expect
(``ValueError``, ``KeyError``-like lookups are reported as ``ValueError`` so that one
``except ValueError`` keeps working), and every message names the column, row or value.

>>> issubclass(DataError, PuretreeError) and issubclass(DataError, ValueError)
True
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "shown",
    "digits",
    "PuretreeError",
    "DataError",
    "SchemaError",
    "ModelFormatError",
    "ParameterError",
    "CodegenError",
    "MemoryLimitError",
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


def digits(value: int) -> int:
    """How many decimal digits an integer has, computed without ``str`` (which refuses
    integers of more than 4,300 digits).

    >>> digits(0), digits(-999), digits(10**5000)
    (1, 3, 5001)
    """
    n = abs(value)
    if n < 10:
        return 1
    d = int(math.log10(n)) + 1  # a float's estimate, corrected below where it is off by one
    if 10 ** (d - 1) > n:
        d -= 1
    elif 10**d <= n:
        d += 1
    return d


def shown(value: Any, limit: int = 40) -> str:
    """A user's value as an error message shows it: its ``repr``, cut short so that the
    message stays one readable line; an integer too long for ``repr`` by its digit count.

    >>> shown("x" * 50)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'"
    >>> shown(10**5000), shown(-(10**45))
    ('an integer of 5001 digits', '-100000000000000000000000000000000000...')
    """
    try:
        text = repr(value)
    except ValueError:  # an integer of 4,300+ digits, or a list holding one
        if isinstance(value, int):
            return f"an integer of {digits(value)} digits"
        return f"a {type(value).__name__} holding an integer too long to show"
    if len(text) <= limit:
        return text
    return text[: limit - 5] + "...'" if isinstance(value, str) else text[: limit - 3] + "..."


class MemoryLimitError(PuretreeError, MemoryError):
    """A fit would need more memory than this process may use, found before it is allocated:
    the message names the rows and classes (or nodes and classes) and the memory they need."""
class PuretreeWarning(UserWarning):
    """Base class of every warning puretree gives on purpose."""


class KernelUnavailableWarning(PuretreeWarning):
    """The compiled growth kernel cannot run here (puretree was built without a C compiler, or its
    library is missing or damaged): fits use the numpy engine, the same trees, slower. Given once,
    at the first fit that would have used the kernel; the message says how to get it."""
