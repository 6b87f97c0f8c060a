"""Pictures of a tree (puretree.views, ``puretree show --format dot|svg|html``).

DOT is checked by Graphviz itself (``dot -Tsvg``), SVG by an XML parser, and the HTML page by
headless Chromium: the page is loaded, its script runs, and the DOM it built is read back
(``--dump-dom``) and a screenshot's pixels are counted. Graphviz and Chromium are Debian
packages that ``make test`` installs (.ci/system-deps); without them these tests fail,
naming the package, rather than skip.
"""

from __future__ import annotations

import html.parser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import warnings
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import puretree
from puretree import datasets
from puretree.cli import main
from puretree.fold import iter_nodes, n_nodes
from puretree.io import load, save
from puretree.nodes import Feature, Leaf, Multiway, Schema, Split, Subset, Threshold
from puretree.tree import Tree
from puretree.strategies import schemas, trees
from puretree.views import DOT_SLOW_NODES, OPEN_DEPTH, SlowLayoutWarning, class_colours, to_dot, to_html, to_svg

SVG = "{http://www.w3.org/2000/svg}"

# Names a user's file may hold, each aimed at one of the output languages.
HOSTILE = (
    '"; label="pwned',  # DOT: close the string
    "a\\Nb\\lc\\",  # DOT: Graphviz's label escapes, and a trailing backslash
    "</script><script>document.body.dataset.pwned=1</script>",  # HTML: leave the data element
    '<img src=x onerror="document.body.dataset.pwned=2">',  # HTML: markup through innerHTML
    "]]><x/>&amp;<!--",  # XML: CDATA end, entity, comment
    "{{ x }} ${x} `x`",  # templates
    "caf\u00e9 \u2028 \U0001F333",  # non-ASCII, a JavaScript line separator, astral
)


def _require(program: str, package: str) -> str:
    found = shutil.which(program)
    if found is None:
        pytest.fail(f"{program} not found: this test needs Debian's {package} package (apt-get install {package}; make test installs it)")
    return found


def _dot_program() -> str:
    return _require("dot", "graphviz")


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)  # type: ignore[return-value]
    return _require("chromium", "chromium")


