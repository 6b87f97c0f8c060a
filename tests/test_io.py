"""JSON: the versioned format, round trips, and validation of everything on load."""

from __future__ import annotations

import copy
from pathlib import Path
import json

import attrs
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puretree.datasets import load_buys_computer, load_playtennis, load_temperature
from puretree.errors import ModelFormatError
from puretree.grow import c45, cart, cart_regressor, id3
from puretree.io import FORMAT, VERSION, from_dict, from_json, load, save, to_dict, to_json
from puretree.nodes import Feature, Leaf, NumericSplit, Schema
from puretree.tree import Tree
from puretree.fold import iter_nodes
from puretree.strategies import trees


def _mixed_tree():
    """A tree holding every node kind: numeric, categorical (multiway) and leaves; CART adds subsets."""
    rows = [{"t": t, "sky": s} for t, s in [(1, "sun"), (2, "rain"), (3, "sun"), (4, "fog"), (5, "rain"), (6, "sun"), (7, "fog")]]
    return c45(rows, ["a", "b", "a", "b", "a", "b", "a"], min_samples_leaf=1)


def test_format_fields():
    d = to_dict(c45(load_temperature()))
    # A tree without a learned missing-value side is written as version 3, as before version 4.
    assert d["format"] == FORMAT == "puretree-tree" and d["version"] == 3 and VERSION == 6
    assert d["threshold_convention"] == "x <= threshold goes to children[0]"
    assert d["schema"] == {"target": "play", "task": "classification", "classes": ["no", "yes"], "features": [{"name": "temperature", "kind": "numeric"}]}
    assert d["criterion"] == "entropy"
    assert d["nodes"][0] == {"kind": "threshold", "feature": 0, "threshold": 54.0, "children": [1, 2], "stats": [3.0, 3.0]}
    assert d["nodes"][1] == {"kind": "leaf", "stats": [2.0, 0.0]}
    assert json.loads(to_json(c45(load_temperature()))) == d


def test_pre_order_and_child_indices():
    d = to_dict(id3(load_playtennis()))
    kinds = [n["kind"] for n in d["nodes"]]
    assert kinds == ["multiway", "leaf", "multiway", "leaf", "leaf", "multiway", "leaf", "leaf"]
    assert d["nodes"][0]["children"] == [1, 2, 5]
    assert d["nodes"][2]["children"] == [3, 4]


@pytest.mark.parametrize("make", [lambda: id3(load_playtennis()), lambda: cart(load_buys_computer()), lambda: c45(load_temperature()), _mixed_tree])
def test_round_trip(make, tmp_path):
    tree = make()
    back = from_json(to_json(tree))
    assert back == tree and hash(back) == hash(tree)
    assert to_dict(back) == to_dict(tree)
    save(tree, tmp_path / "m.json")
    assert load(tmp_path / "m.json") == tree
    assert load(str(tmp_path / "m.json")).missing == tree.missing


def test_thresholds_and_counts_survive_exactly():
    x = np.array([[0.1], [0.1 + 2**-52], [1 / 3], [1e-300], [2e300]])
    tree = cart(x, [0, 1, 0, 1, 0], sample_weight=[0.1, 0.7, 1 / 3, 2.5, 1e-3])
    back = from_json(to_json(tree))
    assert back == tree
    assert (back.predict(x) == tree.predict(x)).all()


@pytest.mark.parametrize("labels", [["no", "yes"], [0, 5], [False, True], [0.5, 1.5]])
def test_label_and_category_types_survive(labels):
    rows = [{"c": 1, "s": "x"}, {"c": 2, "s": "y"}, {"c": 1, "s": "y"}, {"c": 2, "s": "x"}]
    tree = id3(rows, [labels[0], labels[1], labels[0], labels[1]], categorical=["c"])
    back = from_json(to_json(tree))
    assert back.schema.classes == tuple(labels)
    assert [type(c) for c in back.schema.classes] == [type(c) for c in labels]
    assert back.schema.features[0].categories == (1, 2)
    assert back.predict({"c": 2, "s": "x"}) == labels[1]
    assert type(back.predict({"c": 2, "s": "x"})) is type(labels[1])


def test_names_and_labels_are_data_not_code():
    rows = [{'x"); import os #': 1, "ü\n\\": "a'b"}, {'x"); import os #': 2, "ü\n\\": '"'}]
    tree = cart(rows, ["</script>", "x\u2028y"])
    back = from_json(to_json(tree))
    assert back == tree


@st.composite
def data_sets(draw):
    n = draw(st.integers(1, 20))
    num = draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=n, max_size=n))
    cat = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    pool = draw(st.sampled_from([[True, False], ["0", "1", "2"], [-1, 3]]))
    y = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    return [{"num": a, "cat": b} for a, b in zip(num, cat)], y


