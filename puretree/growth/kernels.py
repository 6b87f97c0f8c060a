"""The compiled kernel (C, ``puretree/growth/_kernel.c``): the sorted source's per-level loops.

:class:`puretree.growth.sorted.Sorted` grows every in-memory tree through the one frontier loop
(:func:`puretree.growth.level.grow`); where a level's numeric features have no missing value and
the score is the built-in Gini impurity decrease (``cart``'s default) on classes, it asks this
kernel, once per level, for every (node, feature)'s best threshold (:func:`scan_level`: the
first threshold within :data:`~puretree.splits.TIE_TOLERANCE` of the best, its score and the
values either side, exactly as the numpy scan finds them) and for the next frontier's presorted
orders (:func:`partition_level`: each order stably partitioned by the instances' new nodes).
Everything else (user scores, which stay plain Python functions over count arrays, categorical
features, missing values, regression) is answered by numpy, feature by feature; the choice among
features and the routing of the rows stay in Python. The feature draw of ``max_features``
(:func:`puretree.splits.node_features`: numpy's SeedSequence, PCG64 and ``choice``) is made
here for a whole frontier at a time (:func:`draw_frontier`), operation for operation as numpy
makes it.

Ties break as the reference breaks them because the scores are the reference's numbers:
the same formulas in the same order (:func:`puretree.impurity.gini`'s proportions first,
:func:`puretree.impurity.sum_last`'s order of addition, a branch's weight as its share of
the parent); the tie tolerance and :data:`SCREEN` are handed to the C at each call. The C is
compiled without ``-ffast-math`` and with ``-ffp-contract=off`` (no fused multiply-adds), so each
operation rounds as numpy's does. A level's features are shared between the cores (POSIX or
Windows threads) when it has work enough (:data:`PARALLEL_MIN_WORK`).

The library is compiled when the package is built (``setup.py``: setuptools, into
``puretree/growth/_kernel_lib.so``, ``.dylib`` or ``.dll``, shipped inside the platform wheel) and
loaded from the package's folder with :mod:`ctypes` at the first fit that needs it (a few
milliseconds); nothing is compiled or written at run time. Before it is loaded it is checked
against its record (:data:`RECORD`, written at build: its size and SHA-256, and its source's): a
library that is missing, cut short, replaced by another or older than the source next to it is
never loaded. Then, and where the package was built without a C compiler, :data:`AVAILABLE`
turns False, the first fit warns once (:class:`puretree.errors.KernelUnavailableWarning`, which
says why and how to get the compiled kernel) and numpy grows every tree, the same trees,
slower. :mod:`puretree.growth.c45_cuts` and :mod:`puretree.growth.histograms` load the same
library. ``$PURETREE_KERNEL_DIR`` names another folder holding a library and its record (the
tests load a sanitized build so).

A long fit stops on Ctrl-C between levels (the loop is Python); a level whose work may take
long runs in a helper thread that a ``KeyboardInterrupt`` asks to stop within a feature's pass
(:func:`_interruptible`).

>>> import numpy as np
>>> if AVAILABLE:  # one node of four instances, one feature: the cut between 2 and 3
...     best, lo, hi = scan_level(np.array([[1.0, 2.0, 3.0, 4.0]]), np.array([[0, 1, 2, 3]], dtype=np.int32), np.arange(4), np.array([0, 0, 1, 1]),
...                               None, 2, np.array([0]), np.array([4]), np.array([[2.0, 2.0]]), None, min_leaf=1.0)
...     assert (best.tolist(), lo.tolist(), hi.tolist()) == ([[0.5]], [[2.0]], [[3.0]])
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
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from .. import splits
from ..errors import KernelUnavailableWarning

__all__ = [
    "AVAILABLE", "MAX_CLASSES", "MAX_DRAW", "MAX_ROWS", "MAX_WEIGHT", "MIN_WEIGHT", "RECORD", "REMEDY", "SCREEN",
    "draw_frontier", "fits", "folder", "gini", "gini_decrease", "library", "loaded", "partition_level", "presort",
    "grow_bounded", "prefix_absolute_errors", "scan_bounded", "scan_level", "seed_entropy", "shared_orders", "sorted_columns", "shared_presort", "subset_orders", "unavailable_reason", "walk"
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


def _declare(lib: Any) -> Any:
    """The C functions' signatures."""
    p, i64, f64, i32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_double, ctypes.c_int
    lib.pt_scan_level.argtypes = [p, i64, i64, p, i64, p, p, p, i64, i64, p, p, p, p, f64, f64, f64, f64, i32, p, p, p, p]
    lib.pt_scan_level.restype = i32
    lib.pt_partition_level.argtypes = [p, i64, i64, p, i64, p, i64, p, i32, p, p]
    lib.pt_partition_level.restype = i32
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
    lib.pt_scan_bounded.argtypes = [p, i64, i64, p, i64, p, p, p, p, i64, i64, p, p, p, p, p, p, p, i32, i32, f64, f64, f64, i32, p, p, p, p, p]
    lib.pt_scan_bounded.restype = i32
    lib.pt_grow_bounded.argtypes = [p, p, i64, i64, p, p, p, p, p, i64, p, p, i32, i32, i32, f64, f64, i64, i32, f64, i64, p, i64, i64, f64, f64, i64, p, p, p, p, p, p, p, p, p]
    lib.pt_grow_bounded.restype = i32
    lib.pt_draw_frontier.argtypes = [p, i64, p, p, i64, i64, i64, i64, p]
    lib.pt_draw_frontier.restype = i32
    lib.pt_prefix_absolute_errors.argtypes = [p, p, p, i64, p]
    lib.pt_prefix_absolute_errors.restype = i32
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
        # the record names a source by its path in the package (growth/_histograms.c); every source
        # sits next to the library, so it is looked for there (where / name was a folder too deep)
        source = where / Path(name).name
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

