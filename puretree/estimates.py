"""Error estimates of leaves and trees, the numbers the pruning rewrites compare.

- :func:`training_errors`: a node's training errors were it a leaf.
- :func:`c45_added_errors`, :func:`pessimistic_errors`: C4.5's pessimistic estimate at
  confidence ``cf`` (Quinlan's ``AddErrs``, Weka's ``Stats.addErrs``).
- :func:`penalty_error`, :func:`tree_penalty_error`: the seeds' estimate with a penalty per leaf.

>>> training_errors((3.0, 1.0)), round(pessimistic_errors((3.0, 1.0)), 4)
(1.0, 2.172)
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

from .errors import ParameterError
from .fold import iter_nodes
from .nodes import Leaf
from .params import Interval, check

if TYPE_CHECKING:  # estimates read a tree's nodes; the value sits in a higher layer
    from .tree import Tree

__all__ = [
    "C45_MARGIN",
    "check_cf",
    "check_classification",
    "check_penalty",
    "training_errors",
    "c45_added_errors",
    "pessimistic_errors",
    "penalty_error",
    "tree_penalty_error",
]

#: C4.5 prunes when the leaf's estimate is within this many errors of the subtree's.
C45_MARGIN = 0.1


def check_classification(tree: Tree, what: str) -> None:
    """Refuse a regression tree: ``what`` (e.g. "pessimistic pruning") counts class errors."""
    if tree.schema.is_regression:
        raise ParameterError(f"{what} needs a classification tree; this is a regression tree")


def check_cf(cf: Any) -> None:
    """Refuse a confidence level that is not a number strictly between 0 and 1.

    >>> check_cf(1.5)
    Traceback (most recent call last):
    puretree.errors.ParameterError: cf must be a number in (0, 1), got 1.5
    """
    check("cf", cf, Interval(float, 0, 1, closed="neither"))


def check_penalty(value: Any, name: str = "penalty") -> float:
    """``value`` as a float, refused unless a finite number >= 0 (``name`` is the message's)."""
    return check(name, value, Interval(float, 0, None))


def training_errors(counts: tuple[float, ...]) -> float:
    """Training errors of a node made a leaf: its weight minus its majority class's weight."""
    return float(sum(counts) - max(counts)) if counts else 0.0


def c45_added_errors(n: float, errors: float, *, cf: float = 0.25) -> float:
    """C4.5's extra pessimistic errors for a leaf with ``n`` cases and ``errors`` errors:
    ``n * U_cf(errors, n) - errors``, where ``U_cf`` is the upper limit of the binomial error
    rate at confidence ``cf`` (Quinlan's ``AddErrs``, as in Weka's ``Stats.addErrs``: exact for
    zero errors, interpolated below one error, the normal approximation with a continuity
    correction above). ``z`` is the exact normal quantile of ``1 - cf`` (0.674 at 0.25), as in
    Weka; C4.5's own code interpolates a small table (0.69 at 0.25).

    >>> round(c45_added_errors(6, 0), 4), round(c45_added_errors(16, 1), 4)
    (1.2378, 1.4757)
    """
    check_cf(cf)
    if n <= 0:
        return 0.0
    if errors < 1e-6:
        return n * (1.0 - math.exp(math.log(cf) / n))
    if errors < 0.9999:
        zero = n * (1.0 - math.exp(math.log(cf) / n))
        return zero + errors * (c45_added_errors(n, 1.0, cf=cf) - zero)
    if errors + 0.5 >= n:
        # Within half an error of every case wrong: Weka's J48 adds what is left, N - E
        # (C4.5's own code adds 0.67 x (N - E) here).
        return max(n - errors, 0.0)
    z = NormalDist().inv_cdf(1.0 - cf)
    e = errors + 0.5
    upper = (e + z * z / 2 + z * math.sqrt(e * (1 - e / n) + z * z / 4)) / (n + z * z)
    return n * upper - errors


def pessimistic_errors(counts: tuple[float, ...], *, cf: float = 0.25) -> float:
    """The estimated errors of a leaf with these class counts: ``E + AddErrs(N, E)``."""
    n = float(sum(counts))
    e = training_errors(counts)
    return e + c45_added_errors(n, e, cf=cf)


def penalty_error(errors: float, leaves: int, n: float, *, penalty: float = 0.5) -> float:
    """The seeds' generalisation error estimate ``e = (sum of errors + penalty * leaves) / N``
    (seed 004: training error plus a penalty per leaf for model complexity).

    >>> round(penalty_error(4, 7, 24, penalty=0.5), 4), round(penalty_error(6, 4, 24, penalty=0.5), 4)
    (0.3125, 0.3333)
    """
    check_penalty(penalty)
    n = check("n", n, Interval(float, 0, None, closed="neither"))
    return (errors + penalty * leaves) / n


def tree_penalty_error(tree: Tree, *, penalty: float = 0.5) -> float:
    """:func:`penalty_error` of a tree: training errors and weight from its leaves' counts.

    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import id3
    >>> round(tree_penalty_error(id3(load_playtennis()), penalty=1.0), 4)
    0.3571
    """
    check_classification(tree, "the penalty estimate")
    leaves = [n for n in iter_nodes(tree) if isinstance(n, Leaf)]
    return penalty_error(sum(training_errors(l.counts) for l in leaves), len(leaves), float(sum(tree.root.counts)), penalty=penalty)
