"""The level-wise engine grows ``monotonic_cst`` and ``missing="learn"`` (puretree.growth.bounds,
issue 25): the very trees of the recursive builder (``engine="reference"``), on random data with
weights and missing values, for classes (two) and regression, every built-in criterion."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import puretree as pt
from puretree.growth import bounds, kernels


@st.composite
def fits(draw):
    n = draw(st.integers(4, 60))
    p = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    X = np.round(rng.normal(size=(n, p)), draw(st.integers(0, 2)))  # rounded: tied values
    if draw(st.booleans()):
        X[rng.random(X.shape) < draw(st.sampled_from([0.1, 0.3]))] = np.nan
    regression = draw(st.booleans())
    y = np.round(rng.normal(size=n), 1) if regression else rng.integers(0, 2, size=n)
    if not regression and len(set(y.tolist())) < 2:
        y[0] = 1 - y[0]
    options = {
        "score": draw(st.sampled_from(["variance"] if regression else ["gini", "entropy"])),
        "max_depth": draw(st.sampled_from([None, 1, 3])),
        "min_samples_leaf": draw(st.sampled_from([1, 2, 5])),
    }
    if regression:
        options["task"] = "regression"
    weighted = draw(st.sampled_from([None, "integer", "fraction"]))
    if weighted == "integer":
        options["sample_weight"] = rng.integers(1, 4, size=n).astype(float)
    elif weighted == "fraction":
        options["sample_weight"] = np.round(rng.uniform(0.1, 2.0, size=n), 3)
    constrained = draw(st.booleans())
    options["missing"] = draw(st.sampled_from(["learn", "majority"] if constrained else ["learn"]))
    if constrained:
        options["monotonic_cst"] = draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=p, max_size=p))
    return X, y, options


@settings(max_examples=150, deadline=None)
@given(fits())
def test_the_level_wise_engine_grows_the_reference_s_tree(fit):
    X, y, options = fit
    assert pt.cart(X, y, engine="numpy", **options) == pt.cart(X, y, engine="reference", **options)


def test_the_level_wise_engine_is_what_grows_it(monkeypatch):
    # engine="auto" grows these fits on the sorted source's own search, not recursively: level
    # by level, or (a small fit, the compiled kernel here) whole in one compiled call
    searched = []
    original = bounds.Bounded._search
    monkeypatch.setattr(bounds.Bounded, "_search", lambda self, allowed: searched.append(1) or original(self, allowed))
    whole = bounds.Bounded.grow_whole
    monkeypatch.setattr(bounds.Bounded, "grow_whole", lambda self, *a, **k: (lambda root: searched.append(root is not None) or root)(whole(self, *a, **k)))
    grown = bounds.grow_whole  # the same call from the fit's arrays alone
    monkeypatch.setattr(bounds, "grow_whole", lambda *a, **k: (lambda root: searched.append(root is not None) or root)(grown(*a, **k)))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) > 0).astype(int)
    tree = pt.cart(X, y, missing="learn", monotonic_cst=[1, 0, -1])
    assert searched and tree == pt.cart(X, y, missing="learn", monotonic_cst=[1, 0, -1], engine="reference")


@pytest.mark.parametrize("regression", [False, True])
def test_a_forest_of_constrained_learned_trees_is_the_reference_s(regression):
    # max_features: each node's drawn features, the same draw in both builders
    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 6))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) - np.nan_to_num(X[:, 1]) + rng.normal(size=400)
    options = dict(missing="learn", monotonic_cst=[1, -1, 0, 1, -1, 0], max_features=3, seed=7, min_samples_leaf=3)
    if regression:
        options["task"] = "regression"
    else:
        y = (y > 0).astype(int)
    assert pt.grow(X, y, engine="fast", **options) == pt.grow(X, y, engine="reference", **options)


@settings(max_examples=150, deadline=None)
@given(fits())
def test_the_compiled_scan_grows_numpy_s_tree(fit):
    # the kernel's scan (kernels.scan_bounded, or the whole small tree: kernels.grow_bounded) where
    # it applies (Gini on classes, the variance decrease), numpy's where it does not or
    # engine="numpy": the same tree, bounds and learned sides included
    X, y, options = fit
    calls = []
    original, whole = kernels.scan_bounded, kernels.grow_bounded
    kernels.scan_bounded = lambda *a, **k: calls.append(1) or original(*a, **k)
    kernels.grow_bounded = lambda *a, **k: calls.append(1) or whole(*a, **k)
    try:
        compiled = pt.cart(X, y, engine="auto", **options)
    finally:
        kernels.scan_bounded, kernels.grow_bounded = original, whole
    assert compiled == pt.cart(X, y, engine="numpy", **options)
    scored = options["score"] in ("gini", "variance")
    complete = options["missing"] == "learn" or not np.isnan(X).any()
    multi = pt.n_nodes(compiled) > 1
    assert bool(calls) == (kernels.AVAILABLE and scored and complete) or not multi


@pytest.mark.skipif(not kernels.AVAILABLE or kernels.library() is None, reason="the compiled kernel is not built here")
def test_the_compiled_scan_finds_numpy_s_candidates_on_a_level():
    # one level of many nodes: the kernel's best, values either side and sides are numpy's
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(500, 4)), 1)
    X[rng.random(X.shape) < 0.2] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.normal(size=500) > 0).astype(int)
    options = dict(missing="learn", monotonic_cst=[1, -1, 0, 1], max_depth=6)
    assert pt.cart(X, y, **options) == pt.cart(X, y, engine="numpy", **options) == pt.cart(X, y, engine="reference", **options)
