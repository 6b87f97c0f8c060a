"""Ensembles that share (issue 30): a forest's, bagging's or AdaBoost's members (c-table) and a
boosted model's trees (c) in one table, each distinct subtree once (``form="shared"``).

Compile-and-compare (``verify``: the C against the library on the given rows and every member's
check rows, 0 mismatches), Hypothesis properties that the shared table predicts as the model,
and tests that identical subtrees are written once."""

from __future__ import annotations

import re
import subprocess
import sys

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import puretree as pt
from puretree.boosted import Boosted, tree_schema
from puretree.codegen import generate, verify
from puretree.codegen.ensemble import _expected
from puretree.codegen.lower import feature_ranges
from puretree.codegen.shared import share_arrays, shared_table
from puretree.ensemble import Ensemble, adaboost, bagging, random_forest
from puretree.errors import CodegenError, ParameterError
from puretree.flat import LEAF, flatten
from puretree.grow import cart
from puretree.io import save
from puretree.nodes import Feature, Leaf, NumericSplit, Schema, Split, Threshold
from puretree.sklearn import from_sklearn
from puretree.strategies import datasets
from puretree.tree import Tree


def _breast_cancer():
    from sklearn.datasets import load_breast_cancer

    return load_breast_cancer(return_X_y=True)


def _sklearn_forest(n: int = 10, depth: int = 4):
    from sklearn.ensemble import RandomForestClassifier

    X, y = _breast_cancer()
    return from_sklearn(RandomForestClassifier(n_estimators=n, max_depth=depth, random_state=0).fit(X, y)), X


# -- compile and compare ------------------------------------------------------------------------


@pytest.mark.parametrize("ftype", ["float", "double", "int16"])
def test_a_shared_scikit_learn_forest_is_exact(ftype):
    forest, X = _sklearn_forest()
    report = verify(forest, X, "c-table", feature_type=ftype, form="shared")
    assert report.mismatches == [] and report.n_checked > len(X)


def test_shared_bagging_adaboost_and_regression_forests_are_exact():
    X, y = _breast_cancer()
    X, y = X[::3, :8], y[::3]
    with_nan = X.copy()
    with_nan[::7, 0] = np.nan  # missing values under "majority"
    models = [
        bagging(with_nan, y, n_trees=4, seed=1, n_jobs=1),
        adaboost(X, y, n_rounds=6, seed=0),
        random_forest(X[:, 1:], X[:, 0], n_trees=4, seed=2, max_depth=4, task="regression"),
    ]
    for model, rows in zip(models, (with_nan, X, X[:, 1:])):
        for ftype in ("double", "float"):
            report = verify(model, rows, "c-table", feature_type=ftype, form="shared")
            assert report.mismatches == [], (model.method, ftype)


def test_a_shared_quantized_forest_is_exact():
    forest, X = _sklearn_forest(6, 3)
    ranges = feature_ranges(X)
    report = verify(forest, X, "c-table", feature_type="int16", quantize=ranges, form="shared", max_changed="5%")
    assert report.mismatches == [] and report.quantize_mismatches == []


def test_a_shared_forest_under_missing_error_refuses_rows_as_the_members_do():
    # verify's check rows hold missing values, which such an ensemble refuses (the library
    # raises): verify expects the shared C to refuse the same rows (class -1) and to answer
    # every other row as the library does.
    X, y = _breast_cancer()
    X, y = X[::4, :6], y[::4]
    forest = random_forest(X, y, n_trees=6, seed=3, max_depth=3)
    strict = attrs.evolve(forest, members=tuple(attrs.evolve(m, missing="error") for m in forest.members))
    shared = generate(strict, "c-table", name="f", form="shared")
    assert "NAN" not in shared["f.c"].split("_walk")[0]  # no jump under "error": one would refuse rows for its feature
    rows = np.vstack([X, X[:20]])
    rows[len(X):, ::2] = np.nan
    assert sum(a is None for a in _expected(strict, rows)) >= 20
    report = verify(strict, rows, "c-table", name="f", form="shared")
    assert report.ok and report.n_mismatches == 0 and report.n_checked > len(rows), report.mismatches[:2]


