"""The compiled kernel (:mod:`puretree.growth.kernels`, C) grows the reference builder's tree.

``cart`` on numeric data without missing values (Gini, CART's default) is grown by the
kernel; these properties compare it with :func:`puretree.grow.grow` ``engine="reference"``
(the recursive specification) and with the numpy engine it replaces there:

- unweighted: ``==`` (every statistic an integer, every score the reference's very number);
- weighted: the same structure with counts equal to 1e-9 relative (:func:`same_tree`).

Every property also checks that the kernel did grow the tree (``_kernel_tree`` was called),
and one runs every level of more than one feature on both cores (``PARALLEL_MIN_WORK=0``).
The kernel is compiled when the package is installed (``make test`` installs it with ``pip
install -e .``, which builds it in place), so it is there to be tested; without it fits use the
numpy engine, which a subprocess checks with ``PURETREE_KERNEL_DIR`` naming an empty folder.
The engines are chosen the public way (``engine="c" | "numpy"``, ``PURETREE_ENGINE``). The C
code is also built with AddressSanitizer and UndefinedBehaviorSanitizer and run on drawn data.
How the library is built, shipped, checked and interrupted: tests/test_kernel_build.py.
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

import puretree
from puretree import splits
from puretree.growth import engine, kernels
from puretree.criteria import impurity_decrease
from puretree.data import Dataset
from puretree.errors import ParameterError
from puretree.grow import cart
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
    with mock.patch.object(engine, "_kernel_tree") as never:
        numpy_engine = cart(ds, engine="numpy", **options)
    assert not never.called
    return fast, numpy_engine, cart(ds, engine="reference", **options)


def test_the_kernel_is_compiled_for_the_tests():
    # make test installs the package with its compiled kernel (never skipped): it must be there
    assert kernels.library() is not None and kernels.AVAILABLE, kernels.unavailable_reason()


def test_the_c_takes_the_tie_tolerance_from_python():
    # one tie tolerance (puretree.splits.TIE_TOLERANCE), handed to the C at each fit: feature 1
    # splits perfectly (gain 0.5), feature 0 not (0.25); with a tolerance of 0.5 they tie, and
    # the kernel, numpy and the reference all take the first
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0]])
    y = np.array([0, 0, 0, 1, 1, 1])
    usual = cart(X, y, engine="c", max_depth=1)
    assert usual == cart(X, y, engine="reference", max_depth=1) and usual.root.feature == 1
    with mock.patch.object(splits, "TIE_TOLERANCE", 0.5):
        tied = cart(X, y, engine="c", max_depth=1)
        assert tied == cart(X, y, engine="reference", max_depth=1) == cart(X, y, engine="numpy", max_depth=1)
    assert tied.root.feature == 0


def test_engines_are_chosen_by_name_or_by_the_environment(monkeypatch):
    X = np.array([[1.0, 5.0], [2.0, 4.0], [3.0, 3.0], [4.0, 1.0]])
    y = ["a", "a", "b", "b"]
    ref = cart(X, y, engine="reference")
    for name, uses_kernel in (("c", True), ("numpy", False), ("fast", True), ("auto", True), ("reference", False)):
        before = kernels.fits()
        assert cart(X, y, engine=name) == ref
        assert kernels.fits() == before + uses_kernel, name
    for value, uses_kernel in (("numpy", False), ("reference", False), ("c", True)):
        monkeypatch.setenv("PURETREE_ENGINE", value)
        before = kernels.fits()
        assert cart(X, y) == ref
        assert kernels.fits() == before + uses_kernel, value
        assert cart(X, y, engine="c") == ref  # an engine given wins over the environment
    # numpy chosen by the environment is a preference: every fit the default grows still grows,
    # C4.5's compiled scan stays out too
    monkeypatch.setenv("PURETREE_ENGINE", "numpy")
    from puretree.growth import c45_cuts
    from puretree.c45 import c45

    assert c45_cuts._compiled(np.array([[0, 1]]), np.array([[0.0, 1.0]]), np.array([[1, 0], [0, 1]]), c45_cuts._table(3), 2.0, 2, 0.0) is None
    assert c45(X, y) == c45(X, y, engine="reference")
    monkeypatch.setenv("PURETREE_ENGINE", "turbo")
    with pytest.raises(ParameterError, match="PURETREE_ENGINE.*'turbo'"):
        cart(X, y)
    monkeypatch.delenv("PURETREE_ENGINE")
    with pytest.raises(ParameterError, match="engine='c' grows classification trees with the built-in Gini"):
        cart(X, y, engine="c", score="entropy")
    with pytest.raises(ParameterError, match="engine='c'"):
        cart(X, y, engine="c", max_bins=4)


def test_engine_c_without_the_kernel_is_a_clear_error():
    X = np.array([[1.0], [2.0]])
    with mock.patch.object(kernels, "AVAILABLE", False), pytest.raises(puretree.PuretreeError, match="engine='c' needs puretree's compiled kernel, which is unavailable"):
        cart(X, ["a", "b"], engine="c")
    assert issubclass(puretree.KernelUnavailableWarning, puretree.PuretreeWarning) and issubclass(puretree.PuretreeWarning, UserWarning)


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


# The library's side: the fallback without it and the C code under sanitizers. Each runs a
# fresh Python (the library is loaded once per process).

#: Fits the kernel must grow as the reference does, on data of many shapes (one row, one
#: feature, ties, 12 classes, weights, levels on both cores); and C4.5's compiled scan.
FITS = textwrap.dedent(
    """
    import sys
    from unittest import mock
    import numpy as np
    from puretree.growth import c45_cuts, engine, kernels
    from puretree.c45 import c45
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
            with mock.patch.multiple(c45_cuts, KERNEL=True, KERNEL_MIN_WORK=0):
                compiled = c45(X, y)
            with mock.patch.multiple(c45_cuts, KERNEL=False):
                assert compiled == c45(X, y)
    print("kernel" if kernels.library() is not None else "numpy")
    """
)


def run_python(code: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], env={**os.environ, **env}, capture_output=True, text=True, timeout=600)


def test_without_the_library_the_numpy_engine_grows_every_tree_and_warns_once(tmp_path):
    # PURETREE_KERNEL_DIR names a folder without a library (a package built without a C
    # compiler): the same trees, every one by numpy, and one warning that says what to do
    done = run_python(FITS, "numpy", env={"PURETREE_KERNEL_DIR": str(tmp_path), "PYTHONWARNINGS": "always::puretree.errors.KernelUnavailableWarning"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["numpy"]
    assert done.stderr.count("KernelUnavailableWarning") == 1, done.stderr
    assert "no compiled kernel in" in done.stderr and "pip install" in done.stderr and "PURETREE_ENGINE=numpy" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_numpy_chosen_by_the_environment_needs_no_library_and_warns_of_none(tmp_path):
    done = run_python(FITS, "numpy", env={"PURETREE_KERNEL_DIR": str(tmp_path), "PURETREE_ENGINE": "numpy", "PYTHONWARNINGS": "always"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["numpy"] and "KernelUnavailableWarning" not in done.stderr


def sanitized_kernel(folder):
    """The kernel built from the source tree with AddressSanitizer and UndefinedBehaviorSanitizer
    into ``folder``, with its record (as setup.py writes it)."""
    import hashlib
    import json
    from pathlib import Path

    source = Path(kernels.__file__).with_name("_kernel.c")
    library = folder / "_kernel_lib.so"
    flags = ["-std=c11", "-O1", "-g", "-ffp-contract=off", "-fPIC", "-shared", "-pthread", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
    subprocess.run([shutil.which("gcc") or "gcc", *flags, "-o", str(library), str(source), "-lm"], check=True, capture_output=True, timeout=300)
    digest = hashlib.sha256(library.read_bytes()).hexdigest()
    facts = {"library": library.name, "size": library.stat().st_size, "sha256": digest, "source_sha256": hashlib.sha256(source.read_bytes()).hexdigest()}
    (folder / "_kernel_lib.json").write_text(json.dumps(facts))
    return library


def test_the_c_code_reads_within_its_arrays(tmp_path):
    # the same fits with the library built under AddressSanitizer and UndefinedBehaviorSanitizer
    # (any out-of-bounds access or undefined operation aborts the child)
    runtime = subprocess.run([shutil.which("gcc") or "gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    assert os.path.isabs(runtime), "gcc's AddressSanitizer runtime is missing"
    library = sanitized_kernel(tmp_path)
    env = {
        "PURETREE_KERNEL_DIR": str(tmp_path),
        "LD_PRELOAD": runtime,
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
    }
    code = "from puretree.growth import kernels; lib = kernels.library(); print(lib._name)"
    done = run_python(code, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == [str(library)]
    done = run_python(FITS, "kernel", env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["kernel"]
