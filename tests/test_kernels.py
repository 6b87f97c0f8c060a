"""The compiled kernel (:mod:`puretree.kernels`, C) grows the reference builder's tree.

``cart`` on numeric data without missing values (Gini, CART's default) is grown by the
kernel; these properties compare it with :func:`puretree.grow.grow` ``engine="reference"``
(the recursive specification) and with the numpy engine it replaces there:

- unweighted: ``==`` (every statistic an integer, every score the reference's very number);
- weighted: the same structure with counts equal to 1e-9 relative (:func:`same_tree`).

Every property also checks that the kernel did grow the tree (``_kernel_tree`` was called),
and one runs every level of more than one feature on both cores (``PARALLEL_MIN_WORK=0``).
A C compiler is there wherever the tests run (``make test`` installs gcc's toolchain), so the
kernel is there to be tested; without one (``AVAILABLE = False``) fits use the numpy engine,
which a subprocess checks with ``PURETREE_CC`` naming a missing program. The C code is also
built once with AddressSanitizer and UndefinedBehaviorSanitizer and run on drawn data.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from puretree import engine, kernels
from puretree.criteria import impurity_decrease
from puretree.data import Dataset
from puretree.grow import TIE_TOLERANCE, cart
from puretree.impurity import gini
from puretree.nodes import NUMERIC
from puretree.strategies import datasets

from test_engine import same_tree

NUMERIC_ONLY = {"kinds": (NUMERIC,)}

options = st.fixed_dictionaries(
    {},
    optional={
        "max_depth": st.integers(0, 4),
        "min_samples_leaf": st.sampled_from([1, 2, 3, 1.5]),
        "min_samples_split": st.integers(2, 6),
        "min_gain": st.sampled_from([0.0, 0.01, 0.1]),
    },
)


def grown(ds, **options):
    """The kernel's tree (checked to come from the kernel), the numpy engine's and the reference's."""
    with mock.patch.object(engine, "_kernel_tree", wraps=engine._kernel_tree) as spy:
        fast = cart(ds, **options)
    assert spy.called == kernels.AVAILABLE, "the kernel did not grow this tree"
    with mock.patch.object(engine, "_USE_KERNEL", False):
        numpy_engine = cart(ds, engine="fast", **options)
    return fast, numpy_engine, cart(ds, engine="reference", **options)


def test_the_kernel_is_compiled_for_the_tests():
    # the tests run where a C compiler is (never skipped): the kernel must be there
    assert kernels.library() is not None and kernels.AVAILABLE
    assert kernels.TIE_TOLERANCE == TIE_TOLERANCE


@given(ds=datasets(max_rows=40, max_features=4, **NUMERIC_ONLY), opts=options)
def test_unweighted_trees_are_the_reference(ds, opts):
    fast, numpy_engine, ref = grown(ds, **opts)
    assert fast == ref
    assert numpy_engine == ref


@given(ds=datasets(min_rows=10, max_rows=60, max_classes=12, **NUMERIC_ONLY), opts=options)
def test_many_classes_are_the_reference(ds, opts):
    # more than 8 classes: numpy adds the class axis pairwise, and so does the kernel
    fast, _, ref = grown(ds, **opts)
    assert fast == ref


@given(ds=datasets(max_rows=40, weights=True, **NUMERIC_ONLY), opts=options)
def test_weighted_trees_are_the_reference(ds, opts):
    # the kernel leaves huge and tiny weights to numpy: bring the drawn ones into its range
    w = np.clip(ds.sample_weight / max(1.0, ds.sample_weight.max() / 1e6), 0.0, None)
    w = np.where(w > 0, np.maximum(w, kernels.MIN_WEIGHT), 0.0)
    ds = Dataset(ds.schema, ds.X, ds.y, w)
    fast, numpy_engine, ref = grown(ds, **opts)
    assert same_tree(fast.root, ref.root)
    assert same_tree(fast.root, numpy_engine.root)


