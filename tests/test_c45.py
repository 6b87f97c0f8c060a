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
from puretree.flat import flatten
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


# -- pruning as J48 prunes -----------------------------------------------------------------------

from puretree.prune.raising import pessimistic_with_raising  # noqa: E402
from puretree.fold import n_leaves  # noqa: E402
from puretree.prune import pessimistic  # noqa: E402


@given(datasets(min_rows=4, max_rows=40, max_features=3, n_classes=2), st.sampled_from([0.1, 0.25]))
@settings(max_examples=60)
def test_without_raising_the_data_give_what_the_counts_give(ds, cf):
    # Without missing values the training rows reach exactly the nodes that hold them.
    tree = c45(ds, min_samples_leaf=1)
    assert pessimistic_with_raising(tree, ds, cf=cf, raising=False) == pessimistic(tree, cf=cf)


@given(datasets(min_rows=4, max_rows=40, max_features=3, n_classes=2), st.sampled_from([0.1, 0.25, 0.5]))
@settings(max_examples=60)
def test_raising_recounts_every_leaf_from_the_training_rows(ds, cf):
    tree = c45(ds, min_samples_leaf=1)
    pruned = pessimistic(tree, ds, cf=cf)
    assert n_leaves(pruned) <= n_leaves(tree)
    flat_leaf = pruned.apply(ds)
    nodes = flatten(pruned).nodes
    k = len(ds.schema.classes)
    for i, node in enumerate(nodes):
        if isinstance(node, Leaf):
            here = ds.y[flat_leaf == i]
            assert node.counts == tuple(np.bincount(here, minlength=k).astype(float).tolist())


def test_pessimistic_with_data_raises_and_recounts():
    x = [[v] for v in (2, 1, 2, 0, 2, 0, 1, 1, 2, 1, 0, 0, 2, 0, 0, 0, 1, 1, 2, 1, 0, 1)]
    y = [1, 1, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0]
    tree = c45(x, y, min_samples_leaf=1)
    raised = pessimistic(tree, x, y)
    assert raised.root.threshold == 0.5 and children(raised.root) == (Leaf((6.0, 2.0)), Leaf((3.0, 11.0)))
    assert pessimistic(tree, x, y, raising=False) == pessimistic(tree) == tree


# -- the command line -------------------------------------------------------------------------

from puretree.cli import main  # noqa: E402
from puretree.io import load  # noqa: E402


def test_cli_fits_c45_as_j48_and_prunes_with_the_training_data(tmp_path, capsys):
    values = (2, 1, 2, 0, 2, 0, 1, 1, 2, 1, 0, 0, 2, 0, 0, 0, 1, 1, 2, 1, 0, 1)
    labels = (1, 1, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0)
    train = tmp_path / "train.csv"
    train.write_text("x0,y\n" + "".join(f"{v},{c}\n" for v, c in zip(values, labels)))
    model, out = tmp_path / "m.json", tmp_path / "p.json"
    assert main(["fit", str(train), "--target", "y", "--min-samples-leaf", "1", "--threshold", "data", "-o", str(model)]) == 0
    tree = load(model)
    expected = c45([[float(v)] for v in values], [str(c) for c in labels], min_samples_leaf=1, threshold="data", feature_names=["x0"])
    assert tree.root == expected.root and tree.root.threshold == 1.0  # the training value, not 1.5
    # Default -M: 2, as J48.
    assert main(["fit", str(train), "--target", "y", "-o", str(tmp_path / "d.json")]) == 0
    assert load(tmp_path / "d.json").root == c45([[float(v)] for v in values], [str(c) for c in labels], feature_names=["x0"]).root
    capsys.readouterr()
    assert main(["prune", str(model), "--method", "pessimistic", "--data", str(train), "-o", str(out)]) == 0
    assert load(out) == pessimistic(tree, [{"x0": float(v)} for v in values], [str(c) for c in labels])
    assert main(["prune", str(model), "--method", "pessimistic", "-o", str(out)]) == 0
    assert "subtree replacement only" in capsys.readouterr().out
    assert load(out) == pessimistic(tree)
    assert main(["prune", str(model), "--method", "penalty", "--data", str(train), "-o", str(out)]) == 1
    assert "--data does not apply" in capsys.readouterr().err


def test_bad_options_of_the_c45_helpers_are_puretree_errors():
    from puretree.errors import DataError, PuretreeError
    from puretree.grow import data_thresholds

    with pytest.raises(PuretreeError, match="min_samples_leaf"):
        c45_scores(load_temperature(), min_samples_leaf="two")
    tree = c45(load_temperature())
    with pytest.raises(DataError, match="encoded training matrix"):
        data_thresholds(tree, np.zeros((3, 2)))
    with pytest.raises(PuretreeError):
        pessimistic(tree, load_temperature(), cf=2.0)
    with pytest.raises(PuretreeError, match="sample_weight"):
        pessimistic(tree, load_temperature(), sample_weight=[1.0])
