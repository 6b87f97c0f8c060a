"""Generated C (nested if/else and table-driven) decides exactly as ``predict``.

Every example compiles the generated source with gcc -std=c99 -Wall -Wextra -Werror -pedantic
-Wconversion (one driver program reads all rows from stdin) and compares predictions and
probabilities bit for bit on the training rows, on every threshold and the representable
values just below and above it in the feature type, on unseen categories and missing values.
"""

import re
import tempfile

import attrs

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puretree.codegen.lower import FEATURE_TYPES, lower
from puretree.codegen.render import generate
from puretree.codegen.verify import check_rows, compile_c, expected, run_c, verify
from puretree.data import Dataset, encode_features
from puretree.datasets import load_playtennis, load_temperature
from puretree.errors import CodegenError
from puretree.grow import c45, cart, cart_regressor, id3
from puretree.invariants import boundary_cases
from puretree.nodes import Feature, Leaf, NumericSplit, Schema
from puretree.tree import Tree
from puretree.strategies import datasets, trees

ALGORITHMS = {"id3": id3, "c45": c45, "cart": cart}
MISSING = ("majority", "distribute", "error")


@st.composite
def grown(draw, *, regression=False):
    """A tree learned from random data (numeric and categorical columns, edge floats, NaN
    cells), with a random missing-value strategy; and the data it was learned from."""
    ds = draw(datasets(min_rows=3, max_rows=30, max_features=3, max_classes=3, missing=draw(st.sampled_from([False, 0.1]))))
    missing = draw(st.sampled_from(MISSING))
    # Growing under "error" refuses NaN cells: grow under "majority", predict under "error".
    grow_missing = "majority" if missing == "error" else missing
    if regression:
        y = np.array(draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=ds.n_rows, max_size=ds.n_rows)))
        data = Dataset(Schema(ds.schema.features, (), task="regression"), ds.X, y)
        tree = cart_regressor(data, missing=grow_missing)
    else:
        tree = ALGORITHMS[draw(st.sampled_from(sorted(ALGORITHMS)))](ds, missing=grow_missing)
    return attrs.evolve(tree, missing=missing), ds.X


@st.composite
def built(draw):
    """A random valid tree with every split kind and weighted counts, and rows probing it."""
    tree = draw(trees(max_depth=4, max_nodes=20, weighted=True))
    cases = boundary_cases(tree, unseen=True)
    X = encode_features(tree.schema, cases) if cases else np.zeros((1, tree.schema.n_features))
    return tree, X


def assert_exact(tree, X, target, ftype, **options):
    report = verify(tree, X, target, feature_type=ftype, **options)
    assert report.mismatches == []
    assert report.n_checked >= len(X)


@settings(max_examples=25)
@given(case=st.one_of(grown(), built()), target=st.sampled_from(["c", "c-table"]), ftype=st.sampled_from(FEATURE_TYPES))
def test_generated_c_equals_predict(case, target, ftype):
    tree, X = case
    assert_exact(tree, X, target, ftype)


@settings(max_examples=10)
@given(case=grown(regression=True), target=st.sampled_from(["c", "c-table"]), ftype=st.sampled_from(FEATURE_TYPES))
def test_generated_c_regression_equals_predict(case, target, ftype):
    tree, X = case
    assert_exact(tree, X, target, ftype)


@pytest.mark.parametrize("loader", [load_playtennis, load_temperature])
@pytest.mark.parametrize("missing", MISSING)
def test_seed_trees_under_sanitizers(loader, missing):
    data = loader()
    for algo in (c45, cart):
        tree = algo(data, missing=missing)
        for target in ("c", "c-table"):
            assert verify(tree, data, target, sanitize=True).mismatches == []


def test_the_checks_have_teeth():
    # Code generated from a tree whose threshold is one ulp off must be caught.
    schema = Schema((Feature("x"),), ("a", "b"))
    tree = Tree(NumericSplit(0, 0.5, Leaf((3, 0)), Leaf((0, 2)), (3, 2)), schema)
    off = Tree(NumericSplit(0, float(np.nextafter(0.5, 1.0)), Leaf((3, 0)), Leaf((0, 2)), (3, 2)), schema)
    rows = check_rows(tree, np.array([[0.0]]), "double")
    files = generate(off, "c-table", name="off")
    with tempfile.TemporaryDirectory() as work:
        program = compile_c(files, "off", "double", regression=False, proba=True, workdir=work)
        got = run_c(program, rows, "double", regression=False, proba=True)
    want = expected(tree, rows)
    differ = [r for r, w, g in zip(rows.tolist(), want, got) if g[1] != w]
    assert differ == [[float(np.nextafter(0.5, 1.0))]]


