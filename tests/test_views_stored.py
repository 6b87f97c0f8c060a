"""The data at each node from histograms stored at fit (issue 27), weighted as the fit was, and
drawn in Graphviz too: ``with_histograms`` / ``store_histograms=True`` / ``fit --histograms``
keep what the training rows say at each node in the tree; every picture (SVG, HTML, DOT, the
notebook's) draws it with no data given, exactly as it draws the rows themselves; the model
file keeps it (version 6) and refuses a malformed one naming the field; a rewritten tree drops
it. ``to_dot`` draws the charts as Graphviz HTML-like tables, checked through ``dot`` and in
headless Chromium (a screenshot in tests/artefacts/)."""

from __future__ import annotations

import json
import re
import subprocess
import xml.etree.ElementTree as ET

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_diabetes, load_iris
from test_views import _dot_program
from test_views_distributions import PAGE, _share, _shoot

import puretree as pt
from puretree.cli import main
from puretree.distributions import histograms_from_dict, histograms_to_dict, node_histograms, with_histograms
from puretree.errors import ModelFormatError, ParameterError
from puretree.nodes import Feature, Leaf, Multiway, Schema, Split
from puretree.sklearn import TreeClassifier, TreeRegressor
from puretree.views import class_colours, to_dot, to_html, to_svg

SVG = "{http://www.w3.org/2000/svg}"


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


def _equal(a, b) -> bool:
    """Two NodeHistograms hold the same numbers."""
    arrays = lambda h: [h.feature, h.span, h.counts, h.missing, *[x for x in h.hist if x is not None], *[x for x in h.points if x is not None], *[x for x in h.edges if x is not None]]
    return (
        a.root == b.root
        and [x is None for x in a.hist] == [x is None for x in b.hist]
        and [x is None for x in a.points] == [x is None for x in b.points]
        and a.target_range == b.target_range
        and a.largest_leaf == b.largest_leaf
        and all(np.array_equal(x, y) for x, y in zip(arrays(a), arrays(b)))
    )


# -- stored: the same pictures as from the rows ------------------------------------------------------


@pytest.mark.parametrize("view", [to_svg, to_html, to_dot])
def test_stored_histograms_draw_what_the_rows_draw(iris, diabetes, view):
    for tree, X, y in (iris, diabetes):
        stored = with_histograms(tree, X, y)
        assert stored == tree and stored.histograms is not None and tree.histograms is None
        assert view(stored) == view(tree, X=X, y=y)
        assert view(stored, histograms=False) == view(tree)
        assert view(stored) != view(tree)


def test_a_notebook_draws_the_stored_histograms(iris):
    tree, X, y = iris
    stored = with_histograms(tree, X, y)
    assert 'class="threshold"' in stored._repr_svg_() and 'class="threshold"' in stored._repr_html_()
    assert 'class="threshold"' not in tree._repr_svg_()


def test_data_given_overrides_the_stored_and_both_ways_are_refused_together(iris):
    tree, X, y = iris
    stored = with_histograms(tree, X[:10], y[:10])
    assert to_svg(stored, X=X, y=y) == to_svg(tree, X=X, y=y) != to_svg(stored)
    with pytest.raises(ParameterError, match="not both"):
        to_svg(stored, X=X, y=y, histograms=node_histograms(tree, X, y))
    with pytest.raises(ParameterError, match="sample_weight goes with X"):
        to_svg(stored, sample_weight=np.ones(len(X)))


def test_a_tree_with_another_root_holds_none(iris):
    tree, X, y = iris
    stored = with_histograms(tree, X, y)
    assert pt.cost_complexity(stored, 0.5).histograms is None
    assert attrs.evolve(stored, root=pt.cart(X[:, :2], y, max_depth=1).root).histograms is None
    renamed = attrs.evolve(stored, missing="majority")  # the same nodes: still theirs
    assert renamed.histograms is stored.histograms
    assert hash(stored) == hash(tree) and repr(stored) == repr(tree)


