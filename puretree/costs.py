"""Cost-sensitive split scores: ``f(score) / g(cost)``, as the seeds write it.

Measuring an attribute may cost something (a blood test, an X-ray). Instead of the plain
gain, the builder then maximises ``f(Gain(S, A)) / g(Cost(A))`` with ``f`` and ``g`` chosen
case by case. :func:`cost_sensitive` wraps any score (see :mod:`puretree.criteria`) with a
pair ``(f, g)`` and costs given per attribute by name; two classic pairs are ready-made:

- :func:`tan_schlimmer`: ``Gain**2 / Cost`` (Tan and Schlimmer, 1990);
- :func:`nunez`: ``(2**Gain - 1) / (Cost + 1)**w`` (Núñez, 1991; ``w`` in [0, 1] sets how
  much cost matters).

The results are small frozen callables with a readable repr, equality and hashing, like the
criteria. A split that is not a candidate (score ``-inf``) stays ``-inf``.

>>> from puretree.criteria import information_gain
>>> score = tan_schlimmer(information_gain(), {"blood_test": 4.0})
>>> score
tan_schlimmer(information_gain(entropy), per_feature({'blood_test': 4.0}))
>>> parent, children = [9, 5], [[6, 1], [3, 4]]   # PlayTennis, humidity: gain 0.1518
>>> round(float(score(parent, children, "humidity")), 4)     # cost 1 by default: gain**2
0.0231
>>> round(float(score(parent, children, "blood_test")), 4)   # the same split, cost 4
0.0058
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs
import numpy as np

from .criteria import Score, per_feature, resolve_score
from .errors import ParameterError
from .params import Interval, IsCallable, check, validate_params

__all__ = ["CostSensitive", "cost_sensitive", "tan_schlimmer", "nunez", "square", "identity", "exp2_minus_1", "NunezCost"]


def _name(f: Any) -> str:
    return getattr(f, "__name__", None) or repr(f)


def square(x: np.ndarray) -> np.ndarray:
    """``x**2``: Tan and Schlimmer's ``f``."""
    return np.square(x)


def identity(x: np.ndarray) -> np.ndarray:
    """``x``: the plain cost as ``g``."""
    return x


def exp2_minus_1(x: np.ndarray) -> np.ndarray:
    """``2**x - 1``: Núñez's ``f``."""
    return np.exp2(x) - 1.0


@attrs.frozen(repr=False)
class NunezCost:
    """``(cost + 1) ** w``: Núñez's ``g``, ``w`` in [0, 1] weighing how much cost matters."""

    w: float = 1.0

    def __call__(self, cost: np.ndarray) -> np.ndarray:
        return np.power(np.asarray(cost, dtype=np.float64) + 1.0, self.w)

    def __repr__(self) -> str:
        return f"nunez_cost(w={self.w!r})"


#: A cost; Núñez's w; the pair (f, g).
_COST = Interval(float, 0, None)
_W = Interval(float, 0, 1)
_ARRAY_FUNCTION = IsCallable("a function over arrays")


def _costs(costs: Any, default: float) -> Callable[[Any], np.ndarray]:
    """A mapping name -> cost becomes a lookup; a callable over feature names is kept."""
    if isinstance(costs, Mapping):
        return per_feature({name: check(f"the cost of {name!r}", value, _COST) for name, value in costs.items()}, default=default)
    if callable(costs):
        return costs
    raise ParameterError(f"costs must be a mapping from feature name to cost, or a function of names, got {costs!r}")


@attrs.frozen(repr=False)
class CostSensitive:
    """``f(score(parent, children)) / g(cost(feature))``, keeping ``-inf`` (no candidate)."""

    score: Score
    cost: Callable[[Any], np.ndarray]
    f: Callable[[np.ndarray], np.ndarray]
    g: Callable[[np.ndarray], np.ndarray]
    name: str = "cost_sensitive"

    def __call__(self, parent: Any, children: Any, features: Any = None) -> np.ndarray:
        if features is None:
            raise ParameterError("a cost-sensitive score needs the names of the features split on")
        s = np.asarray(self.score(parent, children, features), dtype=np.float64)
        denominator = np.asarray(self.g(self.cost(np.asarray(features))), dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = np.asarray(self.f(s), dtype=np.float64) / denominator
        # f may map -inf somewhere finite (x**2 does): "not a candidate" must stay so.
        return np.where(np.isneginf(s) | np.isnan(s), -np.inf, out)

    def __repr__(self) -> str:
        if self.name == "cost_sensitive":
            return f"cost_sensitive({self.score!r}, {self.cost!r}, f={_name(self.f)}, g={_name(self.g)})"
        if self.name == "nunez":
            return f"nunez({self.score!r}, {self.cost!r}, w={self.g.w!r})"  # type: ignore[attr-defined]
        return f"{self.name}({self.score!r}, {self.cost!r})"


@validate_params({"f": (_ARRAY_FUNCTION,), "g": (_ARRAY_FUNCTION,)})
def cost_sensitive(score: Score | str, costs: Mapping[str, float] | Callable[[Any], np.ndarray], *, f: Callable[[np.ndarray], np.ndarray] = identity, g: Callable[[np.ndarray], np.ndarray] = identity, default: float = 1.0) -> CostSensitive:
    """Any score made cost-sensitive with a user pair ``(f, g)``: ``f(score) / g(cost)``.

    ``costs`` maps feature names to costs (features not named cost ``default``), or is a
    function from an array of names to costs (e.g. :func:`~puretree.criteria.per_feature`).

    >>> score = cost_sensitive("information_gain", {"x": 3.0}, f=np.sqrt, g=np.log1p)
    >>> round(float(score([2, 2], [[2, 0], [0, 2]], "x")), 4)     # sqrt(1) / log(1 + 3)
    0.7213
    """
    return CostSensitive(resolve_score(score), _costs(costs, default), f, g)


def tan_schlimmer(score: Score | str, costs: Mapping[str, float] | Callable[[Any], np.ndarray], *, default: float = 1.0) -> CostSensitive:
    """Tan and Schlimmer's ``Gain**2 / Cost`` (costs must be > 0 for every feature used)."""
    return CostSensitive(resolve_score(score), _costs(costs, default), square, identity, "tan_schlimmer")


@validate_params({"w": (_W,)})
def nunez(score: Score | str, costs: Mapping[str, float] | Callable[[Any], np.ndarray], *, w: float = 1.0, default: float = 0.0) -> CostSensitive:
    """Núñez's ``(2**Gain - 1) / (Cost + 1)**w``, ``w`` in [0, 1] (0: costs ignored).

    >>> round(float(nunez("information_gain", {"x": 1.0})([2, 2], [[2, 0], [0, 2]], "x")), 4)
    0.5
    """
    return CostSensitive(resolve_score(score), _costs(costs, default), exp2_minus_1, NunezCost(w), "nunez")