def test_float_thresholds_round_down_to_float32():
    # 0.1 is not a float32: the float32 just above 0.1 must go right, as (double)x <= 0.1 says.
    schema = Schema((Feature("x"),), ("a", "b"))
    tree = Tree(NumericSplit(0, 0.1, Leaf((1, 0)), Leaf((0, 1)), (1, 1)), schema)
    model = lower(tree, "c-table", {"feature_type": "float"})
    assert model["table"]["threshold"] == ["0.099999994f"]
    assert_exact(tree, np.array([[0.1], [np.float32(0.1)]]), "c", "float")


@pytest.mark.parametrize("ftype,t,want", [("int16", 1e9, "32767"), ("int16", -1e9, "INT16_MIN"), ("int32", -2.5, "(-3)"), ("float", 1e300, "3.4028235e+38f"), ("float", -1e300, "(-INFINITY)")])
def test_thresholds_outside_the_type_compile_and_decide_exactly(ftype, t, want):
    schema = Schema((Feature("x"),), ("a", "b"))
    tree = Tree(NumericSplit(0, t, Leaf((1, 0)), Leaf((0, 1)), (1, 1)), schema)
    assert lower(tree, "c-table", {"feature_type": ftype})["table"]["threshold"] == [want]
    for target in ("c", "c-table"):
        assert_exact(tree, np.array([[0.0], [t]]), target, ftype)


def deep_chain(depth):
    schema = Schema((Feature("x"),), ("a", "b"))
    node = Leaf((0, 1))
    for i in range(depth):
        node = NumericSplit(0, float(depth - i), Leaf((1, 0)) if i % 2 else Leaf((2, 1)), node, (i + 3, 2))
    return Tree(node, schema)


def test_deep_trees_use_the_table_form():
    tree = deep_chain(1500)
    with pytest.raises(CodegenError, match="c-table"):
        generate(tree, "c")
    assert_exact(tree, np.arange(0, 1502, 7, dtype=float)[:, None], "c-table", "int16")


def test_index_type_too_small_is_refused():
    tree = deep_chain(300)
    with pytest.raises(CodegenError, match="too large for index type uint8_t"):
        generate(tree, "c-table", index_type="uint8_t")
    assert "static const uint16_t tree_left" in generate(tree, "c-table")["tree.c"]


def _functions(source):
    """Top-level function bodies: text from a line ending in ')' followed by '{' to the closing '}'."""
    return re.findall(r"\n([a-z][^\n;=]*\([^;{]*\))\n\{\n(.*?)\n\}\n", source, flags=re.S)


@pytest.mark.parametrize("target", ["c", "c-table"])
@pytest.mark.parametrize("missing", MISSING)
def test_c_rules_no_heap_no_stdio_no_recursion_one_return(target, missing):
    tree = c45(load_temperature(), missing=missing)
    for ftype in FEATURE_TYPES:
        files = generate(tree, target, feature_type=ftype)
        source = files["tree.c"] + files["tree.h"]
        assert "#include <stdio.h>" not in source and "malloc" not in source and "free(" not in source and "alloca" not in source
        functions = _functions(files["tree.c"])
        assert len(functions) >= 2
        for signature, body in functions:
            fname = re.search(r"(\w+)\(", signature).group(1)
            assert body.count("return") <= 1, fname
            assert f"{fname}(" not in body, f"{fname} is recursive"
        assert re.search(r"Maximum stack use: about \d+ bytes", files["tree.h"])


@pytest.mark.parametrize("missing", MISSING)
def test_predict_only_code_without_probabilities(missing):
    data = load_temperature()
    tree = c45(data, missing=missing)
    files = generate(tree, "c-table", proba=False)
    assert "predict_proba" not in files["tree.h"]
    assert ("outcome_proba" in files["tree.c"]) == (missing == "distribute")  # distribute sums them
    for target in ("c", "c-table"):
        assert verify(tree, data, target, proba=False).mismatches == []


# -- the worst case stated in the header ---------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(trees(max_depth=4, missing=("majority",)))
def test_the_header_states_the_longest_path_the_rows_take(tree):
    # Every node is reached by some row verify checks (unless its ancestors' tests exclude it),
    # so the longest path they take is the tree's worst case: the tests the header promises.
    from puretree.codegen.lower import max_comparisons
    from puretree.fold import n_nodes
    from puretree.predict import decision_path

    rows = check_rows(tree, np.zeros((0, tree.schema.n_features)))
    paths = decision_path(tree, Dataset(tree.schema, rows))
    longest = max(len(path) - 1 for path in paths)
    reached = len(set().union(*paths))
    assert max_comparisons(tree) == longest if reached == n_nodes(tree) else max_comparisons(tree) >= longest
    assert f"#define TREE_MAX_COMPARISONS {max_comparisons(tree)}u" in generate(tree, "c")["tree.h"]