# -- weights: the charts count what the fit counted ------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(2, 50), depth=st.integers(0, 3))
def test_weighted_counts_are_the_trees_own_and_integer_weights_repeat_rows(seed, n, depth):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, 2)).astype(float)
    y = rng.choice(["a", "b", "c"], size=n)
    w = rng.integers(0, 4, size=n).astype(float)
    if w.sum() == 0:
        w[0] = 1.0
    tree = pt.cart(pt.from_numpy(X, y, sample_weight=w), max_depth=depth)
    h = node_histograms(tree, X, y, sample_weight=w, bins=5)
    # Every node's counts are the weights the fit gave it (its stats), class by class.
    for i, node in enumerate(pt.iter_nodes(tree)):
        assert np.allclose(h.counts[i], node.stats), (i, h.counts[i], node.stats)
    # A weight of 3 is the row three times over (weight 0: not there).
    repeated = np.repeat(np.arange(n), w.astype(int))
    again = node_histograms(tree, X[repeated], y[repeated], bins=5) if len(repeated) else None
    for i in range(h.n_nodes):
        if h.hist[i] is not None:
            assert np.allclose(h.hist[i], again.hist[i])
    # A Dataset's own weights serve by default.
    assert _equal(node_histograms(tree, pt.from_numpy(X, y, sample_weight=w), bins=5), h)


def test_estimators_store_the_fits_weighted_histograms():
    X, y = load_iris(return_X_y=True)
    species = np.array(["setosa", "versicolor", "virginica"])[y]
    w = np.linspace(0.5, 2.0, len(y))
    clf = TreeClassifier(max_depth=3, class_weight={"virginica": 2.0}, store_histograms=True).fit(X, species, sample_weight=w)
    for i, node in enumerate(pt.iter_nodes(clf.tree_)):
        assert np.allclose(clf.tree_.histograms.counts[i], node.stats)
    assert TreeClassifier(max_depth=3).fit(X, species).tree_.histograms is None
    pruned = TreeClassifier(max_depth=4, ccp_alpha=0.02, store_histograms=True).fit(X, species)
    assert pruned.tree_.histograms is not None  # stored after the pruning: the final tree's
    reg = TreeRegressor(max_depth=2, store_histograms=True).fit(X[:, :3], X[:, 3], sample_weight=w)
    for i, node in enumerate(pt.iter_nodes(reg.tree_)):
        assert np.allclose(reg.tree_.histograms.counts[i], node.stats)
    with pytest.raises(ParameterError, match="store_histograms must be True or False, got 'yes'"):
        TreeClassifier(store_histograms="yes").fit(X, species)


# -- the model file ----------------------------------------------------------------------------------


def _categorical_tree():
    tennis = pt.datasets.load_playtennis()
    return pt.id3(tennis), tennis


def test_the_model_file_keeps_them(iris, diabetes, tmp_path):
    tennis_tree, tennis = _categorical_tree()
    for tree, X, y in (iris, diabetes, (tennis_tree, tennis, None)):
        stored = with_histograms(tree, X, y)
        pt.save(stored, tmp_path / "m.json")
        back = pt.load(tmp_path / "m.json")
        assert back == stored and _equal(back.histograms, stored.histograms)
        assert to_svg(back) == to_svg(stored) and to_dot(back) == to_dot(stored)
        assert json.loads(pt.to_json(stored))["version"] == 6
        assert json.loads(pt.to_json(tree))["version"] < 6 and "histograms" not in pt.to_json(tree)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 40), regression=st.booleans())
def test_any_stored_histograms_round_trip(seed, n, regression):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    X[rng.random(size=(n, 2)) < 0.1] = np.nan
    y = rng.normal(size=n) if regression else rng.choice(["x", "y"], size=n)
    tree = (pt.cart_regressor if regression else pt.cart)(X, y, max_depth=3, missing="distribute")
    stored = with_histograms(tree, X, y, sample_weight=rng.random(n) + 0.1, bins=7)
    back = histograms_from_dict(json.loads(json.dumps(histograms_to_dict(stored.histograms))), tree)
    assert _equal(back, stored.histograms)