#: Largest class count whose sums the kernel adds in numpy's order (pairwise blocks of 8).
MAX_CLASSES = 128

#: Most instances the kernel takes (its orders are int32).
MAX_ROWS = 2**31 - 2


_addressof, _from_buffer = ctypes.addressof, ctypes.c_char.from_buffer


def _pointer(a: np.ndarray) -> int:
    """The address of ``a``'s first byte (``a`` C-contiguous). Through the buffer protocol:
    about five times cheaper than ``a.__array_interface__`` or ``a.ctypes.data``, which build
    a dictionary or an object per call (a level of a deep tree passes a dozen arrays); an
    array that is empty or read-only is asked the slow way."""
    try:
        return _addressof(_from_buffer(a))  # type: ignore[arg-type]  # numpy arrays export the buffer protocol
    except (TypeError, ValueError, BufferError):
        return a.__array_interface__["data"][0]


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


#: Most features numpy's ``Generator.choice`` draws without replacement by Floyd's algorithm
#: (larger populations it may shuffle): the most :func:`draw_frontier` and the whole-tree growth
#: draw from (:func:`puretree.splits.node_features` draws from more).
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


def draw_frontier(n_features: int, max_features: int, key: tuple[int, ...], paths: Sequence[tuple[int, ...]]) -> np.ndarray | None:
    """``(nodes, features)`` bool: the features each node of a frontier (its ``paths`` of branches
    from the root) may split on, :func:`puretree.splits.node_features`'s very draws made in one
    compiled call; None where the library is unavailable or the draw is not Floyd's (more than
    :data:`MAX_DRAW` features): the caller draws with ``node_features``.

    >>> from puretree.splits import node_features
    >>> got = draw_frontier(64, 8, (3, 7), [(), (0, 1, 1)])
    >>> got is None or [np.flatnonzero(a).tolist() for a in got] == [node_features(64, 8, (3, 7), p).tolist() for p in [(), (0, 1, 1)]]
    True
    """
    lib = library()
    if lib is None or not 1 <= max_features <= n_features <= MAX_DRAW or any(k < 0 for k in key):
        return None
    entropy = seed_entropy(key)
    words = np.fromiter((b for path in paths for b in path), dtype=np.uint32)
    offsets = np.zeros(len(paths) + 1, dtype=np.int64)
    np.cumsum([len(path) for path in paths], out=offsets[1:])
    allowed = np.empty((len(paths), n_features), dtype=bool)
    code = lib.pt_draw_frontier(_pointer(entropy), len(entropy), _pointer(words), _pointer(offsets), len(paths), n_features, max_features, MAX_DRAW, _pointer(allowed))
    if code != 0:
        raise ValueError("puretree.growth.kernels: a draw's arrays out of range")
    return allowed


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


