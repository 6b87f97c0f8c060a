"""Data formats: ARFF with its declared types, Parquet, JSON lines, CSV with a separator or on
standard input; one table read from any of them is the same dataset; mistyped column names
are answered with the closest one."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import arff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puretree.cli import main
from puretree.data import encode_features, read_csv
from puretree.errors import DataError, ParameterError, SchemaError
from puretree.io.formats import format_of, read_arff, read_data, read_table
from puretree.grow import c45
from puretree.io import load
from puretree.predict import predict

WEATHER = """% Quinlan's weather, as Weka writes it
@relation 'weather numeric'

@attribute outlook {sunny, overcast, rainy}
@attribute 'temp' real
@attribute humidity INTEGER   % a comment after a declaration, as Weka allows
@attribute grade {1,2,3}
@attribute note string
@attribute play {yes, no}

@data
sunny,85,85,1,'hot day',no
sunny,80,90,2,?,no
% a comment between rows
overcast,83,86,3,x,yes
rainy,70,?,1,y,yes

rainy,68,80,2,x,yes
rainy,65,70,3,y,no
overcast,64,65,1,x,yes
sunny,72,95,2,y,no
"""


@pytest.fixture
def weather(tmp_path):
    path = tmp_path / "weather.arff"
    path.write_text(WEATHER, encoding="utf-8")
    return path


def kinds(ds):
    return {f.name: (f.kind, f.categories) for f in ds.schema.features}


# -- ARFF ---------------------------------------------------------------------------------------


def test_arff_keeps_its_declared_types(weather):
    ds = read_arff(weather)
    assert ds.schema.target == "play" and ds.schema.classes == ("no", "yes")  # the last attribute
    assert kinds(ds) == {
        "outlook": ("categorical", ("overcast", "rainy", "sunny")),
        "temp": ("numeric", ()),
        "humidity": ("numeric", ()),
        "grade": ("categorical", ("1", "2", "3")),  # nominal numbers stay categories
        "note": ("categorical", ("hot day", "x", "y")),
    }
    assert math.isnan(ds.X[3, 2]) and math.isnan(ds.X[1, 4])  # ? is missing
    assert ds.X[:, 1].tolist() == [85, 80, 83, 70, 68, 65, 64, 72]
    # rows are named by their line in the file (comments and blank lines counted)
    assert [ds.row_name(i).rsplit(": ", 1)[1] for i in (0, 2, 4)] == ["line 12", "line 15", "line 18"]


def test_arff_target_ignore_and_categorical_options(weather):
    ds = read_arff(weather, target="outlook", ignore=["note"], categorical=["temp"])
    assert ds.schema.target == "outlook" and ds.schema.classes == ("overcast", "rainy", "sunny")
    assert [f.name for f in ds.schema.features] == ["temp", "humidity", "grade", "play"]
    assert ds.schema.features[0].kind == "categorical"
    with pytest.raises(DataError, match="unknown target column 'paly' \\(did you mean 'play'\\?\\)"):
        read_arff(weather, target="paly")


def test_arff_grows_the_tree_a_csv_with_the_same_kinds_grows(weather, tmp_path):
    decoded = arff.loads(WEATHER.replace("% a comment after a declaration, as Weka allows", ""))
    csv_path = tmp_path / "weather.csv"
    lines = [",".join(n for n, _ in decoded["attributes"])]
    lines += [",".join("?" if v is None else str(v) for v in row) for row in decoded["data"]]
    csv_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    from_csv = read_csv(csv_path, target="play", categorical=["grade"])
    from_arff = read_arff(weather)
    np.testing.assert_array_equal(from_arff.X, from_csv.X)
    assert c45(from_arff, min_samples_leaf=1) == c45(from_csv, min_samples_leaf=1)


@pytest.mark.parametrize(
    "text, message",
    [
        ("@relation r\n@attribute a {x,y}\n@attribute c {p,q}\n@data\nx,p\nz,q\n", "line 6: not a readable ARFF file \\(Data value z not found"),
        ("@relation r\n@attribute a numeric\n@attribute c {p,q}\n@data\nabc,p\n", "line 5: not a readable ARFF file \\(Invalid numerical value"),
        ("@relation r\n@attribute a numeric\n@attribute c {p,q}\n@data\n1,p,3\n", "line 5: not a readable ARFF file"),
        ("@relation r\n@attribute a date\n@attribute c {p,q}\n@data\n", "line 2: not a readable ARFF file \\(Bad @ATTRIBUTE type; puretree reads numeric, real, integer, nominal and string attributes\\)"),
        ("a,b\n1,2\n", "line 1: not a readable ARFF file \\(it starts with 'a,b', not with @relation"),
        ("@relation r\n@attribute a numeric\n@attribute c {p,q}\n@data\n", "the file declares its attributes but has no data rows"),
    ],
)
def test_bad_arff_files_are_named_by_line(tmp_path, text, message):
    path = tmp_path / "bad.arff"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError, match=f"bad.arff: {message}"):
        read_arff(path)


# -- one table, every format --------------------------------------------------------------------

cells = st.one_of(st.none(), st.integers(-5, 5).map(float), st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: round(x, 3)))


@st.composite
def tables(draw):
    n = draw(st.integers(2, 12))
    numbers = draw(st.lists(cells, min_size=n, max_size=n).filter(lambda c: any(v is not None for v in c)))
    grades = draw(st.lists(st.one_of(st.none(), st.sampled_from(["1", "2", "3"])), min_size=n, max_size=n).filter(lambda c: any(v is not None for v in c)))
    words = draw(st.lists(st.one_of(st.none(), st.sampled_from(["red", "green", "dark blue"])), min_size=n, max_size=n).filter(lambda c: any(v is not None for v in c)))
    labels = draw(st.lists(st.sampled_from(["yes", "no"]), min_size=n, max_size=n))
    return {"size": numbers, "grade": grades, "colour": words, "label": labels}


def write_all(table, folder):
    n = len(table["label"])
    rows = [{k: table[k][i] for k in table} for i in range(n)]
    arff_path = folder / "t.arff"
    arff_path.write_text(
        arff.dumps({
            "relation": "t",
            "attributes": [("size", "NUMERIC"), ("grade", ["1", "2", "3"]), ("colour", ["red", "green", "dark blue"]), ("label", ["yes", "no"])],
            "data": [[r["size"], r["grade"], r["colour"], r["label"]] for r in rows],
        }),
        encoding="utf-8",
    )
    jsonl = folder / "t.jsonl"
    # a missing value as null in the first record, as an absent key in the others
    jsonl.write_text("".join(json.dumps({k: v for k, v in r.items() if v is not None or i == 0}) + "\n" for i, r in enumerate(rows)), encoding="utf-8")
    frame = pd.DataFrame({"size": pd.array(table["size"], dtype="Float64"), "grade": pd.Categorical(table["grade"]), "colour": table["colour"], "label": table["label"]})
    parquet = folder / "t.parquet"
    frame.to_parquet(parquet)
    csv_path = folder / "t.csv"
    csv_path.write_text("size;grade;colour;label\n" + "".join(";".join("" if r[k] is None else str(r[k]) for k in table) + "\n" for r in rows), encoding="utf-8")
    return arff_path, jsonl, parquet, csv_path


@settings(max_examples=20, deadline=None)
@given(table=tables())
def test_one_table_is_one_dataset_in_every_format(table, tmp_path_factory):
    arff_path, jsonl, parquet, csv_path = write_all(table, tmp_path_factory.mktemp("formats"))
    read = [
        read_arff(arff_path),
        read_data(jsonl, target="label"),
        read_data(parquet, target="label"),
        read_data(csv_path, target="label", sep=";", categorical=["grade"]),
    ]
    first = read[0]
    for ds in read[1:]:
        assert ds.schema == first.schema
        np.testing.assert_array_equal(ds.X, first.X)
        assert ds.y.tolist() == first.y.tolist()
    assert first.schema.features[1].kind == "categorical"  # grades 1, 2, 3 stay categories


def test_json_lines_kinds_and_errors(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"a": 1, "b": "1", "c": true, "y": "p"}\n\n{"a": 2.5, "b": "2", "y": "q"}\n', encoding="utf-8")
    ds = read_data(path, target="y")
    assert kinds(ds) == {"a": ("numeric", ()), "b": ("categorical", ("1", "2")), "c": ("categorical", ("True",))}
    assert math.isnan(ds.X[1, 2]) and ds.row_name(1).endswith("d.jsonl: line 3")
    path.write_text('{"a": 1, "y": "p"}\n{"a": [1], "y": "q"}\n', encoding="utf-8")
    with pytest.raises(DataError, match="d.jsonl: line 2, column 'a': \\[1\\] is not a number, a text or a boolean"):
        read_data(path, target="y")
    path.write_text('{"a": 1, "y": "p"}\n{"a": 2\n', encoding="utf-8")
    with pytest.raises(DataError, match="d.jsonl: line 2: not a JSON record"):
        read_data(path, target="y")
    path.write_text('[1, 2]\n', encoding="utf-8")
    with pytest.raises(DataError, match="line 1: a JSON list, not an object"):
        read_data(path)


def test_parquet_errors_name_the_file_and_the_extra(tmp_path, monkeypatch):
    path = tmp_path / "d.parquet"
    path.write_bytes(b"not parquet at all")
    with pytest.raises(DataError, match="d.parquet: not a readable Parquet file"):
        read_data(path)
    pd.DataFrame({"when": pd.to_datetime(["2020-01-01"]), "y": ["a"]}).to_parquet(path)
    with pytest.raises(DataError, match="column 'when' holds datetime64"):
        read_data(path, target="y")
    monkeypatch.setitem(sys.modules, "pandas", None)  # as if pandas were not installed
    with pytest.raises(ParameterError, match=r"reading Parquet needs pandas: pip install 'puretree\[parquet\]'"):
        read_data(path, target="y")


def test_formats_by_extension_or_name():
    assert [format_of(p) for p in ("a.arff", "a.ARFF", "a.pq", "a.ndjson", "a.tsv", "a")] == ["arff", "arff", "parquet", "jsonl", "csv", "csv"]
    with pytest.raises(ParameterError, match="did you mean 'parquet'"):
        format_of("a", "parqet")
    with pytest.raises(ParameterError, match="sep= is for CSV files"):
        read_table("a.arff", sep=";")


def test_tsv_files_are_tab_separated(tmp_path):
    path = tmp_path / "d.tsv"
    path.write_text("a\tb\n1\tx\n2\ty\n", encoding="utf-8")
    header, body, _ = read_table(path)
    assert header == ["a", "b"] and list(body) == [["1", "x"], ["2", "y"]]


# -- mistyped column names ----------------------------------------------------------------------


def test_mistyped_columns_suggest_the_closest(tmp_path, weather):
    tree = c45(read_arff(weather))
    frame = pd.DataFrame({"outlook": ["sunny"], "tmp": [70.0], "humidity": [80], "grade": ["1"], "note": ["x"]})
    with pytest.raises(SchemaError, match="missing column\\(s\\) \\['temp'\\] \\(did you mean 'tmp'\\?\\)"):
        encode_features(tree.schema, frame)
    with pytest.raises(DataError, match="cannot ignore unknown column 'nte' \\(did you mean 'note'\\?\\)"):
        read_arff(weather, ignore=["nte"])
    with pytest.raises(DataError, match="unknown column 'grde' in categorical \\(did you mean 'grade'\\?\\)"):
        read_arff(weather, categorical=["grde"])


# -- the command line ---------------------------------------------------------------------------


def run(*args, stdin=None, cwd):
    done = subprocess.run([sys.executable, "-m", "puretree", *map(str, args)], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=120)
    return done.returncode, done.stdout, done.stderr


def test_fit_predict_evaluate_an_arff_file(weather, tmp_path, capsys):
    assert main(["fit", str(weather), "--algorithm", "c45", "--min-samples-leaf", "1", "-o", str(tmp_path / "m.json")]) == 0
    tree = load(tmp_path / "m.json")
    assert tree.schema.target == "play" and tree.schema.features[3].categories == ("1", "2", "3")
    assert tree == c45(read_arff(weather), min_samples_leaf=1)
    capsys.readouterr()
    assert main(["predict", str(tmp_path / "m.json"), str(weather)]) == 0
    out = capsys.readouterr().out.split()
    assert out == ["prediction"] + predict(tree, read_arff(weather)).tolist()
    assert main(["evaluate", str(tmp_path / "m.json"), str(weather)]) == 0
    assert "accuracy: 1.0000" in capsys.readouterr().out
    assert main(["evaluate", str(weather), "--cv", "2", "--algorithm", "id3"]) == 0  # the class: the last attribute
    assert "2-fold stratified cross-validation of id3 on 8 rows" in capsys.readouterr().out


def test_cli_reads_standard_input_separators_json_lines_and_parquet(tmp_path):
    rows = "a;b;y\n1;x;p\n2;x;p\n3;z;q\n4;z;q\n"
    code, out, err = run("fit", "-", "--sep", ";", "--target", "y", "--algorithm", "cart", "-o", "m.json", stdin=rows, cwd=tmp_path)
    assert (code, err) == (0, "") and "cart tree from 4 rows" in out
    code, out, err = run("predict", "m.json", "-", "--sep", ";", stdin=rows, cwd=tmp_path)
    assert (code, out.split(), err) == (0, ["prediction", "p", "p", "q", "q"], "")
    (tmp_path / "d.jsonl").write_text("".join(json.dumps({"a": i, "b": "xz"[i > 2], "y": "pq"[i > 2]}) + "\n" for i in (1, 2, 3, 4)), encoding="utf-8")
    pd.DataFrame({"a": [1, 2, 3, 4], "b": ["x", "x", "z", "z"], "y": ["p", "p", "q", "q"]}).to_parquet(tmp_path / "d.parquet")
    for data in ("d.jsonl", "d.parquet"):
        code, out, err = run("evaluate", "m.json", data, cwd=tmp_path)
        assert (code, err) == (0, "") and "accuracy: 1.0000" in out
    code, out, err = run("fit", "d.jsonl", "--target", "y", "--data-format", "jsonl", "-o", "j.json", cwd=tmp_path)
    assert code == 0 and load(tmp_path / "j.json").schema.features[0].kind == "numeric"
    arff_text = "@relation r\n@attribute a numeric\n@attribute y {p,q}\n@data\n1,p\n2,p\n3,q\n4,q\n"
    code, out, err = run("fit", "-", "--data-format", "arff", "-o", "a.json", stdin=arff_text, cwd=tmp_path)
    assert (code, err) == (0, "") and load(tmp_path / "a.json").schema.target == "y"


@pytest.mark.parametrize(
    "args, message",
    [
        (("fit", "d.csv", "--target", "lable", "-o", "m.json"), "puretree: error: d.csv: unknown target column 'lable' (did you mean 'label'?); the columns are ['size', 'label']\n"),
        (("fit", "d.csv", "-o", "m.json"), "puretree: error: fit: the following arguments are required: --target (only an ARFF file has a default class, its last attribute)\n"),
        (("fit", "d.csv", "--target", "label", "--sep", ";;", "-o", "m.json"), "fit: argument --sep: expected one character (or \\t for a tab), got ';;'\n"),
        (("fit", "bad.arff", "-o", "m.json"), "puretree: error: bad.arff: line 5: not a readable ARFF file (Invalid numerical value)\n"),
        (("predict", "m0.json", "renamed.csv"), "puretree: error: renamed.csv: missing column(s) ['size'] (did you mean 'sise'?); the tree expects ['size']\n"),
    ],
)
def test_cli_bad_input_is_one_line(tmp_path, capsys, args, message):
    (tmp_path / "d.csv").write_text("size,label\n1,a\n2,b\n", encoding="utf-8")
    (tmp_path / "renamed.csv").write_text("sise,label\n1,a\n", encoding="utf-8")
    (tmp_path / "bad.arff").write_text("@relation r\n@attribute a numeric\n@attribute c {p,q}\n@data\nabc,p\n", encoding="utf-8")
    assert main(["fit", str(tmp_path / "d.csv"), "--target", "label", "-o", str(tmp_path / "m0.json")]) == 0
    capsys.readouterr()
    code, out, err = run(*args, cwd=tmp_path)
    assert code in (1, 2) and out == ""
    assert err.endswith(message) and err.count("\n") == 1
