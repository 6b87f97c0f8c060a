"""DataFrames encoded column by column (numbers as arrays, categories through codes) mean
cell for cell what the per-cell path made of them (issue 26)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puretree.data import _stack, build_dataset, encode_features, from_pandas
from puretree.errors import PuretreeError
from puretree.nodes import Feature, Schema

TEXT = st.sampled_from(["a", "b", " a", "B", "?", "", "NA", "1", "1.0", "true", "True", " 2 ", "x_y", "inf"])
OBJECT_CELL = st.one_of(TEXT, st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([1.0, 2.5, float("nan"), -0.0]))


@st.composite
def columns(draw, n):
    """A pandas column of ``n`` rows, of one of the dtypes users pass."""
    kind = draw(st.sampled_from(["float", "int", "Int64", "bool", "category", "category_int", "object_text", "object_mixed", "string", "float_inf"]))
    if kind == "float":
        return pd.Series(draw(st.lists(st.sampled_from([0.5, -1.0, 2.0, float("nan"), -0.0, 1e300]), min_size=n, max_size=n)), dtype=np.float64)
    if kind == "float_inf":
        return pd.Series(draw(st.lists(st.sampled_from([0.5, float("inf"), float("nan")]), min_size=n, max_size=n)), dtype=np.float64)
    if kind == "int":
        return pd.Series(draw(st.lists(st.integers(-(2**60), 2**60), min_size=n, max_size=n)), dtype=np.int64)
    if kind == "Int64":
        return pd.Series(pd.array(draw(st.lists(st.one_of(st.none(), st.integers(-5, 5)), min_size=n, max_size=n)), dtype="Int64"))
    if kind == "bool":
        return pd.Series(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    if kind == "category":
        return pd.Series(draw(st.lists(st.one_of(st.none(), TEXT), min_size=n, max_size=n)), dtype="category")
    if kind == "category_int":
        return pd.Series(draw(st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=n, max_size=n)), dtype="category")
    if kind == "object_text":
        return pd.Series(draw(st.lists(st.one_of(st.none(), TEXT), min_size=n, max_size=n)), dtype=object)
    if kind == "string":
        return pd.Series(draw(st.lists(st.one_of(st.none(), TEXT), min_size=n, max_size=n)), dtype="string")
    return pd.Series(draw(st.lists(OBJECT_CELL, min_size=n, max_size=n)), dtype=object)


@st.composite
def frames(draw):
    n = draw(st.integers(1, 8))
    k = draw(st.integers(1, 3))
    return pd.DataFrame({f"c{j}": draw(columns(n)) for j in range(k)})


def _outcome(make):
    """The encoded result, or the error's type and the row and column it names: the two paths
    must agree on both (the value itself may be shown as the column's dtype writes it: a
    category 0 of a column with missing cells was the float 0.0 cell by cell)."""
    try:
        return ("ok", make())
    except PuretreeError as exc:
        return ("error", type(exc).__name__, str(exc).split(": ")[0])


def _same(a, b):
    if a[0] != b[0] or a[0] == "error":
        return a == b
    return np.array_equal(a[1], b[1], equal_nan=True)


def _reference_fit(df, y):
    """Yesterday's from_pandas: every cell through the per-cell encoders."""
    names = [str(c) for c in df.columns]
    cat = {n for n, c in zip(names, df.columns) if df[c].dtype.kind not in "iuf"}
    numeric = set(names) - cat
    cells = [df[c].to_numpy(dtype=object).tolist() if str(c) in cat else df[c].to_numpy(dtype=np.float64).tolist() for c in df.columns]
    return build_dataset(names, cells, y, categorical=cat, numeric=numeric, target="target", task="classification")


def _reference_encode(schema, df):
    return _stack(schema, [df[n].to_numpy(dtype=object).tolist() for n in schema.feature_names], len(df))


@settings(max_examples=300, deadline=None)
@given(frames())
def test_fitting_a_frame_means_what_the_per_cell_path_meant(df):
    y = np.arange(len(df)) % 2
    new = _outcome(lambda: from_pandas(df, y))
    old = _outcome(lambda: _reference_fit(df, y))
    assert new[0] == old[0] and (new[0] == "error" and new == old or new[0] == "ok" and new[1].schema == old[1].schema)
    if new[0] == "ok":
        assert np.array_equal(new[1].X, old[1].X, equal_nan=True)


@settings(max_examples=300, deadline=None)
@given(frames(), st.data())
def test_predicting_a_frame_means_what_the_per_cell_path_meant(df, data):
    # A schema the frame's columns may or may not fit: numeric, or categories of text,
    # numbers or booleans (a clash of booleans and numbers is an error on both paths).
    features = []
    for name in df.columns:
        kind = data.draw(st.sampled_from(["numeric", "text", "numbers", "booleans"]))
        categories = {"numeric": (), "text": ("B", "a", "b"), "numbers": (1, 2.5), "booleans": (False, True)}[kind]
        features.append(Feature(name, "numeric" if kind == "numeric" else "categorical", categories))
    schema = Schema(tuple(features), ("n", "y"))
    new = _outcome(lambda: encode_features(schema, df))
    old = _outcome(lambda: _reference_encode(schema, df))
    assert _same(new, old), (new, old)


