"""A compiled growth kernel (C, ``puretree/growth/_kernel.c``) for the common case of :mod:`puretree.growth.engine`.

The common case: classification, numeric features only, no missing value, the built-in
Gini impurity decrease (``impurity_decrease(gini)``, CART's default), any row weights, no
``accept`` hook, exact thresholds. :func:`puretree.growth.engine.build` hands such a fit to
:func:`grow_arrays`; everything else (user scores, which stay plain Python functions over
count arrays, categorical features, missing values, histogram mode, regression) keeps the
numpy engine. Both grow the reference's tree (tests/test_kernels.py and tests/test_engine.py
compare them with :func:`puretree.grow.grow` ``engine="reference"``).

How it grows: one stable presorted order of the rows per feature (plus one in row order),
kept sorted within each node by stable partitioning in place, level after level. Every node
of a level is a segment ``[start, end)`` of every order. A node's best threshold per feature
is found by passes along its segment. Levels with little work run on one core (a chain
10,000 levels deep is one call of the C code); wider levels share their features between the
cores (POSIX threads). Memory: the data as given (read in place), the orders (int32,
features + 1 rows) and the nodes made, whatever the depth.

Feature subsampling (``max_features``, random forests): each node draws its features in C,
the very set :func:`puretree.splits.node_features` draws with numpy (:func:`draw_features`:
numpy's ``SeedSequence``, PCG64 and ``Generator.choice`` reproduced), and only those are
scanned, each along the node's own rows sorted by it on demand (by their ranks in the
feature's presorted order, which is the order partitioning would keep); only the rows' own
order is partitioned from level to level. A node then costs the work of its drawn features,
not of all of them. Fits of one array's row subsets (a forest's members) can start from
orders sorted once (:func:`presort`, :func:`subset_orders`, :func:`shared_presort`).

Ties break as the reference breaks them because the scores are the reference's numbers:
the same formulas in the same order (:func:`puretree.impurity.gini`'s proportions first,
:func:`puretree.impurity.sum_last`'s order of addition, a branch's weight as its share of
the parent), the first threshold within :data:`~puretree.splits.TIE_TOLERANCE` (handed to the C at each fit) of a feature's
best, then the first feature within it of the node's best. The C is compiled without
``-ffast-math`` and with ``-ffp-contract=off`` (no fused multiply-adds), so each operation
rounds as numpy's does.

The library is compiled when the package is built (``setup.py``: setuptools, into
``puretree/growth/_kernel_lib.so``, ``.dylib`` or ``.dll``, shipped inside the platform wheel) and
loaded from the package's folder with :mod:`ctypes` at the first fit that needs it (a few
milliseconds); nothing is compiled or written at run time. Before it is loaded it is checked
against its record (:data:`RECORD`, written at build: its size and SHA-256, and its source's): a
library that is missing, cut short, replaced by another or older than the source next to it is
never loaded. Then, and where the package was built without a C compiler, :data:`AVAILABLE`
turns False, the first fit warns once (:class:`puretree.errors.KernelUnavailableWarning`, which
says why and how to get the compiled kernel) and the numpy engine grows every tree, the same
trees, slower. :mod:`puretree.growth.c45_kernel` loads the same library. ``$PURETREE_KERNEL_DIR``
names another folder holding a library and its record (the tests load a sanitized build so).

A long fit stops on Ctrl-C within a feature's pass: in the main thread the C runs in a helper
thread while the main thread waits for it, and a ``KeyboardInterrupt`` asks it to stop
(:func:`_interruptible`).

>>> import numpy as np
>>> if AVAILABLE:
...     out = grow_arrays(np.array([[1.0], [2.0], [3.0], [4.0]]), np.array([0, 0, 1, 1]), None, 2,
...                       np.array([2.0, 2.0]), min_samples_split=2.0, min_samples_leaf=1.0,
...                       max_depth=None, min_gain=None)
...     feature, threshold, child, counts = out
...     assert threshold[0] == 2.5 and child[0] == 1 and counts[1:3].tolist() == [[2.0, 0.0], [0.0, 2.0]]
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import math
import os
import threading
import warnings
from pathlib import Path
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .. import splits
from ..errors import KernelUnavailableWarning

__all__ = [
    "AVAILABLE",
    "MAX_CLASSES",
    "MAX_ROWS",
    "MAX_WEIGHT",
    "MIN_WEIGHT",
    "MAX_DRAW",
    "RECORD",
    "REMEDY",
    "SCREEN",
    "draw_features",
    "folder",
    "fits",
    "gini",
    "gini_decrease",
    "grow_arrays",
    "library",
    "loaded",
    "presort",
    "recording",
    "seed_entropy",
    "shared_presort",
    "subset_orders",
    "unavailable_reason",
    "walk",
]

#: The record the build writes next to the library (``setup.py``): a JSON object with the
#: library's file name, its size and SHA-256, and the SHA-256 of the source it was built from.
RECORD = "_kernel_lib.json"

#: The C source's name (in a source tree, next to the library: a library older than it is stale).
SOURCE = "_kernel.c"

#: Whether the compiled kernel may run here: True until loading it fails (then False for good).
AVAILABLE = True

_LIBRARY: Any = None
_REASON: str | None = None
_LOADING = threading.Lock()


class _Unavailable(Exception):
    """Why the library cannot be loaded (the text of the warning)."""


class _Tree(ctypes.Structure):
    """``pt_tree``: the grown tree's arrays, allocated by the C code (freed by ``pt_free``)."""

    _fields_ = [
        ("n_nodes", ctypes.c_int64),
        ("feature", ctypes.POINTER(ctypes.c_int64)),
        ("threshold", ctypes.POINTER(ctypes.c_double)),
        ("child", ctypes.POINTER(ctypes.c_int64)),
        ("counts", ctypes.POINTER(ctypes.c_double)),
    ]