def _broken(tree, change):
    d = pt.io.to_dict(tree)
    change(d)
    return d


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(version=5), "histograms is a field of version 6 models, this one says version 5"),
        (lambda d: d["histograms"].update(version=2), r"model.histograms.version: unsupported version 2"),
        (lambda d: d["histograms"]["nodes"].pop(), r"model.histograms.nodes: expected a list of 9 entries \(one per node of the tree\), got 8 entries"),
        (lambda d: d["histograms"]["nodes"][0]["hist"][3].__setitem__(1, -1.0), r"model.histograms.nodes\[0\].hist: \[3\]\[1\] expected a finite number >= 0, got -1.0"),
        (lambda d: d["histograms"]["nodes"][0]["hist"].pop(), r"model.histograms.nodes\[0\].hist: expected a list of 20 entries, got 19 entries"),
        (lambda d: d["histograms"]["nodes"][1].update(hist=[[1.0, 2.0, 3.0]]), r"model.histograms.nodes\[1\].hist: a histogram belongs to a split"),
        (lambda d: d["histograms"]["nodes"][2]["counts"].__setitem__(0, True), r"model.histograms.nodes\[2\].counts: \[0\] expected a finite number >= 0, got True"),
        (lambda d: d["histograms"]["nodes"][2].update(colour="red"), r"model.histograms.nodes\[2\]: unknown field 'colour'"),
        (lambda d: d["histograms"]["edges"][0].reverse(), r"model.histograms.edges\[0\]: expected at least two increasing numbers"),
        (lambda d: d["histograms"].update(target_range=[1, 1]), r"model.histograms.target_range: expected \[low, high\] with low < high"),
        (lambda d: d["histograms"]["nodes"][1].update(points=[[0, 1]]), r"model.histograms.nodes\[1\].points: points belong to a regression tree"),
    ],
)
def test_malformed_histograms_are_refused_naming_the_field(iris, change, message):
    tree, X, y = iris
    d = _broken(with_histograms(tree, X, y), change)
    with pytest.raises(ModelFormatError, match=message):
        pt.io.from_dict(d)
    with pytest.raises(ModelFormatError, match=message):
        pt.from_json(json.dumps(d))


def test_a_large_number_in_the_histograms_is_named(iris):
    tree, X, y = iris
    text = pt.to_json(with_histograms(tree, X, y))
    bad = text.replace('"target_range": [0.0, 1.0]', '"target_range": [0.0, NaN]')
    assert bad != text
    with pytest.raises(ModelFormatError, match=r"model.histograms.target_range: \[1\] expected a finite number"):
        pt.from_json(bad)


# -- the command line --------------------------------------------------------------------------------


def test_fit_histograms_then_show_draws_them(tmp_path, capsys):
    data = tmp_path / "tennis.csv"
    tennis = pt.datasets.load_playtennis()
    names = tennis.schema.feature_names
    lines = [",".join([*names, "play"])]
    for row, label in zip(tennis.X, tennis.labels()):
        lines.append(",".join([*(f.categories[int(v)] for f, v in zip(tennis.schema.features, row)), str(label)]))
    data.write_text("\n".join(lines) + "\n")
    model, plain = tmp_path / "m.json", tmp_path / "plain.json"
    assert main(["fit", str(data), "--target", "play", "--algorithm", "id3", "--histograms", "-o", str(model)]) == 0
    assert main(["fit", str(data), "--target", "play", "--algorithm", "id3", "-o", str(plain)]) == 0
    capsys.readouterr()
    for fmt in ("svg", "dot", "html"):
        assert main(["show", str(model), "--format", fmt]) == 0
        stored = capsys.readouterr().out
        assert main(["show", str(plain), "--format", fmt, "--data", str(data)]) == 0
        assert capsys.readouterr().out == stored
    assert "histograms" not in plain.read_text()
    assert main(["fit", str(data), "--target", "play", "--ensemble", "forest", "--histograms", "-o", str(tmp_path / "f.json")]) != 0
    err = capsys.readouterr().err
    assert err == "puretree: error: --histograms keeps one tree's training histograms; it does not go with --ensemble\n"


