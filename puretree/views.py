"""Pictures of a tree: Graphviz DOT, an SVG drawn by puretree itself, a standalone HTML page.

- :func:`to_dot` gives Graphviz's DOT language (``dot -Tsvg tree.dot``): split nodes name
  their feature, edges carry the branch's test (``x <= 1.5``), leaves their class
  distribution; with data, each label is an HTML-like table with the node's chart. Above :data:`DOT_SLOW_NODES` nodes it warns (:class:`SlowLayoutWarning`):
  Graphviz's layout takes minutes on such trees.
- :func:`to_svg` lays the tree out itself (leaves side by side, a split centred over its
  children) and needs no Graphviz.
- :func:`to_html` is one page with everything inline (no network access), where the tree is
  explored: click a node to collapse or expand it (shift-click: its whole subtree), hover for
  its counts and the conditions on its path. Levels below ``open_depth`` start collapsed, so
  a tree 10,000 levels deep opens at once; the page's address may say
  ``#depth=N`` to open N levels instead.

With the training data (``X=``, ``y=``, ``sample_weight=``), their histograms
(``histograms=``), or the histograms the tree holds (stored at fit:
:func:`~puretree.distributions.with_histograms`), every picture also draws each split's feature
distribution with its threshold and each leaf's size and purity, as dtreeviz does.

In every picture a node's colour is that of its majority class (a regression node: its mean,
on a scale from the smallest to the largest leaf mean), and each node shows its class
distribution as a bar, one coloured segment per class.

Everything from a user's file (feature names, categories, class labels) is escaped for the
language it lands in: DOT strings, XML text and attributes, JSON inside a ``<script>``
element; the HTML page's script writes it with ``textContent`` only. Names are cut to
:data:`~puretree.text.MAX_NAME` characters as in text output, and characters that a format
cannot carry (control characters, lone surrogates) become U+FFFD. All three are built by
iterative walks (:mod:`puretree.fold`), so they work at any depth.

>>> from puretree.datasets import load_playtennis
>>> from puretree.grow import id3
>>> tree = id3(load_playtennis())
>>> dot = to_dot(tree)
>>> dot.splitlines()[0], 'label="outlook' in dot
('digraph tree {', True)
>>> to_svg(tree).startswith('<svg xmlns="http://www.w3.org/2000/svg"')
True
>>> page = to_html(tree)
>>> page.startswith("<!DOCTYPE html>"), " src=" in page or "<link" in page   # nothing to fetch
(True, False)
"""

from __future__ import annotations

import html
import json
import re
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .data import encode_features
from .distributions import NodeHistograms, check_fits, chart, leaf_summary, node_histograms, slots
from .errors import ParameterError
from .fold import depth as tree_depth, iter_nodes, n_leaves, walk
from .nodes import Leaf, Node, Schema, Split, format_number
from .predict import decision_path
from .text import DECIMALS, TRUNCATED, Display, branch_labels, display, leaf_label, shorten, summary, to_text

if TYPE_CHECKING:  # the tree's notebook pictures call this module
    from .tree import Tree

__all__ = [
    "to_dot",
    "to_svg",
    "to_html",
    "class_colours",
    "SlowLayoutWarning",
    "DOT_SLOW_NODES",
    "OPEN_DEPTH",
    "VIEW_FORMATS",
    "NOTEBOOK_DEPTH",
    "NOTEBOOK_WIDTH",
    "render_view",
    "row_path",
    "notebook_svg",
    "notebook_html",
]

#: A notebook shows a tree's first levels, this many (``tree.to_svg()`` draws it all)...
NOTEBOOK_DEPTH = 3
#: ... in a picture at most this many pixels wide.
NOTEBOOK_WIDTH = 720

#: Above this many nodes Graphviz's ``dot`` layout takes minutes (its crossing minimisation
#: grows much faster than the graph): :func:`to_dot` still answers, with a warning.
DOT_SLOW_NODES = 2_000

#: Levels of the HTML page open when it loads; deeper subtrees open on demand.
OPEN_DEPTH = 8

#: The formats of ``puretree show --format``.
VIEW_FORMATS = ("text", "dot", "svg", "html")

# Tableau's ten colours: distinct for the usual number of classes; more classes get hues
# spaced by the golden angle.
_PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac")


class SlowLayoutWarning(UserWarning):
    """A DOT graph so big that Graphviz lays it out slowly."""


def _hsl_hex(hue: float, saturation: float, lightness: float) -> str:
    import colorsys

    r, g, b = colorsys.hls_to_rgb(hue % 1.0, lightness, saturation)
    return "#" + "".join(f"{round(c * 255):02x}" for c in (r, g, b))


def class_colours(n: int) -> list[str]:
    """``n`` colours (``#rrggbb``), one per class index, the same in every view.

    >>> class_colours(3)
    ['#4e79a7', '#f28e2b', '#e15759']
    >>> len(set(class_colours(40)))
    40
    """
    return [_PALETTE[i] if i < len(_PALETTE) else _hsl_hex(0.1 + i * 0.618034, 0.55, 0.5) for i in range(n)]


def _mix(colour: str, into: str, share: float) -> str:
    """``colour`` blended with ``into``: ``share`` of ``into`` (0: the colour itself)."""
    a = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(into[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * share):02x}" for x, y in zip(a, b))


# -- escaping -----------------------------------------------------------------------------------

# What none of DOT, XML 1.0 and HTML carries as text: control characters (but tab and line
# ends, which are made spaces anyway), lone surrogates and the two non-characters U+FFFE/FFFF.
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def _clean(value: object) -> str:
    """A name or label as one line of printable text, cut to MAX_NAME characters.

    >>> _clean("a\\tb\\nc\\x00d")
    'a b c\\ufffdd'
    """
    return _UNSAFE.sub("\ufffd", re.sub("[\t\r\n\u2028\u2029]", " ", shorten(value)))


def _dot_string(text: str) -> str:
    """A DOT double-quoted string holding ``text`` literally.

    A backslash is doubled, so that a name never forms one of Graphviz's label escapes
    (``\\N``, ``\\l``...); a double quote is escaped; an ampersand is written ``&amp;``, as
    Graphviz reads entities (``&lt;``) in labels. Lines of a label are joined by ``\\n``
    by the caller, after this.

    >>> print(_dot_string('say "hi" \\\\N &lt;'))
    "say \\"hi\\" \\\\N &amp;lt;"
    """
    return '"' + _clean(text).replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;") + '"'


