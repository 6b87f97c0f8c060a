"""Split scores, built from impurities by combinators.

A *score* rates candidate splits, higher is better. It is called as
``score(parent, children, features)``:

- ``parent``: the statistics of the node, shaped ``(..., k)``;
- ``children``: the statistics of its branches, shaped ``(..., b, k)`` (b branches);
- ``features``: the names of the features split on, a ``str`` array broadcastable to ``(...)``
  (scores that do not depend on the feature ignore it).

It returns scores shaped ``(...)``; ``-inf`` means "not a candidate". The builder evaluates
every threshold of every numeric feature in one call, so a score is vectorised for free when
it is written with numpy operations.

The combinators return small frozen callables with a readable repr, equality and hashing:

>>> from puretree.impurity import entropy, gini
>>> information_gain(entropy)
information_gain(entropy)
>>> gain_ratio(entropy) == gain_ratio(entropy)
True
>>> parent, children = [9, 5], [[2, 3], [4, 0], [3, 2]]   # PlayTennis, split on outlook
>>> round(float(information_gain(entropy)(parent, children)), 4)
0.2467
>>> round(float(impurity_decrease(gini)([9, 5], [[6, 4], [3, 1]])), 4)   # buys_computer income
0.0092
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

import attrs
import numpy as np

from .errors import ParameterError
from .impurity import entropy, gini, misclassification, proportions, sum_last, variance, weighted_median
from .params import Interval, IsCallable, Options, check
from .tasks import TASKS, Task, as_task, impurity_task

__all__ = [
    "Score",
    "ImpurityDecrease",
    "GainRatio",
    "information_gain",
    "impurity_decrease",
    "gain_ratio",
    "split_info",
    "per_feature",
    "resolve_score",
    "score_task",
    "score_name_of",
    "SCORE_ALIASES",
    "FRIEDMAN_MSE_WARNING",
    "SCORES",
    "PoissonDecrease",
    "poisson_decrease",
    "AbsoluteErrorDecrease",
    "absolute_error_decrease",
]

Score = Callable[..., np.ndarray]


def _name(f: Any) -> str:
    return getattr(f, "__name__", None) or repr(f)


#: The built-in impurities: concave, so that no split of consistent statistics raises them.
_CONCAVE = (entropy, gini, misclassification, variance)


def _tame(parent: np.ndarray, children: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Statistics near 1e308 scaled down by 2**-32 (exactly), so that no sum of them overflows.

    Impurities of class counts and of (weight, sum, sum of squares) do not change when all the
    statistics of a node and its branches are scaled alike, which is what this does.
    """
    if children.size == 0 or not children.max() > _HUGE:
        return parent, children
    return parent * 2.0**-32, children * 2.0**-32


#: Statistics above this are scaled before any sum (a few thousand of them fit below 1.8e308).
_HUGE = 1e298


def _impurity_task(self: Any) -> Task:
    return impurity_task(self.impurity)


@attrs.frozen(repr=False)
class ImpurityDecrease:
    """``impurity(parent) - sum_i w_i / w * impurity(child_i)``: information gain for entropy.

    ``task`` says what the statistics are (:mod:`puretree.tasks`), and so where their weight
    is; by default the impurity's own (regression for the variance, else classification).
    """

    impurity: Callable[..., Any]
    name: str = "impurity_decrease"
    task: Task = attrs.field(default=attrs.Factory(_impurity_task, takes_self=True), converter=as_task)

    def __call__(self, parent: Any, children: Any, features: Any = None) -> np.ndarray:
        parent, children = _tame(np.asarray(parent, dtype=np.float64), np.asarray(children, dtype=np.float64))
        # Each branch's share of the weight, not weight * impurity / total: the product of a
        # subnormal weight loses its digits (three 5e-324 rows once gave a gain of -0.08),
        # and a total near 1e308 overflows.
        share, w = proportions(self.task.weight(children))
        with np.errstate(invalid="ignore"):
            # An empty branch contributes nothing, even if a user's impurity gives NaN for 0/0.
            after = sum_last(np.where(share > 0, share * np.asarray(self.impurity(children)), 0.0))
            gain = np.asarray(self.impurity(parent)) - after
        if any(self.impurity is f for f in _CONCAVE):
            # These never lose impurity by splitting: a negative gain is float rounding.
            gain = np.maximum(gain, 0.0)
        else:
            gain = np.where((gain < 0) & (gain > -1e-12), 0.0, gain)
        return np.where(w > 0, gain, -np.inf)

    def __repr__(self) -> str:
        return f"{self.name}({_name(self.impurity)})"


