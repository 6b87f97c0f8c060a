"""A random forest's members grown whole in one compiled call (issue 24, "No fit gets slower": on
digits' small deep trees the frontier loop's Python per level made the forest three times slower
than the old kernel). The features each node may split on (``max_features``) are drawn in C
(``growth/_kernel.c``: SeedSequence's mixing, PCG64, Lemire's bounded draw with numpy's
rejection, Floyd's choice), numpy's very draw of :func:`puretree.splits.node_features`, which
stays the readable reference and the fallback; so the members are the trees the recursive
builder grows with ``node_features``, and those of the numpy engine."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_digits

import puretree as pt
from puretree import ensemble
from puretree.data import as_dataset
from puretree.growth import engine, kernels, level
from puretree.splits import node_features
from test_whole_tree import counted  # the spy on the whole-tree kernel's calls

needs_kernel = pytest.mark.skipif(not kernels.AVAILABLE or kernels.library() is None, reason="the compiled kernel is not built here")

keys = st.one_of(st.integers(0, 2**32 - 1), st.integers(0, 2**130), st.tuples(st.integers(0, 2**40), st.integers(0, 2**40)), st.tuples(st.integers(0, 9), st.integers(0, 9), st.integers(0, 2**33)))


def key_of(key):
    return key if isinstance(key, tuple) else (key,)


@needs_kernel
@given(
    key=keys,
    paths=st.lists(st.lists(st.integers(0, 3), max_size=14).map(tuple), min_size=1, max_size=6),
    sizes=st.integers(1, 90).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n))),
)
def test_a_frontiers_compiled_draws_are_node_features(key, paths, sizes):
    n, m = sizes
    got = kernels.draw_frontier(n, m, key_of(key), paths)
    assert got is not None and got.dtype == bool and got.shape == (len(paths), n)
    assert [np.flatnonzero(row).tolist() for row in got] == [node_features(n, m, key_of(key), path).tolist() for path in paths]
    assert (level.drawn(n, m, key_of(key), paths, compiled=False) == got).all()


def rejects(n, m, seed):
    """Whether numpy's choice of m of n features at the root keyed (seed, 0) rejects a 32-bit
    word (Lemire's draw): it then takes more words than m (m even: m / 2 steps of PCG64)."""
    bits = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(0, 1)))
    np.random.Generator(bits).choice(n, size=m, replace=False)
    plain = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(0, 1))).advance(m // 2)
    return bits.state["state"] != plain.state["state"]


@needs_kernel
def test_a_rejected_word_is_drawn_again_as_numpy_draws_it():
    n, m = 10_000, 9_000  # about one root in 150 rejects a word
    seeds = [s for s in range(600) if rejects(n, m, s)][:3]
    assert seeds, "no seed here whose draw rejects a word"
    for seed in seeds:
        got = kernels.draw_frontier(n, m, (seed, 0), [()])
        assert np.flatnonzero(got[0]).tolist() == node_features(n, m, (seed, 0), ()).tolist()


def test_draws_the_library_does_not_make_are_node_features(monkeypatch):
    # more features than Floyd's algorithm draws from (numpy shuffles), or no library: node by node
    assert kernels.draw_frontier(kernels.MAX_DRAW + 1, 3, (0,), [()]) is None
    got = level.drawn(kernels.MAX_DRAW + 1, 3, (0,), [(), (1,)])
    assert [np.flatnonzero(row).tolist() for row in got] == [node_features(kernels.MAX_DRAW + 1, 3, (0,), p).tolist() for p in [(), (1,)]]
    monkeypatch.setattr(kernels, "library", lambda: None)
    assert kernels.draw_frontier(10, 3, (0,), [()]) is None
    assert np.flatnonzero(level.drawn(10, 3, (4,), [(0, 1)])[0]).tolist() == node_features(10, 3, (4,), (0, 1)).tolist()


@needs_kernel
def test_a_forest_on_small_data_grows_every_member_whole(monkeypatch):
    X, y = load_digits(return_X_y=True)
    drawn = []
    real = kernels.grow_bounded

    def spy(*args, **kwargs):
        drawn.append(kwargs["max_features"])
        return real(*args, **kwargs)

    def loop(*args, **kwargs):
        raise AssertionError("a member was grown by the frontier loop")

    monkeypatch.setattr(kernels, "grow_bounded", spy)
    monkeypatch.setattr(engine, "grow_frontier", loop)
    forest = pt.random_forest(X, y, n_trees=4, seed=1, n_jobs=1)
    assert drawn == [8] * 4 and len(forest.members) == 4


@needs_kernel
@pytest.mark.parametrize("load, seed", [(load_digits, 0), (load_breast_cancer, 7)])
def test_forest_members_are_the_reference_builders_trees(load, seed):
    X, y = load(return_X_y=True)
    ds = as_dataset(X, y)
    forest = pt.random_forest(X, y, n_trees=3, seed=seed)
    sampling = ensemble._Sampling.of(ds, True, None)
    for m, member in enumerate(forest.members):
        w = sampling.weights(ds, seed, m)
        assert member == pt.cart(X, y, sample_weight=w, max_features="sqrt", seed=(seed, m), engine="reference")
    numpy_forest = pt.random_forest(X, y, n_trees=3, seed=seed, engine="numpy")  # the frontier loop, node_features' draws
    assert (forest.members, forest.oob_score) == (numpy_forest.members, numpy_forest.oob_score)


@needs_kernel
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(2, 120),
    q=st.integers(1, 70),
    classes=st.integers(0, 4),  # 0: regression
    share=st.one_of(st.floats(0.01, 0.25), st.floats(0.01, 1.0)),  # few drawn (orders made on demand) or many (kept partitioned)
    weighted=st.booleans(),
    leaf=st.integers(1, 3),
    depth=st.sampled_from([None, 2, 5]),
    key=keys,
)
def test_whole_trees_with_drawn_features_are_the_reference_and_the_loops(seed, n, q, classes, share, weighted, leaf, depth, key):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 1 + n // 4, size=(n, q)) + rng.integers(0, 2, size=(n, q)) * rng.random((n, q))  # ties, and values of their own
    y = rng.normal(size=n) if classes == 0 else rng.integers(0, max(classes, 1), size=n)
    options = {"max_features": max(1, round(share * q)), "seed": key, "min_samples_leaf": leaf, "max_depth": depth}
    if classes == 0:
        options["task"] = "regression"
    if weighted:  # bootstrap counts, zeros included (the rows left out)
        options["sample_weight"] = rng.integers(0, 3, size=n).astype(np.float64)
        if not options["sample_weight"].any():
            options["sample_weight"][0] = 1.0
    with pytest.MonkeyPatch.context() as patch:
        calls = counted(patch)
        whole = pt.cart(X, y, **options)
        assert calls == [1] or n - int(np.sum(options.get("sample_weight", np.ones(n)) == 0)) < 2
        patch.setattr(kernels, "WHOLE_TREE_MAX_WORK", 0)
        loop = pt.cart(X, y, **options)  # the frontier loop, its draws compiled
    assert whole == loop
    assert whole == pt.cart(X, y, engine="numpy", **options)  # the loop again, node_features' draws
    assert whole == pt.cart(X, y, engine="reference", **options)


