"""Feature subsampling (``max_features``) with the compiled kernel's scans, and what forests build on it.

The frontier loop draws each node's features (:func:`puretree.splits.node_features`, the one
draw of every source) and the kernel scans only those (``scan_level``'s ``allowed``). These
properties hold the trees to the numpy engine and to the recursive builder (``==``, on
unweighted data and on bootstrap counts), and check that a forest grown with the kernel in
threads equals one grown serially and one grown by the numpy engine; then the cheaper paths
forests take around it: the sorted columns shared by the members
(:func:`puretree.growth.kernels.subset_orders`), the nodes assembled without checks, and the
out-of-bag walk.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from unittest import mock

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from puretree import ensemble
from puretree.growth import kernels
from puretree.growth.assemble import from_records
from puretree.data import Dataset, as_dataset
from puretree.ensemble import bootstrap_counts, random_forest
from puretree.grow import cart
from puretree.nodes import NUMERIC, Leaf
from puretree.predict import predict_proba
from puretree.strategies import datasets

NUMERIC_ONLY = {"kinds": (NUMERIC,)}
keys = st.lists(st.integers(0, 2**70), min_size=1, max_size=3).map(tuple)


def grown(ds, **options):
    """The kernel's tree (checked to come from the kernel), the numpy engine's and the reference's."""
    before = kernels.fits()
    fast = cart(ds, **options)
    assert kernels.fits() == before + 1, "the kernel did not grow this tree"
    numpy_engine = cart(ds, engine="numpy", **options)
    return fast, numpy_engine, cart(ds, engine="reference", **options)


options = st.fixed_dictionaries(
    {"max_features": st.one_of(st.integers(1, 3), st.sampled_from(["sqrt", "log2", 0.5])), "seed": st.one_of(st.integers(0, 2**40), keys)},
    optional={"max_depth": st.integers(0, 4), "min_samples_leaf": st.sampled_from([1, 2, 3]), "min_samples_split": st.integers(2, 6)},
)


@given(ds=datasets(min_features=3, max_features=6, max_rows=60, **NUMERIC_ONLY), opts=options)
def test_subsampled_trees_are_the_reference(ds, opts):
    opts["max_features"] = min(opts["max_features"], ds.schema.n_features) if isinstance(opts["max_features"], int) else opts["max_features"]
    fast, numpy_engine, ref = grown(ds, **opts)
    assert fast == ref
    assert numpy_engine == ref


@given(ds=datasets(min_rows=2, min_features=2, max_features=6, max_rows=60, **NUMERIC_ONLY), member=st.integers(0, 50), both_cores=st.booleans())
def test_subsampled_trees_on_bootstrap_counts_are_the_numpy_engines(ds, member, both_cores):
    # integer weights, zeros included (grow leaves those rows out), as a forest's members see them
    ds = Dataset(ds.schema, ds.X, ds.y, bootstrap_counts(ds.n_rows, 0, member).astype(np.float64))
    with mock.patch.object(kernels, "PARALLEL_MIN_WORK", 0 if both_cores else kernels.PARALLEL_MIN_WORK):
        fast, numpy_engine, ref = grown(ds, max_features=1 + member % ds.schema.n_features, seed=(0, member))
    assert fast == numpy_engine == ref


def test_wide_subsampled_trees_are_the_numpy_engines():
    # many features, few drawn per node, on bootstrap counts
    rng = np.random.default_rng(7)
    X = rng.integers(0, 40, size=(700, 12)).astype(np.float64)
    y = (X[:, 0] + rng.integers(0, 30, size=700) > 35).astype(int) + (X[:, 5] > 30)
    for member in range(3):
        ds = Dataset(as_dataset(X, y).schema, X, y, bootstrap_counts(700, 5, member).astype(np.float64))
        fast, numpy_engine, _ = grown(ds, max_features=3, seed=(5, member))
        assert fast == numpy_engine


