"""What rows say at each node of a tree: the data behind the pictures of :mod:`puretree.views`.

:func:`node_histograms` walks rows (the training data, or any labelled rows) down a tree once
and keeps, for every node, what a picture of it needs, as dtreeviz shows it:

- at a split, the distribution of its feature over the rows that reach it: a histogram with
  one stacked bar segment per class (a numeric feature: :data:`BINS` bins over the feature's
  range in all the rows given, the same bins at every node; a categorical one: one bar per
  category), or for a regression tree up to :data:`MAX_POINTS` of its rows' (value, target)
  pairs;
- at every node, its size and class counts (regression: weight, sum and sum of squares of the
  target), so that a leaf shows its size and purity.

A row goes where the tree sends it in prediction: under the ``distribute`` missing-value
strategy a row with a missing value goes down every branch with a fraction of its weight, and
a row with a category the split never saw stops there. The result is computed once and
passed to any number of views (``to_svg(tree, histograms=h)``); :func:`chart` turns one node
of it into shapes that the SVG and the HTML page draw alike.

>>> import puretree
>>> X = [[1.0], [2.0], [3.0], [4.0]]
>>> tree = puretree.cart(X, ["a", "a", "b", "b"])
>>> h = node_histograms(tree, X, ["a", "a", "b", "b"])
>>> h.counts.tolist()          # per node, in pre-order: class counts of the rows given
[[2.0, 2.0], [2.0, 0.0], [0.0, 2.0]]
>>> h.hist[0].sum(axis=0).tolist(), h.hist[1] is None    # the root's histogram; a leaf has none
([2.0, 2.0], True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np

from .data import REGRESSION, Dataset, category_key, check_weights, encode_features, encode_labels
from .errors import DataError, ModelFormatError, ParameterError, shown
from .flat import descend, flatten
from .fold import n_nodes
from .nodes import Split, format_number

if TYPE_CHECKING:  # the tree value sits above this module (its pictures call the views)
    from .tree import Tree

__all__ = ["NodeHistograms", "node_histograms", "with_histograms", "histograms_to_dict", "histograms_from_dict", "HISTOGRAMS_VERSION", "check_fits", "chart", "leaf_summary", "Shape", "Slots", "slots", "BINS", "MAX_POINTS"]

#: Bins of a numeric feature's histogram (the same edges at every node).
BINS = 20

#: A regression split or leaf keeps at most this many of its rows' points, evenly spaced in row order.
MAX_POINTS = 120


@attrs.frozen(eq=False)
class NodeHistograms:
    """The rows at each node of one tree, indexed by pre-order node id (the root is 0).

    ``feature[i]`` is node i's split feature (-1: a leaf): the shape of the tree these belong
    to. ``counts[i]`` is node i's class counts (regression: weight, sum, sum of squares of the
    target). ``hist[i]`` is, at a split of a classification tree, a ``(bins or categories,
    classes)`` array of weights; ``missing[i]`` is the weight of the rows whose value was
    missing (or a category the split never saw) there. ``points[i]``, in a regression tree, is
    up to :data:`MAX_POINTS` ``(value, target)`` rows (a leaf: targets only, value 0).
    ``edges[j]`` are numeric feature j's bin edges; ``target_range`` the targets' (lo, hi).
    ``span[i]`` is the number of nodes in node i's subtree (its children's ids follow from it).
    ``root`` is the tree's root: the histograms belong to that tree only. ``largest_leaf`` is
    the most rows a leaf holds (a pie's area is in proportion to it).
    """

    root: Any
    regression: bool
    n_classes: int
    feature: np.ndarray
    span: np.ndarray
    counts: np.ndarray
    hist: tuple[np.ndarray | None, ...]
    missing: np.ndarray
    points: tuple[np.ndarray | None, ...]
    edges: tuple[np.ndarray | None, ...]
    target_range: tuple[float, float]
    largest_leaf: float

    @property
    def n_nodes(self) -> int:
        return len(self.feature)

    def size(self, node: int) -> float:
        """The weight of the rows that reach ``node``."""
        c = self.counts[node]
        return float(c[0] if self.regression else c.sum())


def _targets(tree: Tree, y: Any, n_rows: int, row_name: Any) -> np.ndarray:
    """The targets as floats (regression) or as indices into the tree's classes."""
    schema = tree.schema
    if schema.is_regression:
        _, values = encode_labels(y, task=REGRESSION, where=row_name)
        out = values
    else:
        classes, codes = encode_labels(y, where=row_name)
        index = {category_key(c): k for k, c in enumerate(schema.classes)}
        mapping = np.empty(len(classes), dtype=np.int64)
        for k, c in enumerate(classes):
            if category_key(c) not in index:
                first = int(np.flatnonzero(codes == k)[0])
                raise DataError(f"{row_name(first)}: the label {c!r} is not one of the tree's classes {list(schema.classes)[:8]}")
            mapping[k] = index[category_key(c)]
        out = mapping[codes]
    if len(out) != n_rows:
        raise DataError(f"the rows number {n_rows} but the targets {len(out)}: one target per row")
    return out


def _spans(parent: np.ndarray) -> np.ndarray:
    """The number of nodes in each node's subtree, from the pre-order parents."""
    size = np.ones(len(parent), dtype=np.int64)
    for i in range(len(parent) - 1, 0, -1):
        size[parent[i]] += size[i]
    return size


def _edges(values: np.ndarray, bins: int) -> np.ndarray | None:
    finite = values[np.isfinite(values)]
    if not finite.size:
        return None
    lo, hi = float(finite.min()), float(finite.max())
    if hi <= lo:  # one value: a bin either side of it
        lo, hi = lo - 0.5, hi + 0.5
    return np.linspace(lo, hi, bins + 1)


def _sample(rows: np.ndarray) -> np.ndarray:
    """Up to MAX_POINTS of ``rows`` (distinct, in row order), evenly spaced: no randomness."""
    rows = np.unique(rows)
    if len(rows) <= MAX_POINTS:
        return rows
    return rows[np.linspace(0, len(rows) - 1, MAX_POINTS).round().astype(np.int64)]


def node_histograms(tree: Tree, X: Any, y: Any = None, *, sample_weight: Any = None, bins: int = BINS) -> NodeHistograms:
    """The rows ``X`` with targets ``y`` at each node of ``tree`` (see the module notes).

    ``X`` is anything :func:`puretree.predict` takes (an array in column order, a DataFrame,
    a :class:`~puretree.data.Dataset`, whose own targets and weights serve when ``y`` and
    ``sample_weight`` are omitted); ``y`` holds a label of the tree's classes (a value, for a
    regression tree) per row. With ``sample_weight`` (one weight per row, as the fit took
    them) every count is a weighted count, as the tree's own statistics are: a weighted fit's
    charts show what the fit saw.

    >>> import puretree
    >>> tree = puretree.cart([[0.0], [1.0]], ["no", "yes"])
    >>> node_histograms(tree, [[0.0], [1.0]], ["no", "yes"], sample_weight=[2.0, 0.5]).counts[0].tolist()
    [2.0, 0.5]

    >>> import puretree
    >>> tree = puretree.cart([[0.0], [1.0]], ["no", "yes"])
    >>> node_histograms(tree, [[0.0], [1.0]], ["no", "maybe"])
    Traceback (most recent call last):
    ...
    puretree.errors.DataError: row 1: the label 'maybe' is not one of the tree's classes ['no', 'yes']
    """
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise ParameterError(f"bins must be a whole number >= 1, got {bins!r}")
    row_name = X.row_name if isinstance(X, Dataset) else "row {}".format
    if sample_weight is None and isinstance(X, Dataset):
        sample_weight = X.sample_weight
    if y is None:
        if not (isinstance(X, Dataset) and X.y is not None):
            raise ParameterError("node_histograms needs the rows' targets: y, or a Dataset that has them")
        y = X.labels()
    schema = tree.schema
    Xe = encode_features(schema, X)
    target = _targets(tree, y, Xe.shape[0], row_name)
    flat = flatten(tree)
    n = flat.n_nodes
    rows, ends, weight = descend(flat, Xe, missing=tree.missing, names=schema.feature_names, stop_at_missing=False, row_name=row_name)
    own_weight = np.ones(Xe.shape[0]) if sample_weight is None else check_weights(sample_weight, Xe.shape[0])
    weight = weight * own_weight[rows]  # a row's share of a branch (distribute) times its own weight

    # A node's subtree is a run of pre-order ids, so the rows through a node are the rows
    # ending in that run: one sort, then two binary searches per node.
    size = _spans(flat.parent)
    order = np.argsort(ends, kind="stable")
    rows, ends, weight = rows[order], ends[order], weight[order]
    start = np.searchsorted(ends, np.arange(n), side="left")
    stop = np.searchsorted(ends, np.arange(n) + size, side="left")

    regression = schema.is_regression
    k = len(schema.classes)
    # The bins span the rows the fit saw: a row of weight 0 was not in it.
    seen = Xe if sample_weight is None or not (own_weight > 0).any() else Xe[own_weight > 0]
    edges = tuple(_edges(seen[:, j], bins) if f.is_numeric else None for j, f in enumerate(schema.features))
    counts = np.zeros((n, 3 if regression else k))
    missing = np.zeros(n)
    hist: list[np.ndarray | None] = [None] * n
    points: list[np.ndarray | None] = [None] * n
    feature = np.full(n, -1, dtype=np.int64)
    for i, node in enumerate(flat.nodes):
        r, w = rows[start[i] : stop[i]], weight[start[i] : stop[i]]
        t = target[r]
        if regression:
            counts[i] = (w.sum(), (w * t).sum(), (w * t * t).sum())
        else:
            counts[i] = np.bincount(t, weights=w, minlength=k)
        if not isinstance(node, Split):
            if regression:  # rows of no weight were not in the fit: not drawn
                chosen = _sample(r[w > 0])
                points[i] = np.column_stack([np.zeros(len(chosen)), target[chosen]])
            continue
        j = node.feature
        feature[i] = j
        f = schema.features[j]
        values = Xe[r, j]
        if f.is_numeric:
            known = np.isfinite(values)
            cuts = edges[j]
            if cuts is not None and not regression:
                slot = np.clip(np.searchsorted(cuts, values[known], side="right") - 1, 0, bins - 1)
                h = np.zeros((bins, k))
                np.add.at(h, (slot, t[known]), w[known])
                hist[i] = h
        else:
            known = np.isfinite(values) & (values >= 0) & (values < len(f.categories))
            if not regression:
                h = np.zeros((len(f.categories), k))
                np.add.at(h, (values[known].astype(np.int64), t[known]), w[known])
                hist[i] = h
        missing[i] = w[~known].sum()
        if regression:
            chosen = _sample(r[known & (w > 0)])
            points[i] = np.column_stack([Xe[chosen, j], target[chosen]])
    lo, hi = (float(target.min()), float(target.max())) if regression and len(target) else (0.0, 1.0)
    return _assemble(tree, feature, size, counts, hist, missing, points, edges, (lo, hi) if hi > lo else (lo - 0.5, lo + 0.5))


def _assemble(tree: Tree, feature: np.ndarray, span: np.ndarray, counts: np.ndarray, hist: Sequence[np.ndarray | None], missing: np.ndarray,
              points: Sequence[np.ndarray | None], edges: Sequence[np.ndarray | None], target_range: tuple[float, float]) -> NodeHistograms:
    regression = tree.schema.is_regression
    leaves = counts[feature < 0, 0] if regression else counts[feature < 0].sum(axis=1)
    return NodeHistograms(
        tree.root, regression, len(tree.schema.classes), feature, span, counts, tuple(hist), missing, tuple(points), tuple(edges),
        target_range, float(leaves.max()) if leaves.size else 0.0,
    )


def with_histograms(tree: Tree, X: Any, y: Any = None, *, sample_weight: Any = None, bins: int = BINS) -> Tree:
    """``tree`` holding :func:`node_histograms` of its training rows (``tree.histograms``), so
    that its pictures (:func:`~puretree.views.to_svg`, ``to_html``, ``to_dot``, a notebook's)
    draw each split's feature distribution without the data, and ``save`` keeps them in the
    model file. Growth is untouched: the rows are routed through the grown tree, as
    scikit-learn's ``apply`` would, and the estimators' ``store_histograms=True`` and ``puretree
    fit --histograms`` call this after growing (and pruning). Pass the fit's ``sample_weight``
    (a :class:`~puretree.data.Dataset`'s own serve by default) so that the charts count what
    the fit counted.

    The histograms belong to the nodes they were made for: a tree rewritten from this one
    (pruned, say) holds none (:class:`~puretree.tree.Tree` drops them); the tree's equality
    and hash ignore them.

    >>> import puretree
    >>> X, y = [[1.0], [2.0], [3.0], [4.0]], ["a", "a", "b", "b"]
    >>> tree = with_histograms(puretree.cart(X, y), X, y)
    >>> tree.histograms.counts[0].tolist(), tree == puretree.cart(X, y)
    ([2.0, 2.0], True)
    >>> 'class="threshold"' in puretree.to_svg(tree)
    True
    """
    return attrs.evolve(tree, histograms=node_histograms(tree, X, y, sample_weight=sample_weight, bins=bins))


#: The layout of the ``histograms`` a model file may hold (:func:`histograms_to_dict`).
HISTOGRAMS_VERSION = 1


def histograms_to_dict(histograms: NodeHistograms) -> dict[str, Any]:
    """The JSON-ready form of a tree's histograms, as a model file holds them (``"histograms"``,
    version 6 of the tree format): ``edges`` per feature (null: categorical, or no value),
    ``target_range``, and per node in pre-order its ``counts``, ``missing`` weight (when not 0),
    ``hist`` (a classification split: rows of bins or categories, one weight per class) and
    ``points`` (regression: ``[value, target]`` pairs). The tree gives the rest back.

    >>> import puretree
    >>> X, y = [[1.0], [2.0]], ["a", "b"]
    >>> d = histograms_to_dict(node_histograms(puretree.cart(X, y), X, y, bins=2))
    >>> d["edges"], d["nodes"][0]
    ([[1.0, 1.5, 2.0]], {'counts': [1.0, 1.0], 'hist': [[1.0, 0.0], [0.0, 1.0]]})
    """
    nodes = []
    for i in range(histograms.n_nodes):
        entry: dict[str, Any] = {"counts": histograms.counts[i].tolist()}
        if histograms.missing[i]:
            entry["missing"] = float(histograms.missing[i])
        for name, value in (("hist", histograms.hist[i]), ("points", histograms.points[i])):
            if value is not None:
                entry[name] = value.tolist()
        nodes.append(entry)
    return {
        "version": HISTOGRAMS_VERSION,
        "edges": [None if e is None else e.tolist() for e in histograms.edges],
        "target_range": list(histograms.target_range),
        "nodes": nodes,
    }


def _numbers(value: Any, shape: tuple[int | None, ...], where: str, *, low: float | None = 0.0) -> np.ndarray:
    """``value`` as a float array of ``shape`` (None: any length), each entry a JSON number
    (not a boolean), finite and at least ``low``; else a ModelFormatError naming ``where``."""
    def fail(message: str) -> ModelFormatError:
        return ModelFormatError(f"{where}: {message}")

    def walk(v: Any, dims: tuple[int | None, ...], at: str) -> None:
        if not dims:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or (low is not None and v < low):
                bound = "" if low is None else f" >= {format_number(low)}"
                raise fail(f"{at}expected a finite number{bound}, got {shown(v)}")
            return
        if not isinstance(v, list) or (dims[0] is not None and len(v) != dims[0]):
            raise fail(f"{at}expected a list of {dims[0] if dims[0] is not None else 'any number of'} entries, got {shown(v) if not isinstance(v, list) else f'{len(v)} entries'}")
        for k, item in enumerate(v):
            walk(item, dims[1:], f"{at}[{k}] " if not at else f"{at[:-1]}[{k}] ")

    walk(value, shape, "")
    return np.asarray(value, dtype=np.float64)


def histograms_from_dict(obj: Any, tree: Tree) -> NodeHistograms:
    """The histograms a model file holds (:func:`histograms_to_dict`), for ``tree``, validated:
    raises :class:`~puretree.errors.ModelFormatError` naming the field at fault."""
    def fail(where: str, message: str) -> ModelFormatError:
        return ModelFormatError(f"model.histograms{where}: {message}")

    if not isinstance(obj, dict):
        raise fail("", f"expected an object, got {shown(obj)}")
    if obj.get("version") != HISTOGRAMS_VERSION or isinstance(obj.get("version"), bool):
        raise fail(".version", f"unsupported version {shown(obj.get('version'))} (this puretree reads {HISTOGRAMS_VERSION})")
    schema = tree.schema
    regression = schema.is_regression
    flat = flatten(tree)
    n = flat.n_nodes
    edges_in = obj.get("edges")
    if not isinstance(edges_in, list) or len(edges_in) != len(schema.features):
        raise fail(".edges", f"expected a list of {len(schema.features)} entries (one per feature), got {shown(edges_in)}")
    edges: list[np.ndarray | None] = []
    for j, (e, f) in enumerate(zip(edges_in, schema.features)):
        if e is None:
            edges.append(None)
            continue
        if not f.is_numeric:
            raise fail(f".edges[{j}]", f"the feature {f.name!r} is categorical: its bars are its categories, it has no bin edges")
        cuts = _numbers(e, (None,), f"model.histograms.edges[{j}]", low=None)
        if len(cuts) < 2 or not np.all(np.diff(cuts) > 0):
            raise fail(f".edges[{j}]", "expected at least two increasing numbers")
        edges.append(cuts)
    lo, hi = _numbers(obj.get("target_range"), (2,), "model.histograms.target_range", low=None).tolist()
    if not lo < hi:
        raise fail(".target_range", f"expected [low, high] with low < high, got {[lo, hi]}")
    entries = obj.get("nodes")
    if not isinstance(entries, list) or len(entries) != n:
        raise fail(".nodes", f"expected a list of {n} entries (one per node of the tree), got {shown(entries) if not isinstance(entries, list) else f'{len(entries)} entries'}")
    k = len(schema.classes)
    width = 3 if regression else k
    feature = np.full(n, -1, dtype=np.int64)
    counts = np.zeros((n, width))
    missing = np.zeros(n)
    hist: list[np.ndarray | None] = [None] * n
    points: list[np.ndarray | None] = [None] * n
    for i, (entry, node) in enumerate(zip(entries, flat.nodes)):
        at = f"model.histograms.nodes[{i}]"
        if not isinstance(entry, dict):
            raise ModelFormatError(f"{at}: expected an object, got {shown(entry)}")
        unknown = set(entry) - {"counts", "missing", "hist", "points"}
        if unknown:
            raise ModelFormatError(f"{at}: unknown field {sorted(unknown)[0]!r}")
        c = _numbers(entry.get("counts"), (width,), f"{at}.counts", low=None if regression else 0.0)
        if regression and c[0] < 0:
            raise ModelFormatError(f"{at}.counts: a weight (the first entry) is >= 0, got {c[0]!r}")
        counts[i] = c
        missing[i] = _numbers(entry.get("missing", 0.0), (), f"{at}.missing")
        j = node.feature if isinstance(node, Split) else -1
        feature[i] = j
        if "hist" in entry:
            if regression or j < 0:
                raise ModelFormatError(f"{at}.hist: a histogram belongs to a split of a classification tree")
            f, known_edges = schema.features[j], edges[j]
            if f.is_numeric and known_edges is None:
                raise ModelFormatError(f"{at}.hist: feature {f.name!r} has no bin edges (model.histograms.edges[{j}] is null)")
            rows = len(f.categories) if known_edges is None else len(known_edges) - 1
            hist[i] = _numbers(entry["hist"], (rows, k), f"{at}.hist")
        if "points" in entry:
            if not regression:
                raise ModelFormatError(f"{at}.points: points belong to a regression tree")
            pts = _numbers(entry["points"], (None, 2), f"{at}.points", low=None)
            if len(pts) > MAX_POINTS:
                raise ModelFormatError(f"{at}.points: at most {MAX_POINTS} points, got {len(pts)}")
            points[i] = pts.reshape(-1, 2)
    return _assemble(tree, feature, _spans(flat.parent), counts, hist, missing, points, edges, (lo, hi))


def check_fits(histograms: Any, tree: Tree) -> None:
    """Refuse histograms made for another tree (another shape or other split features)."""
    if not isinstance(histograms, NodeHistograms):
        raise ParameterError(f"histograms must come from puretree.node_histograms(tree, X, y), got {type(histograms).__name__}")
    # Nodes compare by a digest made when they were built, so this is quick however big the tree.
    if histograms.root != tree.root or histograms.regression != tree.schema.is_regression:
        n = n_nodes(tree)
        shape = f"{histograms.n_nodes} nodes, this tree has {n}" if histograms.n_nodes != n else "its splits or leaves differ from this tree's"
        raise ParameterError(f"the histograms were made for another tree: {shape}")


# -- shapes ---------------------------------------------------------------------------------------


@attrs.frozen
class Shape:
    """One SVG element of a chart: its tag, its attributes (numbers, our colours, class
    names: nothing from the user) and its text (a user's category name: the drawer escapes it)."""

    tag: str
    attributes: tuple[tuple[str, str], ...]
    text: str = ""

    def as_json(self) -> list[Any]:
        return [self.tag, dict(self.attributes), self.text]


def _n(value: float) -> str:
    """A coordinate, short and the same on every machine."""
    return format(round(value, 2) + 0.0, "g")


def _shape(tag: str, text: str = "", **attributes: Any) -> Shape:
    return Shape(tag, tuple((k.replace("_", "-"), _n(v) if isinstance(v, float) else str(v)) for k, v in attributes.items()), text)


#: Pixels under a histogram's axis for its end labels.
_AXIS = 11


def _marks(node: Split, feature: Any) -> list[float]:
    """Where a numeric test cuts: every finite bound of its branches' intervals."""
    bounds = {b for c in node.test.constraints(feature) for b in (getattr(c, "lo", None), getattr(c, "hi", None)) if b is not None and math.isfinite(b)}
    return sorted(bounds)


def _axis_labels(lo: float, hi: float, w: float, h: float, decimals: int | None) -> list[Shape]:
    def text(v: float) -> str:
        return format_number(v if decimals is None else round(v, decimals) + 0.0)

    return [_shape("text", text(lo), x=0.0, y=float(h), font_size=8, fill="#555"), _shape("text", text(hi), x=float(w), y=float(h), font_size=8, fill="#555", text_anchor="end")]


def _threshold_marks(xs: Sequence[float], top: float, base: float) -> list[Shape]:
    out = []
    for x in xs:
        out.append(_shape("line", **{"class": "threshold"}, x1=x, y1=top, x2=x, y2=base, stroke="#222", stroke_dasharray="3,2"))
        out.append(_shape("polygon", **{"class": "wedge"}, points=f"{_n(x - 4)},{_n(base + 7)} {_n(x + 4)},{_n(base + 7)} {_n(x)},{_n(base)}", fill="#222"))
    return out


def _category_order(node: Split, feature: Any) -> tuple[list[int], list[int]]:
    """The categories in branch order (those with no branch last), and each one's branch."""
    n = len(feature.categories)
    branch = node.test.branch_of(np.arange(n, dtype=np.float64), feature).tolist()
    order = sorted(range(n), key=lambda c: (branch[c] < 0, branch[c], c))
    return order, [branch[c] for c in order]


def _group_lines(branches: Sequence[int], slot: float, top: float, base: float) -> list[Shape]:
    """A dashed line between categories that go to different branches."""
    return [
        _shape("line", **{"class": "threshold"}, x1=slot * c, y1=top, x2=slot * c, y2=base, stroke="#222", stroke_dasharray="3,2")
        for c in range(1, len(branches))
        if branches[c] != branches[c - 1]
    ]


def _category_labels(feature: Any, order: Sequence[int], slot: float, h: float) -> list[Shape]:
    fits = int(slot // 5)  # characters at 8 px
    if fits < 1:
        return []
    return [_shape("text", _cut(str(feature.categories[c]), fits), x=slot * (k + 0.5), y=float(h), font_size=8, fill="#555", text_anchor="middle") for k, c in enumerate(order)]


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "\u2026"


def _stacked(h: np.ndarray, order: Sequence[int], slot: float, fill: float, base: float, height: float, colours: Sequence[str]) -> list[Shape]:
    """Bars, one per slot, stacked by class from the bottom; the tallest is ``height``."""
    totals = h.sum(axis=1)
    top = float(totals.max()) if totals.size else 0.0
    out: list[Shape] = []
    if top <= 0:
        return out
    for k, c in enumerate(order):
        y = base
        for cls in range(h.shape[1]):
            v = float(h[c, cls])
            if v <= 0:
                continue
            bh = v / top * height
            y -= bh
            out.append(_shape("rect", x=slot * k + slot * (1 - fill) / 2, y=y, width=slot * fill, height=bh, fill=colours[cls]))
    return out


def _missing_note(weight: float, w: float) -> list[Shape]:
    if weight <= 0:
        return []
    return [_shape("text", f"+{format_number(round(weight, 2))} missing", x=float(w), y=8.0, font_size=8, fill="#555", text_anchor="end")]


def chart(histograms: NodeHistograms, tree: Tree, node_id: int, node: Any, *, width: float, height: float, colours: Sequence[str], decimals: int | None = 3, value: float | None = None) -> list[Shape]:
    """Node ``node_id``'s picture in a ``width`` x ``height`` box (origin top left): a split's
    feature distribution with its cut marked, a leaf's pie of classes (regression: its targets'
    strip with their mean). ``node`` is the tree's node of that id. ``value``, one row's
    encoded value of a split's feature (a category: its code), is marked by a red wedge under
    the axis (NaN: nothing to mark).

    >>> import puretree
    >>> tree = puretree.cart([[1.0], [2.0], [3.0], [4.0]], ["a", "a", "b", "b"])
    >>> h = node_histograms(tree, [[1.0], [2.0], [3.0], [4.0]], ["a", "a", "b", "b"])
    >>> shapes = chart(h, tree, 0, tree.root, width=100, height=40, colours=["#4e79a7", "#f28e2b"], value=4.0)
    >>> [(s.tag, dict(s.attributes)["class"]) for s in shapes if dict(s.attributes).get("class") in ("threshold", "wedge", "rowvalue")]
    [('line', 'threshold'), ('polygon', 'wedge'), ('polygon', 'rowvalue')]
    """
    shapes = _chart(histograms, tree, node_id, node, width, height, colours, decimals)
    if value is None or not isinstance(node, Split) or not math.isfinite(value):
        return shapes
    feature = tree.schema.features[node.feature]
    if feature.is_numeric:
        edges = histograms.edges[node.feature]
        if edges is None:
            return shapes
        x = min(1.0, max(0.0, (value - float(edges[0])) / (float(edges[-1]) - float(edges[0])))) * width
    else:
        order, _ = _category_order(node, feature)
        if int(value) not in order:
            return shapes  # a category the tree never saw: no bar to point at
        x = (order.index(int(value)) + 0.5) * width / max(1, len(order))
    base = height - _AXIS
    return shapes + [_shape("polygon", **{"class": "rowvalue"}, points=f"{_n(x - 5)},{_n(base + 10)} {_n(x + 5)},{_n(base + 10)} {_n(x)},{_n(base + 1)}", fill="#d62728")]


def _chart(histograms: NodeHistograms, tree: Tree, node_id: int, node: Any, width: float, height: float, colours: Sequence[str], decimals: int | None) -> list[Shape]:
    schema = tree.schema
    base = height - _AXIS
    if not isinstance(node, Split):
        return _leaf_chart(histograms, node_id, width, height, colours)
    feature = schema.features[node.feature]
    if histograms.regression:
        return _regression_chart(histograms, node_id, node, feature, width, height, decimals)
    h = histograms.hist[node_id]
    out: list[Shape] = [_shape("line", x1=0.0, y1=base, x2=float(width), y2=base, stroke="#999")]
    if feature.is_numeric:
        edges = histograms.edges[node.feature]
        if h is None or edges is None:
            return out + _missing_note(float(histograms.missing[node_id]), width)
        lo, hi = float(edges[0]), float(edges[-1])
        slot = width / h.shape[0]
        out += _stacked(h, range(h.shape[0]), slot, 0.9, base, base - 10, colours)
        xs = [min(1.0, max(0.0, (m - lo) / (hi - lo))) * width for m in _marks(node, feature)]
        out += _threshold_marks(xs, 6.0, base) + _axis_labels(lo, hi, width, height, decimals)
    else:
        order, branches = _category_order(node, feature)
        slot = width / max(1, len(order))
        if h is not None:
            out += _stacked(h, order, slot, 0.7, base, base - 10, colours)
        out += _group_lines(branches, slot, 6.0, base) + _category_labels(feature, order, slot, height)
    return out + _missing_note(float(histograms.missing[node_id]), width)


@attrs.frozen(eq=False)
class Slots:
    """A split's distribution as bars, for a picture that lays out cells rather than draws
    (Graphviz's tables, :func:`puretree.views.to_dot`): ``weights[k, c]`` is the weight of class
    c in bar k (regression: one column, the sampled rows), bars in drawing order; ``cuts`` are
    the bar indices a threshold line goes before (``len(weights)``: after the last);
    ``ends`` the texts at the axis's two ends (the range of a numeric feature, rounded to
    ``decimals``; the first and last category)."""

    weights: np.ndarray
    cuts: tuple[int, ...]
    ends: tuple[str, str]


def slots(histograms: NodeHistograms, tree: Tree, node_id: int, node: Split, *, decimals: int | None = 3) -> Slots | None:
    """Split ``node_id``'s bars (see :class:`Slots`), or None when no row with a value reached it.

    >>> import puretree
    >>> X, y = [[1.0], [2.0], [3.0], [4.0]], ["a", "a", "b", "b"]
    >>> tree = puretree.cart(X, y)
    >>> s = slots(node_histograms(tree, X, y, bins=4), tree, 0, tree.root)
    >>> s.weights.tolist(), s.cuts, s.ends
    ([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]], (2,), ('1', '4'))
    """
    feature = tree.schema.features[node.feature]
    pts = histograms.points[node_id]
    if feature.is_numeric:
        edges = histograms.edges[node.feature]
        if edges is None:
            return None
        lo, hi = float(edges[0]), float(edges[-1])
        bins = len(edges) - 1
        if histograms.regression:
            if pts is None or not len(pts):
                return None
            where = np.clip(np.searchsorted(edges, pts[:, 0], side="right") - 1, 0, bins - 1)
            weights = np.bincount(where, minlength=bins).astype(np.float64)[:, None]
        else:
            h = histograms.hist[node_id]
            if h is None:
                return None
            weights = h
        cuts = tuple(sorted({int(np.clip(round((m - lo) / (hi - lo) * bins), 0, bins)) for m in _marks(node, feature)}))
        ends = tuple(format_number(v if decimals is None else round(v, decimals) + 0.0) for v in (lo, hi))
        return Slots(weights, cuts, ends)  # type: ignore[arg-type]
    order, branches = _category_order(node, feature)
    if histograms.regression:
        if pts is None or not len(pts):
            return None
        codes = pts[:, 0].astype(np.int64)
        h = np.bincount(codes[(codes >= 0) & (codes < len(order))], minlength=len(order)).astype(np.float64)[:, None]
    else:
        found = histograms.hist[node_id]
        if found is None:
            return None
        h = found
    cuts = tuple(k for k in range(1, len(branches)) if branches[k] != branches[k - 1])
    names = [str(feature.categories[c]) for c in order]
    return Slots(h[order], cuts, (_cut(names[0], 12), _cut(names[-1], 12)))


def _y_of(histograms: NodeHistograms, value: float, top: float, base: float) -> float:
    lo, hi = histograms.target_range
    return base - (value - lo) / (hi - lo) * (base - top)


def _regression_chart(histograms: NodeHistograms, node_id: int, node: Split, feature: Any, width: float, height: float, decimals: int | None) -> list[Shape]:
    base, top = height - _AXIS, 4.0
    pts = histograms.points[node_id]
    out: list[Shape] = [_shape("line", x1=0.0, y1=base, x2=float(width), y2=base, stroke="#999")]
    means = [c[1] / c[0] if c[0] > 0 else None for c in (histograms.counts[child] for child in _child_ids(histograms, node_id, node))]
    if feature.is_numeric:
        edges = histograms.edges[node.feature]
        if edges is None or pts is None:
            return out + _missing_note(float(histograms.missing[node_id]), width)
        lo, hi = float(edges[0]), float(edges[-1])
        xs = [(x - lo) / (hi - lo) * width for x in pts[:, 0]]
        marks = [min(1.0, max(0.0, (m - lo) / (hi - lo))) * width for m in _marks(node, feature)]
        # Each branch's mean over its part of the axis (a threshold: left of the cut, right of it).
        cuts = [0.0, *marks, float(width)]
        if len(cuts) - 1 == len(means):
            for b, mean in enumerate(means):
                if mean is not None:
                    y = _y_of(histograms, mean, top, base)
                    out.append(_shape("line", **{"class": "mean"}, x1=cuts[b], y1=y, x2=cuts[b + 1], y2=y, stroke="#d62728", stroke_width=1.5))
        out += _threshold_marks(marks, top, base) + _axis_labels(lo, hi, width, height, decimals)
    else:
        order, branches = _category_order(node, feature)
        slot = width / max(1, len(order))
        where = {c: k for k, c in enumerate(order)}
        # Points spread across their category's slot by the golden ratio: no randomness.
        xs = [slot * (where.get(int(x), 0) + 0.2 + 0.6 * ((i * 0.618034) % 1.0)) for i, x in enumerate(pts[:, 0])] if pts is not None else []
        for k, b in enumerate(branches):
            mean = means[b] if 0 <= b < len(means) else None
            if mean is not None:
                y = _y_of(histograms, mean, top, base)
                out.append(_shape("line", **{"class": "mean"}, x1=slot * k, y1=y, x2=slot * (k + 1), y2=y, stroke="#d62728", stroke_width=1.5))
        out += _group_lines(branches, slot, top, base) + _category_labels(feature, order, slot, height)
    if pts is not None:
        for x, t in zip(xs, pts[:, 1]):
            out.insert(1, _shape("circle", cx=float(x), cy=_y_of(histograms, float(t), top, base), r=1.6, fill="#4e79a7", fill_opacity="0.55"))
    return out + _missing_note(float(histograms.missing[node_id]), width)


def _child_ids(histograms: NodeHistograms, node_id: int, node: Split) -> list[int]:
    """The pre-order ids of a split's children: each child follows the previous one's subtree."""
    ids, at = [], node_id + 1
    for _ in node.children:
        ids.append(at)
        at += int(histograms.span[at])
    return ids


def _leaf_chart(histograms: NodeHistograms, node_id: int, width: float, height: float, colours: Sequence[str]) -> list[Shape]:
    if histograms.regression:
        pts = histograms.points[node_id]
        x0 = width / 2
        out = [_shape("line", x1=x0, y1=4.0, x2=x0, y2=height - 4.0, stroke="#ccc")]
        if pts is not None:
            for i, t in enumerate(pts[:, 1]):
                out.append(_shape("circle", cx=x0 - 8 + 16 * ((i * 0.618034) % 1.0), cy=_y_of(histograms, float(t), 4.0, height - 4.0), r=1.6, fill="#4e79a7", fill_opacity="0.55"))
        c = histograms.counts[node_id]
        if c[0] > 0:
            y = _y_of(histograms, c[1] / c[0], 4.0, height - 4.0)
            out.append(_shape("line", **{"class": "mean"}, x1=x0 - 12, y1=y, x2=x0 + 12, y2=y, stroke="#d62728", stroke_width=1.5))
        return out
    # A pie whose area grows with the leaf's share of the largest leaf.
    counts = histograms.counts[node_id]
    total = float(counts.sum())
    biggest = histograms.largest_leaf
    full = min(width, height) / 2 - 1
    cx, cy = width / 2, height / 2
    if total <= 0 or biggest <= 0:
        return [_shape("circle", **{"class": "pie"}, cx=cx, cy=cy, r=4.0, fill="none", stroke="#999")]
    r = min(full, max(4.0, full * math.sqrt(total / biggest)))
    shares = [(k, float(v) / total) for k, v in enumerate(counts) if v > 0]
    if len(shares) == 1:
        return [_shape("circle", **{"class": "pie"}, cx=cx, cy=cy, r=r, fill=colours[shares[0][0]], stroke="#fff")]
    out, angle = [], -math.pi / 2
    for k, share in shares:
        end = angle + 2 * math.pi * share
        x1, y1 = cx + r * math.cos(angle), cy + r * math.sin(angle)
        x2, y2 = cx + r * math.cos(end), cy + r * math.sin(end)
        large = 1 if share > 0.5 else 0
        out.append(_shape("path", **{"class": "pie"}, d=f"M{_n(cx)},{_n(cy)} L{_n(x1)},{_n(y1)} A{_n(r)},{_n(r)} 0 {large} 1 {_n(x2)},{_n(y2)} Z", fill=colours[k], stroke="#fff", stroke_width=0.5))
        angle = end
    return out


def leaf_summary(histograms: NodeHistograms, node_id: int, classes: Sequence[str]) -> tuple[str, str]:
    """A leaf's size and purity as two short lines: ``n=50`` and ``98% setosa`` (regression:
    ``n=12`` and ``sd 1.3``).

    >>> import puretree
    >>> tree = puretree.cart([[1.0], [2.0], [3.0]], ["a", "a", "b"], max_depth=0)
    >>> leaf_summary(node_histograms(tree, [[1.0], [2.0], [3.0]], ["a", "a", "b"]), 0, ["a", "b"])
    ('n=3', '67% a')
    """
    c = histograms.counts[node_id]
    n = histograms.size(node_id)
    size = f"n={format_number(round(n, 2))}"
    if n <= 0:
        return size, "no rows"
    if histograms.regression:
        variance = max(0.0, c[2] / c[0] - (c[1] / c[0]) ** 2)
        return size, f"sd {format_number(float(f'{math.sqrt(variance):.3g}'))}"
    k = int(np.argmax(c))
    return size, f"{round(100 * float(c[k]) / n)}% {classes[k]}"
