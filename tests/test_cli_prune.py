"""The prune, rules and evaluate --cv commands: outputs, saved models, one-line errors."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from puretree.cli import main
from puretree.datasets import load_playtennis, path
from puretree.evaluate import accuracy, cross_validate
from puretree.fold import n_leaves
from puretree.grow import id3
from puretree.io import load, save, to_dict
from puretree.prune import cost_complexity, penalty, pessimistic, reduced_error
from puretree.rules import prune_rules, to_rules


def write_csv(file, header, rows):
    with open(file, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return str(file)


@pytest.fixture
def noisy(tmp_path):
    """A noisy two-feature problem split into training and validation CSV files, and a model."""
    rng = np.random.default_rng(11)

    def table(n):
        X = np.round(rng.uniform(0, 10, size=(n, 2)), 2)
        y = np.where((X[:, 0] + X[:, 1] > 10) ^ (rng.random(n) < 0.2), "yes", "no")
        return [[a, b, c] for (a, b), c in zip(X.tolist(), y.tolist())]

    train = write_csv(tmp_path / "train.csv", ["a", "b", "label"], table(150))
    valid = write_csv(tmp_path / "valid.csv", ["a", "b", "label"], table(80))
    model = str(tmp_path / "model.json")
    assert main(["fit", train, "--target", "label", "--algorithm", "cart", "-o", model]) == 0
    return tmp_path, train, valid, model


def leaves_line(out: str) -> tuple[int, int]:
    line = next(l for l in out.splitlines() if l.startswith("leaves:"))
    before, after = line.split(":")[1].split("->")
    return int(before), int(after)


@pytest.mark.parametrize(
    "method, extra, expected",
    [
        ("reduced-error", ["--validation", "VALID"], lambda t, v: reduced_error(t, v)),
        ("pessimistic", ["--cf", "0.1"], lambda t, v: pessimistic(t, cf=0.1)),
        ("pessimistic", [], lambda t, v: pessimistic(t)),
        ("penalty", ["--penalty", "1"], lambda t, v: penalty(t, per_leaf=1.0)),
        ("penalty", [], lambda t, v: penalty(t)),
        ("cost-complexity", ["--alpha", "0.01"], lambda t, v: cost_complexity(t, 0.01)),
    ],
)
def test_prune_saves_the_same_tree_as_the_library(noisy, capsys, method, extra, expected):
    tmp, _, valid, model = noisy
    out_file = str(tmp / "pruned.json")
    args = ["prune", model, "--method", method, "-o", out_file] + [valid if a == "VALID" else a for a in extra]
    capsys.readouterr()
    assert main(args) == 0
    out = capsys.readouterr().out
    tree = load(model)
    from puretree.data import read_csv

    want = expected(tree, read_csv(valid, target="label"))
    assert to_dict(load(out_file)) == to_dict(want)
    assert leaves_line(out) == (n_leaves(tree), n_leaves(want))
    assert n_leaves(want) < n_leaves(tree)


def test_cost_complexity_with_validation_chooses_the_most_accurate_alpha(noisy, capsys):
    tmp, _, valid, model = noisy
    out_file = str(tmp / "pruned.json")
    capsys.readouterr()
    assert main(["prune", model, "--method", "cost-complexity", "--validation", valid, "-o", out_file]) == 0
    out = capsys.readouterr().out
    assert "alpha chosen on" in out
    line = out.split("validation accuracy: ")[1].splitlines()[0]
    before, after = (float(x) for x in line.split(" -> "))
    assert after >= before
    from puretree.data import read_csv
    from puretree.prune import cost_complexity_path

    data = read_csv(valid, target="label")
    tree = load(model)
    truth = data.labels().tolist()
    best = max(accuracy(truth, cost_complexity(tree, a).predict(data).tolist()) for a in cost_complexity_path(tree).ccp_alphas)
    assert after == pytest.approx(best, abs=1e-4)


def test_rules_command_prints_the_rule_list(tmp_path, capsys):
    model = str(tmp_path / "m.json")
    save(id3(load_playtennis()), model)
    capsys.readouterr()
    assert main(["rules", model]) == 0
    assert capsys.readouterr().out.strip() == str(to_rules(id3(load_playtennis())))


def test_rules_prune_with_validation(noisy, capsys):
    _, _, valid, model = noisy
    capsys.readouterr()
    assert main(["rules", model, "--prune", "--validation", valid]) == 0
    out = capsys.readouterr().out.strip()
    from puretree.data import read_csv

    assert out == str(prune_rules(load(model), read_csv(valid, target="label")))
    assert out.splitlines()[-1].startswith("ELSE ")
    assert main(["rules", model, "--prune", "--validation", valid, "--estimate", "pessimistic", "--cf", "0.1"]) == 0


def test_evaluate_cv_matches_the_library(tmp_path, capsys):
    capsys.readouterr()
    src = str(path("playtennis"))
    assert main(["evaluate", src, "--cv", "3", "--target", "play", "--ignore", "day", "--algorithm", "id3", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    from puretree.data import read_csv

    data = read_csv(src, target="play", ignore=["day"])
    cv = cross_validate(id3, data, k=3, seed=2)
    assert f"accuracy: {cv.mean:.4f} +/- {cv.std:.4f}" in out
    assert "fold accuracies: " + " ".join(f"{s:.4f}" for s in cv.scores) in out
    assert "true \\ predicted" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["prune", "MODEL", "--method", "reduced-error", "-o", "OUT"], "needs --validation"),
        (["prune", "MODEL", "--method", "cost-complexity", "-o", "OUT"], "needs --alpha"),
        (["prune", "MODEL", "--method", "cost-complexity", "--alpha", "-0.5", "-o", "OUT"], "--alpha"),
        (["prune", "MODEL", "--method", "cost-complexity", "--alpha", "nan", "-o", "OUT"], "--alpha"),
        (["prune", "MODEL", "--method", "pessimistic", "--cf", "0", "-o", "OUT"], "--cf"),
        (["prune", "MODEL", "--method", "pessimistic", "--cf", "1", "-o", "OUT"], "--cf"),
        (["prune", "MODEL", "--method", "pessimistic", "--cf", "1.5", "-o", "OUT"], "--cf"),
        (["prune", "MODEL", "--method", "penalty", "--penalty", "-1", "-o", "OUT"], "--penalty"),
        (["prune", "MODEL", "--method", "pessimistic", "--alpha", "0.1", "-o", "OUT"], "does not apply"),
        (["prune", "MODEL", "--method", "reduced-error", "--validation", "OTHER", "-o", "OUT"], "missing column"),
        (["prune", "MODEL", "--method", "reduced-error", "--validation", "NOTARGET", "-o", "OUT"], "no target column"),
        (["prune", "MODEL", "--method", "magic", "-o", "OUT"], "invalid choice"),
        (["rules", "MODEL", "--prune"], "needs --validation"),
        (["rules", "MODEL", "--validation", "VALID"], "with --prune"),
        (["rules", "MODEL", "--prune", "--validation", "OTHER"], "missing column"),
        (["evaluate", "TRAIN", "--cv", "3"], "--target"),
        (["evaluate", "TRAIN", "--cv", "1", "--target", "label"], "folds"),
        (["evaluate", "MODEL", "VALID", "--cv", "3", "--target", "label"], "only DATA.csv"),
        (["evaluate", "MODEL"], "MODEL.json DATA.csv"),
        (["evaluate", "MODEL", "VALID", "--target", "label"], "for --cv"),
    ],
)
def test_bad_arguments_give_one_line_and_a_non_zero_exit(noisy, capsys, args, message):
    tmp, train, valid, model = noisy
    other = write_csv(tmp / "other.csv", ["x", "label"], [[1, "yes"], [2, "no"]])
    no_target = write_csv(tmp / "notarget.csv", ["a", "b"], [[1, 2], [3, 4]])
    names = {"MODEL": model, "OUT": str(tmp / "out.json"), "OTHER": other, "NOTARGET": no_target, "VALID": valid, "TRAIN": train}
    capsys.readouterr()
    status = main([names.get(a, a) for a in args])
    captured = capsys.readouterr()
    assert status != 0
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("puretree: error:")
    assert message in lines[0]
    assert "Traceback" not in captured.err
    assert not (tmp / "out.json").exists()


def test_prune_refuses_a_regression_model(tmp_path, capsys):
    from puretree.grow import grow

    model = str(tmp_path / "reg.json")
    save(grow(np.arange(8.0)[:, None], np.arange(8.0), score="variance", task="regression"), model)
    capsys.readouterr()
    assert main(["prune", model, "--method", "pessimistic", "-o", str(tmp_path / "o.json")]) == 1
    assert "classification" in capsys.readouterr().err
