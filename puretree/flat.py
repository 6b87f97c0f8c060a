"""A tree as flat arrays: the pre-order table that batch prediction, pruning and code lowering read.

:func:`flatten` turns a tree into a :class:`FlatTree` (cached per tree); :func:`descend` walks
every row of a batch down it level by level with numpy (any depth, no Python loop per row);
:func:`dense_ends` walks a tree of numeric thresholds a block of rows at a time. The functions of
:mod:`puretree.predict` answer with them; :mod:`puretree.prune.complexity`, :mod:`puretree.prune.rewrites`,
:mod:`puretree.validation` and :mod:`puretree.codegen.lower` read the table directly.

>>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
>>> from puretree.tree import Tree
>>> tree = Tree(Split(0, Threshold(1.5), (Leaf((2, 0)), Leaf((0, 3))), (2, 3)), Schema((Feature("x"),), ("no", "yes")))
>>> flat = flatten(tree)
>>> flat.kind.tolist(), flat.left.tolist(), flat.right.tolist()
([1, 0, 0], [1, -1, -1], [2, -1, -1])
>>> dense_ends(flat, np.array([[1.0], [2.0]]), tree.schema.features).tolist()
[1, 2]
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np

from .errors import DataError
from .nodes import MISSING, TESTS, UNSEEN, Feature, Interval, Node, Split, children

if TYPE_CHECKING:
    from .tree import Tree

__all__ = [
    "descend",
    "dense_ends",
    "DENSE_LEVELS",
    "DENSE_BLOCK",
    "normalised_fractions",
    "LEAF",
    "KIND_CODES",
    "FlatTree",
    "flatten",
]

#: ``FlatTree.kind`` of a leaf; a split's is ``1 +`` its test kind's position in
#: :data:`~puretree.nodes.TESTS` (code lowering names them: :mod:`puretree.codegen.lower`).
LEAF = 0


KIND_CODES: dict[str, int] = {kind: i + 1 for i, kind in enumerate(TESTS)}
#: ``FlatTree.route``: how prediction finds a row's branch at a node. The flat arrays are
#: compiled from what each test answers (its constraints; its branch for every category
#: code), so that most levels are one numpy step for all rows: a split on a numeric feature
#: whose two branches are ``x <= t`` and ``x > t`` goes BY_THRESHOLD; a split on a
#: categorical feature, whose answer depends on the code alone, BY_TABLE; any other test is
#: asked (``branch_of``) for its rows, node by node (BY_TEST).
AT_LEAF, BY_THRESHOLD, BY_TABLE, BY_TEST = 0, 1, 2, 3


# Deprecated (one release): the kind codes' old names here, now code lowering's
# (puretree.codegen.lower); prediction itself asks each split's test, never its kind.
_OLD_KIND_NAMES = {"THRESHOLD_SPLIT": "threshold", "NUMERIC_SPLIT": "threshold", "MULTIWAY_SPLIT": "multiway", "SUBSET_SPLIT": "subset"}


def __getattr__(name: str) -> int:
    if name in _OLD_KIND_NAMES:
        return KIND_CODES[_OLD_KIND_NAMES[name]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@attrs.frozen(eq=False)
class FlatTree:
    """A tree as parallel arrays indexed by pre-order node id (the root is 0).

    ``kind`` is :data:`LEAF` or the split's :data:`KIND_CODES` entry. ``left``/``right`` are
    child ids of two-branch splits; ``threshold`` is, for a split on a numeric feature, the
    bound between its first and second branch. For a split on a categorical feature, its
    categories' entries are ``table[offset[i] : offset[i] + n_categories[i]]``: the child id
    each category code goes to, as the test says. ``value`` is the
    distribution a row ending at that node gets (an empty leaf borrows its ancestor's).

    Generic child lists: node i's children are ``child_table[child_offset[i] :
    child_offset[i] + n_children[i]]``. ``heavy[i]`` is the child that received the most
    training weight (the "majority" branch for missing values; ties: the first) and
    ``fraction[c]`` is child c's share of its parent's training weight ("distribute").
    """

    kind: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    offset: np.ndarray
    n_categories: np.ndarray
    table: np.ndarray
    stats: np.ndarray
    value: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    nodes: tuple[Node, ...]
    child_offset: np.ndarray
    n_children: np.ndarray
    child_table: np.ndarray
    heavy: np.ndarray
    fraction: np.ndarray
    regression: bool
    features: tuple[Feature, ...] = ()
    #: How :func:`descend` finds a row's branch at each node: see :data:`BY_THRESHOLD` and co.
    route: np.ndarray | None = None
    #: Whether any node is BY_TEST (most trees: none, and descend skips that step).
    asks: bool = False
    #: Whether every split is BY_THRESHOLD, so that :func:`dense_ends` can walk the tree.
    dense: bool = False
    #: The tree for :func:`dense_ends`, indexed by *slot* ``2 * node`` (``+ 1``: the right
    #: branch): the feature and threshold at even slots, the child's slot at both, a leaf
    #: pointing back to itself; ``dense_leaf[slot]``: a leaf's slot.
    dense_feature: np.ndarray | None = None
    dense_threshold: np.ndarray | None = None
    dense_child: np.ndarray | None = None
    dense_leaf: np.ndarray | None = None
    #: The child a missing value goes to at a split whose test learned a side
    #: (``Threshold.missing_branch``), else -1: the tree's strategy decides there.
    missing_child: np.ndarray | None = None
    #: Whether any split has a learned side.
    sided: bool = False
    #: Whether any split routes with surrogates (``Split.surrogates``, rpart's).
    surrogated: bool = False

    @property
    def n_nodes(self) -> int:
        return len(self.nodes)


def _weight(stats: tuple[float, ...], regression: bool) -> float:
    return stats[0] if regression else sum(stats)


def flatten(tree: Tree) -> FlatTree:
    """The pre-order array form of a tree (cached; equal trees share it).

    The nodes in ``FlatTree.nodes`` are those of the tree first flattened among equal ones:
    equal, so interchangeable as values.
    """
    flat = _CACHE.get(tree)
    if flat is None:
        flat = _CACHE[tree] = _flatten(tree)
    return flat


# tree -> flat form. Trees hash in O(1) at any depth (their nodes carry a digest), and an
# entry vanishes with the last tree equal to its key.
_CACHE: "weakref.WeakKeyDictionary[Tree, FlatTree]" = weakref.WeakKeyDictionary()


def _flatten(tree: Tree) -> FlatTree:
    regression = tree.schema.is_regression
    nodes: list[Node] = []
    parent: list[int] = []
    depth: list[int] = []
    stack: list[tuple[Node, int, int]] = [(tree.root, -1, 0)]
    while stack:
        node, par, d = stack.pop()
        nodes.append(node)
        parent.append(par)
        depth.append(d)
        me = len(nodes) - 1
        stack.extend((c, me, d + 1) for c in reversed(children(node)))
    n = len(nodes)
    # A child's id: pre-order places the first child right after its parent, and each
    # next child after the previous child's whole subtree.
    kids: list[list[int]] = [[] for _ in range(n)]
    for i in range(1, n):
        kids[parent[i]].append(i)
    kind = np.zeros(n, dtype=np.int8)
    route = np.zeros(n, dtype=np.int8)
    feature_of = np.zeros(n, dtype=np.int64)
    threshold = np.zeros(n, dtype=np.float64)
    left = np.full(n, -1, dtype=np.int64)
    right = np.full(n, -1, dtype=np.int64)
    offset = np.zeros(n, dtype=np.int64)
    n_categories = np.zeros(n, dtype=np.int64)
    table: list[int] = []
    missing_child = np.full(n, -1, dtype=np.int64)
    width = len(tree.root.stats)
    stats = np.zeros((n, width))
    value = np.zeros((n, width))
    features = tree.schema.features
    for i, node in enumerate(nodes):
        stats[i] = node.stats
        own = _weight(node.stats, regression) > 0
        value[i] = node.stats if own or parent[i] < 0 else value[parent[i]]
        if not isinstance(node, Split):
            continue
        # The arrays code lowering reads, filled from what the test says about its branches.
        test, feature = node.test, features[node.feature]
        kind[i], feature_of[i] = KIND_CODES[test.kind], node.feature
        if len(kids[i]) == 2:
            left[i], right[i] = kids[i]
        side = getattr(test, "missing_branch", None)
        if side is not None:
            missing_child[i] = kids[i][side]
        if feature.is_numeric:
            below, *above = test.constraints(feature)
            threshold[i] = below.hi
            exact = (below, *above) == (Interval(hi=below.hi), Interval(lo=below.hi))
            route[i] = BY_THRESHOLD if exact else BY_TEST
        else:
            route[i] = BY_TABLE
            m = len(feature.categories)
            offset[i], n_categories[i] = len(table), m
            branch = test.branch_of(np.arange(m, dtype=np.float64), feature)
            table.extend(kids[i][b] if b >= 0 else -1 for b in branch.tolist())
    child_offset = np.zeros(n, dtype=np.int64)
    n_children = np.array([len(k) for k in kids], dtype=np.int64)
    child_offset[1:] = np.cumsum(n_children)[:-1]
    child_table = np.asarray([c for k in kids for c in k], dtype=np.int64)
    weight = stats[:, 0].copy() if regression else stats.sum(axis=1)
    heavy = np.full(n, -1, dtype=np.int64)
    fraction = np.zeros(n)
    fraction[0] = 1.0
    for i in range(n):
        if kids[i]:
            w = weight[kids[i]]
            heavy[i] = kids[i][int(np.argmax(w))]
            total = w.sum()
            fraction[kids[i]] = w / total if total > 0 else 1.0 / len(w)
    leaf = route == AT_LEAF
    dense = bool(((route == AT_LEAF) | (route == BY_THRESHOLD)).all())
    ids = np.arange(n, dtype=np.intp)
    return FlatTree(
        kind, feature_of, threshold, left, right, offset, n_categories, np.asarray(table, dtype=np.int64),
        stats, value, np.asarray(parent, dtype=np.int64), np.asarray(depth, dtype=np.int64), tuple(nodes),
        child_offset, n_children, child_table, heavy, fraction, regression, features, route, bool((route == BY_TEST).any()),
        dense,
        np.repeat(np.where(leaf, 0, feature_of).astype(np.intp), 2),
        np.repeat(np.where(leaf, 0.0, threshold), 2),
        2 * np.stack([np.where(leaf, ids, left), np.where(leaf, ids, right)], axis=1).reshape(-1).astype(np.intp),
        np.repeat(leaf, 2),
        missing_child,
        bool((missing_child >= 0).any()),
        any(type(node) is Split and node.surrogates is not None for node in nodes),
    )


def descend(flat: FlatTree, X: np.ndarray, *, missing: str, names: tuple[str, ...], stop_at_missing: bool, row_name: Any = "row {}".format) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Walk every row down the tree, level by level, vectorised over rows.

    Returns ``(row, end node, weight)`` triples: one per row, except under the
    "distribute" strategy, where a row with a missing value at a split continues down every
    branch with its weight multiplied by the branch's training fraction.
    """
    if X.shape[0] == 0:  # no rows (an empty batch): nothing to walk
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), np.empty(0)
    rows = np.arange(X.shape[0])
    node = np.zeros(X.shape[0], dtype=np.int64)
    weight = np.ones(X.shape[0])
    out_rows, out_nodes, out_weights = [], [], []

    def finish(mask: np.ndarray) -> None:
        out_rows.append(rows[mask])
        out_nodes.append(node[mask])
        out_weights.append(weight[mask])

    while rows.size:
        kind = flat.kind[node]
        at_leaf = kind == LEAF
        finish(at_leaf)
        rows, node, weight, kind = rows[~at_leaf], node[~at_leaf], weight[~at_leaf], kind[~at_leaf]
        if not rows.size:
            break
        nxt, absent, unseen = _next(flat, X, rows, node)
        if flat.sided and absent.any():
            # A split that learned a side sends a missing value there, whatever the strategy.
            side = flat.missing_child[node]  # type: ignore[index]  # a sided tree has the array
            learned = absent & (side >= 0)
            nxt = np.where(learned, side, nxt)
            absent = absent & ~learned
        if flat.surrogated:
            _by_surrogates(flat, X, rows, node, nxt, absent, unseen)
        if absent.any():
            if missing == "error":
                r = int(rows[absent][0])
                j = int(flat.feature[node[absent][0]])
                raise DataError(f"{row_name(r)}, column {names[j]!r}: missing value (this tree's missing-value strategy is 'error')")
            if missing == "majority":
                nxt = np.where(absent, flat.heavy[node], nxt)
        stop = unseen | (absent & (missing == "distribute"))
        if missing == "distribute" and not stop_at_missing and absent.any():
            spread_rows, spread_nodes, spread_weights = _spread(flat, rows[absent], node[absent], weight[absent])
            stop = unseen
        else:
            spread_rows = spread_nodes = spread_weights = None  # type: ignore[assignment]  # none spread
        finish(stop)
        go = ~stop & ~(absent & (missing == "distribute"))
        rows, node, weight = rows[go], nxt[go], weight[go]
        if spread_rows is not None:
            rows = np.concatenate([rows, spread_rows])
            node = np.concatenate([node, spread_nodes])
            weight = np.concatenate([weight, spread_weights])
    return np.concatenate(out_rows), np.concatenate(out_nodes), np.concatenate(out_weights)