def _orders(X: np.ndarray) -> np.ndarray:
    n, q = X.shape
    if not 0 < n <= MAX_ROWS or q < 1:
        raise ValueError(f"puretree.growth.kernels takes 1 to {MAX_ROWS} rows and at least one feature, not {X.shape}")
    # one order of the rows per feature, and one of the rows themselves, each kept sorted
    # within every node's segment by partitioning in place
    return np.concatenate([sorted_columns(X.T), np.arange(n, dtype=np.int32)[None]])


_FITS = [0]


def fits() -> int:
    """How many trees the compiled scan has grown in this process (an ensemble checks whether
    its first member went through it, whose calls let other threads run)."""
    return _FITS[0]


def shared_orders(X: np.ndarray, *, copy: bool = True) -> np.ndarray | None:
    """:func:`shared_presort`'s orders of this very array ``X`` (``(features, rows)`` int32,
    without the last row: a copy, or with ``copy=False`` for a caller that only reads them,
    the shared array's rows), else None."""
    entry = _SHARED.get(id(X))
    if entry is None or entry[0] is not X:
        return None
    return entry[1][:-1].copy() if copy else entry[1][:-1]


def _threads(work: int, q: int) -> int:
    return _cores() if work >= PARALLEL_MIN_WORK and q > 1 else 1


def _checked_call(call: Callable[[ctypes.c_int], int], work: float) -> None:
    # a short call (a deep tree's level) runs where it is, without _interruptible's hand-off
    code = call(ctypes.c_int(0)) if work < INTERRUPTIBLE_WORK else _interruptible(call, work=work)
    if code == 1:
        raise MemoryError("puretree.growth.kernels: out of memory")
    if code == 3:  # pragma: no cover - _interruptible raises the interrupt that asked for it
        raise KeyboardInterrupt
    if code != 0:
        raise ValueError("puretree.growth.kernels: arrays that do not describe a level (rows, classes, segments or new ids out of range)")