def split_info(weights: Any) -> np.ndarray:
    """Entropy (bits) of the branch sizes: C4.5's split information.

    >>> round(float(split_info([4, 6, 4])), 3)    # buys_computer, income
    1.557
    """
    w = np.asarray(weights, dtype=np.float64)
    return entropy(w)


@attrs.frozen(repr=False)
class GainRatio:
    """Gain divided by split info; a split whose split info is 0 is not a candidate (-inf)."""

    impurity: Callable[..., Any]
    task: Task = attrs.field(default=attrs.Factory(_impurity_task, takes_self=True), converter=as_task)

    def __call__(self, parent: Any, children: Any, features: Any = None) -> np.ndarray:
        parent, children = _tame(np.asarray(parent, dtype=np.float64), np.asarray(children, dtype=np.float64))
        gain = ImpurityDecrease(self.impurity, task=self.task)(parent, children, features)
        info = split_info(self.task.weight(children))
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = gain / info
        return np.where(info > 1e-12, ratio, -np.inf)

    def __repr__(self) -> str:
        return f"gain_ratio({_name(self.impurity)})"


#: What the combinators take.
_IMPURITY = IsCallable("a function (statistics -> impurity)")
_TASK = Options(TASKS)


def _impurity_and_task(impurity: Any, task: Any, combinator: str) -> tuple[Callable[..., Any], Task]:
    """The combinator's impurity, and the task of the statistics it reads: the one given
    (``"classification"``, ``"regression"`` or a :class:`~puretree.tasks.Task`), else the impurity's."""
    check(f"the impurity of {combinator}()", impurity, _IMPURITY)
    if task is None:
        return impurity, impurity_task(impurity)
    return impurity, as_task(task if isinstance(task, Task) else check(f"the task of {combinator}()", task, _TASK))


def information_gain(impurity: Callable[..., Any] = entropy, *, task: Task | str | None = None) -> ImpurityDecrease:
    """Information gain (ID3): the decrease in entropy, or in any impurity given.

    ``task`` (here and in the other combinators) says what the statistics are, for an
    impurity of your own over regression sums: ``task="regression"``.
    """
    impurity, task = _impurity_and_task(impurity, task, "information_gain")
    return ImpurityDecrease(impurity, "information_gain", task)


def impurity_decrease(impurity: Callable[..., Any] = gini, *, task: Task | str | None = None) -> ImpurityDecrease:
    """The weighted decrease in ``impurity`` (CART: Gini; regression: variance).

    >>> impurity_decrease(variance).task
    REGRESSION
    """
    impurity, task = _impurity_and_task(impurity, task, "impurity_decrease")
    return ImpurityDecrease(impurity, "impurity_decrease", task)


def gain_ratio(impurity: Callable[..., Any] = entropy, *, task: Task | str | None = None) -> GainRatio:
    """Gain ratio (C4.5): information gain over split information."""
    impurity, task = _impurity_and_task(impurity, task, "gain_ratio")
    return GainRatio(impurity, task)


