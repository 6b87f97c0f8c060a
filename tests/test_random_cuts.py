"""The random splitter's compiled tree (puretree.growth.random_cuts, growth/_random_cuts.c) against
the recursive reference (puretree.splits.random_threshold_splits), which follow one documented
draw (puretree.growth.random_draw)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.datasets import load_digits, load_wine

import puretree as pt
from puretree.grow import cart
from puretree.growth import kernels
from puretree.growth.random_draw import draw, mix, node_key, random_cuts as cuts_of
from puretree.nodes import Leaf

pytestmark = pytest.mark.skipif(kernels.library() is None, reason="the compiled kernel is not built here")


def _compiled_fits(fit):
    before = kernels.fits()
    tree = fit()
    return tree, kernels.fits() - before


@given(
    data=st.data(),
    n=st.integers(2, 40),
    p=st.integers(1, 5),
    k=st.integers(2, 4),
    seed=st.integers(0, 2**70),
    options=st.fixed_dictionaries({}, optional={
        "max_features": st.integers(1, 5), "min_samples_leaf": st.integers(1, 4), "max_depth": st.integers(0, 5),
        "min_weight_fraction_leaf": st.sampled_from([0.05, 0.2, 0.5]), "min_samples_split": st.integers(2, 6),
    }),
    weighted=st.booleans(),
)
def test_the_compiled_random_tree_is_the_references(data, n, p, k, seed, options, weighted):
    # ties on purpose: few distinct values (equal cuts, constant features), some integral weights of 0
    X = np.array(data.draw(st.lists(st.lists(st.sampled_from([-1.0, -0.0, 0.0, 0.5, 2.0, 1e-8]), min_size=p, max_size=p), min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    if len(set(y.tolist())) < 2:
        y[0], y[-1] = 0, 1
    w = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float) if weighted else None
    if w is not None and w.sum() == 0:
        w[0] = 1.0
    options = {key: v for key, v in options.items() if key != "max_features" or v <= p}
    fast, compiled = _compiled_fits(lambda: cart(X, y, splitter="random", seed=seed, sample_weight=w, **options))
    assert compiled == 1
    assert fast == cart(X, y, splitter="random", seed=seed, sample_weight=w, engine="reference", **options)


def test_the_draw_is_splitmix64_and_keys_follow_the_path():
    assert mix(0) == 0xE220A8397B1DCDAF  # splitmix64's first output from the state 0
    assert draw(5, 3) == mix(5 + 3 * 0x9E3779B97F4A7C15)
    root = node_key((7, 2), ())
    assert node_key((7, 2), (0, 1)) == mix(mix(root ^ 1) ^ 2)
    X = np.array([[0.0, 1.0, 4.0], [2.0, 1.0, 8.0], [1.0, 1.0, 6.0]])
    cuts = cuts_of(X, root, limit=None)
    assert sorted(f for f, _ in cuts) == [0, 2]  # column 1 is constant: skipped
    assert all(X[:, f].min() <= t < X[:, f].max() for f, t in cuts)
    assert len(cuts_of(X, root, limit=1)) == 1


def test_the_compiled_tree_grows_digits_and_wine_as_the_reference_and_follows_the_seed():
    for X, y in (load_digits(return_X_y=True), load_wine(return_X_y=True)):
        for options in ({"max_features": "sqrt"}, {"min_weight_fraction_leaf": 0.02, "max_depth": 8}, {"min_samples_leaf": 3}):
            a, compiled = _compiled_fits(lambda: cart(X, y, splitter="random", seed=4, **options))
            assert compiled == 1
            assert a == cart(X, y, splitter="random", seed=4, engine="reference", **options)
            assert a != cart(X, y, splitter="random", seed=5, **options)


def test_a_leaf_weight_bound_holds_on_the_compiled_tree():
    X, y = load_wine(return_X_y=True)
    w = np.arange(len(y)) % 3 + 1.0
    tree = cart(X, y, splitter="random", seed=0, sample_weight=w, min_weight_fraction_leaf=0.1)
    stack, weights = [tree.root], []
    while stack:
        node = stack.pop()
        if isinstance(node, Leaf):
            weights.append(sum(node.stats))
        else:
            stack += list(node.children)
    assert min(weights) >= 0.1 * w.sum() and len(weights) > 2


def test_what_the_compiled_tree_does_not_grow_goes_to_the_reference():
    X, y = load_wine(return_X_y=True)
    tree, compiled = _compiled_fits(lambda: pt.grow(X, y.astype(float), task="regression", splitter="random", seed=1))
    assert compiled == 0 and tree == pt.grow(X, y.astype(float), task="regression", splitter="random", seed=1, engine="reference")
    Xn = X.copy()
    Xn[0, 0] = np.nan
    tree, compiled = _compiled_fits(lambda: cart(Xn, y, splitter="random", seed=1))
    assert compiled == 0 and tree == cart(Xn, y, splitter="random", seed=1, engine="reference")
    tree, compiled = _compiled_fits(lambda: cart(X, y, splitter="random", seed=1, score="entropy"))
    assert compiled == 0 and tree == cart(X, y, splitter="random", seed=1, score="entropy", engine="reference")
    tree, compiled = _compiled_fits(lambda: cart(X, y, splitter="random", seed=1, sample_weight=np.full(len(y), 0.5)))
    assert compiled == 0


def test_extra_trees_members_are_grown_by_the_compiled_tree_in_threads():
    X, y = load_wine(return_X_y=True)
    before = kernels.fits()
    ens = pt.extra_trees(X, y, n_trees=6, seed=2, n_jobs=2)
    assert kernels.fits() - before == 6
    assert ens.members[3] == cart(X, y, splitter="random", max_features="sqrt", seed=(2, 3), engine="reference")


def test_the_compiled_tree_reads_any_layout_of_the_data_in_place():
    X, y = load_wine(return_X_y=True)
    reference = cart(X, y, splitter="random", seed=2, engine="reference")
    for Z in (np.asfortranarray(X), X[::-1][::-1], np.ascontiguousarray(X[::-1])[::-1]):
        assert cart(Z, y, splitter="random", seed=2) == reference


def test_bootstrapped_extra_trees_of_many_classes_are_the_reference_s():
    # integral weights above 1, ten classes: the class sums read through the shared floats
    X, y = load_digits(return_X_y=True)
    X, y = X[:400], y[:400]
    fast = pt.extra_trees(X, y, n_trees=3, seed=4, bootstrap=True, n_jobs=1)
    assert fast.members == pt.extra_trees(X, y, n_trees=3, seed=4, bootstrap=True, n_jobs=1, engine="reference").members


def test_large_integral_weights_grow_the_reference_s_tree():
    # class sums past the shared floats' table (random_cuts._MOST_FLOATS) are made as they come
    X, y = load_wine(return_X_y=True)
    for weight in (3.0, 5000.0, 300_000.0):
        w = np.full(len(y), weight)
        w[::7] = 1.0
        tree, compiled = _compiled_fits(lambda: cart(X, y, splitter="random", seed=5, sample_weight=w))
        assert compiled == 1
        assert tree == cart(X, y, splitter="random", seed=5, sample_weight=w, engine="reference")
        assert all(type(v) is float for v in tree.root.stats)