def _xml(text: str) -> str:
    """``text`` as XML character data or a double-quoted attribute value.

    >>> _xml('<b a="1">&</b>')
    '&lt;b a=&quot;1&quot;&gt;&amp;&lt;/b&gt;'
    """
    return html.escape(_clean(text), quote=True).replace("&#x27;", "&#39;")


def _cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, ending in an ellipsis when cut."""
    return text if len(text) <= width else text[: width - 1] + "\u2026"


# -- the tree as rows ---------------------------------------------------------------------------


class _Rows:
    """The tree in pre-order as parallel lists: parent, depth, the branch that leads to the
    node, and what the node says (its colour and label), built by one iterative walk."""

    def __init__(self, tree: Tree, how: Display = Display()) -> None:
        schema = tree.schema
        self.schema = schema
        self.ids: list[int] = []  # each row's pre-order id in the whole tree
        self.truncated: list[bool] = []  # a split below max_depth, drawn without its subtree
        self.nodes: list[Node] = []
        self.parent: list[int] = []
        self.depth: list[int] = []
        self.edge: list[str] = []
        self.label: list[str] = []
        self.shown: list[tuple[float, ...]] = []  # the counts a node stands for (an empty leaf: its parent's)

        # Each node is handed (parent's id, depth, branch text, the counts an empty leaf borrows).
        # walk calls ``down`` for a node right after yielding it, so the node's id is the last one.
        def down(node: Node, value: tuple[int, int, str, tuple[float, ...]]) -> list[tuple[int, int, str, tuple[float, ...]]]:
            me = len(self.nodes) - 1
            own = self.shown[me] if me >= 0 else node.stats
            return [(me, value[1] + 1, _clean(text), own) for text in branch_labels(node, schema, how)]

        for visited, (node, (par, d, edge, inherited)) in enumerate(walk(tree.root, down, (-1, 0, "", tree.root.stats))):
            if how.cut(d - 1):
                continue  # below a truncated split (the walk still hands values down: one pass, any depth)
            self.ids.append(visited)
            self.truncated.append(isinstance(node, Split) and how.cut(d))
            self.nodes.append(node)
            self.parent.append(par)
            self.depth.append(d)
            self.edge.append(edge)
            weight = node.stats[0] if schema.is_regression else sum(node.stats)
            self.shown.append(node.stats if weight > 0 else inherited)
            self.label.append(_clean(leaf_label(node.stats, schema, inherited)) + (f" {TRUNCATED}" if self.truncated[-1] else ""))
        self.colours = self._colours()

    def _colours(self) -> list[str]:
        schema = self.schema
        if not schema.is_regression:
            palette = class_colours(len(schema.classes))
            return [palette[int(np.argmax(c))] if len(c) and sum(c) > 0 else "#bab0ac" for c in self.shown]
        means = [c[1] / c[0] if c[0] > 0 else 0.0 for c in self.shown]
        leaves = [m for m, node in zip(means, self.nodes) if isinstance(node, Leaf)] or means
        lo, hi = min(leaves), max(leaves)
        span = hi - lo if hi > lo else 1.0
        # Low means light blue, high means dark blue.
        return [_mix("#dbe9f6", "#08306b", min(1.0, max(0.0, (m - lo) / span))) for m in means]

    def __len__(self) -> int:
        return len(self.nodes)

    def feature_name(self, i: int) -> str:
        node = self.nodes[i]
        return _clean(self.schema.features[node.feature].name) if isinstance(node, Split) else ""

    def distribution(self, i: int) -> str:
        """The class distribution as text: ``no 2, yes 3`` (regression: ``mean m, weight w``)."""
        counts = self.shown[i]
        if self.schema.is_regression:
            w = counts[0]
            return f"mean {format_number(round(counts[1] / w, 6)) if w > 0 else '?'}, weight {format_number(round(w, 6))}"
        return ", ".join(f"{_clean(c)} {format_number(round(w, 6))}" for c, w in zip(self.schema.classes, self.nodes[i].stats))


def _segments(counts: Sequence[float], colours: Sequence[str]) -> list[tuple[float, str]]:
    """(share, colour) of each class with weight, for a distribution bar."""
    total = sum(counts)
    return [(w / total, colours[k]) for k, w in enumerate(counts) if w > 0] if total > 0 else []


def row_path(tree: Tree, row: Any) -> tuple[int, ...]:
    """The pre-order ids of the nodes one row visits, root first: ``row`` a mapping from
    feature name to value, or a sequence of values in the schema's column order.

    >>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
    >>> from puretree.tree import Tree
    >>> tree = Tree(Split(0, Threshold(1.5), (Leaf((2, 0)), Leaf((0, 3))), (2, 3)), Schema((Feature("x"),), ("no", "yes")))
    >>> row_path(tree, [2.0]), row_path(tree, {"x": 1.0})
    ((0, 2), (0, 1))
    """
    return tuple(decision_path(tree, _as_mapping(tree, row)))


def _as_mapping(tree: Tree, row: Any) -> Mapping[str, Any]:
    if isinstance(row, Mapping):
        return row
    names = tree.schema.feature_names
    values = list(np.asarray(row, dtype=object).ravel()) if not isinstance(row, (str, bytes)) else [row]
    if len(values) != len(names):
        raise ParameterError(f"row has {len(values)} values; the tree's features are {len(names)}: {list(names)[:8]}")
    return dict(zip(names, values))


def _passed(tree: Tree, shown: Tree, how: Display, row: Any, path: tuple[int, ...]) -> list[str]:
    """The tests a row passed on its path, as the view prints them, each with the row's value
    (``petal length <= 2.45  (petal length = 1.4)``)."""
    values = _as_mapping(tree, row)
    want = set(path[1:])
    found: dict[int, str] = {}

    # Each node is handed (its parent's feature index, the branch text that leads to it).
    def down(node: Node, _: Any) -> list[tuple[int, str]]:
        return [(node.feature, text) for text in branch_labels(node, shown.schema, how)] if isinstance(node, Split) else []

    for i, (_, (feature, text)) in enumerate(walk(shown.root, down, (-1, ""))):
        if i in want:
            name = tree.schema.feature_names[feature]
            found[i] = f"{_clean(text)}  ({_clean(shown.schema.feature_names[feature])} = {_clean(values.get(name))})"
        if i >= path[-1]:
            break  # pre-order: every node of the path has been seen
    return [found[i] for i in path[1:]]


def _options(tree: Tree, decimals: Any, max_depth: Any, feature_names: Any, class_names: Any) -> tuple[Tree, Display]:
    return display(tree, decimals=decimals, max_depth=max_depth, feature_names=feature_names, class_names=class_names)


# -- DOT ----------------------------------------------------------------------------------------


def to_dot(
    tree: Tree,
    *,
    decimals: int | None = DECIMALS,
    max_depth: int | None = None,
    feature_names: Sequence[str] | None = None,
    class_names: Sequence[str] | None = None,
    X: Any = None,
    y: Any = None,
    sample_weight: Any = None,
    histograms: NodeHistograms | Literal[False] | None = None,
) -> str:
    """The tree in Graphviz's DOT language.

    A split is a box naming its feature and weight, a leaf a rounded box with its class (or
    mean) and its class distribution, filled with its class's colour; each edge carries its
    branch's test. Warns (:class:`SlowLayoutWarning`) above :data:`DOT_SLOW_NODES` nodes.
    The display options are :func:`~puretree.text.to_text`'s (thresholds rounded to
    ``decimals`` places; splits below ``max_depth`` drawn as ``(...)``; names replaced).

    With data (rows ``X``, targets ``y`` and weights ``sample_weight``, or ``histograms``, or
    those the tree holds: :func:`~puretree.distributions.with_histograms`) each node's label
    is a Graphviz HTML-like table: a split's feature distribution over the rows that reach it
    as bars (stacked by class; regression: the distribution of its sampled rows) with a dark
    line at the threshold (a categorical feature: between branches) and the axis's ends, a
    leaf's class shares as one bar beside its size and purity (``n=50, 98% setosa``).
    ``histograms=False`` leaves the data out even where the tree holds it.

    >>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
    >>> from puretree.tree import Tree
    >>> tree = Tree(Split(0, Threshold(1.5), (Leaf((2, 0)), Leaf((0, 3))), (2, 3)), Schema((Feature('x "1"'),), ("no", "yes")))
    >>> print(to_dot(tree), end="")
    digraph tree {
    graph [ordering=out];
    node [shape=box, style="filled", fontname="Helvetica", fontsize=11];
    edge [fontname="Helvetica", fontsize=10];
    n0 [label="x \\"1\\"\\nyes (5/2)", fillcolor="#fad2aa"];
    n1 [label="no (2)\\nno 2, yes 0", fillcolor="#a6bcd3", style="rounded,filled"];
    n0 -> n1 [label="x \\"1\\" <= 1.5"];
    n2 [label="yes (3)\\nno 0, yes 3", fillcolor="#f8c695", style="rounded,filled"];
    n0 -> n2 [label="x \\"1\\" > 1.5"];
    }
    """
    shown, how = _options(tree, decimals, max_depth, feature_names, class_names)
    data = _histograms(tree, histograms, X, y, sample_weight)
    rows = _Rows(shown, how)
    if len(rows) > DOT_SLOW_NODES:
        warnings.warn(
            f"the tree has {len(rows)} nodes: Graphviz lays out more than {DOT_SLOW_NODES} slowly (minutes); "
            "prune the tree, or use the svg or html view",
            SlowLayoutWarning,
            stacklevel=2,
        )
    lines = [
        "digraph tree {",
        "graph [ordering=out];",
        'node [shape=box, style="filled", fontname="Helvetica", fontsize=11];',
        'edge [fontname="Helvetica", fontsize=10];',
    ]
    for i, node in enumerate(rows.nodes):
        leaf = isinstance(node, Leaf)
        # The escaped pieces are joined with DOT's line break after escaping.
        head = rows.label[i] if leaf else rows.feature_name(i)
        parts = [_dot_string(head)[1:-1], _dot_string(rows.distribution(i) if leaf else rows.label[i])[1:-1]]
        fill = _mix(rows.colours[i], "#ffffff", 0.5 if leaf else 0.6)
        style = ', style="rounded,filled"' if leaf else ""
        if data is not None:
            lines.append(f'n{i} [label=<{_dot_table(data, tree, rows, i, how)}>, fillcolor="{fill}"{style}, margin="0.08,0.04"];')
        else:
            label = "\\n".join(parts)
            lines.append(f'n{i} [label="{label}", fillcolor="{fill}"{style}];')
        if rows.parent[i] >= 0:
            lines.append(f"n{rows.parent[i]} -> n{i} [label={_dot_string(rows.edge[i])}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


#: A DOT chart's size in points: its bars' width and height (Graphviz sizes table cells in points).
_DOT_CHART_W, _DOT_CHART_H = 120, 30


def _dot_bars(weights: np.ndarray, cuts: Sequence[int], colours: Sequence[str]) -> list[str]:
    """One table cell per bar (a row of ``weights``; columns: classes), each a column of cells
    stacked by class from the bottom, the tallest _DOT_CHART_H high; a dark 2-point cell
    before each bar index in ``cuts`` (the threshold)."""
    n = len(weights)
    bar_w = max(2, _DOT_CHART_W // max(1, n))
    top = float(weights.sum(axis=1).max()) if weights.size else 0.0
    line = '<TD BGCOLOR="#222222" WIDTH="2" HEIGHT="1" FIXEDSIZE="FALSE"></TD>'
    cells = []
    for k in range(n):
        if k in cuts:
            cells.append(line)
        stack, used = [], 0
        for cls in range(weights.shape[1] - 1, -1, -1):  # top of the bar first: the last class
            v = float(weights[k, cls])
            px = min(max(1, round(v / top * _DOT_CHART_H)), _DOT_CHART_H - used) if v > 0 and top > 0 else 0
            if px > 0:
                stack.append(f'<TR><TD BGCOLOR="{colours[cls]}" WIDTH="{bar_w}" HEIGHT="{px}" FIXEDSIZE="TRUE"></TD></TR>')
                used += px
        if used < _DOT_CHART_H:
            stack.insert(0, f'<TR><TD WIDTH="{bar_w}" HEIGHT="{_DOT_CHART_H - used}" FIXEDSIZE="TRUE"></TD></TR>')
        cells.append(f'<TD VALIGN="BOTTOM" CELLPADDING="0"><TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="0">{"".join(stack)}</TABLE></TD>')
    if n in cuts:
        cells.append(line)
    return cells


def _dot_table(data: NodeHistograms, tree: Tree, rows: _Rows, i: int, how: Display) -> str:
    """Node ``i``'s label as a Graphviz HTML-like table: its text lines, then its chart (a
    split: its feature's bars with the threshold, the axis's ends under them; a leaf or a
    truncated split: its class shares as one bar under its size and purity). Every text is
    escaped (``_xml``)."""
    node, node_id = rows.nodes[i], rows.ids[i]
    leaf = isinstance(node, Leaf)
    classes = [_clean(c) for c in rows.schema.classes]
    colours = class_colours(len(classes))
    lines = [_xml(rows.label[i]) if leaf else f"<B>{_xml(rows.feature_name(i))}</B>"]
    cells: list[str] = []
    axis = ""
    if isinstance(node, Split) and not rows.truncated[i]:
        lines.append(_xml(rows.label[i]))
        bars = slots(data, tree, node_id, node, decimals=how.decimals)
        if bars is not None:
            cells = _dot_bars(bars.weights, bars.cuts, ["#4e79a7"] if data.regression else colours)
            half = len(cells) // 2
            axis = (f'<TR><TD COLSPAN="{half}" ALIGN="LEFT"><FONT POINT-SIZE="7">{_xml(bars.ends[0])}</FONT></TD>'
                    f'<TD COLSPAN="{len(cells) - half}" ALIGN="RIGHT"><FONT POINT-SIZE="7">{_xml(bars.ends[1])}</FONT></TD></TR>')
        if data.missing[node_id] > 0:
            lines.append(f'<FONT POINT-SIZE="8">+{format_number(round(float(data.missing[node_id]), 2))} missing</FONT>')
    else:
        size, purity = leaf_summary(data, node_id, classes)
        lines.append(_xml(f"{size}, {purity}"))
        counts = data.counts[node_id]
        total = float(counts.sum())
        if not data.regression and total > 0:
            cells = [f'<TD BGCOLOR="{colours[k]}" WIDTH="{max(1, round(float(v) / total * _DOT_CHART_W))}" HEIGHT="8" FIXEDSIZE="TRUE"></TD>' for k, v in enumerate(counts) if v > 0]
    span = max(1, len(cells))
    text = "".join(f'<TR><TD COLSPAN="{span}">{line}</TD></TR>' for line in lines)
    bars_row = f"<TR>{''.join(cells)}</TR>" if cells else ""
    return f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">{text}{bars_row}{axis}</TABLE>'


# -- SVG ----------------------------------------------------------------------------------------

_BOX_W, _BOX_H, _GAP_X, _GAP_Y, _MARGIN = 150, 54, 16, 46, 10
_TEXT_CHARS = 22  # characters that fit a box's line at the font size used
# With the data's distributions: wider, taller boxes, a chart under a split's two lines of text,
# a leaf's pie (or strip) beside its size and purity.
_CHART_BOX_W, _CHART_BOX_H, _CHART_TOP, _CHART_H = 190, 124, 34, 84


def _histograms(tree: Tree, histograms: Any, X: Any, y: Any, sample_weight: Any = None) -> NodeHistograms | None:
    """The data's distributions a view draws: ``histograms`` made for this tree, or made now
    from the rows ``X``, targets ``y`` and weights ``sample_weight``, or else those the tree
    holds (stored at fit, :func:`~puretree.distributions.with_histograms`), or none.
    ``histograms=False`` draws none even where the tree holds them."""
    if X is None:
        if y is not None or sample_weight is not None:
            raise ParameterError(f"{'y' if y is not None else 'sample_weight'} goes with X: the rows whose {'targets' if y is not None else 'weights'} they are")
        if histograms is False:
            return None
        if histograms is not None:
            check_fits(histograms, tree)
            return histograms  # type: ignore[no-any-return]
        return tree.histograms
    if histograms is not None and histograms is not False:
        raise ParameterError("give the rows (X=, y=) or their histograms (histograms=), not both")
    return node_histograms(tree, X, y, sample_weight=sample_weight)


def _draw(shapes: Sequence[Any], dx: float, dy: float) -> str:
    """Shapes of a chart as SVG elements, moved by (dx, dy): a ``<g>`` with a transform."""
    parts = [f'<g class="chart" transform="translate({dx:g},{dy:g})">']
    for shape in shapes:
        # Attributes are ours (numbers, colours, class names): escaped, but never cut or cleaned.
        attributes = "".join(f' {k}="{html.escape(v, quote=True)}"' for k, v in shape.attributes)
        parts.append(f"<{shape.tag}{attributes}>{_xml(shape.text)}</{shape.tag}>" if shape.text else f"<{shape.tag}{attributes}/>")
    parts.append("</g>")
    return "".join(parts)


def _layout(rows: _Rows, box_w: float = _BOX_W) -> tuple[list[float], int]:
    """The x centre of each node, and the number of leaf slots: leaves side by side in
    pre-order, each split centred over its first and last child."""
    n = len(rows)
    kids: list[list[int]] = [[] for _ in range(n)]
    for i in range(1, n):
        kids[rows.parent[i]].append(i)
    x = [0.0] * n
    slot = 0
    for i in range(n):  # leaves, left to right
        if not kids[i]:
            x[i] = slot * (box_w + _GAP_X) + box_w / 2
            slot += 1
    for i in range(n - 1, -1, -1):  # a parent comes before its children in pre-order
        if kids[i]:
            x[i] = (x[kids[i][0]] + x[kids[i][-1]]) / 2
    return x, slot


def to_svg(
    tree: Tree,
    *,
    decimals: int | None = DECIMALS,
    max_depth: int | None = None,
    feature_names: Sequence[str] | None = None,
    class_names: Sequence[str] | None = None,
    width: int | None = None,
    row: Any = None,
    X: Any = None,
    y: Any = None,
    sample_weight: Any = None,
    histograms: NodeHistograms | Literal[False] | None = None,
) -> str:
    """The tree as a standalone SVG picture, laid out by puretree (no Graphviz needed).

    Each node is a box in its class's colour with its feature (a split) or class and weight
    (a leaf) and a bar of its class distribution; each edge is labelled with its branch's
    test. Hovering a node shows its full text and distribution (an SVG ``<title>``).
    ``width`` (pixels) scales the whole picture to that width (its height in proportion).
    ``row`` (a mapping from feature name to value, or the values in column order) is drawn
    as its path: the nodes and edges it passes outlined in red, and the tests it passed
    listed under the tree. The other options are :func:`~puretree.text.to_text`'s.

    With rows ``X``, their targets ``y`` and weights ``sample_weight`` (the training data,
    say), or the ``histograms`` :func:`~puretree.distributions.node_histograms` made of them
    once, or those the tree holds (stored at fit:
    :func:`~puretree.distributions.with_histograms`; ``histograms=False`` leaves them out), each
    split also shows its feature's distribution over the rows that reach it, as dtreeviz
    does: a histogram stacked by class with the threshold marked (a dashed line and a wedge;
    a categorical feature: a bar per category, a dashed line between branches), for a
    regression tree the rows' (value, target) points and each branch's mean; and each leaf
    its size and purity: a pie of its classes, its area in proportion to the leaf's rows,
    beside ``n=50`` and ``98% setosa`` (regression: its targets, their mean and ``sd``).
    With ``row`` as well, a red wedge under each chart on the row's path marks its value.

    >>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
    >>> from puretree.tree import Tree
    >>> tree = Tree(Split(0, Threshold(1.5), (Leaf((2, 0)), Leaf((0, 3))), (2, 3)), Schema((Feature("a<b"),), ("no", "yes")))
    >>> svg = to_svg(tree)
    >>> "a&lt;b &lt;= 1.5" in svg, svg.count("<rect class=\\"node\\"")
    (True, 3)
    >>> svg = to_svg(tree, row={"a<b": 2.0}, width=100)
    >>> svg.count('class="node onpath"'), "a&lt;b &gt; 1.5  (a&lt;b = 2.0)" in svg, 'width="100"' in svg
    (2, True, True)
    >>> svg = to_svg(tree, X=[[1.0], [1.0], [2.0], [3.0], [4.0]], y=["no", "no", "yes", "yes", "yes"])
    >>> svg.count('class="threshold"'), svg.count('class="pie"'), ">n=3<" in svg
    (1, 2, True)
    """
    if width is not None and (isinstance(width, bool) or not isinstance(width, int) or width < 1):
        raise ParameterError(f"width must be a whole number of pixels >= 1, got {width!r}")
    shown, how = _options(tree, decimals, max_depth, feature_names, class_names)
    data = _histograms(tree, histograms, X, y, sample_weight)
    box_w, box_h = (_BOX_W, _BOX_H) if data is None else (_CHART_BOX_W, _CHART_BOX_H)
    chars = _TEXT_CHARS if data is None else _TEXT_CHARS + 6
    rows = _Rows(shown, how)
    path = set(row_path(tree, row)) if row is not None else set()
    passed = _passed(tree, shown, how, row, row_path(tree, row)) if row is not None else []
    x, slots = _layout(rows, box_w)
    natural = max(1, slots) * (box_w + _GAP_X) - _GAP_X + 2 * _MARGIN
    tree_height = (max(rows.depth) + 1) * (box_h + _GAP_Y) - _GAP_Y + 2 * _MARGIN
    height = tree_height + (16 * (len(passed) + 1) + _MARGIN if row is not None else 0)
    shown_w = natural if width is None else width
    shown_h = height if width is None else max(1, round(height * width / natural))
    colours = class_colours(len(rows.schema.classes))

    def top(i: int) -> float:
        return _MARGIN + rows.depth[i] * (box_h + _GAP_Y)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{shown_w}" height="{shown_h}" viewBox="0 0 {natural} {height}" font-family="Helvetica, Arial, sans-serif" font-size="11">',
        "<style>.edge{stroke:#888;fill:none}.node{stroke:#555}.onpath{stroke:#d62728;stroke-width:3px}.cond{fill:#333;paint-order:stroke;stroke:#fff;stroke-width:3px}</style>",
        f'<rect width="{natural}" height="{height}" fill="#ffffff"/>',
    ]
    on = [rows.ids[i] in path for i in range(len(rows))]
    marked = _row_values(tree, row, path)
    for i in range(1, len(rows)):  # edges first, under the boxes
        p = rows.parent[i]
        x0, y0, x1, y1 = _MARGIN + x[p], top(p) + box_h, _MARGIN + x[i], top(i)
        out.append(f'<path class="edge{" onpath" if on[i] else ""}" d="M{x0:g},{y0:g} C{x0:g},{(y0 + y1) / 2:g} {x1:g},{(y0 + y1) / 2:g} {x1:g},{y1:g}"/>')
        # The test just above the child's box: children are a box apart, so labels never overlap.
        out.append(f'<text class="cond" x="{x1:g}" y="{y1 - 7:g}" text-anchor="middle"><title>{_xml(rows.edge[i])}</title>{_xml(_cut(rows.edge[i], chars + 6))}</text>')
    for i, node in enumerate(rows.nodes):
        leaf = isinstance(node, Leaf)
        left, top_y = _MARGIN + x[i] - box_w / 2, top(i)
        head = rows.label[i] if leaf else rows.feature_name(i)
        sub = rows.distribution(i) if leaf else rows.label[i]
        out.append(f"<g><title>{_xml(head)}&#10;{_xml(rows.distribution(i))}</title>")
        out.append(f'<rect class="node{" onpath" if on[i] else ""}" x="{left:g}" y="{top_y:g}" width="{box_w}" height="{box_h}" rx="{8 if leaf else 2}" fill="{_mix(rows.colours[i], "#ffffff", 0.55 if leaf else 0.7)}"/>')
        weight = "bold" if not leaf else "normal"
        out.append(f'<text x="{left + box_w / 2:g}" y="{top_y + 16:g}" text-anchor="middle" font-weight="{weight}">{_xml(_cut(head, chars))}</text>')
        if data is not None:
            out.append(_svg_chart(data, tree, rows, i, left, top_y, colours, how, marked.get(rows.ids[i])))
            out.append("</g>")
            continue
        out.append(f'<text x="{left + box_w / 2:g}" y="{top_y + 31:g}" text-anchor="middle" font-size="10">{_xml(_cut(sub, chars + 4))}</text>')
        at = left + 8
        for share, colour in _segments(rows.shown[i], colours) if not rows.schema.is_regression else [(1.0, rows.colours[i])]:
            w = share * (box_w - 16)
            out.append(f'<rect x="{at:g}" y="{top_y + box_h - 16:g}" width="{w:g}" height="8" fill="{colour}"/>')
            at += w
        out.append("</g>")
    if row is not None:  # the row's tests, under the tree, one line each
        lines = ["the row's path:" if passed else "the row's path: the root is a leaf"] + [f"{k + 1}. {t}" for k, t in enumerate(passed)]
        for k, line in enumerate(lines):
            out.append(f'<text class="passed" x="{_MARGIN}" y="{tree_height + 16 * (k + 1):g}" font-size="12" fill="#222">{_xml(line)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _row_values(tree: Tree, row: Any, path: Any) -> dict[int, float]:
    """The row's encoded value of each split feature on its path, by node id (a chart marks it)."""
    if row is None:
        return {}
    values = encode_features(tree.schema, [_as_mapping(tree, row)])[0]
    return {i: float(values[node.feature]) for i, node in enumerate(iter_nodes(tree)) if i in path and isinstance(node, Split)} if path else {}


