"""Property-test your own criterion: a hand-written entropy passes, a naive one is caught.

The same example as docs/property-testing.md, as a script. Run it with
``python examples/property_test_criterion.py`` where puretree and Hypothesis are installed
(``pip install puretree[hypothesis]``); it prints what Hypothesis finds.
"""

from typing import Any

import numpy as np
from hypothesis import given, settings
from numpy.typing import ArrayLike

from puretree.criteria import information_gain
from puretree.data import Dataset
from puretree.fold import iter_nodes
from puretree.grow import grow
from puretree.invariants import check_fits_training_data, check_impurity
from puretree.strategies import datasets


def my_entropy(counts: ArrayLike) -> Any:
    """Entropy in bits of class counts shaped (..., n_classes), with 0 * log 0 = 0."""
    c = np.asarray(counts, dtype=float)
    total = c.sum(axis=-1, keepdims=True)
    p = np.divide(c, total, out=np.zeros_like(c), where=total > 0)
    logs = np.log2(p, out=np.zeros_like(p), where=p > 0)
    return -(p * logs).sum(axis=-1)


@given(datasets())
def test_my_entropy(ds: Dataset) -> None:
    tree = grow(ds, score=information_gain(my_entropy))
    check_impurity(my_entropy, [node.counts for node in iter_nodes(tree)])
    check_fits_training_data(tree, ds)


def naive_entropy(counts: ArrayLike) -> Any:
    """The textbook formula typed in directly: 0 * log2(0) is nan, not 0."""
    p = np.asarray(counts, dtype=float) / np.sum(counts, axis=-1, keepdims=True)
    return -(p * np.log2(p)).sum(axis=-1)


@settings(report_multiple_bugs=False, database=None)
@given(datasets())
def test_naive_entropy(ds: Dataset) -> None:
    tree = grow(ds, score=information_gain(naive_entropy))
    check_impurity(naive_entropy, [node.counts for node in iter_nodes(tree)])
    check_fits_training_data(tree, ds)


def main() -> None:
    test_my_entropy()
    print("my_entropy: every property holds")
    try:
        with np.errstate(divide="ignore", invalid="ignore"):
            test_naive_entropy()
    except AssertionError as exc:
        print("naive_entropy: Hypothesis found a counterexample")
        print("\n".join(getattr(exc, "__notes__", [])))
        print(f"AssertionError: {exc}")
    else:
        raise SystemExit("naive_entropy passed: the property test missed the bug")


if __name__ == "__main__":
    main()
