"""puretree.hist_gradient_boosting (issue 28): histogram gradient boosting on the growth
package's binned source, a Boosted that exports and round-trips; its accuracy within the
issue's bounds of scikit-learn's HistGradientBoostingClassifier and LightGBM's (run here)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import puretree as pt
from puretree.errors import DataError, ParameterError
from puretree.hist_gradient_boosting import Grower, MIN_HESSIAN, _should_stop, hist_gradient_boosting
from puretree.io import from_json, to_json
from puretree.nodes import Split

import lightgbm as lgb  # a test dependency (constraints/test.txt): the reference is run here
from sklearn import datasets
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import train_test_split

# The protocol: 5 stratified 75/25 splits, seeds 0-4.
PROTOCOL = dict(max_iter=100, learning_rate=0.1, max_leaf_nodes=31, min_samples_leaf=20, l2_regularization=0.0, max_bins=255)


def _small(seed=0, n=300, p=4, classes=2, nan=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (classes > 2) * (X[:, 2] > 0.5).astype(int)
    if nan:
        X[rng.random((n, p)) < nan] = np.nan
    return X, y


def _accuracies(X, y):
    """Mean test accuracy (percent) and mean count of correct test rows of the three boosters."""
    acc = {"puretree": [], "sklearn": [], "lightgbm": []}
    for seed in range(5):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, stratify=y, random_state=seed)
        ours = hist_gradient_boosting(Xtr, ytr, early_stopping=False, **PROTOCOL)
        acc["puretree"].append(np.sum(ours.predict(Xte) == yte))
        theirs = HistGradientBoostingClassifier(early_stopping=False, random_state=0, **PROTOCOL).fit(Xtr, ytr)
        acc["sklearn"].append(np.sum(theirs.predict(Xte) == yte))
        light = lgb.LGBMClassifier(n_estimators=100, learning_rate=0.1, num_leaves=31, min_data_in_leaf=20, lambda_l2=0.0, max_bin=255, min_sum_hessian_in_leaf=1e-3, verbose=-1, n_jobs=2).fit(Xtr, ytr)
        acc["lightgbm"].append(np.sum(light.predict(Xte) == yte))
    n_test = len(yte)
    return {k: float(np.mean(v)) for k, v in acc.items()}, n_test


def test_breast_cancer_within_two_test_rows_of_sklearn_and_lightgbm():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    correct, _ = _accuracies(X, y)
    assert abs(correct["puretree"] - correct["sklearn"]) <= 2, correct
    assert abs(correct["puretree"] - correct["lightgbm"]) <= 2, correct


def test_digits_within_half_a_point_of_sklearn_and_lightgbm():
    X, y = datasets.load_digits(return_X_y=True)
    correct, n_test = _accuracies(X, y)
    pct = {k: 100 * v / n_test for k, v in correct.items()}
    assert abs(pct["puretree"] - pct["sklearn"]) <= 0.5, pct
    assert abs(pct["puretree"] - pct["lightgbm"]) <= 0.5, pct


def test_deterministic_and_the_input_untouched():
    X, y = _small(nan=0.1)
    X0, y0 = X.copy(), y.copy()
    a = hist_gradient_boosting(X, y, max_iter=10, min_samples_leaf=5)
    b = hist_gradient_boosting(X, y, max_iter=10, min_samples_leaf=5, threads=1)
    assert a == b
    assert np.array_equal(X, X0, equal_nan=True) and np.array_equal(y, y0)


def test_training_raw_scores_are_the_models():
    # the fit's own raw scores (leaf values summed per row) are what the model answers: the
    # thresholds send every training row where its bin went, missing values included
    X, y = _small(nan=0.15, classes=3)
    model = hist_gradient_boosting(X, y, max_iter=8, min_samples_leaf=5)
    assert model.n_outputs == 3
    acc = (model.predict(X) == y).mean()
    assert acc > 0.85


def test_json_round_trip():
    X, y = _small(nan=0.1)
    model = hist_gradient_boosting(X, y, max_iter=6, min_samples_leaf=5)
    again = from_json(to_json(model))
    assert again == model
    assert np.array_equal(again.decision_function(X), model.decision_function(X))


@pytest.mark.parametrize("target", ["python", "c"])
@pytest.mark.parametrize("classes", [2, 3])
def test_exported_code_gives_the_raw_scores_bit_for_bit(target, classes):
    X, y = _small(nan=0.1, classes=classes)
    model = hist_gradient_boosting(X, y, max_iter=5, min_samples_leaf=10)
    report = pt.verify(model, X[:60], target)
    assert report.n_checked >= 60 and report.n_mismatches == 0, report.mismatches[:3]


def test_regression_exported_and_close():
    rng = np.random.default_rng(1)
    X = rng.uniform(-2, 2, size=(400, 3))
    y = np.sin(X[:, 0]) * 3 + X[:, 1]
    model = hist_gradient_boosting(X, y, loss="squared_error", max_iter=60, min_samples_leaf=5)
    assert model.loss == "squared_error" and model.n_outputs == 1
    assert np.mean((model.predict(X) - y) ** 2) < 0.05 * np.var(y)
    assert pt.verify(model, X[:40], "c").n_mismatches == 0


def test_missing_values_learn_their_side():
    # the label is 1 exactly where x0 is missing: one split sends the missing values right
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 1))
    y = np.zeros(200, dtype=int)
    X[:50, 0] = np.nan
    y[:50] = 1
    model = hist_gradient_boosting(X, y, max_iter=20, max_leaf_nodes=2, min_samples_leaf=5)
    root = model.stages[0][0].root
    assert isinstance(root, Split) and root.test.missing_branch == 1 and root.test.value == math.inf
    assert model.predict([[np.nan]]).tolist() == [1] and model.predict([[0.3]]).tolist() == [0]


def test_max_leaf_nodes_and_min_samples_leaf_hold():
    X, y = _small(n=500)
    model = hist_gradient_boosting(X, y, max_iter=4, max_leaf_nodes=5, min_samples_leaf=30)
    for (tree,) in model.stages:
        leaves = [n for n in pt.fold.iter_nodes(tree) if not isinstance(n, Split)]
        assert len(leaves) <= 5
        counts = np.bincount(np.asarray(pt.apply(tree, X)))
        assert counts[counts > 0].min() >= 30 and np.count_nonzero(counts) == len(leaves)


def test_l2_regularization_shrinks_the_leaves():
    # a leaf's value is -G / (H + l2): a larger l2, smaller values at the same splits
    X, y = _small()
    plain = hist_gradient_boosting(X, y, max_iter=1, max_leaf_nodes=2, min_samples_leaf=5)
    shrunk = hist_gradient_boosting(X, y, max_iter=1, max_leaf_nodes=2, min_samples_leaf=5, l2_regularization=50.0)
    a, b = np.abs(plain.decision_function(X) - plain.init[0]), np.abs(shrunk.decision_function(X) - shrunk.init[0])
    assert np.all(b < a)


def test_early_stopping_stops_and_counts_its_stages():
    X, y = _small(n=600)
    model = hist_gradient_boosting(X, y, max_iter=500, early_stopping=True, n_iter_no_change=3, min_samples_leaf=5, learning_rate=0.5, random_state=1)
    n = model.option("n_iter_")
    assert n == len(model.stages) < 500
    off = hist_gradient_boosting(X, y, max_iter=7, early_stopping=False, min_samples_leaf=5)
    assert off.option("n_iter_") == 7


@given(st.lists(st.floats(-1.0, 0.0), min_size=1, max_size=30), st.integers(1, 5))
@settings(max_examples=50)
def test_should_stop_is_scikit_learns_rule(scores, n):
    from sklearn.ensemble._hist_gradient_boosting.gradient_boosting import BaseHistGradientBoosting

    class _Probe:
        n_iter_no_change = n
        tol = 1e-7

    theirs = BaseHistGradientBoosting._should_stop(_Probe(), scores)
    assert _should_stop(scores, n, 1e-7) == theirs


def test_best_split_takes_the_l2_term_and_the_hessian_floor():
    # one feature, two bins: sums (h, -g, ., rows); l2 enters the gain
    H = np.zeros((1, 3, 4))
    H[0, 0] = [10.0, 5.0, 0.0, 10.0]
    H[0, 1] = [10.0, -5.0, 0.0, 10.0]
    grower = Grower(np.zeros((20, 1)), np.zeros((20, 1), dtype=np.uint8), [np.array([0.0, 1.0])], 3, max_leaf_nodes=None, max_depth=None, min_samples_leaf=1, l2=2.0, threads=1)
    gain, f, b, side = grower.best_split(H, H[0].sum(axis=0))
    assert (f, b, side) == (0, 0, 1) and gain == pytest.approx(25 / 12 + 25 / 12 - 0.0)
    H[0, 0, 0] = MIN_HESSIAN / 2  # too little hessian on the left: no split
    assert grower.best_split(H, H[0].sum(axis=0)) is None


def test_bad_input_is_refused_by_name():
    X, y = _small()
    with pytest.raises(ParameterError, match="categorical_features names 'nope'"):
        hist_gradient_boosting(X, y, categorical_features=["nope"])
    with pytest.raises(ParameterError, match="index 7, out of range"):
        hist_gradient_boosting(X, y, categorical_features=[7])
    with pytest.raises(ParameterError, match="boolean mask of 2 values for 4 features"):
        hist_gradient_boosting(X, y, categorical_features=[True, False])
    with pytest.raises(ParameterError, match="categorical feature 'x0' has 300 categories, more than max_bins=255"):
        hist_gradient_boosting(X, y, categorical_features=[0])
    with pytest.raises(ParameterError, match="max_bins"):
        hist_gradient_boosting(X, y, max_bins=256)
    with pytest.raises(ParameterError, match="scoring"):
        hist_gradient_boosting(X, y, scoring="accuracy")
    with pytest.raises(ParameterError, match="log_loss"):
        hist_gradient_boosting(X, y, loss="absolute_error")
    bad = X.copy()
    bad[3, 2] = np.inf
    with pytest.raises(DataError, match="'x2'.*inf"):
        hist_gradient_boosting(bad, y)
    with pytest.raises(ParameterError, match="numeric features of a Dataset"):
        hist_gradient_boosting(pt.as_dataset(X, y), categorical_features=[0])
    with pytest.raises(DataError, match="two classes"):
        hist_gradient_boosting(X, np.zeros(len(X), dtype=int))


def test_command_line_fit_hist_gradient_boosting(tmp_path):
    import subprocess
    import sys

    X, y = _small(n=200, nan=0.05)
    rows = ["a,b,c,d,label"] + [",".join("" if np.isnan(v) else repr(float(v)) for v in x) + f",{'yes' if t else 'no'}" for x, t in zip(X, y)]
    data = tmp_path / "data.csv"
    data.write_text("\n".join(rows) + "\n")
    out = tmp_path / "model.json"
    run = subprocess.run([sys.executable, "-m", "puretree", "fit", str(data), "--target", "label", "--ensemble", "hist-gradient-boosting", "--n-estimators", "7", "--min-samples-leaf", "5", "--no-progress", "-o", str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    model = pt.load(out)
    assert len(model.stages) == 7 and model.option("builder") == "hist_gradient_boosting" and model.option("min_samples_leaf") == 5
    bad = subprocess.run([sys.executable, "-m", "puretree", "fit", str(data), "--target", "label", "--ensemble", "forest", "--l2-regularization", "1", "-o", str(tmp_path / "f.json")], capture_output=True, text=True)
    assert bad.returncode != 0 and "--l2-regularization: for --ensemble hist-gradient-boosting only" in bad.stderr and "Traceback" not in bad.stderr


# -- the compiled loops and the binning give numpy's floats ----------------------------------------


def test_compiled_loops_grow_numpys_trees(monkeypatch):
    # weights (some zero), missing values, three classes: the C histogram, split search and
    # partition against the numpy ones, model for model
    X, y = _small(n=2000, classes=3, nan=0.05)
    w = np.random.default_rng(3).random(len(y))
    w[:20] = 0
    compiled = hist_gradient_boosting(X, y, max_iter=6, min_samples_leaf=5, sample_weight=w, threads=2)
    monkeypatch.setenv("PURETREE_ENGINE", "numpy")
    assert hist_gradient_boosting(X, y, max_iter=6, min_samples_leaf=5, sample_weight=w, threads=2) == compiled


@pytest.mark.parametrize("threads", [1, 2, 3, 7])
def test_any_number_of_threads_grows_the_numpy_engines_model(monkeypatch, threads):
    # every step shared between the threads (no least work): the features cut into other
    # ranges, the rows parted by one thread and picked by the others, the same model as numpy's
    import importlib

    hgb = importlib.import_module("puretree.hist_gradient_boosting")  # the module (the package's name is the function)
    X, y = _categorical(seed=4, n=900)
    X = np.column_stack([X, _small(seed=5, n=900, p=5, nan=0.05)[0]])
    w = np.random.default_rng(6).random(len(y)) * (np.arange(len(y)) % 17 > 0)  # some rows of weight 0
    options = dict(max_iter=5, min_samples_leaf=3, max_leaf_nodes=12, categorical_features=[0, 1], sample_weight=w)
    monkeypatch.setattr(hgb, "_STEP_MIN_WORK", 0)
    compiled = hist_gradient_boosting(X, y, threads=threads, **options)
    monkeypatch.setenv("PURETREE_ENGINE", "numpy")
    assert hist_gradient_boosting(X, y, threads=threads, **options) == compiled


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 9), st.integers(2, 40), st.integers(1, 5), st.booleans(), st.integers(1, 6))
def test_the_compiled_step_is_the_numpy_pieces(seed, p, n_bins, min_leaf, categorical, threads):
    # one step of a tree (pt_hgb_step) against the numpy loops it replaces: the rows parted in
    # order, the smaller child's histogram summed, the larger's by subtraction, both children's
    # totals and best splits; bit for bit, whatever the threads (a parent histogram that is
    # itself a difference: empty bins holding rounding residues)
    from puretree.growth.histograms import compiled_loops

    lib = compiled_loops()
    if lib is None:
        pytest.skip("the compiled library is not built here")
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 400))
    bins = rng.integers(0, n_bins, size=(n, p)).astype(np.uint8)
    last = rng.integers(-1, n_bins - 1, size=p)  # -1: a categorical feature (no cut)
    edges = [np.arange(max(int(b), 0) + 1, dtype=np.float64) for b in last]
    categories = [n_bins - 1 if b < 0 else 0 for b in last]
    target = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4, size=n)
    weight = rng.random(n) * 10.0 ** rng.integers(-2, 3, size=n) + 1e-16
    l2 = float(rng.integers(0, 2))
    make = lambda lib_: Grower(np.zeros((n, p)), bins, edges, n_bins, max_leaf_nodes=None, max_depth=None, min_samples_leaf=min_leaf, l2=l2, threads=threads, lib=lib_, categories=categories)  # noqa: E731
    ours, ref = make(lib), make(None)
    addresses = (target.ctypes.data, weight.ctypes.data)
    grand = np.flatnonzero(rng.random(n) < 0.9).astype(np.int64)
    rows = grand[rng.random(len(grand)) < 0.7]
    # the parent: its grandparent's histogram less its sibling's
    Hp = ref.histogram(grand, target, weight) - ref.histogram(np.setdiff1d(grand, rows), target, weight)
    f = int(rng.integers(0, p))
    if categorical:
        side: object = (rng.random(n_bins) < 0.5, False)
        b = -1
    else:
        side, b = int(rng.integers(0, 2)), int(rng.integers(0, n_bins - 1))
    swap = bool(rng.integers(0, 2))
    kids = ours.parted((rows, rows.ctypes.data), _block(Hp.copy()), f, b, side, swap, target, weight, addresses)
    want = ref.parted((rows, 0), (Hp.copy(), 0), f, b, side, swap, target, weight, (0, 0))
    for (got_rows, got_H, searched), (want_rows, want_H, _) in zip(kids, want):
        assert np.array_equal(got_rows[0], want_rows[0])
        # the compiled histogram sums w * y * y for feature 0 alone (the node's totals)
        assert np.array_equal(got_H[0][..., [0, 1, 3]], want_H[0][..., [0, 1, 3]]) and np.array_equal(got_H[0][0], want_H[0][0])
        total = want_H[0][0].sum(axis=0)
        assert np.array_equal(searched[0], total)
        assert searched[1] == ref.best_split(want_H[0], total)
    ((_, (root_H, _), (total, found)),) = ours.step((rows, rows.ctypes.data), *addresses)
    want_root = ref.histogram(rows, target, weight)
    assert np.array_equal(root_H[..., [0, 1, 3]], want_root[..., [0, 1, 3]]) and np.array_equal(root_H[0], want_root[0])
    assert np.array_equal(total, want_root[0].sum(axis=0)) and found == ref.best_split(root_H, total)


def _block(a):
    return a, a.ctypes.data


def test_a_step_refuses_a_row_out_of_range():
    from puretree.growth.histograms import compiled_loops

    lib = compiled_loops()
    if lib is None:
        pytest.skip("the compiled library is not built here")
    bins = np.zeros((4, 2), dtype=np.uint8)
    grower = Grower(np.zeros((4, 2)), bins, [np.array([0.0])] * 2, 2, max_leaf_nodes=None, max_depth=None, min_samples_leaf=1, l2=0.0, threads=2, lib=lib)
    t, w = np.zeros(4), np.ones(4)
    rows = np.array([0, 4], dtype=np.int64)  # row 4 of 4
    with pytest.raises(DataError, match="out of range"):
        grower.step((rows, rows.ctypes.data), t.ctypes.data, w.ctypes.data)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 40), st.sampled_from([0.0, 0.2]))
def test_binning_is_the_binned_sources(seed, max_bins, nan):
    from concurrent.futures import ThreadPoolExecutor

    from puretree.growth.engine import quantile_bins
    from puretree.growth.histograms import binned_rows
    from puretree.hist_gradient_boosting import _binned

    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=300), rng.integers(0, 5, 300).astype(float), np.round(rng.normal(size=300), 1)])
    X[rng.random(X.shape) < nan] = np.nan
    with ThreadPoolExecutor(2) as pool:
        bins, edges, n_bins = _binned(X, max_bins, pool)
    want, want_edges, want_n = binned_rows(X, lambda column, j: quantile_bins(column, max_bins))
    assert n_bins == want_n and np.array_equal(bins, want)
    assert all(np.array_equal(a, b) for a, b in zip(edges, want_edges))


# -- native categorical splits -----------------------------------------------------------------


def _categorical(seed=0, n=600, nan=0.08):
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 7, n).astype(float)
    c[rng.random(n) < nan] = np.nan
    x = np.round(rng.normal(size=n), 1)  # fewer values than bins: both libraries' bins are the values
    effect = np.array([1.0, -1.0, 0.5, -0.5, 2.0, 0.0, -2.0])
    logit = np.where(np.isnan(c), 1.5, effect[np.nan_to_num(c).astype(int)]) + 0.3 * x
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return np.column_stack([c, x]), y


@pytest.mark.parametrize("nan", [0.08, 0.0])
def test_categorical_splits_are_scikit_learns(nan):
    # scikit-learn's HGB rule: categories sorted by gradient / (hessian + 10), the best prefix
    # from either end; a missing value where its category went (or, none in training, to the
    # child with more rows); an unknown category as a missing value. One categorical and one
    # numeric feature: the same trees, so the same raw scores (theirs sum float32 gradients)
    X, y = _categorical(nan=nan)
    kw = dict(max_iter=8, min_samples_leaf=5, learning_rate=0.3, early_stopping=False)
    ours = hist_gradient_boosting(X, y, categorical_features=[0], **kw)
    theirs = HistGradientBoostingClassifier(categorical_features=[0], **kw).fit(X, y)
    test = np.vstack([X, X[[0, 0, 0]]])
    test[-3:, 0] = [np.nan, 9.0, 5.0]  # missing, unknown, known (one row's other value)
    with pytest.warns(UserWarning, match="9"):
        got = ours.decision_function(test)
    assert np.allclose(got, theirs.decision_function(test), rtol=0, atol=1e-6)
    assert got[-3] == got[-2]  # the unknown category goes as the missing value
    subsets = [n for stage in ours.stages for tree in stage for n in pt.iter_nodes(tree) if isinstance(n, Split) and n.test.kind == "subset"]
    assert subsets and all(n.surrogates is not None and n.surrogates.fallback in (0, 1) and not n.surrogates.splits for n in subsets)


def test_categorical_model_exports_and_round_trips():
    X, y = _categorical(n=400)
    model = hist_gradient_boosting(X, y, categorical_features=[0], max_iter=5, min_samples_leaf=10)
    probe = np.vstack([X[:40], [[np.nan, 0.3], [8.0, -0.3]]])  # a missing value and an unknown category
    for target in ("python", "c"):
        report = pt.verify(model, probe, target)
        assert report.n_checked >= 42 and report.n_mismatches == 0, report.mismatches[:3]
    assert from_json(to_json(model)) == model


def test_categorical_columns_by_name_mask_and_from_the_data():
    X, y = _categorical(n=300)
    by_index = hist_gradient_boosting(X, y, categorical_features=[0], max_iter=3, min_samples_leaf=10)
    assert hist_gradient_boosting(X, y, categorical_features=["x0"], max_iter=3, min_samples_leaf=10) == by_index
    assert hist_gradient_boosting(X, y, categorical_features=np.array([True, False]), max_iter=3, min_samples_leaf=10) == by_index
    # a column of strings is categorical already (None and "from_dtype": the data's own)
    rows = [{"colour": "red" if c == 0 else "blue" if c == 1 else "green", "x": float(x)} for c, x in zip(np.nan_to_num(X[:, 0]) % 3, X[:, 1])]
    for chosen in (None, "from_dtype"):
        model = hist_gradient_boosting(rows, y, categorical_features=chosen, max_iter=3, min_samples_leaf=10)
        assert not model.schema.features[0].is_numeric and model.predict(rows).shape == (300,)


def test_credit_g_categoricals_within_half_a_point_of_sklearn_and_lightgbm():
    import pandas as pd
    from pathlib import Path

    frame = pd.read_csv(Path(__file__).parent / "data" / "credit-g.csv")
    y = (frame.pop("class") == "good").astype(int).to_numpy()
    categorical = [j for j, name in enumerate(frame.columns) if not pd.api.types.is_numeric_dtype(frame[name])]
    for j in categorical:  # the categories as their codes, for all three
        frame[frame.columns[j]] = frame[frame.columns[j]].astype("category").cat.codes.astype(float)
    X = frame.to_numpy(dtype=np.float64)
    correct = {"puretree": [], "sklearn": [], "lightgbm": []}
    for seed in range(5):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, stratify=y, random_state=seed)
        ours = hist_gradient_boosting(Xtr, ytr, early_stopping=False, categorical_features=categorical, **PROTOCOL)
        correct["puretree"].append(np.sum(ours.predict(Xte) == yte))
        theirs = HistGradientBoostingClassifier(early_stopping=False, random_state=0, categorical_features=categorical, **PROTOCOL).fit(Xtr, ytr)
        correct["sklearn"].append(np.sum(theirs.predict(Xte) == yte))
        light = lgb.LGBMClassifier(n_estimators=100, learning_rate=0.1, num_leaves=31, min_data_in_leaf=20, lambda_l2=0.0, max_bin=255, min_sum_hessian_in_leaf=1e-3, verbose=-1, n_jobs=2)
        correct["lightgbm"].append(np.sum(light.fit(Xtr, ytr, categorical_feature=categorical).predict(Xte) == yte))
    acc = {k: 100 * float(np.mean(v)) / len(yte) for k, v in correct.items()}
    assert abs(acc["puretree"] - acc["sklearn"]) <= 0.5 and abs(acc["puretree"] - acc["lightgbm"]) <= 0.5, acc


def test_command_line_splits_a_categorical_column_natively(tmp_path):
    import subprocess
    import sys

    rows = ["colour,x,label"] + [f"{('red', 'green', 'blue', 'grey')[i % 4]},{i % 7},{'yes' if i % 4 in (0, 2) else 'no'}" for i in range(200)]
    data = tmp_path / "data.csv"
    data.write_text("\n".join(rows) + "\n")
    out = tmp_path / "model.json"
    run = subprocess.run([sys.executable, "-m", "puretree", "fit", str(data), "--target", "label", "--ensemble", "hist-gradient-boosting", "--n-estimators", "3", "--min-samples-leaf", "5", "--no-progress", "-o", str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    root = pt.load(out).stages[0][0].root
    assert root.test.kind == "subset" and {pt.load(out).schema.features[0].categories[c] for c in root.test.left_codes} in ({"red", "blue"}, {"green", "grey"})


def _missing_probes(X: np.ndarray) -> np.ndarray:
    """Each row of ``X`` once per feature with that feature's value missing."""
    p = X.shape[1]
    probes = np.repeat(X, p, axis=0)
    probes[np.arange(len(probes)), np.tile(np.arange(p), len(X))] = np.nan
    return probes


