"""How much memory a fit may take: refused with :class:`~puretree.errors.MemoryLimitError`
before the arrays are made, not by the operating system halfway through.

>>> check_rows_by_classes(100, 3)
"""

from __future__ import annotations

import os

from ..errors import MemoryLimitError

__all__ = ["memory_budget", "check_rows_by_classes", "check_tree_size"]

#: Bytes one class count costs in a grown tree: a Python float (24) in its node's tuple (8),
#: and the level's numpy row it was read from (8) until the tree is assembled.
_BYTES_PER_TREE_COUNT = 40
#: Numbers per row and class the recursive builder holds at its root: the one-hot
#: statistics, their cumulative sums along one feature, a child's copy (measured on 20,000
#: rows x 4,904 classes, a 0.73 GiB one-hot array: C4.5 peaked at 2.3 GB resident, the
#: reference grow failed under a 3 GiB address-space limit).
_REFERENCE_COPIES = 5


def memory_budget() -> float:
    """Bytes this process may use: its address-space limit (``RLIMIT_AS``) when one is set,
    and at most the machine's physical memory (``inf`` where neither is known).

    >>> memory_budget() > 0
    True
    """
    limit = float("inf")
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            limit = float(soft)
    except (ImportError, ValueError, OSError):  # pragma: no cover - not a Unix
        pass
    try:
        limit = min(limit, float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - no sysconf
        pass
    return limit


def _refuse(need: float, what: str, advice: str, *, share: float = 1.0, budget: float | None = None) -> None:
    """:class:`~puretree.errors.MemoryLimitError` when ``need`` bytes exceed ``share`` of the
    budget (``budget``: :func:`memory_budget`'s, read once by the caller)."""
    budget = memory_budget() if budget is None else budget
    if need > share * budget:
        raise MemoryLimitError(f"{what} need about {need / 2**30:.1f} GiB, more than the {share * budget / 2**30:.1f} GiB this process may use; {advice}")


def check_rows_by_classes(n_rows: int, n_classes: int) -> None:
    """Refuse, before anything is allocated, a fit of the recursive builder (``engine="reference"``,
    a user's split generator, C4.5) whose rows x classes statistics cannot fit: it holds every
    row's one-hot class counts and their cumulative sums (:data:`_REFERENCE_COPIES` numbers a
    row and class), where the level-wise engine holds classes x nodes.

    >>> check_rows_by_classes(100, 3)
    >>> check_rows_by_classes(10**9, 10**6)
    Traceback (most recent call last):
    ...
    puretree.errors.MemoryLimitError: 1,000,000,000 rows x 1,000,000 classes need about ...
    """
    need = float(n_rows) * n_classes * 8 * _REFERENCE_COPIES
    what = f"{n_rows:,} rows x {n_classes:,} classes"
    _refuse(need, what, "the recursive builder (engine='reference', C4.5, a user's split generator) holds rows x classes numbers; grow with the level-wise engine (cart, id3, grow with the built-in split generators), or merge classes")


def check_tree_size(n_nodes: int, k: int, budget: float | None = None) -> None:
    """Refuse to grow a tree whose nodes' class counts alone (nodes x classes numbers, each a
    Python float) would take more than half the memory this process may use (``budget``:
    :func:`memory_budget`'s, read once a fit rather than once a level)."""
    need = float(n_nodes) * k * _BYTES_PER_TREE_COUNT
    if budget is None or need > 0.5 * budget:
        _refuse(need, f"a tree of {n_nodes:,} nodes or more with {k:,} classes (a count per node and class)", "limit its growth (max_depth, min_samples_leaf, min_gain), or merge classes", share=0.5, budget=budget)
