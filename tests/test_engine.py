"""The level-wise engine grows the reference builder's tree.

``grow(..., engine="fast")`` (:mod:`puretree.growth.engine`) against ``grow(..., engine="reference")``
(the recursive specification in :mod:`puretree.grow`) on Hypothesis-drawn data, for every
preset, criterion, missing-value strategy, weights and stopping rule:

- unweighted classification without fractional rows: the trees are ``==`` (every statistic
  is an integer, so every sum is exact in any order);
- with sample weights, regression targets, or ``missing="distribute"`` (fractional rows):
  the same structure (kinds, features, thresholds, category sets) with counts equal to
  1e-9 relative (:func:`same_tree`). The documented exception: where two candidates' scores
  lie within a few ulps of the edge of ``TIE_TOLERANCE`` of each other, the two builders may
  sum a statistic in a different order and pick different (equally good) splits. The drawn
  data here never hit that exception; if a drawn example does, :func:`same_tree` fails and
  the example is the one to study.

Where the drawn data are numeric without missing values and the score is Gini, ``engine="fast"``
runs the compiled kernel (:mod:`puretree.growth.kernels`); tests/test_kernels.py checks it against
both the reference and the numpy engine (``engine="numpy"``) on such data.
"""

from __future__ import annotations

from functools import partial

import attrs
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puretree.growth import sorted as sorted_source
from puretree.data import Dataset
from puretree.errors import DataError, ParameterError
from puretree.grow import by_task, cart, grow, id3, midpoint, threshold_splits
from puretree.nodes import CategoricalSplit, Leaf, NumericSplit
from puretree.strategies import datasets

# c45 grows with its own split generator (J48's guards), which the reference builder runs;
# the engine's gain-ratio trees are checked through the plain gain-ratio builder.
PRESETS = {"id3": id3, "gain_ratio": partial(grow, score=by_task("gain_ratio", "variance"), missing="distribute"), "cart": cart}
SCORES = ["gini", "entropy", "gain_ratio", "misclassification"]
MISSING = ["majority", "distribute"]


def same_tree(a, b, *, rel: float = 1e-9) -> bool:
    """Same structure, features, thresholds and category sets; counts equal to ``rel`` relative.

    Iterative (trees may be deep). Counts compare as ``|a - b| <= rel * max(|a|, |b|)``.
    """
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if len(x.counts) != len(y.counts):
            return False
        cx, cy = np.asarray(x.counts), np.asarray(y.counts)
        if not np.all(np.abs(cx - cy) <= rel * np.maximum(np.abs(cx), np.abs(cy))):
            return False
        if isinstance(x, Leaf):
            continue
        # A split's meaning is its feature and its test; then its children, pairwise.
        if x.feature != y.feature or x.test != y.test:
            return False
        stack += list(zip(x.children, y.children))
    return True


def both(fit, ds, **options):
    return fit(ds, engine="fast", **options), fit(ds, engine="reference", **options)


options = st.fixed_dictionaries(
    {},
    optional={
        "max_depth": st.integers(0, 4),
        "min_samples_leaf": st.integers(1, 4),
        "min_samples_split": st.integers(2, 6),
        "min_gain": st.sampled_from([0.0, 0.01, 0.1]),
    },
)


@given(ds=datasets(max_rows=30), preset=st.sampled_from(sorted(PRESETS)), score=st.sampled_from(SCORES), opts=options)
def test_unweighted_trees_are_equal(ds, preset, score, opts):
    fast, ref = both(PRESETS[preset], ds, score=score, missing="majority", **opts)
    assert fast == ref


@given(ds=datasets(max_rows=30, missing=True), preset=st.sampled_from(sorted(PRESETS)), score=st.sampled_from(SCORES), opts=options)
def test_missing_majority_is_equal(ds, preset, score, opts):
    fast, ref = both(PRESETS[preset], ds, score=score, missing="majority", **opts)
    assert fast == ref


@given(ds=datasets(max_rows=30, missing=True), preset=st.sampled_from(sorted(PRESETS)), score=st.sampled_from(SCORES), opts=options)
def test_missing_distribute_same_tree(ds, preset, score, opts):
    fast, ref = both(PRESETS[preset], ds, score=score, missing="distribute", **opts)
    assert same_tree(fast.root, ref.root)