@pytest.mark.parametrize("learner", [id3, c45, cart])
@given(data=data_sets())
def test_round_trip_preserves_equality_and_predictions(learner, data):
    rows, y = data
    tree = learner(rows, y)
    back = from_json(to_json(tree))
    assert back == tree
    probe = rows + [{"num": 0.0, "cat": "unseen"}, {"num": None, "cat": None}]
    assert back.predict(probe, unseen="ignore").tolist() == tree.predict(probe, unseen="ignore").tolist()  # "unseen": on purpose
    assert np.array_equal(back.predict_proba(probe, unseen="ignore"), tree.predict_proba(probe, unseen="ignore"))


# -- malformed models ---------------------------------------------------------------------------


def _base():
    """A valid model with a categorical split, numeric splits and leaves."""
    return to_dict(_mixed_tree())


def _subset_base():
    return to_dict(cart(load_buys_computer()))


def _set(path, value):
    def mutate(d):
        *head, last = path
        for key in head:
            d = d[key]
        d[last] = value

    return mutate


def _delete(path):
    def mutate(d):
        *head, last = path
        for key in head:
            d = d[key]
        del d[last]

    return mutate


def _find(d, kind):
    return next(i for i, n in enumerate(d["nodes"]) if n["kind"] == kind)


BAD = [
    ("not an object", lambda d: [d], "expected a JSON object"),
    ("wrong format", _set(["format"], "sklearn-tree"), "not a puretree model"),
    ("missing format", _delete(["format"]), "not a puretree model"),
    ("wrong version", _set(["version"], 7), "unsupported version 7"),
    ("version as text", _set(["version"], "1"), "unsupported version '1'"),
    ("no schema", _delete(["schema"]), "schema"),
    ("unknown task", _set(["schema", "task"], "ranking"), "'ranking'"),
    ("classes not a list", _set(["schema", "classes"], "ab"), "'classes'"),
    ("duplicate classes", _set(["schema", "classes"], ["a", "a"]), "duplicate value 'a'"),
    ("class of a bad type", _set(["schema", "classes"], ["a", ["b"]]), "['b']"),
    ("no classes", _set(["schema", "classes"], []), "at least one class"),
    ("unknown feature kind", _set(["schema", "features", 0, "kind"], "ordinal"), "'ordinal'"),
    ("feature name not text", _set(["schema", "features", 0, "name"], 3), "schema.features[0]"),
    ("duplicate feature names", _set(["schema", "features", 1, "name"], "t"), "duplicate value 't'"),
    ("duplicate categories", _set(["schema", "features", 1, "categories"], ["fog", "fog", "sun"]), "duplicate value 'fog'"),
    ("no nodes", _set(["nodes"], []), "at least one node"),
    ("nodes not a list", _set(["nodes"], {}), "'nodes'"),
    ("node not an object", _set(["nodes", 1], 7), "nodes[1]"),
    ("unknown node kind", lambda d: d["nodes"][0].update(kind="oblique"), "unknown node kind 'oblique'"),
    ("child index out of range", lambda d: d["nodes"][0]["children"].__setitem__(0, 99), "child index 99"),
    ("child index not an integer", lambda d: d["nodes"][0]["children"].__setitem__(0, 1.0), "child index 1.0"),
    ("child index a boolean", lambda d: d["nodes"][0]["children"].__setitem__(0, True), "child index True"),
    ("cycle to the root", lambda d: d["nodes"][0]["children"].__setitem__(0, 0), "child index 0"),
    ("cycle upwards", lambda d: d["nodes"][_find(d, "threshold")]["children"].__setitem__(0, 0), "child index 0"),
    ("shared child", lambda d: d["nodes"][0]["children"].__setitem__(1, d["nodes"][0]["children"][0]), "more than one node"),
    ("unreachable node", lambda d: d["nodes"].append({"kind": "leaf", "stats": [1, 0]}), "not reachable"),
    ("feature index out of range", lambda d: d["nodes"][0].update(feature=5), "feature index 5 is out of range"),
    ("feature index negative", lambda d: d["nodes"][0].update(feature=-1), "feature index -1"),
    ("feature index as text", lambda d: d["nodes"][0].update(feature="0"), "field 'feature' must be int"),
    ("numeric split on a categorical feature", lambda d: d["nodes"][_find(d, "threshold")].update(feature=1), "needs a numeric feature"),
    ("too few children (orphaned)", lambda d: d["nodes"][_find(d, "multiway")]["children"].pop(), "not reachable"),
    ("too many children", lambda d: d["nodes"][_find(d, "multiway")]["children"].append(len(d["nodes"])) or d["nodes"].append({"kind": "leaf", "stats": [0, 0]}), "one child per category (3), got 4"),
    ("counts too short", lambda d: d["nodes"][1]["stats"].pop(), "stats has 1 entries, expected 2"),
    ("counts missing", lambda d: d["nodes"][1].pop("stats"), "missing field 'stats'"),
    ("negative count", lambda d: d["nodes"][1].update(stats=[-1, 2]), "must not be negative"),
    ("count as text", lambda d: d["nodes"][1].update(stats=["1", 2]), "'1' is not a finite number"),
    ("count a boolean", lambda d: d["nodes"][1].update(stats=[True, 2]), "True is not a finite number"),
    ("threshold as text", lambda d: d["nodes"][_find(d, "threshold")].update(threshold="2.5"), "field 'threshold'"),
    ("threshold missing", lambda d: d["nodes"][_find(d, "threshold")].pop("threshold"), "missing field 'threshold'"),
    ("unknown missing strategy", _set(["missing"], "drop"), "'drop'"),
    ("criterion not text", _set(["criterion"], 3), "field 'criterion'"),
    ("version 1 kind name in version 3", lambda d: d["nodes"][_find(d, "threshold")].update(kind="numeric"), "unknown node kind 'numeric' in a version 3 model (that is version 1's name for what version 3 calls 'threshold')"),
]


