"""The data at each node of a picture (issue 27, dtreeviz's views): each split's feature
distribution with its threshold marked, each leaf's size and purity, from rows given
(``X=``, ``y=``) or from ``puretree.node_histograms`` computed once. The counts are checked
against each row's own decision path, the SVG's geometry against the numbers, the pictures in
headless Chromium (a screenshot per view, left in tests/artefacts/ for a person to look at),
and docs/img/ against what docs/make_pictures.py makes now."""

from __future__ import annotations

import importlib.util
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import attrs
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_diabetes, load_iris
from test_views import _chromium_run, chain_tree, dump_dom, read_png

import puretree as pt
from puretree.cli import main
from puretree.distributions import MAX_POINTS, node_histograms
from puretree.errors import DataError, ParameterError
from puretree.nodes import Feature, Leaf, Multiway, Schema, Split
from puretree.views import class_colours, to_html, to_svg

SVG = "{http://www.w3.org/2000/svg}"
ROOT = Path(__file__).resolve().parents[1]
#: Where the screenshots go: an ignored folder of the repository (.gitignore), or $PURETREE_ARTEFACTS.
ARTEFACTS = Path(os.environ.get("PURETREE_ARTEFACTS", ROOT / "tests" / "artefacts"))
#: The chart's size inside a split's box of the SVG (puretree.views: _CHART_BOX_W - 16).
CHART_W = 174


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    species = np.array(["setosa", "versicolor", "virginica"])[y]
    return pt.cart(X, species, max_depth=3), X, species


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    X = X[:, [2, 3, 8]]
    return pt.cart_regressor(X, y, max_depth=2), X, y


def _paths(tree, X):
    return pt.decision_path(tree, [dict(zip(tree.schema.feature_names, row)) for row in X])


# -- the numbers --------------------------------------------------------------------------------


@settings(max_examples=25)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 60), depth=st.integers(0, 4))
def test_each_nodes_counts_are_the_rows_whose_path_passes_it(seed, n, depth):
    # The reference: each row's own decision path, row by row.
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, 2)).astype(float)
    y = rng.choice(["a", "b", "c"], size=n)
    tree = pt.cart(X, y, max_depth=depth)
    h = node_histograms(tree, X, y, bins=4)
    classes = list(tree.schema.classes)
    want = np.zeros_like(h.counts)
    for path, label in zip(_paths(tree, X), y):
        for node in path:
            want[node, classes.index(label)] += 1
    assert np.array_equal(h.counts, want)
    for i in range(h.n_nodes):
        if h.feature[i] >= 0:  # a split: its histogram holds every row that reaches it
            assert h.hist[i].sum() + h.missing[i] == h.counts[i].sum()
            assert np.array_equal(h.hist[i].sum(axis=0), h.counts[i])
        else:
            assert h.hist[i] is None


@settings(max_examples=20)
@given(seed=st.integers(0, 2**31 - 1), multiway=st.booleans())
def test_categories_unseen_ones_and_missing_values_go_where_prediction_sends_them(seed, multiway):
    # Subset splits (cart) or one branch per category (id3); the rows drawn have categories the
    # tree never saw (they stop at the split) and missing numbers (the majority branch).
    rng = np.random.default_rng(seed)
    train = pd.DataFrame({"x": rng.integers(0, 4, 50).astype(float), "c": rng.choice(list("pqr"), 50)})
    y = rng.choice(["a", "b"], 50)
    tree = pt.id3(pt.from_pandas(train.assign(y=y), target="y")) if multiway else pt.cart(train, y, max_depth=3)
    rows = pd.DataFrame({"x": np.where(rng.random(30) < 0.2, np.nan, rng.integers(0, 4, 30)), "c": rng.choice(list("pqrz"), 30)})
    labels = rng.choice(["a", "b"], 30)
    h = node_histograms(tree, rows, labels)
    want = np.zeros_like(h.counts)
    for path, label in zip(pt.decision_path(tree, [dict(r) for _, r in rows.iterrows()]), labels):
        for node in path:
            want[node, ["a", "b"].index(label)] += 1
    assert np.array_equal(h.counts, want)
    for i in np.flatnonzero(h.feature >= 0):
        assert h.hist[i].sum() + h.missing[i] == h.counts[i].sum()