def test_a_missing_value_where_the_children_tie_in_rows_goes_right_as_in_sklearn():
    # no missing value in training, a 4 | 4 split: scikit-learn's grower sends NaN right on the tie
    from sklearn.ensemble import HistGradientBoostingRegressor

    X, y = np.arange(8.0)[:, None], np.array([0, 0, 0, 0, 1, 1, 1, 1.0])
    kw = dict(max_iter=1, learning_rate=1.0, min_samples_leaf=1, max_leaf_nodes=2)
    theirs = HistGradientBoostingRegressor(early_stopping=False, **kw).fit(X, y)
    ours = pt.hist_gradient_boosting(X, y, task="regression", early_stopping=False, **kw)
    assert theirs.predict([[np.nan]])[0] == pytest.approx(1.0)
    assert ours.predict(np.array([[np.nan]]))[0] == pytest.approx(1.0)


def test_a_feature_with_missing_training_values_keeps_the_learned_side_at_a_node_without_them():
    # x0 has NaN in training but none under x1 <= 0: scikit-learn keeps the search's side (right) there
    from sklearn.ensemble import HistGradientBoostingRegressor

    X = np.array([[0, 0], [1, 0], [2, 0], [10, 0], [np.nan, 5], [np.nan, 5], [3, 5], [4, 5.0]])
    y = np.array([0, 0, 0, 3, 100, 100, 100, 100.0])
    kw = dict(max_iter=1, learning_rate=1.0, min_samples_leaf=1, max_leaf_nodes=3)
    theirs = HistGradientBoostingRegressor(early_stopping=False, **kw).fit(X, y)
    ours = pt.hist_gradient_boosting(X, y, task="regression", early_stopping=False, **kw)
    probe = np.array([[np.nan, 0.0]])
    assert theirs.predict(probe)[0] == pytest.approx(3.0)
    assert ours.predict(probe)[0] == pytest.approx(3.0)