def scan_level(
    X: np.ndarray, orders: np.ndarray, row: np.ndarray, cls: np.ndarray, w: np.ndarray | None, k: int, starts: np.ndarray, lens: np.ndarray,
    stats: np.ndarray, allowed: np.ndarray | None, *, min_leaf: float, min_weight: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Per node of a frontier and numeric feature, the first threshold within the tie tolerance
    of the best Gini impurity decrease: ``(best, lo, hi)``, each ``(nodes, features)``: the score
    (-inf: no threshold) and the values either side. ``X``: ``(features, rows)`` float64 without
    NaN; ``orders``: ``(features, instances)`` int32, each node's segment (``starts``, ``lens``)
    sorted by the feature's value; ``row``, ``cls``, ``w``: each instance's row, class code (below
    ``k``) and weight (None: 1); ``stats``: the nodes' class sums; ``allowed``: ``(nodes,
    features)``, the features each node may split on (None: all); ``min_leaf``: fewest instances
    on a side; ``min_weight``: least weight on a side (0: no bound; the rule of
    :func:`puretree.growth.choose.heavy_enough`)."""
    lib = _required()
    N, (q, m) = len(lens), orders.shape
    X = np.ascontiguousarray(X, dtype=np.float64)
    orders = np.ascontiguousarray(orders, dtype=np.int32)
    row, cls = np.ascontiguousarray(row, dtype=np.int64), np.ascontiguousarray(cls, dtype=np.int64)
    w = None if w is None else np.ascontiguousarray(w, dtype=np.float64)
    starts, lens = np.ascontiguousarray(starts, dtype=np.int64), np.ascontiguousarray(lens, dtype=np.int64)
    stats = np.ascontiguousarray(stats, dtype=np.float64)
    allowed = None if allowed is None else np.ascontiguousarray(allowed, dtype=np.uint8)
    if X.ndim != 2 or X.shape[0] != q or row.shape != (m,) or cls.shape != (m,) or (w is not None and w.shape != (m,)) or stats.shape != (N, k) or (allowed is not None and allowed.shape != (N, q)):
        raise ValueError("puretree.growth.kernels: the level's arrays do not match")
    best, lo, hi = np.empty((N, q)), np.empty((N, q)), np.empty((N, q))
    p = [_pointer(a) for a in (X, orders, row, cls, starts, lens, stats, best, lo, hi)]
    _checked_call(lambda cancel: lib.pt_scan_level(
        p[0], X.shape[1], q, p[1], m, p[2], p[3], None if w is None else _pointer(w), int(k), N,
        p[4], p[5], p[6], None if allowed is None else _pointer(allowed), float(min_leaf), float(min_weight), splits.TIE_TOLERANCE,
        SCREEN, _threads(m * q, q), ctypes.byref(cancel), p[7], p[8], p[9],
    ), work=float(m) * q)  # fmt: skip
    return best, lo, hi


def scan_bounded(
    X: np.ndarray, orders: np.ndarray, row: np.ndarray, cls: np.ndarray | None, w: np.ndarray | None, inst: np.ndarray | None, starts: np.ndarray,
    lens: np.ndarray, stats: np.ndarray, total: np.ndarray, lower: np.ndarray, upper: np.ndarray, direction: np.ndarray | None, *, learn: bool, min_leaf: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """:class:`puretree.growth.bounds.Bounded`'s scan of a level (``monotonic_cst``, ``missing="learn"``):
    per node and numeric feature the first near-best threshold among the missing rows sent
    right, left (``learn``) or alone right (threshold ``+inf``), each kept only where its children's
    values keep the node's bounds ``lower``/``upper`` and the feature's ``direction`` (None:
    unconstrained): ``(best, lo, hi, side)``, each ``(nodes, features)``. Classes (``cls``, ``w``
    as :func:`scan_level`'s; the Gini impurity decrease) or, with ``inst`` (instances x 3:
    ``(w, w*y, w*y**2)``), the variance decrease. ``X`` may hold NaN (missing: last in each
    segment of ``orders``); ``total``: the nodes' weights.

    >>> if AVAILABLE:  # the missing row alone goes right: the known ones are all class 0
    ...     X = np.array([[1.0, 2.0, np.nan]])
    ...     got = scan_bounded(X, np.array([[0, 1, 2]], dtype=np.int32), np.arange(3), np.array([0, 0, 1]), None, None, np.array([0]), np.array([3]),
    ...                        np.array([[2.0, 1.0]]), np.array([3.0]), np.array([-np.inf]), np.array([np.inf]), None, learn=True, min_leaf=1.0)
    ...     assert [a.tolist() for a in got[1:]] == [[[1.0]], [[np.inf]], [[1]]]
    """
    lib = _required()
    N, (q, m) = len(lens), orders.shape
    k = stats.shape[1]
    c, f = np.ascontiguousarray, np.float64
    X, orders, row, starts, lens, stats, total, lower, upper = c(X, f), c(orders, np.int32), c(row, np.int64), c(starts, np.int64), c(lens, np.int64), c(stats, f), c(total, f), c(lower, f), c(upper, f)
    cls, w, inst = (None if a is None else c(a, t) for a, t in ((cls, np.int64), (w, f), (inst, f)))
    direction = None if direction is None else c(direction, np.int64)
    if X.ndim != 2 or X.shape[0] != q or row.shape != (m,) or stats.shape != (N, k) or not total.shape == lower.shape == upper.shape == (N,) or (direction is not None and direction.shape != (q,)):
        raise ValueError("puretree.growth.kernels: the level's arrays do not match")
    best, lo, hi, side = np.empty((N, q)), np.empty((N, q)), np.empty((N, q)), np.empty((N, q), dtype=np.int64)
    ptr = lambda a: None if a is None else _pointer(a)  # noqa: E731
    _checked_call(lambda cancel: lib.pt_scan_bounded(
        _pointer(X), X.shape[1], q, _pointer(orders), m, _pointer(row), ptr(cls), ptr(w), ptr(inst), int(k), N, _pointer(starts), _pointer(lens),
        _pointer(stats), _pointer(total), _pointer(lower), _pointer(upper), ptr(direction), int(learn), int(inst is not None), float(min_leaf),
        splits.TIE_TOLERANCE, SCREEN, _threads(m * q, q), ctypes.byref(cancel), _pointer(best), _pointer(lo), _pointer(hi), _pointer(side),
    ), work=float(m) * q)  # fmt: skip
    return best, lo, hi, side


#: Most instance visits of a level (instances x features) for which a cart fit (the Gini on classes or
#: the squared error; with or without ``monotonic_cst`` and ``missing="learn"``) grows whole in one
#: call (:func:`grow_bounded`): there each level costs Python
#: more than its scan; larger fits keep the level-wise loop (its levels shared between the cores,
#: interruptible between them).
WHOLE_TREE_MAX_WORK = 1_000_000


def grow_bounded(
    Xs: np.ndarray, Xr: np.ndarray, orders: np.ndarray, cls: np.ndarray | None, w: np.ndarray | None, inst: np.ndarray | None, y: np.ndarray, k: int,
    root: np.ndarray, direction: np.ndarray | None, *, learn: bool, binned: bool, min_leaf: float, min_split: float, max_depth: int | None, min_gain: float | None,
    max_features: int | None = None, feature_key: tuple[int, ...] = (0,),
) -> tuple[np.ndarray, ...] | None:  # fmt: skip
    """:class:`puretree.growth.bounds.Bounded`'s tree grown whole by the frontier loop's rules, every
    level in C (:func:`scan_bounded`'s scan, the first near-best feature, the rows routed, the
    children's sums and bounds): per node, numbered as :func:`puretree.growth.level.grow` numbers
    them, ``(feature, threshold, side, first_child, stats, lower, upper, score)`` (``feature`` -1: a
    leaf; ``stats`` before clipping to the bounds; ``score``: a split's score as chosen, which
    best-first growth ranks by). ``Xs`` (features x rows) is scanned, ``Xr`` routes the
    rows (binned: the raw values); ``orders``: the root's presorted orders; ``cls``/``w`` (None:
    every weight 1) for classes, ``inst`` (rows x 3) for the variance; ``y``: the targets (a node of
    one target value is a leaf); ``root``: the root's sums. ``max_features``: each node splits on
    the features :func:`puretree.splits.node_features` draws for it with ``feature_key`` (drawn
    in C, as :func:`draw_frontier`; at most :data:`MAX_DRAW` features). None where the tree
    cannot be grown so (the caller grows it level by level).

    >>> if AVAILABLE:  # two rows either side of 2.5: one split, two leaves
    ...     got = grow_bounded(np.array([[1.0, 2.0, 3.0, 4.0]]), np.array([[1.0, 2.0, 3.0, 4.0]]), np.array([[0, 1, 2, 3]], dtype=np.int32), np.array([0, 0, 1, 1]), None, None,
    ...                        np.array([0.0, 0.0, 1.0, 1.0]), 2, np.array([2.0, 2.0]), None, learn=False, binned=False, min_leaf=1.0, min_split=2.0, max_depth=None, min_gain=None)
    ...     assert got is not None and got[0].tolist() == [0, -1, -1] and got[1][0] == 2.5
    """
    lib = _required()
    q, n = orders.shape
    c, f = np.ascontiguousarray, np.float64
    Xs, Xr, orders, y, root = c(Xs, f), c(Xr, f), c(orders, np.int32), c(y, f), c(root, f)
    cls, w, inst = (None if a is None else c(a, t) for a, t in ((cls, np.int64), (w, f), (inst, f)))
    direction = None if direction is None else c(direction, np.int64)
    if Xs.shape != (q, n) or Xr.shape != (q, n) or y.shape != (n,) or root.shape != (k,):
        raise ValueError("puretree.growth.kernels: the fit's arrays do not match")
    drawn = 0 if max_features is None else int(max_features)  # 0: every feature, no draw
    if max_features is not None and not (1 <= drawn <= q <= MAX_DRAW):
        raise ValueError(f"puretree.growth.kernels draws 1 to {q} features of at most {MAX_DRAW}, not {max_features}")
    entropy = seed_entropy(feature_key) if drawn else None
    capacity = 2 * n - 1
    feature, first, side = (np.empty(capacity, dtype=np.int64) for _ in range(3))
    threshold, lower, upper, score = (np.empty(capacity) for _ in range(4))
    stats = np.empty((capacity, k))
    made = ctypes.c_int64(0)
    ptr = lambda a: None if a is None else _pointer(a)  # noqa: E731
    code = lib.pt_grow_bounded(
        _pointer(Xs), _pointer(Xr), n, q, _pointer(orders), ptr(cls), ptr(w), ptr(inst), _pointer(y), int(k), _pointer(root), ptr(direction), int(learn),
        int(inst is not None), int(binned), float(min_leaf), float(min_split), -1 if max_depth is None else int(max_depth), int(min_gain is not None),
        0.0 if min_gain is None else float(min_gain), drawn, ptr(entropy), 0 if entropy is None else len(entropy), MAX_DRAW, splits.TIE_TOLERANCE, SCREEN, capacity, _pointer(feature), _pointer(threshold), _pointer(side),
        _pointer(first), _pointer(stats), _pointer(lower), _pointer(upper), ctypes.byref(made), _pointer(score),
    )  # fmt: skip
    if code == 1:
        raise MemoryError("puretree.growth.kernels: the compiled kernel could not allocate a fit's scratch")
    if code != 0:
        return None
    g = made.value
    return feature[:g], threshold[:g], side[:g], first[:g], stats[:g], lower[:g], upper[:g], score[:g]


def prefix_absolute_errors(rank: np.ndarray, sorted_y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """:func:`puretree.losses.prefix_absolute_errors` in C, the same numbers: ``sum w |y - median|``
    of each prefix of the rows, row ``p`` of rank ``rank[p]`` (1-based, in ``sorted_y``, the
    targets sorted stably) and weight ``w[p]``.

    >>> if AVAILABLE:
    ...     assert prefix_absolute_errors(np.array([1, 3, 2]), np.array([1.0, 2.0, 4.0]), np.ones(3)).tolist() == [0.0, 3.0, 3.0]
    """
    lib = _required()
    c = np.ascontiguousarray
    rank, sorted_y, w = c(rank, np.int64), c(sorted_y, np.float64), c(w, np.float64)
    n = len(rank)
    if sorted_y.shape != (n,) or w.shape != (n,):
        raise ValueError("puretree.growth.kernels: one rank, target and weight per row")
    out = np.empty(n)
    if n and lib.pt_prefix_absolute_errors(_pointer(rank), _pointer(sorted_y), _pointer(w), n, _pointer(out)) != 0:
        raise ValueError("puretree.growth.kernels: ranks must lie in 1..n")
    return out


def partition_level(orders: np.ndarray, new_id: np.ndarray, node: np.ndarray, n_next: int) -> np.ndarray:
    """The next frontier's orders from this one's (``(features, instances)`` int32): each
    instance that stays (``new_id`` >= 0, each new id once) renumbered, and each order stably
    partitioned by the new instances' nodes ``node`` (sorted, below ``n_next``).

    >>> if AVAILABLE:
    ...     got = partition_level(np.array([[3, 1, 0, 2]], dtype=np.int32), np.array([0, 1, -1, 2], dtype=np.int32), np.array([0, 1, 1]), 2)
    ...     assert got.tolist() == [[0, 2, 1]]  # instance 3 (new 2) and 1 (new 1) in node 1, in their old order
    """
    lib = _required()
    q, m = orders.shape
    orders = np.ascontiguousarray(orders, dtype=np.int32)
    new_id = np.ascontiguousarray(new_id, dtype=np.int32)
    node = np.ascontiguousarray(node, dtype=np.int64)
    if new_id.shape != (m,):
        raise ValueError("puretree.growth.kernels: one new id per instance")
    starts = np.zeros(max(n_next, 1), dtype=np.int64)
    if n_next > 1:
        np.cumsum(np.bincount(node, minlength=n_next)[:-1], out=starts[1:])
    out = np.empty((q, len(node)), dtype=np.int32)
    _checked_call(lambda cancel: lib.pt_partition_level(
        _pointer(orders), q, m, _pointer(new_id), len(node), _pointer(node), int(n_next), _pointer(starts), _threads(m * q, q), ctypes.byref(cancel), _pointer(out),
    ), work=float(m) * q)  # fmt: skip
    return out


#: Levels whose work may exceed this many instance visits (instances x features; about a second
#: of the C) run in a helper thread, interruptible; smaller ones, which end sooner than a Ctrl-C
#: would be noticed, skip the thread's hand-off.
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


def sorted_columns(columns: np.ndarray) -> np.ndarray:
    """``(features, rows)`` int32: each row of ``columns`` (a feature's values) argsorted stably
    (equal values in row order, NaN last), one feature at a time; numpy's sort lets go of the
    GIL, so large arrays are sorted on every core, a feature per thread.

    >>> sorted_columns(np.array([[2.0, 1.0, 2.0], [0.0, 0.0, -1.0]])).tolist()
    [[1, 0, 2], [2, 0, 1]]
    """
    q, n = columns.shape
    threads = _threads(n * q, q)
    if threads == 1:
        return np.argsort(columns, axis=1, kind="stable").astype(np.int32)
    orders = np.empty((q, n), dtype=np.int32)

    def one(f: int) -> None:
        orders[f] = np.argsort(columns[f], kind="stable")

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(threads, q)) as pool:
        list(pool.map(one, range(q)))
    return orders
