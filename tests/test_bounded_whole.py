"""A small fit with ``monotonic_cst`` or ``missing="learn"`` grown whole in one compiled call
(:func:`puretree.growth.kernels.grow_bounded`, through :meth:`puretree.growth.bounds.Bounded.grow_whole`):
the very tree of the level-wise loop (:func:`puretree.growth.level.grow` over the same source) and
of the recursive builder, at a fraction of the small fit's cost (issue 25's cost gate)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine

import puretree as pt
from puretree.growth import kernels
from test_whole_tree import counted  # the spy on the whole-tree kernel's calls

needs_kernel = pytest.mark.skipif(not kernels.AVAILABLE or kernels.library() is None, reason="the compiled kernel is not built here")


def level_wise(monkeypatch, *args, **options):
    """The tree the frontier loop grows level by level (no fit is small enough to grow whole)."""
    with monkeypatch.context() as m:
        m.setattr(kernels, "WHOLE_TREE_MAX_WORK", 0)
        return pt.cart(*args, **options)


def with_nan(X, seed=0, share=0.1):
    X = np.asarray(X, dtype=np.float32).astype(np.float64)
    X[np.random.default_rng(seed).random(X.shape) < share] = np.nan
    return X


def cst(n):
    return [(1, -1, 0)[j % 3] for j in range(n)]


SETS = {"breast_cancer": (load_breast_cancer, False), "wine": (load_wine, False), "diabetes": (load_diabetes, True)}


@needs_kernel
@pytest.mark.parametrize("options", [{}, {"max_depth": 5}, {"min_samples_leaf": 4}, {"min_samples_split": 9, "min_gain": 0.001}, {"max_bins": 16}], ids=str)
@pytest.mark.parametrize("name", sorted(SETS))
def test_grown_whole_is_the_level_wise_tree(monkeypatch, name, options):
    load, regression = SETS[name]
    X, y = load(return_X_y=True)
    task = {"task": "regression"} if regression else {}
    cases = [(with_nan(X), {"missing": "learn"})]
    if name != "wine":  # scikit-learn's constraints are for two classes or regression
        cases += [(with_nan(X, share=0.0), {"monotonic_cst": cst(X.shape[1])}), (with_nan(X), {"monotonic_cst": cst(X.shape[1]), "missing": "learn"})]
    for data, option in cases:
        calls = counted(monkeypatch)
        whole = pt.cart(data, y, **option, **options, **task)
        assert calls == [1], "the small fit is grown in one compiled call"
        assert whole == level_wise(monkeypatch, data, y, **option, **options, **task)


@needs_kernel
def test_grown_whole_is_the_reference_tree_with_weights():
    X, y = load_diabetes(return_X_y=True)
    X = with_nan(X)
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    for option in ({"missing": "learn"}, {"missing": "learn", "monotonic_cst": cst(X.shape[1])}):
        fast = pt.cart(X, y, task="regression", sample_weight=w, max_depth=6, **option)
        assert fast == pt.cart(X, y, task="regression", sample_weight=w, max_depth=6, engine="reference", **option)


@needs_kernel
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(2, 60),
    q=st.integers(1, 4),
    classes=st.integers(0, 3),  # 0: regression
    nan=st.sampled_from([0.0, 0.2]),
    constrained=st.booleans(),
    leaf=st.integers(1, 3),
    depth=st.sampled_from([None, 1, 3]),
)
def test_grown_whole_equals_the_recursive_builder(seed, n, q, classes, nan, constrained, leaf, depth):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, q)).astype(np.float64)  # repeated values: ties and runs
    X[rng.random(X.shape) < nan] = np.nan
    regression = classes == 0
    if constrained and classes > 2:
        classes = 2
    y = rng.normal(size=n).round(1) if regression else rng.integers(0, max(classes, 1), size=n)
    options = {"missing": "learn", "min_samples_leaf": leaf, "max_depth": depth}
    if constrained:
        options["monotonic_cst"] = [int(v) for v in rng.integers(-1, 2, size=q)]
    if regression:
        options["task"] = "regression"
    assert pt.cart(X, y, **options) == pt.cart(X, y, engine="reference", **options)


@needs_kernel
def test_larger_fits_keep_the_level_wise_loop(monkeypatch):
    X, y = load_breast_cancer(return_X_y=True)
    calls = counted(monkeypatch)
    monkeypatch.setattr(kernels, "WHOLE_TREE_MAX_WORK", X.size - 1)
    pt.cart(with_nan(X), y, missing="learn")
    monkeypatch.setattr(kernels, "WHOLE_TREE_MAX_WORK", 10**6)
    pt.cart(with_nan(X), y, missing="learn", progress=lambda *a: None)
    assert calls == []


@needs_kernel
@pytest.mark.parametrize("options", [{"missing": "learn"}, {"monotonic_cst": [1, -1] + [0] * 28}, {"missing": "learn", "monotonic_cst": [0, 1] + [0] * 28}], ids=str)
def test_subsampled_fits_are_grown_whole_as_the_reference_grows_them(monkeypatch, options):
    # max_features: each node's draw made in C, node_features' (the reference's)
    X, y = load_breast_cancer(return_X_y=True)
    X = with_nan(X) if options.get("missing") == "learn" else X
    calls = counted(monkeypatch)
    whole = pt.cart(X, y, max_features="sqrt", seed=4, **options)
    assert calls == [1]
    assert whole == pt.cart(X, y, max_features="sqrt", seed=4, engine="reference", **options)
