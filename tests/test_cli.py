"""The command line, run both as a subprocess (``python -m puretree``) and in-process (``cli.main``)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from puretree import datasets
from puretree.cli import main
from puretree.io import load

TENNIS = Path(str(datasets.path("playtennis")))


def run_subprocess(*args, cwd):
    done = subprocess.run([sys.executable, "-m", "puretree", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120)
    return done.returncode, done.stdout, done.stderr


def run_inprocess(*args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(params=["subprocess", "inprocess"])
def cli(request, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if request.param == "subprocess":
        return lambda *a: run_subprocess(*a, cwd=tmp_path)
    return lambda *a: run_inprocess(*a, capsys=capsys)


@pytest.fixture
def model(tmp_path, capsys):
    path = tmp_path / "tennis.json"
    assert main(["fit", str(TENNIS), "--target", "play", "--algorithm", "id3", "--ignore", "day", "-o", str(path)]) == 0
    capsys.readouterr()  # the fit report is not the output under test
    return path


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


# -- happy paths --------------------------------------------------------------------------------


def test_fit_show_predict_evaluate(cli, tmp_path):
    code, out, err = cli("fit", TENNIS, "--target", "play", "--algorithm", "id3", "--ignore", "day", "-o", "m.json")
    assert (code, err) == (0, "")
    assert out.splitlines() == ["id3 tree from 14 rows: nodes: 8, leaves: 5, depth: 2; training accuracy 1.0000", "saved to m.json"]
    assert json.loads((tmp_path / "m.json").read_text())["format"] == "puretree-tree"

    code, out, err = cli("show", "m.json")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "outlook = overcast: yes (4)"
    assert "|   humidity = high: no (3)" in lines
    assert lines[-1] == "nodes: 8, leaves: 5, depth: 2"
    assert len(lines) == 8

    code, out, err = cli("predict", "m.json", TENNIS)
    assert (code, err) == (0, "")
    rows = list(csv.reader(io.StringIO(out)))
    truth = [r[-1] for r in csv.reader(TENNIS.open())][1:]
    assert rows[0] == ["prediction"]
    assert [r[0] for r in rows[1:]] == truth

    code, out, err = cli("predict", "m.json", TENNIS, "--proba")
    rows = list(csv.reader(io.StringIO(out)))
    assert code == 0 and rows[0] == ["prediction", "p(no)", "p(yes)"]
    assert rows[1] == ["no", "1", "0"] and rows[3] == ["yes", "0", "1"]
    assert len(rows) == 15

    code, out, err = cli("evaluate", "m.json", TENNIS)
    assert (code, err) == (0, "")
    assert out.splitlines() == ["rows: 14", "accuracy: 1.0000", "true \\ predicted   no  yes", "no                  5    0", "yes                 0    9"]


def test_predict_keeps_row_order_and_handles_unseen_values(cli, tmp_path, model):
    write(tmp_path / "new.csv", "wind,humidity,temperature,outlook\nweak,high,hot,sunny\nstrong,normal,mild,rain\nweak,high,hot,fog\nweak,high,hot,overcast\n")
    code, out, err = cli("predict", model, "new.csv", "--proba")
    assert code == 0 and err.startswith("puretree predict: 1 row holds a category the tree did not see in training (column 'outlook': 1 row, the first 'fog' at new.csv: line 4)")
    assert out.splitlines() == ["prediction,p(no),p(yes)", "no,1,0", "no,1,0", "yes,0.35714285714285715,0.6428571428571429", "yes,0,1"]


def test_fit_options(cli, tmp_path):
    code, out, _ = cli("fit", TENNIS, "--target", "play", "--ignore", "day", "--algorithm", "cart", "--max-depth", "1", "-o", "m.json")
    assert code == 0 and "depth: 1" in out
    code, out, _ = cli("fit", TENNIS, "--target", "play", "--ignore", "day", "--min-gain", "0.3", "-o", "g.json")
    assert code == 0 and "nodes: 1," in out
    code, out, _ = cli("fit", TENNIS, "--target", "play", "--ignore", "day", "--algorithm", "cart", "--criterion", "gini", "--min-samples-leaf", "3", "-o", "l.json")
    assert code == 0
    leaves = [n for n in json.loads((tmp_path / "l.json").read_text())["nodes"] if n["kind"] == "leaf"]
    assert min(sum(n["stats"]) for n in leaves if sum(n["stats"]) > 0) >= 3
    # c45's --min-samples-leaf is J48's -M: at least two branches of every split hold M.
    code, out, _ = cli("fit", TENNIS, "--target", "play", "--ignore", "day", "--min-samples-leaf", "3", "-o", "m3.json")
    nodes = json.loads((tmp_path / "m3.json").read_text())["nodes"]
    for n in nodes:
        if n["kind"] != "leaf":
            assert sum(sum(nodes[c]["stats"]) >= 3 for c in n["children"]) >= 2


def test_numeric_data_and_labels(cli, tmp_path):
    write(tmp_path / "t.csv", "x,label\n1,10\n2,10\n3,20\n4,20\n")
    assert cli("fit", "t.csv", "--target", "label", "--algorithm", "c45", "-o", "t.json")[0] == 0
    assert load(tmp_path / "t.json").schema.classes == (10, 20)  # whole-number labels are ints (issue 26)
    write(tmp_path / "n.csv", "x\n0.5\n3.5\n2.5\n")
    code, out, _ = cli("predict", "t.json", "n.csv")
    assert (code, out) == (0, "prediction\n10\n20\n10\n")
    code, out, _ = cli("evaluate", "t.json", "t.csv")
    assert code == 0 and "accuracy: 1.0000" in out


# -- bad input: one line on stderr, non-zero exit, no traceback ---------------------------------


def assert_one_line_error(result, *needles):
    code, out, err = result
    assert code != 0
    assert "Traceback" not in err and "Traceback" not in out
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("puretree: error: ")
    for needle in needles:
        assert needle in err, (needle, err)


def test_missing_data_file(cli, model):
    assert_one_line_error(cli("predict", model, "nothere.csv"), "nothere.csv", "no such file")
    assert_one_line_error(cli("fit", "nothere.csv", "--target", "play", "-o", "m.json"), "nothere.csv")


def test_missing_model_file(cli):
    assert_one_line_error(cli("show", "nomodel.json"), "nomodel.json", "no such file")
    assert_one_line_error(cli("predict", "nomodel.json", TENNIS), "nomodel.json")


def test_empty_file(cli, tmp_path, model):
    write(tmp_path / "empty.csv", "")
    assert_one_line_error(cli("fit", "empty.csv", "--target", "play", "-o", "m.json"), "empty.csv", "empty")
    assert_one_line_error(cli("predict", model, "empty.csv"), "empty.csv", "empty")


def test_header_only(cli, tmp_path, model):
    write(tmp_path / "head.csv", "outlook,temperature,humidity,wind,play\n")
    assert_one_line_error(cli("fit", "head.csv", "--target", "play", "-o", "m.json"), "head.csv", "no data rows")
    assert_one_line_error(cli("evaluate", model, "head.csv"), "head.csv", "no data rows")


def test_ragged_rows(cli, tmp_path, model):
    write(tmp_path / "ragged.csv", "outlook,temperature,humidity,wind,play\nsunny,hot,high,weak,no\nsunny,hot\n")
    assert_one_line_error(cli("fit", "ragged.csv", "--target", "play", "-o", "m.json"), "ragged.csv", "line 3", "2 cells")
    assert_one_line_error(cli("predict", model, "ragged.csv"), "line 3")


def test_unknown_target_column(cli):
    assert_one_line_error(cli("fit", TENNIS, "--target", "golf", "-o", "m.json"), "'golf'", "outlook")


def test_non_numeric_cell_at_predict_time(cli, tmp_path):
    write(tmp_path / "t.csv", "x,y,label\n1,5,a\n2,6,b\n3,7,a\n")
    assert cli("fit", "t.csv", "--target", "label", "-o", "t.json")[0] == 0
    write(tmp_path / "bad.csv", "x,y\n1,5\n2,six\n")
    assert_one_line_error(cli("predict", "t.json", "bad.csv"), "bad.csv: line 3", "column 'y'", "'six'")


def test_wrong_column_set(cli, tmp_path, model):
    write(tmp_path / "cols.csv", "outlook,temp,humidity,wind\nsunny,hot,high,weak\n")
    assert_one_line_error(cli("predict", model, "cols.csv"), "'temperature'")
    assert_one_line_error(cli("evaluate", model, "cols.csv"), "'temperature'")


def test_evaluate_without_target_column(cli, tmp_path, model):
    write(tmp_path / "nolabel.csv", "outlook,temperature,humidity,wind\nsunny,hot,high,weak\n")
    assert_one_line_error(cli("evaluate", model, "nolabel.csv"), "'play'")


@pytest.mark.parametrize(
    "text, needle",
    [
        ("", "not valid JSON"),
        ("{not json", "not valid JSON"),
        ('{"format": "puretree-tree", "version": 99}', "unsupported version 99"),
        ("[1, 2]", "expected a JSON object"),
        ('{"format": "other"}', "not a puretree model"),
        ("\n" * 5 + '{"format": "puretree-tree",\n"version": 1, "schema": {"target": "y", "task": "classification", "classes": ["a"], "features": []}, "nodes": [{"kind": "leaf", "counts": [NaN]}]}', "NaN"),
    ],
)
def test_malformed_model_file(cli, tmp_path, text, needle):
    write(tmp_path / "bad.json", text)
    assert_one_line_error(cli("show", "bad.json"), "bad.json", needle)
    assert_one_line_error(cli("predict", "bad.json", TENNIS), "bad.json")


def test_usage_errors_exit_2(cli):
    code, _, err = cli("fit", TENNIS, "-o", "m.json")
    assert code == 2 and "--target" in err and err.count("\n") == 1
    code, _, err = cli("fit", TENNIS, "--target", "play", "--max-depth", "-1", "-o", "m.json")
    assert code == 2 and "-1" in err
    code, _, err = cli("fit", TENNIS, "--target", "play", "--min-gain", "nan", "-o", "m.json")
    assert code == 2 and "nan" in err
    code, _, err = cli("nonsense")
    assert code == 2 and "Traceback" not in err


def test_unwritable_output(cli, tmp_path):
    assert_one_line_error(cli("fit", TENNIS, "--target", "play", "-o", str(tmp_path / "no" / "such" / "dir.json")), "dir.json")
