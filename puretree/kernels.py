"""A compiled growth kernel (C, ``puretree/_kernel.c``) for the common case of :mod:`puretree.engine`.

The common case: classification, numeric features only, no missing value, the built-in
Gini impurity decrease (``impurity_decrease(gini)``, CART's default), any row weights, no
``accept`` hook, exact thresholds. :func:`puretree.engine.build` hands such a fit to
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
the parent), the first threshold within :data:`~puretree.grow.TIE_TOLERANCE` of a feature's
best, then the first feature within it of the node's best. The C is compiled without
``-ffast-math`` and with ``-ffp-contract=off`` (no fused multiply-adds), so each operation
rounds as numpy's does.

The C source ships with the package. The first fit that needs it compiles it with the system
C compiler (:func:`compiler`: ``$PURETREE_CC``, else ``$CC``, else ``cc`` or ``gcc``) into a
per-user cache (:func:`cache_dir`), under a name that hashes the source, the compiler and its
flags; later processes load it from there with :mod:`ctypes` (a few milliseconds). Without a
compiler, or when compiling fails, :data:`AVAILABLE` is False and the numpy engine grows every
tree, the same trees, slower. :mod:`puretree.c45_kernel` loads the same library.

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
import os
import platform
import shlex
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = [
    "AVAILABLE",
    "CFLAGS",
    "MAX_CLASSES",
    "MAX_ROWS",
    "MAX_WEIGHT",
    "MIN_WEIGHT",
    "TIE_TOLERANCE",
    "MAX_DRAW",
    "cache_dir",
    "compiler",
    "draw_features",
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
    "walk",
]

#: The C source, shipped as package data.
SOURCE = Path(__file__).with_name("_kernel.c")

#: How the source is compiled: optimised, but every floating-point operation as written (no
#: fused multiply-add, no -ffast-math), so the scores are the reference's floats. ``$PURETREE_CFLAGS``
#: adds flags (the tests build a sanitized copy with it); they take part in the cache key.
CFLAGS = ("-O2", "-ffp-contract=off", "-std=c11", "-fPIC", "-shared", "-pthread")

#: Longest a compilation may take (seconds) before the kernel is given up for this process.
COMPILE_TIMEOUT = 120


def compiler() -> list[str] | None:
    """The C compiler's command (a list of words), or None where there is none.

    ``$PURETREE_CC`` if set (a missing program means no compiler: nothing else is tried),
    else ``$CC``, else ``cc`` or ``gcc`` found on the PATH.

    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"PURETREE_CC": "/nonexistent/cc"}):
    ...     compiler() is None
    True
    """
    for var in ("PURETREE_CC", "CC"):
        value = os.environ.get(var, "").strip()
        if value:
            words = shlex.split(value)
            path = shutil.which(words[0])
            return [path, *words[1:]] if path else None
    for name in ("cc", "gcc"):
        path = shutil.which(name)
        if path:
            return [path]
    return None


def cache_dir() -> Path:
    """Where compiled kernels are kept: ``$XDG_CACHE_HOME/puretree``, else ``~/.cache/puretree``."""
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return Path(base if base else Path.home() / ".cache") / "puretree"


#: Whether the compiled kernel can run here: a C compiler is found and the source shipped.
#: Turns False for good if compiling or loading it fails (:func:`library`).
AVAILABLE = compiler() is not None and SOURCE.is_file()

_LIBRARY: Any = None
_LOADING = threading.Lock()


class _Tree(ctypes.Structure):
    """``pt_tree``: the grown tree's arrays, allocated by the C code (freed by ``pt_free``)."""

    _fields_ = [
        ("n_nodes", ctypes.c_int64),
        ("feature", ctypes.POINTER(ctypes.c_int64)),
        ("threshold", ctypes.POINTER(ctypes.c_double)),
        ("child", ctypes.POINTER(ctypes.c_int64)),
        ("counts", ctypes.POINTER(ctypes.c_double)),
    ]


