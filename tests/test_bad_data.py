"""Bad data gets a clear error, not a guess: CSV cells, one meaning per value across input paths,
library misuse, and the command line swept with hostile inputs (issue 9)."""

from __future__ import annotations

import csv
import math
import os
import tempfile

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from puretree.cli import main
from puretree.data import (
    _NON_FINITE,
    _NUMBER,
    Dataset,
    category_key,
    encode_features,
    encode_table,
    from_numpy,
    from_pandas,
    from_rows,
    parse_number,
    read_csv,
    read_csv_table,
)
from puretree.errors import DataError, ParameterError, PuretreeError, SchemaError
from puretree.grow import c45, cart, cart_regressor, grow, id3
from puretree.io import save
from puretree.predict import UnseenCategoryWarning, apply, decision_path, predict, predict_proba


def write(path, text):
    path.write_text(text, encoding="utf-8", newline="")
    return path


# -- numbers in text ---------------------------------------------------------------------------


@given(st.text(max_size=12) | st.from_regex(r"\A\s*[+-]?[0-9_]*\.?[0-9_]*([eE][+-]?[0-9]+)?\s*\Z"))
@example("1_000")
@example("\u0663")
@example("\uff13")
@example(" -Infinity ")
@example("0x10")
def test_parse_number_is_the_strict_pattern(text):
    """parse_number reads exactly the plain ASCII decimal numbers (and the inf/nan spellings)."""
    t = text.strip()
    strict = bool(_NUMBER.fullmatch(t) or _NON_FINITE.fullmatch(t))
    value = parse_number(text)
    assert (value is not None) == strict
    if strict:
        assert value == float(t) or (math.isnan(value) and math.isnan(float(t)))


@pytest.mark.parametrize("cell, shown", [
    ("inf", "'inf'"), ("-inf", "'-inf'"), ("Infinity", "'Infinity'"), ("-nan", "'-nan'"), ("NAN", "'NAN'"),
    ("1e999", "'1e999'"), ("9" * 5000, "'" + "9" * 34 + "...'"),
])
def test_csv_non_finite_cell_in_a_numeric_column_names_file_line_and_column(tmp_path, cell, shown):
    # Line 1 header, line 2 a row, line 3 blank, lines 4-5 one quoted two-line cell, line 6 the bad cell.
    f = write(tmp_path / "d.csv", f'x,note,label\n1,a,p\n\n2,"two\nlines",q\n{cell},b,p\n')
    with pytest.raises(DataError) as info:
        read_csv(f, target="label")
    assert str(info.value) == f"{f}: line 6, column 'x': {shown} is not a finite number (the column's other cells are numbers)"


@pytest.mark.parametrize("cell", ["1_000", "\u0663", "\uff13", "0x1f", "1e", "--1"])
def test_csv_odd_numbers_are_not_numbers(tmp_path, cell):
    f = write(tmp_path / "d.csv", f"x,label\n1,p\n{cell},q\n")
    ds = read_csv(f, target="label")
    assert not ds.schema.features[0].is_numeric and ds.schema.features[0].categories == tuple(sorted(["1", cell]))
    tree = cart(from_numpy(np.array([[1.0], [2.0]]), ["p", "q"], feature_names=["x"]))
    with pytest.raises(DataError) as info:
        encode_table(tree.schema, *read_csv_table(f))
    assert str(info.value) == f"{f}: line 3, column 'x': {cell!r} is not a number"


def test_csv_rows_know_their_lines(tmp_path):
    f = write(tmp_path / "d.csv", 'a,b\n\n1,"x\ny"\n\n\n2,z\n')
    header, rows = read_csv_table(f)
    assert header == ["a", "b"] and rows == [["1", "x\ny"], ["2", "z"]]
    assert rows.lines == [3, 7] and rows.source == str(f)  # the quoted row spans lines 3-4


def test_blank_line_in_a_one_column_file_is_a_missing_value(tmp_path):
    tree = cart(from_numpy(np.array([[1.0], [2.0], [3.0]]), ["p", "q", "q"], feature_names=["x"]))
    f = write(tmp_path / "one.csv", "x\n1\n\n3\n")
    header, rows = read_csv_table(f)
    assert rows == [["1"], [""], ["3"]] and rows.lines == [2, 3, 4]
    X = encode_table(tree.schema, header, rows)
    assert X.shape == (3, 1) and np.isnan(X[1, 0])
    assert len(predict(tree, Dataset(tree.schema, X))) == 3


def test_repeated_column_names_are_refused(tmp_path):
    f = write(tmp_path / "p.csv", "x,c,x\n1,a,2\n")
    with pytest.raises(DataError) as info:
        read_csv_table(f)
    assert str(info.value) == f"{f}: line 1: duplicate column name 'x' (columns 1 and 3)"
    tree = cart(from_numpy(np.array([[1.0], [2.0]]), ["p", "q"], feature_names=["x"]))
    with pytest.raises(DataError, match=r"^duplicate column name 'x' \(columns 1 and 2\)$"):
        encode_table(tree.schema, ["x", " x "], [["1", "2"]])
    df = pd.DataFrame([[1, 2]], columns=["x", "x"])
    for call in (lambda: predict(tree, df), lambda: cart(df, [0])):
        with pytest.raises(DataError) as info:
            call()
        assert str(info.value) == "the DataFrame: duplicate column name 'x' (columns 1 and 2)"


