"""Model files and values that used to load wrong, in silence, or fail with Python's own error
(issue 23): categories (or classes) that the cell rules make one value, ``NaN`` or ``Infinity``
in a model file (named by the field that holds it, not "a number in the model is too long"),
and integers too long for Python's ``str`` in a model's dictionary or a schema built by hand.
Each is a :class:`~puretree.errors.PuretreeError` naming the field; on the command line one
line on stderr and a non-zero exit."""

from __future__ import annotations

import json

import pytest

import puretree as pt
from puretree.datasets import load_playtennis
from puretree.errors import DataError, ModelFormatError
from puretree.io import from_dict, from_json, to_dict, to_json
from puretree.nodes import Feature, Schema

from test_reliability_input import refused_on_one_line, run  # the puretree command, as a user runs it

BIG = 10**5000


# -- a model's categories and classes: one value, one meaning --------------------------------------


def _model(categories, classes=("a", "b")):
    m = len(categories)
    return {
        "format": "puretree-tree",
        "version": 3,
        "missing": "majority",
        "criterion": None,
        "schema": {"target": "y", "task": "classification", "classes": list(classes), "features": [{"name": "f", "kind": "categorical", "categories": list(categories)}]},
        "nodes": [{"kind": "multiway", "feature": 0, "children": list(range(1, m + 1)), "stats": [1, m - 1]}]
        + [{"kind": "leaf", "stats": [1, 0] if i == 0 else [0, 1]} for i in range(m)],
    }


#: Categories a cell cannot tell apart: booleans with numbers (True == 1 in Python), two
#: spellings of one value, a repeat.
AMBIGUOUS = [[True, 1], [False, 0], [True, 2], [1, 1.0], [0, -0.0], [1, "1"], ["1.0", "1"], [True, "true"], ["True", "true"], ["a", " a"], ["a", "a"], [1, 1], ["x", 2, 2.0]]


@pytest.mark.parametrize("categories", AMBIGUOUS, ids=repr)
def test_a_model_whose_categories_a_cell_cannot_tell_apart_is_refused_at_load(categories):
    with pytest.raises(ModelFormatError, match=r"^schema\.features\[0\]\.categories: "):
        from_dict(_model(categories))
    with pytest.raises(ModelFormatError, match=r"schema\.features\[0\]\.categories"):
        from_json(json.dumps(_model(categories)))


@pytest.mark.parametrize("classes", AMBIGUOUS[:10], ids=repr)
def test_a_model_whose_classes_are_one_value_is_refused_at_load(classes):
    with pytest.raises(ModelFormatError, match=r"^schema\.classes: "):
        from_dict(_model(["x", "y"], classes=classes))


@pytest.mark.parametrize("categories", [[False, True], [0, 1, 2], ["1", "2"], ["a", "A", "b"], [1.5, 2], ["x", 1]], ids=repr)
def test_categories_a_cell_tells_apart_still_load_and_predict_as_shown(categories):
    tree = from_dict(_model(categories))
    text = tree.to_text()
    for i, c in enumerate(categories):
        assert f"f = {c}:" in text
        # one row (the compiled path) and a batch agree with what show prints
        assert pt.predict(tree, {"f": c}) == ("a" if i == 0 else "b")
        assert pt.predict(tree, [{"f": c}]).tolist() == ["a" if i == 0 else "b"]


def test_the_issue_model_true_and_1_is_refused_by_show(tmp_path):
    (tmp_path / "m.json").write_text(json.dumps(_model([True, 1])), encoding="utf-8")
    code, out, err = run("show", "m.json", cwd=tmp_path)
    refused_on_one_line(code, err, "m.json", "schema.features[0].categories", "booleans and numbers")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: Schema((Feature("a"),), (1, BIG)), "Schema.classes: the integer of 5001 digits is beyond 2\\*\\*53"),
        (lambda: Feature("a", "categorical", ("x", -BIG)), "Feature.categories: the integer of 5001 digits"),
        (lambda: Schema((Feature("a"),), (1, 2**53 + 1)), "Schema.classes: the integer 9007199254740993 is beyond 2\\*\\*53"),
    ],
)
def test_a_schema_made_by_hand_refuses_integers_a_model_cannot_hold(call, message):
    """Else show, save and predict would meet Python's ValueError (no str of 4,300+ digits)."""
    with pytest.raises(DataError, match=message):
        call()