def _svg_chart(data: NodeHistograms, tree: Tree, rows: _Rows, i: int, left: float, y: float, colours: Sequence[str], how: Display, value: float | None = None) -> str:
    """A node's box below its first line, with the data: a split's second line and its
    feature's distribution; a leaf's pie (regression: strip) beside its size and purity."""
    node_id, node, truncated = rows.ids[i], rows.nodes[i], rows.truncated[i]
    if isinstance(node, Split) and not truncated:
        shapes = chart(data, tree, node_id, node, width=_CHART_BOX_W - 16, height=_CHART_H, colours=colours, decimals=how.decimals, value=value)
        second = f'<text x="{left + _CHART_BOX_W / 2:g}" y="{y + 29:g}" text-anchor="middle" font-size="10">{_xml(_cut(rows.label[i], _TEXT_CHARS + 10))}</text>'
        return second + _draw(shapes, left + 8, y + _CHART_TOP)
    # A leaf, or a split drawn without its subtree (max_depth): the rows that reach it.
    side = _CHART_BOX_H - 28
    shapes = chart(data, tree, node_id, Leaf((0.0,)), width=side, height=side, colours=colours, decimals=how.decimals)
    size, purity = leaf_summary(data, node_id, [_clean(c) for c in rows.schema.classes])
    text = "".join(
        f'<text class="leafsize" x="{left + side + 14:g}" y="{y + 24 + side / 2 + dy:g}" font-size="11">{_xml(_cut(line, 14))}</text>'
        for line, dy in ((size, -2), (purity, 13))
    )
    return _draw(shapes, left + 6, y + 22) + text


