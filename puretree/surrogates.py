"""rpart's recursive partitioning with surrogate splits (``grow(..., missing="surrogate")``).

A classification tree grown as rpart 4.1 grows it with ``rpart.control(cp=-1, xval=0,
maxcompete=0, maxsurrogate=5, usesurrogate=2, surrogatestyle=0)`` and its default priors and
losses, so that its predictions are rpart's ``predict(type="prob")``:

- **Primary split** (rpart's ``bsplit`` and ``gini``): each feature is scored on the node's rows
  where it is known, by ``n * I(node) - n_left * I(left) - n_right * I(right)`` over those rows
  (no scaling by the known fraction, unlike :func:`~puretree.builder.grow`'s other modes),
  with ``I`` the Gini index (``p (1 - p)`` summed) or, for ``information_gain``, the entropy.
  A numeric feature is cut between consecutive distinct values; a categorical one by a subset
  of its categories: with two classes the categories ordered by their class-0 proportion and
  cut in that order, else every subset visited in Gray-code order. The first best split
  wins (a later one must be strictly better, as rpart compares), and a split whose improvement
  is at most ``1e-10`` times the largest improvement seen so far in the tree is no split.
  The arithmetic follows rpart's loops step for step (sums in rpart's order), so ties
  fall as they fall in rpart.
- **Surrogates** (``surrogate.c``, ``choose_surg.c``): for every other feature, the split that
  agrees most (by training weight) with the primary's direction on the rows where both are
  known, each category sent its more frequent way; kept when it beats the majority rule
  (adjusted agreement above ``1e-10``, counted over all the rows the primary sends), at most
  ``max_surrogates`` of them, best first.
- **Routing**: a row whose primary value is missing takes the first surrogate it has a value
  for; failing all, the side the primary sends more weight to (a tie: the row stays at the
  node, counted in its statistics only). At prediction (rpart's ``pred_rpart``) the last
  resort is the child with more training rows instead, stored in
  :attr:`~puretree.nodes.Surrogates.fallback` (a tie: the row stops at the split).
- Rows whose features are all missing are left out, as rpart's ``na.rpart`` leaves them out.

It is grown by this module only (the reference builder's place); ``engine="fast"`` and
histogram mode refuse it.

>>> from puretree.builder import cart
>>> X = [[1.0, 1.0], [2.0, 2.0], [3.0, float("nan")], [4.0, 4.0], [float("nan"), 5.0], [6.0, 6.0]]
>>> tree = cart(X, ["a", "a", "a", "b", "b", "b"], missing="surrogate")
>>> print(tree.to_text())
x0 <= 3.5 (surrogate: x1 <= 3): a (3)
x0 > 3.5: b (3)
>>> tree.predict([[float("nan"), 0.5], [float("nan"), 5.5]]).tolist()
['a', 'b']
"""

from __future__ import annotations

import math
from collections.abc import Generator, Iterator
from typing import Any

import attrs
import numpy as np

from .data import Dataset
from .errors import ParameterError
from .fold import run
from .nodes import TESTS, Leaf, Node, Split, Surrogate, Surrogates

__all__ = ["grow_rpart", "MAX_SUBSET_CATEGORIES"]

LEFT, RIGHT = -1, 1
# rpart's two kinds of split, by their one name (as the builder makes a candidate's test).
_CUT, _SUBSET = TESTS["threshold"], TESTS["subset"]
#: With three classes or more rpart visits every subset of a categorical feature's categories
#: (``2**(m-1)``); beyond this many categories the search is refused rather than run for ages.
MAX_SUBSET_CATEGORIES = 16


def _gini(p: float) -> float:
    return p * (1.0 - p)


def _entropy(p: float) -> float:
    return 0.0 if p == 0 else -p * math.log(p)


_IMPURITIES = {"gini": _gini, "information": _entropy}


@attrs.frozen
class _Settings:
    impurity: Any
    aprior: np.ndarray
    n_classes: int
    min_split: float
    min_bucket: int
    max_depth: int | None
    max_surrogates: int
    numeric: tuple[bool, ...]
    n_categories: tuple[int, ...]


