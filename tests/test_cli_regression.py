"""The command line on a numeric target: fit --task regression, predict, evaluate."""

import csv

import numpy as np
import pytest

import puretree as pt
from puretree.cli import main


@pytest.fixture()
def table(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    y = 3.0 * X[:, 0] + np.where(X[:, 1] > 0, 1.0, -1.0)
    path = tmp_path / "reg.csv"
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["a", "b", "y"])
        writer.writerows([[repr(a), repr(b), repr(t)] for (a, b), t in zip(X.tolist(), y.tolist())])
    return path, X, y


def test_fit_predict_evaluate_a_regression_tree(table, tmp_path, capsys):
    path, X, y = table
    model = tmp_path / "m.json"
    assert main(["fit", str(path), "--target", "y", "--task", "regression", "--algorithm", "cart", "--max-depth", "3", "-o", str(model)]) == 0
    out = capsys.readouterr().out
    tree = pt.load(model)
    expected = pt.cart(X, y, task="regression", max_depth=3, feature_names=["a", "b"], target="y")
    assert pt.io.to_dict(tree)["nodes"] == pt.io.to_dict(expected)["nodes"]
    mse = float(np.mean((pt.predict(expected, X) - y) ** 2))
    assert f"training mean squared error {mse:.6g}" in out

    assert main(["predict", str(model), str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "prediction"
    assert [float(v) for v in lines[1:]] == pt.predict(expected, X).tolist()

    assert main(["evaluate", str(model), str(path)]) == 0
    assert f"mean squared error: {mse:.6g}" in capsys.readouterr().out


def test_a_non_numeric_regression_target_is_one_line_naming_line_and_column(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("a,y\n1,2.5\n2,high\n")
    assert main(["fit", str(path), "--target", "y", "--task", "regression", "-o", str(tmp_path / "m.json")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "line 3" in err[0] and "'y'" in err[0] and "'high'" in err[0]


def test_cross_validation_refuses_regression_clearly(table, capsys):
    path, _, _ = table
    assert main(["evaluate", str(path), "--cv", "3", "--target", "y", "--task", "regression"]) == 1
    assert "classification" in capsys.readouterr().err