def test_csv_target_errors_name_line_and_column(tmp_path):
    f = write(tmp_path / "t.csv", "x,y\n1,2\n\n2,\n")
    with pytest.raises(DataError) as info:
        read_csv(f, target="y")
    assert str(info.value) == f"{f}: line 4, column 'y': the target is missing"
    with pytest.raises(DataError) as info:
        read_csv(f, target="y", task="regression")
    assert str(info.value) == f"{f}: line 4, column 'y': the regression target is missing"
    f = write(tmp_path / "r.csv", "x,y\n1,2\n2,1_5\n")
    with pytest.raises(DataError) as info:
        read_csv(f, target="y", task="regression")
    assert str(info.value) == f"{f}: line 3, column 'y': the regression target '1_5' is not a finite number"


# -- one value, one meaning ----------------------------------------------------------------


def test_category_key():
    assert category_key(True) == category_key("true") == category_key(" TRUE ") == category_key(np.bool_(True))
    assert category_key(1) == category_key(1.0) == category_key("1") == category_key("1.0") == category_key(np.int64(1))
    assert category_key(True) != category_key(1)
    assert category_key("9" * 30) != category_key("9" * 29 + "8")  # long identifiers stay distinct
    assert category_key("1_000") == ("text", "1_000")


def test_boolean_column_learned_from_csv_predicts_pandas_booleans(tmp_path):
    f = write(tmp_path / "b.csv", "flag,label\nTrue,p\nFalse,q\nTrue,p\nFalse,q\n")
    tree = id3(read_csv(f, target="label"))
    assert tree.schema.features[0].categories == ("False", "True")
    df = pd.DataFrame({"flag": [True, False, True, False]})
    assert predict(tree, df).tolist() == ["p", "q", "p", "q"]  # accuracy 1, not 0.5
    assert predict(tree, [{"flag": "true"}, {"flag": np.bool_(False)}]).tolist() == ["p", "q"]
    # ... and the other way: learned from pandas booleans, predicted from CSV text.
    tree = id3(df, ["p", "q", "p", "q"])
    assert tree.schema.features[0].categories == (False, True)
    assert predict(tree, Dataset(tree.schema, encode_table(tree.schema, *read_csv_table(f)))).tolist() == ["p", "q", "p", "q"]


@pytest.mark.parametrize("cells, message", [
    ([True, 1], "column 'a' mixes booleans and numbers (True at row 0, 1 at row 1); True == 1 in Python, so make it all booleans or all numbers"),
    ([1, 1.0], "column 'a' holds both 1 (row 0) and 1.0 (row 1), which are one value to puretree; write it one way"),
    (["1", 1], "column 'a' holds both '1' (row 0) and 1 (row 1), which are one value to puretree; write it one way"),
    ([True, "true"], "column 'a' holds both True (row 0) and 'true' (row 1), which are one value to puretree; write it one way"),
])
def test_ambiguous_categorical_columns_are_refused(cells, message):
    rows = [{"a": c} for c in cells]
    with pytest.raises(DataError) as info:
        from_rows(rows, ["p", "q"], categorical=["a"])
    assert str(info.value) == message
    with pytest.raises(DataError) as info:
        from_pandas(pd.DataFrame({"a": pd.Series(cells, dtype=object)}), ["p", "q"], categorical=["a"])
    assert str(info.value) == message


def test_ambiguous_labels_are_refused():
    with pytest.raises(DataError) as info:
        cart(np.zeros((2, 1)), [1, 1.0])
    assert str(info.value) == "the target holds both 1 (row 0) and 1.0 (row 1), which are one value to puretree; write it one way"
    with pytest.raises(DataError, match="the target holds both 'True' .* and True"):
        cart(np.zeros((2, 1)), ["True", True])


def test_a_boolean_for_a_column_of_numbers_is_refused_not_unseen():
    tree = cart([{"a": 1}, {"a": 2}], ["p", "q"], categorical=["a"])
    with pytest.raises(SchemaError) as info:
        predict(tree, [{"a": 2}, {"a": True}])
    assert str(info.value) == "row 1, column 'a': True is a boolean, but the tree learned numbers for this column [1, 2]"
    with pytest.warns(UnseenCategoryWarning, match="column 'a': 1 row"):
        answers = predict(tree, [{"a": "2"}, {"a": 2.0}, {"a": "3"}])
    assert answers.tolist() == ["q", "q", "p"]  # "3": unseen, the root's answer


_CELLS = {
    "flag": st.booleans(),
    "code": st.integers(-3, 3),
    "word": st.sampled_from(["red", "green", "blue"]),
    "size": st.integers(-50, 50).map(lambda v: v / 4),
}


def _csv_text(value):
    return str(value)