# -- HTML ---------------------------------------------------------------------------------------


def _script_json(value: Any) -> str:
    """JSON that can sit inside a ``<script>`` element: no ``<``, ``>`` or ``&`` (so no
    ``</script>`` or ``<!--``), only ASCII (so no U+2028 ending a JavaScript line).

    >>> _script_json({"name": "</script><b>&"})
    '{"name": "\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e\\\\u0026"}'
    """
    text = json.dumps(value, ensure_ascii=True, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


#: The page's charts, in pixels: a split's distribution (width, height), a leaf's pie.
_PAGE_CHART, _PAGE_PIE = (180, 46), 40


def _page_charts(data: NodeHistograms, tree: Tree, rows: _Rows, how: Display, marked: Mapping[int, float]) -> tuple[list[Any], list[str]]:
    """Each row's chart as shapes (JSON: tag, attributes, text) and a leaf's size and purity."""
    colours = class_colours(len(rows.schema.classes))
    charts, sizes = [], []
    for i, node in enumerate(rows.nodes):
        drawn_as_split = isinstance(node, Split) and not rows.truncated[i]
        w, h = _PAGE_CHART if drawn_as_split else (_PAGE_PIE, _PAGE_PIE)
        shapes = chart(data, tree, rows.ids[i], node if drawn_as_split else Leaf((0.0,)), width=w, height=h, colours=colours, decimals=how.decimals, value=marked.get(rows.ids[i]))
        charts.append([w, h, [s.as_json() for s in shapes]])
        sizes.append("" if drawn_as_split else ", ".join(leaf_summary(data, rows.ids[i], [_clean(c) for c in rows.schema.classes])))
    return charts, sizes


def _page_data(tree: Tree, open_depth: int, how: Display = Display(), path: tuple[int, ...] = (), passed: Sequence[str] = (), data: NodeHistograms | None = None, marked: Mapping[int, float] = {}) -> dict[str, Any]:
    rows = _Rows(tree, how)
    schema: Schema = rows.schema
    on = set(path)
    regression = schema.is_regression
    charts, sizes = _page_charts(data, tree, rows, how, marked) if data is not None else ([], [])
    return {
        # The data's distribution at each node (to_html(X=, y=)): shapes the script draws, and a leaf's size and purity.
        "charts": charts,
        "sizes": sizes,
        "regression": regression,
        "target": _clean(schema.target),
        "classes": [_clean(c) for c in schema.classes],
        "classColours": class_colours(len(schema.classes)),
        "openDepth": open_depth,
        "parent": rows.parent,
        "edge": rows.edge,
        "feature": [rows.feature_name(i) for i in range(len(rows))],
        "label": rows.label,
        "colour": rows.colours,
        # Weights as written in text output (finite: nodes refuse anything else).
        "counts": [[round(float(w), 6) for w in rows.shown[i]] for i in range(len(rows))],
        "summary": f"{len(rows)} nodes, {sum(1 for n in rows.nodes if isinstance(n, Leaf))} leaves, depth {max(rows.depth)}",
        # One row's path (to_html(row=...)): the rows it passes, and the tests it passed.
        "onPath": [i for i in range(len(rows)) if rows.ids[i] in on],
        "passed": list(passed),
    }


_STYLE = """
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;color:#222;background:#fff}
header{padding:10px 16px;border-bottom:1px solid #ddd;background:#f7f7f7;position:sticky;top:0;z-index:1}
header h1{font-size:16px;margin:0 0 6px}
.legend span{display:inline-block;margin-right:12px}
.swatch{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:4px;vertical-align:-1px}
button{font:inherit;margin-right:6px}
#tree{padding:8px 16px 40px}
.row{display:flex;align-items:center;gap:8px;padding:2px 6px;border-left:6px solid #ccc;margin:1px 0;cursor:default;white-space:nowrap}
.row:hover{background:#eef3fb}
.row.split{cursor:pointer}
.toggle{width:14px;color:#555;flex:none}
.depth{color:#888;font-size:12px}
.cond{font-weight:600}
.test{color:#555}
.bar{display:inline-flex;width:120px;height:10px;border:1px solid #999;flex:none;background:#fff}
.bar i{display:block;height:100%}
.label{color:#333}
.chart{flex:none;overflow:visible}
.size{color:#555;font-size:12px}
.row.onpath{background:#fff3cd;outline:2px solid #d62728}
#passed{margin:4px 0 0;padding-left:22px}
#tip{position:fixed;right:12px;bottom:12px;max-width:45%;max-height:60%;overflow:auto;background:#fffff0;border:1px solid #bbb;
box-shadow:0 2px 8px rgba(0,0,0,.2);padding:8px 10px;font-size:13px;display:none;white-space:pre-wrap}
"""

# The page's program: it builds rows from the JSON data with textContent only (never HTML
# from data), walks with explicit stacks (a tree may be 10,000 levels deep), and renders only
# the open part of the tree.
_SCRIPT = r"""
"use strict";
const D = JSON.parse(document.getElementById("puretree-data").textContent);
const N = D.parent.length, MAX_INDENT = 40, MAX_PATH = 200;
const kids = Array.from({length: N}, () => []);
const depth = new Int32Array(N);
for (let i = 1; i < N; i++) { kids[D.parent[i]].push(i); depth[i] = depth[D.parent[i]] + 1; }
const hash = /depth=(\d+)/.exec(location.hash);
const openDepth = hash ? Number(hash[1]) : D.openDepth;
const open = new Uint8Array(N);
for (let i = 0; i < N; i++) open[i] = kids[i].length > 0 && depth[i] < openDepth ? 1 : 0;
const onPath = new Uint8Array(N);
for (const i of D.onPath) { onPath[i] = 1; if (kids[i].length) open[i] = 1; }
const treeEl = document.getElementById("tree"), tip = document.getElementById("tip");

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function bar(i) {
  const b = el("span", "bar"), c = D.counts[i];
  if (D.regression) { const s = el("i"); s.style.width = "100%"; s.style.background = D.colour[i]; b.appendChild(s); return b; }
  const total = c.reduce((a, x) => a + x, 0);
  c.forEach((w, k) => { if (w > 0) { const s = el("i"); s.style.width = (100 * w / total) + "%"; s.style.background = D.classColours[k]; b.appendChild(s); } });
  return b;
}
function row(i) {
  const split = kids[i].length > 0;
  const r = el("div", (split ? "row split" : "row leaf") + (onPath[i] ? " onpath" : ""));
  r.dataset.node = i;
  r.style.marginLeft = (Math.min(depth[i], MAX_INDENT) * 18) + "px";
  r.style.borderLeftColor = D.colour[i];
  r.appendChild(el("span", "toggle", split ? (open[i] ? "\u25BE" : "\u25B8") : "\u2022"));
  if (depth[i] > MAX_INDENT) r.appendChild(el("span", "depth", "[depth " + depth[i] + "]"));
  r.appendChild(el("span", "cond", i === 0 ? "root" : D.edge[i]));
  if (split) r.appendChild(el("span", "test", "\u2192 " + D.feature[i] + (open[i] ? "" : " (" + kids[i].length + " branches)")));
  r.appendChild(bar(i));
  if (D.charts.length) r.appendChild(chart(i));
  r.appendChild(el("span", "label", D.label[i]));
  if (D.sizes.length && D.sizes[i]) r.appendChild(el("span", "size", D.sizes[i]));
  return r;
}
// A node's chart: SVG elements of a few known tags, attributes set one by one, text as textContent.
const SVGNS = "http://www.w3.org/2000/svg", TAGS = new Set(["rect", "line", "circle", "path", "polygon", "text"]);
function chart(i) {
  const [w, h, shapes] = D.charts[i], s = document.createElementNS(SVGNS, "svg");
  s.setAttribute("class", "chart"); s.setAttribute("width", w); s.setAttribute("height", h);
  s.setAttribute("font-family", "Helvetica, Arial, sans-serif");
  for (const [tag, attributes, text] of shapes) {
    if (!TAGS.has(tag)) continue;
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attributes)) if (/^[a-z-]+$/.test(k)) e.setAttribute(k, v);
    if (text) e.textContent = text;
    s.appendChild(e);
  }
  return s;
}
function render() {
  const frag = document.createDocumentFragment(), stack = [0];
  while (stack.length) {
    const i = stack.pop();
    frag.appendChild(row(i));
    if (open[i]) for (let k = kids[i].length - 1; k >= 0; k--) stack.push(kids[i][k]);
  }
  treeEl.replaceChildren(frag);
  document.body.dataset.rendered = treeEl.childElementCount;
}
function setSubtree(i, value) {
  const stack = [i];
  while (stack.length) { const j = stack.pop(); if (kids[j].length) { open[j] = value; stack.push(...kids[j]); } }
}
function describe(i) {
  const path = [];
  for (let j = i; j > 0 && path.length <= MAX_PATH; j = D.parent[j]) path.push(D.edge[j]);
  const more = depth[i] - Math.min(depth[i], MAX_PATH);
  path.reverse();
  const lines = ["path (" + depth[i] + " conditions):"];
  if (more > 0) lines.push("  \u2026 " + more + " earlier conditions");
  path.slice(-MAX_PATH).forEach(p => lines.push("  " + p));
  if (path.length === 0) lines.push("  (the root)");
  lines.push(D.regression ? "statistics:" : "class counts:");
  if (D.regression) { const c = D.counts[i]; lines.push("  weight " + c[0], "  mean " + (c[0] > 0 ? c[1] / c[0] : "?")); }
  else D.classes.forEach((name, k) => lines.push("  " + name + ": " + D.counts[i][k]));
  lines.push("prediction: " + D.label[i]);
  return lines.join("\n");
}
treeEl.addEventListener("click", ev => {
  const r = ev.target.closest(".row");
  if (!r) return;
  const i = Number(r.dataset.node);
  if (!kids[i].length) return;
  if (ev.shiftKey) setSubtree(i, open[i] ? 0 : 1); else open[i] = open[i] ? 0 : 1;
  render();
});
treeEl.addEventListener("mouseover", ev => {
  const r = ev.target.closest(".row");
  if (!r) return;
  tip.textContent = describe(Number(r.dataset.node));
  tip.style.display = "block";
});
treeEl.addEventListener("mouseleave", () => { tip.style.display = "none"; });
document.getElementById("expand").addEventListener("click", () => { setSubtree(0, 1); render(); });
document.getElementById("collapse").addEventListener("click", () => { setSubtree(0, 0); render(); });
const legend = document.getElementById("legend");
if (D.regression) legend.appendChild(el("span", "", "regression of " + D.target + ": darker is a higher mean"));
else D.classes.forEach((name, k) => {
  const s = el("span", "cls"), w = el("span", "swatch");
  w.style.background = D.classColours[k];
  s.appendChild(w); s.appendChild(document.createTextNode(name)); legend.appendChild(s);
});
if (D.onPath.length) {
  const list = document.getElementById("passed");
  list.appendChild(el("li", "", "the row's path" + (D.passed.length ? ":" : ": the root is a leaf")));
  list.firstChild.style.listStyle = "none";
  D.passed.forEach(t => list.appendChild(el("li", "", t)));
}
document.getElementById("summary").textContent = D.summary + " \u2014 click a node to open or close it (shift-click: its whole subtree); hover for its counts and path";
render();
"""


def to_html(
    tree: Tree,
    *,
    open_depth: int = OPEN_DEPTH,
    title: str = "puretree",
    decimals: int | None = DECIMALS,
    max_depth: int | None = None,
    feature_names: Sequence[str] | None = None,
    class_names: Sequence[str] | None = None,
    row: Any = None,
    X: Any = None,
    y: Any = None,
    sample_weight: Any = None,
    histograms: NodeHistograms | Literal[False] | None = None,
) -> str:
    """The tree as one standalone HTML page (no network access: style, data and script inline).

    ``row`` (a mapping from feature name to value, or the values in column order) is shown
    as its path: the nodes it passes open and highlighted, and the tests it passed listed in
    the header. The display options are :func:`~puretree.text.to_text`'s. With rows ``X``,
    targets ``y`` and weights ``sample_weight``, or their ``histograms``, or those the tree
    holds, each row of the page also draws what :func:`to_svg` draws with them: a split's feature distribution with its threshold
    marked, a leaf's pie with its size and purity.

    The tree is an outline, one row per node: the branch's test, the split's feature, a bar
    of the class distribution and the prediction. Clicking a split opens or closes it
    (shift-click: its whole subtree; the header's buttons: the whole tree); hovering a row
    shows its counts and every condition on its path. Levels deeper than ``open_depth``
    start closed (the page's address may say ``#depth=N`` instead).

    >>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
    >>> from puretree.tree import Tree
    >>> tree = Tree(Split(0, Threshold(1.5), (Leaf((2, 0)), Leaf((0, 3))), (2, 3)), Schema((Feature("</script>"),), ("no", "yes")))
    >>> page = to_html(tree)
    >>> page.count("</script>"), "\\\\u003c/script\\\\u003e" in page
    (2, True)
    """
    if isinstance(open_depth, bool) or not isinstance(open_depth, int) or open_depth < 0:
        raise ParameterError(f"open_depth must be a whole number >= 0, got {open_depth!r}")
    shown, how = _options(tree, decimals, max_depth, feature_names, class_names)
    histograms = _histograms(tree, histograms, X, y, sample_weight)
    path = row_path(tree, row) if row is not None else ()
    passed = _passed(tree, shown, how, row, path) if row is not None else []
    data = _script_json(_page_data(shown, open_depth, how, path, passed, histograms, _row_values(tree, row, set(path))))
    name = _xml(title)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        # No request leaves the page: a policy forbids any, should a future edit add one.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
        f"<title>{name}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        f"<header><h1>{name}</h1><div id=\"summary\"></div><div class=\"legend\" id=\"legend\"></div>"
        "<div><button id=\"expand\" type=\"button\">expand all</button><button id=\"collapse\" type=\"button\">collapse all</button></div><ol id=\"passed\"></ol></header>\n"
        "<main id=\"tree\"></main>\n<div id=\"tip\"></div>\n"
        f"<script type=\"application/json\" id=\"puretree-data\">{data}</script>\n"
        f"<script>{_SCRIPT}</script>\n</body>\n</html>\n"
    )


