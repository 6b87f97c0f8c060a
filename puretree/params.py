"""Parameter constraints, declared once and checked with one wording per kind.

A function states what each of its options may be, as scikit-learn's
``_parameter_constraints`` do: a mapping from the option's name to the constraints it may
meet (any one suffices; ``None`` among them admits ``None``). :func:`check` tests one value,
:func:`check_all` a whole declaration; both return the value normalised (an integer as
``int``, a number as ``float``) and raise :class:`~puretree.errors.ParameterError` worded
the same way for every option of the same kind: ``NAME must be DESCRIPTION, got VALUE``.

>>> check("max_depth", 3, Interval(int, 0, None), None)
3
>>> check("max_depth", None, Interval(int, 0, None), None) is None
True
>>> check("max_depth", -1, Interval(int, 0, None), None)
Traceback (most recent call last):
...
puretree.errors.ParameterError: max_depth must be an integer >= 0 or None, got -1
>>> check("cf", 0.25, Interval(float, 0, 1, closed="neither"))
0.25
>>> check("missing", "nope", Options(("majority", "distribute", "error")))
Traceback (most recent call last):
...
puretree.errors.ParameterError: missing must be one of ['majority', 'distribute', 'error'], got 'nope'

A declaration, checked as a whole (the first failing option is named):

>>> CONSTRAINTS = {"max_depth": (Interval(int, 0, None), None), "min_samples_leaf": (Interval(float, 0, None),)}
>>> check_all(CONSTRAINTS, max_depth=2, min_samples_leaf=1)
{'max_depth': 2, 'min_samples_leaf': 1.0}
>>> check_all(CONSTRAINTS, max_depth=2, min_samples_leaf="2")
Traceback (most recent call last):
...
puretree.errors.ParameterError: min_samples_leaf must be a finite number >= 0, got '2'

Or as a decorator, the declaration next to the signature (:func:`validate_params`):

>>> @validate_params({"cf": (Interval(float, 0, 1, closed="neither"),)})
... def pessimistic(tree, *, cf=0.25):
...     return cf
>>> pessimistic(None, cf=1)
Traceback (most recent call last):
...
puretree.errors.ParameterError: cf must be a number in (0, 1), got 1
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import attrs

from .errors import ParameterError

__all__ = ["Constraint", "Interval", "Options", "IsCallable", "check", "check_all", "describe", "recorded_options", "validate_params"]

_CLOSED = ("both", "left", "right", "neither")


def _is_integer(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value: Any) -> bool:
    # numbers.Real admits numpy's floats and integers; bool is a number to Python, never to us.
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _bound(value: float) -> str:
    """A bound as a reader writes it: 1 rather than 1.0."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


@attrs.frozen
class Interval:
    """Numbers between ``low`` and ``high`` (``None``: unbounded on that side).

    ``kind`` is ``int`` (whole numbers; not ``bool``, not ``2.0``) or ``float`` (any real
    number, integers included, returned as ``float``). ``closed`` says which bounds belong:
    ``"both"`` (default), ``"left"``, ``"right"`` or ``"neither"``. A ``float`` interval
    refuses NaN always and infinities unless ``finite=False``; ``exclude`` lists values
    refused inside the interval (entropy's base 1).

    >>> Interval(int, 1, None).describe()
    'an integer >= 1'
    >>> Interval(float, 0, 1, closed="right").describe()
    'a number in (0, 1]'
    >>> Interval(float, 0, None, closed="neither", exclude=(1,)).describe()
    'a finite number > 0 other than 1'
    """

    kind: type = attrs.field(validator=attrs.validators.in_((int, float)))
    low: float | None = None
    high: float | None = None
    closed: str = attrs.field(default="both", validator=attrs.validators.in_(_CLOSED))
    finite: bool = True
    exclude: tuple[float, ...] = ()

    def accepts(self, value: Any) -> bool:
        if not (_is_integer(value) if self.kind is int else _is_real(value)):
            return False
        try:
            x = float(value) if self.kind is float else value
        except OverflowError:  # an integer beyond a double's range is not a number we can use
            return False
        if self.kind is float and (math.isnan(x) or (self.finite and math.isinf(x))):
            return False
        if self.low is not None and not (x >= self.low if self.closed in ("both", "left") else x > self.low):
            return False
        if self.high is not None and not (x <= self.high if self.closed in ("both", "right") else x < self.high):
            return False
        return x not in self.exclude

    def normalise(self, value: Any) -> Any:
        return int(value) if self.kind is int else float(value)

    def describe(self) -> str:
        what = "an integer" if self.kind is int else ("a number" if (self.low is not None and self.high is not None) or not self.finite else "a finite number")
        left_in, right_in = self.closed in ("both", "left"), self.closed in ("both", "right")
        if self.low is not None and self.high is not None:
            text = f"{what} in {'[' if left_in else '('}{_bound(self.low)}, {_bound(self.high)}{']' if right_in else ')'}"
        elif self.low is not None:
            text = f"{what} {'>=' if left_in else '>'} {_bound(self.low)}"
        elif self.high is not None:
            text = f"{what} {'<=' if right_in else '<'} {_bound(self.high)}"
        else:
            text = what
        if self.exclude:
            text += " other than " + ", ".join(_bound(x) for x in self.exclude)
        return text