@pytest.mark.parametrize("name, mutate, message", BAD, ids=[b[0] for b in BAD])
def test_malformed_model_is_refused(name, mutate, message):
    d = copy.deepcopy(_base())
    if name == "not an object":
        d = mutate(d)
    else:
        mutate(d)
    with pytest.raises(ModelFormatError) as info:
        from_dict(d)
    assert message in str(info.value)
    text = json.dumps(d)
    with pytest.raises(ModelFormatError, match=None):
        from_json(text)


SUBSET_BAD = [
    ("category code out of range", lambda d: d["nodes"][_find(d, "subset")].update(left_categories=[0, 9]), "category code 9 is out of range (0..2)"),
    ("category code negative", lambda d: d["nodes"][_find(d, "subset")].update(left_categories=[-1]), "category code -1"),
    ("category code as text", lambda d: d["nodes"][_find(d, "subset")].update(left_categories=["youth"]), "category code 'youth'"),
    ("three children", lambda d: d["nodes"][_find(d, "subset")]["children"].append(len(d["nodes"])) or d["nodes"].append({"kind": "leaf", "stats": [0, 0]}), "2 children, got 3"),
]


@pytest.mark.parametrize("name, mutate, message", SUBSET_BAD, ids=[b[0] for b in SUBSET_BAD])
def test_malformed_subset_split_is_refused(name, mutate, message):
    d = copy.deepcopy(_subset_base())
    mutate(d)
    with pytest.raises(ModelFormatError) as info:
        from_dict(d)
    assert message in str(info.value)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_json_numbers_are_refused(constant):
    text = to_json(c45(load_temperature())).replace('"threshold": 54.0', f'"threshold": {constant}')
    assert constant in text
    with pytest.raises(ModelFormatError, match=constant):
        from_json(text)
    text = to_json(c45(load_temperature())).replace('"stats": [2.0, 0.0]', f'"stats": [{constant}, 0.0]')
    with pytest.raises(ModelFormatError, match=constant):
        from_json(text)


def test_overflowing_threshold_is_refused():
    text = to_json(c45(load_temperature())).replace('"threshold": 54.0', '"threshold": 1e999')
    with pytest.raises(ModelFormatError, match=r"nodes\[0\]: threshold inf is not finite"):
        from_json(text)
    text = to_json(c45(load_temperature())).replace('"stats": [2.0, 0.0]', '"stats": [1e999, 0.0]')
    with pytest.raises(ModelFormatError, match=r"nodes\[1\].*inf"):
        from_json(text)


@pytest.mark.parametrize("text", ["", "{", "nul", "[1, 2", "\"tree\"", "42", "[" * 100_000 + "]" * 100_000])
def test_not_json_at_all(text):
    with pytest.raises(ModelFormatError):
        from_json(text)


def test_load_errors_name_the_file(tmp_path):
    with pytest.raises(ModelFormatError, match="nothere.json: no such file"):
        load(tmp_path / "nothere.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "puretree-tree", "version": 7}')
    with pytest.raises(ModelFormatError, match="bad.json: model: unsupported version 7"):
        load(bad)
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ModelFormatError, match="bin.json"):
        load(binary)
    with pytest.raises(ModelFormatError, match="directory"):
        load(tmp_path)


def test_hand_built_tree_with_numpy_index_saves():
    schema = Schema((Feature("x"),), ("a", "b"))
    tree = Tree(NumericSplit(np.int64(0), np.float32(0.5), Leaf((1, 0)), Leaf((0, 1)), (1, 1)), schema)
    assert from_json(to_json(tree)) == tree


