"""Hostile CSV input to ``fit`` (and ``read_csv``): every bad file gets one line naming the file,
line (1-based, blank and multi-line rows counted), column or value; odd but valid files learn."""

from __future__ import annotations

import re

import pytest

from . import harness as h
from .common import TRAIN, line, load_ok

CAT = "csv"
FIT = ["fit", "data.csv", "--target", "label", "-o", "m.json"]


def err(name, data, fragments, *, argv=FIT, status=1, **kw):
    files = {"data.csv": data} if not isinstance(data, dict) else data
    return h.cli_error(name, files, argv, fragments, category=CAT, status=status, **kw)


def fitted(check):
    """A cli_ok check on the saved model: ``check(tree)`` returns None or what is wrong."""

    def run(out, errtext, tmp):
        tree = load_ok(tmp / "m.json")
        if tree is None:
            return "m.json does not load after a successful fit"
        return check(tree)

    return run


def ok(name, data, check, *, argv=FIT, **kw):
    files = {"data.csv": data} if not isinstance(data, dict) else data
    return h.cli_ok(name, files, argv, fitted(check), category=CAT, **kw)


def feature(tree, name):
    for f in tree.schema.features:
        if f.name == name:
            return f
    return None


def kind_is(name, kind, categories=None):
    def check(tree):
        f = feature(tree, name)
        if f is None:
            return f"no feature {name!r} in {tree.schema.feature_names}"
        if f.kind != kind:
            return f"feature {name!r} is {f.kind}, expected {kind}"
        if categories is not None and set(f.categories) != set(categories):
            return f"categories {f.categories}, expected {categories}"
        return None

    return check


def features_are(names):
    def check(tree):
        got = list(tree.schema.feature_names)
        return None if got == list(names) else f"features {got}, expected {list(names)}"

    return check


def classes_are(classes):
    def check(tree):
        got = list(tree.schema.classes)
        return None if got == list(classes) else f"classes {got}, expected {list(classes)}"

    return check


def with_cell(text, row_index, column, value):
    """TRAIN with one cell replaced (row_index 0 = first data row = line 2)."""
    lines = text.splitlines()
    cells = lines[row_index + 1].split(",")
    cells[column] = value
    lines[row_index + 1] = ",".join(cells)
    return "\n".join(lines) + "\n"


def repeated(rows, n):
    return "a,c,label\n" + "".join(rows[i % len(rows)] for i in range(n))


def read(name, data, error, fragments):
    """The library's ``read_csv`` on ``data`` (as data.csv) must raise ``error`` naming ``fragments``."""
    import puretree as pt

    def call(tmp):
        (tmp / "data.csv").write_bytes(data.encode("utf-8"))
        return pt.read_csv(tmp / "data.csv", target="label")

    return h.lib_error(name, call, error, fragments, category=CAT)


def read_kind(name, data, column, kind):
    import puretree as pt

    def call(tmp):
        (tmp / "data.csv").write_bytes(data.encode("utf-8"))
        return pt.read_csv(tmp / "data.csv", target="label")

    def check(ds):
        kinds = {f.name: f.kind for f in ds.schema.features}
        return None if kinds.get(column) == kind else f"column {column!r} is {kinds.get(column)}, expected {kind}"

    return h.lib_ok(name, call, check, category=CAT)


