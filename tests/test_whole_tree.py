"""A small cart fit without options grown whole in one compiled call (issue 24: the frontier loop's
Python, a few hundred microseconds a level, made the deep and small fits slower than the old
monolithic kernel): :func:`puretree.growth.engine.build` hands it to
:func:`puretree.growth.bounds.grow_whole` (neither constraints nor a learned side), whose
tree is the level-wise loop's and the recursive builder's, with ``max_features`` too (a
random forest's members: the draws made in C)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_wine

import puretree as pt
from puretree.errors import ParameterError
from puretree.growth import kernels

needs_kernel = pytest.mark.skipif(not kernels.AVAILABLE or kernels.library() is None, reason="the compiled kernel is not built here")


def counted(monkeypatch):
    """The calls of the whole-tree kernel from here on (a list, one entry a call)."""
    calls = []
    real = kernels.grow_bounded

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(kernels, "grow_bounded", spy)
    return calls


def level_wise(monkeypatch, *args, **options):
    """The tree the frontier loop grows level by level (no fit is small enough to grow whole)."""
    with monkeypatch.context() as m:
        m.setattr(kernels, "WHOLE_TREE_MAX_WORK", 0)
        return pt.cart(*args, **options)


SETS = {"breast_cancer": (load_breast_cancer, False), "wine": (load_wine, False), "digits": (load_digits, False), "diabetes": (load_diabetes, True)}


@needs_kernel
@pytest.mark.parametrize(
    "options",
    [{}, {"max_depth": 4}, {"min_samples_leaf": 5}, {"min_samples_split": 9, "min_gain": 0.001}, {"max_leaf_nodes": 12}, {"weights": True}, {"max_features": "sqrt", "seed": 3}, {"max_features": 0.5, "seed": (2, 9), "weights": True}],
    ids=str,
)
@pytest.mark.parametrize("name", sorted(SETS))
def test_a_small_plain_fit_is_grown_whole_as_the_loop_and_the_reference_grow_it(monkeypatch, name, options):
    load, regression = SETS[name]
    X, y = load(return_X_y=True)
    options = dict(options, **({"task": "regression"} if regression else {}))
    if options.pop("weights", False):
        options["sample_weight"] = np.random.default_rng(2).integers(0, 4, len(y)).astype(np.float64)  # zeros too
    calls = counted(monkeypatch)
    whole = pt.cart(X, y, **options)
    assert calls == [1], "the small fit is grown in one compiled call"
    assert whole == level_wise(monkeypatch, X, y, **options)
    assert whole == pt.cart(X, y, engine="reference", **options)


@needs_kernel
def test_a_deep_chain_is_grown_whole():
    X, y = np.arange(600.0)[:, None], np.arange(600) % 2  # 600 levels
    tree = pt.cart(X, y)
    assert pt.n_nodes(tree) == 1199
    assert tree == pt.cart(X, y, engine="reference")


@needs_kernel
def test_fits_the_whole_tree_does_not_take_keep_the_loop(monkeypatch):
    X, y = load_breast_cancer(return_X_y=True)
    calls = counted(monkeypatch)
    pt.cart(X, y, engine="numpy")
    pt.cart(X, y, score="entropy")
    pt.cart(X, y, progress=lambda *a: None)
    X_nan = X.copy()
    X_nan[::7, 3] = np.nan
    pt.cart(X_nan, y)  # the heavier branch for a missing value
    monkeypatch.setattr(kernels, "WHOLE_TREE_MAX_WORK", X.size - 1)
    pt.cart(X, y)
    assert calls == []


@needs_kernel
def test_engine_c_still_refuses_regression():
    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ParameterError, match="engine='c'"):
        pt.cart(X, y, task="regression", engine="c")


@needs_kernel
@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(2, 80),
    q=st.integers(1, 4),
    classes=st.integers(0, 4),  # 0: regression
    nan=st.sampled_from([0.0, 0.0, 0.15]),
    weighted=st.sampled_from([None, "integers", "uniform"]),
    leaf=st.integers(1, 3),
    depth=st.sampled_from([None, 1, 3]),
)
def test_whole_tree_equals_the_level_loop_and_the_reference(seed, n, q, classes, nan, weighted, leaf, depth):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, q)).astype(np.float64)  # repeated values: ties and runs
    X[rng.random(X.shape) < nan] = np.nan
    regression = classes == 0
    y = rng.normal(size=n).round(1) if regression else rng.integers(0, max(classes, 1), size=n)
    options = {"min_samples_leaf": leaf, "max_depth": depth}
    if weighted == "integers":
        options["sample_weight"] = w = rng.integers(0, 3, size=n).astype(np.float64)  # a row of weight 0 is left out
        w[0] = 1.0
    elif weighted == "uniform":
        options["sample_weight"] = rng.uniform(0.5, 2.0, size=n)
    if regression:
        options["task"] = "regression"
    with pytest.MonkeyPatch.context() as m:
        calls = counted(m)
        whole = pt.cart(X, y, **options)
        m.setattr(kernels, "WHOLE_TREE_MAX_WORK", 0)
        loop = pt.cart(X, y, **options)
    assert whole == loop
    assert whole == pt.cart(X, y, engine="reference", **options)
    rows = n if weighted != "integers" else int((options["sample_weight"] > 0).sum())
    if nan == 0.0 and rows >= 2:
        assert len(calls) == 1