@given(ds=datasets(max_rows=30, weights=True, missing=0.1), preset=st.sampled_from(sorted(PRESETS)), score=st.sampled_from(SCORES), missing=st.sampled_from(MISSING), opts=options)
def test_weighted_same_tree(ds, preset, score, missing, opts):
    fast, ref = both(PRESETS[preset], ds, score=score, missing=missing, **opts)
    assert same_tree(fast.root, ref.root)


def _as_regression(ds: Dataset, targets: list[float]) -> Dataset:
    y = np.array([targets[i % len(targets)] for i in range(ds.n_rows)]) + ds.y
    return Dataset(attrs.evolve(ds.schema, classes=(), task="regression"), ds.X, y, ds.sample_weight)


@given(
    ds=datasets(max_rows=30, missing=0.1),
    targets=st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=5),
    preset=st.sampled_from(sorted(PRESETS)),
    missing=st.sampled_from(MISSING),
    opts=options,
)
def test_regression_same_tree(ds, targets, preset, missing, opts):
    reg = _as_regression(ds, targets)
    fast, ref = both(PRESETS[preset], reg, missing=missing, **opts)
    assert same_tree(fast.root, ref.root)
    if missing == "majority" and not np.isnan(ds.X).any():
        assert fast == ref  # regression sums follow the reference's order exactly


@given(ds=datasets(max_rows=30, missing=0.1), weighted=st.booleans(), preset=st.sampled_from(sorted(PRESETS)), score=st.sampled_from(SCORES), missing=st.sampled_from(MISSING), opts=options)
def test_level_machinery_on_lone_nodes_too(ds, weighted, preset, score, missing, opts):
    # Lone small nodes (the root of a small fit, every level of a chain) go through the
    # level machinery as every frontier does, weighted or not.
    if weighted:
        ds = Dataset(ds.schema, ds.X, ds.y, np.linspace(0.5, 3.0, ds.n_rows))
    fast, ref = both(PRESETS[preset], ds, score=score, missing=missing, **opts)
    assert same_tree(fast.root, ref.root)
    if not weighted and missing == "majority":
        assert fast == ref


def test_deep_chain_equal():
    n = 400
    X = np.arange(n, dtype=np.float64).reshape(-1, 1)
    y = np.where(np.arange(n) % 2 == 0, "even", "odd")
    fast, ref = both(cart, X, y=y)
    assert same_tree(fast.root, ref.root, rel=0.0)


def test_accept_hook_sees_the_same_splits():
    seen: dict[str, list] = {"fast": [], "reference": []}

    def accept_into(key):
        def accept(parent, children):
            seen[key].append((tuple(parent), np.asarray(children).tolist()))
            return float(np.asarray(children).sum(axis=-1).min()) >= 2
        return accept

    X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [7.0]])
    y = ["a", "a", "b", "b", "a", "b", "b"]
    fast = cart(X, y, engine="fast", accept=accept_into("fast"))
    ref = cart(X, y, engine="reference", accept=accept_into("reference"))
    assert fast == ref
    assert sorted(seen["fast"]) == sorted(seen["reference"]) and seen["fast"]


def test_engine_option_is_checked():
    with pytest.raises(ParameterError, match="engine"):
        cart([[1.0], [2.0]], ["a", "b"], engine="turbo")
    own = lambda node, **kw: threshold_splits(node, **kw)  # noqa: E731  a generator the engine does not know
    with pytest.raises(ParameterError, match="built-in split generators"):
        grow([[1.0], [2.0]], ["a", "b"], splitters=(own,), engine="fast")
    assert grow([[1.0], [2.0]], ["a", "b"], splitters=(own,)) == grow([[1.0], [2.0]], ["a", "b"], splitters=(own,), engine="reference")


def test_missing_error_refused_by_both():
    for engine in ("fast", "reference"):
        with pytest.raises(DataError, match="row 1, column 'x0'"):
            cart([[1.0], [np.nan]], ["a", "b"], missing="error", engine=engine)


# -- histogram mode (max_bins) ------------------------------------------------------------


