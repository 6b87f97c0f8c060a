"""Prediction data against the training schema: ``predict``/``evaluate`` on the command line and
``predict`` in the library. A file or array that does not fit the schema is refused naming the
column, line or value; one that fits (other order, extra columns, unseen categories, missing
cells) gets the right predictions, one per row."""

from __future__ import annotations

import numpy as np
import pytest

from . import harness as h
from .common import MODEL, line, model_text, predictions, row

CAT = "predict"
PRED = ["predict", "m.json", "new.csv"]
GOOD = "a,c\n1,x\n3,x\n1,y\n1,z\n"
GOOD_WANT = ["n", "p", "n", "p"]


def err(name, data, fragments, *, argv=PRED, status=1, model=None):
    return h.cli_error(name, {"m.json": model or model_text(), "new.csv": data}, argv, fragments, category=CAT, status=status)


def ok(name, data, want, *, model=None, argv=PRED):
    def check(out, errtext, tmp):
        got = predictions(out)
        return None if got == want else f"predictions {got}, expected {want}"

    return h.cli_ok(name, {"m.json": model or model_text(), "new.csv": data}, argv, check, category=CAT)


def one_column_model(m):
    """The tree reduced to its categorical feature ``c`` (x -> n, y -> n, z -> p)."""
    m["schema"]["features"] = [MODEL["schema"]["features"][1]]
    m["nodes"] = [
        {"kind": "categorical", "feature": 0, "children": [1, 2, 3], "counts": [4, 4]},
        {"kind": "leaf", "counts": [3, 1]},
        {"kind": "leaf", "counts": [2, 0]},
        {"kind": "leaf", "counts": [0, 2]},
    ]


def tree():
    from puretree.io import from_dict

    from .common import model

    return from_dict(model())


def lib_err(name, X, error, fragments):
    from puretree.predict import predict

    return h.lib_error(name, lambda tmp: predict(tree(), X(tmp) if callable(X) else X), error, fragments, category=CAT)


def lib_ok(name, X, want):
    from puretree.predict import predict

    def check(value):
        got = list(np.asarray(value).tolist())
        return None if got == want else f"predictions {got}, expected {want}"

    return h.lib_ok(name, lambda tmp: predict(tree(), X() if callable(X) else X), check, category=CAT)


def frame(data, columns=None, **kw):
    import pandas as pd

    return lambda *_: pd.DataFrame(data, columns=columns, **kw)


def bool_round_trip(train_from, predict_from):
    """A boolean feature learned from one input path and predicted from another must mean the
    same thing (``True`` read from CSV is the boolean True); a refusal naming the column is
    also acceptable, a silent mismatch is not."""
    import pandas as pd

    import puretree as pt
    from puretree.errors import PuretreeError

    def body(tmp):
        flags = [True, False, True, False, True, False]
        labels = ["yes" if f else "no" for f in flags]
        if train_from == "csv":
            (tmp / "t.csv").write_text("flag,label\n" + "".join(f"{f},{l}\n" for f, l in zip(flags, labels)))
            train = pt.read_csv(tmp / "t.csv", target="label")
        else:
            train = pt.from_pandas(pd.DataFrame({"flag": flags}), labels)
        fitted = pt.id3(train)
        if predict_from == "csv":  # the command line: the saved model and a CSV file
            pt.save(fitted, tmp / "m.json")
            (tmp / "p.csv").write_text("flag\n" + "".join(f"{f}\n" for f in flags))
            status, out, err, escaped = h.run_cli(["predict", "m.json", "p.csv"], tmp)
            if escaped or "internal error" in err:
                return h.Result("traceback", escaped or err.strip())
            if status != 0:  # a refusal naming the column is acceptable
                return h.Result("ok" if "flag" in err and len(err.strip().splitlines()) == 1 else "unclear", err.strip())
            got = predictions(out)
            return h.Result("ok") if got == labels else h.Result("wrong", f"predicted {got}, trained on {labels}")
        X = pd.DataFrame({"flag": flags}) if predict_from == "pandas" else [{"flag": f} for f in flags]
        try:
            got = list(pt.predict(fitted, X).tolist())
        except PuretreeError as exc:
            return h.Result("ok" if "flag" in str(exc) else "unclear", str(exc))
        except Exception as exc:  # noqa: BLE001
            return h.Result("traceback", f"{type(exc).__name__}: {exc}")
        return h.Result("ok") if got == labels else h.Result("wrong", f"predicted {got}, trained on {labels}")

    return h.custom(f"bool-{train_from}-then-{predict_from}", body, category=CAT)


