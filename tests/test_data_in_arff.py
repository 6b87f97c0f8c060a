"""ARFF wherever a command reads data, and ARFF instance weights (issue 26)."""

from __future__ import annotations

import numpy as np
import pytest

import puretree as pt
from puretree.cli import main
from puretree.datasets import load_playtennis

TENNIS = load_playtennis()


def _tennis_arff(tmp_path, *, weights=False):
    names = TENNIS.schema.feature_names
    lines = ["@relation tennis"]
    for f in TENNIS.schema.features:
        lines.append(f"@attribute {f.name} {{{','.join(f.categories)}}}")
    lines.append(f"@attribute play {{{','.join(TENNIS.schema.classes)}}}")
    lines.append("@data")
    for i, (row, label) in enumerate(zip(TENNIS.X.astype(int).tolist(), TENNIS.labels().tolist())):
        cells = [TENNIS.schema.features[j].categories[c] for j, c in enumerate(row)] + [label]
        lines.append(",".join(cells) + (f",{{{i % 3 + 1}}}" if weights else ""))
    path = tmp_path / ("w.arff" if weights else "tennis.arff")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert len(names) == 4
    return path


def test_commands_read_arff_wherever_they_read_data(tmp_path, capsys):
    arff = str(_tennis_arff(tmp_path))
    model = str(tmp_path / "m.json")
    assert main(["fit", arff, "--algorithm", "id3", "-o", model]) == 0
    assert main(["prune", model, "--method", "reduced-error", "--validation", arff, "-o", str(tmp_path / "p.json")]) == 0
    assert main(["prune", model, "--method", "cost-complexity", "--validation", arff, "-o", str(tmp_path / "c.json")]) == 0
    assert main(["rules", model, "--prune", "--validation", arff]) == 0
    assert main(["verify", model, arff, "--target", "python"]) == 0
    capsys.readouterr()


def test_export_takes_its_ranges_from_an_arff_file(tmp_path):
    data = tmp_path / "n.arff"
    data.write_text("@relation n\n@attribute x numeric\n@attribute y {a,b}\n@data\n" + "".join(f"{i},{'ab'[i > 4]}\n" for i in range(10)), encoding="utf-8")
    model = tmp_path / "m.json"
    assert main(["fit", str(data), "-o", str(model)]) == 0
    assert main(["export", str(model), "--target", "c-table", "--feature-type", "int16", "--quantize", "--ranges-from", str(data), "-o", str(tmp_path / "out")]) == 0


def test_arff_instance_weights_are_sample_weights(tmp_path):
    ds = pt.read_data(_tennis_arff(tmp_path, weights=True))
    assert ds.sample_weight.tolist() == [i % 3 + 1.0 for i in range(14)]
    assert np.array_equal(ds.X, TENNIS.X) and ds.labels().tolist() == TENNIS.labels().tolist()
    weighted = pt.id3(ds)
    assert sum(weighted.root.stats) == pytest.approx(sum(i % 3 + 1 for i in range(14)))


def test_a_bad_arff_instance_weight_is_named_by_its_line(tmp_path):
    path = tmp_path / "b.arff"
    path.write_text("@relation b\n@attribute x numeric\n@attribute y {a,b}\n@data\n1,a,{2}\n2,b,{-1}\n", encoding="utf-8")
    with pytest.raises(pt.DataError, match=r"b.arff: line 6: the instance weight \{-1\} is negative or not finite"):
        pt.read_data(path)


@pytest.mark.parametrize("prune", ["none", "pessimistic", "reduced-error"])
def test_evaluate_cv_prunes_each_fold_as_j48_does(tmp_path, capsys, prune):
    from puretree.evaluate import cross_validate, stratified_folds
    from puretree.prune.rewrites import pessimistic, reduced_error

    data = str(_tennis_arff(tmp_path))
    assert main(["evaluate", data, "--cv", "3", "--algorithm", "c45", "--prune", prune]) == 0
    out = capsys.readouterr().out
    ds = pt.read_data(data)

    def fit(part):
        if prune == "none":
            return pt.c45(part)
        if prune == "pessimistic":
            return pessimistic(pt.c45(part), part, cf=0.25)
        grow, held = stratified_folds(part.y, k=3, seed=0)[0]
        return reduced_error(pt.c45(part.subset(grow)), part.subset(held))

    expected = cross_validate(fit, ds, k=3, seed=0)
    assert f"accuracy: {expected.mean:.4f} +/- {expected.std:.4f}" in out
    assert ("pruning" in out.splitlines()[0]) == (prune != "none")


def test_evaluate_prune_needs_cv(tmp_path, capsys):
    data = str(_tennis_arff(tmp_path))
    model = str(tmp_path / "m.json")
    assert main(["fit", data, "-o", model]) == 0
    assert main(["evaluate", model, data, "--prune", "pessimistic"]) == 1
    assert "--prune prunes the trees --cv grows" in capsys.readouterr().err


# Weka's ARFF originals (Debian's weka 3.6.14, shipped in tests/data: SOURCES.md), as J48's gate reads them.
WEKA_ARFF = {"credit-g": (1000, 20, 2), "diabetes": (768, 8, 2), "vote": (435, 16, 2), "soybean": (683, 35, 19), "breast-cancer": (286, 9, 2)}


@pytest.mark.parametrize("name", sorted(WEKA_ARFF))
def test_weka_s_arff_originals_read_and_fit(name):
    from pathlib import Path

    rows, features, classes = WEKA_ARFF[name]
    data = pt.read_arff(Path(__file__).parent / "data" / f"{name}.arff")
    assert (data.n_rows, len(data.schema.feature_names), len(data.schema.classes)) == (rows, features, classes)
    tree = pt.pessimistic(pt.c45(data), data)
    accuracy = float(np.mean(pt.predict(tree, data) == data.labels()))
    assert 0.7 < accuracy <= 1.0  # J48 on the training rows: well above the majority class everywhere