@needs_kernel
@pytest.mark.parametrize("max_features", [2, 9, 30])
def test_drawn_orders_made_on_demand_are_the_partitioned_ones(max_features):
    # large and small nodes, ranks spread or close: every way a node's order of a drawn feature
    # is made (sweep, radix, insertion), and the orders kept partitioned (many features drawn)
    rng = np.random.default_rng(11)
    n = 3000
    X = np.column_stack([rng.normal(size=(n, 10)), rng.integers(0, 6, size=(n, 10)), rng.random((n, 10)).round(2), np.repeat(rng.random(n // 30), 30)[:, None] * rng.random((n, 10))])
    y = (X[:, 0] + X[:, 11] + X[:, 25] > 3).astype(int) + (X[:, 33] > 0.4) + (rng.random(n) > 0.8)
    w = ensemble.bootstrap_counts(n, 3, 1).astype(np.float64)
    with pytest.MonkeyPatch.context() as patch:
        calls = counted(patch)
        whole = pt.cart(X, y, sample_weight=w, max_features=max_features, seed=(3, 1))
        assert calls == [1]
        patch.setattr(kernels, "WHOLE_TREE_MAX_WORK", 0)
        assert whole == pt.cart(X, y, sample_weight=w, max_features=max_features, seed=(3, 1))
    assert pt.n_nodes(whole) > 200


@given(
    n_rows=st.integers(1, 300),
    seed=st.integers(0, 2**40),
    member=st.integers(0, 99),
    weighted=st.booleans(),
    n_draws=st.none() | st.integers(1, 500),
)
def test_bootstrap_counts_are_the_documented_search(n_rows, seed, member, weighted, n_draws):
    # the shortcuts (no search without weights: a point's row is its floor; sorted points
    # with weights) count the rows the plain search finds
    weights = np.random.default_rng(seed).integers(0, 4, size=n_rows) * 0.75 if weighted else None
    if weights is not None and not weights.any():
        weights[-1] = 1.0
    cumulative = np.cumsum(np.ones(n_rows) if weights is None else weights)
    n = int(round(cumulative[-1])) if n_draws is None else n_draws
    points = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(member, 0))).random(n) * cumulative[-1]
    expected = np.bincount(np.minimum(np.searchsorted(cumulative, points, side="right"), n_rows - 1), minlength=n_rows)
    assert ensemble.bootstrap_counts(n_rows, seed, member, weights=weights, n_draws=n_draws).tolist() == expected.tolist()
