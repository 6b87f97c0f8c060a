"""TreeSHAP: each feature's exact share of a tree's or an ensemble's answer for a row.

:func:`shap_values` gives, for every row and feature, the feature's Shapley value in the answer
(Lundberg et al. 2018, "Consistent individualized feature attribution for tree ensembles"):
the values of a row and the ``expected_value`` add up to the model's output for that row.
Two games, as ``shap.TreeExplainer`` names them:

- ``feature_perturbation="tree_path_dependent"`` (the default): a feature left out of a coalition
  follows every branch of its splits in proportion to the training weight that went each way
  (each node's *cover*: its weighted count, a regression node's weight), Algorithm 2 of the
  paper. ``expected_value`` is the cover-weighted mean of the leaves.
- ``feature_perturbation="interventional"``: a left-out feature takes its value from a row of
  the background set ``data`` (e.g. 100 rows), averaged over them (Lundberg et al. 2020);
  ``expected_value`` is the mean output over the background.

**What is explained.** A classification tree, a bagging ensemble or a forest: the class
probabilities (``values`` shaped ``(rows, features, classes)``, as ``shap.TreeExplainer``
answers for scikit-learn's classifiers); a regression tree or ensemble: the prediction
(``(rows, features)``); AdaBoost: its weighted votes per class (:func:`puretree.ensemble.votes`,
whose softmax is the probability: a softmax is not a sum, so the votes are what adds up); a
boosted model (:class:`~puretree.boosted.Boosted`: gradient boosting grown or imported): its raw
scores (``decision_function``, shap's ``model_output="raw"``: log-odds for two classes, one raw
score per class for more), ``(rows, features)`` for one output and ``(rows, features, outputs)``
for more, the initial score in ``expected_value``; a stage tree's leaves count
``learning_rate`` times, each node's cover its first statistic (the training weight that
reached it, as scikit-learn stores it; XGBoost's ``cover`` and LightGBM's counts for imported
models), a float32 model's features read as float32 as it reads them.

**How.** A leaf's share depends on the row only through which of the features on the leaf's
path the row agrees with (and, interventionally, which the background row agrees with), so the
paper's recursion is run once per leaf and pattern for all rows and leaves of a depth together
with numpy: the same polynomial (EXTEND and UNWIND of the paper, in shap's float order within a
leaf), with the leaves' terms added in another order than shap's walk, so values agree with
shap's to rounding, not bit for bit.

**Missing values and categories.** A missing value (NaN) goes where prediction sends it (the
split's learned side, else the heavier child under the ``"majority"`` strategy), so a row with
NaN is explained as it is answered; trees under the ``"distribute"`` or ``"error"`` strategy, or
with surrogate splits, refuse rows with NaN. Categorical splits of any kind (multiway, subset) are
explained by the categories each branch takes; a category the tree has no branch for is refused.

>>> import puretree as pt
>>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
>>> schema = Schema((Feature("a"), Feature("b")), task="regression")
>>> leaf = lambda w, mean: Leaf((w, w * mean, w * mean * mean))
>>> tree = pt.Tree(Split(0, Threshold(0.5), (leaf(2, 0.0), Split(1, Threshold(0.5), (leaf(1, 1.0), leaf(1, 3.0)), (2, 4, 10))), (4, 4, 10)), schema)
>>> sv = pt.shap_values(tree, [[1.0, 1.0]])
>>> sv.expected_value, sv.values.tolist()
(1.0, [[1.25, 0.75]])
>>> bool(sv.values.sum() + sv.expected_value == pt.predict(tree, [[1.0, 1.0]])[0])
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import attrs
import numpy as np

from .boosted import Boosted
from .data import Dataset, encode_features
from .ensemble import Ensemble, vote_total
from .errors import DataError, ParameterError
from .fold import iter_nodes, walk
from .nodes import Codes, Interval, Split
from .predict import unseen_cells
from .tree import Tree

__all__ = ["PERTURBATIONS", "ShapValues", "shap_values", "ContributionLeaf", "ContributionTables", "contribution_tables", "contributions"]

#: The two games (``shap.TreeExplainer``'s names).
PERTURBATIONS = ("tree_path_dependent", "interventional")

#: What :func:`shap_values` explains.
Model = Tree | Ensemble | Boosted

#: Rows, leaves and path entries computed at once: the working arrays stay near 32 MB.
_CELLS = 4_000_000


@attrs.frozen(eq=False)
class ShapValues:
    """Shapley values of a model's output and the output they start from.

    ``values[i, j]`` (``values[i, j, k]`` for class ``k``) is feature ``j``'s share in row ``i``'s
    output; ``values[i].sum(axis=0) + expected_value`` is the output. ``output`` says which output:
    ``"probability"``, ``"value"`` (regression), ``"votes"`` (AdaBoost) or ``"raw"`` (a boosted model's raw scores).
    """

    values: np.ndarray
    expected_value: Any
    feature_names: tuple[str, ...]
    output: str
    feature_perturbation: str


# -- the leaves and their paths ---------------------------------------------------------------


@attrs.frozen(eq=False)
class _Leaves:
    """Every leaf of a model whose path tests ``depth`` distinct features, as arrays.

    Per leaf ``l`` and path feature ``d`` (the features in the order of their last test on the
    path, as the paper's unique path keeps them): the column ``feature``; the box the path asks
    of it, ``lo < x <= hi`` (numeric) or ``allowed[l, d, code]`` (categorical, ``categorical``);
    whether a missing value follows the path (``nan_ok``); the share of the training weight
    that follows the path at its splits (``zero``). ``value[l]``: the leaf's output, scaled by
    its member's weight in the model.
    """

    depth: int
    feature: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    nan_ok: np.ndarray
    zero: np.ndarray
    categorical: np.ndarray
    allowed: np.ndarray | None
    value: np.ndarray


def _weight(stats: tuple[float, ...], regression: bool) -> float:
    """A node's training weight (shap's cover): its weighted count, a regression node's weight."""
    return stats[0] if regression else sum(stats)


def _output(stats: tuple[float, ...], regression: bool) -> np.ndarray | None:
    """A node's answer as prediction gives it (None: a node without weight, which answers as its
    parent: :func:`puretree.flat.normalised_fractions`)."""
    w = _weight(stats, regression)
    if not w > 0:
        return None
    return np.array([stats[1] / w]) if regression else np.asarray(stats, dtype=np.float64) / sum(stats)


Path = list[tuple[int, Any, bool, float]]


def _paths(tree: Tree, votes: bool) -> tuple[list[tuple[Path, np.ndarray]], np.ndarray]:
    """Per leaf: its path's distinct features as ``(feature, constraint, nan_ok, zero fraction)``
    in the order of their last test on the path, and the leaf's output (an AdaBoost member's
    vote when ``votes``); and the path-dependent expected output: the leaves' outputs weighted by
    the training weight's share that reaches them."""
    regression = tree.schema.is_regression
    k = 1 if regression else len(tree.schema.classes)
    features = tree.schema.features
    leaves: list[tuple[Path, np.ndarray]] = []
    expected = np.zeros(k)
    root_value = _output(tree.root.stats, regression)
    if root_value is None:
        root_value = np.zeros(1) if regression else np.full(k, 1.0 / max(1, k))
    Handed = tuple[dict[int, tuple[Any, bool, float]], float, np.ndarray]

    def down(node: Any, handed: Handed) -> list[Handed]:
        """Each child's path state, share of the training weight and output (an empty child
        answers as its parent)."""
        state, reach, value = handed
        j = node.feature
        constraints = node.test.constraints(features[j])
        covers = [_weight(c.stats, regression) for c in node.children]
        total = sum(covers)
        side = getattr(node.test, "missing_branch", None)
        # Where a missing value goes: the learned side, else the heavier child under "majority"
        # (the first of the heaviest, as prediction takes it); under the other strategies nowhere.
        nan_to = side if side is not None else int(np.argmax(covers)) if tree.missing == "majority" else -1
        out = []
        for b, child in enumerate(node.children):
            # The branch's share among its siblings' weights (= of the parent's, in a tree whose
            # weights add up, as scikit-learn's do): the values add up in any tree.
            share = covers[b] / total if total > 0 else 0.0
            if j in state:
                box, nan_ok, zero = state[j]
                entry = (box.meet(constraints[b]), nan_ok and b == nan_to, share * zero)
            else:
                entry = (constraints[b], b == nan_to, share)
            kept = {f: v for f, v in state.items() if f != j}
            kept[j] = entry  # last: the feature's latest test moves it to the end of the path
            own = _output(child.stats, regression)
            out.append((kept, reach * share, value if own is None else own))
        return out

    for node, (state, reach, value) in walk(tree, down, ({}, 1.0, root_value)):
        if type(node) is not Split:
            if votes:
                hit = np.arange(k) == int(np.argmax(value))
                value = np.where(hit, 1.0, -1 / (k - 1) if k > 1 else 0.0)
            leaves.append(([(j, *entry) for j, entry in state.items()], value))
            expected += reach * value
    return leaves, expected


def _leaves(model: Model) -> tuple[list[_Leaves], np.ndarray, int]:
    """The model's leaves grouped by path depth, the path-dependent expected value, and the
    number of outputs."""
    k = _n_outputs(model)
    rows: dict[int, list[tuple[Path, np.ndarray]]] = {}
    expected = np.zeros(k)
    if isinstance(model, Boosted):
        expected += model.init
    votes = isinstance(model, Ensemble) and model.method == "adaboost"
    for member, scale, output in _members(model):
        leaves, member_expected = _paths(member, votes)
        expected += _placed(member_expected, k, output) * scale
        for path, value in leaves:
            rows.setdefault(len(path), []).append((path, _placed(value, k, output) * scale))
    categories = max((len(f.categories) for f in model.schema.features), default=0)
    groups = []
    for depth in sorted(rows):
        group = rows[depth]
        m = len(group)
        feature = np.zeros((m, depth), dtype=np.intp)
        lo = np.full((m, depth), -math.inf)
        hi = np.full((m, depth), math.inf)
        nan_ok = np.zeros((m, depth), dtype=bool)
        zero = np.zeros((m, depth))
        categorical = np.zeros((m, depth), dtype=bool)
        allowed = None
        for i, (path, _) in enumerate(group):
            for d, (j, box, ok, z) in enumerate(path):
                feature[i, d], nan_ok[i, d], zero[i, d] = j, ok, z
                if isinstance(box, Interval):
                    lo[i, d], hi[i, d] = box.lo, box.hi
                else:
                    assert isinstance(box, Codes)
                    if allowed is None:
                        allowed = np.zeros((m, depth, max(1, categories)), dtype=bool)
                    categorical[i, d] = True
                    allowed[i, d, list(box.codes)] = True
        value = np.array([v for _, v in group]).reshape(m, k)
        groups.append(_Leaves(depth, feature, lo, hi, nan_ok, zero, categorical, allowed, value))
    return groups, expected, k


def _placed(value: np.ndarray, k: int, output: int | None) -> np.ndarray:
    """A member's output as the model's ``k`` outputs: all of them (None), or a boosted stage
    tree's one value at its output."""
    if output is None:
        return value
    out = np.zeros(k)
    out[output] = value[0]
    return out


def _members(model: Model) -> list[tuple[Tree, float, int | None]]:
    """The trees, the factor each one's output is scaled by in the model's output, and the
    output a boosted stage tree adds to (None: every output)."""
    if isinstance(model, Tree):
        return [(model, 1.0, None)]
    if isinstance(model, Boosted):
        return [(tree, model.learning_rate, c) for stage in model.stages for c, tree in enumerate(stage)]
    total = vote_total(model)
    return [(m, w / total, None) for m, w in zip(model.members, model.weights)]


def _n_outputs(model: Model) -> int:
    if isinstance(model, Boosted):
        return model.n_outputs
    return 1 if model.schema.is_regression else len(model.schema.classes)


# -- which rows agree with which path ---------------------------------------------------------


def _agree(group: _Leaves, X: np.ndarray) -> np.ndarray:
    """``(rows, leaves, depth)``: whether each row's value of each path feature is in the path's box."""
    x = X[:, group.feature]
    with np.errstate(invalid="ignore"):
        ok = (x > group.lo) & (x <= group.hi)
    if group.allowed is not None:
        codes = np.where(np.isnan(x) | ~group.categorical, 0, x).astype(np.intp)
        codes = np.clip(codes, 0, group.allowed.shape[2] - 1)
        leaf = np.arange(group.feature.shape[0])[None, :, None]
        path = np.arange(group.depth)[None, None, :]
        ok = np.where(group.categorical, group.allowed[leaf, path, codes], ok)
    return np.where(np.isnan(x), group.nan_ok, ok)


# -- the paper's polynomial, for many leaves and rows at once --------------------------------


def _path_shares(one: np.ndarray, zero: np.ndarray) -> np.ndarray:
    """Algorithm 2's weight of each path feature at a leaf, times ``one - zero``: EXTEND over the
    path, then UNWOUND_PATH_SUM per feature (shap's ``tree_shap.h``), batched over the leading axes.

    ``one``: ``(..., depth)``, 1 where the row takes the path's branches of a feature, else 0;
    ``zero``: the training weight's share that takes them; the answer has their shape.
    """
    depth = one.shape[-1]
    shape = np.broadcast_shapes(one.shape, zero.shape)
    one = np.broadcast_to(one, shape)
    zero = np.broadcast_to(zero, shape)
    pweight = np.zeros((*shape[:-1], depth + 1))
    pweight[..., 0] = 1.0
    for k in range(1, depth + 1):  # extend by path feature k (the dummy root is element 0)
        o, z = one[..., k - 1 : k], zero[..., k - 1 : k]
        old = pweight[..., :k].copy()
        at = np.arange(k)
        # shap's z * pweight[i] * (k - i) / (k + 1), with the two constants taken as one factor
        np.multiply(old, z * ((k - at) / (k + 1)), out=pweight[..., :k])
        pweight[..., 1 : k + 1] += old * (o * ((at + 1) / (k + 1)))
    # UNWOUND_PATH_SUM: for a feature the row takes (one = 1) shap's recursion, term by term in
    # its order; for one it does not (one = 0) the sum of pweight[i] / (zero * (depth - i)), taken
    # here as (sum of pweight[i] / (depth - i)) / zero: one product for all of them.
    total = np.zeros(shape)
    nxt = np.repeat(pweight[..., depth : depth + 1], depth, axis=-1)
    tmp = np.empty(shape)
    for i in range(depth - 1, -1, -1):
        np.divide(nxt, i + 1, out=tmp)
        total += tmp
        np.multiply(tmp, zero, out=nxt)
        nxt *= depth - i
        np.subtract(pweight[..., i : i + 1], nxt, out=nxt)
    with np.errstate(divide="ignore", invalid="ignore"):
        cold = (pweight[..., :depth] @ (1.0 / (depth - np.arange(depth))))[..., None] / zero
    total = np.where(one != 0, total, cold)
    shares = total * (depth + 1) * (one - zero)
    # A leaf no coalition reaches (a path feature the row does not take and no training weight
    # took): its terms are 0 / 0 above, and its share nothing.
    dead = ((one == 0) & (zero == 0)).any(axis=-1, keepdims=True)
    return np.where(dead, 0.0, shares)


def _interventional_weights(depth: int) -> tuple[np.ndarray, np.ndarray]:
    """``(N, M)`` -> the Shapley weight of a feature a leaf needs from the row (``M`` of the
    ``N`` features where the row and the background row part) and of one it needs from the
    background row: ``(M-1)! (N-M)! / N!`` and ``M! (N-M-1)! / N!``."""
    pos = np.zeros((depth + 1, depth + 1))
    neg = np.zeros((depth + 1, depth + 1))
    for n in range(1, depth + 1):
        for m in range(n + 1):
            if m >= 1:
                pos[n, m] = 1.0 / (n * math.comb(n - 1, m - 1))
            if m < n:
                neg[n, m] = 1.0 / (n * math.comb(n - 1, m))
    return pos, neg


def _patterns(agree: np.ndarray) -> np.ndarray:
    """Each row's agreement with a leaf's path as bits (path feature ``d``: bit ``d``), as one
    product with the powers of two (exact in float64 for the paths of at most 40 features that
    take patterns)."""
    depth = agree.shape[-1]
    if depth > 52:
        return (agree.astype(np.int64) << np.arange(depth, dtype=np.int64)).sum(axis=-1)
    return (agree.astype(np.float64) @ (2.0 ** np.arange(depth))).astype(np.int64)


def _distinct(agree: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (leaf, pattern) pairs of ``agree`` (``(rows, leaves, depth)``): each pair's
    leaf, its pattern's bits ``(pairs, depth)``, and the pair of each row and leaf
    ``(rows, leaves)``. Rows share few patterns per leaf, so the paper's polynomial runs once
    per pair, not once per row."""
    m, depth = agree.shape[1], agree.shape[2]
    key = _patterns(agree) * m + np.arange(m)  # < 2**depth * m: exact in int64 for depth <= 40
    unique, inverse = np.unique(key, return_inverse=True)
    bits = ((unique // m)[:, None] >> np.arange(depth)) & 1
    return unique % m, bits.astype(bool), inverse.reshape(key.shape)


#: Paths of more distinct features than this are computed row by row, not by pattern.
_PATTERN_DEPTH = 40


def _add(phi: np.ndarray, group: _Leaves, shares: np.ndarray) -> None:
    """``phi[row, feature, output] += shares[row, leaf, d] * value[leaf, output]`` over the
    leaves' path features ``d`` that test ``feature``."""
    for j in np.unique(group.feature).tolist():
        leaf, d = np.nonzero(group.feature == j)
        phi[:, j, :] += shares[:, leaf, d] @ group.value[leaf]


def _chunks(n: int, per_row: int) -> list[slice]:
    step = max(1, _CELLS // max(1, per_row))
    return [slice(s, min(n, s + step)) for s in range(0, n, step)]


def _by_pairs(group: _Leaves, X: np.ndarray, reached: np.ndarray, phi: np.ndarray, shares_of: Any) -> None:
    """Add to ``phi`` each row's shares at the group's leaves, ``shares_of(leaf, bits)`` computing
    them for (leaf, agreement pattern) pairs: for every pattern of every leaf at once when there
    are no more patterns than rows (then looked up per row), else for the pairs the rows have."""
    n = X.shape[0]
    m, depth = group.feature.shape[0], group.depth
    table = None
    if 2**depth <= n:
        every = ((np.arange(2**depth)[:, None] >> np.arange(depth)) & 1).astype(bool)
        leaf = np.repeat(np.arange(m), 2**depth)
        table = shares_of(leaf, np.tile(every, (m, 1))).reshape(m, 2**depth, depth)
    for rows in _chunks(n, m * (depth + 1) * 4):
        agree = _agree(group, X[rows])
        reached[rows] += agree.all(axis=-1).sum(axis=1)
        if table is not None:
            shares = table[np.arange(m)[None, :], _patterns(agree)]
        else:
            leaf, bits, pair = _distinct(agree)
            shares = shares_of(leaf, bits)[pair]
        _add(phi[rows], group, shares)


def _path_dependent(groups: list[_Leaves], X: np.ndarray, phi: np.ndarray, reached: np.ndarray) -> None:
    """Add the path-dependent values to ``phi``, and to ``reached`` the leaves each row reaches."""
    for group in groups:
        m, depth = group.feature.shape[0], group.depth
        if depth == 0:
            reached += m
        elif depth > _PATTERN_DEPTH:  # patterns too wide for an int64 key: row by row
            for rows in _chunks(X.shape[0], m * (depth + 1) * 4):
                agree = _agree(group, X[rows])
                reached[rows] += agree.all(axis=-1).sum(axis=1)
                _add(phi[rows], group, _path_shares(agree.astype(np.float64), group.zero[None]))
        else:
            def shares_of(leaf: np.ndarray, bits: np.ndarray, group: _Leaves = group) -> np.ndarray:
                out = np.empty(bits.shape)
                for part in _chunks(len(leaf), 4 * (group.depth + 1)):
                    out[part] = _path_shares(bits[part].astype(np.float64), group.zero[leaf[part]])
                return out

            _by_pairs(group, X, reached, phi, shares_of)


def _interventional(groups: list[_Leaves], X: np.ndarray, R: np.ndarray, phi: np.ndarray, reached: np.ndarray) -> np.ndarray:
    """Add the interventional values to ``phi``, and to ``reached`` the leaves each row reaches;
    return the mean output over the background."""
    n_back = R.shape[0]
    expected = np.zeros(phi.shape[2])
    for group in groups:
        m, depth = group.feature.shape[0], group.depth
        back = _agree(group, R)  # (background, leaves, depth)
        expected += back.all(axis=-1).sum(axis=0) @ group.value / n_back
        if depth == 0:
            reached += m
            continue
        if depth > _PATTERN_DEPTH:
            raise ParameterError(f"interventional values take paths of at most {_PATTERN_DEPTH} distinct features; this model has a leaf whose path tests {depth}")
        full = (1 << depth) - 1
        rcode = _patterns(back).T  # (leaves, background)
        rfail = (~back).astype(np.float64).transpose(1, 0, 2)  # (leaves, background, depth)
        pos, neg = _interventional_weights(depth)

        def shares_of(leaf: np.ndarray, bits: np.ndarray, rcode: np.ndarray = rcode, rfail: np.ndarray = rfail, full: int = full, pos: np.ndarray = pos, neg: np.ndarray = neg) -> np.ndarray:
            out = np.empty(bits.shape)
            for part in _chunks(len(leaf), n_back * (bits.shape[1] + 2)):
                at = leaf[part]
                out[part] = _interventional_shares(bits[part], rcode[at], rfail[at], full, pos, neg) / n_back
            return out

        _by_pairs(group, X, reached, phi, shares_of)
    return expected


def _interventional_shares(agree: np.ndarray, rcode: np.ndarray, rfail: np.ndarray, full: int, pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """Summed over the background rows, each path feature's weight at a leaf for a pattern
    (``agree``: ``(pairs, depth)``; the leaf's background patterns ``rcode``, ``(pairs, background)``,
    and the features each background row fails, ``rfail``, ``(pairs, background, depth)``):
    the leaf is reached by a mix of the row and a background row when every path feature agrees
    with one of them; a feature only the row agrees with gets ``+pos[N, M]``, one only the
    background row agrees with ``-neg[N, M]`` (``M`` of the first kind, ``N`` of both)."""
    xcode = _patterns(agree)[:, None]  # (pairs, 1)
    needs_back = ~xcode & full
    reach = (needs_back & ~rcode) == 0  # (pairs, background)
    m = np.bitwise_count(xcode & ~rcode & full).astype(np.intp)
    nn = m + np.bitwise_count(needs_back).astype(np.intp)
    a = np.where(reach, pos[nn, m], 0.0)
    b = np.where(reach, neg[nn, m], 0.0).sum(axis=1)  # (pairs,)
    from_row = np.matmul(a[:, None, :], rfail)[:, 0, :]  # (pairs, depth)
    return np.where(agree, from_row, -b[:, None])


# -- checks and the public function ----------------------------------------------------------


def _row_namer(X: Any, what: str) -> Any:
    """How errors name a row of ``X`` (``what``: "X" or "data"): by file and line for a dataset
    read from a file, else by its argument's name and row number."""
    if isinstance(X, Dataset) and X.source is not None:
        return X.row_name
    return lambda r: f"{what}: row {r}"


def _encoded(model: Model, X: Any, what: str) -> np.ndarray:
    """``X`` as the model's float matrix (a float32 boosted model's numeric features rounded to
    float32, as it reads them), its unseen categories and its missing values that the model
    cannot explain refused with the column and row named."""
    Xe = np.array(encode_features(model.schema, X), dtype=np.float64)
    if isinstance(model, Boosted) and model.precision == "float32":
        numeric = [j for j, f in enumerate(model.schema.features) if f.is_numeric]
        with np.errstate(over="ignore"):  # beyond float32's range: +-inf, as XGBoost reads it
            Xe[:, numeric] = Xe[:, numeric].astype(np.float32).astype(np.float64)
    row = _row_namer(X, what)
    for name, count, first in unseen_cells(model.schema, Xe):
        raise DataError(f"{row(first)}, column {name!r}: a category the model never saw (rows with one: {count}); its answer stops at a split and has no Shapley values")
    absent = np.isnan(Xe)
    if absent.any():
        for m, _, _ in _members(model):
            surrogated = any(type(n) is Split and n.surrogates is not None for n in iter_nodes(m))
            if m.missing in ("distribute", "error") or surrogated:
                r, j = (int(v[0]) for v in np.nonzero(absent))
                why = "surrogate splits" if surrogated else f"the missing-value strategy {m.missing!r}"
                raise DataError(f"{row(r)}, column {model.schema.feature_names[j]!r}: a missing value, which a tree with {why} does not send down one path; TreeSHAP needs one")
    return Xe


def _check_reached(reached: np.ndarray, n_trees: int, row: Any) -> None:
    """Every row reached one leaf of every tree (a category with no branch at a split stops it)."""
    bad = np.flatnonzero(reached != n_trees)
    if bad.size:
        raise DataError(f"{row(int(bad[0]))} stops at a split with no branch for its value (rows that do: {bad.size}); it has no Shapley values")


def _reached(groups: list[_Leaves], X: np.ndarray) -> np.ndarray:
    """How many leaves each row reaches."""
    reached = np.zeros(X.shape[0], dtype=np.int64)
    for group in groups:
        for rows in _chunks(X.shape[0], group.feature.size + 1):
            reached[rows] += _agree(group, X[rows]).all(axis=-1).sum(axis=1)
    return reached


def shap_values(model: Model, X: Any, *, feature_perturbation: str = "tree_path_dependent", data: Any = None) -> ShapValues:
    """The TreeSHAP values of ``model``'s output for the rows ``X`` (see the module notes).

    ``X`` and ``data`` are what :func:`puretree.predict` takes (a 2-D array in schema order, a
    DataFrame, a :class:`~puretree.data.Dataset`, mappings). ``data`` is the background set of the
    ``"interventional"`` game and is not taken by the other. One row given as a mapping gives
    ``values`` without the row axis.

    >>> import puretree as pt
    >>> ds = pt.datasets.load_playtennis()  # categorical features, multiway splits
    >>> tree = pt.id3(ds)
    >>> sv = pt.shap_values(tree, ds)
    >>> sv.values.shape, sv.output
    ((14, 4, 2), 'probability')
    >>> bool(np.allclose(sv.values.sum(axis=1) + sv.expected_value, pt.predict_proba(tree, ds)))
    True
    """
    if not isinstance(model, (Tree, Ensemble, Boosted)):
        raise ParameterError(f"shap_values explains a puretree Tree, Ensemble or Boosted model, got {type(model).__name__}")
    if feature_perturbation not in PERTURBATIONS:
        raise ParameterError(f"feature_perturbation must be one of {list(PERTURBATIONS)}, got {feature_perturbation!r}")
    interventional = feature_perturbation == "interventional"
    if interventional and data is None:
        raise ParameterError('feature_perturbation="interventional" needs a background set: data=... (e.g. 100 rows of the training data)')
    if not interventional and data is not None:
        raise ParameterError('data (a background set) is for feature_perturbation="interventional"; "tree_path_dependent" uses the training weight of each node')
    Xe = _encoded(model, X, "X")
    groups, expected, k = _leaves(model)
    n_trees = len(_members(model))
    phi = np.zeros((Xe.shape[0], model.schema.n_features, k))
    reached = np.zeros(Xe.shape[0], dtype=np.int64)
    if interventional:
        R = _encoded(model, data, "data")
        if R.shape[0] == 0:
            raise ParameterError("the background set data has no rows")
        _check_reached(_reached(groups, R), n_trees, _row_namer(data, "data"))
        expected = _interventional(groups, Xe, R, phi, reached)
        if isinstance(model, Boosted):  # every row starts from the initial raw score
            expected = expected + np.asarray(model.init)
    else:
        _path_dependent(groups, Xe, phi, reached)
    _check_reached(reached, n_trees, _row_namer(X, "X"))
    if isinstance(model, Boosted):
        output = "raw"
    else:
        output = "value" if model.schema.is_regression else "votes" if isinstance(model, Ensemble) and model.method == "adaboost" else "probability"
    single = k == 1 and (model.schema.is_regression or isinstance(model, Boosted))  # one output: no output axis
    values: np.ndarray = phi[:, :, 0] if single else phi
    base: Any = float(expected[0]) if single else expected
    if isinstance(X, Mapping):
        values = values[0]
    return ShapValues(values, base, model.schema.feature_names, output, feature_perturbation)


# -- one float order for the library and the generated code ---------------------------------


@attrs.frozen(eq=False)
class ContributionLeaf:
    """One leaf as :func:`contributions` and the generated ``NAME_contributions`` read it: the
    path's distinct features (``feature``, in the order of their last test on the path), the
    box each asks of the row (``lo < x <= hi``), whether a missing value follows the path
    (``nan_ok``), the share of the training weight that follows it (``zero``), and the leaf's
    output, scaled by its tree's weight in the model: ``value[c]`` for every output ``c``
    (``output`` None), or one value added to output ``output`` (a boosted stage tree)."""

    feature: tuple[int, ...]
    lo: tuple[float, ...]
    hi: tuple[float, ...]
    nan_ok: tuple[bool, ...]
    zero: tuple[float, ...]
    value: tuple[float, ...]
    output: int | None


@attrs.frozen(eq=False)
class ContributionTables:
    """A model's leaves in the order :func:`contributions` adds them (tree by tree, each tree's
    leaves in pre-order), its ``expected`` value per output, ``n_features``, ``n_outputs``,
    whether rows with a missing value are refused (``nan_refused``: a tree with the
    ``"distribute"`` or ``"error"`` strategy or surrogate splits sends one down no single path)
    and whether the numeric features are read as float32 (``float32``: an XGBoost model)."""

    leaves: tuple[ContributionLeaf, ...]
    expected: tuple[float, ...]
    n_features: int
    n_outputs: int
    nan_refused: bool
    float32: bool


def contribution_tables(model: Model) -> ContributionTables:
    """The leaves of ``model`` as :func:`contributions` and the generated code walk them.

    Numeric features only: a categorical split is refused (:class:`~puretree.errors.ParameterError`).

    >>> import puretree as pt
    >>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
    >>> schema = Schema((Feature("a"),), task="regression")
    >>> tree = pt.Tree(Split(0, Threshold(0.5), (Leaf((1, 0.0, 0.0)), Leaf((3, 6.0, 12.0))), (4, 6.0, 12.0)), schema)
    >>> t = contribution_tables(tree)
    >>> t.expected, [(leaf.feature, leaf.lo, leaf.hi, leaf.zero, leaf.value) for leaf in t.leaves]
    ((1.5,), [((0,), (-inf,), (0.5,), (0.25,), (0.0,)), ((0,), (0.5,), (inf,), (0.75,), (2.0,))])
    """
    if not isinstance(model, (Tree, Ensemble, Boosted)):
        raise ParameterError(f"contributions explain a puretree Tree, Ensemble or Boosted model, got {type(model).__name__}")
    for f in model.schema.features:
        if not f.is_numeric:
            raise ParameterError(f"contributions in the code's float order take numeric features; feature {f.name!r} is categorical (shap_values explains it)")
    k = _n_outputs(model)
    expected = np.zeros(k)
    if isinstance(model, Boosted):
        expected += model.init
    votes = isinstance(model, Ensemble) and model.method == "adaboost"
    leaves = []
    refused = False
    for member, scale, output in _members(model):
        refused = refused or member.missing in ("distribute", "error") or any(type(n) is Split and n.surrogates is not None for n in iter_nodes(member))
        paths, member_expected = _paths(member, votes)
        expected += _placed(member_expected, k, output) * scale
        for path, value in paths:
            if not path:
                continue  # a tree of one leaf: its value is all in the expected value
            boxes = [box for _, box, _, _ in path]
            for (j, _, _, _), box in zip(path, boxes):
                if not isinstance(box, Interval):
                    raise ParameterError(f"contributions in the code's float order take threshold splits; feature {model.schema.feature_names[j]!r} is split by categories (shap_values explains it)")
            scaled = _placed(value, k, output) * scale
            leaves.append(ContributionLeaf(
                tuple(int(j) for j, _, _, _ in path), tuple(float(b.lo) for b in boxes), tuple(float(b.hi) for b in boxes),
                tuple(bool(ok) for _, _, ok, _ in path), tuple(float(z) for _, _, _, z in path),
                (float(scaled[output]),) if output is not None else tuple(float(v) for v in scaled), output))
    float32 = isinstance(model, Boosted) and model.precision == "float32"
    return ContributionTables(tuple(leaves), tuple(float(v) for v in expected), model.schema.n_features, k, refused, float32)


def _leaf_shares(leaf: ContributionLeaf, x: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Rows ``x`` (``(rows, features)``) that take part at ``leaf`` and each path feature's
    share there, in the defined float order (see :func:`contributions`), elementwise over the
    rows: numpy's elementwise operations round each one as C's double operations do."""
    depth = len(leaf.feature)
    one = []
    for d, j in enumerate(leaf.feature):
        v = x[:, j]
        with np.errstate(invalid="ignore"):
            inside = (v > leaf.lo[d]) & (v <= leaf.hi[d])
        one.append(np.where(np.isnan(v), leaf.nan_ok[d], inside))
    live = np.ones(x.shape[0], dtype=bool)
    for d in range(depth):
        if leaf.zero[d] == 0.0:
            live &= one[d]  # no coalition without the row's value reaches the leaf
    inv = [0.0] + [1.0 / n for n in range(1, depth + 2)]  # the code's table: products, not divisions
    pw = [np.ones(x.shape[0])] + [np.zeros(x.shape[0]) for _ in range(depth)]
    for k in range(1, depth + 1):  # EXTEND by path feature k (element 0: the empty path)
        o, z = one[k - 1], leaf.zero[k - 1]
        for i in range(k - 1, -1, -1):
            pw[i + 1] = np.where(o, pw[i + 1] + pw[i] * float(i + 1) * inv[k + 1], pw[i + 1])
            pw[i] = z * pw[i] * float(k - i) * inv[k + 1]
    shares = []
    with np.errstate(divide="ignore", invalid="ignore"):
        for d in range(depth):
            z = leaf.zero[d]
            nxt = pw[depth]
            hot = np.zeros(x.shape[0])
            for i in range(depth - 1, -1, -1):  # UNWOUND_PATH_SUM, the row's value on the path
                tmp = nxt * inv[i + 1]
                hot = hot + tmp
                nxt = pw[i] - tmp * z * float(depth - i)
            cold = np.zeros(x.shape[0])
            if z != 0.0:
                for i in range(depth - 1, -1, -1):  # the row's value off the path
                    cold = cold + pw[i] * inv[depth - i]
                cold = cold / z
            total = np.where(one[d], hot, cold)
            shares.append(total * float(depth + 1) * (np.where(one[d], 1.0, 0.0) - z))
    return live, shares


def contributions(model: Model, X: Any) -> np.ndarray:
    """Path-dependent TreeSHAP in one defined float order, the one the generated
    ``NAME_contributions`` follows (``generate(..., contributions=True)``), so that the code's
    values equal these bit for bit. ``(rows, outputs, features + 1)``: per output, the
    features' values, then the expected value (the layout of the generated code's ``out``).

    The order: ``out`` starts at zero; for each tree in the model's order and each of its
    leaves in pre-order whose path features the row's values or the training weight can take
    (a feature whose branch no training weight took and the row does not take leaves it out),
    Lundberg's EXTEND over the path features (``pw[i+1] += pw[i] * (i+1) * inv[k+1]`` where the
    row takes feature ``k``'s branches, then ``pw[i] = zero * pw[i] * (k-i) * inv[k+1]``, ``i`` down
    from ``k-1``; ``inv[n]`` the double nearest ``1/n``: products, where a microcontroller's
    software divisions cost several times more), then per path feature ``d`` in path order its
    UNWOUND_PATH_SUM ``total`` (``i`` down from ``depth-1``; see docs/explain.md) and
    ``out[c][feature] += total * (depth+1) * (one - zero) * value[c]``, each product rounded
    before it is added (no fused multiply-add). The values
    equal :func:`shap_values`' to rounding (about 1e-15 relative), not bit for bit: those add in
    another order. Numeric features only; the interventional game needs the background set,
    which the generated code does not carry.

    >>> import puretree as pt
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 4)); y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    >>> tree = pt.cart(X, y, max_depth=4)
    >>> c = contributions(tree, X[:5])
    >>> c.shape, bool(np.allclose(c[:, :, :-1].transpose(0, 2, 1), pt.shap_values(tree, X[:5]).values, rtol=0, atol=1e-12))
    ((5, 2, 5), True)
    """
    tables = contribution_tables(model)
    Xe = _encoded(model, X, "X")
    n, f, k = Xe.shape[0], tables.n_features, tables.n_outputs
    out = np.zeros((n, k, f + 1))
    for leaf in tables.leaves:
        live, shares = _leaf_shares(leaf, Xe)
        for d, j in enumerate(leaf.feature):
            share = np.where(live, shares[d], 0.0)
            for c in ([leaf.output] if leaf.output is not None else range(k)):
                term = share * (leaf.value[0] if leaf.output is not None else leaf.value[c])
                out[:, c, j] = np.where(live, out[:, c, j] + term, out[:, c, j])
    out[:, :, f] = tables.expected
    return out
