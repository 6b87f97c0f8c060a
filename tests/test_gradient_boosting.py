"""gradient_boosting (issue 28's first point): scikit-learn 1.9's GradientBoosting, replayed.

scikit-learn runs in the tests (never a hard-coded result of it): with sklearn_tie_break=True
and the same random_state, the predictions must equal scikit-learn's within 1e-12 relative on
the training and held-out rows, and the classes be the same."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import puretree
import puretree as pt
from puretree.builder import visited_regression_tree
from puretree.data import from_numpy
from puretree.errors import DataError, ParameterError
from puretree.boosted import decision_function
from puretree.codegen.literals import float32_threshold
from puretree.gradient_boosting import _tree_values, _validation_split, _weighted_percentile, gradient_boosting
from puretree.splits import RAND_R_MAX, SklearnSplitter, sklearn_sort

datasets = pytest.importorskip("sklearn.datasets")
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.tree import DecisionTreeRegressor  # noqa: E402
from sklearn.utils.stats import _weighted_percentile as sk_weighted_percentile  # noqa: E402


def _split(name: str) -> tuple[np.ndarray, ...]:
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    return tuple(train_test_split(X, y, test_size=0.25, random_state=0))


def _fit_both(name: str, loss: str | None, n_estimators: int, **options: object) -> tuple[object, object, tuple[np.ndarray, ...]]:
    Xtr, Xte, ytr, yte = parts = _split(name)
    if loss is None:
        theirs = GradientBoostingClassifier(n_estimators=n_estimators, random_state=0, **options).fit(Xtr, ytr)
    else:
        theirs = GradientBoostingRegressor(loss=loss, n_estimators=n_estimators, random_state=0, **options).fit(Xtr, ytr)
    ours = gradient_boosting(Xtr, ytr, loss=loss, n_estimators=n_estimators, random_state=0, sklearn_tie_break=True, **options)  # type: ignore[arg-type]
    return ours, theirs, parts


def _largest_relative(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))


def _answers(model: Any, sk: Any, X: np.ndarray, classifier: bool) -> tuple[np.ndarray, np.ndarray]:
    if classifier:
        return pt.predict_proba(model, X), sk.predict_proba(X)
    return pt.predict(model, X), sk.predict(X)


# -- equal to scikit-learn ------------------------------------------------------------------

EXACT = [
    ("breast_cancer", None, 30, {}),
    ("wine", None, 30, {}),
    ("digits", None, 30, {}),
    ("diabetes", "squared_error", 100, {}),
    ("diabetes", "absolute_error", 100, {}),
    ("diabetes", "huber", 100, {}),
    ("diabetes", "quantile", 100, {}),
    ("diabetes", "squared_error", 100, {"subsample": 0.8, "max_features": 4}),
    ("diabetes", "huber", 60, {"subsample": 0.7, "max_features": 0.5, "max_depth": 4, "learning_rate": 0.2}),
    ("diabetes", "absolute_error", 300, {"n_iter_no_change": 5}),
    ("breast_cancer", None, 100, {"n_iter_no_change": 3, "subsample": 0.9, "max_features": "sqrt"}),
    ("wine", None, 40, {"n_iter_no_change": 2, "validation_fraction": 0.2, "max_depth": 2}),
]


@pytest.mark.parametrize(("name", "loss", "n_estimators", "options"), EXACT)
def test_equal_to_sklearn(name: str, loss: str | None, n_estimators: int, options: dict) -> None:
    ours, theirs, (Xtr, Xte, _, _) = _fit_both(name, loss, n_estimators, **options)
    assert ours.option("n_estimators_") == theirs.n_estimators_ == len(ours.stages)
    for X in (Xtr, Xte):
        a, b = _answers(ours, theirs, X, classifier=loss is None)
        assert np.all(np.abs(a - b) <= 1e-12 * np.maximum(np.abs(b), 1e-300)), _largest_relative(a, b)
        assert np.array_equal(pt.predict(ours, X), theirs.predict(X))


# -- the pieces replayed: the feature draw, the validation split, the percentile ---------------

@pytest.mark.parametrize("seed", range(8))
def test_feature_draw_is_sklearns(seed: int) -> None:
    """With every column a copy of one, every feature ties everywhere: scikit-learn's tree
    splits each node on its first visited feature, and so must the replayed draw."""
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(120, 1))
    X = np.hstack([base] * 7 + [rng.normal(size=(120, 1))]).astype(np.float32).astype(np.float64)
    X[:, 7] = 0.0  # a constant feature: the draw sets it aside
    y = np.sin(3 * base[:, 0]) + rng.normal(scale=0.1, size=120)
    sk = DecisionTreeRegressor(max_depth=4, random_state=seed).fit(X, y).tree_
    tree_seed = int(np.random.RandomState(seed).randint(0, RAND_R_MAX))
    ours = visited_regression_tree(from_numpy(X, y, task="regression"), visit=SklearnSplitter.seeded(8, seed=tree_seed, max_depth=4), max_depth=4)
    features = [n.feature for n in puretree.iter_nodes(ours.root) if not isinstance(n, puretree.Leaf)]
    assert features == [int(f) for f in sk.feature if f >= 0]


def _sklearn_preorder(tree: object, node: int = 0) -> list:
    t = tree  # sklearn.tree._tree.Tree
    if t.children_left[node] == -1:  # type: ignore[attr-defined]
        return [("leaf", int(t.n_node_samples[node]))]  # type: ignore[attr-defined]
    # the threshold as a double is compared with: float32(x) <= t exactly when x <= float32_threshold(t)
    here = [(int(t.feature[node]), float32_threshold(float(t.threshold[node])), int(t.n_node_samples[node]))]  # type: ignore[attr-defined]
    return here + _sklearn_preorder(t, int(t.children_left[node])) + _sklearn_preorder(t, int(t.children_right[node]))  # type: ignore[attr-defined]


def _our_preorder(node: object) -> list:
    if isinstance(node, puretree.Leaf):
        return [("leaf", int(round(float(node.counts[0]))))]
    return [(node.feature, node.test.value, int(round(float(node.counts[0]))))] + [x for c in node.children for x in _our_preorder(c)]  # type: ignore[attr-defined]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_splitter_grows_sklearns_tree(data: st.DataObject) -> None:
    """On data full of ties (small integers, repeated targets), the replayed splitter grows
    scikit-learn's DecisionTreeRegressor node for node, from the same random_state."""
    n = data.draw(st.integers(4, 60))
    p = data.draw(st.integers(1, 5))
    X = np.array(data.draw(st.lists(st.lists(st.integers(0, 4), min_size=p, max_size=p), min_size=n, max_size=n)), dtype=np.float64)
    y = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.1, 0.3, 1.0, -2.5]), min_size=n, max_size=n)))
    depth, leaf, seed = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 3)), data.draw(st.integers(0, 100))
    sk = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=leaf, random_state=seed).fit(X, y).tree_
    splitter = SklearnSplitter.seeded(p, seed=int(np.random.RandomState(seed).randint(0, RAND_R_MAX)), max_depth=depth, min_samples_leaf=leaf)
    ours = visited_regression_tree(from_numpy(X, y, task="regression"), visit=splitter, max_depth=depth, min_samples_leaf=leaf)
    assert _our_preorder(ours.root) == _sklearn_preorder(sk)