def _chromium_run(tmp_path: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
    flags = ["--headless", "--disable-gpu", "--no-first-run", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'chromium-profile'}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        flags.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    done = subprocess.run([_chromium(), *flags, *extra, url], capture_output=True, timeout=180)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return done


def dump_dom(tmp_path: Path, page: str, *, fragment: str = "") -> str:
    """The DOM of ``page`` after its script ran, as Chromium serialises it."""
    path = tmp_path / "page.html"
    path.write_text(page, encoding="utf-8")
    return _chromium_run(tmp_path, path.as_uri() + fragment, "--dump-dom").stdout.decode("utf-8")


def screenshot(tmp_path: Path, page: str, *, size: tuple[int, int] = (900, 600)) -> np.ndarray:
    path = tmp_path / "page.html"
    path.write_text(page, encoding="utf-8")
    shot = tmp_path / "shot.png"
    _chromium_run(tmp_path, path.as_uri(), f"--screenshot={shot}", f"--window-size={size[0]},{size[1]}")
    return read_png(shot.read_bytes())


def read_png(data: bytes) -> np.ndarray:
    """An 8-bit RGB or RGBA PNG as an array (height, width, channels): enough for Chromium's."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, chunks, header = 8, [], None
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        at += 12 + length
    width, height, bit_depth, colour_type, _, _, interlace = header
    assert bit_depth == 8 and colour_type in (2, 6) and interlace == 0, header
    channels = 3 if colour_type == 2 else 4
    raw = np.frombuffer(zlib.decompress(b"".join(chunks)), dtype=np.uint8).reshape(height, 1 + width * channels)
    out = np.zeros((height, width * channels), dtype=np.int32)
    for y in range(height):  # undo the per-line filters (PNG spec, section 9)
        kind, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        up = out[y - 1] if y else np.zeros(width * channels, dtype=np.int32)
        if kind == 0:
            out[y] = line
        elif kind == 2:
            out[y] = (line + up) % 256
        else:
            row = np.zeros(width * channels, dtype=np.int32)
            for x in range(width * channels):
                left = row[x - channels] if x >= channels else 0
                upleft = up[x - channels] if x >= channels else 0
                if kind == 1:
                    predicted = left
                elif kind == 3:
                    predicted = (left + up[x]) // 2
                else:  # Paeth
                    p = left + up[x] - upleft
                    pa, pb, pc = abs(p - left), abs(p - up[x]), abs(p - upleft)
                    predicted = left if pa <= pb and pa <= pc else (up[x] if pb <= pc else upleft)
                row[x] = (line[x] + predicted) % 256
            out[y] = row
    return out.reshape(height, width, channels)[:, :, :3].astype(np.uint8)


class _Rows(html.parser.HTMLParser):
    """The rows of the page's tree (``div.row``), each as the texts of its spans by class."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, str]] = []
        self.legend: list[str] = []
        self._open: list[str | None] = []
        self._in_legend = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "div" and "row" in classes:
            self.rows.append({"node": a["data-node"], "kind": "split" if "split" in classes else "leaf"})
        if a.get("id") == "legend":
            self._in_legend = 1
        elif self._in_legend:
            self._in_legend += 1
        self._open.append(classes[0] if classes else None)

    def handle_endtag(self, tag):
        if self._open:
            self._open.pop()
        if self._in_legend:
            self._in_legend -= 1

    def handle_data(self, data):
        if self._in_legend and self._open and self._open[-1] == "cls":
            self.legend.append(data)
        elif self.rows and self._open and self._open[-1] in ("cond", "test", "label", "depth"):
            key = self._open[-1]
            self.rows[-1][key] = self.rows[-1].get(key, "") + data


def page_rows(dom: str) -> _Rows:
    parser = _Rows()
    parser.feed(dom)
    return parser


def used_features(tree: Tree) -> set[str]:
    return {tree.schema.features[n.feature].name for n in iter_nodes(tree) if isinstance(n, Split)}


def zoo_tree() -> Tree:
    """Three classes, numeric and categorical features, every split kind."""
    rng = np.random.default_rng(3)
    n = 300
    size = rng.normal(size=n)
    colour = rng.choice(["red", "green", "blue"], size=n)
    weight = rng.uniform(0, 10, size=n)
    label = np.where(size > 0.5, "big", np.where(colour == "red", "red-small", "other"))
    label = np.where((weight > 8) & (size <= 0.5), "other", label)
    data = puretree.from_rows([{"size": float(s), "colour": str(c), "weight": float(w)} for s, c, w in zip(size, colour, weight)], [str(k) for k in label], target="kind")
    return puretree.c45(data)


def hostile_tree() -> Tree:
    """A tree whose feature names, categories and class labels are the hostile strings."""
    names = HOSTILE
    schema = Schema(
        (Feature(names[0]), Feature(names[1], "categorical", (names[2], names[3], names[4])), Feature(names[5], "categorical", (names[6], "b"))),
        classes=(names[2], names[4], names[6]),
    )
    leaf = lambda *c: Leaf(c)  # noqa: E731
    multi = Split(1, Multiway(3), (leaf(1, 0, 0), leaf(0, 2, 0), leaf(0, 0, 3)), (1, 2, 3))
    subset = Split(2, Subset((0,)), (leaf(4, 0, 0), leaf(0, 0, 1)), (4, 0, 1))
    return Tree(Split(0, Threshold(0.5), (multi, subset), (5, 2, 4)), schema)


def chain_tree(levels: int) -> Tree:
    """A chain ``levels`` splits deep, the classes alternating down it."""
    node: Split | Leaf = Leaf((1.0, 0.0))
    for i in range(levels, 0, -1):
        node = Split(0, Threshold(float(i)), (Leaf((0.0, 1.0) if i % 2 else (1.0, 0.0)), node), (1.0, 1.0))
    return Tree(node, Schema((Feature("x"),), ("even", "odd")))


# -- DOT ------------------------------------------------------------------------------------------


def _graphviz_svg_texts(dot_source: str) -> tuple[ET.Element, list[str]]:
    done = subprocess.run([_dot_program(), "-Tsvg"], input=dot_source.encode("utf-8"), capture_output=True, timeout=120)
    assert done.returncode == 0 and not done.stderr, done.stderr.decode(errors="replace")
    root = ET.fromstring(done.stdout)
    return root, ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def test_graphviz_draws_every_node_edge_and_name():
    tree = zoo_tree()
    root, texts = _graphviz_svg_texts(to_dot(tree))
    nodes = [g for g in root.iter(f"{SVG}g") if g.get("class") == "node"]
    edges = [g for g in root.iter(f"{SVG}g") if g.get("class") == "edge"]
    assert len(nodes) == n_nodes(tree) and len(edges) == n_nodes(tree) - 1
    for name in used_features(tree):
        assert name in texts
    for label in tree.schema.classes:  # every class is some leaf's prediction here
        assert any(t.startswith(f"{label} (") for t in texts)


def test_dot_carries_hostile_names_literally():
    tree = hostile_tree()
    root, texts = _graphviz_svg_texts(to_dot(tree))
    # Graphviz writes runs of spaces as no-break spaces.
    joined = "\n".join(texts).replace("\xa0", " ")
    assert "pwned" not in {g.get("id") for g in root.iter()}
    # Each name reaches the drawing as itself (U+2028 becomes a space: labels are one line).
    for name in HOSTILE:
        assert name.replace("\u2028", " ") in joined, name
    assert len([g for g in root.iter(f"{SVG}g") if g.get("class") == "node"]) == n_nodes(tree)


def test_dot_warns_above_the_size_graphviz_handles_slowly():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        to_dot(chain_tree(DOT_SLOW_NODES // 2 - 1))  # a chain of k levels has 2k + 1 nodes: 1999, quiet
    with pytest.warns(SlowLayoutWarning, match=f"has {DOT_SLOW_NODES + 1} nodes"):
        text = to_dot(chain_tree(DOT_SLOW_NODES // 2))
    assert text.count(" -> ") == DOT_SLOW_NODES  # the whole graph all the same


@settings(max_examples=25)
@given(trees(schema=schemas(names=st.text(min_size=1, max_size=12), max_features=3), max_depth=3))
def test_graphviz_accepts_any_tree(tree):
    root, _ = _graphviz_svg_texts(to_dot(tree))
    assert len([g for g in root.iter(f"{SVG}g") if g.get("class") == "node"]) == n_nodes(tree)


# -- SVG ------------------------------------------------------------------------------------------


def _svg_tags(svg: str) -> tuple[ET.Element, set[str]]:
    root = ET.fromstring(svg)
    return root, {el.tag.removeprefix(SVG) for el in root.iter()}


@settings(max_examples=40)
@given(trees(schema=schemas(names=st.text(min_size=1, max_size=12)), max_depth=3))
def test_svg_is_well_formed_with_a_box_and_a_title_per_node(tree):
    root, tags = _svg_tags(to_svg(tree))
    assert tags <= {"svg", "style", "rect", "path", "text", "title", "g"}
    boxes = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "node"]
    assert len(boxes) == n_nodes(tree)
    assert len(list(root.iter(f"{SVG}path"))) == n_nodes(tree) - 1
    titles = "\n".join(t.text or "" for t in root.iter(f"{SVG}title"))
    from puretree.views import _clean  # noqa: PLC0415 - the one spelling of a cleaned name

    for name in used_features(tree):
        assert _clean(name) in titles


def test_svg_keeps_hostile_names_as_text():
    tree = hostile_tree()
    svg = to_svg(tree)
    root, tags = _svg_tags(svg)
    assert tags <= {"svg", "style", "rect", "path", "text", "title", "g"}  # no <x/>, <img>, <script>
    titles = "\n".join("".join(t.itertext()) for t in root.iter(f"{SVG}title"))
    for name in HOSTILE:
        assert name.replace("\u2028", " ") in titles, name


def test_svg_colours_follow_the_class():
    tree = zoo_tree()
    root, _ = _svg_tags(to_svg(tree))
    fills = {r.get("fill") for r in root.iter(f"{SVG}rect") if r.get("class") != "node"}
    assert set(class_colours(len(tree.schema.classes))) <= fills  # every class's colour is in some bar


# -- HTML in Chromium -----------------------------------------------------------------------------


def test_page_renders_every_node_feature_and_class(tmp_path):
    tree = zoo_tree()
    assert puretree.depth(tree) <= OPEN_DEPTH  # so the page opens whole
    dom = dump_dom(tmp_path, to_html(tree))
    page = page_rows(dom)
    assert [r["node"] for r in page.rows] == [str(i) for i in range(n_nodes(tree))]
    assert {r["test"].removeprefix("\u2192 ") for r in page.rows if r["kind"] == "split"} == used_features(tree)
    assert page.legend == list(tree.schema.classes)
    assert {r["label"].split(" (")[0] for r in page.rows if r["kind"] == "leaf"} == set(tree.schema.classes)


def test_page_screenshot_shows_the_class_colours(tmp_path):
    tree = zoo_tree()
    pixels = screenshot(tmp_path, to_html(tree))
    assert pixels.shape[2] == 3
    not_white = np.any(pixels < 235, axis=2).mean()
    assert not_white > 0.02, f"the screenshot is almost blank ({not_white:.2%} non-white)"
    for colour in class_colours(len(tree.schema.classes)):
        rgb = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
        share = np.all(np.abs(pixels.astype(int) - rgb) <= 3, axis=2).mean()
        assert share > 0.0005, f"class colour {colour} is not on the screen"


def test_page_escapes_hostile_names(tmp_path):
    tree = hostile_tree()
    page = to_html(tree)
    assert page.count("<script") == 2 and page.count("</script>") == 2  # the data and the program, no more
    dom = dump_dom(tmp_path, page)
    assert "data-pwned" not in dom and "<img" not in dom and "<x" not in dom
    rows = page_rows(dom)
    shown = "\n".join(v for r in rows.rows for v in r.values()) + "\n".join(rows.legend)
    for name in HOSTILE:
        assert name.replace("\u2028", " ") in shown, name


def _interaction_page(tree: Tree) -> str:
    """The page with a test script run after the page's own: it clicks and hovers as a user
    would, and writes what the page showed into the DOM for --dump-dom to read."""
    probe = """<script>
    const rows = () => document.querySelectorAll("#tree .row");
    const seen = {};
    const click = (i, shift) => document.querySelector(`#tree .row[data-node="${i}"]`).dispatchEvent(new MouseEvent("click", {bubbles: true, shiftKey: shift}));
    seen.start = rows().length;
    click(0, false); seen.closed = rows().length;
    click(0, false); seen.reopened = rows().length;
    click(0, true); seen.shiftClosed = rows().length;
    click(0, true); seen.shiftOpened = rows().length;
    const last = rows()[rows().length - 1];
    last.dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
    seen.tip = document.getElementById("tip").textContent;
    seen.tipShown = getComputedStyle(document.getElementById("tip")).display;
    document.getElementById("collapse").click(); seen.collapsed = rows().length;
    document.getElementById("expand").click(); seen.expanded = rows().length;
    const out = document.createElement("pre"); out.id = "probe"; out.textContent = JSON.stringify(seen);
    document.body.appendChild(out);
    </script>"""
    return to_html(tree, open_depth=1).replace("</body>", probe + "</body>")


def test_page_collapses_expands_and_hovers(tmp_path):
    tree = puretree.id3(datasets.load_playtennis())
    dom = dump_dom(tmp_path, _interaction_page(tree))
    seen = json.loads(html.unescape(re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S).group(1)))
    n = n_nodes(tree)
    first_level = 1 + len(tree.root.children)
    assert (seen["start"], seen["closed"], seen["reopened"]) == (first_level, 1, first_level)
    assert (seen["shiftClosed"], seen["shiftOpened"]) == (1, n)
    assert (seen["collapsed"], seen["expanded"]) == (1, n)
    # The last row is a leaf two levels down: its path's two conditions and its counts.
    tip = seen["tip"]
    assert seen["tipShown"] == "block"
    assert tip.startswith("path (2 conditions):")
    assert "outlook = sunny" in tip and "humidity = normal" in tip
    assert "no: 0" in tip and "yes: 2" in tip and "prediction: yes (2)" in tip


def test_page_opens_a_ten_thousand_level_tree(tmp_path):
    levels = 10_000
    tree = chain_tree(levels)
    page = to_html(tree)
    assert len(page) < 200 * n_nodes(tree)  # linear in the nodes
    dom = dump_dom(tmp_path, page)
    assert re.search(r'<body data-rendered="(\d+)"', dom).group(1) == str(2 * OPEN_DEPTH + 1)  # closed below OPEN_DEPTH
    dom = dump_dom(tmp_path, page, fragment=f"#depth={levels + 1}")  # opened on demand, all of it
    rows = page_rows(dom).rows
    assert len(rows) == n_nodes(tree)
    assert rows[-1]["depth"] == f"[depth {levels}]" and rows[-1]["label"] == "even (1)"


def test_html_needs_nothing_from_the_network():
    page = to_html(zoo_tree())
    assert not re.search(r"<(link|img|iframe|object|embed)\b|\bsrc=|\bhref=|url\(|@import", page)
    assert "default-src 'none'" in page


def test_html_open_depth_is_checked():
    with pytest.raises(puretree.ParameterError, match="open_depth"):
        to_html(chain_tree(2), open_depth=-1)


# -- the command line -----------------------------------------------------------------------------


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "tree.json"
    save(zoo_tree(), path)
    return path


@pytest.mark.parametrize("fmt", ["dot", "svg", "html"])
def test_show_format_to_stdout_and_to_a_file(fmt, model, tmp_path, capsys):
    expected = {"dot": to_dot, "svg": to_svg, "html": to_html}[fmt](load(model))
    assert main(["show", str(model), "--format", fmt]) == 0
    out, err = capsys.readouterr()
    assert (out, err) == (expected, "")
    target = tmp_path / f"tree.{fmt}"
    assert main(["show", str(model), "--format", fmt, "-o", str(target)]) == 0
    out, err = capsys.readouterr()
    assert (out, err) == (f"{fmt} view written to {target}\n", "")
    assert target.read_text(encoding="utf-8") == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["tree.json", target.name])  # no temporary file left


def test_show_text_stays_the_default(model, capsys):
    assert main(["show", str(model)]) == 0
    default = capsys.readouterr().out
    assert main(["show", str(model), "--format", "text"]) == 0
    tree = load(model)
    assert capsys.readouterr().out == default == f"{tree.to_text()}\n{puretree.summary(tree)}\n"


def test_show_refuses_bad_combinations(model, tmp_path, capsys):
    assert main(["show", str(model), "--format", "svg", "--importances"]) == 1
    assert capsys.readouterr().err == "puretree: error: --importances goes with --format text, not svg\n"
    assert main(["show", str(model), "--format", "png"]) == 2
    assert "invalid choice: 'png'" in capsys.readouterr().err
    before = model.read_bytes()
    assert main(["show", str(model), "--format", "html", "-o", str(model)]) == 1
    assert "refusing to overwrite an input" in capsys.readouterr().err
    assert model.read_bytes() == before


def test_show_dot_warns_in_one_line_on_a_big_tree(tmp_path):
    path = tmp_path / "chain.json"
    save(chain_tree(DOT_SLOW_NODES), path)
    done = subprocess.run([sys.executable, "-m", "puretree", "show", str(path), "--format", "dot"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    assert done.stderr.startswith("puretree: warning: the tree has ") and done.stderr.count("\n") == 1
    assert done.stdout.startswith("digraph tree {")


def test_a_missing_program_fails_naming_its_package(monkeypatch):
    # Where Chromium or Graphviz is absent the tests above fail (never skip), saying what to install.
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(pytest.fail.Exception, match="needs Debian's chromium package"):
        _chromium()
    with pytest.raises(pytest.fail.Exception, match="needs Debian's graphviz package"):
        _dot_program()


def test_views_of_a_regression_tree():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    tree = puretree.cart_regressor(X, X[:, 0] * 3 + rng.normal(size=200), max_depth=3)
    root, texts = _graphviz_svg_texts(to_dot(tree))
    assert len([g for g in root.iter(f"{SVG}g") if g.get("class") == "node"]) == n_nodes(tree)
    svg_root, _ = _svg_tags(to_svg(tree))
    assert len([r for r in svg_root.iter(f"{SVG}rect") if r.get("class") == "node"]) == n_nodes(tree)
    data = json.loads(re.search(r'<script type="application/json" id="puretree-data">(.*?)</script>', to_html(tree), re.S).group(1))
    assert data["regression"] and data["classes"] == []
    # A darker blue for a higher mean: the leaves' colours sorted by mean darken.
    leaves = [i for i, node in enumerate(iter_nodes(tree)) if isinstance(node, Leaf)]
    by_mean = sorted(leaves, key=lambda i: data["counts"][i][1] / data["counts"][i][0])
    brightness = [sum(int(data["colour"][i][j : j + 2], 16) for j in (1, 3, 5)) for i in by_mean]
    assert brightness == sorted(brightness, reverse=True)