def test_the_roots_histogram_is_numpys_per_class(iris):
    tree, X, y = iris
    h = node_histograms(tree, X, y)
    j = tree.root.feature
    edges = h.edges[j]
    assert edges[0] == X[:, j].min() and edges[-1] == X[:, j].max() and len(edges) == 21
    for k, c in enumerate(tree.schema.classes):
        assert np.array_equal(h.hist[0][:, k], np.histogram(X[y == c, j], bins=edges)[0])


def test_missing_values_are_spread_as_prediction_spreads_them():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 2))
    y = np.where(X[:, 0] + X[:, 1] > 0, "p", "n")
    tree = pt.cart(X, y, max_depth=2)
    tree = attrs.evolve(tree, missing="distribute")
    Xm = X.copy()
    Xm[::7, tree.root.feature] = np.nan
    h = node_histograms(tree, Xm, y)
    assert h.missing[0] == len(Xm[::7])
    first, second = (1, 1 + int(h.span[1]))
    # A missing row goes down both branches with the branch's training share: the children add up.
    assert np.allclose(h.counts[first] + h.counts[second], h.counts[0])
    assert not np.allclose(h.counts[first], np.round(h.counts[first]))  # fractions, not whole rows


def test_regression_keeps_points_and_sums(diabetes):
    tree, X, y = diabetes
    h = node_histograms(tree, X, y)
    assert h.counts[0].tolist() == pytest.approx([len(y), y.sum(), (y * y).sum()])
    assert h.target_range == (y.min(), y.max())
    for i in range(h.n_nodes):
        assert 0 < len(h.points[i]) <= MAX_POINTS
    assert node_histograms(tree, X, y).points[0].tolist() == h.points[0].tolist()  # no randomness


def test_bad_input_is_refused_by_name(iris, diabetes):
    tree, X, y = iris
    labels = y.copy()
    labels[7] = "rose"
    with pytest.raises(DataError, match=r"row 7: the label 'rose' is not one of the tree's classes \['setosa', 'versicolor', 'virginica'\]"):
        node_histograms(tree, X, labels)
    with pytest.raises(DataError, match="the rows number 150 but the targets 149"):
        node_histograms(tree, X, y[:-1])
    with pytest.raises(ParameterError, match="needs the rows' targets"):
        node_histograms(tree, X)
    with pytest.raises(ParameterError, match="bins must be a whole number >= 1"):
        node_histograms(tree, X, y, bins=0)
    with pytest.raises(DataError, match="not a finite number"):
        node_histograms(diabetes[0], diabetes[1], ["x"] * len(diabetes[2]))
    with pytest.raises(ParameterError, match="give the rows .* or their histograms"):
        to_svg(tree, X=X, y=y, histograms=node_histograms(tree, X, y))
    with pytest.raises(ParameterError, match="y goes with X"):
        to_html(tree, y=y)
    other = pt.cart(X[:100], y[:100], max_depth=3)
    with pytest.raises(ParameterError, match="made for another tree: 9 nodes, this tree has 3"):
        to_svg(other, histograms=node_histograms(tree, X, y))
    moved = pt.cart(X + 0.01, y, max_depth=3)  # the same shape, other thresholds
    with pytest.raises(ParameterError, match="made for another tree: its splits or leaves differ"):
        to_svg(moved, histograms=node_histograms(tree, X, y))
    with pytest.raises(ParameterError, match="must come from puretree.node_histograms"):
        to_svg(tree, histograms={"counts": []})
    before = X.copy(), y.copy()
    to_svg(tree, X=X, y=y)
    assert np.array_equal(X, before[0]) and np.array_equal(y, before[1])  # nothing mutated


# -- the SVG --------------------------------------------------------------------------------------


def _charts(svg):
    return ET.fromstring(svg).findall(f".//{SVG}g[@class='chart']")