def _flags() -> list[str]:
    return [*CFLAGS, *shlex.split(os.environ.get("PURETREE_CFLAGS", ""))]


def _target(command: list[str], flags: list[str]) -> Path:
    """The cached library's path: a hash of the source, the compiler, its flags and the machine."""
    key = hashlib.sha256()
    for part in (SOURCE.read_bytes(), "\0".join(command).encode(), "\0".join(flags).encode(), platform.machine().encode()):
        key.update(part)
        key.update(b"\0")
    return cache_dir() / f"kernel-{key.hexdigest()[:32]}.so"


def _compile(command: list[str], flags: list[str], target: Path) -> None:
    """Compiles the source into ``target``: into a temporary file of the same folder, fsynced,
    renamed into place (two processes compiling at once each rename a whole library)."""
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=target.stem + ".", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        subprocess.run([*command, *flags, "-o", tmp, str(SOURCE)], check=True, stdin=subprocess.DEVNULL, capture_output=True, timeout=COMPILE_TIMEOUT)
        with open(tmp, "rb") as written:
            os.fsync(written.fileno())
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _declare(lib: Any) -> Any:
    """The C functions' signatures."""
    p, i64, f64, i32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_double, ctypes.c_int
    lib.pt_grow.argtypes = [p, i64, i64, i64, i64, p, p, i64, p, p, f64, f64, i64, f64, i32, i64, i32, i64, p, i64, ctypes.POINTER(_Tree)]
    lib.pt_grow.restype = i32
    lib.pt_free.argtypes = [ctypes.POINTER(_Tree)]
    lib.pt_free.restype = None
    lib.pt_draw_features.argtypes = [p, i64, p, i64, i64, i64, p]
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


def _load() -> Any:
    """The compiled library: from the cache, else compiled into it (or, where the cache cannot
    be written, into a temporary folder removed once the library is loaded)."""
    command = compiler()
    if command is None or not SOURCE.is_file():
        raise OSError("no C compiler")
    flags = _flags()
    target = _target(command, flags)
    try:
        if not target.is_file():
            _compile(command, flags, target)
        return _declare(ctypes.CDLL(str(target)))
    except subprocess.SubprocessError:
        raise
    except OSError:  # no cache folder to write in, or a library there that does not load
        with tempfile.TemporaryDirectory(prefix="puretree-kernel-") as folder:
            private = Path(folder) / target.name
            _compile(command, flags, private)
            return _declare(ctypes.CDLL(str(private)))


def library() -> Any:
    """The compiled library (a :class:`ctypes.CDLL`), compiled on the first call if needed; None
    where there is no compiler or compiling fails (then :data:`AVAILABLE` turns False)."""
    global _LIBRARY, AVAILABLE
    if _LIBRARY is None and AVAILABLE:
        with _LOADING:  # one thread compiles; the others wait for its library
            if _LIBRARY is None and AVAILABLE:
                try:
                    _LIBRARY = _load()
                except (OSError, subprocess.SubprocessError):
                    AVAILABLE = False
    return _LIBRARY if AVAILABLE else None


def loaded() -> bool:
    """Whether the library has been loaded in this process."""
    return _LIBRARY is not None


#: The same tolerance as :data:`puretree.grow.TIE_TOLERANCE` (checked by a test; the C code
#: has it as a constant).
TIE_TOLERANCE = 1e-12

#: Least work (rows x features) of a level shared between the cores: below it, waking the
#: other threads costs more than it saves (on a busy machine, a scheduler's time slice).
PARALLEL_MIN_WORK = 200_000

