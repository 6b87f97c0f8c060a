"""``monotonic_cst`` and ``missing="learn"`` in histogram mode (``bins=``, ``max_bins=``; issue 25:
each option on every source where it has a meaning): the tree is the one grown on the binned
values, each threshold the bin's edge below the exact fit's midpoint, the learned sides and the
monotonic bounds the same."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import puretree as pt
from puretree.nodes import Leaf, NumericSplit


@st.composite
def fits(draw):
    n = draw(st.integers(4, 50))
    p = draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    X = np.round(rng.normal(size=(n, p)), 1)
    X[rng.random(X.shape) < draw(st.sampled_from([0.0, 0.1, 0.3]))] = np.nan
    regression = draw(st.booleans())
    y = np.round(rng.normal(size=n), 1) if regression else rng.integers(0, 2, size=n)
    edges = [np.unique(np.quantile(c[~np.isnan(c)], np.linspace(0.2, 1.0, draw(st.integers(1, 5))))) if (~np.isnan(c)).any() else np.zeros(1) for c in X.T]
    options = {"max_depth": draw(st.sampled_from([None, 2])), "min_samples_leaf": draw(st.sampled_from([1, 3]))}
    if draw(st.booleans()):
        options["missing"] = "learn"
    else:
        options["missing"] = "majority"
        options["monotonic_cst"] = draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=p, max_size=p))
    return X, y, edges, regression, options


def _binned_values(X, edges):
    """Each value replaced by its bin's upper edge (the first edge at or above it; the last edge
    past them all), a missing value kept."""
    out = X.copy()
    for j, e in enumerate(edges):
        known = ~np.isnan(X[:, j])
        out[known, j] = e[np.minimum(np.searchsorted(e, X[known, j], side="left"), len(e) - 1)]
    return out


def _shape(node):
    """The tree without its thresholds: each split's feature and learned side, each node's statistics."""
    if isinstance(node, Leaf):
        return ("leaf", tuple(np.round(node.counts, 9)))
    assert isinstance(node, NumericSplit)
    return (node.feature, node.test.missing_branch, tuple(np.round(node.counts, 9)), _shape(node.left), _shape(node.right))


def _splits(node):
    return [] if isinstance(node, Leaf) else [node] + _splits(node.left) + _splits(node.right)


def _thresholds(node):
    if isinstance(node, Leaf):
        return []
    return [node.threshold] + _thresholds(node.left) + _thresholds(node.right)


@given(fits())
def test_binned_fit_is_the_exact_fit_of_the_binned_values_with_cuts_at_edges(case):
    X, y, edges, regression, options = case
    fit = pt.cart_regressor if regression else pt.cart
    binned = fit(X, y, bins=edges, **options)
    exact = fit(_binned_values(X, edges), y, **options)
    assert _shape(binned.root) == _shape(exact.root)
    for b, e in zip(_thresholds(binned.root), _thresholds(exact.root)):
        # the cut is the edge just below the exact fit's midpoint (+inf: the missing rows alone go right)
        assert b == e == np.inf or (b <= e and any(b == edge for edge in np.concatenate(edges).tolist()))
    # the training rows land where the exact fit of the binned values sends them
    assert np.array_equal(np.asarray(binned.predict(X)), np.asarray(exact.predict(_binned_values(X, edges))))


def test_max_bins_with_a_learned_side_and_monotonic_constraints():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=400) > 0).astype(int)
    X[rng.random(X.shape) < 0.1] = np.nan
    learned = pt.cart(X, y, missing="learn", max_bins=16, max_depth=4)
    sides = {n.test.missing_branch for n in _splits(learned.root)}
    assert sides <= {0, 1} and len(sides) == 2  # both sides learned somewhere
    rising = pt.cart(X, y, monotonic_cst=[1, 0, 0], max_bins=16, max_depth=4)
    assert pt.check_monotone(rising, 0, +1) is True
    with pytest.raises(pt.ParameterError, match="max_bins"):
        pt.cart(X, y, missing="learn", max_bins=16, engine="reference")