@pytest.mark.parametrize("seed", range(4))
def test_sort_is_sklearns_introsort(seed: int) -> None:
    """Equal values end in the order scikit-learn's splitter sort leaves them (its own test
    wrapper, ``_py_simultaneous_sort``, runs the compiled sort)."""
    from sklearn.utils._sorting import _py_simultaneous_sort

    rng = np.random.default_rng(seed)
    for _ in range(50):
        n = int(rng.integers(1, 400))
        values = (rng.integers(0, int(rng.integers(1, 30)), size=n) if seed % 2 else rng.normal(size=n)).astype(np.float32)
        rows = rng.permutation(n).astype(np.intp)
        theirs_values, theirs_rows = values.copy(), rows.copy()
        _py_simultaneous_sort(theirs_values, theirs_rows, n, use_three_way_partition=True)
        ours_values, ours_rows = values.astype(np.float64).tolist(), rows.tolist()
        sklearn_sort(ours_values, ours_rows)
        assert ours_rows == theirs_rows.tolist() and ours_values == theirs_values.astype(np.float64).tolist()


@pytest.mark.parametrize("stratify", [False, True])
@pytest.mark.parametrize(("n", "fraction", "seed"), [(100, 0.1, 0), (57, 0.25, 3), (200, 0.33, 11)])
def test_validation_split_is_train_test_splits(n: int, fraction: float, seed: int, stratify: bool) -> None:
    y = np.arange(n) % 3
    train, test = _validation_split(n, fraction, seed, y if stratify else None)
    sk_train, sk_test = train_test_split(np.arange(n), test_size=fraction, random_state=seed, stratify=y if stratify else None)
    assert train.tolist() == sk_train.tolist() and test.tolist() == sk_test.tolist()


