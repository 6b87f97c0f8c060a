"""puretree.strategies: what the strategies draw, how they shrink, how they reject bad
arguments, and puretree's own core invariants tested with them."""

import math
from functools import partial
import random

import numpy as np
import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from puretree.criteria import GainRatio, ImpurityDecrease
from puretree.fold import depth, iter_nodes, n_nodes
from puretree.grow import c45, cart, grow, id3
from puretree.invariants import check_fits_training_data, check_impurity, check_roundtrip, check_tree, next_down, next_up
from puretree.nodes import CategoricalSplit, Feature, Leaf, Multiway, NumericSplit, Schema, Split, Subset, SubsetSplit, Threshold, children
from puretree.tree import Tree
from puretree.predict import UnseenCategoryWarning, predict, predict_proba
from puretree.strategies import (
    EDGE_FLOATS,
    EDGE_FLOATS32,
    boundary_rows,
    class_counts,
    criteria,
    datasets,
    impurities,
    leaves,
    numbers,
    schemas,
    trees,
)
from puretree.text import to_text

F64_MAX = float(np.finfo(np.float64).max)


def drawn(strategy, condition, *, within=300):
    """An example satisfying ``condition`` among the first ``within`` draws (no shrinking):
    proof that the strategy produces such cases, not only that they are possible."""
    # A fixed seed: the test checks what the strategy draws, so it must not flake.
    return find(strategy, condition, settings=settings(phases=[Phase.generate], max_examples=within, database=None), random=random.Random(0))


def is_float32(x: float) -> bool:
    return float(np.float32(x)) == x


# -- datasets --------------------------------------------------------------------------


@given(datasets(min_rows=2, max_rows=7, min_features=2, max_features=3, n_classes=3, max_categories=3))
def test_datasets_are_well_formed_and_within_bounds(ds):
    assert 2 <= ds.n_rows <= 7 and 2 <= ds.schema.n_features <= 3
    assert ds.X.dtype == np.float64 and ds.X.shape == (ds.n_rows, ds.schema.n_features)
    assert len(ds.schema.classes) == 3 and ds.y.dtype == np.int64 and ((ds.y >= 0) & (ds.y < 3)).all()
    assert list(ds.schema.classes) == sorted(ds.schema.classes)
    assert np.isfinite(ds.X).all() and ds.sample_weight is None
    for j, f in enumerate(ds.schema.features):
        if not f.is_numeric:
            assert 1 <= len(f.categories) <= 3
            assert set(ds.X[:, j].tolist()) <= set(map(float, range(len(f.categories))))
    assert len(ds.labels()) == ds.n_rows


@given(datasets(kinds=("categorical",), max_rows=5))
def test_datasets_kinds_are_respected(ds):
    assert all(not f.is_numeric for f in ds.schema.features)


@given(datasets(width=32, kinds=("numeric",)))
def test_width_32_gives_float32_values(ds):
    assert all(is_float32(v) for v in ds.X.ravel().tolist())


@given(datasets(weights=True, max_rows=6))
def test_weights_are_finite_non_negative_and_not_all_zero(ds):
    w = ds.sample_weight
    assert w.shape == (ds.n_rows,) and np.isfinite(w).all() and (w >= 0).all() and (w > 0).any()


@given(datasets(max_rows=6))
def test_no_missing_cells_unless_asked(ds):
    assert not np.isnan(ds.X).any()


def test_missing_cells_when_asked():
    ds = find(datasets(missing=True), lambda ds: np.isnan(ds.X).any())
    assert ds.X.shape == (1, 1) and math.isnan(ds.X[0, 0])
    always = drawn(datasets(missing=1.0, min_rows=3), lambda ds: True)
    assert np.isnan(always.X).all()


def test_datasets_shrink_to_one_plain_row():
    ds = find(datasets(), lambda ds: True)
    assert ds.X.tolist() == [[0.0]] and ds.y.tolist() == [0] and ds.schema.classes == ("a",)
    assert ds.schema.feature_names == ("x0",)


# The cases that break tree code are drawn, and each shrinks to a small instance.


def test_duplicated_rows_with_different_labels():
    drawn(datasets(), lambda ds: any(
        (ds.X[i] == ds.X[j]).all() and ds.y[i] != ds.y[j] for i in range(ds.n_rows) for j in range(i)), within=100)
    ds = find(datasets(min_rows=2, max_features=1), lambda ds: ds.X[0, 0] == ds.X[1, 0] and ds.y[0] != ds.y[1])
    assert ds.n_rows == 2 and ds.X.tolist() == [[0.0], [0.0]] and ds.labels().tolist() == ["a", "b"]