def _next(flat: FlatTree, X: np.ndarray, rows: np.ndarray, node: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row at a split: the child it goes to, whether its value is missing, whether the
    split has no branch for it (an unseen category)."""
    x = X[rows, flat.feature[node]]
    absent = np.isnan(x)
    nxt = np.where(x <= flat.threshold[node], flat.left[node], flat.right[node])
    if flat.table.size:
        by_table = flat.route[node] == BY_TABLE  # type: ignore[index]  # a table comes with routes
        known = by_table & ~absent & (x >= 0) & (x < flat.n_categories[node])
        entry = flat.table[np.where(known, flat.offset[node] + np.where(known, x, 0).astype(np.int64), 0)]
        nxt = np.where(by_table, entry, nxt)
        unseen = by_table & ~absent & (~known | (entry < 0))  # no branch for this code
    else:
        unseen = np.zeros(len(rows), dtype=bool)
    if flat.asks:
        asked = flat.route[node] == BY_TEST  # type: ignore[index]  # asking tests come with routes
        if asked.any():
            branch = _branches(flat, X, rows[asked], node[asked])
            absent[asked] = branch == MISSING
            unseen[asked] = branch == UNSEEN
            nxt[asked] = flat.child_table[flat.child_offset[node[asked]] + np.maximum(branch, 0)]
    return nxt, absent, unseen


def _by_surrogates(flat: FlatTree, X: np.ndarray, rows: np.ndarray, node: np.ndarray, nxt: np.ndarray, absent: np.ndarray, unseen: np.ndarray) -> None:
    """At splits with surrogates (rpart's), the child each row goes to as
    :meth:`~puretree.nodes.Surrogates.route` says, in place; a row no test decides stops there."""
    for u in np.unique(node).tolist():
        split = flat.nodes[u]
        if type(split) is not Split or split.surrogates is None:
            continue
        at = np.flatnonzero(node == u)
        branch = split.surrogates.route(split.feature, split.test, X[rows[at]], flat.features)
        nxt[at] = np.where(branch >= 0, flat.child_table[flat.child_offset[u] + np.maximum(branch, 0)], u)
        absent[at] = False
        unseen[at] = branch < 0


def _branches(flat: FlatTree, X: np.ndarray, rows: np.ndarray, node: np.ndarray) -> np.ndarray:
    """The branch each row takes at its node: each node's test answers for its rows at once."""
    order = np.argsort(node, kind="stable")
    at, first = np.unique(node[order], return_index=True)
    branch = np.empty(len(rows), dtype=np.int64)
    for u, segment in zip(at.tolist(), np.split(order, first[1:])):
        split = flat.nodes[u]
        j = split.feature
        branch[segment] = split.test.branch_of(X[rows[segment], j], flat.features[j])
    return branch


def _spread(flat: FlatTree, rows: np.ndarray, node: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Send each (row, node) down all of the node's children, weighted by training fractions."""
    count = flat.n_children[node]
    start = np.repeat(flat.child_offset[node], count)
    within = np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
    child = flat.child_table[start + within]
    return np.repeat(rows, count), child, np.repeat(weight, count) * flat.fraction[child]


#: dense_ends takes the rows still walking out of its arrays every this many levels.
DENSE_LEVELS = 8


#: dense_ends walks this many rows at a time: its arrays then stay in the processor's cache.
DENSE_BLOCK = 8192


def dense_ends(flat: FlatTree, X: Any, features: tuple[Feature, ...]) -> np.ndarray | None:
    """The end node of each row of a numeric array, walked with a few numpy steps per level;
    None when this walk does not apply (another kind of input, a categorical feature, a split
    that is not ``x <= t``, a missing or infinite value anywhere: :func:`descend` decides).

    Rows are walked :data:`DENSE_BLOCK` at a time. All rows of a block take one step per
    level together, whether or not they have reached a leaf (a leaf leads to itself), so a
    level costs the same few whole-array operations; every :data:`DENSE_LEVELS` levels the
    rows at leaves leave the arrays.
    """
    if not (flat.dense and type(X) is np.ndarray and X.ndim == 2 and X.dtype.kind in "iuf" and X.shape[0] > 0):
        return None
    if X.shape[1] != len(features) or not all(f.is_numeric for f in features):
        return None
    m, k = X.shape
    if X.dtype == np.float64 and X.flags.f_contiguous and not X.flags.c_contiguous:
        # Column by column (a DataFrame's values): walked where they are, not copied.
        cells, feature_step, row_step = X.T.reshape(-1), m, 1
    else:
        X = np.ascontiguousarray(X, dtype=np.float64)
        cells, feature_step, row_step = X.reshape(-1), 1, k
    with np.errstate(over="ignore", invalid="ignore"):  # only whether the sum is finite matters
        total = X.sum()
    if not np.isfinite(total):  # a NaN or an infinity (or a huge sum): descend decides
        return None
    out = np.empty(m, dtype=np.intp)
    levels = int(flat.depth.max())
    for start in range(0, m, DENSE_BLOCK):
        stop = min(m, start + DENSE_BLOCK)
        rows = np.arange(start, stop, dtype=np.intp)
        _walk_block(flat, cells, rows, rows * row_step, levels, out, feature_step=feature_step)
    return out


def _walk_block(flat: FlatTree, cells: np.ndarray, rows: np.ndarray, base: np.ndarray, levels: int, out: np.ndarray, *, feature_step: int = 1) -> None:
    """Walk ``rows`` (whose cells start at ``base``, a feature's cell ``feature_step`` after
    the one before) down ``levels`` levels; their end nodes go to ``out``."""
    feature, threshold, child, leaf = flat.dense_feature, flat.dense_threshold, flat.dense_child, flat.dense_leaf
    assert feature is not None and threshold is not None and child is not None and leaf is not None  # a dense tree
    if feature_step != 1:
        feature = feature * feature_step
    slot = np.zeros(len(rows), dtype=np.intp)
    while True:
        steps = min(DENSE_LEVELS, levels)
        for _ in range(steps):  # ndarray.take: fancy indexing's work with less overhead
            x = cells.take(feature.take(slot) + base)
            slot = child.take(slot + (x > threshold.take(slot)))
        levels -= steps
        if levels <= 0:
            out[rows] = slot >> 1
            return
        done = leaf[slot]
        if done.any():
            out[rows[done]] = slot[done] >> 1
            keep = ~done
            rows, base, slot = rows[keep], base[keep], slot[keep]
            if not rows.size:
                return


def normalised_fractions(flat: FlatTree) -> np.ndarray:
    if flat.regression:
        w = flat.value[:, :1]
        return np.where(w > 0, flat.value[:, 1:2] / np.where(w > 0, w, 1.0), 0.0)
    total = flat.value.sum(axis=1, keepdims=True)
    uniform = 1.0 / max(1, flat.value.shape[1])
    return np.where(total > 0, flat.value / np.where(total > 0, total, 1.0), uniform)