def _numeric_splits(node):
    stack, out = [node], []
    while stack:
        n = stack.pop()
        if isinstance(n, NumericSplit):
            out.append(n)
        if not isinstance(n, Leaf):
            stack += list(n.children) if isinstance(n, CategoricalSplit) else [n.left, n.right]
    return out


@given(ds=datasets(max_rows=30, missing=True), preset=st.sampled_from(sorted(PRESETS)))
def test_bins_enough_for_every_value_only_move_thresholds_down(ds, preset):
    # With a bin per distinct value nothing is merged: the same tree, each midpoint threshold
    # replaced by the node's training value just below it.
    exact = PRESETS[preset](ds, missing="majority")
    binned = PRESETS[preset](ds, missing="majority", max_bins=64)
    se, sb = _numeric_splits(exact.root), _numeric_splits(binned.root)
    assert len(se) == len(sb)
    for e, b in zip(se, sb):
        col = ds.X[:, e.feature]
        assert b.feature == e.feature
        # the binned cut is the lower of the two node values the exact midpoint lies between
        assert b.threshold in col.tolist() and b.threshold <= e.threshold
        assert any(midpoint(b.threshold, v) == e.threshold for v in col[col > b.threshold].tolist())
    strip = lambda n: [(type(x).__name__, x.counts) for x in _numeric_splits(n)]  # noqa: E731
    assert strip(exact.root) == strip(binned.root)


@given(ds=datasets(min_rows=5, max_rows=40, kinds=("numeric",)), max_bins=st.integers(2, 4))
def test_bins_cut_at_most_max_bins_ways(ds, max_bins):
    tree = cart(ds, max_bins=max_bins)
    for j in range(ds.X.shape[1]):
        cuts = {s.threshold for s in _numeric_splits(tree.root) if s.feature == j}
        assert len(cuts) <= max_bins - 1
        assert cuts <= set(ds.X[:, j].tolist())  # thresholds are training values
    # every training row lands in a leaf that counted it: the leaves' counts add up to the data
    leaves = [n for n in _all_nodes(tree.root) if isinstance(n, Leaf)]
    assert sum(sum(leaf.counts) for leaf in leaves) == ds.n_rows
    assert (np.asarray(tree.predict(ds)) == ds.labels()).mean() >= max(np.mean(ds.labels() == lab) for lab in ds.labels())


def _all_nodes(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, Leaf):
            stack += list(n.children) if isinstance(n, CategoricalSplit) else [n.left, n.right]


def test_max_bins_is_checked():
    with pytest.raises(ParameterError, match="max_bins"):
        cart([[1.0], [2.0]], ["a", "b"], max_bins=1)
    with pytest.raises(ParameterError, match="fast engine"):
        cart([[1.0], [2.0]], ["a", "b"], max_bins=8, engine="reference")


@given(
    st.lists(st.tuples(st.integers(0, 3), st.sampled_from([1.0, 2.0, 0.5, 1e-3, 7.25])), min_size=2, max_size=60),
    st.sampled_from([1.0, 1e6, 1e-6]),
)
def test_numpy_scan_screen_keeps_every_candidate_near_the_best(rows: list[tuple[int, float]], scale: float) -> None:
    """The numpy scan scores exactly only the candidates its ranking screen keeps (as the
    compiled scan does): every candidate whose exact Gini decrease ties with the best is kept."""
    from puretree.criteria import ImpurityDecrease
    from puretree.growth.choose import binary_scores, tolerance
    from puretree.impurity import gini

    k = 4
    onehot = np.zeros((len(rows), k))
    onehot[np.arange(len(rows)), [c for c, _ in rows]] = [w * scale for _, w in rows]
    parent = onehot.sum(axis=0)
    left = np.cumsum(onehot, axis=0)[:-1]  # every position of one node, in one group
    exact = binary_scores(ImpurityDecrease(gini), parent, left, "x", regression=False, variance=False)
    exact = np.where(np.isnan(exact), -np.inf, exact)
    kept = sorted_source._near(sorted_source._rank(left.T, np.broadcast_to(parent, left.shape).T), np.array([0]), parent.sum())
    best = exact.max()
    if np.isfinite(best):
        assert kept[exact >= best - tolerance(np.array(best))].all()
