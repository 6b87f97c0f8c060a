"""scikit-learn's size controls (issue 25): ``min_weight_fraction_leaf``, ``min_impurity_decrease``,
``max_leaf_nodes`` (best-first growth) and ``splitter="random"``, checked against scikit-learn's
own trees grown side by side on the same data (never against recorded answers).

Equal means node for node: the same feature at each split, the same training rows in each child,
the same leaf statistics. Where two candidate splits of a node tie (scikit-learn visits features
in a random order, puretree takes the lowest index) the trees may part there: the helper accepts
that only when both splits' scores on that node's rows are within puretree's tie tolerance."""

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import puretree as pt
from puretree.errors import ParameterError
from puretree.grow import by_task, c45, cart, id3
from puretree.growth.level import FrontierHeap
from puretree.nodes import Leaf
from puretree.sklearn import TreeClassifier, TreeRegressor, from_sklearn
from puretree.strategies import datasets
from sklearn_compare import compare


def _as_float32(X):
    # scikit-learn grows on float32 values: give both libraries the same ones
    return np.asarray(X, dtype=np.float32).astype(np.float64)


def _synthetic():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20_000, 20))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=20_000) > 0).astype(int)
    return _as_float32(X), y


DATA = {
    "breast_cancer": lambda: (_as_float32(load_breast_cancer().data), load_breast_cancer().target),
    "wine": lambda: (_as_float32(load_wine().data), load_wine().target),
    "synthetic": _synthetic,
}
OPTIONS = [
    {"max_leaf_nodes": 8},
    {"max_leaf_nodes": 40},
    {"min_weight_fraction_leaf": 0.01},
    {"min_weight_fraction_leaf": 0.1},
    {"min_impurity_decrease": 0.002},
    {"max_leaf_nodes": 30, "min_impurity_decrease": 0.001, "min_weight_fraction_leaf": 0.005, "max_depth": 6},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("name", sorted(DATA))
def test_classification_trees_equal_scikit_learns(name, options):
    X, y = DATA[name]()
    theirs = from_sklearn(DecisionTreeClassifier(random_state=0, **options).fit(X, y))
    ours = cart(X, y, **options)
    ties = compare(ours, theirs, X, y)
    if ties == 0 and "max_leaf_nodes" in options:
        assert pt.n_leaves(ours) == pt.n_leaves(theirs) <= options["max_leaf_nodes"]


@pytest.mark.parametrize("options", [{"max_leaf_nodes": 10}, {"max_leaf_nodes": 40}, {"min_weight_fraction_leaf": 0.02}, {"min_impurity_decrease": 20.0}, {"min_impurity_decrease": 5.0, "max_leaf_nodes": 25}], ids=str)
def test_regression_trees_equal_scikit_learns(options):
    X, y = load_diabetes(return_X_y=True)
    X = _as_float32(X)
    theirs = from_sklearn(DecisionTreeRegressor(random_state=0, **options).fit(X, y))
    ours = cart(X, y, task="regression", **options)
    compare(ours, theirs, X, y, regression=True)


def test_weighted_rows_bound_the_leaves_by_weight_as_scikit_learn_does():
    X, y = DATA["breast_cancer"]()
    w = np.random.default_rng(1).integers(1, 5, size=len(y)).astype(float)
    theirs = from_sklearn(DecisionTreeClassifier(random_state=0, min_weight_fraction_leaf=0.03).fit(X, y, sample_weight=w))
    ours = cart(X, y, sample_weight=w, min_weight_fraction_leaf=0.03)
    compare(ours, theirs, X, y, weight=w)
    assert min(sum(leaf.counts) for leaf in _leaves(ours.root)) >= 0.03 * w.sum()


def _leaves(node):
    return [node] if isinstance(node, Leaf) else [leaf for kid in node.children for leaf in _leaves(kid)]


def test_class_weight_moves_the_tree_with_a_weight_bound():
    # what scikit-learn's check_class_weight_classifiers relies on: without a bound on the
    # leaves' weight a full tree fits every row whatever its weight
    X, y = DATA["wine"]()
    plain = cart(X, y, min_weight_fraction_leaf=0.05)
    weighted = cart(X, y, min_weight_fraction_leaf=0.05, class_weight={0: 10.0})
    assert plain != weighted
    theirs = from_sklearn(DecisionTreeClassifier(random_state=0, min_weight_fraction_leaf=0.05, class_weight={0: 10.0}).fit(X, y))
    compare(weighted, theirs, X, y)


@pytest.mark.parametrize("engine", ["fast", "c", "numpy"])
@pytest.mark.parametrize("option", [{"splitter": "random"}], ids=str)
def test_the_level_wise_engines_refuse_what_they_cannot_grow_clearly(engine, option):
    # min_weight_fraction_leaf is grown by every engine now (tests/test_min_weight_level.py)
    X, y = DATA["wine"]()
    if option == {"splitter": "random"} and engine != "numpy":  # the compiled random tree (growth.random_cuts)
        assert cart(X, y, engine=engine, **option) == cart(X, y, engine="reference", **option)
        X = np.where(np.arange(X.size).reshape(X.shape) % 7 == 0, np.nan, X)  # missing values: not the compiled tree's
    with pytest.raises(ParameterError, match=next(iter(option))):
        cart(X, y, engine=engine, **option)
    assert cart(X, y, engine="auto", **option) == cart(X, y, engine="reference", **option)


@pytest.mark.parametrize("engine", ["fast", "c", "numpy", "auto"])
@pytest.mark.parametrize("option", [{"max_leaf_nodes": 4}, {"max_leaf_nodes": 25}, {"min_impurity_decrease": 0.01}, {"max_leaf_nodes": 12, "min_impurity_decrease": 0.003}], ids=str)
def test_every_engine_grows_the_best_first_tree(engine, option):
    X, y = DATA["breast_cancer"]()
    assert cart(X, y, engine=engine, **option) == cart(X, y, engine="reference", **option)


@given(ds=datasets(max_rows=40), leaves=st.integers(2, 12), decrease=st.sampled_from([0.0, 0.005, 0.05]), score=st.sampled_from(["gini", "entropy", "gain_ratio", "misclassification"]), preset=st.sampled_from([cart, id3]))
def test_the_full_tree_read_best_first_is_the_tree_grown_best_first(ds, leaves, decrease, score, preset):
    # puretree.growth.level.best_first reads the level-wise engine's full tree; the reference
    # builder grows best-first as scikit-learn does: the same tree
    options = dict(score=by_task(score, "variance"), max_leaf_nodes=leaves, min_impurity_decrease=decrease)
    fast = preset(ds, engine="fast", **options)
    assert fast == preset(ds, engine="reference", **options)
    assert pt.n_leaves(fast) <= leaves


def test_histogram_mode_grows_the_random_splitter_and_reads_best_first_off_its_tree():
    X, y = DATA["wine"]()
    extra = cart(X, y, max_bins=16, splitter="random")  # the random cut on bins (tests/test_random_cut_binned.py)
    assert extra == cart(X, y, max_bins=16, splitter="random") != cart(X, y, max_bins=16)
    assert pt.n_leaves(cart(X, y, max_bins=16, max_leaf_nodes=5)) == 5
    assert pt.n_leaves(cart(X, y, max_bins=16, max_leaf_nodes=5, splitter="random")) == 5


def test_missing_values_grow_best_first_on_the_level_wise_engines_too():
    # each split ranked by the improvement recorded as it was chosen (tests/test_sized_level.py)
    X, y = DATA["wine"]()
    X = X.copy()
    X[::7, 3] = np.nan
    assert cart(X, y, max_leaf_nodes=5, engine="fast") == cart(X, y, max_leaf_nodes=5, engine="reference")
    assert pt.n_leaves(cart(X, y, max_leaf_nodes=5)) == 5


@pytest.mark.parametrize("bad", [{"max_leaf_nodes": 1}, {"max_leaf_nodes": 2.5}, {"min_weight_fraction_leaf": 0.6}, {"min_weight_fraction_leaf": -0.1}, {"min_impurity_decrease": -1.0}, {"splitter": "randm"}], ids=str)
def test_bad_values_are_named(bad):
    X, y = DATA["wine"]()
    with pytest.raises(ParameterError, match=f"{next(iter(bad))} must be"):
        cart(X, y, **bad)


def test_the_defaults_grow_the_tree_without_them():
    X, y = DATA["wine"]()
    assert cart(X, y, min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, max_leaf_nodes=None, splitter="best") == cart(X, y)


def test_a_leaf_budget_larger_than_the_full_tree_grows_the_full_tree():
    X, y = DATA["wine"]()
    assert cart(X, y, max_leaf_nodes=10_000) == cart(X, y)


def test_c45_takes_the_weight_bound_as_its_leaf_bound():
    X, y = DATA["wine"]()
    assert c45(X, y, min_weight_fraction_leaf=0.2) == c45(X, y, min_samples_leaf=0.2 * len(y))
    assert pt.n_leaves(c45(X, y, min_weight_fraction_leaf=0.2)) < pt.n_leaves(c45(X, y))


@given(st.lists(st.tuples(st.sampled_from([0.0, 0.25, 0.5, 1.0]), st.booleans()), min_size=1, max_size=60))
def test_the_frontier_heap_pops_the_largest_improvement_first(steps):
    heap, held = FrontierHeap(), []
    for i, (key, pop) in enumerate(steps):
        if pop and held:
            got = heap.pop()
            assert got[0] == max(held)
            held.remove(got[0])
        else:
            heap.push(key, (key, i))
            held.append(key)
    assert len(heap) == len(held)


# -- the random splitter -------------------------------------------------------------------------


def test_random_splits_cut_between_the_nodes_extremes_and_follow_the_seed():
    X, y = DATA["breast_cancer"]()
    a = cart(X, y, splitter="random", seed=3)
    assert a == cart(X, y, splitter="random", seed=3)
    assert a != cart(X, y, splitter="random", seed=4)
    assert a != cart(X, y)
    stack = [(a.root, np.arange(len(X)))]
    while stack:
        node, rows = stack.pop()
        if isinstance(node, Leaf):
            continue
        column = X[rows, node.feature]
        assert column.min() <= node.test.value < column.max()
        left = column <= node.test.value
        stack += [(node.children[0], rows[left]), (node.children[1], rows[~left])]


def test_extra_trees_are_a_forest_of_random_splits_without_bootstrap():
    X, y = DATA["breast_cancer"]()
    ens = pt.extra_trees(X, y, n_trees=5, seed=1)
    assert len(ens.members) == 5 and dict(ens.options)["splitter"] == "random" and dict(ens.options)["bootstrap"] is False
    assert ens.members[0] == cart(X, y, splitter="random", max_features="sqrt", seed=(1, 0))
    assert len({m for m in ens.members}) == 5
    again = pt.from_json(pt.to_json(ens))  # the forest's record of its options survives JSON
    assert again == ens and dict(again.options)["splitter"] == "random"


def test_extra_trees_predict_as_well_as_scikit_learns_on_a_split():
    from sklearn.ensemble import ExtraTreesClassifier
    from sklearn.model_selection import train_test_split

    X, y = DATA["breast_cancer"]()
    Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
    ours = float(np.mean(pt.predict(pt.extra_trees(Xa, ya, n_trees=30, seed=0), Xb) == yb))
    theirs = float(np.mean(ExtraTreesClassifier(n_estimators=30, random_state=0).fit(Xa, ya).predict(Xb) == yb))
    assert ours >= theirs - 0.03


# -- the estimators and the command line ---------------------------------------------------------


def test_the_estimators_take_scikit_learns_names():
    X, y = DATA["wine"]()
    params = dict(max_leaf_nodes=12, min_weight_fraction_leaf=0.01, min_impurity_decrease=0.001)
    clf = TreeClassifier(**params).fit(X, y)
    compare(clf.tree_, from_sklearn(DecisionTreeClassifier(random_state=0, **params).fit(X, y)), X, y)
    Xd, yd = load_diabetes(return_X_y=True)
    reg = TreeRegressor(max_leaf_nodes=9).fit(Xd, yd)
    assert pt.n_leaves(reg.tree_) == 9
    a = TreeClassifier(splitter="random", random_state=5).fit(X, y)
    assert a.tree_ == TreeClassifier(splitter="random", random_state=5).fit(X, y).tree_
    assert a.tree_ != TreeClassifier(splitter="random", random_state=6).fit(X, y).tree_
    with pytest.raises(ParameterError, match="splitter"):
        TreeClassifier(splitter="worst").fit(X, y)


def test_the_command_line_takes_the_options(tmp_path):
    X, y = DATA["wine"]()
    csv = tmp_path / "wine.csv"
    rows = [",".join([*(f"f{j}" for j in range(X.shape[1])), "label"])] + [",".join([*(repr(float(v)) for v in x), f"c{t}"]) for x, t in zip(X, y)]
    csv.write_text("\n".join(rows) + "\n")
    out = tmp_path / "model.json"
    run = subprocess.run([sys.executable, "-m", "puretree", "fit", str(csv), "--target", "label", "-o", str(out), "--max-leaf-nodes", "5", "--min-weight-fraction-leaf", "0.01", "--min-impurity-decrease", "0.001", "--splitter", "best"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert pt.n_leaves(pt.load(out)) == 5
    bad = subprocess.run([sys.executable, "-m", "puretree", "fit", str(csv), "--target", "label", "-o", str(out), "--max-leaf-nodes", "1"], capture_output=True, text=True)
    assert bad.returncode != 0 and "max_leaf_nodes" in bad.stderr and "Traceback" not in bad.stderr