def test_a_shared_forest_on_the_emulated_board_equals_the_library():
    forest, X = _sklearn_forest(5, 3)
    report = verify(forest, X[::10], "c-table", feature_type="float", form="shared", on="cortex-m4")
    assert report.mismatches == [] and report.n_checked >= len(X[::10])


def _xgboost_model():
    import xgboost as xgb

    X, y = _breast_cancer()
    clf = xgb.XGBClassifier(n_estimators=12, max_depth=3, n_jobs=1, random_state=0).fit(X, y)
    return pt.from_xgboost(clf.get_booster()), X


@pytest.mark.parametrize("ftype", ["float", "double"])
def test_a_shared_boosted_model_is_exact(ftype):
    model, X = _xgboost_model()
    report = verify(model, X, "c", feature_type=ftype, form="shared")
    assert report.mismatches == [] and report.n_checked > len(X)


def test_a_shared_scikit_learn_gradient_boosting_model_is_exact():
    from sklearn.datasets import load_iris
    from sklearn.ensemble import GradientBoostingClassifier

    X, y = load_iris(return_X_y=True)
    model = from_sklearn(GradientBoostingClassifier(n_estimators=8, max_depth=2, random_state=0).fit(X, y))
    assert verify(model, X, "c", form="shared").mismatches == []


# -- identical subtrees are written once --------------------------------------------------------

SCHEMA = Schema((Feature("x"), Feature("y"), Feature("z")), ("a", "b"))


def _shared_members() -> Ensemble:
    """Three members: the second holds the first as its left subtree, the third as its right
    one and is otherwise the second's mirror; each threshold is a distinct number."""
    first = NumericSplit(0, 0.375, Leaf((3, 0)), Leaf((0, 2)), (3, 2))
    second = NumericSplit(1, 1.625, first, NumericSplit(2, 2.875, Leaf((1, 1)), Leaf((0, 4)), (1, 5)), (4, 7))
    third = NumericSplit(2, 4.125, Leaf((2, 0)), first, (5, 2))
    trees = tuple(Tree(r, SCHEMA) for r in (first, second, third, second))
    return Ensemble(trees, (1.0,) * 4, SCHEMA, "bagging")


def _literal_count(text: str, literal: str) -> int:
    return len(re.findall(rf"(?<![0-9.]){re.escape(literal)}(?![0-9])", text))


def test_identical_subtrees_are_written_once():
    ens = _shared_members()
    code = generate(ens, "c-table", name="s", form="shared")["s.c"]
    # 0.375 is the split all four members hold (the fourth twice over: it is the second):
    # one node. Unshared, each member's file writes it.
    for literal in ("0.375", "1.625", "2.875", "4.125"):
        assert _literal_count(code, literal) == 1, literal
    unshared = "".join(generate(ens, "c-table", name="s", form="compact").values())
    assert _literal_count(unshared, "0.375") == 4
    t = shared_table(ens.members, ftype="double", outcome="proba")
    # two jumps to the first member's node: the second's left child, the third's right child
    # (its first child written, as its left one is a leaf)
    assert t["n_unique"] == 4 and t["n_jumps"] == 2 and t["n_nodes"] == 6
    assert t["roots"][1] == t["roots"][3]  # identical members: one root
    assert len(t["outcomes"]) == 3  # (1, 0), (0, 1), (.5, .5): the leaves (3, 0) and (2, 0), (0, 2) and (0, 4) answer alike
    X = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 5.0], [np.nan, 2.0, 3.0], [0.375, 1.625, 2.875], [1.0, np.nan, np.nan]])
    assert verify(ens, X, "c-table", form="shared").mismatches == []


def test_a_jump_sends_every_row_to_the_subtree_written_before():
    # The second member's left subtree is the first member: its next node is a jump there.
    ens = _shared_members()
    for ftype, jump in (("double", "NAN"), ("float", "NAN"), ("int16", "INT16_MIN")):
        t = shared_table(ens.members, ftype=ftype, outcome="proba")
        k = t["threshold"].index(jump)
        assert t["code"][k] == 0 and t["ref"][k] == t["roots"][0]
        assert verify(ens, np.array([[0.0, 1.0, 2.0], [9.0, -1.0, 9.0]]), "c-table", feature_type=ftype, form="shared").mismatches == []