# -- DOT: Graphviz's tables ----------------------------------------------------------------------------


def _graphviz(dot: str) -> str:
    done = subprocess.run([_dot_program(), "-Tsvg"], input=dot, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout


def _dot_bars(dot: str, node: int) -> list[dict[str, int]]:
    """Node ``node``'s bars in a DOT label: per bar, each colour's cell height."""
    line = next(l for l in dot.splitlines() if l.startswith(f"n{node} [label=<"))
    bars = re.findall(r'<TD VALIGN="BOTTOM" CELLPADDING="0"><TABLE[^>]*>(.*?)</TABLE></TD>', line)
    return [{c: int(h) for c, h in re.findall(r'<TD BGCOLOR="(#[0-9a-f]{6})" WIDTH="\d+" HEIGHT="(\d+)"', bar)} for bar in bars]


def test_dot_bars_are_the_histogram_scaled(iris):
    tree, X, y = iris
    h = node_histograms(tree, X, y)
    dot = to_dot(tree, histograms=h)
    colours = class_colours(3)
    for i in range(h.n_nodes):
        if h.hist[i] is None:
            continue
        bars = _dot_bars(dot, i)
        assert len(bars) == 20
        top = h.hist[i].sum(axis=1).max()
        for b, bar in enumerate(bars):
            for k, colour in enumerate(colours):
                want = h.hist[i][b, k] / top * 30
                got = bar.get(colour, 0)
                assert abs(got - want) <= 1.0 or (want > 0 and got == 1), (i, b, k, got, want)
    # One threshold line per split, as the other views mark it.
    assert dot.count('BGCOLOR="#222222"') == pt.n_nodes(tree) - pt.n_leaves(tree)


def test_dot_charts_render_in_graphviz_for_every_kind_of_tree(iris, diabetes, tmp_path):
    tennis_tree, tennis = _categorical_tree()
    for name, (tree, X, y) in {"iris": iris, "diabetes": diabetes, "tennis": (tennis_tree, tennis, None)}.items():
        svg = _graphviz(to_dot(tree, X=X, y=y, max_depth=1))
        root = ET.fromstring(svg)
        fills = {p.get("fill") for p in root.iter(f"{SVG}polygon")}
        if name != "diabetes":
            assert set(class_colours(len(tree.schema.classes))) <= fills, name
        assert "#222222" in fills, name  # the thresholds
        texts = [t.text for t in root.iter(f"{SVG}text")]
        assert any(t and t.startswith("n=") for t in texts), name


def test_dot_charts_escape_hostile_names():
    schema = Schema((Feature('<b>"&amp;', "categorical", ("</TD>", "a&b")),), ("<x>", "&y"))
    tree = pt.Tree(Split(0, Multiway(2), (Leaf((2, 0)), Leaf((0, 1))), (2, 1)), schema)
    X = np.array([["</TD>"], ["</TD>"], ["a&b"]], dtype=object)
    svg = _graphviz(to_dot(tree, X=X, y=["<x>", "<x>", "&y"]))
    texts = " ".join(t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text"))
    assert '<b>"&amp;' in texts and "</TD>" in texts and "n=2, 100% <x>" in texts


def test_dot_charts_in_chromium(iris, tmp_path):
    tree, X, y = iris
    svg = _graphviz(to_dot(with_histograms(tree, X, y)))
    svg = svg[svg.index("<svg"):]
    pixels = _shoot("dot-distributions", PAGE.format(svg), tmp_path, size=(1000, 700))
    for colour in class_colours(3):  # the bars of each class in its full colour
        assert _share(pixels, colour) > 0.002, colour
    assert _share(pixels, "#222222", 12) > 0.0003  # the threshold lines