def test_constant_columns_and_single_class():
    ds = drawn(datasets(min_rows=3, min_features=2), lambda ds: len(set(ds.X[:, 1].tolist())) == 1 and len(set(ds.X[:, 0].tolist())) > 1, within=100)
    assert ds.n_rows >= 3
    drawn(datasets(min_rows=2), lambda ds: len(set(ds.y.tolist())) == 1, within=100)
    single = drawn(datasets(min_rows=4, n_classes=1), lambda ds: True)
    assert set(single.y.tolist()) == {0} and len(single.schema.classes) == 1


@pytest.mark.parametrize(
    "edge",
    [
        lambda v: 0 < abs(v) < np.finfo(np.float64).tiny,  # subnormal
        lambda v: abs(v) == F64_MAX,  # the largest finite value
        lambda v: v == float(np.finfo(np.float32).max),
        lambda v: v == 0.0 and math.copysign(1.0, v) < 0,  # negative zero
    ],
    ids=["subnormal", "float64-max", "float32-max", "negative-zero"],
)
def test_edge_values_are_drawn(edge):
    drawn(datasets(kinds=("numeric",)), lambda ds: any(edge(v) for v in ds.X.ravel().tolist()), within=1000)


def test_adjacent_floats_are_drawn():
    drawn(datasets(kinds=("numeric",)), lambda ds: any(
        next_up(a) == b for a in ds.X[:, 0].tolist() for b in ds.X[:, 0].tolist() if a != 0), within=200)


def test_ties_in_gains_are_drawn():
    # Two features with exactly the same best information gain at the root.
    from puretree.grow import attribute_scores

    def tied(ds):
        scores = [s for s in attribute_scores(ds).values() if s > 0]
        return len(scores) == 2 and scores[0] == scores[1]

    drawn(datasets(min_features=2, max_features=2, kinds=("numeric",), n_classes=2), tied, within=200)


def test_numbers_edges():
    # Derandomised, without the example database and with room to search: whether a random
    # search happens upon a value above 1e38 (it once did not, in a fresh clone) is not what
    # this test is about.
    fixed = settings(database=None, derandomize=True, max_examples=5000)
    assert find(numbers(), lambda x: True, settings=fixed) == 0.0
    assert all(is_float32(v) for v in EDGE_FLOATS32)
    assert 5e-324 in EDGE_FLOATS and F64_MAX in EDGE_FLOATS
    assert find(numbers(width=32), lambda x: x > 1e38, settings=fixed) == float(np.finfo(np.float32).max)


# -- schemas, counts, leaves -------------------------------------------------------------


@given(schemas(names=st.text(min_size=1, max_size=5), min_features=2))
def test_schemas_with_drawn_names_are_unique(schema):
    assert len(set(schema.feature_names)) == schema.n_features >= 2


@given(class_counts(n_classes=3, weighted=True))
def test_class_counts(counts):
    assert len(counts) == 3 and all(v >= 0 and (2 * v).is_integer() for v in counts)


@given(leaves(n_classes=2))
def test_leaves(leaf):
    assert isinstance(leaf, Leaf) and len(leaf.counts) == 2


# -- trees -------------------------------------------------------------------------------


@given(trees(max_depth=4, max_nodes=30))
def test_trees_are_valid_and_bounded(tree):
    check_tree(tree)
    assert depth(tree) <= 4 and n_nodes(tree) <= 30
    assert tree.missing in ("majority", "distribute", "error")


@given(trees(splits=("numeric",), width=32))
def test_trees_width_32_thresholds(tree):
    assert all(is_float32(n.threshold) for n in iter_nodes(tree) if isinstance(n, NumericSplit))


@given(trees(weighted=True))
def test_weighted_trees_have_exact_counts(tree):
    for node in iter_nodes(tree):
        kids = children(node)
        if kids:
            assert tuple(np.sum([k.counts for k in kids], axis=0).tolist()) == node.counts


@given(trees(max_depth=4))
def test_every_leaf_of_a_drawn_tree_is_reachable(tree):
    # A row from boundary_cases ends in every non-empty leaf: the drawn tests are consistent.
    from puretree.invariants import boundary_cases
    from puretree.predict import apply
    from puretree.flat import flatten

    rows = boundary_cases(tree)
    if not rows:
        assert isinstance(tree.root, Leaf)
        return
    reached = set(np.atleast_1d(apply(Tree(tree.root, tree.schema, "majority"), rows, unseen="ignore")).tolist())
    flat = flatten(tree)
    for i, node in enumerate(flat.nodes):
        if isinstance(node, Leaf) and sum(node.counts) > 0:
            assert i in reached or _empty_path(flat, i), f"leaf {i} is unreachable"