@attrs.frozen(repr=False)
class _PerFeature:
    values: tuple[tuple[str, float], ...]
    default: float | None

    def __call__(self, features: Any) -> np.ndarray:
        names = np.asarray(features)
        table = dict(self.values)
        out = np.empty(names.shape, dtype=np.float64)
        for idx, name in np.ndenumerate(names):
            value = table.get(str(name), self.default)
            if value is None:
                raise ParameterError(f"no value given for feature {str(name)!r}")
            out[idx] = value
        return out

    def __repr__(self) -> str:
        return f"per_feature({dict(self.values)!r})"


def per_feature(values: Mapping[str, float], *, default: float | None = None) -> Callable[[Any], np.ndarray]:
    """A function from feature names to numbers, for scores that weigh features (costs).

    >>> cost = per_feature({"blood_test": 10.0}, default=1.0)
    >>> cost(np.array(["age", "blood_test"])).tolist()
    [1.0, 10.0]
    """
    if not isinstance(values, Mapping):
        raise ParameterError(f"per_feature takes a mapping from feature name to number, got {type(values).__name__}")
    checked = [(str(k), check(f"per_feature: the value for {str(k)!r}", v, _NUMBER)) for k, v in values.items()]
    return _PerFeature(tuple(sorted(checked)), check("per_feature: default", default, _NUMBER, None))


_NUMBER = Interval(float)


#: scikit-learn's EPSILON: a child whose sum of targets is not above it cannot take a Poisson split.
_EPSILON = float(np.finfo(np.float64).eps)


@attrs.frozen(repr=False)
class PoissonDecrease:
    """The decrease in half Poisson deviance per unit of weight, from ``(weight, sum, sum of
    squares)``: ``(sum_i S_i log(S_i / w_i) - S log(S / w)) / w``, scikit-learn's ``"poisson"``
    criterion (its proxy improvement, less the parent's term, over the node's weight: the
    terms ``y log y`` of the deviance cancel). A split with a child whose sum of targets is
    not above scikit-learn's EPSILON is not a candidate (``-inf``): a Poisson mean must be
    positive.

    >>> round(float(poisson_decrease()([4, 6, 0], [[2, 1, 0], [2, 5, 0]])), 6)
    0.363879
    >>> float(poisson_decrease()([4, 6, 0], [[2, 0, 0], [2, 6, 0]]))
    -inf
    """

    task: Task = attrs.field(default=TASKS["regression"], converter=as_task)

    def __call__(self, parent: Any, children: Any, features: Any = None) -> np.ndarray:
        parent, children = np.asarray(parent, dtype=np.float64), np.asarray(children, dtype=np.float64)
        w, s = parent[..., 0], parent[..., 1]
        wc, sc = children[..., 0], children[..., 1]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            kids = sum_last(np.where(wc > 0, sc * np.log(sc / wc), 0.0))
            gain = (kids - s * np.log(s / w)) / w
        # Every non-empty branch needs a positive sum; an empty branch is no split at all.
        ok = ((sc > _EPSILON) | (wc <= 0)).all(axis=-1) & ((wc > 0).sum(axis=-1) >= 2) & (w > 0)
        return np.where(ok & ~np.isnan(gain), gain, -np.inf)

    def __repr__(self) -> str:
        return "poisson_decrease()"


def poisson_decrease() -> PoissonDecrease:
    """scikit-learn's ``criterion="poisson"`` as a score (:class:`PoissonDecrease`): regression
    targets must be non-negative with a positive sum; the leaves predict the mean."""
    return PoissonDecrease()