@settings(max_examples=60)
@given(
    st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=30),
    st.sampled_from([0.0, 10.0, 50.0, 90.0, 100.0]),
    st.integers(0, 3),
)
def test_weighted_percentile_is_sklearns(values: list[float], rank: float, weight_seed: int) -> None:
    v = np.array(values)
    w = np.random.default_rng(weight_seed).integers(1, 4, size=len(v)).astype(np.float64)
    assert _weighted_percentile(v, w, rank) == float(sk_weighted_percentile(v, w, rank))


# -- invariants ------------------------------------------------------------------------------

def _regression_data(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    n = draw(st.integers(8, 40))
    p = draw(st.integers(1, 4))
    X = np.array(draw(st.lists(st.lists(st.integers(-5, 5), min_size=p, max_size=p), min_size=n, max_size=n)), dtype=np.float64)
    y = np.array(draw(st.lists(st.floats(-100, 100), min_size=n, max_size=n)))
    return X, y


@st.composite
def regression_fits(draw: st.DrawFn) -> tuple:
    X, y = _regression_data(draw)
    loss = draw(st.sampled_from(["squared_error", "absolute_error", "huber", "quantile"]))
    options = dict(n_estimators=draw(st.integers(1, 8)), learning_rate=draw(st.sampled_from([0.1, 0.5, 1.0])), max_depth=draw(st.integers(1, 3)), subsample=draw(st.sampled_from([1.0, 0.6])), random_state=draw(st.integers(0, 5)), sklearn_tie_break=draw(st.booleans()))
    return X, y, loss, options


@settings(max_examples=40, deadline=None)
@given(regression_fits())
def test_raw_scores_are_init_plus_the_staged_sum(fit: tuple) -> None:
    X, y, loss, options = fit
    model = gradient_boosting(X, y, loss=loss, **options)
    staged = np.full(len(X), model.init[0])
    for (tree,) in model.stages:  # each stage tree's leaf values, read through puretree's own predict
        staged = staged + model.learning_rate * np.asarray(puretree.predict(tree, X), dtype=np.float64)
    assert np.array_equal(decision_function(model, X), staged)
    assert len(model.stages) == model.option("n_estimators_") == options["n_estimators"]


@settings(max_examples=25, deadline=None)
@given(regression_fits(), st.integers(1, 4))
def test_early_stopping_keeps_n_estimators_stages(fit: tuple, patience: int) -> None:
    X, y, loss, options = fit
    options = {**options, "n_estimators": 30}
    model = gradient_boosting(X, y, loss=loss, n_iter_no_change=patience, validation_fraction=0.25, **options)
    assert 1 <= model.option("n_estimators_") == len(model.stages) <= 30
    # the first `patience` stages improve on an infinite history: no stop before stage patience + 1
    assert model.option("n_estimators_") >= min(30, patience + 1)


@settings(max_examples=20, deadline=None)
@given(regression_fits())
def test_deterministic_and_input_untouched(fit: tuple) -> None:
    X, y, loss, options = fit
    X0, y0 = X.copy(), y.copy()
    a = gradient_boosting(X, y, loss=loss, **options)
    b = gradient_boosting(X, y, loss=loss, **options)
    assert np.array_equal(X, X0) and np.array_equal(y, y0)
    assert a.init == b.init and all(ta.root == tb.root for sa, sb in zip(a.stages, b.stages) for ta, tb in zip(sa, sb))


def test_probabilities_sum_to_one_and_classes_are_the_labels() -> None:
    X, y = datasets.load_wine(return_X_y=True)
    labels = np.array(["a", "b", "c"])[y]
    model = gradient_boosting(X, labels, n_estimators=5)
    proba = pt.predict_proba(model, X)
    assert proba.shape == (len(X), 3) and np.allclose(proba.sum(axis=1), 1.0)
    assert set(pt.predict(model, X).tolist()) <= {"a", "b", "c"}
    assert [len(s) for s in model.stages] == [3] * 5
    binary = gradient_boosting(X[y < 2], labels[y < 2], n_estimators=5)
    assert [len(s) for s in binary.stages] == [1] * 5 and pt.predict_proba(binary, X[y < 2]).shape == (int((y < 2).sum()), 2)


def test_stage_tree_values_are_the_leaf_updates() -> None:
    """absolute_error: each stage tree's leaf predicts the lower median of its rows' residuals."""
    X, y = datasets.load_diabetes(return_X_y=True)
    model = gradient_boosting(X, y, loss="absolute_error", n_estimators=1)
    values = _tree_values(model.stages[0][0], X.astype(np.float32).astype(np.float64))
    residual = y - model.init[0]
    for v in np.unique(values):
        rows = residual[values == v]
        assert v == np.sort(rows)[(len(rows) - 1) // 2]


# -- bad input -------------------------------------------------------------------------------

def test_refusals_name_the_problem() -> None:
    X = np.array([[1.0], [2.0], [3.0], [4.0]])
    with pytest.raises(ParameterError, match="'squared_error' is a regression loss"):
        gradient_boosting(X, ["a", "b", "a", "b"], loss="squared_error", task="classification")
    with pytest.raises(ParameterError, match="loss must be one of"):
        gradient_boosting(X, [1.0, 2.0, 3.0, 4.0], loss="hinge", task="regression")
    with pytest.raises(DataError, match="feature 'x0' has nan at row 2"):
        gradient_boosting(np.array([[1.0], [2.0], [np.nan], [4.0]]), [1.0, 2.0, 3.0, 4.0], loss="squared_error")
    with pytest.raises(DataError, match="float32's range"):
        gradient_boosting(np.array([[1.0], [1e300], [3.0], [4.0]]), [1.0, 2.0, 3.0, 4.0], loss="squared_error")
    with pytest.raises(DataError, match="at least two classes"):
        gradient_boosting(X, ["a", "a", "a", "a"])
    with pytest.raises(DataError, match="categorical"):
        gradient_boosting([{"c": "u"}, {"c": "v"}, {"c": "u"}], ["a", "b", "a"])
    with pytest.raises(ParameterError, match="n_estimators"):
        gradient_boosting(X, ["a", "b", "a", "b"], n_estimators=0)
    with pytest.raises(ParameterError, match="subsample"):
        gradient_boosting(X, ["a", "b", "a", "b"], subsample=1.5)


@pytest.mark.parametrize("loss", ["log_loss", "squared_error"])
def test_a_fitted_booster_survives_its_json(tmp_path, loss: str) -> None:
    """The stage trees carry the schema a Boosted's JSON rebuilds them with, so a saved and
    loaded model is == the fitted one and answers the same (the trees once named their target
    'negative gradient' and the loaded model was not ==)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) if loss == "log_loss" else X[:, 0] * 2.0
    model = gradient_boosting(X, y, loss=loss, n_estimators=4, max_depth=2)
    path = tmp_path / "model.json"
    pt.save(model, path)
    loaded = pt.load(path)
    assert loaded == model
    assert np.array_equal(pt.predict(loaded, X), pt.predict(model, X))