def test_each_split_marks_its_threshold_where_it_is(iris):
    tree, X, y = iris
    svg = to_svg(tree, X=X, y=y)
    h = node_histograms(tree, X, y)
    splits = [i for i in range(h.n_nodes) if h.feature[i] >= 0]
    charts = _charts(svg)
    assert len(charts) == h.n_nodes  # a chart in every box
    nodes = list(pt.iter_nodes(tree))
    for i in splits:
        line = charts[i].find(f"{SVG}line[@class='threshold']")
        edges = h.edges[h.feature[i]]
        want = (nodes[i].test.value - edges[0]) / (edges[-1] - edges[0]) * CHART_W
        assert abs(float(line.get("x1")) - want) < 0.01
        assert charts[i].find(f"{SVG}polygon[@class='wedge']") is not None
        # The bars are the class colours, one colour per class present at the node.
        fills = {r.get("fill") for r in charts[i].findall(f"{SVG}rect")}
        present = {class_colours(3)[k] for k in range(3) if h.counts[i][k] > 0}
        assert fills == present


def test_a_rows_value_is_marked_on_each_split_of_its_path(iris):
    tree, X, y = iris
    h = node_histograms(tree, X, y)
    row = X[100]
    path = pt.decision_path(tree, dict(zip(tree.schema.feature_names, row)))
    charts = _charts(to_svg(tree, histograms=h, row=row))
    nodes = list(pt.iter_nodes(tree))
    marked = [i for i, g in enumerate(charts) if g.find(f"{SVG}polygon[@class='rowvalue']") is not None]
    assert marked == [i for i in path if h.feature[i] >= 0]
    for i in marked:
        edges = h.edges[nodes[i].feature]
        tip = charts[i].find(f"{SVG}polygon[@class='rowvalue']").get("points").split()[2]
        want = (row[nodes[i].feature] - edges[0]) / (edges[-1] - edges[0]) * CHART_W
        assert abs(float(tip.split(",")[0]) - want) < 0.01
    assert "rowvalue" not in to_svg(tree, histograms=h)  # no row, no mark


def test_each_leaf_shows_its_size_and_purity(iris):
    tree, X, y = iris
    root = ET.fromstring(to_svg(tree, X=X, y=y))
    texts = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "leafsize"]
    h = node_histograms(tree, X, y)
    leaves = [i for i in range(h.n_nodes) if h.feature[i] < 0]
    assert texts[0::2] == [f"n={int(h.counts[i].sum())}" for i in leaves]
    assert texts[1::2][:2] == ["100% setosa", "98% versicolor"]
    pies = [g for g in _charts(ET.tostring(root, encoding="unicode")) if g.find(f"{SVG}*[@class='pie']") is not None]
    assert len(pies) == len(leaves)
    # A leaf of two classes is two wedges; a pure one a full circle; the biggest fills its box.
    assert len(pies[1].findall(f"{SVG}path[@class='pie']")) == 2
    assert pies[0].find(f"{SVG}circle[@class='pie']") is not None


def test_a_regression_split_shows_its_points_and_branch_means(diabetes):
    tree, X, y = diabetes
    h = node_histograms(tree, X, y)
    charts = _charts(to_svg(tree, histograms=h))
    root = charts[0]
    assert len(root.findall(f"{SVG}circle")) == min(MAX_POINTS, len(y))
    means = root.findall(f"{SVG}line[@class='mean']")
    assert len(means) == 2 and root.find(f"{SVG}line[@class='threshold']") is not None
    # The left branch's mean line is lower on the page the higher the mean is not: check the order.
    left, right = (h.counts[c][1] / h.counts[c][0] for c in (1, 1 + int(h.span[1])))
    assert (float(means[0].get("y1")) > float(means[1].get("y1"))) == (left < right)