def render_view(tree: Tree, format: str, **options: Any) -> str:
    """The tree in one of :data:`VIEW_FORMATS`, as ``puretree show --format`` writes it
    (``text``: the indented text and the summary line).

    >>> from puretree.nodes import Feature, Leaf, Schema
    >>> from puretree.tree import Tree
    >>> print(render_view(Tree(Leaf((1, 2)), Schema((Feature("x"),), ("a", "b"))), "text"), end="")
    b (3/1)
    nodes: 1, leaves: 1, depth: 0
    >>> render_view(Tree(Leaf((1, 2)), Schema((Feature("x"),), ("a", "b"))), "png")
    Traceback (most recent call last):
    ...
    puretree.errors.ParameterError: unknown view format 'png'; expected one of ['text', 'dot', 'svg', 'html']
    """
    if format == "text":
        return f"{to_text(tree, **options)}\n{summary(tree)}\n"
    makers: dict[str, Any] = {"dot": to_dot, "svg": to_svg, "html": to_html}
    if format not in makers:
        raise ParameterError(f"unknown view format {format!r}; expected one of {list(VIEW_FORMATS)}")
    return str(makers[format](tree, **options))


def _notebook_cut(tree: Tree) -> tuple[int | None, str]:
    deep = tree_depth(tree)
    cut = NOTEBOOK_DEPTH if deep > NOTEBOOK_DEPTH + 1 else None
    note = f"{n_leaves(tree)} leaves, depth {deep}" + (f"; the first {NOTEBOOK_DEPTH + 1} levels shown (to_svg(tree) draws them all)" if cut is not None else "")
    return cut, note


