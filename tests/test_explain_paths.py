"""The faster ways puretree.explain computes TreeSHAP (issue 31: at most shap's time) give the
values of the plain ones: the leaf paths of ``x <= t`` trees built from arrays against the walk
node by node, one padded group for a small model against a group per path length, and the
polynomial per (leaf, pattern) pair found with a flag per pair against np.unique per chunk
(with numpy: ``PURETREE_ENGINE=numpy``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_diabetes
from sklearn.ensemble import RandomForestRegressor

import puretree as pt
from puretree import explain
from puretree.ensemble import Ensemble
from puretree.strategies import boundary_rows, trees


@pytest.fixture(autouse=True, scope="module")
def _numpy_engine() -> Any:
    # these check the numpy path's shortcuts (the compiled one, which threshold trees take where
    # the library is there, is checked against it in test_explain_compiled.py)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PURETREE_ENGINE", "numpy")
        yield


def _both(model: Any, rows: Any, background: Any) -> list[tuple[np.ndarray, Any]]:
    return [(sv.values, sv.expected_value) for sv in (pt.shap_values(model, rows),
                                                      pt.shap_values(model, rows, feature_perturbation="interventional", data=background))]


def _close(got: list[tuple[np.ndarray, Any]], want: list[tuple[np.ndarray, Any]]) -> None:
    for (values, base), (values_want, base_want) in zip(got, want):
        np.testing.assert_allclose(values, values_want, rtol=0, atol=1e-12)
        np.testing.assert_allclose(base, base_want, rtol=0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_paths_from_arrays_equal_the_walk_node_by_node(data: st.DataObject) -> None:
    # Learned missing sides, the "majority" side, empty leaves (zero counts), repeated features
    # on a path: the array form against _paths, the walk the other trees (categories) take.
    tree = data.draw(trees(splits=("threshold",), missing=("majority",), max_depth=5, max_nodes=40))
    rows = data.draw(st.lists(boundary_rows(tree, missing=True, unseen=False), min_size=1, max_size=6))
    background = data.draw(st.lists(boundary_rows(tree, missing=True, unseen=False), min_size=1, max_size=4))
    assert explain._flat_tree(tree)
    fast = _both(tree, rows, background)
    old = explain._flat_tree
    explain._flat_tree = lambda t: False  # every tree walked node by node
    try:
        slow = _both(tree, rows, background)
    finally:
        explain._flat_tree = old
    _close(fast, slow)


def _forest() -> tuple[Ensemble, np.ndarray]:
    X, y = load_diabetes(return_X_y=True)
    est = RandomForestRegressor(n_estimators=3, max_depth=4, random_state=0).fit(X, y)
    members = tuple(pt.from_sklearn(e) for e in est.estimators_)
    return Ensemble(members, (1.0,) * len(members), members[0].schema, "forest", 0, ()), X


def test_one_padded_group_equals_a_group_per_path_length(monkeypatch: pytest.MonkeyPatch) -> None:
    forest, X = _forest()
    groups = explain._merged(explain._leaves(forest)[0], 90)
    assert len(groups) == 1 and groups[0].pad is not None and groups[0].pad.any()  # merged, padded
    merged = _both(forest, X[:60], X[100:130])
    monkeypatch.setattr(explain, "_MERGE_CELLS", 0)
    assert len(explain._merged(explain._leaves(forest)[0], 90)) > 1
    _close(merged, _both(forest, X[:60], X[100:130]))


def test_pairs_by_flags_equal_pairs_by_unique(monkeypatch: pytest.MonkeyPatch) -> None:
    forest, X = _forest()
    flags = _both(forest, X[:60], X[100:130])
    monkeypatch.setattr(explain, "_CELLS", 8)  # more possible pairs than cells: np.unique, a few rows at a time
    _close(flags, _both(forest, X[:60], X[100:130]))


def test_paths_from_arrays_through_a_split_without_weight() -> None:
    # A split no training weight reached (nor its leaves): its branches take no share of it, its
    # leaves answer as the nearest ancestor with weight, a missing value goes to the first.
    from puretree.nodes import Feature, Leaf, Schema, Split, Threshold

    schema = Schema((Feature("a"), Feature("b")), ("no", "yes"))
    empty = Split(1, Threshold(0.5), (Leaf((0.0, 0.0)), Leaf((0.0, 0.0))), (0.0, 0.0))
    tree = pt.Tree(Split(0, Threshold(0.5), (Leaf((3.0, 1.0)), empty), (3.0, 1.0)), schema)
    rows = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [float("nan"), 1.0], [1.0, float("nan")]]
    fast = _both(tree, rows, rows[:3])
    old = explain._flat_tree
    explain._flat_tree = lambda t: False
    try:
        slow = _both(tree, rows, rows[:3])
    finally:
        explain._flat_tree = old
    _close(fast, slow)