def _empty_path(flat, i):
    # Leaves under a category that the path excludes hold zero counts; the others must be reached.
    return flat.stats[i].sum() == 0


@pytest.mark.parametrize("kind", [NumericSplit, CategoricalSplit, SubsetSplit])
def test_every_split_kind_is_drawn(kind):
    drawn(trees(), lambda t: any(isinstance(n, kind) for n in iter_nodes(t)), within=50)


def test_trees_shrink_to_a_leaf():
    assert find(trees(), lambda t: True).root == Leaf((0.0,))
    tree = find(trees(splits=("numeric",), max_depth=1), lambda t: n_nodes(t) > 1)
    assert tree.root == NumericSplit(0, 0.0, Leaf((0.0,)), Leaf((0.0,)), (0.0,))


@given(trees(min_depth=3, max_depth=3, splits=("numeric",)))
@settings(max_examples=20)
def test_min_depth_forces_splits(tree):
    assert depth(tree) == 3


SCHEMA = Schema((Feature("colour", "categorical", ("red", "green", "blue")), Feature("size")), ("no", "yes"))


@given(trees(schema=SCHEMA))
@settings(max_examples=20)
def test_trees_on_a_given_schema(tree):
    assert tree.schema == SCHEMA
    check_tree(tree)


# -- criteria ----------------------------------------------------------------------------


@given(impurities())
@settings(max_examples=20)
def test_drawn_impurities_are_impurities(f):
    check_impurity(f)


@given(criteria(), class_counts(n_classes=2, max_count=6), class_counts(n_classes=2, max_count=6))
@settings(max_examples=30)
def test_drawn_criteria_follow_the_score_contract(score, a, b):
    parent = np.add(a, b)
    value = np.asarray(score(parent, np.array([a, b])))
    assert value.shape == () and not np.isnan(value)
    # Vectorised: a batch of candidate splits scores like each one alone.
    batch = np.asarray(score(parent, np.array([[a, b], [b, a]]), np.array(["x", "y"])))
    assert batch.shape == (2,) and np.allclose(batch, [value, value], equal_nan=True)
    assert repr(score) and "<" not in repr(score)


def test_criteria_include_compositions():
    drawn(criteria(), lambda s: isinstance(s, GainRatio), within=50)
    summed = drawn(criteria(), lambda s: not isinstance(s, (GainRatio, ImpurityDecrease)), within=50)
    assert repr(summed).count(" + ") >= 1 and repr(summed).split("*", 1)[0] in ("1.0", "0.5", "2.0", "0.25", "3.0")
    mixed = find(criteria(), lambda s: isinstance(s, ImpurityDecrease) and "+" in repr(s))
    assert repr(mixed) == "information_gain((1.0*entropy + 1.0*entropy))"


@given(datasets(max_rows=8), criteria())
@settings(max_examples=30)
def test_grow_accepts_every_drawn_criterion(ds, score):
    tree = grow(ds, score=score)
    check_tree(tree)


# -- boundary rows -----------------------------------------------------------------------


@given(st.data())
@settings(max_examples=30)
def test_boundary_rows_predict_without_error(data):
    tree = data.draw(trees(missing=("majority", "distribute")))
    row = data.draw(boundary_rows(tree, missing=True))
    assert set(row) == set(tree.schema.feature_names)
    proba = predict_proba(tree, row, unseen="ignore")  # a boundary row may be unseen on purpose
    assert proba.shape == (len(tree.classes),) and math.isclose(float(proba.sum()), 1.0)


def test_boundary_rows_sit_on_and_around_the_threshold():
    tree = Tree(NumericSplit(0, 0.1, Leaf((1, 0)), Leaf((0, 1)), (1, 1)), Schema((Feature("x"),), (0, 1)))
    for probe, expected in [(lambda x: x < 0.1, next_down(0.1)), (lambda x: x == 0.1, 0.1), (lambda x: x > 0.1, next_up(0.1))]:
        assert find(boundary_rows(tree), lambda row: probe(row["x"]))["x"] == expected
    f32 = find(boundary_rows(tree, width=32), lambda row: row["x"] > 0.1)["x"]
    assert is_float32(f32) and f32 == float(np.float32(0.1)) and f32 > 0.1