def test_identical_boosted_trees_are_written_once():
    schema = Schema((Feature("x"), Feature("y")), ("a", "b"))
    t = Tree(Split(0, Threshold(0.5, missing_branch=1), (Leaf((1.0, -1.0, 1.0)), Leaf((1.0, 2.0, 4.0))), (2.0, 1.0, 5.0)), tree_schema(schema))
    u = Tree(Split(1, Threshold(1.5, missing_branch=0), (t.root, Leaf((1.0, 3.0, 4.0))), (2.0, 1.0, 5.0)), tree_schema(schema))
    model = Boosted(((t,), (u,), (t,)), (0.25,), 0.5, "log_loss", schema)
    shared = generate(model, "c", name="gb", form="shared")["gb.c"]
    plain = generate(model, "c", name="gb")["gb.c"]
    assert plain.count("0x1.0000000000000p-1, ") > shared.count("0x1.0000000000000p-1, ")
    # the packed tables (codegen.boosted): t's split is written once, reached from u's left by a jump
    assert "static const double gb_threshold[3]" in shared and "static const double gb_threshold[4]" in plain
    X = np.array([[0.0, 0.0], [1.0, 2.0], [np.nan, 1.0], [0.2, np.nan], [0.5, 1.5]])
    assert verify(model, X, "c", form="shared").mismatches == []
    # XGBoost's precision: the compact tables walked in float, the jump's threshold (float)NAN
    single = attrs.evolve(model, precision="float32", learning_rate=1.0, init=(0.0,))
    walked = generate(single, "c", name="gb", feature_type="float", form="shared")["gb.c"]
    assert "(float)NAN" in walked and "static const float gb_threshold[" in walked
    for ftype in ("float", "double"):
        assert verify(single, X, "c", feature_type=ftype, form="shared").mismatches == []


def test_share_arrays_keeps_each_distinct_subtree_once():
    leafs = {"kind": [0, 0], "feature": [0, 0], "threshold": [0.0, 0.0], "left": [-1, -1], "right": [-1, -1], "nan": [-1, -1], "other": [-1, -1],
             "value": [1.0, 1.0], "ncat": [0, 0], "codes": {}, "roots": [0, 1], "outputs": [0, 0]}
    out = share_arrays(leafs, left_next=True)
    assert out["kind"] == [0] and out["roots"] == [0, 0]
    signed = dict(leafs, value=[0.0, -0.0])  # told apart by their bits: -0.0 is not 0.0 for a sum
    assert len(share_arrays(signed, left_next=False)["kind"]) == 2


# -- how it is asked for, and what it refuses ----------------------------------------------------


def test_the_shared_form_is_for_ensembles_in_c_table_and_boosted_models_in_c():
    ens = _shared_members()
    with pytest.raises(CodegenError, match="for the c-table target"):
        generate(ens, "c", form="shared")
    with pytest.raises(CodegenError, match="for ensembles and boosted models"):
        generate(ens.members[0], "c-table", form="shared")
    model, _ = _xgboost_model()
    with pytest.raises(CodegenError, match="for C"):
        generate(model, "python", form="shared")


def test_the_shared_table_holds_threshold_splits_only():
    from puretree.datasets import load_playtennis

    ens = random_forest(load_playtennis(), n_trees=2, seed=0)
    with pytest.raises(CodegenError, match="threshold splits only"):
        generate(ens, "c-table", form="shared")