@attrs.define
class _Scale:
    """rpart's ``iscale``: the largest improvement seen so far, over the whole tree."""

    value: float = 0.0


@attrs.frozen
class _Primary:
    feature: int
    improve: float
    split: float  # numeric: rpart's cut (x < split goes ``direction``)
    direction: int  # numeric: LEFT or RIGHT
    codes: tuple[int, ...]  # categorical: LEFT, RIGHT or 0 (absent) per category


def _priors(y: np.ndarray, w: np.ndarray, n_classes: int) -> np.ndarray:
    """rpart's altered priors ``aprior`` (``giniinit``) for its default priors and losses,
    computed in its order (they are 1 up to rounding, and the rounding decides ties)."""
    counts = np.zeros(n_classes)
    for yi, wi in zip(y.tolist(), w.tolist()):
        counts[yi] += wi
    total = 0.0
    for wi in w.tolist():
        total += wi
    prior = [float(c) / total for c in counts]  # R's counts/sum(counts) and C's freq alike
    temp = 0.0
    aprior = [0.0] * n_classes
    for i in range(n_classes):
        for j in range(n_classes):
            loss = 0.0 if i == j else 1.0
            temp += loss * prior[i]
            aprior[i] += loss * prior[i]
    return np.array([a / (temp * f) if f > 0 else a for a, f in zip(aprior, prior)])


def grow_rpart(ds: Dataset, *, impurity: str = "gini", max_depth: int | None = None, min_samples_split: float = 2, min_samples_leaf: float = 1, max_surrogates: int = 5) -> Node:
    """The root of rpart's tree for a classification dataset (see the module notes)."""
    if ds.y is None or ds.schema.is_regression:
        raise ParameterError("missing='surrogate' grows classification trees (rpart's method='class'); this data has a numeric target")
    if impurity not in _IMPURITIES:
        raise ParameterError(f"missing='surrogate' scores splits as rpart does, by 'gini' or 'information_gain', not {impurity!r}")
    features = ds.schema.features
    n_classes = len(ds.schema.classes)
    if n_classes > 2:
        for f in features:
            if not f.is_numeric and len(f.categories) > MAX_SUBSET_CATEGORIES:
                raise ParameterError(f"missing='surrogate': column {f.name!r} has {len(f.categories)} categories; with {n_classes} classes rpart tries all 2**(m-1) subsets, refused beyond {MAX_SUBSET_CATEGORIES} categories")
    X = ds.X
    y = np.asarray(ds.y, dtype=np.int64)
    w = np.ones(ds.n_rows) if ds.sample_weight is None else np.asarray(ds.sample_weight, dtype=np.float64)
    rows = np.flatnonzero(~np.isnan(X).all(axis=1)) if X.shape[1] else np.arange(ds.n_rows)
    cfg = _Settings(
        _IMPURITIES[impurity], _priors(y[rows], w[rows], n_classes), n_classes, float(min_samples_split), max(1, int(math.ceil(min_samples_leaf))), max_depth, int(max_surrogates),
        tuple(f.is_numeric for f in features), tuple(len(f.categories) for f in features),
    )
    return run(_partition(X, y, w, rows, 0, cfg, _Scale()))


def _stats(y: np.ndarray, w: np.ndarray, rows: np.ndarray, n_classes: int) -> np.ndarray:
    return np.bincount(y[rows], weights=w[rows], minlength=n_classes).astype(np.float64)