@pytest.mark.parametrize("engine", ["c", "numpy"])
def test_missing_values_take_sklearns_side_on_small_random_sets(engine, monkeypatch):
    # every feature missing in turn, on sets where one feature has NaN in training: the same
    # predictions as HistGradientBoostingRegressor (its gradients are float32: 1e-6). Regression:
    # a classifier's rows share their gradients, so splits tie exactly and float rounding picks.
    from sklearn.ensemble import HistGradientBoostingRegressor

    monkeypatch.setenv("PURETREE_ENGINE", engine)
    kw = dict(max_iter=3, learning_rate=0.5, min_samples_leaf=2, max_leaf_nodes=6)
    for seed in range(12):
        rng = np.random.default_rng(seed)
        X = rng.integers(0, 8, (60, 3)).astype(float)
        X[rng.random(60) < 0.15, 0] = np.nan
        y = X[:, 1] + rng.normal(0, 1, 60) + 3 * np.isnan(X[:, 0])
        probes = _missing_probes(X)
        theirs = HistGradientBoostingRegressor(early_stopping=False, **kw).fit(X, y)
        ours = pt.hist_gradient_boosting(X, y, task="regression", early_stopping=False, **kw)
        assert np.abs(theirs.predict(probes) - ours.predict(probes)).max() < 1e-6, seed