@given(
    train=st.lists(st.fixed_dictionaries(_CELLS), min_size=2, max_size=12),
    labels=st.lists(st.sampled_from(["p", "q", "r"]), min_size=12, max_size=12),
    test=st.lists(st.fixed_dictionaries(_CELLS), min_size=1, max_size=8),
    algorithm=st.sampled_from([id3, c45, cart]),
    learn_from=st.sampled_from(["csv", "pandas", "rows"]),
)
def test_one_table_predicted_through_every_path_gives_one_answer(train, labels, test, algorithm, learn_from):
    """A tree learned from any path predicts a table identically from CSV, pandas, mappings and numpy."""
    y = labels[: len(train)]
    with tempfile.TemporaryDirectory() as d:
        if learn_from == "csv":
            path = os.path.join(d, "train.csv")
            with open(path, "w", newline="", encoding="utf-8") as fh:
                w = csv.writer(fh)
                w.writerow([*_CELLS, "label"])
                w.writerows([*(_csv_text(r[c]) for c in _CELLS), t] for r, t in zip(train, y))
            data = read_csv(path, target="label", categorical=["code"])
        elif learn_from == "pandas":
            data = from_pandas(pd.DataFrame(train).astype({"code": object}), y, categorical=["code"])
        else:
            data = from_rows(train, y, categorical=["code"])
        tree = algorithm(data)
        path = os.path.join(d, "test.csv")
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(list(_CELLS))
            w.writerows([_csv_text(r[c]) for c in _CELLS] for r in test)
        names = tree.schema.feature_names
        through = {
            "csv": Dataset(tree.schema, encode_table(tree.schema, *read_csv_table(path))),
            "pandas": pd.DataFrame(test),
            "rows": test,
            "numpy": np.array([[r[n] for n in names] for r in test], dtype=object),
        }
        answers = {k: predict(tree, X, unseen="ignore").tolist() for k, X in through.items()}
        probas = {k: predict_proba(tree, X, unseen="ignore").tolist() for k, X in through.items()}
    assert all(a == answers["rows"] for a in answers.values()), answers
    assert all(p == probas["rows"] for p in probas.values())


# -- library misuse ----------------------------------------------------------------------------

X4 = np.array([[0.0], [1.0], [2.0], [3.0]])
Y4 = ["a", "b", "a", "b"]


