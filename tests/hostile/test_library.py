"""Library calls: every error a user can cause is a ``PuretreeError`` subclass naming what to
fix (the option, the row, the column, the value), and no bad option is silently ignored."""

from __future__ import annotations

import numpy as np
import pytest

import puretree as pt
from puretree.errors import DataError, ParameterError, PuretreeError

from . import harness as h
from .common import model, row

CAT = "library"
X = np.array([[1.0], [2.0], [3.0], [4.0]])
Y = ["n", "n", "p", "p"]


def err(name, call, error, fragments):
    return h.lib_error(name, lambda tmp: call(), error, fragments, category=CAT)


def good(name, call, check):
    return h.lib_ok(name, lambda tmp: call(), check, category=CAT)


def tree():
    return pt.from_dict(model()) if hasattr(pt, "from_dict") else pt.io.from_dict(model())


def regression_tree():
    return pt.cart(X, [1.0, 2.0, 3.0, 4.0], task="regression")


# User impurities: each misbehaves in one way; the error must name it.
def raising_impurity(counts):
    raise ZeroDivisionError("boom")


def none_impurity(counts):
    return None


def nan_impurity(counts):
    return np.full(np.shape(counts)[:-1], np.nan)


def wrong_shape_impurity(counts):
    return np.zeros(3)


def text_impurity(counts):
    return "high"


def raising_score(parent, children, features=None):
    raise KeyError("oops")


def nan_score(parent, children, features=None):
    return np.full(np.shape(children)[:-2], np.nan)


def one_leaf_is_wrong(tree_):
    return "a one-leaf tree from a score that gave NaN" if pt.n_leaves(tree_) == 1 else "grew a tree from NaN scores"


def true_and_one(tmp):
    """``True`` and ``1`` in one categorical column: two categories, or refused; never merged."""
    try:
        ds = pt.from_rows([{"c": True}, {"c": 1}, {"c": False}, {"c": 0}], y=["a", "b", "a", "b"], categorical=["c"])
    except PuretreeError as exc:
        return h.Result("ok" if "'c'" in str(exc) else "unclear", str(exc))
    except Exception as exc:  # noqa: BLE001
        return h.Result("traceback", f"{type(exc).__name__}: {exc}")
    cats = ds.schema.features[0].categories
    return h.Result("ok") if len(cats) == 4 else h.Result("wrong", f"categories {cats!r} from True, 1, False, 0")


def predict_on_a_copy():
    """(the frame after predict, a deep copy taken before)."""
    import pandas as pd

    df = pd.DataFrame({"c": ["x", None, "w"], "a": [1.0, float("nan"), 3.0]})
    before = df.copy(deep=True)
    pt.predict(tree(), df, unseen="ignore")  # "w" is unseen on purpose: mutation, not the warning, is the point
    return df, before


def is_empty(value):
    return None if np.asarray(value).shape[0] == 0 else f"got {value!r}"