# -- integers too long for Python's str in a model's dictionary ---------------------------------


def _field(obj, path, value):
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value


@pytest.mark.parametrize(
    "path, where",
    [
        (("version",), "model: unsupported version an integer of 5001 digits"),
        (("format",), "model: not a puretree model \\(format an integer of 5001 digits"),
        (("missing",), "model: unknown missing-value strategy an integer of 5001 digits"),
        (("criterion",), "model: field 'criterion' must be a string or null, got an integer of 5001 digits"),
        (("schema", "classes", 0), "schema.classes: integer label of 5001 digits is beyond 2\\*\\*53"),
        (("schema", "target"), "schema: field 'target' must be str, got an integer of 5001 digits"),
        (("nodes", 0, "feature"), "nodes\\[0\\]: field 'feature': the integer of 5001 digits is beyond 2\\*\\*53"),
        (("nodes", 0, "children", 0), "nodes\\[0\\]: child index an integer of 5001 digits"),
    ],
)
def test_a_model_dict_holding_an_integer_too_long_for_str_names_its_field(path, where):
    d = to_dict(pt.id3(load_playtennis()))
    _field(d, path, BIG)
    with pytest.raises(ModelFormatError, match=where):
        from_dict(d)


@pytest.mark.parametrize("key, where", [("version", "model"), ("method", "model.method"), ("seed", "model.seed"), ("oob_score", "model.oob_score"), (("weights", 2), "model.weights\\[2\\]"), (("options", "n_trees"), "model.options")])
def test_an_ensemble_dict_holding_an_integer_too_long_for_str_names_its_field(key, where):
    d = to_dict(pt.bagging(load_playtennis(), n_trees=3))
    _field(d, key if isinstance(key, tuple) else (key,), BIG)
    with pytest.raises(ModelFormatError, match=f"^{where}: "):
        from_dict(d)


# -- NaN and Infinity: not JSON, named by their field -----------------------------------------


def _ensemble_text():
    return to_json(pt.bagging(load_playtennis(), n_trees=4))


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_non_finite_weight_in_an_ensemble_file_names_the_weight(constant):
    d = json.loads(_ensemble_text())
    text = _ensemble_text().replace(json.dumps(d["weights"]), "[1.0, 1.0, 1.0, " + constant + "]")
    assert constant in text
    with pytest.raises(ModelFormatError, match=rf"^model.weights\[3\]: expected a finite number >= 0, got {constant} \(not a valid JSON number\)"):
        from_json(text)


def test_a_non_finite_number_in_a_member_names_the_member_and_node():
    text = _ensemble_text().replace('"stats": [', '"stats": [NaN, ', 1)
    with pytest.raises(ModelFormatError, match=r"^model.members\[0\]: nodes\[0\]: "):
        from_json(text)
    text = _ensemble_text().replace('"oob_score": ', '"oob_score": Infinity, "was": ', 1)
    with pytest.raises(ModelFormatError, match=r"^model.oob_score: expected a number or null, got Infinity"):
        from_json(text)


def test_a_non_finite_number_where_no_reader_looks_is_still_refused():
    text = _ensemble_text().replace('{"format": ', '{"note": NaN, "format": ', 1)
    assert "NaN" in text
    with pytest.raises(ModelFormatError, match="NaN"):
        from_json(text)


def test_show_names_the_weight_on_the_command_line(tmp_path):
    d = json.loads(_ensemble_text())
    (tmp_path / "e.json").write_text(_ensemble_text().replace(json.dumps(d["weights"]), "[1.0, NaN, 1.0, 1.0]"), encoding="utf-8")
    code, out, err = run("show", "e.json", cwd=tmp_path)
    refused_on_one_line(code, err, "e.json", "model.weights[1]", "NaN")
