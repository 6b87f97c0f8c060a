"""Generated Python decides exactly as ``predict``: one dependency-free module per tree."""

import ast
import math
import sys
import tempfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puretree.codegen.lower import PYTHON_NESTING_LIMIT
from puretree.codegen.render import generate
from puretree.codegen.verify import check_rows, expected, load_python, python_row, run_python, verify
from puretree.datasets import load_playtennis, load_temperature
from puretree.errors import CodegenError
from puretree.grow import c45
from puretree.nodes import Feature, Leaf, NumericSplit, Schema
from puretree.tree import Tree
from puretree.predict import predict, predict_proba
from test_codegen_c import built, deep_chain, grown


def module_of(tree, **options):
    work = tempfile.mkdtemp(prefix="puretree-test-")
    module = load_python(generate(tree, "python", **options)["tree.py"], work)
    sys.modules.pop(module.__name__, None)
    return module


@settings(max_examples=25)
@given(case=st.one_of(grown(), grown(regression=True), built()), form=st.sampled_from(["nested", "table"]))
def test_generated_python_equals_predict(case, form):
    tree, X = case
    report = verify(tree, X, "python", form=form)
    assert report.mismatches == []
    assert report.n_checked >= len(X)


def test_rows_as_mappings_and_sequences_agree_with_predict():
    data = load_playtennis()
    tree = c45(data, missing="distribute")
    module = module_of(tree)
    assert module.CLASSES == tree.schema.classes
    assert module.FEATURES == tree.schema.feature_names
    for row in ({"outlook": "sunny", "temperature": "hot", "humidity": "high", "wind": "weak"},
                {"outlook": "fog", "temperature": None, "humidity": "?", "wind": "weak"},
                {"outlook": None, "temperature": "mild", "humidity": "normal", "wind": "strong"}):
        sequence = [row[name] for name in module.FEATURES]
        assert module.predict(row) == module.predict(sequence) == predict(tree, row, unseen="ignore")  # "fog": unseen on purpose
        assert module.predict_proba(row) == module.predict_proba(sequence) == predict_proba(tree, row, unseen="ignore").tolist()


def test_missing_error_raises_value_error_naming_the_column():
    tree = c45(load_temperature(), missing="error")
    module = module_of(tree)
    row = {name: None for name in module.FEATURES}
    with pytest.raises(ValueError, match="missing value"):
        module.predict(row)


def test_the_module_imports_only_the_standard_librarys_numbers():
    # dependency-free: the one import is numbers.Real, the numeric tower the library checks cells against
    tree = c45(load_temperature(), missing="distribute")
    for form in ("nested", "table"):
        source = generate(tree, "python", form=form)["tree.py"]
        imports = [n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.Import, ast.ImportFrom))]
        assert [(n.module, [a.name for a in n.names]) for n in imports if isinstance(n, ast.ImportFrom)] == [("numbers", ["Real"])]
        assert not [n for n in imports if isinstance(n, ast.Import)]


def test_deep_trees_use_the_flat_form_automatically():
    tree = deep_chain(3000)
    source = generate(tree, "python")["tree.py"]
    assert "while node < _N_INTERNAL" in source
    module = module_of(tree)
    rows = check_rows(tree, np.arange(0, 3002, 30, dtype=float)[:, None])
    got = run_python(module, tree, rows)
    want = expected(tree, rows)
    assert [g[1] for g in got] == want
    with pytest.raises(CodegenError, match="nested Python"):
        generate(tree, "python", form="nested")


def test_nesting_stays_below_cpython_limit():
    tree = deep_chain(PYTHON_NESTING_LIMIT)
    source = generate(tree, "python")["tree.py"]
    assert "def _walk(x):\n    # The outcome" in source and "while node" not in source
    deepest = max(len(line) - len(line.lstrip(" ")) for line in source.splitlines()) // 4
    assert PYTHON_NESTING_LIMIT <= deepest < 100
    compile(source, "tree.py", "exec")


def test_regression_module_predicts_the_mean():
    schema = Schema((Feature("x"),), (), task="regression")
    tree = Tree(NumericSplit(0, 0.1, Leaf((3.0, 1.0, 1.0)), Leaf((2.0, 7.0, 30.0)), (5.0, 8.0, 31.0)), schema)
    module = module_of(tree)
    assert not hasattr(module, "predict_proba")
    for x in (0.1, float(np.nextafter(0.1, 1)), -1e308, "0.1", None):
        assert module.predict([x]) == predict(tree, {"x": x})
    with pytest.raises(ValueError, match="not finite"):
        module.predict([math.inf])
    assert python_row(tree, [float("nan")]) == [None]


# -- the nested form's statements: one block per split, written from the kit's events --------

from puretree.codegen.lower import lower  # noqa: E402
from puretree.fold import iter_nodes  # noqa: E402
from puretree.nodes import Split, Threshold, children  # noqa: E402
from puretree.strategies import trees  # noqa: E402


@given(trees(max_depth=4))
def test_nested_lines_open_one_block_per_split_and_close_it(tree):
    lines = lower(tree, "python", {"form": "nested"})["lines"]
    splits = [n for n in iter_nodes(tree) if children(n)]
    categorical = [n for n in splits if isinstance(n, Split) and not isinstance(n.test, Threshold)]
    assert sum(line["op"] == "if" for line in lines) == sum(line["op"] == "end" for line in lines) == len(splits)
    leaves = [n for n in iter_nodes(tree) if not children(n)]
    # A result per leaf, and one per categorical split for the category no branch takes.
    assert sum(line["op"] == "result" for line in lines) == len(leaves) + len(categorical)
    open_blocks = []
    for line, after in zip(lines, lines[1:] + [None]):
        d, op = line["depth"], line["op"]
        if op == "if":
            open_blocks.append(d)
        elif op in ("elif", "else", "end"):
            assert open_blocks and open_blocks[-1] == d, (op, d, open_blocks)
            if op == "end":
                open_blocks.pop()
        if op in ("if", "elif", "else"):  # a branch's body is one level deeper
            assert after is not None and after["depth"] == d + 1
    assert open_blocks == []
    assert lines[0]["depth"] == 0


def test_a_subset_split_sending_no_code_left_compiles_and_predicts_as_the_tree():
    # A Subset test with no left code (an edited or imported tree; certified rewrites meet them)
    # was written as `x in (,)`, a SyntaxError.
    from puretree.nodes import CATEGORICAL, Split, Subset

    schema = Schema((Feature("colour", CATEGORICAL, ("red", "green", "blue")),), ("no", "yes"))
    for missing in ("majority", "error"):
        tree = Tree(Split(0, Subset(()), (Leaf((5.0, 0.0)), Leaf((1.0, 4.0))), (6.0, 4.0)), schema, missing=missing)
        for form in ("nested", "table"):
            report = verify(tree, np.array([[0.0], [1.0], [2.0]]), "python", form=form)
            assert report.mismatches == [] and report.n_checked >= 3
        module = module_of(tree)
        assert [module.predict({"colour": c}) for c in ("red", "green", "blue")] == ["yes"] * 3 == [predict(tree, {"colour": c}) for c in ("red", "green", "blue")]
