"""Split tests as values: each test alone says how many branches it has, which branch a value
takes, what a branch says about a row and how it reads; the old node classes keep working."""

from __future__ import annotations

import math

import attrs
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puretree.datasets import load_buys_computer, load_playtennis, load_temperature
from puretree.errors import ParameterError
from puretree.fold import iter_nodes
from puretree.grow import c45, cart, id3
from puretree.io import SPLIT_FORMATS, from_json, to_dict, to_json
from puretree.nodes import (
    MISSING,
    TESTS,
    UNSEEN,
    CategoricalSplit,
    Feature,
    Interval,
    Leaf,
    Multiway,
    NumericSplit,
    Schema,
    Split,
    Subset,
    SubsetSplit,
    Threshold,
    children,
)
from puretree.tree import Tree
from puretree.predict import UnseenCategoryWarning, apply
from puretree.flat import flatten
from puretree.strategies import SPLIT_KINDS, numbers, trees

CATEGORIES = st.integers(1, 6).map(lambda m: Feature("c", "categorical", tuple(f"v{i}" for i in range(m))))


@st.composite
def drawn_tests(draw):
    """A test with a feature it can stand on."""
    kind = draw(st.sampled_from(SPLIT_KINDS))
    if kind == "threshold":
        return Threshold(draw(numbers()), draw(st.sampled_from((None, 0, 1)))), Feature("x")
    feature = draw(CATEGORIES)
    m = len(feature.categories)
    if kind == "multiway":
        return Multiway(m), feature
    return Subset(draw(st.sets(st.integers(0, m - 1), min_size=1))), feature


def column(test, feature):
    """Values for a test's feature: ordinary ones, edges, missing, unseen codes."""
    if feature.is_numeric:
        return st.lists(st.one_of(numbers(), st.just(test.value), st.just(math.nan)), max_size=30)
    m = len(feature.categories)
    return st.lists(st.sampled_from([float(c) for c in range(m)] + [-1.0, float(m), math.nan]), max_size=30)


def reference_branch(test, feature, x):
    """The branch one value takes, as the old node classes defined it, row by row."""
    if math.isnan(x):
        side = getattr(test, "missing_branch", None)  # a learned side, else the tree decides
        return MISSING if side is None else side
    if isinstance(test, Threshold):
        return 0 if x <= test.value else 1
    code = int(x)
    if not 0 <= code < len(feature.categories):
        return UNSEEN
    if isinstance(test, Subset):
        return 0 if code in test.left_codes else 1
    return code


@given(st.data())
def test_branch_of_a_column_is_the_branch_of_each_row(data):
    test, feature = data.draw(drawn_tests())
    values = data.draw(column(test, feature))
    got = test.branch_of(np.array(values, dtype=np.float64), feature)
    assert got.dtype == np.int64 and got.shape == (len(values),)
    assert got.tolist() == [reference_branch(test, feature, x) for x in values]
    assert all(-2 <= b < test.n_branches for b in got.tolist())


def _holds(constraint, x):
    if isinstance(constraint, Interval):
        return constraint.lo < x <= constraint.hi
    return int(x) in constraint.codes


@given(st.data())
def test_a_value_takes_the_one_branch_whose_constraint_it_meets(data):
    # The constraints (what rules, invariants and verification use) agree with branch_of
    # (what prediction uses): every known value meets exactly the constraint of its branch.
    test, feature = data.draw(drawn_tests())
    constraints = test.constraints(feature)
    assert len(constraints) == test.n_branches == len(test.labels(feature.name, feature.categories))
    for x, b in zip(values := data.draw(column(test, feature)), test.branch_of(np.array(values, dtype=np.float64), feature).tolist()):
        if b >= 0 and not math.isnan(x):
            assert [i for i, c in enumerate(constraints) if _holds(c, x)] == [b]


@given(st.data())
def test_tests_are_values(data):
    test, feature = data.draw(drawn_tests())
    same = type(test)(*attrs.astuple(test))
    assert same == test and hash(same) == hash(test) and repr(same) == repr(test)
    assert TESTS[test.kind] is type(test) and test.feature_kind == feature.kind
    assert test.problem(feature) is None
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(test, attrs.fields(type(test))[0].name, 0)


def test_invalid_tests_are_refused():
    for make in (lambda: Threshold(math.inf), lambda: Threshold(math.nan), lambda: Multiway(0), lambda: Multiway(True)):
        with pytest.raises(ParameterError):
            make()
    with pytest.raises(ParameterError, match="a threshold split has 2 children, got 1"):
        Split(0, Threshold(1.0), (Leaf((1,)),), (1,))
    with pytest.raises(ParameterError, match="Split.test"):
        Split(0, "x <= 1", (Leaf((1,)), Leaf((1,))), (2,))


@pytest.mark.parametrize("kind", SPLIT_KINDS)
@given(data=st.data())
def test_json_round_trip_of_every_kind(kind, data):
    tree = data.draw(trees(splits=(kind,), min_depth=1, max_depth=3))
    d = to_dict(tree)
    assert {n["kind"] for n in d["nodes"]} <= {"leaf", kind} and set(SPLIT_FORMATS) == set(SPLIT_KINDS)
    assert from_json(to_json(tree)) == tree


# -- the deprecated node classes -----------------------------------------------------------


