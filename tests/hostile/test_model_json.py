"""Model files are untrusted input: a malformed model is refused at load with a
``ModelFormatError`` naming the node and field (or the file), and a model that loads is safe
to use: every command finishes in time and memory bounded by the model's size."""

from __future__ import annotations

import json

import pytest

from puretree.errors import ModelFormatError

from . import harness as h
from .common import chain, model, model_text

CAT = "json"
MFE = ModelFormatError


def bad(name, edit_or_text, fragments, *, guard=None):
    """``from_json`` of a damaged model must raise ModelFormatError naming ``fragments``."""
    from puretree.io import from_json

    text = edit_or_text if isinstance(edit_or_text, (str, bytes)) else model_text(edit_or_text)
    return h.lib_error(name, lambda tmp: from_json(text), MFE, fragments, category=CAT, guard=guard)


def cli_bad(name, text, argv, fragments, *, guard=None, extra=None):
    files = {"m.json": text, "new.csv": "a,c\n1,x\n", **(extra or {})}
    return h.cli_error(name, files, argv, fragments, category=CAT, guard=guard)


def node(i, **fields):
    def edit(m):
        m["nodes"][i].update(fields)

    return edit


def drop(i, key):
    def edit(m):
        del m["nodes"][i][key]

    return edit


def schema(**fields):
    def edit(m):
        m["schema"].update(fields)

    return edit


def top(**fields):
    def edit(m):
        m.update(fields)

    return edit


def feature(j, **fields):
    def edit(m):
        m["schema"]["features"][j].update(fields)

    return edit


def no_children_categorical(m):
    """The 300-byte model of issue 9: a categorical split on a feature with no categories."""
    m["schema"]["features"] = [{"name": "c", "kind": "categorical", "categories": []}]
    m["nodes"] = [{"kind": "categorical", "feature": 0, "children": [], "counts": [1, 1]}]


def bounded_output(limit_bytes):
    def check(out, err, tmp):
        return None if len(out.encode()) <= limit_bytes else f"{len(out.encode()):,} bytes of output, more than {limit_bytes:,}"

    return check


CHAIN = json.dumps(chain(50_000))
BIG = str(2**53 + 1)
DIGITS = "9" * 5000