CASES = [
    # -- the command line -------------------------------------------------------------------
    ok("well-formed", GOOD, GOOD_WANT),
    ok("columns-reordered", "c,a\nx,1\nx,3\ny,1\nz,1\n", GOOD_WANT),
    ok("extra-columns-ignored", "id,a,label,c\n7,1,n,x\n8,3,p,x\n9,1,n,y\n10,1,p,z\n", GOOD_WANT),
    ok("padded-header", " a , c \n1,x\n3,x\n1,y\n1,z\n", GOOD_WANT),
    ok("utf8-bom", "\ufeff" + GOOD, GOOD_WANT),
    ok("crlf", GOOD.replace("\n", "\r\n"), GOOD_WANT),
    ok("unseen-category-predicts", "a,c\n1,x\n1,w\n", ["n", "n"]),
    ok("missing-cells-predict", "a,c\n?,y\n,z\nNA,x\n", ["n", "p", "n"]),
    ok("blank-line-in-one-column-file-is-missing", "c\nx\n\nz\n", ["n", "n", "p"], model=model_text(one_column_model)),
    ok("multiline-cell-is-one-row", 'a,c\n1,"x\nx"\n1,y\n', ["n", "n"]),
    err("missing-column", "a\n1\n2\n", ["'c'"]),
    err("header-case-differs", "A,c\n1,x\n", ["'a'"]),
    err("repeated-column", "a,c,c\n1,x,y\n", ["'c'"]),
    err("repeated-extra-column", "a,c,z,z\n1,x,1,2\n", ["'z'"]),
    err("text-in-numeric-column", "a,c\n1,x\nabc,x\n", [line(3), "'a'", "abc"]),
    err("inf-in-numeric-column", "a,c\n1,x\ninf,x\n", [line(3), "'a'"]),
    err("1e999-in-numeric-column", "a,c\n1,x\n\n1e999,x\n", [line(4), "'a'"]),
    err("underscore-number", "a,c\n1_000,x\n", [line(2), "'a'", "1_000"]),
    err("arabic-digits", "a,c\n\u0663,x\n", [line(2), "'a'"]),
    err("ragged-row", "a,c\n1,x\n2\n", ["new.csv", line(3)]),
    err("ragged-after-quoted-newline", 'a,c\n1,"x\ny"\n2\n', ["new.csv", line(4)]),
    err("empty-file", "", ["new.csv"]),
    err("target-column-only", "label\nn\n", ["'a'"]),
    err("proba-on-regression-tree", GOOD, ["--proba"], argv=PRED + ["--proba"],
        model=model_text(lambda m: (m["schema"].update(task="regression", classes=[]), [n.update(counts=[1, 1, 1]) for n in m["nodes"]]))),
    h.cli_error("evaluate-regression-on-text-labels", {"m.json": model_text(lambda m: (m["schema"].update(task="regression", classes=[], target="label"), [n.update(counts=[1, 1, 1]) for n in m["nodes"]])),
                "new.csv": "a,c,label\n1,x,2.5\n2,x,high\n"}, ["evaluate", "m.json", "new.csv"], [line(3), "high"], category=CAT),
    h.cli_error("evaluate-empty-target-cell", {"m.json": model_text(), "new.csv": "a,c,label\n1,x,n\n2,x,\n"},
                ["evaluate", "m.json", "new.csv"], [line(3), "'label'"], category=CAT),
    h.cli_error("evaluate-without-target", {"m.json": model_text(), "new.csv": GOOD}, ["evaluate", "m.json", "new.csv"], ["'label'"], category=CAT),
    # -- the library ------------------------------------------------------------------------
    lib_ok("empty-array-gives-empty", np.empty((0, 2)), []),
    lib_ok("empty-object-array-gives-empty", np.empty((0, 2), dtype=object), []),
    lib_ok("rows-of-mappings", [{"a": 1, "c": "x"}, {"c": "x", "a": 3}], ["n", "p"]),
    lib_ok("dataframe-extra-columns", frame({"z": [0, 0], "c": ["x", "x"], "a": [1.0, 3.0]}), ["n", "p"]),
    lib_ok("dataframe-pandas-NA", frame({"a": [1.0, None], "c": ["y", None]}, dtype=object), ["n", "n"]),
    lib_err("dataframe-missing-column", frame({"a": [1.0]}), __import__("puretree").SchemaError, ["'c'"]),
    lib_err("dataframe-duplicate-columns", frame([[1.0, "x", "y"]], columns=["a", "c", "c"]), __import__("puretree").DataError, ["'c'"]),
    lib_err("array-wrong-width", np.zeros((2, 3)), __import__("puretree").SchemaError, ["3 columns"]),
    lib_err("array-1d-of-wrong-length", np.zeros(3), __import__("puretree").DataError, ["shape"]),
    lib_err("array-3d", np.zeros((2, 2, 2)), __import__("puretree").DataError, ["shape"]),
    lib_err("row-missing-key", [{"a": 1, "c": "x"}, {"a": 2}], __import__("puretree").SchemaError, [row(1), "'c'"]),
    lib_err("text-in-numeric-cell", [{"a": "abc", "c": "x"}], __import__("puretree").DataError, ["'a'", "abc"]),
    lib_err("inf-in-numeric-cell", [{"a": float("inf"), "c": "x"}], __import__("puretree").DataError, ["'a'"]),
    lib_err("complex-cell", np.array([[1 + 2j, "x"]], dtype=object), __import__("puretree").DataError, ["'a'"]),
    lib_err("dict-as-category", [{"a": 1.0, "c": {"k": 1}}], __import__("puretree").DataError, ["'c'"]),
    lib_err("ragged-list", [[1.0, "x"], [2.0]], __import__("puretree").DataError, [row(1)]),
    bool_round_trip("csv", "csv"),  # controls: one input path gives the right answers
    bool_round_trip("pandas", "pandas"),
    bool_round_trip("csv", "pandas"),
    bool_round_trip("csv", "rows"),
    bool_round_trip("pandas", "csv"),
]


@pytest.mark.parametrize("case", CASES, ids=h.ids(CASES))
def test_predict_schema(case):
    h.check(case)