#: Positions whose ranking value comes within this share of the node's weight of the best
#: are scored with the reference's formula (``SCREEN`` in the C code); rounding moves the
#: ranking by ~1e-14 of it, and ties are TIE_TOLERANCE (1e-12) apart.
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
        raise RuntimeError("puretree.kernels: no compiled kernel here (no C compiler, or compiling failed)")
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
        raise ValueError("puretree.kernels: draws take 1 <= max_features <= n_features <= MAX_DRAW and branches below 2**32")
    allowed = np.zeros(n_features, dtype=np.uint8)
    code = _required().pt_draw_features(_pointer(entropy), len(entropy), _pointer(words) if len(words) else None, len(words), n_features, max_features, _pointer(allowed))
    if code != 0:  # pragma: no cover - the arguments are checked above
        raise ValueError("puretree.kernels: bad draw")
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
        raise ValueError("puretree.kernels: a tree's arrays of one length and a 2-d X")
    out = np.empty(X.shape[0], dtype=np.int64)
    rs, cs = (s // X.itemsize for s in X.strides)
    if _required().pt_walk(_pointer(f), _pointer(t), _pointer(c), len(c), _pointer(X), X.shape[0], X.shape[1], rs, cs, _pointer(out)) != 0:
        raise ValueError("puretree.kernels: not a threshold tree's arrays (children after parents, features within X)")
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
        raise ValueError(f"puretree.kernels: a mask of {keep.shape} for orders shaped {orders.shape}")
    m = int(np.count_nonzero(keep))
    room = np.empty(orders.shape[0] * m + 1, dtype=np.int32)  # + 1: the C code's spare entry
    code = _required().pt_subset_orders(_pointer(orders), orders.shape[0], orders.shape[1], _pointer(keep), m, _pointer(room))
    if code != 0:
        raise ValueError("puretree.kernels: these orders are not permutations of the rows")
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
        raise ValueError(f"puretree.kernels: orders shaped {orders.shape} ({orders.dtype}) are not presort's for X shaped {X.shape}")
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
        raise ValueError(f"puretree.kernels takes 1 to {MAX_ROWS} rows and at least one feature, not {X.shape}")
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
        raise ValueError(f"puretree.kernels takes a 2-d X, not {np.shape(X)}")
    X, orders = _sorted_form(X)
    n, q = X.shape
    drawn = 0 if max_features is None else int(max_features)  # 0: every feature, no drawing
    if max_features is not None and not (1 <= drawn <= q <= MAX_DRAW):
        raise ValueError(f"puretree.kernels draws 1 to {q} features of at most {MAX_DRAW}, not {max_features}")
    entropy = seed_entropy(feature_key) if drawn else np.zeros(4, dtype=np.uint32)
    y = np.ascontiguousarray(y, dtype=np.int64)
    w = None if w is None else np.ascontiguousarray(w, dtype=np.float64)
    root_counts = np.ascontiguousarray(root_counts, dtype=np.float64)
    if y.shape != (n,) or (w is not None and w.shape != (n,)) or root_counts.shape != (k,):
        raise ValueError("puretree.kernels: y, w and root_counts do not match X and k")
    wide = n * q >= PARALLEL_MIN_WORK and q > 1
    threads = _cores() if wide else 1
    rows_stride, column_stride = (s // X.itemsize for s in X.strides)
    tree = _Tree()
    # ctypes lets go of the GIL for the call: fits in other threads go on meanwhile
    code = lib.pt_grow(
        _pointer(X), n, q, rows_stride, column_stride, _pointer(y), None if w is None else _pointer(w), int(k), _pointer(root_counts), _pointer(orders),
        float(min_samples_split), float(min_samples_leaf), -1 if max_depth is None else int(max_depth),
        0.0 if min_gain is None else float(min_gain), min_gain is not None, PARALLEL_MIN_WORK, threads,
        drawn, _pointer(entropy), len(entropy), ctypes.byref(tree),
    )  # fmt: skip
    if code == 1:
        raise MemoryError("puretree.kernels: out of memory growing the tree")
    if code != 0:
        raise ValueError("puretree.kernels: class codes outside 0 .. k - 1")
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