def _partition(X: np.ndarray, y: np.ndarray, w: np.ndarray, rows: np.ndarray, depth: int, cfg: _Settings, scale: _Scale) -> Generator[Any, Node, Node]:
    stats = _stats(y, w, rows, cfg.n_classes)
    if len(rows) < cfg.min_split or (cfg.max_depth is not None and depth >= cfg.max_depth):
        return Leaf(stats)
    primary = _best_split(X, y, w, rows, cfg, scale)
    if primary is None:
        return Leaf(stats)
    direction = _primary_direction(X[rows, primary.feature], primary)
    surrogates = _surrogates(X, w, rows, direction, primary.feature, cfg)
    left_weight = _seq_sum(w[rows][direction == LEFT])
    right_weight = _seq_sum(w[rows][direction == RIGHT])
    last = RIGHT if left_weight < right_weight else LEFT if left_weight > right_weight else 0
    goes = direction.copy()
    for s in surrogates:  # rpart's nodesplit: the first surrogate with a value decides
        todo = goes == 0
        if not todo.any():
            break
        goes[todo] = _surrogate_direction(X[rows[todo], s[0]], s)
    goes[goes == 0] = last
    left_rows, right_rows = rows[goes == LEFT], rows[goes == RIGHT]
    # A numeric primary sends x < cut its way: puretree's left branch is x <= cut.
    flip = cfg.numeric[primary.feature] and primary.direction == RIGHT
    branch = {LEFT: int(flip), RIGHT: 1 - int(flip)}
    if cfg.numeric[primary.feature]:
        test: Any = _CUT(primary.split)
        known = None
    else:
        test = _SUBSET(tuple(c for c, d in enumerate(primary.codes) if d != 0 and branch[d] == 0))
        known = tuple(c for c, d in enumerate(primary.codes) if d != 0)
    # rpart's prediction sends a row no test decides to the child with more training rows.
    fallback = None if len(left_rows) == len(right_rows) else branch[LEFT] if len(left_rows) > len(right_rows) else branch[RIGHT]
    kept = Surrogates(tuple(_as_surrogate(s, branch, cfg) for s in surrogates), fallback, known)
    kids = [(yield _partition(X, y, w, left_rows, depth + 1, cfg, scale)), (yield _partition(X, y, w, right_rows, depth + 1, cfg, scale))]
    if flip:
        kids.reverse()
    return Split(primary.feature, test, tuple(kids), stats, surrogates=kept)


def _seq_sum(values: np.ndarray) -> float:
    """A sum added up left to right, as rpart's loops add (numpy's sum adds pairwise)."""
    return float(np.add.accumulate(values)[-1]) if len(values) else 0.0


def _primary_direction(x: np.ndarray, p: _Primary) -> np.ndarray:
    """LEFT, RIGHT or 0 (missing) per row, as rpart's primary split sends it."""
    known = ~np.isnan(x)
    out = np.zeros(len(x), dtype=np.int64)
    if p.codes:
        out[known] = np.asarray(p.codes, dtype=np.int64)[x[known].astype(np.int64)]
    else:
        out[known] = np.where(x[known] < p.split, p.direction, -p.direction)
    return out


def _surrogate_direction(x: np.ndarray, s: tuple[Any, ...]) -> np.ndarray:
    split, direction, codes = s[1], s[2], s[3]
    known = ~np.isnan(x)
    out = np.zeros(len(x), dtype=np.int64)
    if codes:
        out[known] = np.asarray(codes, dtype=np.int64)[x[known].astype(np.int64)]
    else:
        out[known] = np.where(x[known] < split, direction, -direction)
    return out


def _as_surrogate(s: tuple[Any, ...], branch: dict[int, int], cfg: _Settings) -> Surrogate:
    feature, split, direction, codes = s[0], s[1], s[2], s[3]
    if codes:
        return Surrogate(feature, _SUBSET(tuple(c for c, d in enumerate(codes) if d != 0 and branch[d] == 0)), known=tuple(c for c, d in enumerate(codes) if d != 0))
    # x < cut goes ``direction``; puretree's branch 0 is x <= cut.
    return Surrogate(feature, _CUT(split), flip=branch[direction] == 1)


# -- the primary split (bsplit.c, gini.c) ------------------------------------------------------


