"""Model files are untrusted input: what loads is safe to use, what is unsafe is refused at load.

Every hostile model here is refused by ``from_json`` with a ``ModelFormatError`` naming the node
or field, or (the harmless shapes) loads and then predicts, shows, prunes, makes rules and
exports in time and memory bounded by its size.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puretree.codegen.render import generate
from puretree.datasets import load_buys_computer, load_playtennis
from puretree.errors import ModelFormatError
from puretree.grow import cart, id3
from puretree.io import from_dict, from_json, to_dict, to_json
from puretree.prune import cost_complexity_path, pessimistic, simplify
from puretree.predict import UnseenCategoryWarning
from puretree.rules import to_rules
from puretree.text import to_text


def _model(nodes, features=None, classes=("a", "b"), task="classification", missing="distribute"):
    return {
        "format": "puretree-tree", "version": 1, "missing": missing,
        "schema": {"target": "y", "task": task, "classes": list(classes),
                   "features": features if features is not None else [{"name": "c", "kind": "categorical", "categories": ["p", "q"]}]},
        "nodes": nodes,
    }


def _refused(obj, *words):
    with pytest.raises(ModelFormatError) as info:
        from_json(json.dumps(obj) if not isinstance(obj, str) else obj)
    for w in words:
        assert w in str(info.value), (w, str(info.value))
    return str(info.value)


# -- the example: a categorical split with no children -------------------------------


def test_categorical_split_on_a_feature_without_categories_is_refused():
    model = _model([{"kind": "categorical", "feature": 0, "children": [], "counts": [1, 1]}],
                   features=[{"name": "colour", "kind": "categorical", "categories": []}])
    assert len(json.dumps(model, separators=(",", ":"))) < 300
    _refused(model, "nodes[0]", "colour", "no categories")


def test_a_feature_without_categories_that_no_split_uses_is_harmless():
    # What training on an all-missing categorical column gives.
    model = _model([{"kind": "numeric", "feature": 1, "threshold": 0.5, "children": [1, 2], "counts": [2, 2]},
                    {"kind": "leaf", "counts": [2, 0]}, {"kind": "leaf", "counts": [0, 2]}],
                   features=[{"name": "colour", "kind": "categorical", "categories": []}, {"name": "x", "kind": "numeric"}])
    tree = from_dict(model)
    with pytest.warns(UnseenCategoryWarning, match="column 'colour': 1 row"):  # no category was ever seen
        assert tree.predict([[None, 0.0], [None, 1.0], ["red", None]]).tolist() == ["a", "b", "a"]
    assert "x <= 0.5" in to_text(tree)
    assert len(to_rules(tree)) == 2


def test_categorical_split_with_one_child_is_harmless():
    model = _model([{"kind": "categorical", "feature": 0, "children": [1], "counts": [1, 2]}, {"kind": "leaf", "counts": [1, 2]}],
                   features=[{"name": "c", "kind": "categorical", "categories": ["p"]}])
    tree = from_dict(model)
    for missing in ("majority", "distribute"):
        t = from_dict({**model, "missing": missing})
        with pytest.warns(UnseenCategoryWarning, match="column 'c': 1 row"):
            assert t.predict([["p"], [None], ["zzz"]]).tolist() == ["b", "b", "b"]
    assert to_text(tree) == "c = p: b (3/1)"
    assert "c = p" in str(to_rules(tree))
    assert "tree_predict" in generate(tree, "c")["tree.c"]


@pytest.mark.parametrize("left", [[], [0, 1]])
def test_subset_split_sending_no_or_every_category_left_is_refused(left):
    model = _model([{"kind": "subset", "feature": 0, "left_categories": left, "children": [1, 2], "counts": [1, 1]},
                    {"kind": "leaf", "counts": [1, 0]}, {"kind": "leaf", "counts": [0, 1]}])
    _refused(model, "nodes[0]", "some but not all")


@pytest.mark.parametrize("kind,extra", [("numeric", {"feature": 1, "threshold": 0.5}), ("subset", {"feature": 0, "left_categories": [0]})])
@pytest.mark.parametrize("n_children", [0, 1, 3])
def test_binary_splits_need_two_children(kind, extra, n_children):
    nodes = [{"kind": kind, **extra, "children": list(range(1, n_children + 1)), "counts": [1, 1]}] + [{"kind": "leaf", "counts": [1, 1]}] * n_children
    _refused(_model(nodes, features=[{"name": "c", "kind": "categorical", "categories": ["p", "q"]}, {"name": "x", "kind": "numeric"}]), "nodes[0]", "2 children")


def test_subset_splits_are_capped_in_total_table_size(monkeypatch):
    import puretree.io.json as io

    monkeypatch.setattr(io, "MAX_SUBSET_ENTRIES", 10)
    cats = [f"k{i}" for i in range(4)]
    # A chain of subset splits, each costing 4 table entries.
    nodes = []
    for i in range(3):
        nodes += [{"kind": "subset", "feature": 0, "left_categories": [0], "children": [2 * i + 1, 2 * i + 2], "counts": [1, 1]}, {"kind": "leaf", "counts": [1, 0]}]
    nodes = [nodes[0], nodes[1], nodes[2], nodes[3], nodes[4], nodes[5]]
    nodes[4]["children"] = [5, 6]
    nodes += [{"kind": "leaf", "counts": [0, 1]}]
    model = _model(nodes, features=[{"name": "c", "kind": "categorical", "categories": cats}])
    _refused(model, "subset splits together", "10")


# -- counts that would make prediction divide by zero or overflow -----------------------------


def test_counts_adding_up_to_infinity_are_refused():
    model = _model([{"kind": "leaf", "counts": [1e308, 1e308]}])
    _refused(model, "nodes[0]", "add up")


def test_children_weights_adding_up_to_infinity_are_refused():
    model = _model([{"kind": "subset", "feature": 0, "left_categories": [0], "children": [1, 2], "counts": [1, 1]},
                    {"kind": "leaf", "counts": [1e308, 0]}, {"kind": "leaf", "counts": [0, 1e308]}])
    _refused(model, "nodes[0]", "children's weights")


@pytest.mark.parametrize("counts", [[5e-324, 1e308, 1e308], [1e-300, 1e300, 0.0], [1.0, 1e200, 0.0]])
def test_regression_means_that_overflow_are_refused(counts):
    model = _model([{"kind": "leaf", "counts": counts}], classes=(), task="regression")
    _refused(model, "nodes[0]", "overflows")


def test_zero_weight_nodes_borrow_and_never_divide_by_zero():
    model = _model([{"kind": "subset", "feature": 0, "left_categories": [0], "children": [1, 2], "counts": [0, 0]},
                    {"kind": "leaf", "counts": [0, 0]}, {"kind": "leaf", "counts": [0, 0]}])
    tree = from_dict(model)
    with pytest.warns(UnseenCategoryWarning, match="1 row"):
        proba = tree.predict_proba([["p"], ["q"], [None], ["new"]])
    assert np.isfinite(proba).all() and np.allclose(proba, 0.5)
    reg = from_dict(_model([{"kind": "leaf", "counts": [0, 5, 7]}], classes=(), task="regression"))
    assert reg.predict([["p"]]).tolist() == [0.0]


# -- booleans, huge integers, huge numbers, unencodable text ----------------------------------


def _playtennis():
    return to_dict(id3(load_playtennis()))


def test_boolean_version_is_refused():
    _refused({**_playtennis(), "version": True}, "version")


@pytest.mark.parametrize("path,value", [
    (("nodes", 1, "stats", 0), 2**53 + 1),
    (("nodes", 1, "stats", 0), -(2**60)),
    (("nodes", 0, "feature"), 2**53 + 1),
    (("nodes", 0, "children", 0), 2**64),
    (("schema", "classes", 0), 2**53 + 1),
    (("schema", "features", 0, "categories", 0), -(2**53) - 1),
])
def test_integers_beyond_2_53_are_refused(path, value):
    obj = _playtennis()
    where = obj
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    message = _refused(obj)
    assert "2**53" in message or "out of range" in message or "between" in message


def test_numeric_threshold_beyond_2_53_is_refused_and_2_53_is_kept():
    obj = to_dict(cart(np.array([[0.0], [1.0]]), ["a", "b"]))
    obj["nodes"][0]["threshold"] = 2**53 + 1
    _refused(obj, "nodes[0]", "2**53")
    obj["nodes"][0]["threshold"] = 2**53
    assert from_dict(obj).root.threshold == 2.0**53


@pytest.mark.parametrize("digits", [17, 400, 4000])
def test_long_integers_are_a_model_format_error_not_an_overflow(digits):
    text = to_json(id3(load_playtennis())).replace('"stats": [5.0, 9.0]', '"stats": [' + "9" * digits + ", 9.0]", 1)
    with pytest.raises(ModelFormatError, match="2\\*\\*53") as info:
        from_json(text)
    assert len(str(info.value)) < 200


def test_a_5000_digit_number_is_a_model_format_error():
    text = to_json(id3(load_playtennis())).replace('"stats": [5.0, 9.0]', '"stats": [' + "9" * 5000 + ", 9.0]", 1)
    assert "9" * 5000 in text
    with pytest.raises(ModelFormatError, match="too long"):
        from_json(text)
    text = to_json(id3(load_playtennis())).replace('"stats": [5.0, 9.0]', '"stats": [' + "9" * 5000 + ".0, 9.0]", 1)
    with pytest.raises(ModelFormatError, match="finite"):
        from_json(text)


@pytest.mark.parametrize("path", [("schema", "classes", 0), ("schema", "target"), ("schema", "features", 0, "name"), ("schema", "features", 0, "categories", 1)])
def test_lone_surrogates_are_refused_at_load(path):
    text = to_json(id3(load_playtennis()))
    obj = json.loads(text)
    where = obj
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = "x\udc80"
    hostile = json.dumps(obj)  # ensure_ascii: the surrogate is a \udc80 escape, as in a file
    assert "\\udc80" in hostile
    _refused(hostile, "surrogate")


# -- a property: any one-field corruption is refused or harmless ------------------------------

_VALUES = st.one_of(
    st.booleans(), st.none(), st.integers(-3, 12), st.sampled_from([2**53 + 1, -(2**63), 10**30, 10**400]),
    st.dictionaries(st.sampled_from(["kind", "counts", "feature"]), st.integers(0, 2), max_size=2), st.just("\udc80"),
    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([1e308, 5e-324, -0.0]),
    st.text(max_size=3), st.lists(st.integers(-1, 10), max_size=4),
)


def _paths(obj, prefix=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield prefix + (k,)
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield prefix + (i,)
            yield from _paths(v, prefix + (i,))


_BASES = [to_dict(id3(load_playtennis())), to_dict(cart(load_buys_computer()))]
_PATHS = [(b, p) for b in range(len(_BASES)) for p in _paths(_BASES[b])]


@settings(max_examples=150)
@given(which=st.sampled_from(_PATHS), value=_VALUES, missing=st.sampled_from(["majority", "distribute", "error"]))
def test_one_corrupted_field_is_refused_or_harmless(which, value, missing):
    base, path = which
    obj = copy.deepcopy(_BASES[base])
    obj["missing"] = missing
    where = obj
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    try:
        tree = from_dict(obj)
    except ModelFormatError:
        return
    # It loaded: every command on it finishes and gives finite answers.
    names = tree.schema.feature_names
    rows = [{n: None for n in names}, {n: "?" for n in names}]
    rows += [{n: (f.categories[0] if f.categories else None) if not f.is_numeric else 0.0 for n, f in zip(names, tree.schema.features)}]
    if missing != "error":
        proba = tree.predict_proba(rows) if not tree.schema.is_regression else np.asarray(tree.predict(rows))
        assert np.isfinite(proba).all()
    assert isinstance(to_text(tree), str)
    if not tree.schema.is_regression:
        assert len(to_rules(tree)) >= 1
    simplify(tree)
    if not tree.schema.is_regression:
        pessimistic(tree)
    cost_complexity_path(tree)
    files = generate(tree, "c-table")
    assert "tree_predict" in files["tree.c"]
    assert from_json(to_json(tree)) == tree


# -- on the command line: one line, exit 1, for every command ---------------------------------


_HOSTILE = {
    "no_children": (_model([{"kind": "categorical", "feature": 0, "children": [], "counts": [1, 1]}], features=[{"name": "colour", "kind": "categorical", "categories": []}]), "nodes[0]"),
    "version_true": ({**_playtennis(), "version": True}, "version"),
    "huge_count": (_model([{"kind": "leaf", "counts": [2**53 + 1, 0]}]), "2**53"),
    "empty_subset": (_model([{"kind": "subset", "feature": 0, "left_categories": [], "children": [1, 2], "counts": [1, 1]},
                             {"kind": "leaf", "counts": [1, 0]}, {"kind": "leaf", "counts": [0, 1]}]), "some but not all"),
}


@pytest.mark.parametrize("case", sorted(_HOSTILE))
@pytest.mark.parametrize("command", [["show"], ["rules"], ["predict", "DATA"], ["prune", "--method", "pessimistic", "-o", "OUT"], ["export", "--target", "c", "-o", "OUT"], ["verify", "--target", "c", "DATA"]])
def test_hostile_models_get_one_line_on_every_command(tmp_path, capsys, case, command):
    from puretree.cli import main

    obj, needle = _HOSTILE[case]
    model = tmp_path / "m.json"
    model.write_text(json.dumps(obj))
    data = tmp_path / "d.csv"
    data.write_text("colour,c\np,p\n")
    argv = [command[0], str(model)] + [str(data) if a == "DATA" else str(tmp_path / "out") if a == "OUT" else a for a in command[1:]]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err and "m.json" in err
    assert not (tmp_path / "out").exists()


def test_a_lone_surrogate_in_a_model_file_is_refused_by_show(tmp_path, capsys):
    from puretree.cli import main

    text = to_json(id3(load_playtennis())).replace('"yes"', '"y\\udc80s"')
    (tmp_path / "m.json").write_text(text, encoding="ascii")
    assert main(["show", str(tmp_path / "m.json")]) == 1
    err = capsys.readouterr().err
    assert "surrogate" in err and err.count("\n") == 1