# -- version 1 files (written by puretree before the split kinds were named after their tests) --

V1_MODELS = Path(__file__).parent / "data" / "models"


@pytest.mark.parametrize("name", ["v1_c45_mixed.json", "v1_cart_buys.json"])
def test_version_1_files_still_load(name):
    # Files saved by the previous release: kinds "numeric", "categorical", "subset", no criterion.
    text = (V1_MODELS / name).read_text()
    assert json.loads(text)["version"] == 1
    tree = load(V1_MODELS / name)
    assert tree.criterion is None
    grown = _mixed_tree() if "mixed" in name else cart(load_buys_computer())
    assert tree == attrs.evolve(grown, criterion=None)
    # Written again, the file is version 2 and reads back as the same tree.
    assert to_dict(tree)["version"] == 3 and from_json(to_json(tree)) == tree


@pytest.mark.parametrize("name", ["v2_cart_buys.json", "v2_cart_regressor.json"])
def test_version_2_files_still_load(name):
    # Files saved by the previous release name every node's statistics "counts", even a
    # regression tree's (weight, sum, sum of squares); version 3 calls them "stats".
    old = json.loads((V1_MODELS / name).read_text())
    assert old["version"] == 2 and all("counts" in n and "stats" not in n for n in old["nodes"])
    tree = load(V1_MODELS / name)
    assert [list(node.stats) for node in iter_nodes(tree)] == [n["counts"] for n in old["nodes"]]
    new = to_dict(tree)
    assert new["version"] == 3 and [n["stats"] for n in new["nodes"]] == [n["counts"] for n in old["nodes"]]
    assert from_json(to_json(tree)) == tree
    if "regressor" in name:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(40, 2)).round(3)
        y = (X[:, 0] * 3 + X[:, 1]).round(3)
        assert tree == cart_regressor(X, y, feature_names=["a", "b"], max_depth=3)
    else:
        assert tree == cart(load_buys_computer())


def test_version_1_kind_names():
    d = to_dict(_mixed_tree())
    renamed = {"threshold": "numeric", "multiway": "categorical", "subset": "subset", "leaf": "leaf"}
    as_v1 = lambda n: {**{k: v for k, v in n.items() if k != "stats"}, "kind": renamed[n["kind"]], "counts": n["stats"]}
    old = {**d, "version": 1, "nodes": [as_v1(n) for n in d["nodes"]]}
    del old["criterion"]
    assert from_dict(old) == attrs.evolve(_mixed_tree(), criterion=None)
    # Version 1 knew no criterion: one in a version 1 file is ignored, as that release did.
    assert from_dict({**old, "criterion": "gini"}).criterion is None
    with pytest.raises(ModelFormatError, match="unknown node kind 'multiway'"):
        from_dict({**old, "nodes": [{**n, "counts": n["stats"]} for n in d["nodes"]]})


def test_criterion_round_trips():
    tree = cart(load_buys_computer())
    assert tree.criterion == "gini"
    assert from_json(to_json(tree)).criterion == "gini"
    unknown = attrs.evolve(tree, criterion=None)
    assert to_dict(unknown)["criterion"] is None and from_dict(to_dict(unknown)).criterion is None
    # The criterion is a note on how the tree was made, not part of what it decides.
    assert unknown == tree and hash(unknown) == hash(tree)


@given(trees(max_depth=4))
def test_node_ids_are_pre_order_as_flatten_numbers_them(tree):
    # Written ids are the pre-order ids everything else uses (predict.apply, rewrites.collapse).
    from puretree.fold import iter_nodes
    from puretree.flat import flatten

    nodes = to_dict(tree)["nodes"]
    flat = flatten(tree)
    assert len(nodes) == flat.n_nodes
    for i, (entry, node) in enumerate(zip(nodes, iter_nodes(tree))):
        start = flat.child_offset[i]
        assert entry.get("children", []) == flat.child_table[start : start + flat.n_children[i]].tolist()
        assert entry["stats"] == list(node.counts)


def test_a_10_000_level_chain_saves_and_loads(tmp_path):
    node = Leaf((1, 0))
    for d in range(10_000):
        node = NumericSplit(0, float(d), Leaf((0, 1)), node, (1, d + 1))
    tree = Tree(node, Schema((Feature("x"),), ("a", "b")))
    nodes = to_dict(tree)["nodes"]
    assert [n.get("children") for n in nodes[:3]] == [[1, 2], None, [3, 4]] and nodes[-1]["kind"] == "leaf"
    save(tree, tmp_path / "deep.json")
    assert load(tmp_path / "deep.json") == tree