def _best_split(X: np.ndarray, y: np.ndarray, w: np.ndarray, rows: np.ndarray, cfg: _Settings, scale: _Scale) -> _Primary | None:
    best: _Primary | None = None
    for j in range(X.shape[1]):
        x = X[rows, j]
        keep = ~np.isnan(x) & (w[rows] > 0)
        r = rows[keep]
        if not len(r):
            continue
        xs = x[keep]
        if cfg.numeric[j]:
            order = np.argsort(xs, kind="stable")
            r, xs = r[order], xs[order]
            if xs[0] == xs[-1]:
                continue
            improve, split, direction = _numeric_gini(xs, y[r], w[r], cfg)
            found = _Primary(j, improve, split, direction, ())
        else:
            improve, codes = _categorical_gini(xs.astype(np.int64), y[r], w[r], cfg.n_categories[j], cfg)
            found = _Primary(j, improve, 0.0, 0, codes)
        if improve > scale.value:
            scale.value = improve
        if improve > scale.value * 1e-10 and (best is None or improve > best.improve):
            best = found
    return best


def _node_impurity(right: np.ndarray, rwt: float, cfg: _Settings) -> float:
    total = 0.0
    for i in range(cfg.n_classes):
        total += rwt * cfg.impurity(cfg.aprior[i] * right[i] / rwt)
    return total


