"""Small edges of the command line (issue 27): each failed before its fix."""

from __future__ import annotations

import re

import numpy as np
import pytest

import puretree as pt
from puretree.cli import main


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = np.where(X[:, 0] + rng.normal(size=400) > 0, "a", "b")
    data = tmp_path / "d.csv"
    data.write_text("x0,x1,x2,label\n" + "".join(f"{a!r},{b!r},{c!r},{l}\n" for (a, b, c), l in zip(X.tolist(), y)), encoding="utf-8")
    model = tmp_path / "m.json"
    assert main(["fit", str(data), "--target", "label", "--algorithm", "cart", "--max-depth", "3", "-o", str(model)]) == 0
    return tmp_path, data, model


def test_export_never_offers_the_internal_ensemble_folder(files, capsys):
    tmp, _, model = files
    capsys.readouterr()
    for target in ("cc", "_ensemble"):
        assert main(["export", str(model), "--target", target, "-o", str(tmp / "out")]) == 1
        err = capsys.readouterr().err
        assert f"unknown target {target!r}; available: ['c', 'c-table', 'java', 'javascript', 'python', 'rust']" in err and "_ensemble'" not in err.split("available")[1]


def test_verify_code_takes_the_arduino_library_folder(files, capsys):
    tmp, data, model = files
    lib = tmp / "TreeLib"
    assert main(["export", str(model), "--target", "c", "--layout", "arduino", "-o", str(lib)]) == 0
    assert (lib / "library.properties").is_file() and (lib / "src").is_dir()
    capsys.readouterr()
    assert main(["verify", str(model), str(data), "--code", str(lib)]) == 0
    out = capsys.readouterr().out
    assert " 0 mismatches" in out
    assert main(["verify", str(model), str(data), "--code", str(lib / "src")]) == 0  # as before


def test_a_usage_error_says_puretree_once(files, capsys):
    capsys.readouterr()
    assert main(["--bogus"]) == 2
    err = capsys.readouterr().err
    assert err.count("puretree") == 1 and err.startswith("puretree: error: ")
    _, _, model = files
    assert main(["show", str(model), "--bogus"]) == 2
    err = capsys.readouterr().err
    assert err == "puretree: error: unrecognized arguments: --bogus\n"
    assert main(["fit"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("puretree: error: fit: the following arguments are required") and err.count("puretree") == 1


def test_predict_with_model_and_data_swapped_says_so(files, capsys):
    _, data, model = files
    capsys.readouterr()
    assert main(["predict", str(data), str(model)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the model comes first: puretree predict MODEL.json DATA" in err and str(model) in err
    # A data file that is not a model: the error stays as it was, without the hint.
    assert main(["predict", str(data), str(data)]) == 1
    assert "the model comes first" not in capsys.readouterr().err


def test_fit_progress_ends_with_the_trees_own_node_count(files, capsys):
    tmp, data, _ = files
    out = tmp / "c45.json"
    capsys.readouterr()
    assert main(["fit", str(data), "--target", "label", "--algorithm", "c45", "--progress", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    final = re.findall(r"fit: (\d+) nodes", err)[-1]
    nodes = pt.n_nodes(pt.load(out))
    assert int(final) == nodes
    assert re.search(r"\d+ grown before pruning", err)  # C4.5 pruned: the growth's count is said beside it


def test_label_and_to_read_the_same_in_fit_and_export(files, capsys):
    tmp, data, model = files
    again = tmp / "again.json"
    assert main(["fit", str(data), "--label", "label", "--algorithm", "cart", "--max-depth", "3", "-o", str(again)]) == 0
    assert again.read_bytes() == model.read_bytes()
    assert main(["export", str(model), "--to", "python", "-o", str(tmp / "py1")]) == 0
    assert main(["export", str(model), "--target", "python", "-o", str(tmp / "py2")]) == 0
    assert sorted(p.name for p in (tmp / "py1").iterdir()) == sorted(p.name for p in (tmp / "py2").iterdir())
    for f in (tmp / "py1").iterdir():
        assert f.read_bytes() == (tmp / "py2" / f.name).read_bytes()