def test_a_categorical_split_draws_a_bar_per_category_in_branch_order():
    tennis = pt.datasets.load_playtennis()
    tree = pt.id3(tennis)
    root = _charts(to_svg(tree, X=tennis))[0]
    labels = [t.text for t in root.findall(f"{SVG}text")]
    assert labels == ["overcast", "rain", "sunny"]  # the outlook's categories, in branch order
    assert len(root.findall(f"{SVG}line[@class='threshold']")) == 2  # between three branches
    assert len(root.findall(f"{SVG}rect")) == 5  # overcast: all yes; rain and sunny: both classes


def test_hostile_category_names_stay_text():
    schema = Schema((Feature("c", "categorical", ("</text><script>x</script>", "&amp;")),), ("a", "b"))
    tree = pt.Tree(Split(0, Multiway(2), (Leaf((2, 0)), Leaf((0, 1))), (2, 1)), schema)
    svg = to_svg(tree, X=[{"c": "</text><script>x</script>"}] * 2 + [{"c": "&amp;"}], y=["a", "a", "b"])
    root = ET.fromstring(svg)  # well-formed
    assert "<script" not in svg and not root.findall(f".//{SVG}script")
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert any(t and t.startswith("</") for t in texts) and "&amp;" in texts


def test_max_depth_draws_a_cut_split_as_its_rows(iris):
    tree, X, y = iris
    svg = to_svg(tree, X=X, y=y, max_depth=0)
    root = ET.fromstring(svg)
    assert len(root.findall(f".//{SVG}line[@class='threshold']")) == 1  # the root's only
    sizes = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "leafsize"]
    assert sizes == ["n=50", "100% setosa", "n=100", "50% versicolor"]


def test_a_tree_five_thousand_levels_deep():
    # Every walk is iterative: no recursion limit, and time linear in the nodes.
    levels = 5_000
    tree = chain_tree(levels)
    X = np.arange(levels + 1, dtype=float).reshape(-1, 1) + 0.5
    y = ["odd" if i % 2 else "even" for i in range(levels + 1)]
    h = node_histograms(tree, X, y)
    assert h.counts[0].sum() == levels + 1 and h.counts[-1].sum() == 1
    svg = to_svg(tree, histograms=h, max_depth=3)
    assert svg.count('class="threshold"') == 4
    assert to_html(tree, histograms=h).count('"n=1, 100% ') > 0


def test_views_are_deterministic(iris):
    tree, X, y = iris
    h = node_histograms(tree, X, y)
    assert to_svg(tree, X=X, y=y) == to_svg(tree, histograms=h) == to_svg(tree, histograms=node_histograms(tree, X, y))
    assert to_html(tree, X=X, y=y) == to_html(tree, histograms=h)
    assert not re.search(r"20\d\d-\d\d-\d\d|id=\"[^\"]*\d{6,}", to_svg(tree, histograms=h))