def test_a_category_frame_is_encoded_through_its_codes_not_cell_by_cell(monkeypatch):
    # 1,000 rows of 3 categories: the per-cell rules run once per category, not once per row.
    import puretree.data as data

    # Yesterday every cell went through is_missing (and each number through _number_cell).
    calls = []
    for name in ("is_missing", "_number_cell", "category_key"):
        real = getattr(data, name)
        monkeypatch.setattr(data, name, lambda v, real=real: calls.append(v) or real(v))
    df = pd.DataFrame({"c": pd.Series(["x", "y", "z"] * 334, dtype="category")[:1000], "v": np.arange(1000.0)})
    schema = Schema((Feature("c", "categorical", ("x", "y")), Feature("v")), ("n",))
    out = encode_features(schema, df)
    assert out[:4, 0].tolist() == [0.0, 1.0, -1.0, 0.0] and out[:, 1].tolist() == list(range(1000))
    assert len(calls) < 20


def test_encoding_a_frame_never_writes_into_it():
    df = pd.DataFrame({"v": np.array([1.0, np.nan, 3.0])})
    out = encode_features(Schema((Feature("v"),), ("n",)), df)
    out[:] = 7.0
    assert df["v"].tolist()[0] == 1.0 and np.isnan(df["v"].tolist()[1])


@pytest.mark.parametrize("dtype", ["category", object, "string"])
def test_an_error_in_a_coded_column_names_the_first_row_holding_the_value(dtype):
    df = pd.DataFrame({"c": pd.Series(["x", "x", True if dtype is object else "y", "1"], dtype=dtype)})
    new = _outcome(lambda: encode_features(Schema((Feature("c"),), ("n",)), df))
    assert new == ("error", "DataError", "row 0, column 'c'")


NUMBER = st.sampled_from([0.0, -0.0, 1.0, 2.5, 3.0, float("nan"), float("inf"), 2.0**60])


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 8).flatmap(lambda n: st.lists(st.lists(NUMBER, min_size=3, max_size=3), min_size=n, max_size=n)), st.sets(st.sampled_from(["x0", "x1", "x2"]), min_size=1), st.sampled_from([np.float64, np.int64]))
def test_a_numeric_array_with_categorical_columns_means_what_the_per_cell_path_meant(rows, categorical, dtype):
    from puretree.data import from_numpy

    arr = np.array(rows, dtype=np.float64)
    if dtype is np.int64:
        arr = np.nan_to_num(arr, nan=7.0, posinf=9.0).astype(np.int64)
    y = np.arange(len(arr)) % 2
    names = ["x0", "x1", "x2"]
    new = _outcome(lambda: from_numpy(arr, y, categorical=categorical))
    old = _outcome(lambda: build_dataset(names, [list(arr[:, j]) for j in range(3)], y, categorical=categorical, target="target", task="classification"))
    assert new[0] == old[0] and (new == old if new[0] == "error" else new[1].schema == old[1].schema)
    if new[0] == "ok":
        assert np.array_equal(new[1].X, old[1].X, equal_nan=True)
        assert [[repr(c) for c in f.categories] for f in new[1].schema.features] == [[repr(c) for c in f.categories] for f in old[1].schema.features]
        schema = new[1].schema
        again = _outcome(lambda: encode_features(schema, arr[::-1]))
        cells = _outcome(lambda: _stack(schema, [arr[::-1][:, j].tolist() for j in range(3)], len(arr)))
        assert _same(again, cells), (again, cells)


def test_fitting_a_category_frame_names_no_row_unless_it_refuses_one(monkeypatch):
    # Naming a row of a coded column costs a pass over its rows (the first row of each distinct
    # value): yesterday every category of every column paid it for an error message never shown.
    import puretree.data as data

    named = []
    real = data._Coded.where
    monkeypatch.setattr(data._Coded, "where", lambda self, where: (lambda i, name=real(self, where): named.append(i) or name(i)))
    df = pd.DataFrame({"c": pd.Categorical([2, 0, 1, 0]), "t": pd.Series(["a", "b", "a", "b"], dtype=object), "v": [1.0, 2.0, 3.0, 4.0]})
    ds = from_pandas(df, pd.Series(["n", "y", "n", "y"], dtype=object).astype("category"))
    assert [f.categories for f in ds.schema.features] == [(0, 1, 2), ("a", "b"), ()] and named == []
    # An error still names the first row holding the value.
    bad = pd.DataFrame({"c": pd.Series(["a", 2**60, "a"], dtype=object)})
    with pytest.raises(PuretreeError, match=r"row 1, column 'c': the category: the integer 1152921504606846976 is too large"):
        from_pandas(bad, [0, 1, 0])