def test_cli_exports_and_verifies_a_shared_forest(tmp_path):
    forest, X = _sklearn_forest(4, 3)
    model = tmp_path / "forest.json"
    save(forest, model)
    data = tmp_path / "rows.csv"
    np.savetxt(data, X[:40], delimiter=",", header=",".join(f.name for f in forest.schema.features), comments="")
    out = subprocess.run([sys.executable, "-m", "puretree", "export", str(model), "--to", "c-table", "--form", "shared", "--feature-type", "float",
                          "--name", "rf", "-o", str(tmp_path / "out")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["rf.c", "rf.h"]
    check = subprocess.run([sys.executable, "-m", "puretree", "verify", str(model), str(data), "--to", "c-table", "--form", "shared", "--feature-type", "float"],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


# -- properties ------------------------------------------------------------------------------------

numeric = datasets(min_rows=2, max_rows=30, max_features=3, max_classes=3, kinds=("numeric",), missing=0.1)


def _walk(t: dict, root: int, row: list[float]) -> int:
    """The outcome where the shared table's walk from ``root`` ends (double features, "majority"):
    the generated C's loop, in Python."""
    n = t["n_nodes"]
    if root >= n:
        return root - n
    node = root
    while True:
        code, ref = t["code"][node], t["ref"][node]
        literal = t["threshold"][node]
        threshold = float("nan") if literal == "NAN" else float(literal.strip("()").replace("INFINITY", "inf"))
        value = row[code >> 3]
        left = bool(code & 1) if np.isnan(value) else value <= threshold
        if left:
            if code & 4:
                return ref >> t["bits"] if code & 2 else ref
            node += 1
        else:
            if code & 2:
                return ref & t["mask"] if code & 4 else ref
            node = node + 1 if code & 4 else ref


@settings(max_examples=60, deadline=None)
@given(ds=numeric, seed=st.integers(0, 50), n_trees=st.integers(1, 8), depth=st.integers(1, 4))
def test_the_shared_table_walks_each_member_to_its_answer(ds, seed, n_trees, depth):
    forest = random_forest(ds, n_trees=n_trees, seed=seed, max_depth=depth, n_jobs=1)
    t = shared_table(forest.members, ftype="double", outcome="proba")
    # each distinct split once: never more nodes than the members' splits, plus a jump per split at most
    assert t["n_unique"] <= sum(int((flatten(m).kind != LEAF).sum()) for m in forest.members)
    assert t["n_nodes"] == t["n_unique"] + t["n_jumps"]
    for row in ds.X.tolist():
        for member, root in zip(forest.members, t["roots"]):
            got = t["outcomes"][_walk(t, root, row)]
            want = tuple(repr(float(p)) for p in member.predict_proba([row], unseen="ignore")[0])
            assert tuple(float(v.strip("()")) for v in got) == tuple(float(v) for v in want)


@settings(max_examples=8, deadline=None)
@given(ds=numeric, seed=st.integers(0, 50), n_trees=st.integers(1, 6), method=st.sampled_from(["forest", "bagging", "adaboost"]),
       ftype=st.sampled_from(["double", "float"]))
def test_the_shared_c_predicts_as_the_ensemble(ds, seed, n_trees, method, ftype):
    try:
        ens = {"forest": lambda: random_forest(ds, n_trees=n_trees, seed=seed, max_depth=3, n_jobs=1),
               "bagging": lambda: bagging(ds, base=cart, n_trees=n_trees, seed=seed, n_jobs=1),
               "adaboost": lambda: adaboost(ds, n_rounds=n_trees, seed=seed)}[method]()
    except ParameterError:  # AdaBoost's first stump no better than chance, or one class
        return
    report = verify(ens, ds, "c-table", feature_type=ftype, form="shared")
    assert report.mismatches == [] and report.n_checked >= 1


def test_members_voting_their_classes_with_equal_weights_are_exact():
    # AdaBoost's combination with equal weights: one vote per member for its class (leaves are
    # class ids), what emlearn's inline forests compute; the weights and losses are literals.
    forest, X = _sklearn_forest(7, 3)
    voting = Ensemble(forest.members, (1.0,) * 7, forest.schema, "adaboost")
    files = generate(voting, "c-table", name="v", form="shared")
    assert "v_weight[" not in files["v.c"] and "v_outcome_class[2]" in files["v.c"]
    assert verify(voting, X, "c-table", feature_type="float", form="shared").mismatches == []


def test_shared_tables_refuse_uint8_leaves_and_quantized_boosted_models():
    # uint8 leaves and a boosted model's quantized C are written by their own tables, not the shared one
    X = np.random.default_rng(0).normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int)
    forest = random_forest(X, y, n_trees=3, max_depth=2, seed=0)
    with pytest.raises(CodegenError, match="leaf_type 'uint8'"):
        generate(forest, "c-table", form="shared", leaf_type="uint8")
    boosted = pt.gradient_boosting(X, y, n_estimators=3, max_depth=2)
    with pytest.raises(CodegenError, match="quantized C .* not as the shared table"):
        generate(boosted, "c", form="shared", feature_type="int16", quantize=feature_ranges(X))