@pytest.mark.parametrize("call, error, message", [
    (lambda: cart(X4, Y4, sample_weight=["1", "b", "1", "1"]), DataError, "sample_weight must be one number per row: '1' is not a number"),
    (lambda: cart([[1, 2], [3]], [0, 1]), DataError, "X is ragged: row 1 has 1 value, row 0 has 2 values"),
    (lambda: cart(X4, Y4, sample_weight=[1e308] * 4), DataError, "the sample weights sum to inf, beyond a double's range: scale them down"),
    (lambda: cart(X4, Y4, class_weight={"a": 1e308, "b": 1e308}), DataError,
     "the row weights (sample_weight times class_weight) sum to inf, beyond a double's range: scale them down"),
    (lambda: cart(X4, [2**64, 1, 2**64, 1]), DataError,
     "row 0: the target: the integer 18446744073709551616 is too large: integers must lie within +-2**53 (9007199254740992), which a saved model keeps exactly"),
    (lambda: cart(X4, np.array([2**64 - 1, 1, 1, 1], dtype=np.uint64)), DataError,
     "row 0: the target: the integer 18446744073709551615 is too large: integers must lie within +-2**53 (9007199254740992), which a saved model keeps exactly"),
    (lambda: cart_regressor(X4, [1e200, -1e200, 1.0, 2.0]), DataError,
     "the regression targets are too large: their weighted sum of squares overflows a double (largest |target| 1e+200); scale them down"),
    (lambda: cart(X4, Y4, task="clasification"), ParameterError, "task must be 'classification' or 'regression', got 'clasification'"),
    (lambda: cart(X4, Y4, categorical="x0"), ParameterError, "categorical= takes a list of column names, got the string 'x0' (write ['x0'])"),
    (lambda: cart(np.array([[1 + 2j], [2]]), [0, 1]), DataError, "X holds complex numbers (complex128); a feature is a real number or a category"),
    (lambda: cart([{"a": [1]}, {"a": 2}], [0, 1]), DataError, "row 0, column 'a': [1] is not a str, int, float or bool"),
    (lambda: cart([{"a": 10**400}, {"a": 2}], [0, 1]), DataError,
     "row 0, column 'a': 1000000000000000000000000000000000000... is not a finite number (the column's other cells are numbers)"),
    (lambda: cart(pd.DataFrame({"a": [1, 2]}), [0, 1], feature_names=["b"]), ParameterError,
     "feature_names= is for arrays; a DataFrame or a list of mappings names its own columns"),
])
def test_library_misuse_is_a_puretree_error_naming_what_to_fix(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


@pytest.mark.parametrize("entry", [grow, id3, c45, cart, cart_regressor])
@pytest.mark.parametrize("data", ["array", "dataset"])
def test_an_unknown_keyword_is_refused_everywhere(entry, data):
    X = X4 if data == "array" else from_numpy(X4, [1.0, 2.0, 1.0, 2.0] if entry is cart_regressor else Y4,
                                               task="regression" if entry is cart_regressor else "classification")
    y = None if data == "dataset" else ([1.0, 2.0, 1.0, 2.0] if entry is cart_regressor else Y4)
    with pytest.raises(ParameterError, match=r"^unknown option 'max_dept' \(did you mean 'max_depth'\?\)"):
        entry(X, y, max_dept=1)
    if data == "dataset":
        with pytest.raises(ParameterError, match=r"^categorical= describes raw data; a Dataset already has its schema"):
            entry(X, categorical=["x0"])


@pytest.mark.parametrize("X", [np.zeros((0, 1)), [], pd.DataFrame({"x0": pd.Series([], dtype=float)})])
def test_predicting_no_rows_gives_empty_results_of_the_right_type(X):
    tree = cart(X4, Y4)
    labels = predict(tree, X)
    assert labels.shape == (0,) and labels.dtype == np.array(Y4).dtype
    assert predict_proba(tree, X).shape == (0, 2)
    assert apply(tree, X).shape == (0,) and decision_path(tree, X) == []
    regression = cart_regressor(X4, [1.0, 2.0, 3.0, 4.0])
    values = predict(regression, X)
    assert values.shape == (0,) and values.dtype == np.float64


def test_a_model_with_two_spellings_of_one_category_is_refused():
    from puretree.nodes import Feature, Schema

    schema = Schema((Feature("c", "categorical", (1, "1")),), ("a", "b"))
    with pytest.raises(DataError, match=r"^the tree's categories of column 'c' holds both 1 \(category 0\) and '1' \(category 1\)"):
        encode_features(schema, [{"c": 1}])


# -- the command line: hostile inputs, one line, exit 1 or 2, never "internal error" ------------

TRAIN = "x,c,label\n1,a,p\n2,b,q\n3,a,p\n4,b,q\n"
REGRESSION = "x,c,y\n1,a,1.5\n2,b,2.5\n3,a,3.5\n4,b,9\n"

# (name, {file: text}, argv, exit status, the exact stderr line after "puretree: error: ")
HOSTILE = [
    ("inf in a numeric column", {"f.csv": "x,label\n1,a\n\ninf,b\n3,a\n"}, ["fit", "f.csv", "--target", "label", "-o", "o.json"], 1,
     "f.csv: line 4, column 'x': 'inf' is not a finite number (the column's other cells are numbers)"),
    ("1e999", {"f.csv": "x,label\n1,a\n1e999,b\n"}, ["fit", "f.csv", "--target", "label", "-o", "o.json"], 1,
     "f.csv: line 3, column 'x': '1e999' is not a finite number (the column's other cells are numbers)"),
    ("5,000 digits", {"f.csv": "x,label\n1,a\n" + "9" * 5000 + ",b\n"}, ["fit", "f.csv", "--target", "label", "-o", "o.json"], 1,
     "f.csv: line 3, column 'x': '9999999999999999999999999999999999...' is not a finite number (the column's other cells are numbers)"),
    ("empty target cell", {"f.csv": "x,label\n1,a\n2,\n"}, ["fit", "f.csv", "--target", "label", "-o", "o.json"], 1,
     "f.csv: line 3, column 'label': the target is missing"),
    ("text regression target", {"f.csv": "x,y\n1,1\n2,abc\n"}, ["fit", "f.csv", "--target", "y", "--task", "regression", "-o", "o.json"], 1,
     "f.csv: line 3, column 'y': the regression target 'abc' is not a finite number"),
    ("repeated column", {"f.csv": "x,x,label\n1,2,a\n"}, ["fit", "f.csv", "--target", "label", "-o", "o.json"], 1,
     "f.csv: line 1: duplicate column name 'x' (columns 1 and 2)"),
    ("True and true", {"f.csv": "x,label\nTrue,a\ntrue,b\n"}, ["fit", "f.csv", "--target", "label", "-o", "o.json"], 1,
     "column 'x' holds both 'True' (f.csv: line 2) and 'true' (f.csv: line 3), which are one value to puretree; write it one way"),
    ("max depth 10**23", {}, ["fit", "train.csv", "--target", "label", "--max-depth", "10**23", "-o", "o.json"], 2,
     "fit: argument --max-depth: expected a whole number between 0 and 9223372036854775807, got '10**23'"),
    ("max depth 1e23", {}, ["fit", "train.csv", "--target", "label", "--max-depth", str(10**23), "-o", "o.json"], 2,
     "fit: argument --max-depth: expected a whole number between 0 and 9223372036854775807, got '100000000000000000000000'"),
    ("min gain 1_0", {}, ["fit", "train.csv", "--target", "label", "--min-gain", "1_0", "-o", "o.json"], 2,
     "fit: argument --min-gain: expected a number, got '1_0'"),
    ("seed of 30 digits", {}, ["evaluate", "train.csv", "--cv", "2", "--seed", "9" * 30, "--target", "label"], 2,
     "evaluate: argument --seed: expected a whole number between 0 and 9223372036854775807, got '999999999999999999999999999999'"),
    ("predict: repeated column", {"p.csv": "x,c,x\n1,a,2\n"}, ["predict", "m.json", "p.csv"], 1,
     "p.csv: line 1: duplicate column name 'x' (columns 1 and 3)"),
    ("predict: inf", {"p.csv": "x,c\n1,a\ninf,b\n"}, ["predict", "m.json", "p.csv"], 1, "p.csv: line 3, column 'x': value 'inf' is not finite"),
    ("predict: 1_000", {"p.csv": "x,c\n1_000,a\n"}, ["predict", "m.json", "p.csv"], 1, "p.csv: line 2, column 'x': '1_000' is not a number"),
    ("predict: after a multi-line row", {"p.csv": 'x,c\n1,"a\nb"\n\nzz,a\n'}, ["predict", "m.json", "p.csv"], 1,
     "p.csv: line 5, column 'x': 'zz' is not a number"),
    ("predict: a number for booleans", {"b.csv": "x,flag,label\n1,True,p\n2,False,q\n", "p.csv": "x,flag\n1,1\n"},
     ["predict", "b.json", "p.csv"], 1, "p.csv: line 2, column 'flag': '1' is a number, but the tree learned booleans for this column ['False', 'True']"),
    ("evaluate regression on text labels", {"t.csv": "x,c,y\n1,a,abc\n"}, ["evaluate", "r.json", "t.csv"], 1,
     "t.csv: line 2, column 'y': the true value 'abc' is not a finite number"),
    ("evaluate regression on an empty cell", {"t.csv": "x,c,y\n1,a,\n"}, ["evaluate", "r.json", "t.csv"], 1,
     "t.csv: line 2, column 'y': the true value is missing"),
    ("evaluate: empty true label", {"t.csv": "x,c,label\n1,a,p\n2,b,\n"}, ["evaluate", "m.json", "t.csv"], 1,
     "t.csv: line 3, column 'label': the true label is missing"),
    ("Infinity", {"f.csv": "x,label\n1,a\nInfinity,b\n"}, ["fit", "f.csv", "--target", "label", "-o", "o.json"], 1,
     "f.csv: line 3, column 'x': 'Infinity' is not a finite number (the column's other cells are numbers)"),
    ("-nan", {"f.csv": "x,label\n1,a\n-nan,b\n"}, ["fit", "f.csv", "--target", "label", "-o", "o.json"], 1,
     "f.csv: line 3, column 'x': '-nan' is not a finite number (the column's other cells are numbers)"),
    ("empty regression target", {"f.csv": "x,y\n1,1\n2,\n"}, ["fit", "f.csv", "--target", "y", "--task", "regression", "-o", "o.json"], 1,
     "f.csv: line 3, column 'y': the regression target is missing"),
    ("huge regression targets", {"f.csv": "x,y\n1,1e200\n2,-1e200\n"}, ["fit", "f.csv", "--target", "y", "--task", "regression", "-o", "o.json"], 1,
     "the regression targets are too large: their weighted sum of squares overflows a double (largest |target| 1e+200); scale them down"),
    ("1 and 1.0 as categories", {"f.csv": "x,label\n1,a\n1.0,b\n"}, ["fit", "f.csv", "--target", "label", "--categorical", "x", "-o", "o.json"], 1,
     "column 'x' holds both '1' (f.csv: line 2) and '1.0' (f.csv: line 3), which are one value to puretree; write it one way"),
    ("target named categorical", {}, ["fit", "train.csv", "--target", "label", "--categorical", "label", "-o", "o.json"], 1,
     "train.csv: the target column 'label' cannot be named categorical: class labels are categories already, and categorical names features"),
    ("missing value refused by the strategy", {"f.csv": "x,label\n1,a\n\n,b\n"}, ["fit", "f.csv", "--target", "label", "--missing", "error", "-o", "o.json"], 1,
     "f.csv: line 4, column 'x': missing value (missing='error' refuses them; use 'majority' or 'distribute')"),
    ("min samples leaf of 31 digits", {}, ["fit", "train.csv", "--target", "label", "--min-samples-leaf", "1" + "0" * 30, "-o", "o.json"], 2,
     "fit: argument --min-samples-leaf: expected a whole number between 1 and 9223372036854775807, got '1000000000000000000000000000000'"),
    ("max depth in Arabic-Indic digits", {}, ["fit", "train.csv", "--target", "label", "--max-depth", "\u0663", "-o", "o.json"], 2,
     "fit: argument --max-depth: expected a whole number between 0 and 9223372036854775807, got '\u0663'"),
    ("predict: fullwidth digit", {"p.csv": "x,c\n\uff13,a\n"}, ["predict", "m.json", "p.csv"], 1, "p.csv: line 2, column 'x': '\uff13' is not a number"),
    ("predict: 1e999", {"p.csv": "x,c\n1e999,a\n"}, ["predict", "m.json", "p.csv"], 1, "p.csv: line 2, column 'x': value '1e999' is not finite"),
    ("predict: missing feature column", {"p.csv": "c\na\n"}, ["predict", "m.json", "p.csv"], 1, "p.csv: missing column(s) ['x']; the tree expects ['x', 'c']"),
    ("evaluate regression: inf", {"t.csv": "x,c,y\n1,a,inf\n"}, ["evaluate", "r.json", "t.csv"], 1, "t.csv: line 2, column 'y': the true value 'inf' is not a finite number"),
    ("not UTF-8", {"p.csv": None}, ["predict", "m.json", "p.csv"], 1,
     "p.csv: line 2: not a readable CSV file (not UTF-8 text: invalid continuation byte)"),
    ("NUL byte", {"p.csv": "x,c\n1,a\x00b\n"}, ["predict", "m.json", "p.csv"], 1, "p.csv: line 2: a NUL byte: not a text CSV file"),
]


@pytest.mark.parametrize("name, files, argv, status, message", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_command_lines_get_one_clear_line(tmp_path, monkeypatch, capsys, name, files, argv, status, message):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "train.csv", TRAIN)
    write(tmp_path / "reg.csv", REGRESSION)
    for file, text in files.items():
        if text is None:
            (tmp_path / file).write_bytes(b"x,c\n1,\xe9\n")
        else:
            write(tmp_path / file, text)
    assert main(["fit", "train.csv", "--target", "label", "-o", "m.json"]) == 0
    assert main(["fit", "reg.csv", "--target", "y", "--task", "regression", "-o", "r.json"]) == 0
    if "b.csv" in files:
        assert main(["fit", "b.csv", "--target", "label", "-o", "b.json"]) == 0
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    assert (code, err) == (status, f"puretree: error: {message}\n")


def test_evaluate_compares_labels_as_one_value(tmp_path, monkeypatch, capsys):
    """A model learned from pandas booleans, measured on CSV text in any case: accuracy 1."""
    monkeypatch.chdir(tmp_path)
    df = pd.DataFrame({"flag": [True, False, True, False], "n": [1, 2, 3, 4]})
    save(cart(df, [True, False, True, False]), "m.json")
    write(tmp_path / "e.csv", "flag,n,target\ntrue,1,true\nFalse,2,False\nTRUE,3,True\nfalse,4,false\n")
    assert main(["evaluate", "m.json", "e.csv"]) == 0
    assert "accuracy: 1.0000" in capsys.readouterr().out


def test_puretree_errors_are_the_only_errors_of_bad_calls():
    """Every bad call above raises a PuretreeError (one except clause catches them all)."""
    for bad in (lambda: predict(cart(X4, Y4), "abc"), lambda: predict(cart(X4, Y4), [[1], [2, 3]]), lambda: cart(None, [0])):
        with pytest.raises(PuretreeError):
            bad()


def test_evaluation_compares_labels_by_value():
    from puretree.evaluate import accuracy, confusion_matrix, roc_auc

    assert accuracy([True, False, 1, "a"], ["True", "false", True, "a"]) == 0.75  # True is not 1
    labels, matrix = confusion_matrix([True, "True", 1, "x"], ["true", 1, 1.0, "y"])
    assert labels == (True, 1, "x", "y")
    assert matrix.tolist() == [[1, 1, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]]
    assert roc_auc(["True", True, False, "false"], [0.9, 0.8, 0.1, 0.2]) == 1.0


def test_whitespace_spellings_of_one_value_are_refused_outside_csv():
    with pytest.raises(DataError) as info:
        cart(np.zeros((2, 1)), [" a", "a"])
    assert str(info.value) == "the target holds both ' a' (row 0) and 'a' (row 1), which are one value to puretree; write it one way"
    tree = cart([{"c": "a"}, {"c": "b"}], ["p", "q"])
    assert predict(tree, [{"c": " b "}]).tolist() == ["q"]


@pytest.mark.parametrize("call, message", [
    (lambda t: predict(t, [[{}]]), "row 0, column 'x0': {} is not a number"),
    (lambda t: predict(cart([{"c": "a"}, {"c": "b"}], [0, 1]), [{"c": {}}]), "row 0, column 'c': {} is not a str, int, float or bool"),
    (lambda t: predict(t, (r for r in [[1.0]])), "X must be two-dimensional (rows x features), got a generator"),
    (lambda t: predict(t, np.zeros((1, 1, 1))), "X must be two-dimensional (rows x features), got shape (1, 1, 1)"),
])
def test_bad_rows_to_predict(call, message):
    tree = cart(X4, Y4)
    with pytest.raises(DataError) as info:
        call(tree)
    assert str(info.value) == message


def test_missing_values_refused_by_the_strategy_name_the_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "t.csv", "x,c,label\n1,a,p\n\n2,,q\n")
    with pytest.raises(DataError) as info:
        cart(read_csv("t.csv", target="label"), missing="error")
    assert str(info.value) == "t.csv: line 4, column 'c': missing value (missing='error' refuses them; use 'majority' or 'distribute')"
    write(tmp_path / "one.csv", "x,label\n1,p\n2,q\n3,p\n4,q\n")
    assert main(["fit", "one.csv", "--target", "label", "--algorithm", "cart", "--missing", "error", "-o", "m.json"]) == 0
    write(tmp_path / "p.csv", "x\n1\n\n3\n")
    capsys.readouterr()
    assert main(["predict", "m.json", "p.csv"]) == 1
    assert capsys.readouterr().err == "puretree: error: p.csv: line 3, column 'x': missing value (this tree's missing-value strategy is 'error')\n"


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_float_written_by_python_reads_back_exactly(value):
    """What repr() or csv.writer writes for a float is a plain decimal number, read back exactly."""
    assert parse_number(repr(value)) == value
    assert parse_number(str(value)) == value