def _split_terms(left: np.ndarray, lwt: np.ndarray, right: np.ndarray, rwt: np.ndarray, cfg: _Settings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """rpart's ``temp``, ``lmean`` and ``rmean`` for many candidate splits at once (rows),
    each summed over the classes in rpart's order."""
    a = cfg.aprior
    with np.errstate(divide="ignore", invalid="ignore"):
        pl = a * left / lwt[:, None]
        pr = a * right / rwt[:, None]
    imp = np.vectorize(cfg.impurity, otypes=[np.float64]) if cfg.impurity is _entropy else cfg.impurity
    terms = np.empty((left.shape[0], 2 * cfg.n_classes))
    terms[:, 0::2] = lwt[:, None] * imp(pl)
    terms[:, 1::2] = rwt[:, None] * imp(pr)
    k = np.arange(cfg.n_classes, dtype=np.float64)
    temp = np.add.accumulate(terms, axis=1)[:, -1]
    lmean = np.add.accumulate(pl * k, axis=1)[:, -1]
    rmean = np.add.accumulate(pr * k, axis=1)[:, -1]
    return temp, lmean, rmean


def _numeric_gini(x: np.ndarray, y: np.ndarray, w: np.ndarray, cfg: _Settings) -> tuple[float, float, int]:
    n, edge = len(x), cfg.min_bucket
    aw = cfg.aprior[y] * w
    onehot = np.zeros((n, cfg.n_classes))
    onehot[np.arange(n), y] = w
    rwt0 = _seq_sum(aw)
    right0 = np.zeros(cfg.n_classes)
    for yi, wi in zip(y.tolist(), w.tolist()):  # rpart adds each row in turn
        right0[yi] += wi
    total = _node_impurity(right0, rwt0, cfg)
    # After moving rows 0..i to the left (i = 0 .. n-2), as rpart's loop updates them.
    rwt = np.subtract.accumulate(np.concatenate([[rwt0], aw]))[1:n]
    lwt = np.add.accumulate(np.concatenate([[0.0], aw]))[1:n]
    right = np.subtract.accumulate(np.vstack([right0, onehot]), axis=0)[1:n]
    left = np.add.accumulate(np.vstack([np.zeros(cfg.n_classes), onehot]), axis=0)[1:n]
    moved = np.arange(n - 1)
    ltot, rtot = moved + 1, n - 1 - moved
    valid = (rtot >= edge) & (ltot >= edge) & (x[1:] != x[:-1])
    if not valid.any():
        return 0.0, 0.0, LEFT
    temp, lmean, rmean = _split_terms(left[valid], lwt[valid], right[valid], rwt[valid], cfg)
    at = int(np.argmin(temp))
    if not temp[at] < total:
        return 0.0, 0.0, LEFT
    where = int(moved[valid][at])
    improve = total - float(temp[at])
    return improve, (x[where] + x[where + 1]) / 2, LEFT if lmean[at] < rmean[at] else RIGHT


def _gray_init2(count: list[int], val: list[float]) -> list[int]:
    """graycode_init2: empty categories first, then the others by ``val`` (insertion sort)."""
    m = len(count)
    gray = [0] * m
    val = list(val)
    k = 1 if count[0] == 0 else 0
    for i in range(1, m):
        if count[i] == 0:
            for j in range(i - 1, k - 1, -1):
                gray[j + 1] = gray[j]
                val[j + 1] = val[j]
            gray[k] = i
            k += 1
        else:
            temp = val[i]
            j = i - 1
            while j >= k and val[j] > temp:
                gray[j + 1] = gray[j]
                val[j + 1] = val[j]
                j -= 1
            val[j + 1] = temp
            gray[j + 1] = i
    return gray[k:]


def _gray_all(count: list[int]) -> Iterator[int]:
    """graycode_init1 + graycode: the category changing sides at each step of the Gray code."""
    gray = [1 if c else 0 for c in count]
    m = len(count)
    while True:
        for i in range(m - 1):
            if gray[i] == 1:
                gray[i] = 2
                yield i
                break
            if gray[i] == 2:
                gray[i] = 1
        else:
            return


def _categorical_gini(x: np.ndarray, y: np.ndarray, w: np.ndarray, m: int, cfg: _Settings) -> tuple[float, tuple[int, ...]]:
    k, edge = cfg.n_classes, cfg.min_bucket
    aw = cfg.aprior[y] * w
    rwt0 = _seq_sum(aw)
    right0 = np.zeros(k)
    awt = np.zeros(m)
    countn = [0] * m
    ccnt = np.zeros((k, m))
    for yi, xi, wi, ai in zip(y.tolist(), x.tolist(), w.tolist(), aw.tolist()):
        right0[yi] += wi
        awt[xi] += ai
        countn[xi] += 1
        ccnt[yi, xi] += wi
    total = _node_impurity(right0, rwt0, cfg)
    tsplit = [0 if awt[c] == 0 else RIGHT for c in range(m)]
    if k == 2:
        rate = [ccnt[0, c] / awt[c] if awt[c] != 0 else 0.0 for c in range(m)]
        steps: list[int] = _gray_init2(countn, rate)
    else:
        steps = list(_gray_all(countn))
    if not steps:
        return 0.0, tuple(tsplit)
    n = len(steps)
    sign = np.empty(n)
    sides = np.empty((n, m), dtype=np.int64)
    for s, c in enumerate(steps):
        if tsplit[c] == LEFT:
            tsplit[c], sign[s] = RIGHT, 1.0
        else:
            tsplit[c], sign[s] = LEFT, -1.0
        sides[s] = tsplit
    moved = awt[steps] * sign
    rwt = np.add.accumulate(np.concatenate([[rwt0], moved]))[1:]
    lwt = np.add.accumulate(np.concatenate([[0.0], -moved]))[1:]
    delta = ccnt[:, steps].T * sign[:, None]
    right = np.add.accumulate(np.vstack([right0, delta]), axis=0)[1:]
    left = np.add.accumulate(np.vstack([np.zeros(k), -delta]), axis=0)[1:]
    counts = np.asarray(countn)[steps] * sign
    rtot = len(x) + np.add.accumulate(counts)
    ltot = len(x) - rtot
    valid = (ltot >= edge) & (rtot >= edge)
    if not valid.any():
        return 0.0, tuple(0 for _ in range(m))
    temp, lmean, rmean = _split_terms(left[valid], lwt[valid], right[valid], rwt[valid], cfg)
    at = int(np.argmin(temp))
    if not temp[at] < total:
        return 0.0, tuple(0 for _ in range(m))
    chosen = sides[np.flatnonzero(valid)[at]]
    codes = chosen if lmean[at] < rmean[at] else -chosen
    return total - float(temp[at]), tuple(int(c) for c in codes)


# -- the surrogates (surrogate.c, choose_surg.c) ------------------------------------------------


def _surrogates(X: np.ndarray, w: np.ndarray, rows: np.ndarray, direction: np.ndarray, primary: int, cfg: _Settings) -> list[tuple[Any, ...]]:
    """The kept surrogates, best first: (feature, cut, direction, codes) each."""
    tleft = _seq_sum(w[rows][direction == LEFT])
    tright = _seq_sum(w[rows][direction == RIGHT])
    kept: list[tuple[float, tuple[Any, ...]]] = []
    if cfg.max_surrogates <= 0:
        return []
    for j in range(X.shape[1]):
        if j == primary:
            continue
        x = X[rows, j]
        known = ~np.isnan(x)
        if cfg.numeric[j]:
            order = np.argsort(x[known], kind="stable")
            found = _numeric_surrogate(x[known][order], direction[known][order], w[rows][known][order])
        else:
            found = _categorical_surrogate(x[known].astype(np.int64), direction[known], w[rows][known], cfg.n_categories[j])
        if found is None:
            continue
        agree, split, sdir, codes = found
        total = tleft + tright
        majority = (tleft if tleft > tright else tright) / total
        agreement = agree / total
        adj = (agreement - majority) / (1.0 - majority)
        if adj <= 1e-10:
            continue
        # insert_split: after every entry at least as good; a full list drops its last.
        at = next((i for i, (imp, _) in enumerate(kept) if agreement > imp), len(kept))
        if len(kept) == cfg.max_surrogates and at == len(kept):
            continue
        kept.insert(at, (agreement, (j, split, sdir, codes)))
        del kept[cfg.max_surrogates :]
    return [s for _, s in kept]


def _numeric_surrogate(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, float, int, tuple[int, ...]] | None:
    """choose_surg's continuous case on the rows where x is known, sorted by x."""
    n = len(x)
    if n == 0:
        return None
    ll = rl = 0
    llwt = rlwt = 0.0
    for i in range(n - 1, -1, -1):
        if y[i] == LEFT:
            ll += w[i] > 0
            llwt += w[i]
        elif y[i] == RIGHT:
            rl += w[i] > 0
            rlwt += w[i]
    lastx = float(x[0])
    agree = llwt if llwt > rlwt else rlwt
    lr = rr = 0
    lrwt = rrwt = 0.0
    success = False
    csplit, split = LEFT, lastx
    i = 0
    while ll + rl >= 2 and i < n:
        xi = float(x[i])
        if lr + rr >= 2 and xi != lastx:
            if llwt + rrwt > agree:
                success, agree, csplit, split = True, llwt + rrwt, RIGHT, (xi + lastx) / 2
            elif lrwt + rlwt > agree:
                success, agree, csplit, split = True, lrwt + rlwt, LEFT, (xi + lastx) / 2
        if y[i] == LEFT:
            if w[i] > 0:
                ll -= 1
                lr += 1
            llwt -= w[i]
            lrwt += w[i]
        elif y[i] == RIGHT:
            if w[i] > 0:
                rl -= 1
                rr += 1
            rlwt -= w[i]
            rrwt += w[i]
        lastx = xi
        i += 1
    return (agree, split, csplit, ()) if success else None


def _categorical_surrogate(x: np.ndarray, y: np.ndarray, w: np.ndarray, m: int) -> tuple[float, float, int, tuple[int, ...]] | None:
    """choose_surg's categorical case: each category sent its heavier way."""
    left = [0] * m
    right = [0] * m
    lwt = [0.0] * m
    rwt = [0.0] * m
    for xi, yi, wi in zip(x.tolist(), y.tolist(), w.tolist()):
        if yi == LEFT:
            left[xi] += wi > 0
            lwt[xi] += wi
        elif yi == RIGHT:
            right[xi] += wi > 0
            rwt[xi] += wi
    llwt = rrwt = 0.0
    for c in range(m):
        llwt += lwt[c]
        rrwt += rwt[c]
    defdir = LEFT if llwt > rrwt else RIGHT
    agree = 0.0
    lcount = rcount = 0
    codes = [0] * m
    for c in range(m):
        if left[c] == 0 and right[c] == 0:
            continue
        if lwt[c] < rwt[c] or (lwt[c] == rwt[c] and defdir == RIGHT):
            agree += rwt[c]
            codes[c] = RIGHT
            lcount += left[c]
            rcount += right[c]
        else:
            agree += lwt[c]
            codes[c] = LEFT
            lcount += right[c]
            rcount += left[c]
    if not (lcount > 1 and rcount > 1):
        return None
    return agree, 0.0, 0, tuple(codes)