def _declare(lib: Any) -> Any:
    """The C functions' signatures."""
    p, i64, f64, i32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_double, ctypes.c_int
    lib.pt_grow.argtypes = [p, i64, i64, i64, i64, p, p, i64, p, p, f64, f64, i64, f64, i32, i64, i32, i64, p, i64, f64, f64, i64, p, ctypes.POINTER(_Tree)]
    lib.pt_grow.restype = i32
    lib.pt_free.argtypes = [ctypes.POINTER(_Tree)]
    lib.pt_free.restype = None
    lib.pt_draw_features.argtypes = [p, i64, p, i64, i64, i64, i64, p]
    lib.pt_draw_features.restype = i32
    lib.pt_subset_orders.argtypes = [p, i64, i64, p, i64, p]
    lib.pt_subset_orders.restype = i32
    lib.pt_walk.argtypes = [p, p, p, i64, p, i64, i64, i64, i64, p]
    lib.pt_walk.restype = i32
    lib.pt_gini.argtypes = [p, i64]
    lib.pt_gini.restype = f64
    lib.pt_gini_decrease.argtypes = [f64, p, p, i64]
    lib.pt_gini_decrease.restype = f64
    lib.pt_c45_scan.argtypes = [p, p, i64, i64, p, i64, i64, p, i64, f64, i64, f64, f64, f64, p, p, p, p, p]
    lib.pt_c45_scan.restype = i32
    return lib


def folder() -> Path:
    """Where the library and its record are: ``$PURETREE_KERNEL_DIR`` if set, else the package's folder."""
    chosen = os.environ.get("PURETREE_KERNEL_DIR", "").strip()
    return Path(chosen) if chosen else Path(__file__).parent


def _sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest() if hasattr(hashlib, "file_digest") else hashlib.sha256(f.read()).hexdigest()