@given(st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False))
def test_a_value_and_its_csv_text_have_one_key(value):
    assert category_key(value) == category_key(str(value)) == category_key(np.array([value])[0])
    if isinstance(value, bool):
        assert category_key(value) == category_key(str(value).upper()) and category_key(value) != category_key(int(value))


# Hostile library calls: each raises a PuretreeError whose message names what to fix (the needle).
_T = None


def _tree():
    global _T
    if _T is None:
        _T = cart(X4, Y4)
    return _T


HOSTILE_CALLS = [
    ("ragged rows to predict", lambda: predict(_tree(), [[1], [2, 3]]), "row 1 has 2 values"),
    ("predict a string", lambda: predict(_tree(), "abc"), "got a str"),
    ("predict None", lambda: predict(_tree(), None), "got a NoneType"),
    ("predict a 3-D array", lambda: predict(_tree(), np.zeros((1, 1, 2))), "shape (1, 1, 2)"),
    ("predict inf", lambda: predict(_tree(), [[np.inf]]), "value inf is not finite"),
    ("predict a huge int", lambda: predict(_tree(), [[10**400]]), "is not finite"),
    ("predict a huge int in a mapping", lambda: predict(_tree(), [{"x0": 10**400}]), "is not finite"),
    ("predict missing column", lambda: predict(_tree(), pd.DataFrame({"q": [1]})), "missing column(s) ['x0']"),
    ("predict too many columns", lambda: predict(_tree(), np.zeros((1, 3))), "X has 3 columns, the tree expects 1"),
    ("predict another schema's dataset", lambda: predict(_tree(), from_numpy(np.zeros((1, 1)), feature_names=["z"])), "the tree expects ['x0']"),
    ("predict_proba of a regression tree", lambda: predict_proba(cart_regressor(X4, [1.0, 2.0, 3.0, 4.0]), X4), "needs a classification tree"),
    ("predict a non-mapping row after a mapping", lambda: predict(_tree(), [{"x0": 1}, [1]]), "row 1 is a list"),
    ("fit a category inf", lambda: cart([{"a": "x"}, {"a": np.inf}], [0, 1]), "inf is not finite"),
    ("fit a dict cell", lambda: cart([{"a": {}}, {"a": "x"}], [0, 1]), "{} is not a str, int, float or bool"),
    ("fit bytes", lambda: cart(np.array([[b"a"], [b"b"]]), [0, 1]), "b'a' is not a str, int, float or bool"),
    ("fit datetimes", lambda: cart(pd.DataFrame({"d": pd.to_datetime(["2020-01-01", "2021-01-01"])}), [0, 1]), "Timestamp"),
    ("fit a string X", lambda: cart("abc", [0]), "got a str"),
    ("fit a 3-D X", lambda: cart(np.zeros((2, 2, 2)), [0, 1]), "shape (2, 2, 2)"),
    ("fit too few labels", lambda: cart(X4, [0, 1]), "the target has 2 values but X has 4 rows"),
    ("fit 2-D labels", lambda: cart(X4, [[0], [1], [0], [1]]), "[0] is not a str, int, float or bool"),
    ("fit without labels", lambda: cart(X4), "no target"),
    ("fit a None label", lambda: cart(np.zeros((2, 1)), ["a", None]), "row 1: the target is missing"),
    ("fit a pd.NA label", lambda: cart(np.zeros((2, 1)), pd.array([1, None], dtype="Int64")), "row 1: the target is missing"),
    ("fit no rows", lambda: cart(np.zeros((0, 1)), []), "X has no rows"),
    ("fit booleans and ints as labels", lambda: cart(np.zeros((2, 1)), [True, 2]), "mixes booleans and integers"),
    ("min_samples_leaf as text", lambda: cart(X4, Y4, min_samples_leaf="2"), "min_samples_leaf must be a finite number >= 0, got '2'"),
    ("max_depth 2.5", lambda: cart(X4, Y4, max_depth=2.5), "max_depth must be an integer >= 0 or None, got 2.5"),
    ("unknown missing strategy", lambda: cart(X4, Y4, missing="nope"), "missing must be one of"),
    ("unknown criterion", lambda: cart(X4, Y4, score="nope"), "unknown criterion 'nope'"),
    ("a number as a criterion", lambda: cart(X4, Y4, score=3), "a score must be callable or a name, got 3"),
    ("class_weight as a list", lambda: cart(X4, Y4, class_weight=[1, 2]), "class_weight must be a mapping or 'balanced'"),
    ("class_weight of an unknown class", lambda: cart(X4, Y4, class_weight={"z": 1}), "class_weight names the class 'z'"),
    ("class_weight nan", lambda: cart(X4, Y4, class_weight={"a": float("nan")}), "class_weight for 'a' must be a finite number >= 0"),
    ("2-D sample weights", lambda: cart(X4, Y4, sample_weight=np.ones((2, 2))), "sample_weight must be one-dimensional"),
    ("negative weight", lambda: cart(X4, Y4, sample_weight=[-1, 1, 1, 1]), "row 0: sample weight -1.0 is negative or not finite"),
    ("a scalar weight", lambda: cart(X4, Y4, sample_weight=1.0), "sample_weight must be a sequence"),
    ("all-zero weights", lambda: cart(X4, Y4, sample_weight=[0, 0, 0, 0]), "every sample weight is zero"),
    ("text weights in a Series", lambda: cart(X4, Y4, sample_weight=pd.Series(["1", "2", "1", "1"])), "'1' is not a number"),
    ("too few weights", lambda: cart(X4, Y4, sample_weight=[1]), "sample_weight has 1 values but the data has 4 rows"),
    ("too many feature names", lambda: cart(X4, Y4, feature_names=["a", "b"]), "2 feature names for 1 columns"),
    ("repeated feature names", lambda: cart(np.zeros((2, 2)), [0, 1], feature_names=["a", "a"]), "duplicate column name 'a'"),
    ("mixed key types naming one column", lambda: cart([{1: 1.0, "1": 2.0}, {1: 2.0, "1": 1.0}], [0, 1]), "duplicate column name '1'"),
    ("regression on text", lambda: cart_regressor(X4, ["a", "b", "c", "d"]), "row 0: the regression target 'a' is not a finite number"),
    ("regression on booleans", lambda: cart_regressor(np.zeros((2, 1)), [True, False]), "the regression target True is not a finite number"),
    ("regression on inf", lambda: cart_regressor(X4, [1, 2, np.inf, 3]), "row 2: the regression target inf"),
    ("regression on 1_0", lambda: cart_regressor(np.zeros((2, 1)), ["1_0", "2"]), "'1_0' is not a finite number"),
    ("class_weight for regression", lambda: cart_regressor(X4, [1.0, 2.0, 3.0, 4.0], class_weight="balanced"), "class_weight needs class labels"),
    ("attribute_scores without labels", lambda: __import__("puretree.grow", fromlist=["g"]).attribute_scores(X4), "no target"),
    ("accuracy of scalars", lambda: __import__("puretree.evaluate", fromlist=["e"]).accuracy(1, 1), "must be a sequence of labels, got int"),
    ("accuracy of 2-D labels", lambda: __import__("puretree.evaluate", fromlist=["e"]).accuracy([[1, 2]], [[1, 2]]), "one-dimensional"),
    ("roc_auc of text scores", lambda: __import__("puretree.evaluate", fromlist=["e"]).roc_auc(["a", "b"], ["x", "y"]), "the scores must be numbers"),
    ("cross_validate with more folds than rows", lambda: __import__("puretree.evaluate", fromlist=["e"]).cross_validate(cart, X4, Y4, k=5), "cannot make 5 folds from 4 rows"),
]


