"""read_csv through pandas' C reader means what the pure-Python reader means, cell for cell,
and errors name the same line and column (issue 26)."""

from __future__ import annotations

import csv

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import puretree as pt
from puretree.data import _fast_csv, read_csv_table, table_to_dataset
from puretree.errors import PuretreeError

CELL = st.sampled_from([
    "0", "1", "-0", "+7", " 2 ", "2.5", "1e3", ".5", "5.", "1e-5000", "12345678901234567890", "0.1000000000000000055511151231257827",
    "", "?", "NA", "NaN", "nan", " ?", "inf", "-Infinity", "1e999", "NAN", "1_000", "0x1", "\u0663",
    "a", "b", " a", "true", "False", "TRUE",
])


@st.composite
def csv_files(draw):
    """A CSV text: 1-3 columns and a target, cells drawn from tricky spellings, sometimes a
    blank line, a ragged row, a quoted cell or CRLF line ends."""
    k = draw(st.integers(1, 3))
    n = draw(st.integers(1, 6))
    header = [f"c{j}" for j in range(k)] + ["y"]
    rows = [[draw(CELL) for _ in range(k)] + [draw(st.sampled_from(["0", "1", "yes", "2.5", " 1", "?"]))] for _ in range(n)]
    lines = [",".join(header)] + [",".join(r) for r in rows]
    twist = draw(st.sampled_from(["none", "none", "blank", "ragged", "quote", "crlf", "no_final_break"]))
    if twist == "blank":
        lines.insert(draw(st.integers(1, len(lines))), "")
    elif twist == "ragged":
        lines[draw(st.integers(1, len(lines) - 1))] += ",x"
    elif twist == "quote":
        lines[-1] = '"' + lines[-1].replace(",", '",', 1) if k > 0 else lines[-1]
    end = "\r\n" if twist == "crlf" else "\n"
    return end.join(lines) + ("" if twist == "no_final_break" else end)


def _outcome(read):
    try:
        ds = read()
    except PuretreeError as exc:
        return ("error", type(exc).__name__, str(exc))
    return ("ok", ds.schema, ds.X, None if ds.y is None else ds.labels().tolist(), None if ds.lines is None else ds.lines.tolist())


def _same(a, b):
    if a[0] != b[0] or a[0] == "error":
        return a == b
    return a[1] == b[1] and np.array_equal(a[2], b[2], equal_nan=True) and a[3:] == b[3:]


@settings(max_examples=300, deadline=None)
@given(csv_files(), st.sampled_from(["classification", "regression"]), st.booleans())
def test_read_csv_through_pandas_means_what_the_pure_reader_means(tmp_path_factory, text, task, named):
    path = tmp_path_factory.mktemp("csv") / "d.csv"
    path.write_bytes(text.encode("utf-8"))
    options = dict(target="y", task=task, categorical=["c0"] if named else None)
    fast = _outcome(lambda: pt.read_csv(path, **options))
    pure = _outcome(lambda: table_to_dataset(*read_csv_table(path), **options))
    assert _same(fast, pure), (text, fast, pure)


def test_a_plain_numeric_file_is_read_without_the_csv_module(tmp_path, monkeypatch):
    path = tmp_path / "d.csv"
    path.write_text("a,b,y\n1.5,2,0\n,3e2,1\n-1,4,1\n", encoding="utf-8")

    def refuse(*args, **kwargs):
        raise AssertionError("the pure reader was used")

    monkeypatch.setattr(csv, "reader", refuse)
    ds = pt.read_csv(path, target="y")
    assert ds.X.tolist()[0] == [1.5, 2.0] and np.isnan(ds.X[1, 0]) and ds.X[1, 1] == 300.0
    assert ds.lines.tolist() == [2, 3, 4] and ds.row_name(1) == f"{path}: line 3"


def test_a_file_pandas_cannot_read_as_puretree_does_takes_the_pure_reader(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text('a,y\n"1\n2",0\n3,1\n', encoding="utf-8")  # a cell over two lines
    assert _fast_csv(path, sep=",", target="y", categorical=None, ignore=(), task="classification") is None
    assert pt.read_csv(path, target="y").lines.tolist() == [2, 4]


def test_an_infinite_cell_is_named_by_line_and_column_on_the_fast_path(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,y\n1,0\ninf,1\n", encoding="utf-8")
    try:
        pt.read_csv(path, target="y")
    except PuretreeError as exc:
        assert str(exc) == f"{path}: line 3, column 'a': 'inf' is not a finite number (the column's other cells are numbers)"
    else:
        raise AssertionError("inf was read")


def test_fit_progress_shows_the_reading_too(tmp_path):
    import subprocess
    import sys

    from puretree.datasets import path as dataset_path

    out = tmp_path / "m.json"
    done = subprocess.run([sys.executable, "-m", "puretree", "fit", str(dataset_path("playtennis")), "--target", "play", "--ignore", "day", "-o", str(out), "--progress"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    first, second = done.stderr.splitlines()[:2]
    assert first == f"reading {dataset_path('playtennis')} ..." and second.startswith("read 14 rows x 4 features in ")


def test_a_header_split_by_another_separator_gets_a_hint_naming_sep(tmp_path):
    import pytest

    for sep, hint in ((";", "give --sep ';', or sep=';' in Python"), ("\t", "give --sep '\\t', or sep='\\t' in Python")):
        path = tmp_path / "d.csv"
        path.write_text(sep.join(["a", "b", "class"]) + "\n" + sep.join(["1", "2", "x"]) + "\n", encoding="utf-8")
        with pytest.raises(pt.DataError) as caught:
            pt.read_csv(path, target="class")
        assert hint in str(caught.value) and "no comma" in str(caught.value)
        tree = pt.cart(pt.from_rows([{"a": 1, "b": 2}], y=["x"]))
        with pytest.raises(pt.SchemaError) as caught:
            pt.predict(tree, pt.data.table_dataset(tree.schema, *read_csv_table(path)))
        assert hint in str(caught.value)


def test_parquet_without_pyarrow_names_the_extra_on_one_line(tmp_path, monkeypatch):
    import sys

    import pandas as pd
    import pytest

    path = tmp_path / "d.parquet"
    pd.DataFrame({"x": [1, 2], "y": ["a", "b"]}).to_parquet(path)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "fastparquet", None)
    with pytest.raises(pt.ParameterError) as caught:
        pt.read_data(path, target="y")
    assert str(caught.value) == f"{path}: reading Parquet needs pandas and pyarrow: pip install 'puretree[parquet]'"
