"""C4.5 in histogram mode: ``c45(X, y, bins=edges)`` (and ``max_bins=``) is C4.5 grown as
today on the values replaced by their bins' upper edges, with every threshold the upper edge
of the node's last non-empty bin on the left instead of a midpoint."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import puretree
from puretree.growth.engine import edge_bins, quantile_bins
from puretree.errors import ParameterError
from puretree.nodes import Split, Threshold


@st.composite
def problems(draw):
    """Small numeric data with ties and (maybe) missing values, 2-3 classes, maybe weights,
    and bin edges: sorted distinct numbers over the values' range (some bins empty)."""
    n = draw(st.integers(2, 60))
    p = draw(st.integers(1, 3))
    values = st.integers(0, 9).map(float) | st.floats(-5, 5, allow_nan=False, width=32).map(float)
    if draw(st.booleans()):
        values = values | st.just(np.nan)
    X = draw(hnp.arrays(np.float64, (n, p), elements=values))
    y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, draw(st.integers(1, 2)))))
    edge = st.floats(-6, 10, allow_nan=False, width=32).map(float) | st.integers(-1, 9).map(float)
    edges = [np.array(sorted(draw(st.sets(edge, min_size=1, max_size=12)))) for _ in range(p)]
    w = draw(st.none() | hnp.arrays(np.float64, n, elements=st.sampled_from([0.5, 1.0, 2.0, 3.0])))
    return X, y, edges, w


def _binned(X, edges):
    return np.column_stack([edge_bins(X[:, j], edges[j]) for j in range(X.shape[1])])


def _pairs(a, b):
    """The nodes of two trees side by side (the same shape is asserted on the way)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        assert type(x) is type(y)
        yield x, y
        if isinstance(x, Split):
            assert len(x.children) == len(y.children)
            stack.extend(zip(x.children, y.children))


_OPTIONS = dict(min_samples_leaf=st.sampled_from([0, 1, 2, 3]), missing=st.sampled_from(["distribute", "majority"]), score=st.sampled_from(["gain_ratio", "information_gain"]), collapse=st.booleans())


@settings(max_examples=60, deadline=None)
@given(problem=problems(), **_OPTIONS)
def test_bins_grow_c45_on_the_edge_replaced_values_with_thresholds_at_edges(problem, **options):
    X, y, edges, w = problem
    before = X.copy()
    Xb = _binned(X, edges)
    binned = puretree.c45(X, y, bins=edges, sample_weight=w, **options)
    plain = puretree.c45(Xb, y, sample_weight=w, **options)  # today's C4.5 on the bins' edges (midpoints)
    np.testing.assert_array_equal(X, before)  # the user's data is not touched
    assert (binned.schema, binned.missing, binned.criterion) == (plain.schema, plain.missing, plain.criterion)
    for b, m in _pairs(binned.root, plain.root):
        assert b.stats == m.stats  # the same splits send the same rows: the same statistics
        if isinstance(b, Split):
            assert b.feature == m.feature
            if isinstance(b.test, Threshold):
                # an edge, at or below the midpoint: the lower of the node's two values
                assert b.test.value in edges[b.feature].tolist()
                assert b.test.value <= m.test.value
            else:
                assert b.test == m.test
    # on the binned values both trees route every training row alike; on the raw values the
    # binned tree sends each row where its bin went
    np.testing.assert_array_equal(puretree.predict_proba(binned, Xb), puretree.predict_proba(plain, Xb))
    np.testing.assert_array_equal(puretree.predict_proba(binned, X), puretree.predict_proba(plain, Xb))


@settings(max_examples=30, deadline=None)
@given(problem=problems(), max_bins=st.sampled_from([2, 3, 5, 255]))
def test_max_bins_bins_each_column_by_its_quantiles_first(problem, max_bins):
    X, y, _, _ = problem
    Xq = np.column_stack([quantile_bins(X[:, j], max_bins) for j in range(X.shape[1])])
    edges = [np.unique(c[~np.isnan(c)]) if (~np.isnan(c)).any() else np.array([0.0]) for c in Xq.T]
    assert puretree.c45(X, y, max_bins=max_bins) == puretree.c45(X, y, bins=edges)


def test_thresholds_are_edges_not_midpoints():
    X = np.array([[0.5], [1.2], [1.7], [2.5], [3.1], [3.9]])
    y = ["a", "a", "a", "b", "b", "b"]
    tree = puretree.c45(X, y, bins=[[1.0, 2.0, 3.0, 4.0]], min_samples_leaf=1)
    assert tree.root.test == Threshold(2.0)
    assert puretree.c45(X, y, min_samples_leaf=1).root.test == Threshold(2.1)  # unbinned: the midpoint
    assert puretree.c45(X, y, bins=[[1.0, 2.0, 3.0, 4.0]], min_samples_leaf=1, threshold="data") == tree  # no effect with bins
    # with an empty bin between the two non-empty ones, the threshold is the lower edge
    assert puretree.c45(X, y, bins=[[1.0, 2.0, 2.2, 3.0, 4.0]], min_samples_leaf=1).root.test == Threshold(2.0)


def test_categorical_features_ignore_their_bins():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"colour": pd.Categorical(["red", "blue", "red", "blue", "grey", "grey"]), "size": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    y = ["w", "c", "w", "c", "w", "w"]
    tree = puretree.c45(frame, y, bins=[None, [2.0, 4.0, 6.0]], min_samples_leaf=1)
    assert tree == puretree.c45(frame.assign(size=edge_bins(frame["size"].to_numpy(), np.array([2.0, 4.0, 6.0]))), y, min_samples_leaf=1)


def test_bad_bins_are_refused():
    X, y = [[1.0], [2.0]], [0, 1]
    with pytest.raises(ParameterError, match="not both"):
        puretree.c45(X, y, bins=[[1.0, 2.0]], max_bins=4)
    with pytest.raises(ParameterError, match="strictly increasing"):
        puretree.c45(X, y, bins=[[2.0, 1.0]])
    with pytest.raises(ParameterError, match="one array of bin edges per feature"):
        puretree.c45(X, y, bins=[[1.0], [2.0]])
    with pytest.raises(ParameterError, match="max_bins"):
        puretree.c45(X, y, max_bins=1)