def test_boundary_rows_cover_categories_and_unseen():
    schema = Schema((Feature("c", "categorical", ("p", "q")),), ("a", "b"))
    tree = Tree(CategoricalSplit(0, (Leaf((1, 0)), Leaf((0, 1))), (1, 1)), schema)
    values = {find(boundary_rows(tree), lambda row, v=v: row["c"] == v)["c"] for v in ("p", "q")}
    assert values == {"p", "q"}
    unseen = find(boundary_rows(tree), lambda row: row["c"] not in ("p", "q"))
    with pytest.warns(UnseenCategoryWarning, match="column 'c': 1 row"):
        assert predict_proba(tree, unseen).tolist() == [0.5, 0.5]  # stops at the split
    assert find(boundary_rows(tree, missing=True), lambda row: row["c"] is None)["c"] is None


# -- argument validation -----------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: datasets(min_rows=0),
        lambda: datasets(min_rows=5, max_rows=2),
        lambda: datasets(max_features=-1),
        lambda: datasets(n_classes=0),
        lambda: datasets(kinds=("numeric", "text")),
        lambda: datasets(kinds="numeric"),
        lambda: datasets(kinds=()),
        lambda: datasets(missing=1.5),
        lambda: datasets(missing="yes"),
        lambda: datasets(weights=1),
        lambda: datasets(width=16),
        lambda: datasets(names=["a"]),
        lambda: schemas(max_categories=0),
        lambda: class_counts(n_classes=True),
        lambda: class_counts(weighted="no"),
        lambda: trees(max_depth=-1),
        lambda: trees(min_depth=3, max_depth=2),
        lambda: trees(max_nodes=0),
        lambda: trees(splits=("oblique",)),
        lambda: trees(missing=("sometimes",)),
        lambda: trees(schema="x"),
        lambda: trees(schema=Schema((Feature("x"),), ("a", "b")), n_classes=3),
        lambda: numbers(width=32.0 + 1),
        lambda: boundary_rows("not a tree"),
    ],
)
def test_invalid_arguments_raise_invalid_argument(make):
    with pytest.raises(InvalidArgument):
        make().example()


@given(st.data())
@settings(max_examples=5)
def test_from_type_is_registered(data):
    # Registered by the "hypothesis" entry point in pyproject.toml (puretree._hypothesis_plugin).
    for kind in (Tree, Schema, Feature, Leaf, Split, Threshold, Multiway, Subset, NumericSplit, CategoricalSplit, SubsetSplit):
        assert isinstance(data.draw(st.from_type(kind)), kind)


# -- puretree's own invariants, over these strategies ------------------------------------


@given(trees(max_depth=4, max_nodes=40, weighted=True))
def test_json_round_trip(tree):
    check_roundtrip(tree)


@given(trees(max_depth=4, max_nodes=40, splits=("numeric",), width=32))
@settings(max_examples=30)
def test_json_round_trip_float32_thresholds(tree):
    check_roundtrip(tree)


@given(trees(max_depth=4, max_nodes=40, weighted=True), st.sampled_from(["|   ", "..", ""]))
def test_text_rendering_never_fails(tree, indent):
    text = to_text(tree, indent=indent)
    lines = text.split("\n")
    # One line per branch (a lone leaf: one line), nested by depth.
    assert len(lines) == (1 if isinstance(tree.root, Leaf) else n_nodes(tree) - 1)
    if indent:
        assert max(len(line) - len(line.lstrip(indent[0])) for line in lines) <= len(indent) * max(0, depth(tree) - 1)


@given(datasets(max_rows=12), st.randoms(use_true_random=False), st.sampled_from([id3, c45, cart]))
@settings(max_examples=40)
def test_predictions_do_not_depend_on_row_order(ds, rng, learner):
    order = list(range(ds.n_rows))
    rng.shuffle(order)
    tree = learner(ds)
    shuffled = learner(ds.subset(np.array(order)))
    assert predict(tree, ds).tolist() == predict(shuffled, ds).tolist()
    assert np.array_equal(predict_proba(tree, ds), predict_proba(shuffled, ds))


# c45's guards (J48's minimum branches, the MDL correction) rightly stop short of purity; the
# plain gain-ratio builder grows fully.
@given(datasets(max_rows=15), st.sampled_from([id3, partial(grow, score="gain_ratio", missing="distribute"), cart]))
@settings(max_examples=40)
def test_fully_grown_trees_fit_their_training_data(ds, learner):
    check_fits_training_data(learner(ds), ds)


@given(datasets(max_rows=10, weights=True))
@settings(max_examples=30)
def test_fully_grown_trees_fit_weighted_training_data(ds):
    check_fits_training_data(cart(ds), ds)
