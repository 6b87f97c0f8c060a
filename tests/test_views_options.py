"""The views' display options, the same in every view (text, DOT, SVG, HTML, ``show``):
thresholds rounded to ``decimals`` places as scikit-learn rounds them, ``max_depth``,
``feature_names`` and ``class_names``; SVG fit to a width; one row's path highlighted with the
tests it passed; trees and ensembles drawn in notebooks. The HTML is checked in headless
Chromium, as tests/test_views.py does."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import matplotlib
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.tree import DecisionTreeClassifier, plot_tree
from test_views import dump_dom, screenshot

import puretree as pt
from puretree.errors import ParameterError
from puretree.fold import n_nodes
from puretree.text import to_text
from puretree.views import NOTEBOOK_WIDTH, to_dot, to_html, to_svg

matplotlib.use("Agg")  # no screen: plot_tree draws into memory

SVG = "{http://www.w3.org/2000/svg}"
VIEWS = {"text": to_text, "dot": to_dot, "svg": to_svg, "html": to_html}


@pytest.fixture(scope="module")
def cancer():
    data = load_breast_cancer()
    return pt.cart(data.data, data.target), list(data.feature_names)


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return pt.cart(X, np.array(["setosa", "versicolor", "virginica"])[y], max_depth=3), X


def _thresholds(text):
    return re.findall(r"(?:<=|&lt;=|\\u003c=) (-?[0-9.e+-]+)", text)


@pytest.mark.parametrize("view", VIEWS)
def test_thresholds_are_rounded_to_three_places_by_default(cancer, view):
    tree, names = cancer
    out = VIEWS[view](tree, feature_names=names)
    assert "0.13579999999999998" not in out and "38.605000000000004" not in out
    assert "worst concave points &lt;= 0.136" in out if view in ("svg",) else "worst concave points <= 0.136" in out or "\\u003c= 0.136" in out
    shown = _thresholds(out)
    assert shown and all(len(t.split(".")[1]) <= 3 for t in shown if "." in t and "e" not in t)
    exact = VIEWS[view](tree, feature_names=names, decimals=None)
    assert "0.13579999999999998" in exact or "0.1358" in exact


@pytest.mark.parametrize("decimals", [0, 1, 2, 3, 5])
def test_rounding_is_scikit_learns(decimals):
    # plot_tree(precision=d) prints round(t, d): the same numbers as ours, on the same tree.
    X, y = load_iris(return_X_y=True)
    X = X.astype(np.float32)
    sk = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    tree = pt.from_sklearn(sk, feature_names=["a", "b", "c", "d"])
    theirs = sorted(float(m) for t in plot_tree(sk, precision=decimals, feature_names=["a", "b", "c", "d"]) for m in re.findall(r"<= (-?[0-9.]+)", t.get_text()))
    ours = sorted(float(m) for m in re.findall(r"<= (-?[0-9.]+)", to_text(tree, decimals=decimals)))
    assert ours == theirs


def test_an_exact_half_and_a_negative_zero_round_as_python_does():
    tree = pt.Tree(pt.nodes.Split(0, pt.nodes.Threshold(-0.0004), (pt.nodes.Leaf((1, 0)), pt.nodes.Leaf((0, 1))), (1, 1)), pt.nodes.Schema((pt.nodes.Feature("x"),), ("a", "b")))
    assert to_text(tree).splitlines()[0] == "x <= 0: a (1)"  # never "-0"
    assert to_text(tree, decimals=None).splitlines()[0] == "x <= -0.0004: a (1)"


@pytest.mark.parametrize("view", VIEWS)
def test_max_depth_leaves_deeper_splits_out(cancer, view):
    tree, _ = cancer
    full, cut = VIEWS[view](tree), VIEWS[view](tree, max_depth=1)
    assert "(...)" in cut and "(...)" not in full and len(cut) < len(full)
    if view == "text":
        lines = cut.splitlines()
        assert len(lines) == 6 and [line.endswith(" (...)") for line in lines] == [False, True, True, False, True, True]
    if view == "svg":
        boxes = ET.fromstring(cut).findall(f".//{SVG}rect[@class='node']")
        assert len(boxes) == 7  # depth 0, 1 and the four depth-2 nodes
    if view == "dot":
        assert len(re.findall(r"^n\d+ \[", cut, re.M)) == 7


@pytest.mark.parametrize("view", VIEWS)
def test_names_replace_the_schemas_and_the_tree_is_untouched(iris, view):
    tree, _ = iris
    before = pt.to_json(tree)
    out = VIEWS[view](tree, feature_names=["sepal length", "sepal width", "petal length", "petal width"], class_names=["S", "Ve", "Vi"])
    assert "petal length" in out and "x2" not in out and "setosa" not in out
    assert pt.to_json(tree) == before
    with pytest.raises(ParameterError, match="feature_names has 2 names for the tree's 4 features"):
        VIEWS[view](tree, feature_names=["a", "b"])
    with pytest.raises(ParameterError, match=r"class_names has 1 names for the tree's 3 classes \['setosa'"):
        VIEWS[view](tree, class_names=["a"])
    with pytest.raises(ParameterError, match="decimals must be an integer >= 0"):
        VIEWS[view](tree, decimals=-1)
    with pytest.raises(ParameterError, match="max_depth must be an integer >= 0"):
        VIEWS[view](tree, max_depth="2")


def test_svg_fits_a_given_width(cancer):
    tree, names = cancer
    natural = ET.fromstring(to_svg(tree, feature_names=names))
    fitted = ET.fromstring(to_svg(tree, feature_names=names, width=800))
    assert int(natural.get("width")) > 3000
    assert fitted.get("width") == "800" and fitted.get("viewBox") == natural.get("viewBox")
    w, h = (float(v) for v in natural.get("viewBox").split()[2:])
    assert abs(int(fitted.get("height")) - h * 800 / w) <= 1
    with pytest.raises(ParameterError, match="width must be a whole number"):
        to_svg(tree, width=0)


def test_svg_highlights_a_rows_path_and_lists_its_tests(iris):
    tree, X = iris
    row = X[100]
    path = pt.decision_path(tree, dict(zip(tree.schema.feature_names, row)))
    svg = to_svg(tree, row=row)
    root = ET.fromstring(svg)
    on = root.findall(f".//{SVG}rect[@class='node onpath']")
    assert len(on) == len(path)
    assert len(root.findall(f".//{SVG}path[@class='edge onpath']")) == len(path) - 1
    passed = [t.text for t in root.findall(f".//{SVG}text[@class='passed']")]
    assert passed[0] == "the row's path:" and len(passed) == len(path)
    assert passed[1] == f"1. x2 > 2.45  (x2 = {float(row[2])})"
    with pytest.raises(ParameterError, match="row has 2 values; the tree's features are 4"):
        to_svg(tree, row=[1.0, 2.0])


def test_html_highlights_a_rows_path_in_chromium(iris, tmp_path):
    tree, X = iris
    row = dict(zip(tree.schema.feature_names, X[60]))
    path = pt.decision_path(tree, row)
    page = to_html(tree, row=row, open_depth=0, feature_names=["sl", "sw", "pl", "pw"])
    dom = dump_dom(tmp_path, page)
    marked = re.findall(r'class="row (?:split|leaf) onpath" data-node="(\d+)"', dom)
    assert len(marked) == len(path)
    items = re.findall(r"<li[^>]*>([^<]*)</li>", dom)
    assert items[0] == "the row's path:" and len(items) == len(path)
    assert items[1].startswith("pl &gt; 2.45  (pl = ")
    # The page opens along the path though open_depth is 0: the path's leaf is on screen.
    assert dom.count('class="row') >= len(path)
    pixels = screenshot(tmp_path, page)
    yellow = np.all(np.abs(pixels[..., :3].astype(int) - [0xFF, 0xF3, 0xCD]) <= 2, axis=-1)
    assert yellow.sum() > 500  # the highlighted rows are drawn


def test_show_takes_the_options(cancer, tmp_path, capsys):
    from puretree.cli import main

    tree, names = cancer
    model = tmp_path / "m.json"
    pt.save(tree, model)
    assert main(["show", str(model)]) == 0
    default = capsys.readouterr().out
    assert "<= 0.136" in default and "0.13579999999999998" not in default
    assert main(["show", str(model), "--decimals", "1", "--max-depth", "0"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith("<= 16.8 (...)") and "(...)" in out
    assert main(["show", str(model), "--format", "svg", "--width", "600", "--max-depth", "1"]) == 0
    assert 'width="600"' in capsys.readouterr().out
    assert main(["show", str(model), "--feature-names", ",".join(f"f{i}" for i in range(30)), "--class-names", "malignant,benign"]) == 0
    out = capsys.readouterr().out
    assert "f27 <= 0.136" in out and "benign" in out
    assert main(["show", str(model), "--class-names", "a"]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "class_names has 1 names" in err


def test_trees_and_ensembles_draw_small_in_notebooks(cancer):
    tree, _ = cancer
    svg = ET.fromstring(tree._repr_svg_())
    assert int(svg.get("width")) <= NOTEBOOK_WIDTH
    assert len(svg.findall(f".//{SVG}rect[@class='node']")) < n_nodes(tree)  # the first levels only
    html = tree._repr_html_()
    assert html.startswith('<div class="puretree">') and "22 leaves, depth 7" in html and "<script" not in html
    small = pt.cart(np.arange(4.0).reshape(-1, 1), [0, 0, 1, 1])
    assert ET.fromstring(small._repr_svg_()).findall(f".//{SVG}rect[@class='node']").__len__() == 3
    X, y = load_iris(return_X_y=True)
    forest = pt.ensemble.random_forest(X, y, n_trees=3, seed=1)
    html = forest._repr_html_()
    assert html.startswith('<div class="puretree"><pre') and "random forest of 3 trees" in html and "<svg" in html
    assert int(ET.fromstring(forest._repr_svg_()).get("width")) <= NOTEBOOK_WIDTH


def test_the_svg_path_is_drawn_red_in_chromium(iris, tmp_path):
    tree, X = iris
    page = "<!DOCTYPE html><html><body style='margin:0'>{}</body></html>"
    plain = screenshot(tmp_path, page.format(to_svg(tree, width=880)))
    marked = screenshot(tmp_path, page.format(to_svg(tree, width=880, row=X[100])))

    def red(pixels):
        return int(np.all(np.abs(pixels[..., :3].astype(int) - [0xD6, 0x27, 0x28]) <= 12, axis=-1).sum())

    assert red(plain) == 0 and red(marked) > 300