def notebook_svg(tree: Tree) -> str:
    """A tree's picture in a notebook (``Tree._repr_svg_``): small by default, its first
    levels (:data:`NOTEBOOK_DEPTH`) at most :data:`NOTEBOOK_WIDTH` pixels wide.

    >>> from puretree.nodes import Feature, Leaf, Schema
    >>> from puretree.tree import Tree
    >>> notebook_svg(Tree(Leaf((1, 2)), Schema((Feature("x"),), ("a", "b")))).startswith("<svg")
    True
    """
    cut, _ = _notebook_cut(tree)
    natural = to_svg(tree, max_depth=cut)
    width = int(re.search(r'width="(\d+)"', natural).group(1))  # type: ignore[union-attr]
    return natural if width <= NOTEBOOK_WIDTH else to_svg(tree, max_depth=cut, width=NOTEBOOK_WIDTH)


def notebook_html(tree: Tree) -> str:
    """A tree in a notebook's HTML output (``Tree._repr_html_``): a line saying what it is,
    then :func:`notebook_svg`'s picture inline (no script, so every notebook shows it).

    >>> from puretree.nodes import Feature, Leaf, Schema
    >>> from puretree.tree import Tree
    >>> html = notebook_html(Tree(Leaf((1, 2)), Schema((Feature("x"),), ("a", "b"))))
    >>> html.startswith('<div class="puretree">'), "1 leaves, depth 0" in html
    (True, True)
    """
    _, note = _notebook_cut(tree)
    kind = "regression tree" if tree.schema.is_regression else "classification tree"
    return f'<div class="puretree"><div style="font:13px sans-serif;margin:2px 0">puretree {kind}: {_xml(note)}</div>{notebook_svg(tree)}</div>'