CASES = [
    # -- unknown keywords, everywhere -------------------------------------------------------
    err("grow-max_dept", lambda: pt.grow(X, Y, max_dept=1), (ParameterError, TypeError), ["max_dept"]),
    err("cart-max_dept", lambda: pt.cart(X, Y, max_dept=1), (ParameterError, TypeError), ["max_dept"]),
    err("id3-max_dept-on-dataset", lambda: pt.id3(pt.from_numpy(X, Y), max_dept=1), (ParameterError, TypeError), ["max_dept"]),
    err("c45-max_dept-on-dataset", lambda: pt.c45(pt.from_numpy(X, Y), max_dept=1), (ParameterError, TypeError), ["max_dept"]),
    err("cart-max_dept-on-rows", lambda: pt.cart([{"a": 1}, {"a": 2}], ["n", "p"], max_dept=1), (ParameterError, TypeError), ["max_dept"]),
    err("attribute_scores-typo", lambda: pt.attribute_scores(pt.from_numpy(X, Y), scor="gini"), (ParameterError, TypeError), ["scor"]),
    err("as_dataset-typo-on-dataset", lambda: pt.as_dataset(pt.from_numpy(X, Y), categorial=["x0"]), (ParameterError, TypeError), ["categorial"]),
    err("cross_validate-typo", lambda: pt.cross_validate(pt.cart, pt.from_numpy(X, Y), k=2, sed=1), (ParameterError, TypeError), ["sed"]),
    # -- parameters out of their domain -------------------------------------------------------
    err("max_depth-negative", lambda: pt.cart(X, Y, max_depth=-1), ParameterError, ["max_depth"]),
    err("max_depth-float", lambda: pt.cart(X, Y, max_depth=1.5), ParameterError, ["max_depth"]),
    err("max_depth-bool", lambda: pt.cart(X, Y, max_depth=True), ParameterError, ["max_depth"]),
    err("min_samples_leaf-nan", lambda: pt.cart(X, Y, min_samples_leaf=float("nan")), ParameterError, ["min_samples_leaf"]),
    err("min_samples_split-text", lambda: pt.cart(X, Y, min_samples_split="2"), ParameterError, ["min_samples_split"]),
    err("min_gain-nan", lambda: pt.cart(X, Y, min_gain=float("nan")), ParameterError, ["min_gain"]),
    err("missing-unknown", lambda: pt.cart(X, Y, missing="ignore"), ParameterError, ["ignore"]),
    err("score-unknown-name", lambda: pt.grow(X, Y, score="gini_index"), ParameterError, ["gini_index"]),
    err("score-not-callable", lambda: pt.grow(X, Y, score=42), ParameterError, ["42"]),
    err("class_weight-unknown-class", lambda: pt.cart(X, Y, class_weight={"zz": 2}), ParameterError, ["'zz'"]),
    err("class_weight-negative", lambda: pt.cart(X, Y, class_weight={"n": -1}), ParameterError, ["'n'"]),
    err("class_weight-unknown-word", lambda: pt.cart(X, Y, class_weight="balance"), ParameterError, ["balance"]),
    err("task-unknown", lambda: pt.cart(X, Y, task="ranking"), (ParameterError, DataError), ["ranking"]),
    err("pessimistic-cf-2", lambda: pt.pessimistic(tree(), cf=2), ParameterError, ["cf"]),
    err("cost_complexity-alpha-negative", lambda: pt.cost_complexity(tree(), -1.0), ParameterError, ["alpha"]),
    err("cost_complexity-alpha-nan", lambda: pt.cost_complexity(tree(), float("nan")), ParameterError, ["alpha"]),
    err("penalty-negative", lambda: pt.prune.penalty(tree(), per_leaf=-1), ParameterError, ["-1"]),
    err("prune_rules-estimate-unknown", lambda: pt.prune_rules(tree(), [{"a": 1, "c": "x"}], ["n"], estimate="guess"), ParameterError, ["guess"]),
    err("cross_validate-k-1", lambda: pt.cross_validate(pt.cart, pt.from_numpy(X, Y), k=1), ParameterError, ["k"]),
    err("train_test_split-size-2", lambda: pt.train_test_split(pt.from_numpy(X, Y), test_size=2.0), ParameterError, ["test_size"]),
    err("to_rules-on-regression", lambda: pt.to_rules(regression_tree()), ParameterError, ["regression"]),
    err("predict_proba-on-regression", lambda: pt.predict_proba(regression_tree(), X), ParameterError, ["regression"]),
    err("reduced_error-labels-length", lambda: pt.reduced_error(tree(), [{"a": 1, "c": "x"}], ["n", "p"]), DataError, ["1", "2"]),
    # -- data the library is given -------------------------------------------------------------
    err("string-sample-weights", lambda: pt.cart(X, Y, sample_weight=["1", "a", "1", "1"]), DataError, ["sample"]),
    err("negative-sample-weight", lambda: pt.cart(X, Y, sample_weight=[1, -1, 1, 1]), DataError, [row(1)]),
    err("nan-sample-weight", lambda: pt.cart(X, Y, sample_weight=[1, 1, np.nan, 1]), DataError, [row(2)]),
    err("sample-weights-too-few", lambda: pt.cart(X, Y, sample_weight=[1, 1]), DataError, ["2"]),
    err("weights-overflow-the-counts", lambda: pt.cart(X, Y, sample_weight=[1e308, 1e308, 1e308, 1.0]), DataError, ["weight"]),
    err("ragged-list", lambda: pt.cart([[1.0, 2.0], [3.0]], ["n", "p"]), DataError, [row(1)]),
    err("duplicate-dataframe-columns", lambda: pt.cart(__import__("pandas").DataFrame([[1, 2], [3, 4]], columns=["a", "a"]), ["n", "p"]), DataError, ["'a'"]),
    err("complex-dtype", lambda: pt.cart(np.array([[1 + 1j], [2 + 0j]]), ["n", "p"]), DataError, ["complex"]),
    err("datetime-dtype", lambda: pt.cart(np.array([["2024-01-01"], ["2024-01-02"]], dtype="datetime64[D]"), ["n", "p"]), DataError, ["x0"]),
    err("object-cell-a-dict", lambda: pt.cart(np.array([[{"k": 1}], [{"k": 2}]], dtype=object), ["n", "p"]), DataError, ["x0"]),
    err("X-3d", lambda: pt.cart(np.zeros((2, 2, 2)), ["n", "p"]), DataError, ["shape"]),
    err("X-1d", lambda: pt.cart(np.zeros(4), Y), DataError, ["shape"]),
    err("y-too-short", lambda: pt.cart(X, ["n"]), DataError, ["1", "4"]),
    err("y-2d", lambda: pt.cart(X, np.zeros((4, 2))), DataError, ["target"]),
    err("y-with-None", lambda: pt.cart(X, ["n", None, "p", "p"]), DataError, [row(1)]),
    err("y-with-nan", lambda: pt.cart(X, [0.0, np.nan, 1.0, 1.0]), DataError, [row(1)]),
    err("class-label-too-large", lambda: pt.cart(X, [10**30, 1, 1, 2]), DataError, [str(10**30)]),
    err("duplicate-feature-names", lambda: pt.from_numpy(np.zeros((2, 2)), ["n", "p"], feature_names=["a", "a"]), DataError, ["'a'"]),
    err("feature-names-count", lambda: pt.from_numpy(np.zeros((2, 2)), ["n", "p"], feature_names=["a"]), DataError, ["1", "2"]),
    err("y-given-twice", lambda: pt.cart(pt.from_numpy(X, Y), Y), DataError, ["twice"]),
    err("all-weights-zero", lambda: pt.cart(X, Y, sample_weight=[0, 0, 0, 0]), DataError, ["zero"]),
    err("from_json-not-text", lambda: pt.from_json(123), pt.ModelFormatError, ["int"]),
    h.custom("true-and-1-not-merged", true_and_one, category=CAT),
    good("predict-on-empty-array", lambda: pt.predict(pt.cart(X, Y), np.empty((0, 1))), is_empty),
    good("predict_proba-on-empty-array", lambda: pt.predict_proba(pt.cart(X, Y), np.empty((0, 1))), is_empty),
    good("apply-on-empty-array", lambda: pt.apply(pt.cart(X, Y), np.empty((0, 1))), is_empty),
    good("input-not-mutated", lambda: (lambda a, w: (pt.cart(a, Y, sample_weight=w, class_weight="balanced"), a, w))(X.copy(), np.ones(4)),
         lambda v: None if np.array_equal(v[1], X) and np.array_equal(v[2], np.ones(4)) else "the input arrays were changed"),
    good("predict-leaves-the-dataframe-alone", predict_on_a_copy,
         lambda v: None if v[0].equals(v[1]) and list(v[0].columns) == list(v[1].columns) else "the DataFrame was changed"),
    good("fit-leaves-the-rows-alone", lambda: (lambda rows: (pt.c45(rows, ["n", "p", "n"]), rows))([{"a": 1, "c": "x"}, {"a": None, "c": "?"}, {"a": 3, "c": "y"}]),
         lambda v: None if v[1] == [{"a": 1, "c": "x"}, {"a": None, "c": "?"}, {"a": 3, "c": "y"}] else f"the rows were changed: {v[1]}"),
    # -- user impurities and scores ---------------------------------------------------------------
    err("impurity-raises", lambda: pt.grow(X, Y, score=pt.information_gain(raising_impurity)), PuretreeError, ["raising_impurity"]),
    err("impurity-returns-None", lambda: pt.grow(X, Y, score=pt.information_gain(none_impurity)), PuretreeError, ["none_impurity"]),
    err("impurity-returns-nan", lambda: pt.grow(X, Y, score=pt.information_gain(nan_impurity)), PuretreeError, ["nan_impurity"]),
    err("impurity-wrong-shape", lambda: pt.grow(X, Y, score=pt.information_gain(wrong_shape_impurity)), PuretreeError, ["wrong_shape_impurity"]),
    err("impurity-returns-text", lambda: pt.grow(X, Y, score=pt.gain_ratio(text_impurity)), PuretreeError, ["text_impurity"]),
    err("score-raises", lambda: pt.grow(X, Y, score=raising_score), PuretreeError, ["raising_score"]),
    err("score-returns-nan", lambda: pt.grow(X, Y, score=nan_score), PuretreeError, ["nan_score"]),
]


@pytest.mark.parametrize("case", CASES, ids=h.ids(CASES))
def test_library(case):
    h.check(case)