@attrs.frozen
class Options:
    """One of a fixed set of values (strings, mostly), compared with ``==``.

    >>> Options(("gini", "entropy")).describe()
    "one of ['gini', 'entropy']"
    """

    values: tuple[Any, ...] = attrs.field(converter=lambda values: tuple(values))  # typed: not converter=tuple

    def accepts(self, value: Any) -> bool:
        try:
            return any(isinstance(value, type(v)) and value == v for v in self.values)
        except (TypeError, ValueError):  # an array compared with a string
            return False

    def normalise(self, value: Any) -> Any:
        return value

    def describe(self) -> str:
        return f"one of {list(self.values)}"


@attrs.frozen
class IsCallable:
    """A function (any callable); ``what`` says which kind, for the message.

    >>> IsCallable("a function (statistics -> impurity)").describe()
    'a function (statistics -> impurity)'
    """

    what: str = "a function"

    def accepts(self, value: Any) -> bool:
        return callable(value)

    def normalise(self, value: Any) -> Any:
        return value

    def describe(self) -> str:
        return self.what


#: What a constraint is: ``accepts(value)``, ``normalise(value)`` and ``describe()``; or
#: ``None``, which admits ``None``.
Constraint = Interval | Options | IsCallable | None


def _shown(value: Any) -> str:
    """A value as the message shows it: its repr, cut short (a user's value may be huge)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def describe(constraints: Iterable[Constraint]) -> str:
    """The constraints in words, joined by "or" (``None`` last).

    >>> describe((Interval(int, 2, None), None))
    'an integer >= 2 or None'
    """
    cs = list(constraints)
    words = [c.describe() for c in cs if c is not None] + (["None"] if any(c is None for c in cs) else [])
    return " or ".join(words)


def check(name: str, value: Any, *constraints: Constraint) -> Any:
    """``value`` normalised by the first constraint it meets, else a
    :class:`~puretree.errors.ParameterError` ``NAME must be ... , got VALUE``.

    >>> check("min_samples_split", 2, Interval(float, 0, None))
    2.0
    >>> check("threshold", "data", Options(("midpoint", "data")))
    'data'
    """
    for c in constraints:
        if c is None:
            if value is None:
                return None
        elif c.accepts(value):
            return c.normalise(value)
    raise ParameterError(f"{name} must be {describe(constraints)}, got {_shown(value)}")


def check_all(declared: Mapping[str, Sequence[Constraint]], **values: Any) -> dict[str, Any]:
    """Every value checked against its declared constraints, in the order given; the
    normalised values by name. A value with no declaration is an error of the caller's
    code, not of the user's: ``KeyError``."""
    return {name: check(name, value, *declared[name]) for name, value in values.items()}


F = TypeVar("F", bound=Callable[..., Any])


def validate_params(declared: Mapping[str, Sequence[Constraint]]) -> Callable[[F], F]:
    """A decorator checking the declared arguments of every call (defaults included) before
    the function runs, and passing them on normalised. The declaration stays readable as the
    function's ``parameter_constraints``.

    >>> @validate_params({"k": (Interval(int, 2, None),)})
    ... def folds(n, *, k=10):
    ...     return k
    >>> folds(100, k=5), folds.parameter_constraints["k"]
    (5, (Interval(kind=<class 'int'>, low=2, high=None, closed='both', finite=True, exclude=()),))
    >>> folds(100, k=1)
    Traceback (most recent call last):
    ...
    puretree.errors.ParameterError: k must be an integer >= 2, got 1
    """

    def decorate(function: F) -> F:
        signature = inspect.signature(function)
        unknown = set(declared) - set(signature.parameters)
        if unknown:  # a mistake in the library's code, found when it is imported
            raise TypeError(f"{function.__qualname__} has no parameter {sorted(unknown)}")

        @functools.wraps(function)
        def checked(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            for name, constraints in declared.items():
                bound.arguments[name] = check(name, bound.arguments[name], *constraints)
            return function(*bound.args, **bound.kwargs)

        checked.parameter_constraints = dict(declared)  # type: ignore[attr-defined]
        return checked  # type: ignore[return-value]

    return decorate


def _recorded(value: Any) -> Any:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return getattr(value, "__name__", None) or repr(value)


def recorded_options(pairs: Any) -> tuple[tuple[str, Any], ...]:
    """Options as a model records how it was grown: sorted ``(name, value)`` pairs whose values
    are JSON scalars (numpy's numbers as Python's), a function by its name, anything else by its
    ``repr``, so that the record is hashable, comparable and written to JSON as it is.

    >>> import numpy as np
    >>> recorded_options({"n_trees": np.int64(3), "base": len, "seed": None, "rate": np.float32(0.5)})
    (('base', 'len'), ('n_trees', 3), ('rate', 0.5), ('seed', None))
    """
    return tuple(sorted((str(k), _recorded(v)) for k, v in dict(pairs).items()))
