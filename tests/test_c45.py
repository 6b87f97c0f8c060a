"""C4.5 as Quinlan's release 8 and Weka's J48 grow it: the book's numbers, and the guards as
structural properties over drawn data."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puretree.c45 import AVERAGE_GAIN_SLACK, c45, c45_scores, c45_splits, collapse_unhelpful
from puretree.datasets import load_playtennis, load_temperature
from puretree.errors import ParameterError
from puretree.fold import depth, iter_nodes
from puretree.criteria import information_gain
from puretree.grow import grow
from puretree.impurity import entropy
from puretree.nodes import CategoricalSplit, Leaf, NumericSplit, children
from puretree.strategies import datasets


def H(*counts):
    return float(entropy(np.array(counts, dtype=float)))


# -- Quinlan (1993) and the seeds, exactly ------------------------------------------------------


def test_quinlans_unknown_outlook():
    # C4.5 section 3.1: PlayTennis with one overcast day's outlook unknown.
    ds = load_playtennis()
    X = ds.X.copy()
    overcast = int(np.flatnonzero(ds.X[:, 0] == 0)[0])
    X[overcast, 0] = np.nan
    s = c45_scores(X, ds.labels(), feature_names=ds.schema.feature_names, categorical=ds.schema.feature_names)["outlook"]
    gain = 13 / 14 * (H(8, 5) - (5 / 13 * H(2, 3) + 3 / 13 * H(3, 0) + 5 / 13 * H(3, 2)))
    info = -(2 * 5 / 14 * math.log2(5 / 14) + 3 / 14 * math.log2(3 / 14) + 1 / 14 * math.log2(1 / 14))
    assert s.gain == pytest.approx(gain, rel=1e-12) and round(s.gain, 3) == 0.199
    assert s.gain / s.ratio == pytest.approx(info, rel=1e-12) and round(info, 3) == 1.809
    assert round(s.ratio, 3) == 0.110


def test_playtennis_gains_are_the_seeds():
    scores = c45_scores(load_playtennis())
    assert [round(scores[a].gain, 4) for a in ("outlook", "temperature", "humidity", "wind")] == [0.2467, 0.0292, 0.1518, 0.0481]
    assert all(s.counts_in_average for s in scores.values())


@pytest.mark.parametrize("m, cuts", [(1, 5), (2, 3)])
def test_temperature_cut_pays_the_mdl_correction(m, cuts):
    # The seeds' six temperatures; the best cut, 54, has gain 0.459. With -M 1 all five cuts
    # are admissible; with -M 2 only those leaving two rows on each side (48|60, 60|72, 72|80).
    s = c45_scores(load_temperature(), min_samples_leaf=m)["temperature"]
    plain = H(3, 3) - 4 / 6 * H(3, 1)
    assert round(plain, 3) == 0.459
    assert s.gain == pytest.approx(plain - math.log2(cuts) / 6, rel=1e-12)
    assert s.threshold == 54.0
    assert s.ratio == pytest.approx(s.gain / H(2, 4), rel=1e-12)  # split information of 2 | 4


def test_temperature_tree_and_data_thresholds():
    assert c45(load_temperature()).root.threshold == 54.0
    assert c45(load_temperature(), threshold="data").root.threshold == 48.0  # J48's choice
    assert c45(load_temperature(), threshold="data").predict(load_temperature()).tolist() == c45(load_temperature()).predict(load_temperature()).tolist()


def test_a_high_ratio_below_average_gain_does_not_win():
    # "tag" isolates one row: tiny split info, so the higher ratio, but a gain below the
    # average; "signal" has the higher gain and wins, as C4.5 wants.
    n = 40
    signal = np.repeat([0.0, 1.0], n // 2)
    y = np.array(["a"] * 13 + ["b"] * 7 + ["a"] * 7 + ["b"] * 13)
    tag = np.zeros(n)
    tag[15] = 1.0  # one row of class b
    X = np.column_stack((tag, signal))
    names = ["tag", "signal"]
    scores = c45_scores(X, y, feature_names=names, categorical=names, min_samples_leaf=1)
    average = (scores["tag"].gain + scores["signal"].gain) / 2
    assert scores["signal"].gain == pytest.approx(H(20, 20) - H(7, 13), rel=1e-12)
    assert scores["tag"].gain == pytest.approx(H(20, 20) - 39 / 40 * H(20, 19), rel=1e-12)
    assert scores["tag"].ratio > scores["signal"].ratio and scores["tag"].gain < average - AVERAGE_GAIN_SLACK
    tree = c45(X, y, feature_names=names, categorical=names, min_samples_leaf=1)
    assert tree.schema.features[tree.root.feature].name == "signal"
    # The plain gain-ratio builder, without the filter, takes the tag.
    plain = grow(X, y, feature_names=names, categorical=names, score="gain_ratio")
    assert plain.schema.features[plain.root.feature].name == "tag"


def test_defaults_and_options():
    ds = load_playtennis()
    assert c45(ds) == c45(ds, min_samples_leaf=2, missing="distribute", threshold="midpoint")
    assert c45(ds, score=information_gain(entropy)).root.feature == 0
    with pytest.raises(ParameterError, match="threshold"):
        c45(ds, threshold="mean")
    with pytest.raises(ParameterError, match="c45 chooses splits"):
        c45(ds, score=lambda parent, children, features=None: np.zeros(np.shape(children)[:-2]))


def test_no_chain_on_alternating_labels():
    # Gain ratio alone peels one row at a time off this into a 999-level chain.
    X = np.arange(1000, dtype=float).reshape(-1, 1)
    y = np.arange(1000) % 2
    assert depth(grow(X, y, score="gain_ratio")) == 999
    assert isinstance(c45(X, y).root, Leaf)


# -- structure, on drawn data ----------------------------------------------------------------


def _weight(node):
    return sum(node.counts)


@given(datasets(min_rows=2, max_rows=30, max_features=3, missing=0.2), st.sampled_from([1, 2, 3]))
@settings(max_examples=60)
def test_every_split_keeps_j48s_minimum_branches(ds, m):
    tree = c45(ds, min_samples_leaf=m, collapse=False)
    k = len(ds.schema.classes)
    for node in iter_nodes(tree):
        if isinstance(node, Leaf):
            continue
        weights = [_weight(c) for c in children(node)]
        assert sum(w >= m - 1e-6 for w in weights) >= 2
        if isinstance(node, NumericSplit):
            least = min(max(0.1 * _weight(node) / k, m), 25)
            assert min(weights) >= least - 1e-6


@given(datasets(min_rows=2, max_rows=30, max_features=3, missing=0.2), st.sampled_from([1, 2]))
@settings(max_examples=60)
def test_collapse_leaves_only_subtrees_that_reduce_training_errors(ds, m):
    tree = c45(ds, min_samples_leaf=m)
    assert tree == collapse_unhelpful(tree)  # a fixed point

    def errors(node):
        if isinstance(node, Leaf):
            return sum(node.counts) - max(node.counts)
        return sum(errors(c) for c in children(node))

    for node in iter_nodes(tree):
        if not isinstance(node, Leaf) and depth(node) < 50:
            assert errors(node) < sum(node.counts) - max(node.counts) - 1e-3


@given(datasets(min_rows=2, max_rows=30, max_features=3, kinds=("numeric",)))
@settings(max_examples=60)
def test_data_thresholds_are_training_values_and_route_training_rows_alike(ds):
    mid = c45(ds, min_samples_leaf=1)
    data = c45(ds, min_samples_leaf=1, threshold="data")
    values = set(ds.X.ravel().tolist())
    for node in iter_nodes(data):
        if isinstance(node, NumericSplit):
            assert node.threshold in values
    assert (mid.apply(ds.X) == data.apply(ds.X)).all()


@given(datasets(min_rows=2, max_rows=30, max_features=3))
@settings(max_examples=60)
def test_c45_is_grow_with_its_splitter_then_collapse(ds):
    expected = collapse_unhelpful(grow(ds, score="gain_ratio", splitters=(c45_splits,), min_samples_leaf=2, missing="distribute"))
    assert c45(ds) == expected
    for node in iter_nodes(expected):
        assert not isinstance(node, CategoricalSplit) or len(children(node)) == len(ds.schema.features[node.feature].categories)
