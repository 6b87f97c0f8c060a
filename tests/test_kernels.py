"""The compiled kernel (:mod:`puretree.kernels`, C) grows the reference builder's tree.

``cart`` on numeric data without missing values (Gini, CART's default) is grown by the
kernel; these properties compare it with :func:`puretree.grow.grow` ``engine="reference"``
(the recursive specification) and with the numpy engine it replaces there:

- unweighted: ``==`` (every statistic an integer, every score the reference's very number);
- weighted: the same structure with counts equal to 1e-9 relative (:func:`same_tree`).

Every property also checks that the kernel did grow the tree (``_kernel_tree`` was called),
and one runs every level of more than one feature on both cores (``PARALLEL_MIN_WORK=0``).
A C compiler is there wherever the tests run (the code generation tests compile C too, and
``.ci/system-deps`` installs gcc), so the kernel is there to be tested; without one (``AVAILABLE = False``) fits use the numpy engine,
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


# The compiler's side: the fallback without one, the cache, and the C code under sanitizers.
# Each runs a fresh Python (the library is loaded once per process) with its own cache folder.

#: Fits the kernel must grow as the reference does, on data of many shapes (one row, one
#: feature, ties, 12 classes, weights, levels on both cores); and C4.5's compiled scan.
FITS = textwrap.dedent(
    """
    import sys
    from unittest import mock
    import numpy as np
    from puretree import c45_vector, engine, kernels
    from puretree.c45 import C45Splits, c45
    from puretree.ensemble import random_forest
    from puretree.grow import cart

    expect_kernel = sys.argv[1] == "kernel"
    rng = np.random.default_rng(0)
    shapes = [(1, 1, 1), (2, 1, 2), (3, 2, 2), (40, 1, 2), (50, 3, 3), (120, 4, 12), (300, 5, 4)]
    for n, q, k in shapes:
        for values in (3, 50):
            X = rng.integers(0, values, size=(n, q)).astype(float)
            y = rng.integers(0, k, size=n)
            w = rng.random(n) + 0.1
            with mock.patch.object(engine, "_kernel_tree", wraps=engine._kernel_tree) as spy, mock.patch.object(kernels, "PARALLEL_MIN_WORK", 0):
                assert cart(X, y) == cart(X, y, engine="reference")
                assert cart(X, y, max_depth=2, min_samples_leaf=2) == cart(X, y, max_depth=2, min_samples_leaf=2, engine="reference")
                weighted = cart(X, y, sample_weight=w)
                drawn = {"max_features": max(1, q // 2), "seed": (1, n)}  # nodes of 33 to 74 rows sort their ranks by radix
                assert cart(X, y, **drawn) == cart(X, y, engine="reference", **drawn)
                # a forest: shared sorted columns (subset_orders), threads, the out-of-bag walk
                forest = random_forest(X, y, n_trees=3, seed=n, max_features=max(1, q // 2), n_jobs=2)
                assert forest == random_forest(X, y, n_trees=3, seed=n, max_features=max(1, q // 2), n_jobs=1)
            assert spy.called == expect_kernel, "the kernel did not grow these trees"
            assert abs(sum(weighted.root.counts) - w.sum()) <= 1e-9 * w.sum()
            with mock.patch.multiple(c45_vector, KERNEL=True, KERNEL_MIN_WORK=0):
                assert c45(X, y) == c45(X, y, splitters=(C45Splits(vectorised=False),))
    print("kernel" if kernels.library() is not None else "numpy")
    """
)


def run_python(code: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], env={**os.environ, **env}, capture_output=True, text=True, timeout=600)


def test_without_a_compiler_the_numpy_engine_grows_every_tree(tmp_path):
    # PURETREE_CC names a missing program: no kernel, from the start; the same trees
    done = run_python(FITS, "numpy", env={"PURETREE_CC": str(tmp_path / "no-such-cc"), "XDG_CACHE_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["numpy"]
    assert not (tmp_path / "puretree").exists()


def test_a_compiler_that_fails_leaves_the_numpy_engine(tmp_path):
    # a compiler that exits with an error: AVAILABLE turns False at the first fit, no file is left
    failing = shutil.which("false")
    code = "from puretree import kernels; assert kernels.AVAILABLE; print(kernels.library(), kernels.AVAILABLE)"
    done = run_python(code, env={"PURETREE_CC": failing, "XDG_CACHE_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["None", "False"]
    assert list((tmp_path / "puretree").iterdir()) == []
    done = run_python(FITS, "numpy", env={"PURETREE_CC": failing, "XDG_CACHE_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr


def test_two_processes_compiling_at_once_share_one_library(tmp_path):
    # each compiles into a temporary file and renames it: one whole library, no leftovers
    code = "from puretree import kernels; print(kernels.library() is not None)"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    children = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [child.communicate(timeout=600)[0] for child in children]
    assert [child.returncode for child in children] == [0, 0] and outputs == ["True\n", "True\n"]
    assert [p.suffix for p in (tmp_path / "puretree").iterdir()] == [".so"]
    # a later process loads it from the cache and grows the reference's trees
    done = run_python(FITS, "kernel", env={"XDG_CACHE_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["kernel"]


def test_without_a_cache_folder_the_library_is_compiled_for_the_process(tmp_path):
    # XDG_CACHE_HOME is a file: no cache folder can be made; the library is compiled into a
    # temporary folder (removed once it is loaded) and the fits still use it
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    done = run_python(FITS, "kernel", env={"XDG_CACHE_HOME": str(blocker)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["kernel"]
    assert blocker.read_text() == ""


def test_the_c_code_reads_within_its_arrays(tmp_path):
    # the same fits with the library built under AddressSanitizer and UndefinedBehaviorSanitizer
    # (any out-of-bounds access or undefined operation aborts the child)
    runtime = subprocess.run([shutil.which("gcc") or "gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    assert os.path.isabs(runtime), "gcc's AddressSanitizer runtime is missing"
    env = {
        "XDG_CACHE_HOME": str(tmp_path),
        "PURETREE_CC": shutil.which("gcc") or "gcc",
        "PURETREE_CFLAGS": "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer",
        "LD_PRELOAD": runtime,
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
    }
    done = run_python(FITS, "kernel", env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["kernel"]


def test_the_wheel_ships_the_c_source_and_it_compiles_from_there(tmp_path):
    # pyproject.toml ships puretree/_kernel.c; an installed copy compiles it into its user cache
    import zipfile
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(root)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (wheel,) = tmp_path.glob("puretree-*.whl")
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    assert (site / "puretree" / "_kernel.c").read_bytes() == (root / "puretree" / "_kernel.c").read_bytes()
    code = "import sys; sys.path.insert(0, sys.argv[1]); from puretree import kernels; assert kernels.__file__.startswith(sys.argv[1]); print(kernels.library() is not None)"
    done = subprocess.run([sys.executable, "-c", code, str(site)], env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"]
    assert len(list((tmp_path / "cache" / "puretree").glob("kernel-*.so"))) == 1