@pytest.mark.parametrize("name, call, needle", HOSTILE_CALLS, ids=[h[0] for h in HOSTILE_CALLS])
def test_hostile_library_calls_raise_a_puretree_error_naming_the_fix(name, call, needle):
    with pytest.raises(PuretreeError) as info:
        call()
    assert needle in str(info.value), str(info.value)


def test_target_named_twice_is_refused(tmp_path):
    f = write(tmp_path / "t.csv", "x,label\n1,a\n2,b\n")
    with pytest.raises(DataError) as info:
        read_csv(f, target="label", categorical=["label"])
    assert str(info.value) == f"{f}: the target column 'label' cannot be named categorical: class labels are categories already, and categorical names features"
    with pytest.raises(DataError, match=r"^y given twice: as y and as the target column 'label'$"):
        from_pandas(pd.DataFrame({"x": [1, 2], "label": ["a", "b"]}), ["a", "b"], target="label")


_CSV_PIECES = st.sampled_from(["x", "label", ",", ",", "\n", "\n", "\r\n", '"', "1", "2.5", "-3", "inf", "1e999", "nan", "?", "NA", "",
                               "True", "true", "1_0", "\u0663", " ", "a", "b", "\x00", "\ufeff", "9" * 50])


@given(st.lists(_CSV_PIECES, max_size=40).map("".join), st.sampled_from([None, "x", "label"]), st.sampled_from(["classification", "regression"]))
def test_any_csv_text_reads_or_gets_a_data_error(text, target, task):
    """Whatever a CSV file holds, reading it (for training or for prediction) either works or
    raises a PuretreeError; never another exception."""
    tree = cart(from_numpy(np.array([[1.0], [2.0]]), ["p", "q"], feature_names=["x"]))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "f.csv")
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        try:
            ds = read_csv(path, target=target, task=task)
            assert np.isfinite(ds.X[~np.isnan(ds.X)]).all()
        except PuretreeError:
            pass
        try:
            X = encode_table(tree.schema, *read_csv_table(path))
            assert len(predict(tree, Dataset(tree.schema, X))) == X.shape[0]
        except PuretreeError:
            pass