@given(ds=datasets(max_rows=40, max_features=4, **NUMERIC_ONLY), weighted=st.booleans(), opts=options)
def test_levels_on_both_cores_are_the_reference(ds, weighted, opts):
    if weighted:
        ds = Dataset(ds.schema, ds.X, ds.y, np.linspace(0.5, 3.0, ds.n_rows))
    with mock.patch.object(kernels, "PARALLEL_MIN_WORK", 0):
        fast, _, ref = grown(ds, **opts)
    assert same_tree(fast.root, ref.root, rel=1e-9 if weighted else 0.0)
    assert fast == ref or weighted


@given(ds=datasets(max_rows=40, max_features=4, **NUMERIC_ONLY), opts=options)
def test_column_major_data_are_the_reference(ds, opts):
    # large data are read column by column (a copy in Fortran order): the same trees
    with mock.patch.object(kernels, "COLUMN_COPY_BYTES", 0):
        fast, _, ref = grown(ds, **opts)
    assert fast == ref


def test_deep_chain_is_the_reference():
    n = 600
    X = np.arange(n, dtype=np.float64).reshape(-1, 1)
    y = np.arange(n) % 2
    with mock.patch.object(engine, "_kernel_tree", wraps=engine._kernel_tree) as spy:
        fast = cart(X, y)
    assert spy.called == kernels.AVAILABLE
    assert fast == cart(X, y, engine="reference")


def test_without_the_kernel_the_numpy_engine_grows_it():
    X = np.array([[1.0, 5.0], [2.0, 4.0], [3.0, 3.0], [4.0, 1.0]])
    y = ["a", "a", "b", "b"]
    with mock.patch.object(kernels, "AVAILABLE", False), mock.patch.object(engine, "_kernel_tree") as spy:
        tree = cart(X, y)
    assert not spy.called
    assert tree == cart(X, y, engine="reference")


def test_the_kernel_declines_what_it_does_not_know():
    X = np.array([[1.0], [2.0], [np.nan], [4.0]])
    y = ["a", "a", "b", "b"]
    with mock.patch.object(engine, "_kernel_tree") as spy:
        cart(X, y)  # a missing value
        cart(X[[0, 1, 3]], ["a", "b", "b"], score="entropy")  # not Gini
        cart(X[[0, 1, 3]], [1.0, 2.0, 3.0], task="regression")
        cart(X[[0, 1, 3]], ["a", "b", "b"], sample_weight=[1e-160, 1.0, 1.0])  # squares underflow
        cart(X[[0, 1, 3]], ["a", "b", "b"], sample_weight=[1e200, 1.0, 1.0])  # squares overflow
    assert not spy.called


counts = hnp.arrays(np.float64, st.integers(1, 12), elements=st.one_of(st.integers(0, 50).map(float), st.floats(0, 1e6, allow_subnormal=False)))


@given(parent=counts, share=st.floats(0, 1))
def test_scores_are_the_reference_numbers(parent, share):
    # the kernel's Gini and Gini decrease give the very floats of puretree.impurity and
    # puretree.criteria (as the engines call them, statistics with a leading axis)
    left = np.floor(parent * share)
    right = np.maximum(parent - left, 0.0)
    assert kernels.gini(parent) == float(gini(parent[None])[0])
    expected = impurity_decrease(gini)(parent[None], np.stack((left, right))[None])[0]
    got = kernels.gini_decrease(kernels.gini(parent), left, right)
    assert got == expected or (np.isneginf(got) and np.isneginf(expected))


def test_fits_in_threads_at_once_are_the_reference():
    # parallel regions are taken one at a time; a fit that finds the cores taken grows its
    # wide levels on one core: every thread's tree is still the reference's
    import threading

    rng = np.random.default_rng(0)
    X = rng.integers(0, 6, size=(300, 3)).astype(np.float64)
    y = (X.sum(axis=1) + rng.integers(0, 2, size=300)) % 3
    ref = cart(X, y, engine="reference")
    trees: list = []
    with mock.patch.object(kernels, "PARALLEL_MIN_WORK", 0):
        threads = [threading.Thread(target=lambda: trees.append(cart(X, y))) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(trees) == 4 and all(t == ref for t in trees)
