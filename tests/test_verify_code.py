"""verify checks every row it promises, and ``verify --code DIR`` checks the files a user has.

A 10,000-level tree exported, then corrupted below node 5,000 by editing the generated
source, must fail verification; so must an export whose threshold was edited by hand. The
folder is all ``verify --code`` needs: the files' ``puretree-export:`` header says how they
were generated.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from puretree.cli import main
from puretree.codegen.render import export, generate
from puretree.codegen.verify import MAX_REPORTED, check_batches, find_export, read_manifest, verify, verify_code
from puretree.datasets import load_temperature, path
from puretree.errors import CodegenError
from puretree.grow import c45, id3
from puretree.io import save
from puretree.nodes import Feature, Leaf, NumericSplit, Schema
from puretree.tree import Tree


def chain(depth):
    """Split k (k = 1..depth, pre-order node 2k - 2) tests x <= k: a leaf left ("b" for an even
    k, "a" for an odd one), the rest of the chain right."""
    node = Leaf((1.0, 0.0))
    for d in range(depth, 0, -1):
        node = NumericSplit(0, float(d), Leaf((0.0, 1.0) if d % 2 == 0 else (1.0, 0.0)), node, (1.0, float(depth - d + 1)))
    return Tree(node, Schema((Feature("x"),), ("a", "b")))


# -- no silent cap ---------------------------------------------------------------------------


def test_every_node_of_a_deep_tree_is_checked():
    tree = chain(3_000)
    rows = np.vstack(list(check_batches(tree, np.array([[0.0]]))))
    # Every threshold with its neighbours, far past the old cap of 4,000 rows.
    for k in (1, 1_500, 2_999, 3_000):
        for v in (float(np.nextafter(k, -np.inf)), float(k), float(np.nextafter(k, np.inf))):
            assert (rows[:, 0] == v).any(), v
    assert len(rows) > 3 * 3_000


def test_a_deep_tree_corrupted_below_node_5000_fails_verification(tmp_path):
    tree = chain(10_000)
    export(tree, "c-table", out_dir=tmp_path)
    source = (tmp_path / "tree.c").read_text()
    # Split 7,000 (pre-order node 13,998) now tests x <= 7000.5.
    assert source.count(" 7000.0,") == 1
    (tmp_path / "tree.c").write_text(source.replace(" 7000.0,", " 7000.5,"))
    manifest, report = verify_code(tree, np.array([[0.0]]), tmp_path)
    assert manifest["target"] == "c-table"
    assert report.n_checked > 30_000
    assert not report.ok and report.n_mismatches >= 1
    assert [row for row, _, _ in report.mismatches] == [[float(np.nextafter(7000.0, np.inf))]]


def test_many_mismatches_are_all_counted_and_some_shown(tmp_path):
    tree = chain(300)
    export(tree, "python", out_dir=tmp_path)
    source = (tmp_path / "tree.py").read_text()
    (tmp_path / "tree.py").write_text(source.replace("def predict_proba(row", "def _unused(row").replace("def predict(row", "def predict_proba(row):\n    return (0.5, 0.5)\n\n\ndef predict(row", 1))
    _, report = verify_code(tree, np.array([[0.0]]), tmp_path)
    assert report.n_mismatches == report.n_checked > MAX_REPORTED == len(report.mismatches)


# -- the export manifest -------------------------------------------------------------------------


@pytest.mark.parametrize("target,filename", [("python", "w.py"), ("c", "w.c"), ("c-table", "w.c")])
def test_every_generated_file_records_how_it_was_generated(target, filename):
    files = generate(c45(load_temperature()), target, name="w", feature_type="float")
    for text in files.values():
        assert "puretree-export:" in text.splitlines()[0]
    manifest = json.loads(files[filename].splitlines()[0].split("puretree-export:", 1)[1].removesuffix(" */"))
    assert manifest["target"] == target and manifest["name"] == "w"
    assert manifest["form"] == ("table" if target == "c-table" else "nested")
    assert manifest["feature_type"] == ("double" if target == "python" else "float")
    assert manifest["index_type"] == "uint8_t" and manifest["n_features"] == 1 and manifest["puretree"]


def test_a_malformed_manifest_is_a_clear_error(tmp_path):
    (tmp_path / "tree.py").write_text('# puretree-export: {"format": "puretree-export", "version": 1, "target": "cobol"}\n')
    with pytest.raises(CodegenError, match="lacks a valid"):
        read_manifest(tmp_path / "tree.py")
    (tmp_path / "tree.py").write_text("# puretree-export: {not json\n")
    with pytest.raises(CodegenError, match="not valid JSON"):
        find_export(tmp_path)


# -- verify --code on the command line ---------------------------------------------------------


@pytest.fixture()
def model(tmp_path):
    out = tmp_path / "model.json"
    save(id3(load_temperature()), out)  # two thresholds, 54 and 85
    return str(out)


def _export(model, tmp_path, target, *extra):
    out = tmp_path / f"out-{target}"
    assert main(["export", model, "--target", target, "-o", str(out), *extra]) == 0
    return out


@pytest.mark.parametrize("target", ["python", "c", "c-table"])
def test_export_then_verify_code_passes(model, tmp_path, capsys, target):
    out = _export(model, tmp_path, target, "--name", "weather", "--feature-type", "int16")
    capsys.readouterr()
    assert main(["verify", model, str(path("temperature")), "--code", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.strip().endswith(": 0 mismatches")
    assert f"({target}, " in text and "name weather" in text


@pytest.mark.parametrize("target,old,new", [("python", "> 85.0", "> 86.0"), ("c", "> 85.0", "> 86.0"), ("c-table", "54.0, 85.0", "54.0, 86.0")])
def test_an_edited_threshold_is_caught(model, tmp_path, capsys, target, old, new):
    out = _export(model, tmp_path, target)
    source = next(out.glob("*.py" if target == "python" else "*.c"))
    text = source.read_text()
    assert old in text
    source.write_text(text.replace(old, new))
    capsys.readouterr()
    assert main(["verify", model, str(path("temperature")), "--code", str(out)]) == 1
    text = capsys.readouterr().out
    # The first value the edited code decides differently: just above the model's threshold.
    assert f"row [{float(np.nextafter(85.0, np.inf))!r}]" in text and "the code in" in text
    assert " 0 mismatches" not in text


def test_a_stale_export_is_caught(tmp_path, capsys):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    save(chain(3), old)
    save(chain(4), new)
    data = tmp_path / "x.csv"
    data.write_text("x\n0\n2.5\n")
    out = _export(str(old), tmp_path, "c")
    capsys.readouterr()
    assert main(["verify", str(old), str(data), "--code", str(out)]) == 0
    capsys.readouterr()
    assert main(["verify", str(new), str(data), "--code", str(out)]) == 1
    text = capsys.readouterr().out
    assert "row [3.0000000000000004]" in text and " 0 mismatches" not in text


def test_a_folder_without_a_manifest_is_a_clear_error(model, tmp_path, capsys):
    out = _export(model, tmp_path, "c")
    for f in out.iterdir():
        f.write_text("\n".join(f.read_text().splitlines()[1:]))
    capsys.readouterr()
    assert main(["verify", model, str(path("temperature")), "--code", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no code exported by puretree" in err and "Traceback" not in err
    assert main(["verify", model, str(path("temperature")), "--code", str(tmp_path / "nowhere")]) == 1
    assert "no such folder" in capsys.readouterr().err


def test_several_exports_need_a_name(model, tmp_path, capsys):
    out = tmp_path / "both"
    assert main(["export", model, "--target", "python", "--name", "one", "-o", str(out)]) == 0
    assert main(["export", model, "--target", "c", "--name", "two", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["verify", model, str(path("temperature")), "--code", str(out)]) == 1
    assert "several exports" in capsys.readouterr().err
    assert main(["verify", model, str(path("temperature")), "--code", str(out), "--name", "two"]) == 0
    assert "name two" in capsys.readouterr().out
    assert main(["verify", model, str(path("temperature")), "--code", str(out), "--name", "two", "--target", "python"]) == 1
    assert "holds c code" in capsys.readouterr().err


def test_code_for_another_model_shape_is_refused(model, tmp_path, capsys):
    other = tmp_path / "other.json"
    save(Tree(Leaf((1.0, 2.0)), Schema((Feature("x"), Feature("y")), ("a", "b"))), other)
    out = _export(str(other), tmp_path, "python")
    capsys.readouterr()
    assert main(["verify", model, str(path("temperature")), "--code", str(out)]) == 1
    assert "2 features" in capsys.readouterr().err


def test_code_that_raises_is_a_mismatch_not_a_traceback(model, tmp_path, capsys):
    out = _export(model, tmp_path, "python")
    source = out / "tree.py"
    source.write_text(source.read_text().replace("def predict(row", "def predict(row, _=None):\n    raise TypeError('boom')\n\n\ndef _old(row", 1))
    capsys.readouterr()
    assert main(["verify", model, str(path("temperature")), "--code", str(out)]) == 1
    assert "raised TypeError: boom" in capsys.readouterr().out


def test_verify_needs_a_target_or_code(model, capsys):
    assert main(["verify", model, str(path("temperature"))]) == 2
    assert "--target" in capsys.readouterr().err


def test_code_that_does_not_import_is_a_clear_error(model, tmp_path, capsys):
    out = _export(model, tmp_path, "python")
    (out / "tree.py").write_text((out / "tree.py").read_text() + "\ndef broken(:\n")
    capsys.readouterr()
    assert main(["verify", model, str(path("temperature")), "--code", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "importing tree.py failed: SyntaxError" in err


def test_dead_branches_are_named_not_silently_skipped(tmp_path, capsys):
    # Pre-order: 0 x <= 3, 1 x <= 5 (its left branch), 2 and 3 that split's leaves, 4 the root's
    # right leaf. Node 3 needs x > 5 below x <= 3: no row reaches it.
    dead = NumericSplit(0, 5.0, Leaf((1.0, 0.0)), Leaf((0.0, 1.0)), (1.0, 1.0))
    tree = Tree(NumericSplit(0, 3.0, dead, Leaf((0.0, 2.0)), (1.0, 3.0)), Schema((Feature("x"),), ("a", "b")))
    report = verify(tree, np.array([[0.0]]), "python")
    assert report.ok and report.unreached == (3,)
    model, data = tmp_path / "m.json", tmp_path / "d.csv"
    save(tree, model)
    data.write_text("x\n1\n")
    assert main(["verify", str(model), str(data), "--target", "c"]) == 0
    assert "note: 1 nodes are reached by no row without missing values in the feature type (nodes 3)" in capsys.readouterr().out