_HOSTILE_CELLS = st.sampled_from([
    None, float("nan"), float("inf"), -float("inf"), 10**400, 2**64, True, False, 0, 1, 1.0, -0.0, 5e-324, 1e308, "1", "1.0", "true",
    "inf", "1_000", "\u0663", "", " ", "?", "a", " a", b"a", [1], {}, 1 + 2j, np.int64(3), np.float32(2.5), np.bool_(True),
    np.str_("a"), pd.NA, pd.NaT,
])


@given(st.lists(st.tuples(_HOSTILE_CELLS, _HOSTILE_CELLS), min_size=1, max_size=6), st.lists(_HOSTILE_CELLS, min_size=6, max_size=6),
       st.sampled_from([None, ["a"], ["b"]]))
def test_any_cells_fit_and_predict_or_get_a_puretree_error(cells, labels, categorical):
    rows = [{"a": a, "b": b} for a, b in cells]
    y = labels[: len(rows)]
    try:
        tree = cart(rows, y, categorical=categorical)
    except PuretreeError:
        return
    for X in (rows, pd.DataFrame(rows)):
        try:
            assert len(predict(tree, X)) == len(rows)
        except PuretreeError:
            pass


def test_a_field_longer_than_the_csv_modules_default_limit_is_read(tmp_path):
    # csv refuses fields over 131,072 characters by default; the file is in memory anyway.
    (tmp_path / "big.csv").write_text("x,c,label\n1," + "a" * 200_000 + ",p\n2,b,q\n", encoding="utf-8")
    ds = read_csv(tmp_path / "big.csv", target="label")
    assert ds.schema.features[1].categories == ("a" * 200_000, "b")
