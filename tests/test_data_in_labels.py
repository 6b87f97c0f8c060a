"""Class labels read from files keep a type a user can compare with (issue 26): whole numbers
are ints, decimal numbers floats, true/false booleans, anything else text."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import puretree as pt
from puretree.data import read_csv_table, table_to_dataset
from puretree.io import load, save


@pytest.mark.parametrize(
    ("cells", "classes", "dtype"),
    [
        (["0", "1", "1"], (0, 1), np.int64),
        (["10", "9", "-3"], (-3, 9, 10), np.int64),  # sorted as numbers
        (["1", "2.5", "2.5"], (1.0, 2.5), np.float64),
        (["TRUE", "false", "True"], None, None),  # two spellings of one label: refused, as before
        (["TRUE", "false", "false"], (False, True), np.bool_),
        (["yes", "no", "1"], ("1", "no", "yes"), np.str_),
        (["1_000", "2", "2"], ("1_000", "2"), np.str_),  # not a plain decimal number: text
    ],
)
@pytest.mark.parametrize("reader", ["read_csv", "pure", "arff", "parquet", "jsonl"])
def test_labels_from_a_file_keep_their_type(tmp_path, cells, classes, dtype, reader):
    rows = [f"{i},{c}" for i, c in enumerate(cells)]
    if reader in ("read_csv", "pure"):
        path = tmp_path / "d.csv"
        path.write_text("x,y\n" + "\n".join(rows) + "\n", encoding="utf-8")
        read = (lambda: pt.read_csv(path, target="y")) if reader == "read_csv" else (lambda: table_to_dataset(*read_csv_table(path), target="y"))
    elif reader == "arff":
        path = tmp_path / "d.arff"
        nominal = ",".join(dict.fromkeys(cells))
        path.write_text(f"@relation r\n@attribute x numeric\n@attribute y {{{nominal}}}\n@data\n" + "\n".join(rows) + "\n", encoding="utf-8")
        read = lambda: pt.read_data(path)  # noqa: E731
    elif reader == "parquet":
        path = tmp_path / "d.parquet"
        pd.DataFrame({"x": range(len(cells)), "y": cells}).to_parquet(path)
        read = lambda: pt.read_data(path, target="y")  # noqa: E731
    else:
        path = tmp_path / "d.jsonl"
        path.write_text("".join(f'{{"x": {i}, "y": "{c}"}}\n' for i, c in enumerate(cells)), encoding="utf-8")
        read = lambda: pt.read_data(path, target="y")  # noqa: E731
    if classes is None:
        with pytest.raises(pt.DataError, match="which are one value"):
            read()
        return
    ds = read()
    assert ds.schema.classes == classes and [type(c) for c in ds.schema.classes] == [type(c) for c in classes]
    labels = ds.labels()
    assert labels.dtype.type is dtype
    assert labels.tolist() == [{"true": True, "false": False}.get(c.lower(), c) if dtype is np.bool_ else (dtype(c).item() if dtype is not np.str_ else c) for c in cells]


def test_a_0_1_target_from_csv_compares_with_the_predictions(tmp_path):
    # The case: accuracy_score raised "Mix of label input types" on '0'/'1' classes.
    from sklearn.metrics import accuracy_score

    path = tmp_path / "d.csv"
    path.write_text("x,y\n" + "".join(f"{i},{int(i > 4)}\n" for i in range(10)), encoding="utf-8")
    ds = pt.read_csv(path, target="y")
    tree = pt.cart(ds)
    y = np.array([int(i > 4) for i in range(10)])
    assert (pt.predict(tree, ds) == y).all() and accuracy_score(y, pt.predict(tree, ds)) == 1.0


def test_a_model_saved_with_text_labels_loads_and_predicts_as_before(tmp_path):
    # A model fitted before this change from a CSV of 0/1 has the classes '0' and '1'.
    old = pt.cart(pt.from_rows([{"x": float(i)} for i in range(10)], y=[str(int(i > 4)) for i in range(10)], target="y"))
    save(old, tmp_path / "old.json")
    again = load(tmp_path / "old.json")
    assert again.schema.classes == ("0", "1")
    assert pt.predict(again, [{"x": 1.0}, {"x": 8.0}]).tolist() == ["0", "1"]
    data = tmp_path / "d.csv"
    data.write_text("x,y\n" + "".join(f"{i},{int(i > 4)}\n" for i in range(10)), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "puretree", "evaluate", str(tmp_path / "old.json"), str(data)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "accuracy: 1.0000" in done.stdout, done.stderr
    done = subprocess.run([sys.executable, "-m", "puretree", "predict", str(tmp_path / "old.json"), str(data)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.splitlines()[1:3] == ["0", "0"], done.stderr