@attrs.frozen(repr=False)
class AbsoluteErrorDecrease:
    """scikit-learn's ``criterion="absolute_error"``: the decrease in the weighted absolute
    deviation from the median, per unit of weight. It is not a function of additive statistics:
    :func:`~puretree.losses.absolute_error_splits` finds its splits from the node's rows (``grow`` uses it in place
    of ``threshold_splits``), and ``rows_gain`` scores one split of given rows."""

    task: Task = attrs.field(default=TASKS["regression"], converter=as_task)

    def __call__(self, parent: Any, children: Any, features: Any = None) -> np.ndarray:
        raise ParameterError("criterion 'absolute_error' is not a function of (weight, sum, sum of squares): it scores a split from the node's rows (absolute_error_splits)")

    @staticmethod
    def rows_gain(y: np.ndarray, w: np.ndarray, left: np.ndarray) -> float:
        """The decrease in absolute error per unit of weight when ``left`` rows go left."""
        def ae(mask: np.ndarray) -> float:
            return float(np.sum(w[mask] * np.abs(y[mask] - weighted_median(y[mask], w[mask])))) if mask.any() else 0.0
        every = np.ones(len(y), dtype=bool)
        return (ae(every) - ae(left) - ae(~left)) / float(w.sum())

    def __repr__(self) -> str:
        return "absolute_error_decrease()"


def absolute_error_decrease() -> AbsoluteErrorDecrease:
    """scikit-learn's ``criterion="absolute_error"`` as a score (:class:`AbsoluteErrorDecrease`)."""
    return AbsoluteErrorDecrease()


#: Named scores, for the command line and for ``grow(score="gini")``.
SCORES: dict[str, Score] = {
    "entropy": information_gain(entropy),
    "information_gain": information_gain(entropy),
    "gain_ratio": gain_ratio(entropy),
    "gini": impurity_decrease(gini),
    "misclassification": impurity_decrease(misclassification),
    "variance": impurity_decrease(variance),
    "poisson": poisson_decrease(),
    "absolute_error": absolute_error_decrease(),
}


#: scikit-learn's names of a criterion that puretree names otherwise: ``"squared_error"``, and
#: ``"friedman_mse"``, which scikit-learn 1.9 deprecates as an alias of it (with the warning
#: :data:`FRIEDMAN_MSE_WARNING`, as scikit-learn words it), are ``"variance"``; ``"log_loss"``,
#: scikit-learn's other name of the classifiers' ``"entropy"``, is ``"entropy"``.
SCORE_ALIASES: dict[str, str] = {"squared_error": "variance", "friedman_mse": "variance", "log_loss": "entropy"}
FRIEDMAN_MSE_WARNING = ('Value `"friedman_mse"` for `criterion` is deprecated and will be removed in 1.11. It maps to '
                        '`"squared_error"` as both were always equivalent. Use `criterion="squared_error"` to remove this warning.')


def score_name_of(name: str) -> str:
    """A score's name with scikit-learn's aliases (:data:`SCORE_ALIASES`) made puretree's;
    ``"friedman_mse"`` warns as scikit-learn 1.9 does (a ``FutureWarning``).

    >>> score_name_of("squared_error"), score_name_of("gini")
    ('variance', 'gini')
    """
    if name == "friedman_mse":
        warnings.warn(FRIEDMAN_MSE_WARNING, FutureWarning, stacklevel=3)
    return SCORE_ALIASES.get(name, name)


def score_task(score: Any) -> Task | None:
    """The task a score is made for, when it says so (the built-in combinators and the scores
    wrapping them do); ``None`` for a user's function.

    >>> score_task(SCORES["variance"]), score_task(SCORES["gini"]), score_task(lambda p, c, f: 0.0)
    (REGRESSION, CLASSIFICATION, None)
    """
    task = getattr(score, "task", None)
    if isinstance(task, Task):
        return task
    inner = getattr(score, "score", None)  # a wrapper: cost-sensitive, checked
    return score_task(inner) if inner is not None and inner is not score else None


def resolve_score(score: Score | str) -> Score:
    """A score from a callable or one of the names in :data:`SCORES`."""
    if isinstance(score, str):
        try:
            return SCORES[SCORE_ALIASES.get(score, score)]
        except KeyError:
            raise ParameterError(f"unknown criterion {score!r}; choose one of {sorted(SCORES)}") from None
    if not callable(score):
        raise ParameterError(f"a score must be callable or a name, got {score!r}")
    return score