@given(ds=datasets(min_rows=4, min_features=2, max_features=5, max_rows=50, **NUMERIC_ONLY), seed=st.integers(0, 1000))
def test_kernel_forests_are_the_numpy_engines_and_serial_runs(ds, seed):
    X, y = ds.X, ds.labels()
    forest = random_forest(X, y, n_trees=6, seed=seed, max_features=2, n_jobs=2)  # members in threads
    assert forest == random_forest(X, y, n_trees=6, seed=seed, max_features=2, n_jobs=1)
    with mock.patch.dict(os.environ, {"PURETREE_ENGINE": "numpy"}):  # the numpy engine for every member
        before = kernels.fits()
        numpy_forest = random_forest(X, y, n_trees=6, seed=seed, max_features=2, n_jobs=1)
        assert kernels.fits() == before
    assert forest == numpy_forest
    assert forest.oob_score == numpy_forest.oob_score or (forest.oob_score is None and numpy_forest.oob_score is None)


def test_forest_members_grow_in_the_kernel_and_in_threads():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 16))
    y = (X[:, 0] + X[:, 3] > 0).astype(int)
    before = kernels.fits()
    with mock.patch("concurrent.futures.ThreadPoolExecutor", wraps=ThreadPoolExecutor) as threads:
        forest = random_forest(X, y, n_trees=8, seed=1, n_jobs=2)
    assert kernels.fits() == before + 8
    assert threads.called
    assert forest == random_forest(X, y, n_trees=8, seed=1, n_jobs=1)


@given(X=hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=12), elements=st.sampled_from([0.0, 1.0, -2.5, 3.0])), data=st.data())
def test_subset_orders_are_the_subsets_presort(X, data):
    keep = np.array(data.draw(st.lists(st.booleans(), min_size=len(X), max_size=len(X)).filter(any)), dtype=bool)
    assert kernels.subset_orders(kernels.presort(X), keep).tolist() == kernels.presort(X[keep]).tolist()


@given(ds=datasets(min_rows=2, max_features=4, max_rows=40), member=st.integers(0, 20))
def test_unchecked_assembly_gives_the_same_nodes(ds, member):
    # the frontier loop's records hold plain lists of floats, set without the nodes' checks:
    # the same nodes as those the checks make
    tree = cart(Dataset(ds.schema, ds.X, ds.y, bootstrap_counts(ds.n_rows, 0, member).astype(np.float64)), engine="fast")
    records = []

    def record(node):
        g = len(records)
        records.append(None)
        if type(node) is Leaf:
            records[g] = list(node.stats)
        else:
            records[g] = (node.feature, node.test, [record(kid) for kid in node.children], list(node.stats))
        return g

    record(tree.root)
    checked = [Leaf(r) if isinstance(r, list) else (r[0], r[1], r[2], tuple(r[3])) for r in records]
    assert from_records(records) == from_records(checked) == tree.root


@given(ds=datasets(min_rows=2, max_features=4, max_rows=40, **NUMERIC_ONLY), seed=st.integers(0, 100))
def test_the_out_of_bag_walk_is_predict_proba(ds, seed):
    data = as_dataset(ds.X, ds.labels())
    forest = random_forest(data, n_trees=3, seed=seed, max_features=None if seed % 2 else 1)
    for tree in forest.members:
        arrays = ensemble._threshold_arrays(tree)
        assert np.array_equal(ensemble._walk(arrays, data.X), predict_proba(tree, data.X))
        with mock.patch.object(kernels, "library", return_value=None):  # numpy's walk, without the kernel
            assert np.array_equal(ensemble._walk(arrays, data.X), predict_proba(tree, data.X))
    with mock.patch.object(ensemble, "_threshold_arrays", return_value=None):  # the general path
        general = ensemble._oob(forest, data)
    assert forest.oob_score == general


@given(
    seed=st.one_of(st.integers(0, 2**32 - 1), st.integers(0, 2**70)),
    member=st.lists(st.integers(0, 2**33), max_size=2),
    path=st.lists(st.integers(0, 5), max_size=12),
    sizes=st.integers(1, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n))),
)
def test_node_features_draw_numpys_documented_generator(seed, member, path, sizes):
    """The features a node draws are those of ``default_rng(SeedSequence(seed,
    spawn_key=(*member, 1, *path))).choice(n, m, replace=False)``, sorted: the cheaper
    construction (the seed words SeedSequence hashes, no shuffle) changes no draw."""
    from puretree.splits import node_features

    n, m = sizes
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(*member, 1, *path)))
    expected = np.sort(rng.choice(n, size=m, replace=False))
    assert node_features(n, m, (seed, *member), tuple(path)).tolist() == expected.tolist()