CASES = [
    # -- not JSON, not a model ----------------------------------------------------------------
    bad("truncated", model_text()[:-40], ["not valid JSON"]),
    bad("empty-text", "", ["not valid JSON"]),
    bad("a-list", "[1, 2]", ["list"]),
    bad("wrong-format", top(format="sklearn-tree"), ["sklearn-tree"]),
    bad("version-true", top(version=True), ["version", "True"]),
    bad("version-string", top(version="1"), ["version"]),
    bad("version-2", top(version=2), ["version", "2"]),
    bad("nan-literal", model_text().replace('"threshold": 2.5', '"threshold": NaN'), ["NaN"]),
    bad("infinity-literal", model_text().replace('"threshold": 2.5', '"threshold": -Infinity'), ["Infinity"]),
    bad("deeply-nested", "[" * 100_000 + "]" * 100_000, ["nested"]),
    bad("5000-digit-integer-count", model_text().replace('"counts": [4, 4]', f'"counts": [{DIGITS}, 4]'), ["nodes[0]"]),
    bad("5000-digit-threshold", model_text().replace('"threshold": 2.5', f'"threshold": {DIGITS}'), ["nodes[1]"]),
    bad("integer-count-beyond-2-53", node(2, counts=[2**53 + 1, 0]), ["nodes[2]", BIG]),
    bad("integer-threshold-beyond-2-53", node(1, threshold=2**53 + 1), ["nodes[1]", BIG]),
    bad("integer-class-label-beyond-2-53", schema(classes=[0, 2**60]), ["classes", str(2**60)]),
    bad("lone-surrogate-class", schema(classes=["n", "\ud800"]), ["classes"]),
    bad("lone-surrogate-feature-name", feature(0, name="a\udfff"), ["features[0]"]),
    bad("lone-surrogate-target", schema(target="\udc80"), ["target"]),
    bad("lone-surrogate-category", feature(1, categories=["x", "y", "\ud83d"]), ["features[1]"]),
    # -- wrong types at each field -------------------------------------------------------------
    bad("schema-missing", lambda m: m.pop("schema"), ["schema"]),
    bad("schema-a-string", top(schema="abc"), ["schema"]),
    bad("task-unknown", schema(task="clustering"), ["clustering"]),
    bad("target-a-number", schema(target=3), ["target"]),
    bad("classes-empty", schema(classes=[]), ["classes"]),
    bad("classes-duplicate", schema(classes=["n", "n"]), ["classes", "'n'"]),
    bad("class-a-list", schema(classes=["n", ["p"]]), ["classes"]),
    bad("class-a-nan-float", model_text(schema(classes=["n", 1.5])).replace("1.5", "NaN"), ["NaN"]),
    bad("feature-kind-unknown", feature(0, kind="ordinal"), ["features[0]", "ordinal"]),
    bad("feature-names-duplicate", feature(1, name="a"), ["'a'"]),
    bad("categories-missing", lambda m: m["schema"]["features"][1].pop("categories"), ["features[1]", "categories"]),
    bad("nodes-empty", top(nodes=[]), ["nodes"]),
    bad("nodes-an-object", top(nodes={"0": {}}), ["nodes"]),
    bad("node-a-string", lambda m: m["nodes"].__setitem__(3, "leaf"), ["nodes[3]"]),
    bad("node-kind-unknown", node(4, kind="stump"), ["nodes[4]", "stump"]),  # not "missing field 'children'"
    bad("split-kind-unknown", node(1, kind="oblique"), ["nodes[1]", "oblique"]),
    bad("counts-missing", drop(2, "counts"), ["nodes[2]", "counts"]),
    bad("counts-too-wide", node(2, counts=[1, 0, 0]), ["nodes[2]", "counts"]),
    bad("counts-a-bool", node(3, counts=[True, 0]), ["nodes[3]"]),
    bad("counts-a-string", node(3, counts=["1", 0]), ["nodes[3]"]),
    bad("counts-negative", node(5, counts=[-1, 2]), ["nodes[5]"]),
    bad("regression-counts-width", lambda m: (m["schema"].update(task="regression", classes=[]),), ["nodes[", "counts"]),
    bad("threshold-a-string", node(1, threshold="2.5"), ["nodes[1]", "threshold"]),
    bad("threshold-a-bool", node(1, threshold=True), ["nodes[1]", "threshold"]),
    bad("threshold-missing", drop(1, "threshold"), ["nodes[1]", "threshold"]),
    bad("feature-index-out-of-range", node(1, feature=7), ["nodes[1]", "7"]),
    bad("feature-index-a-bool", node(1, feature=False), ["nodes[1]", "feature"]),
    bad("feature-index-negative", node(1, feature=-1), ["nodes[1]", "-1"]),
    bad("numeric-split-on-categorical-feature", node(1, feature=1), ["nodes[1]", "'c'"]),
    bad("children-not-a-list", node(1, children={"left": 2}), ["nodes[1]", "children"]),
    bad("children-cycle-to-root", node(1, children=[0, 3]), ["nodes[1]", "0"]),
    bad("child-is-itself", node(1, children=[1, 3]), ["nodes[1]"]),
    bad("shared-child", node(1, children=[2, 5]), ["node 5"]),
    bad("child-index-a-float", node(1, children=[2.0, 3]), ["nodes[1]"]),
    bad("numeric-split-three-children", lambda m: m["nodes"][0].update(children=[1, 4]) or m["nodes"][1].update(children=[2, 3, 5]), ["nodes["]),
    bad("unreachable-node", lambda m: m["nodes"].append({"kind": "leaf", "counts": [1, 1]}), ["nodes[6]"]),
    bad("categorical-split-too-few-children", lambda m: m["nodes"][0].update(children=[1, 4]) or m["nodes"].pop(5), ["nodes[0]", "'c'"]),
    bad("categorical-split-with-no-children", no_children_categorical, ["nodes[0]"]),
    bad("subset-code-out-of-range", lambda m: m["nodes"].__setitem__(0, {"kind": "subset", "feature": 1, "left_categories": [5], "children": [1, 4], "counts": [4, 4]}) or m["nodes"].pop(5), ["nodes[0]", "5"]),
    bad("missing-strategy-unknown", top(missing="ignore"), ["ignore"]),
    bad("200000-unreachable-leaves", lambda m: m["nodes"].extend({"kind": "leaf", "counts": [0, 0]} for _ in range(200_000)), ["nodes[6]"], guard=60),
    # -- files and commands on hostile models ----------------------------------------------------
    cli_bad("model-not-utf8", "é".encode("latin-1") + b"{}", ["show", "m.json"], ["m.json"]),
    cli_bad("model-is-a-csv", "a,c\n1,x\n", ["predict", "m.json", "new.csv"], ["m.json"]),
    cli_bad("model-is-a-directory", model_text(), ["show", "."], ["."]),
    cli_bad("predict-with-no-children-categorical", model_text(no_children_categorical), ["predict", "m.json", "new.csv"], ["nodes[0]"], guard=8,
            extra={"new.csv": "c\n?\n"}),
    cli_bad("export-with-no-children-categorical", model_text(no_children_categorical), ["export", "m.json", "--target", "c", "-o", "out"], ["nodes[0]"], guard=8),
    cli_bad("show-5000-digit-number", model_text().replace('"counts": [4, 4]', f'"counts": [{DIGITS}, 4]'), ["show", "m.json"], ["m.json"]),
    cli_bad("show-lone-surrogate-label", json.dumps(model(schema(classes=["n", "\ud800"]))), ["show", "m.json"], ["m.json"]),
    cli_bad("rules-on-a-regression-model", model_text(lambda m: (m["schema"].update(task="regression", classes=[]), [n.update(counts=[1, 1, 1]) for n in m["nodes"]])),
            ["rules", "m.json"], ["regression"]),
    cli_bad("prune-validation-missing-column", model_text(), ["prune", "m.json", "--method", "reduced-error", "--validation", "v.csv", "-o", "p.json"], ["'c'"],
            extra={"v.csv": "a,label\n1,n\n"}),
    cli_bad("prune-validation-header-only", model_text(), ["prune", "m.json", "--method", "cost-complexity", "--validation", "v.csv", "-o", "p.json"], ["v.csv"],
            extra={"v.csv": "a,c,label\n"}),
    h.cli_ok("show-importances-all-zero-counts", {"m.json": model_text(lambda m: [n.update(counts=[0, 0]) for n in m["nodes"]])}, ["show", "m.json", "--importances"],
             lambda out, err, tmp: None if "nan" not in out.lower() else f"NaN in the output: {out.split()[-6:]}", category=CAT),
    h.cli_ok("show-50000-level-chain-bounded", {"m.json": CHAIN}, ["show", "m.json"], bounded_output(100_000_000), category=CAT, guard=60),
    h.cli_ok("rules-50000-level-chain-bounded", {"m.json": CHAIN}, ["rules", "m.json"], bounded_output(100_000_000), category=CAT, guard=60),
    h.cli_ok("predict-50000-level-chain", {"m.json": CHAIN, "new.csv": "f0\n1e9\n0\n"}, ["predict", "m.json", "new.csv"],
             lambda out, err, tmp: None if out.split() == ["prediction", "n", "p"] else f"output {out.split()[:5]}", category=CAT, guard=60),
]


@pytest.mark.parametrize("case", CASES, ids=h.ids(CASES))
def test_model_json(case):
    h.check(case)