CASES = [
    # -- the library reader ---------------------------------------------------------------------
    read("read_csv-inf", with_cell(TRAIN, 1, 0, "inf"), __import__("puretree").DataError, ["data.csv", line(3), "'a'"]),
    read("read_csv-1e999-after-blank", "a,c,label\n\n1,x,n\n1e999,y,p\n", __import__("puretree").DataError, ["data.csv", line(4), "'a'"]),
    read("read_csv-empty-target", with_cell(TRAIN, 0, 2, ""), __import__("puretree").DataError, ["data.csv", line(2), "'label'"]),
    read("read_csv-ragged", "a,c,label\n1,x,n\n\n2,y\n", __import__("puretree").DataError, ["data.csv", line(4)]),
    read_kind("read_csv-underscore-digits", with_cell(TRAIN, 4, 0, "2_5"), "a", "categorical"),
    read_kind("read_csv-superscript-digits", with_cell(TRAIN, 4, 0, "\u00b2"), "a", "categorical"),
    # -- file-level damage -----------------------------------------------------------------
    err("empty-file", "", ["data.csv", "empty"]),
    err("only-blank-lines", "\n\n\n", ["data.csv"]),
    err("header-only", "a,c,label\n", ["data.csv", "no data rows"]),
    err("header-only-crlf", "a,c,label\r\n\r\n", ["data.csv"]),
    err("missing-file", {}, ["nope.csv"], argv=["fit", "nope.csv", "--target", "label", "-o", "m.json"]),
    err("directory-as-data", {"d/x": "1"}, ["d"], argv=["fit", "d", "--target", "label", "-o", "m.json"]),
    err("latin1-bytes", {"data.csv": "a,c,label\n1,caf\xe9,n\n2,x,p\n".encode("latin-1")}, ["data.csv", line(2)]),
    err("utf16-file", {"data.csv": TRAIN.encode("utf-16")}, ["data.csv"]),
    err("nul-byte-in-cell", "a,c,label\n1,x,n\n2,x\x00y,p\n3,x,p\n", ["data.csv", line(3)]),
    err("unterminated-quote", 'a,c,label\n1,x,n\n2,"x,p\n3,x,p\n4,y,n\n', ["data.csv", line(3)]),
    # -- shape ------------------------------------------------------------------------------
    err("ragged-short-row", "a,c,label\n1,x,n\n2,x,p\n3,x\n", ["data.csv", line(4)]),
    err("ragged-long-row", "a,c,label\n1,x,n\n2,x,p,extra\n3,x,p\n", ["data.csv", line(3)]),
    err("ragged-row-after-blank-line", "a,c,label\n1,x,n\n\n2,x\n3,x,p\n", ["data.csv", line(4)]),
    err("ragged-row-after-multiline-cell", 'a,c,label\n1,"x\ny",n\n2,x\n3,x,p\n', ["data.csv", line(4)]),
    err("ragged-row-after-crlf-blank", "a,c,label\r\n1,x,n\r\n\r\n\r\n2,x\r\n", ["data.csv", line(5)]),
    err("duplicate-header", "a,a,label\n1,2,n\n3,4,p\n", ["'a'", "duplicate"]),
    err("duplicate-header-after-strip", "a, a,label\n1,2,n\n3,4,p\n", ["'a'", "duplicate"]),
    err("unknown-target", TRAIN, ["'klass'", "data.csv"], argv=["fit", "data.csv", "--target", "klass", "-o", "m.json"]),
    err("semicolon-file", "a;c;label\n1;x;n\n2;y;p\n", ["'label'", "data.csv"]),
    err("ignore-the-target", TRAIN, ["'label'"], argv=FIT + ["--ignore", "label"]),
    err("ignore-unknown-column", TRAIN, ["'zz'"], argv=FIT + ["--ignore", "zz"]),
    err("categorical-unknown-column", TRAIN, ["'zz'"], argv=FIT + ["--categorical", "zz"]),
    # -- cells ------------------------------------------------------------------------------
    err("inf-in-numeric-column", with_cell(TRAIN, 2, 0, "inf"), [line(4), "'a'", "inf"]),
    err("minus-inf-in-numeric-column", with_cell(TRAIN, 0, 0, "-inf"), [line(2), "'a'", "-inf"]),
    err("1e999-in-numeric-column", with_cell(TRAIN, 5, 0, "1e999"), [line(7), "'a'", "1e999"]),
    err("Infinity-in-numeric-column", with_cell(TRAIN, 3, 0, "Infinity"), [line(5), "'a'", "Infinity"]),
    err("inf-after-blank-line", "a,c,label\n1,x,n\n\n2,x,p\ninf,x,p\n", [line(5), "'a'"]),
    err("empty-target-cell", with_cell(TRAIN, 3, 2, ""), [line(5), "'label'"]),
    err("missing-token-target-cell", with_cell(TRAIN, 1, 2, "?"), [line(3), "'label'"]),
    err("regression-text-target", "a,y\n1,2.5\n2,abc\n", [line(3), "'y'", "abc"],
        argv=["fit", "data.csv", "--target", "y", "--task", "regression", "-o", "m.json"]),
    err("regression-inf-target", "a,y\n1,2.5\n2,inf\n", [line(3), "'y'"],
        argv=["fit", "data.csv", "--target", "y", "--task", "regression", "-o", "m.json"]),
    err("regression-empty-target", "a,y\n1,2.5\n2,\n3,1\n", [line(3), "'y'"],
        argv=["fit", "data.csv", "--target", "y", "--task", "regression", "-o", "m.json"]),
    err("regression-target-after-quoted-newline", 'a,c,y\n1,"p\nq",2.5\n2,r,abc\n', [line(4), "'y'"],
        argv=["fit", "data.csv", "--target", "y", "--task", "regression", "-o", "m.json"]),
    ok("underscore-digits-are-text", with_cell(TRAIN, 0, 0, "1_000"), kind_is("a", "categorical")),
    ok("arabic-indic-digits-are-text", with_cell(TRAIN, 0, 0, "\u0661\u0662"), kind_is("a", "categorical")),
    ok("fullwidth-digits-are-text", with_cell(TRAIN, 0, 0, "\uff11\uff12"), kind_is("a", "categorical")),
    ok("hex-is-text", with_cell(TRAIN, 0, 0, "0x10"), kind_is("a", "categorical")),
    ok("padded-numbers-are-numbers", TRAIN.replace("\n1,", "\n  1  ,"), kind_is("a", "numeric")),
    ok("missing-tokens-keep-numeric", with_cell(with_cell(TRAIN, 0, 0, "?"), 1, 0, "NA"), kind_is("a", "numeric")),
    # -- odd but valid files ------------------------------------------------------------------
    ok("utf8-bom", "\ufeff" + TRAIN, features_are(["a", "c"])),
    ok("crlf-line-ends", TRAIN.replace("\n", "\r\n"), kind_is("c", "categorical", ["x", "y", "z"])),
    ok("cr-only-line-ends", TRAIN.replace("\n", "\r"), kind_is("c", "categorical", ["x", "y", "z"])),
    ok("quoted-newline-in-category", TRAIN.replace("1,y,n", '1,"y\nw",n'), kind_is("c", "categorical", ["x", "y", "y\nw", "z"])),
    ok("quoted-comma-in-label", TRAIN.replace(",p\n", ',"p,q"\n'), classes_are(["n", "p,q"])),
    ok("blank-lines-between-rows", TRAIN.replace("\n1,y", "\n\n\n1,y"), classes_are(["n", "p"])),
    ok("one-row", "a,c,label\n1,x,n\n", classes_are(["n"])),
    ok("one-class", "a,c,label\n1,x,n\n2,y,n\n3,z,n\n", classes_are(["n"])),
    ok("all-missing-column", "a,c,e,label\n1,x,?,n\n2,x,,n\n3,x,NA,p\n4,y,?,p\n", features_are(["a", "c", "e"])),
    ok("huge-field", TRAIN.replace("1,y,n", "1," + "w" * 300_000 + ",n"), kind_is("c", "categorical", ["x", "y", "z", "w" * 300_000])),
    ok("unicode-names", "âge,ç,label\n1,é,n\n2,ü,p\n", features_are(["âge", "ç"])),
    # Every row its own class. The builders hold a node's rows as one-hot class statistics
    # (rows x classes numbers): 10,000 classes made that 763 MiB per copy, near the guard's
    # address-space limit and a minute of a loaded machine's time, so the verdict depended on
    # the machine's load. 2,000 classes (32 MB) still has far more labels than columns.
    ok("2000-classes", "a,label\n" + "".join(f"{i},c{i}\n" for i in range(2_000)),
       lambda t: None if len(t.schema.classes) == 2_000 else f"{len(t.schema.classes)} classes",
       argv=FIT + ["--max-depth", "2"], guard=60),
    ok("2000-columns", ",".join(f"f{j}" for j in range(2000)) + ",label\n" + "".join(",".join(str((i * j) % 7) for j in range(2000)) + f",{'np'[i % 2]}\n" for i in range(20)),
       lambda t: None if t.schema.n_features == 2000 else f"{t.schema.n_features} features", guard=60),
    # -- options of fit ---------------------------------------------------------------------
    # A range message (issue 9), not "invalid value": say what the largest accepted depth is.
    err("max-depth-10e23", TRAIN, ["--max-depth", re.compile(r"<=|at most|range|too (large|big)|between")], argv=FIT + ["--max-depth", str(10**23)], status=2),
    err("max-depth-negative", TRAIN, ["--max-depth", "-1"], argv=FIT + ["--max-depth", "-1"], status=2),
    err("min-samples-leaf-zero", TRAIN, ["--min-samples-leaf", "0"], argv=FIT + ["--min-samples-leaf", "0"], status=2),
    err("min-gain-nan", TRAIN, ["--min-gain", "nan"], argv=FIT + ["--min-gain", "nan"], status=2),
    err("unknown-algorithm", TRAIN, ["--algorithm", "c50"], argv=FIT + ["--algorithm", "c50"], status=2),
    err("misspelt-option", TRAIN, ["--maxdepth"], argv=FIT + ["--maxdepth", "1"], status=2),
]


@pytest.mark.parametrize("case", CASES, ids=h.ids(CASES))
def test_csv(case):
    h.check(case)
