"""The compiled kernel (:mod:`puretree.growth.kernels`, C) scans the sorted source's levels as numpy does.

``cart`` on numeric data without missing values (Gini, CART's default) is grown by the one
frontier loop over the sorted source, whose numeric thresholds the kernel scans level by level
(``scan_level``) and whose orders it partitions (``partition_level``); these properties compare
the trees with :func:`puretree.grow.grow` ``engine="reference"`` (the recursive specification)
and with the numpy scan it replaces there, and the two primitives with numpy's own answers:

- unweighted: ``==`` (every statistic an integer, every score the reference's very number);
- weighted: the same structure with counts equal to 1e-9 relative (:func:`same_tree`).

Every property also checks that the kernel did scan (``scan_level`` was called at every level),
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
from puretree.growth import kernels
from puretree.criteria import impurity_decrease
from puretree.data import Dataset
from puretree.errors import ParameterError
from puretree.grow import cart
from puretree.impurity import gini
from puretree.nodes import NUMERIC
from puretree.strategies import datasets

from test_engine import same_tree

NUMERIC_ONLY = {"kinds": (NUMERIC,)}


@pytest.fixture(autouse=True, scope="module")
def level_by_level():
    """This file's fits scan level by level (the kernel's scan_level and partition_level): a small
    fit would otherwise grow whole in one compiled call, which tests/test_whole_tree.py checks."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(kernels, "WHOLE_TREE_MAX_WORK", 0)
        yield

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
    """The tree grown with the kernel's scans (checked to have scanned every level), the numpy
    engine's and the reference's."""
    from puretree.growth import sorted as sorted_source

    with mock.patch.object(kernels, "scan_level", wraps=kernels.scan_level) as spy, mock.patch.object(sorted_source, "_numeric_candidates", wraps=sorted_source._numeric_candidates) as levels:
        fast = cart(ds, **options)
    assert spy.call_count == (levels.call_count if kernels.AVAILABLE else 0), "the kernel did not scan this tree's levels"
    with mock.patch.object(kernels, "scan_level") as never, mock.patch.object(kernels, "partition_level") as never_moved:
        numpy_engine = cart(ds, engine="numpy", **options)
    assert not never.called and not never_moved.called
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


def test_deep_chain_is_the_reference():
    # a chain: one node per level, 600 levels of the frontier loop
    n = 600
    X = np.arange(n, dtype=np.float64).reshape(-1, 1)
    y = np.arange(n) % 2
    assert cart(X, y) == cart(X, y, engine="reference")


def scanned(fit):
    """Whether ``fit()`` asked the kernel to scan a level."""
    with mock.patch.object(kernels, "scan_level", wraps=kernels.scan_level) as spy:
        fit()
    return spy.called


def test_without_the_kernel_the_numpy_engine_grows_it():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 5, size=(40, 2)).astype(np.float64)
    y = np.array(["a", "b"])[rng.integers(0, 2, size=40)]
    assert scanned(lambda: cart(X, y))  # the kernel scans its levels
    with mock.patch.object(kernels, "AVAILABLE", False):
        assert not scanned(lambda: cart(X, y))
        tree = cart(X, y)
    assert tree == cart(X, y, engine="reference")


def test_the_kernel_declines_what_it_does_not_know():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 5, size=(40, 2)).astype(np.float64)
    y = np.array(["a", "b"])[rng.integers(0, 2, size=40)]
    w = np.ones(40)
    assert scanned(lambda: cart(X, y))  # the control: this fit is the kernel's
    with_nan = X.copy()
    with_nan[3, 1] = np.nan
    assert not scanned(lambda: cart(with_nan, y))  # a missing value
    assert not scanned(lambda: cart(X, y, score="entropy"))  # not Gini
    assert not scanned(lambda: cart(X, rng.random(40), task="regression"))
    assert not scanned(lambda: cart(X, y, sample_weight=np.r_[1e-160, w[1:]]))  # squares underflow
    assert not scanned(lambda: cart(X, y, sample_weight=np.r_[1e200, w[1:]]))  # squares overflow
    many = np.arange(kernels.MAX_CLASSES + 2)
    wide = np.c_[many % 7, many % 5].astype(np.float64)
    assert not scanned(lambda: cart(wide, many, max_depth=3))  # more classes than the kernel adds in numpy's order


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