def _old_walk(node):
    """User code written against the old node classes: pattern matching by keyword."""
    match node:
        case NumericSplit(feature=f, threshold=t, left=l, right=r):
            return ("numeric", f, t, _old_walk(l), _old_walk(r))
        case SubsetSplit(feature=f, left_categories=codes, left=l, right=r):
            return ("subset", f, codes, _old_walk(l), _old_walk(r))
        case CategoricalSplit(feature=f, children=kids):
            return ("categorical", f, tuple(_old_walk(k) for k in kids))
        case Leaf(stats=c):
            return ("leaf", c)
    raise AssertionError(f"no case matched {node!r}")


def _new_walk(node):
    if isinstance(node, Leaf):
        return ("leaf", node.counts)
    kids = tuple(_new_walk(k) for k in node.children)
    match node.test:
        case Threshold(value=t):
            return ("numeric", node.feature, t, *kids)
        case Subset(left_codes=codes):
            return ("subset", node.feature, codes, *kids)
        case Multiway():
            return ("categorical", node.feature, kids)


@pytest.mark.parametrize("make", [lambda: id3(load_playtennis()), lambda: cart(load_buys_computer()), lambda: c45(load_temperature()),
                                  lambda: cart(load_playtennis(), engine="reference")])
def test_old_pattern_matching_on_built_trees(make):
    tree = make()
    assert _old_walk(tree.root) == _new_walk(tree.root)
    for node in iter_nodes(tree):
        old = [cls for cls in (NumericSplit, CategoricalSplit, SubsetSplit) if isinstance(node, cls)]
        assert len(old) == (0 if isinstance(node, Leaf) else 1)
        match node:  # positional patterns, through __match_args__
            case NumericSplit(f, t, l, r, c):
                assert (f, t, (l, r), c) == (node.feature, node.test.value, node.children, node.counts)
            case SubsetSplit(f, codes, l, r):
                assert (codes, (l, r)) == (node.test.left_codes, node.children)
            case CategoricalSplit(f, kids, c):
                assert kids == node.children and len(kids) == node.test.n_branches


@given(trees(max_depth=3))
def test_old_names_build_the_same_nodes(tree):
    def rebuilt(node):
        match node:
            case NumericSplit(feature=f, threshold=t, left=l, right=r, counts=c) if node.test.missing_branch is None:
                return NumericSplit(f, t, rebuilt(l), rebuilt(r), c)
            case SubsetSplit(feature=f, left_categories=codes, left=l, right=r, counts=c):
                return SubsetSplit(f, codes, rebuilt(l), rebuilt(r), c)
            case CategoricalSplit(feature=f, children=kids, counts=c):
                return CategoricalSplit(f, tuple(rebuilt(k) for k in kids), c)
        return node

    assert rebuilt(tree.root) == tree.root


def test_old_keywords_and_attributes():
    split = NumericSplit(0, 1.5, Leaf((1, 0)), Leaf((0, 1)), (1, 1))
    assert type(split) is Split and split.test == Threshold(1.5)
    assert (split.threshold, split.left, split.right) == (1.5, Leaf((1, 0)), Leaf((0, 1)))
    moved = attrs.evolve(split, threshold=2.5, right=Leaf((0, 2)))
    assert moved.test == Threshold(2.5) and moved.children == (Leaf((1, 0)), Leaf((0, 2)))
    subset = SubsetSplit(1, [2, 0], Leaf((1, 0)), Leaf((0, 1)), (1, 1))
    assert subset.left_categories == (0, 2) == subset.test.left_codes
    assert attrs.evolve(subset, left_categories=(1,)).test == Subset((1,))
    multi = CategoricalSplit(1, (Leaf((1, 0)), Leaf((0, 1)), Leaf((0, 0))), (1, 1))
    assert multi.test == Multiway(3) and children(multi) == multi.children
    for node, missing in ((split, "left_categories"), (subset, "threshold"), (multi, "left"), (multi, "right")):
        assert not hasattr(node, missing)
    with pytest.raises(TypeError, match="unexpected keyword"):
        attrs.evolve(split, thresold=2.0)


def test_prediction_stops_at_an_unseen_category():
    schema = Schema((Feature("c", "categorical", ("a", "b")),), ("no", "yes"))
    tree = Tree(Split(0, Subset((0,)), (Leaf((2, 0)), Leaf((0, 3))), (2, 3)), schema)
    with pytest.warns(UnseenCategoryWarning, match="column 'c': 1 row"):
        assert apply(tree, [{"c": "a"}, {"c": "b"}, {"c": "never seen"}]).tolist() == [1, 2, 0]
    flat = flatten(tree)
    assert flat.table.tolist() == [1, 2]  # the child each code goes to


@given(trees(max_depth=4, weighted=True), st.data())
def test_asking_every_test_descends_as_the_compiled_table(tree, data):
    # Prediction reads most splits from arrays compiled from their tests' answers, and asks
    # any other test (branch_of) node by node: both ways send every row to the same places.
    from puretree.data import encode_features
    from puretree.invariants import boundary_cases
    from puretree.flat import BY_TEST, descend

    rows = boundary_cases(tree, missing=True)
    if not rows:
        return
    X = encode_features(tree.schema, rows)
    flat = flatten(tree)
    asking = attrs.evolve(flat, route=np.where(flat.route > 0, BY_TEST, 0).astype(np.int8), asks=True)
    missing = data.draw(st.sampled_from(["majority", "distribute"]))
    stop = data.draw(st.booleans())

    def walked(f):
        r, n, w = descend(f, X, missing=missing, names=tree.schema.feature_names, stop_at_missing=stop)
        return sorted(zip(r.tolist(), n.tolist(), w.tolist()))

    assert walked(asking) == walked(flat)