def test_show_draws_the_data_of_a_file(tmp_path, capsys):
    tennis = pt.datasets.load_playtennis()
    model = tmp_path / "m.json"
    pt.save(pt.id3(tennis), model)
    data = Path(pt.datasets.__file__).parent / "playtennis.csv"
    assert main(["show", str(model), "--format", "svg", "--data", str(data)]) == 0
    svg = capsys.readouterr().out
    assert svg.count('class="threshold"') == 4 and svg.count('class="leafsize"') == 10
    assert main(["show", str(model), "--format", "html", "--data", str(data), "-o", str(tmp_path / "t.html")]) == 0
    assert '"charts": [[' in (tmp_path / "t.html").read_text()
    capsys.readouterr()
    assert main(["show", str(model), "--data", str(data)]) != 0
    err = capsys.readouterr().err
    assert err == "puretree: error: --data goes with --format svg, html or dot, not text\n"
    bad = tmp_path / "bad.csv"
    bad.write_text("outlook,temperature,humidity,wind,play\nsunny,hot,high,weak,perhaps\n")
    assert main(["show", str(model), "--format", "svg", "--data", str(bad)]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "perhaps" in err and "Traceback" not in err


# -- in Chromium: DOM and a screenshot per view ------------------------------------------------------


def _shoot(name: str, page: str, tmp_path: Path, size=(1200, 800)) -> np.ndarray:
    """A screenshot of ``page``, kept as ARTEFACTS/name.png, as an array."""
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    path = tmp_path / f"{name}.html"
    path.write_text(page, encoding="utf-8")
    shot = ARTEFACTS / f"{name}.png"
    shot.unlink(missing_ok=True)
    _chromium_run(tmp_path, path.as_uri(), f"--screenshot={shot}", f"--window-size={size[0]},{size[1]}")
    return read_png(shot.read_bytes())


def _share(pixels: np.ndarray, colour: str, tolerance: int = 3) -> float:
    rgb = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
    return float(np.all(np.abs(pixels[..., :3].astype(int) - rgb) <= tolerance, axis=-1).mean())


PAGE = "<!DOCTYPE html><html><body style='margin:0'>{}</body></html>"


def test_svg_distributions_in_chromium(iris, tmp_path):
    tree, X, y = iris
    pixels = _shoot("svg-classification", PAGE.format(to_svg(tree, X=X, y=y, width=1100)), tmp_path)
    for colour in class_colours(3):  # the bars and pies in every class's full colour
        assert _share(pixels, colour) > 0.003, colour
    black = np.all(pixels[..., :3] <= 40, axis=-1)
    assert black.sum() > 100  # the wedges and threshold lines (and text)


def test_svg_regression_in_chromium(diabetes, tmp_path):
    tree, X, y = diabetes
    pixels = _shoot("svg-regression", PAGE.format(to_svg(tree, X=X, y=y, width=1100)), tmp_path)
    assert _share(pixels, "#d62728", 12) > 0.0002  # the branch means
    blue = np.all(np.abs(pixels[..., :3].astype(int) - [0x4E, 0x79, 0xA7]) <= 90, axis=-1) & (pixels[..., 2] > pixels[..., 0] + 30)
    assert blue.sum() > 500  # the points


def test_svg_categorical_in_chromium(tmp_path):
    tennis = pt.datasets.load_playtennis()
    pixels = _shoot("svg-categorical", PAGE.format(to_svg(pt.id3(tennis), X=tennis, width=1100)), tmp_path)
    assert _share(pixels, class_colours(2)[0]) > 0.003 and _share(pixels, class_colours(2)[1]) > 0.003


def test_svg_row_path_with_distributions_in_chromium(iris, tmp_path):
    tree, X, y = iris
    pixels = _shoot("svg-row-path", PAGE.format(to_svg(tree, X=X, y=y, row=X[100], width=1100)), tmp_path)
    assert _share(pixels, "#d62728", 12) > 0.001  # the path in red


def test_html_distributions_in_chromium(iris, tmp_path):
    tree, X, y = iris
    page = to_html(tree, X=X, y=y, row=X[100])
    dom = dump_dom(tmp_path, page)
    # The script drew a chart per row: a split's with its threshold, a leaf's pie and size.
    assert dom.count('<svg class="chart"') == pt.n_nodes(tree)
    assert dom.count('class="threshold"') == pt.n_nodes(tree) - pt.n_leaves(tree)
    assert dom.count('class="rowvalue"') == 3  # the row's value at each split of its path
    sizes = re.findall(r'<span class="size">([^<]*)</span>', dom)
    assert sizes[:2] == ["n=50, 100% setosa", "n=48, 98% versicolor"]
    pixels = _shoot("html-distributions", page, tmp_path, size=(1000, 700))
    for colour in class_colours(3):
        assert _share(pixels, colour) > 0.002, colour


# -- docs/img ------------------------------------------------------------------------------------------


def test_the_docs_pictures_are_what_the_script_makes_now():
    spec = importlib.util.spec_from_file_location("make_pictures", ROOT / "docs" / "make_pictures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made = module.pictures()
    committed = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "docs" / "img").glob("*.svg")}
    assert sorted(committed) == sorted(made), "run make pictures"
    stale = [name for name in made if made[name] != committed[name]]
    assert stale == [], f"docs/img is stale ({stale}): run make pictures"
    page = (ROOT / "docs" / "views.md").read_text(encoding="utf-8")
    assert all(f"(img/{name})" in page for name in made)  # each shown on the page