def test_boosting_fits_in_threads_at_once_are_the_same_models():
    # the kernel's threads are one pool, taken by one parallel region at a time; a boosting
    # fit that finds it taken starts threads of its own: the same models either way
    import importlib
    import threading

    hgb = importlib.import_module("puretree.hist_gradient_boosting")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 6))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=600) > 0).astype(int)
    with mock.patch.object(hgb, "_STEP_MIN_WORK", 0):
        ref = puretree.hist_gradient_boosting(X, y, max_iter=8, min_samples_leaf=5, threads=1)
        models: list = []
        threads = [threading.Thread(target=lambda: models.append(puretree.hist_gradient_boosting(X, y, max_iter=8, min_samples_leaf=5, threads=3))) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(models) == 4 and all(m == ref for m in models)


#: A fork (multiprocessing) while the kernel's pool of threads runs, from the main thread while
#: another one fits: each child fits with threads of its own and gets the parent's model.
FORKS = textwrap.dedent(
    """
    import importlib, multiprocessing, threading
    import numpy as np
    import puretree
    hgb = importlib.import_module("puretree.hist_gradient_boosting")

    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 6))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=600) > 0).astype(int)
    hgb._STEP_MIN_WORK = 0
    fit = lambda: puretree.hist_gradient_boosting(X, y, max_iter=5, min_samples_leaf=5, threads=2)
    ref = fit()  # the pool's helper started

    def child(queue):
        queue.put(fit() == ref)

    stop = threading.Event()
    def busy():
        while not stop.is_set():
            fit()
    side = threading.Thread(target=busy)
    side.start()
    context = multiprocessing.get_context("fork")
    results = []
    for _ in range(12):
        queue = context.Queue()
        process = context.Process(target=child, args=(queue,))
        process.start()
        process.join(60)
        if process.is_alive():
            process.kill()
            results.append("hung")
        else:
            results.append(process.exitcode == 0 and queue.get(timeout=5))
    stop.set()
    side.join()
    print(results)
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="no fork on Windows")
def test_a_fork_while_the_kernels_threads_run_fits_in_the_child():
    done = run_python(FORKS, env={})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == str([True] * 12), done.stdout


# The library's side: the fallback without it and the C code under sanitizers. Each runs a
# fresh Python (the library is loaded once per process).

#: Fits the kernel must grow as the reference does, on data of many shapes (one row, one
#: feature, ties, 12 classes, weights, levels on both cores); and C4.5's compiled scan.
FITS = textwrap.dedent(
    """
    import sys
    from unittest import mock
    import numpy as np
    from puretree.growth import c45_cuts, kernels
    from puretree.c45 import c45
    from puretree.ensemble import random_forest
    from puretree.grow import cart

    expect_kernel = sys.argv[1] == "kernel"
    scans = []
    rng = np.random.default_rng(0)
    shapes = [(1, 1, 1), (2, 1, 2), (3, 2, 2), (40, 1, 2), (50, 3, 3), (120, 4, 12), (300, 5, 4)]
    for n, q, k in shapes:
        for values in (3, 50):
            X = rng.integers(0, values, size=(n, q)).astype(float)
            y = rng.integers(0, k, size=n)
            w = rng.random(n) + 0.1
            with mock.patch.object(kernels, "scan_level", wraps=kernels.scan_level) as spy, mock.patch.object(kernels, "PARALLEL_MIN_WORK", 0):
                assert cart(X, y) == cart(X, y, engine="reference")  # small: grown whole in one compiled call
                with mock.patch.object(kernels, "WHOLE_TREE_MAX_WORK", 0):  # and level by level
                    assert cart(X, y) == cart(X, y, engine="reference")
                assert cart(X, y, max_depth=2, min_samples_leaf=2) == cart(X, y, max_depth=2, min_samples_leaf=2, engine="reference")
                weighted = cart(X, y, sample_weight=w)
                drawn = {"max_features": max(1, q // 2), "seed": (1, n)}
                assert cart(X, y, **drawn) == cart(X, y, engine="reference", **drawn)
                # a forest: shared sorted columns (subset_orders), threads, the out-of-bag walk
                forest = random_forest(X, y, n_trees=3, seed=n, max_features=max(1, q // 2), n_jobs=2)
                assert forest == random_forest(X, y, n_trees=3, seed=n, max_features=max(1, q // 2), n_jobs=1)
            scans.append(spy.called)
            assert abs(sum(weighted.root.counts) - w.sum()) <= 1e-9 * w.sum()
            with mock.patch.multiple(c45_cuts, KERNEL=True, KERNEL_MIN_WORK=0):
                compiled = c45(X, y)
            with mock.patch.multiple(c45_cuts, KERNEL=False):
                assert compiled == c45(X, y)
    assert any(scans) == expect_kernel and (all(scans[6:]) or not expect_kernel), "the kernel did not scan these trees"
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


# The two per-level primitives against numpy's own answers.


def compare_scans(sorted_source):
    """A stand-in for the sorted source's ``_numeric_candidates`` that also checks, at every
    level, the kernel's scan against numpy's (:func:`puretree.growth.sorted._numpy_scan`): the
    same score for every (node, feature) it may split on, the same values either side."""
    original = sorted_source._numeric_candidates
    seen = []

    def checked(st, cfg, ctx):
        if ctx.compiled is not None and ctx.q and st.m >= 2:
            allowed = None if ctx.allowed is None else ctx.allowed[:, ctx.numeric]
            best, lo, hi = kernels.scan_level(ctx.Xn, st.orders, st.row, st.cls, None if st.unit else st.w, ctx.k, st.starts, st.lens, st.node_stats, allowed, min_leaf=cfg.min_samples_leaf)
            fs, fa, fb = sorted_source._numpy_scan(st, cfg, ctx)
            mask = np.ones(fs.shape, dtype=bool) if allowed is None else allowed
            assert np.array_equal(best[mask], np.where(mask, fs, -np.inf)[mask])
            found = mask & np.isfinite(fs)
            assert np.array_equal(lo[found], fa[found]) and np.array_equal(hi[found], fb[found])
            seen.append(st.n_nodes)
        return original(st, cfg, ctx)

    return checked, seen


level_options = st.fixed_dictionaries(
    {},
    optional={"max_depth": st.integers(1, 4), "min_samples_leaf": st.sampled_from([1, 2, 3, 1.5]), "max_features": st.integers(1, 3), "seed": st.integers(0, 100)},
)


@given(ds=datasets(min_rows=4, max_rows=60, max_features=4, max_classes=12, weights=True), weighted=st.booleans(), opts=level_options)
def test_the_kernels_scan_is_numpys_at_every_level(ds, weighted, opts):
    # every level of the sorted source (numeric features with or without categorical ones,
    # weights or not, drawn features): the C scan's answer is numpy's, number for number
    from puretree.growth import sorted as sorted_source

    if not weighted or ds.sample_weight is None:
        ds = Dataset(ds.schema, ds.X, ds.y, None)
    else:  # the weights the kernel takes (huge and tiny ones are numpy's)
        w = np.clip(ds.sample_weight / max(1.0, ds.sample_weight.max() / 1e6), 0.0, None)
        ds = Dataset(ds.schema, ds.X, ds.y, np.where(w > 0, np.maximum(w, kernels.MIN_WEIGHT), 0.0))
    if "max_features" in opts:
        opts["max_features"] = min(opts["max_features"], ds.schema.n_features)
    checked, _ = compare_scans(sorted_source)
    with mock.patch.object(sorted_source, "_numeric_candidates", checked):
        cart(ds, engine="fast", **opts)


def test_the_scan_comparison_sees_wide_levels():
    # the property above is not vacuous: on this fit it compares levels of many nodes
    from puretree.growth import sorted as sorted_source

    rng = np.random.default_rng(3)
    X = rng.integers(0, 9, size=(200, 3)).astype(np.float64)
    y = rng.integers(0, 3, size=200)
    checked, seen = compare_scans(sorted_source)
    with mock.patch.object(sorted_source, "_numeric_candidates", checked):
        cart(X, y, sample_weight=rng.random(200) + 0.5)
    assert max(seen) >= 8


@given(data=st.data(), q=st.integers(0, 4), m=st.integers(0, 60), n_next=st.integers(1, 6))
def test_the_kernels_partition_is_numpys(data, q, m, n_next):
    # each order: a permutation of the instances; the instances that stay are renumbered in
    # order and each given a new node (the new ids sorted by node, as the source makes them)
    orders = np.array([data.draw(st.permutations(range(m))) for _ in range(q)], dtype=np.int32).reshape(q, m)
    stays = np.array(data.draw(st.lists(st.booleans(), min_size=m, max_size=m)), dtype=bool)
    new_id = np.full(m, -1, dtype=np.int32)
    new_id[stays] = data.draw(st.permutations(range(int(stays.sum())))) if stays.any() else []
    node = np.sort(np.array(data.draw(st.lists(st.integers(0, n_next - 1), min_size=int(stays.sum()), max_size=int(stays.sum()))), dtype=np.int64))
    with mock.patch.object(kernels, "PARALLEL_MIN_WORK", 0):
        got = kernels.partition_level(orders, new_id, node, n_next)
    mapped = new_id[orders]
    kept = mapped[mapped >= 0].reshape(q, -1) if q else np.zeros((0, len(node)), dtype=np.int32)
    expected = np.take_along_axis(kept, np.argsort(node[kept], axis=1, kind="stable"), axis=1) if kept.size else kept
    assert got.tolist() == expected.tolist()


def test_the_kernel_refuses_arrays_that_do_not_describe_a_level():
    orders = np.array([[1, 0]], dtype=np.int32)
    with pytest.raises(ValueError, match="do not describe a level"):  # a new id given twice
        kernels.partition_level(orders, np.array([0, 0], dtype=np.int32), np.array([0, 0]), 1)
    with pytest.raises(ValueError, match="do not describe a level"):  # a class code beyond k
        kernels.scan_level(np.array([[1.0, 2.0]]), orders, np.arange(2), np.array([0, 2]), None, 2, np.array([0]), np.array([2]), np.array([[1.0, 1.0]]), None, min_leaf=1.0)
