"""Encoding data: CSV, numpy, pandas, mappings; kinds, categories, labels and errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from puretree.data import Dataset, as_dataset, encode_features, encode_labels, encode_table, from_numpy, from_pandas, from_rows, is_missing, read_csv, read_csv_table
from puretree.datasets import NAMES, load, load_mammals, load_playtennis, path
from puretree.errors import DataError, SchemaError
from puretree.nodes import Feature, Schema


def test_shipped_datasets():
    assert NAMES == ("playtennis", "buys_computer", "temperature", "mammals_train", "mammals_test", "mammals_5", "mammals_8")
    ds = load_playtennis()
    assert ds.n_rows == 14 and ds.schema.target == "play"
    assert "day" not in ds.schema.feature_names  # the identifier is dropped
    train, test = load_mammals()
    assert train.schema.target == test.schema.target == "mammal"
    for name in NAMES:
        assert load(name).n_rows > 0
        assert str(path(name)).endswith(".csv")
    with pytest.raises(DataError, match="'iris'"):
        path("iris")


def test_read_csv_kinds_and_missing_tokens(tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("a,b,c,label\n1, x ,?,yes\n2.5,y,3,no\n,x,4,yes\n", encoding="utf-8")
    ds = read_csv(f, target="label")
    assert [(x.name, x.kind, x.categories) for x in ds.schema.features] == [("a", "numeric", ()), ("b", "categorical", ("x", "y")), ("c", "numeric", ())]
    assert np.isnan(ds.X[2, 0]) and np.isnan(ds.X[0, 2])
    assert ds.X[:, 1].tolist() == [0.0, 1.0, 0.0]  # cells are stripped
    assert ds.labels().tolist() == ["yes", "no", "yes"]
    ds = read_csv(f, target="label", categorical=["c"], ignore=["a"])
    assert ds.schema.feature_names == ("b", "c") and ds.schema.features[1].categories == ("3", "4")


def test_read_csv_errors(tmp_path):
    with pytest.raises(DataError, match="nothere.csv: no such file"):
        read_csv(tmp_path / "nothere.csv")
    (tmp_path / "e.csv").write_text("")
    with pytest.raises(DataError, match="e.csv: the file is empty"):
        read_csv_table(tmp_path / "e.csv")
    (tmp_path / "h.csv").write_text("a,b\n")
    with pytest.raises(DataError, match="header but no data rows"):
        read_csv_table(tmp_path / "h.csv")
    (tmp_path / "r.csv").write_text("a,b\n1,2\n1,2,3\n")
    with pytest.raises(DataError, match="line 3 has 3 cells, the header has 2"):
        read_csv_table(tmp_path / "r.csv")
    (tmp_path / "d.csv").write_text("a,a\n1,2\n")
    with pytest.raises(DataError, match="duplicate column name 'a'"):
        read_csv(tmp_path / "d.csv")
    (tmp_path / "ok.csv").write_text("a,b\n1,2\n")
    with pytest.raises(DataError, match="unknown target column 'z'"):
        read_csv(tmp_path / "ok.csv", target="z")
    with pytest.raises(DataError, match="cannot ignore unknown column 'q'"):
        read_csv(tmp_path / "ok.csv", target="b", ignore=["q"])
    (tmp_path / "m.csv").write_text("a,b\n1,\n")
    with pytest.raises(DataError, match="m.csv: line 2, column 'b': the target is missing"):
        read_csv(tmp_path / "m.csv", target="b")
    (tmp_path / "bin.csv").write_bytes(b"a,b\n\xff\xfe,1\n")
    with pytest.raises(DataError, match="bin.csv"):
        read_csv(tmp_path / "bin.csv")
    with pytest.raises(DataError, match="directory"):
        read_csv(tmp_path)


def test_from_numpy():
    ds = from_numpy(np.array([[1, 2], [3, 4]], dtype=np.int16), ["a", "b"])
    assert ds.X.dtype == np.float64 and ds.schema.feature_names == ("x0", "x1")
    ds = from_numpy(np.array([[1.0, "u"], [2.0, "v"]], dtype=object), [0, 1], feature_names=["n", "c"])
    assert [f.kind for f in ds.schema.features] == ["numeric", "categorical"]
    ds = from_numpy(np.array([[1], [2]]), [0, 1], categorical=["x0"])
    assert ds.schema.features[0].categories == (1, 2)
    with pytest.raises(DataError, match="two-dimensional"):
        from_numpy(np.array([1.0, 2.0]), [0, 1])
    with pytest.raises(DataError, match="no rows"):
        from_numpy(np.zeros((0, 2)), [])
    with pytest.raises(DataError, match="3 feature names for 2 columns"):
        from_numpy(np.zeros((1, 2)), [0], feature_names=["a", "b", "c"])
    with pytest.raises(DataError, match="row 0, column 'x1': value inf"):
        from_numpy(np.array([[0.0, np.inf]]), [0])
    with pytest.raises(DataError, match="boolean"):
        from_numpy(np.array([[True], [False]]), [0, 1])


def test_from_pandas():
    df = pd.DataFrame({"n": [1, 2], "f": [0.5, np.nan], "s": ["a", None], "b": [True, False], "y": ["p", "q"]})
    ds = from_pandas(df, target="y")
    kinds = {f.name: (f.kind, f.categories) for f in ds.schema.features}
    assert kinds == {"n": ("numeric", ()), "f": ("numeric", ()), "s": ("categorical", ("a",)), "b": ("categorical", (False, True))}
    assert np.isnan(ds.X[1, 1]) and np.isnan(ds.X[1, 2])
    assert ds.schema.target == "y"
    with pytest.raises(DataError, match="unknown target column 'label'"):
        from_pandas(df, target="label")
    assert from_pandas(df.drop(columns="y"), df["y"]).schema.target == "y"  # the Series' name


def test_from_rows():
    ds = from_rows([{"a": 1, "b": "x"}, {"b": "y", "a": 2}], ["p", "q"])
    assert ds.schema.feature_names == ("a", "b")
    with pytest.raises(DataError, match="row 1 has columns"):
        from_rows([{"a": 1}, {"b": 2}], [0, 1])
    with pytest.raises(DataError, match="no rows"):
        from_rows([], [])


def test_labels():
    assert encode_labels(["b", "a", "b"])[0] == ("a", "b")
    assert encode_labels([2, 10, 2])[0] == (2, 10)  # numbers sort as numbers
    assert encode_labels(np.array([True, False]))[0] == (False, True)
    assert encode_labels(pd.Series([1.5, 0.5]))[0] == (0.5, 1.5)
    with pytest.raises(DataError, match="mixes booleans and integers"):
        encode_labels([1, True])
    with pytest.raises(DataError, match="row 2: the target is missing"):
        encode_labels(["a", "b", None])
    with pytest.raises(DataError, match="row 0: the target"):
        encode_labels([[1, 2]])
    with pytest.raises(DataError, match="one-dimensional"):
        encode_labels(np.zeros((2, 2)))
    with pytest.raises(DataError, match="sequence of labels"):
        encode_labels("abc")


def test_is_missing():
    assert [is_missing(v) for v in (None, float("nan"), np.nan, "", " ", "?", "NA", "nan")] == [True] * 8
    assert [is_missing(v) for v in (0, 0.0, False, "no", "N/A ")] == [False] * 5


def test_encode_features_under_a_schema():
    schema = Schema((Feature("a"), Feature("c", "categorical", ("x", "y"))), ("n", "p"))
    assert encode_features(schema, {"a": 1, "c": "y"}).tolist() == [[1.0, 1.0]]
    assert encode_features(schema, [{"c": "zz", "a": "2"}]).tolist() == [[2.0, -1.0]]
    assert np.isnan(encode_features(schema, [{"a": None, "c": None}])).all()
    assert encode_features(schema, pd.DataFrame({"c": ["x"], "a": [3], "extra": [0]})).tolist() == [[3.0, 0.0]]
    assert encode_table(schema, [" c ", "a"], [[" x ", " 4 "]]).tolist() == [[4.0, 0.0]]
    with pytest.raises(SchemaError, match=r"missing column\(s\) \['c'\]"):
        encode_table(schema, ["a"], [["1"]])
    with pytest.raises(DataError, match="row 0, column 'a': 'one' is not a number"):
        encode_features(schema, {"a": "one", "c": "x"})
    with pytest.raises(SchemaError, match="3 columns"):
        encode_features(schema, np.zeros((1, 3)))
    ds = Dataset(schema, np.array([[5.0, 1.0]]))
    assert encode_features(schema, ds) is ds.X  # same schema: already encoded
    other = Schema((Feature("a"), Feature("c", "categorical", ("w", "x", "y"))), ("n", "p"))
    assert encode_features(other, ds).tolist() == [[5.0, 2.0]]  # re-encoded by category value


def test_as_dataset_dispatch_and_weights():
    ds = load_playtennis()
    assert as_dataset(ds) is ds
    with pytest.raises(DataError, match="y given twice"):
        as_dataset(ds, [0] * 14)
    assert as_dataset(ds, sample_weight=[2.0] * 14).sample_weight.tolist() == [2.0] * 14
    with pytest.raises(DataError, match="14 rows"):
        as_dataset(ds, sample_weight=[1.0])
    with pytest.raises(DataError, match="row 0: sample weight nan"):
        as_dataset(ds, sample_weight=[np.nan] + [1.0] * 13)
    assert isinstance(as_dataset(pd.DataFrame({"a": [1]}), [0]), Dataset)
    assert isinstance(as_dataset([{"a": 1}], [0]), Dataset)
    assert isinstance(as_dataset([[1.0]], [0]), Dataset)


def test_inputs_are_not_modified():
    X = np.array([[1.0, np.nan], [2.0, 3.0]])
    X.flags.writeable = False  # any write would raise
    y = np.array(["a", "b"])
    y.flags.writeable = False
    ds = from_numpy(X, y)
    assert ds.X is not X
    ds.X[0, 0] = 99.0
    assert X[0, 0] == 1.0


def test_pandas_nullable_dtypes_are_missing_not_errors():
    df = pd.DataFrame({"a": pd.array([1, None, 3, 4], dtype="Int64"), "s": pd.array(["u", None, "v", "u"], dtype="string")})
    ds = from_pandas(df, ["x", "y", "x", "y"])
    assert [f.kind for f in ds.schema.features] == ["numeric", "categorical"]
    assert ds.schema.features[1].categories == ("u", "v")
    assert np.isnan(ds.X[1]).all()
    encoded = encode_features(ds.schema, df)
    assert np.isnan(encoded[1]).all() and encoded[[0, 2, 3]].tolist() == [[1.0, 0.0], [3.0, 1.0], [4.0, 0.0]]
    assert is_missing(pd.NA) and is_missing(pd.NaT)