def _checked(where: Path) -> Path:
    """The library's path in ``where`` once it matches its record (else :class:`_Unavailable`):
    a damaged or foreign file is never mapped (a library cut short kills a process that
    maps it with SIGBUS; another library lacks the functions)."""
    try:
        facts = json.loads((where / RECORD).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _Unavailable(f"no compiled kernel in {where} (puretree was built without a C compiler, or compiling failed)") from None
    except (OSError, ValueError) as error:
        raise _Unavailable(f"its record {where / RECORD} cannot be read ({error})") from None
    if not isinstance(facts, dict) or not all(isinstance(facts.get(key), kind) for key, kind in (("library", str), ("size", int), ("sha256", str))):
        raise _Unavailable(f"its record {where / RECORD} is not a kernel record")
    path = where / Path(facts["library"]).name  # never outside the folder
    try:
        size, digest = path.stat().st_size, _sha256(path)
    except OSError as error:
        raise _Unavailable(f"the library {path} cannot be read ({error.strerror or error})") from None
    if size != facts["size"] or digest != facts["sha256"]:
        raise _Unavailable(f"the library {path} is not the one built ({size} bytes, SHA-256 {digest[:12]}..., where the build recorded {facts['size']} bytes, {facts['sha256'][:12]}...): damaged or replaced")
    built = {SOURCE: facts.get("source_sha256"), **(facts.get("sources") or {})}  # every source compiled in, by its path in the package
    for name, digest in built.items():
        source = where / name
        if source.is_file() and _sha256(source) != digest:
            raise _Unavailable(f"the library {path} is older than {source}: rebuild it (pip install -e . or python setup.py build_ext --inplace)")
    return path


def _load() -> Any:
    """The checked library, loaded and its functions declared (else :class:`_Unavailable`)."""
    path = _checked(folder())
    try:
        return _declare(ctypes.CDLL(str(path)))
    except (OSError, AttributeError) as error:  # not a library here, or not puretree's
        raise _Unavailable(f"the library {path} does not load as puretree's kernel ({error})") from None


#: What the warning adds: how to get the compiled kernel, and how to choose numpy quietly.
REMEDY = (
    "install a puretree wheel built for this platform, or reinstall puretree from source with a C compiler on the PATH "
    "(pip install --force-reinstall --no-binary puretree puretree; in a source tree: pip install -e .). "
    "engine='numpy' or PURETREE_ENGINE=numpy chooses the numpy engine without this warning"
)


def library() -> Any:
    """The compiled library (a :class:`ctypes.CDLL`), checked and loaded on the first call; None
    where it is unavailable (then :data:`AVAILABLE` turns False, and the first call warns once with
    :class:`~puretree.errors.KernelUnavailableWarning`) or disabled (``AVAILABLE = False``)."""
    global _LIBRARY, _REASON, AVAILABLE
    if _LIBRARY is None and _REASON is None and AVAILABLE:
        with _LOADING:  # one thread loads; the others wait for its library
            if _LIBRARY is None and _REASON is None:
                try:
                    _LIBRARY = _load()
                except _Unavailable as why:
                    _REASON = str(why)
                    AVAILABLE = False
                    if os.environ.get("PURETREE_ENGINE", "").strip() != "numpy":  # numpy chosen: nothing to warn of
                        warnings.warn(
                            f"puretree's compiled growth kernel is unavailable: {why}. Fits use the numpy engine (the same trees, slower). For the compiled kernel, {REMEDY}.",
                            KernelUnavailableWarning,
                            stacklevel=2,
                        )
    return _LIBRARY if AVAILABLE else None


def unavailable_reason() -> str | None:
    """Why the library could not be loaded (None: it was, or has not been tried yet)."""
    return _REASON


def loaded() -> bool:
    """Whether the library has been loaded in this process."""
    return _LIBRARY is not None


#: Least work (rows x features) of a level shared between the cores: below it, waking the
#: other threads costs more than it saves (on a busy machine, a scheduler's time slice).
PARALLEL_MIN_WORK = 200_000

#: Positions whose ranking value comes within this share of the node's weight of the best
#: are scored with the reference's formula (the C code's ``screen``); rounding moves the
#: ranking by ~1e-14 of it, and ties are :data:`~puretree.splits.TIE_TOLERANCE` (1e-12) apart.
SCREEN = 1e-9

#: Largest total weight the kernel takes: squares of class counts stay finite.
MAX_WEIGHT = 1e150
#: Smallest row weight it takes: squares of class counts stay normal floats (no underflow),
#: so that the ranking keeps its precision.
MIN_WEIGHT = 1e-100

#: A row-major ``X`` larger than this (about a core's own cache) is copied column-major first:
#: the kernel reads a feature's values in the order of its rows' ranks, which stays within one
#: column of the copy and jumps across rows of ``X`` (on 100,000 x 20 the copy halves the
#: kernel's time for 16 MB more, well within the memory target of docs/benchmarks.md).
COLUMN_COPY_BYTES = 256 * 2**10

#: Largest class count whose sums the kernel adds in numpy's order (pairwise blocks of 8).
MAX_CLASSES = 128

#: Most rows the kernel takes (its orders are int32).
MAX_ROWS = 2**31 - 2


def _pointer(a: np.ndarray) -> int:
    return a.ctypes.data


def gini(counts: np.ndarray) -> float:
    """The kernel's Gini impurity of one count vector (for the tests: the reference's float).

    >>> if AVAILABLE:
    ...     assert gini(np.array([1.0, 1.0])) == 0.5
    """
    c = np.ascontiguousarray(counts, dtype=np.float64)
    return float(_required().pt_gini(_pointer(c), len(c)))


def gini_decrease(g_parent: float, left: np.ndarray, right: np.ndarray) -> float:
    """The kernel's Gini decrease of a split of a node of impurity ``g_parent`` into ``left``
    and ``right`` (for the tests: the reference's float).

    >>> if AVAILABLE:
    ...     assert gini_decrease(0.5, np.array([1.0, 0.0]), np.array([0.0, 1.0])) == 0.5
    """
    a, b = np.ascontiguousarray(left, dtype=np.float64), np.ascontiguousarray(right, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("left and right must be count vectors of one length")
    return float(_required().pt_gini_decrease(float(g_parent), _pointer(a), _pointer(b), len(a)))


def _required() -> Any:
    lib = library()
    if lib is None:
        raise RuntimeError(f"puretree.growth.kernels: no compiled kernel here ({unavailable_reason() or 'disabled'})")
    return lib


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


#: Most features a node may draw from (numpy's ``choice`` takes another route above it).
MAX_DRAW = 10_000


def seed_entropy(key: tuple[int, ...]) -> np.ndarray:
    """The entropy words (uint32) of ``SeedSequence(key[0], spawn_key=(*key[1:], 1))``, the
    generator of a root's feature draw (:func:`puretree.splits.node_features`); a node's path
    adds one word per branch. As numpy assembles them: each integer as little-endian 32-bit
    words (0 as one word), the seed's padded with zeros to four words.

    >>> seed_entropy((0, 5)).tolist(), seed_entropy((2**32 + 3,)).tolist()
    ([0, 0, 0, 0, 5, 1], [3, 1, 0, 0, 1])
    """

    def words(v: int) -> list[int]:
        out = [v & 0xFFFFFFFF]
        while v > 0xFFFFFFFF:
            v >>= 32
            out.append(v & 0xFFFFFFFF)
        return out

    run = words(int(key[0]))
    run += [0] * (4 - len(run))
    spawn = [w for v in (*key[1:], 1) for w in words(int(v))]
    return np.array(run + spawn, dtype=np.uint32)


def draw_features(n_features: int, max_features: int, key: tuple[int, ...], path: tuple[int, ...]) -> np.ndarray:
    """The kernel's draw of the features node ``path`` may split on (for the tests: the very
    set :func:`puretree.splits.node_features` draws with numpy).

    >>> from puretree.splits import node_features
    >>> if AVAILABLE:
    ...     assert draw_features(64, 8, (3, 7), (0, 1, 1)).tolist() == node_features(64, 8, (3, 7), (0, 1, 1)).tolist()
    """
    entropy = seed_entropy(key)
    words = np.array([w for v in path for w in ((v,) if v <= 0xFFFFFFFF else ())], dtype=np.uint32)
    if len(words) != len(path) or not 1 <= max_features <= n_features <= MAX_DRAW:
        raise ValueError("puretree.growth.kernels: draws take 1 <= max_features <= n_features <= MAX_DRAW and branches below 2**32")
    allowed = np.zeros(n_features, dtype=np.uint8)
    code = _required().pt_draw_features(_pointer(entropy), len(entropy), _pointer(words) if len(words) else None, len(words), n_features, max_features, MAX_DRAW, _pointer(allowed))
    if code != 0:  # pragma: no cover - the arguments are checked above
        raise ValueError("puretree.growth.kernels: bad draw")
    return np.flatnonzero(allowed)


_FITS = [0]
_RECORDER = threading.local()


@contextlib.contextmanager
def recording() -> Iterator[list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]]:
    """Within the block, every tree this thread grows with :func:`grow_arrays` is also kept, as
    its arrays, in the list given (a forest's out-of-bag score walks its members' arrays
    instead of their nodes).

    >>> with recording() as grown:
    ...     pass
    >>> grown
    []
    """
    got: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    outer = getattr(_RECORDER, "into", None)
    _RECORDER.into = got
    try:
        yield got
    finally:
        _RECORDER.into = outer


def fits() -> int:
    """How many trees the kernel has grown in this process (an ensemble checks whether its
    first member went through the kernel, whose calls let other threads run)."""
    return _FITS[0]


def walk(feature: np.ndarray, threshold: np.ndarray, child: np.ndarray, X: np.ndarray) -> np.ndarray:
    """The node each row of ``X`` (no NaN) ends in, down a threshold tree's arrays: node ``g``
    is a leaf when ``child[g] < 0``, else ``x[feature[g]] <= threshold[g]`` goes to ``child[g]``
    and the rest to ``child[g] + 1`` (children after their parents).

    >>> if AVAILABLE:
    ...     ends = walk(np.array([0, 0, 0]), np.array([1.5, 0.0, 0.0]), np.array([1, -1, -1]), np.array([[1.0], [2.0]]))
    ...     assert ends.tolist() == [1, 2]
    """
    f = np.ascontiguousarray(feature, dtype=np.int64)
    t = np.ascontiguousarray(threshold, dtype=np.float64)
    c = np.ascontiguousarray(child, dtype=np.int64)
    X = X if X.dtype == np.float64 and X.ndim == 2 else np.asarray(X, dtype=np.float64)
    if not (len(f) == len(t) == len(c) > 0) or X.ndim != 2:
        raise ValueError("puretree.growth.kernels: a tree's arrays of one length and a 2-d X")
    out = np.empty(X.shape[0], dtype=np.int64)
    rs, cs = (s // X.itemsize for s in X.strides)
    if _required().pt_walk(_pointer(f), _pointer(t), _pointer(c), len(c), _pointer(X), X.shape[0], X.shape[1], rs, cs, _pointer(out)) != 0:
        raise ValueError("puretree.growth.kernels: not a threshold tree's arrays (children after parents, features within X)")
    return out


#: Arrays whose presorted orders fits share (:func:`shared_presort`): id -> (X, its orders).
_SHARED: dict[int, tuple[np.ndarray, np.ndarray]] = {}
_SHARED_LOCK = threading.Lock()


def presort(X: np.ndarray) -> np.ndarray:
    """The orders the kernel starts from: ``(features + 1, rows)`` int32, row ``f`` the rows
    sorted by column ``f`` of ``X`` stably (equal values in row order, NaN last), the last row
    the rows in their own order.

    >>> presort(np.array([[2.0, 0.0], [1.0, 0.0], [2.0, -1.0]])).tolist()
    [[1, 0, 2], [2, 0, 1], [0, 1, 2]]
    """
    return _orders(np.asarray(X, dtype=np.float64))


def subset_orders(orders: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The orders of ``X[keep]`` (a boolean mask of the rows) from those of ``X``: each sorted
    row with the dropped rows taken out (a stable sort's order stays one) and the others
    renumbered; far cheaper than sorting again.

    >>> X = np.array([[2.0], [1.0], [3.0], [1.0]])
    >>> keep = np.array([True, False, True, True])
    >>> if AVAILABLE:
    ...     assert subset_orders(presort(X), keep).tolist() == presort(X[keep]).tolist() == [[2, 0, 1], [0, 1, 2]]
    """
    keep = np.ascontiguousarray(keep, dtype=bool)
    orders = np.ascontiguousarray(orders, dtype=np.int32)
    if orders.ndim != 2 or keep.shape != (orders.shape[1],):
        raise ValueError(f"puretree.growth.kernels: a mask of {keep.shape} for orders shaped {orders.shape}")
    m = int(np.count_nonzero(keep))
    room = np.empty(orders.shape[0] * m + 1, dtype=np.int32)  # + 1: the C code's spare entry
    code = _required().pt_subset_orders(_pointer(orders), orders.shape[0], orders.shape[1], _pointer(keep), m, _pointer(room))
    if code != 0:
        raise ValueError("puretree.growth.kernels: these orders are not permutations of the rows")
    return room[:-1].reshape(orders.shape[0], m)


@contextlib.contextmanager
def shared_presort(X: np.ndarray, orders: np.ndarray) -> Iterator[None]:
    """Within the block, fits of this very array ``X`` start from ``orders`` (:func:`presort`'s,
    which the caller may have derived more cheaply, e.g. by :func:`subset_orders`) instead of
    sorting its columns, each from a copy (the kernel partitions its orders in place). The
    caller owns ``X`` and does not change it meanwhile.

    >>> X = np.array([[2.0], [1.0]])
    >>> with shared_presort(X, presort(X)):
    ...     id(X) in _SHARED
    True
    >>> id(X) in _SHARED
    False
    """
    if orders.shape != (X.shape[1] + 1, X.shape[0]) or orders.dtype != np.int32:
        raise ValueError(f"puretree.growth.kernels: orders shaped {orders.shape} ({orders.dtype}) are not presort's for X shaped {X.shape}")
    with _SHARED_LOCK:
        mine = id(X) not in _SHARED
        if mine:
            _SHARED[id(X)] = (X, orders)
    try:
        yield
    finally:
        if mine:
            with _SHARED_LOCK:
                del _SHARED[id(X)]


def _read_form(X: np.ndarray) -> np.ndarray:
    """``X`` as the kernel reads it: float64, contiguous, column-major when large."""
    X = X if X.dtype == np.float64 and (X.flags.c_contiguous or X.flags.f_contiguous) else np.ascontiguousarray(X, dtype=np.float64)
    if not X.flags.f_contiguous and X.nbytes > COLUMN_COPY_BYTES and X.ndim == 2 and X.shape[1] > 1:
        # every position of a feature's order reads that feature's value of a row: within one
        # column these reads stay in the cache, across rows of a large X each one misses it
        X = np.asfortranarray(X)
    return X


def _sorted_form(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``X`` as the kernel reads it and its presorted orders, which the kernel may change:
    a copy of :func:`shared_presort`'s when ``X`` is there, else sorted here."""
    entry = _SHARED.get(id(X))
    Xr = _read_form(X)
    if entry is not None and entry[0] is X:
        return Xr, entry[1].copy()
    return Xr, _orders(Xr)


def _orders(X: np.ndarray) -> np.ndarray:
    n, q = X.shape
    if not 0 < n <= MAX_ROWS or q < 1:
        raise ValueError(f"puretree.growth.kernels takes 1 to {MAX_ROWS} rows and at least one feature, not {X.shape}")
    # one order of the rows per feature, and one of the rows themselves, each kept sorted
    # within every node's segment by partitioning in place
    orders = np.empty((q + 1, n), dtype=np.int32)
    _presort(X, orders, threads=_cores() if n * q >= PARALLEL_MIN_WORK and q > 1 else 1)
    return orders


def grow_arrays(
    X: np.ndarray, y: np.ndarray, w: np.ndarray | None, k: int, root_counts: np.ndarray, *, min_samples_split: float, min_samples_leaf: float,
    max_depth: int | None, min_gain: float | None, max_features: int | None = None, feature_key: tuple[int, ...] = (0,),
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The tree as arrays: per node its feature (a column of ``X``; -1 for a leaf), threshold,
    first child (the second is the next id; -1 for a leaf) and class counts.

    ``X`` is (rows, features) float64 without NaN, read in place when it is contiguous float64
    and column-major or fits :data:`COLUMN_COPY_BYTES` (else copied column-major); ``y`` the class codes
    (0 .. k - 1), ``w`` the row weights (``None``: 1), ``root_counts`` the root's counts as the
    reference sums them. Children have larger ids than their parents. ``max_features``: each
    node scans only the features :func:`puretree.splits.node_features` draws for it with
    ``feature_key`` (at most :data:`MAX_DRAW` features).
    """
    lib = _required()
    _FITS[0] += 1
    if np.ndim(X) != 2:
        raise ValueError(f"puretree.growth.kernels takes a 2-d X, not {np.shape(X)}")
    X, orders = _sorted_form(X)
    n, q = X.shape
    drawn = 0 if max_features is None else int(max_features)  # 0: every feature, no drawing
    if max_features is not None and not (1 <= drawn <= q <= MAX_DRAW):
        raise ValueError(f"puretree.growth.kernels draws 1 to {q} features of at most {MAX_DRAW}, not {max_features}")
    entropy = seed_entropy(feature_key) if drawn else np.zeros(4, dtype=np.uint32)
    y = np.ascontiguousarray(y, dtype=np.int64)
    w = None if w is None else np.ascontiguousarray(w, dtype=np.float64)
    root_counts = np.ascontiguousarray(root_counts, dtype=np.float64)
    if y.shape != (n,) or (w is not None and w.shape != (n,)) or root_counts.shape != (k,):
        raise ValueError("puretree.growth.kernels: y, w and root_counts do not match X and k")
    wide = n * q >= PARALLEL_MIN_WORK and q > 1
    threads = _cores() if wide else 1
    rows_stride, column_stride = (s // X.itemsize for s in X.strides)
    tree = _Tree()
    # ctypes lets go of the GIL for the call: fits in other threads go on meanwhile
    code = _interruptible(lambda cancel: lib.pt_grow(
        _pointer(X), n, q, rows_stride, column_stride, _pointer(y), None if w is None else _pointer(w), int(k), _pointer(root_counts), _pointer(orders),
        float(min_samples_split), float(min_samples_leaf), -1 if max_depth is None else int(max_depth),
        0.0 if min_gain is None else float(min_gain), min_gain is not None, PARALLEL_MIN_WORK, threads,
        drawn, _pointer(entropy), len(entropy), splits.TIE_TOLERANCE, SCREEN, MAX_DRAW, ctypes.byref(cancel), ctypes.byref(tree),
    ), work=float(n) * q * (n if max_depth is None else min(n, int(max_depth) + 1)))  # fmt: skip
    if code == 1:
        raise MemoryError("puretree.growth.kernels: out of memory growing the tree")
    if code == 3:  # pragma: no cover - _interruptible raises the interrupt that asked for it
        raise KeyboardInterrupt
    if code != 0:
        raise ValueError("puretree.growth.kernels: class codes outside 0 .. k - 1")
    try:
        m = tree.n_nodes
        feature = np.ctypeslib.as_array(tree.feature, shape=(m,)).copy()
        threshold = np.ctypeslib.as_array(tree.threshold, shape=(m,)).copy()
        child = np.ctypeslib.as_array(tree.child, shape=(m,)).copy()
        counts = np.ctypeslib.as_array(tree.counts, shape=(m * k,)).reshape(m, k).copy()
    finally:
        lib.pt_free(ctypes.byref(tree))
    into = getattr(_RECORDER, "into", None)
    if into is not None:
        into.append((feature, threshold, child, counts))
    return feature, threshold, child, counts


#: Fits whose work may exceed this many row visits (rows x features x levels, the levels at most
#: the rows or the depth limit; about a second of the C) run in a helper thread, interruptible;
#: smaller ones, which end sooner than a Ctrl-C would be noticed, skip the thread's hand-off.
INTERRUPTIBLE_WORK = 10**9


def _interruptible(call: Callable[[ctypes.c_int], int], *, work: float = math.inf) -> int:
    """``call(cancel)``, a compiled call that stops soon after ``cancel`` turns non-zero.

    Python runs signal handlers in the main thread only, between its own bytecodes, so a long
    C call there would hold Ctrl-C back until it returns. In the main thread a call whose
    ``work`` may reach :data:`INTERRUPTIBLE_WORK` runs in a helper thread (ctypes lets go of the
    GIL) while the main thread waits for it, interruptibly: a ``KeyboardInterrupt`` (or any
    exception) sets the flag, the C code returns within a feature's pass, and the exception
    goes on. Elsewhere the call runs where it is.

    >>> _interruptible(lambda cancel: cancel.value + 7), _interruptible(lambda cancel: 8, work=10)
    (7, 8)
    """
    cancel = ctypes.c_int(0)
    if work < INTERRUPTIBLE_WORK or threading.current_thread() is not threading.main_thread():
        return call(cancel)
    outcome: list[Any] = []

    def target() -> None:
        try:
            outcome.append((True, call(cancel)))
        except BaseException as error:  # handed to the main thread
            outcome.append((False, error))

    worker = threading.Thread(target=target, name="puretree-kernel", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.25)  # a wait with a timeout: interruptible on every platform
    except BaseException:
        cancel.value = 1
        worker.join()
        raise
    done, value = outcome[0]
    if not done:
        raise value
    return int(value)


def _presort(X: np.ndarray, orders: np.ndarray, *, threads: int) -> None:
    """``orders[f]``: the rows sorted by column ``f`` of ``X``, stably (equal values in row
    order), one column at a time (numpy's sort releases the GIL, so ``threads`` sort
    columns side by side); the last row of ``orders`` is the rows in their own order."""
    q = X.shape[1]

    def one(f: int) -> None:
        orders[f] = np.argsort(X[:, f], kind="stable")

    if threads > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(threads, q)) as pool:
            list(pool.map(one, range(q)))
    else:
        for f in range(q):
            one(f)
    orders[q] = np.arange(X.shape[0])
