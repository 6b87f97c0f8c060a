"""missing="surrogate": rpart's surrogate splits, checked against rpart itself (issue 25).

rpart 4.1 (Debian's r-cran-rpart, run through Rscript, listed in .ci/system-deps) fits the
same data with ``rpart.control(cp=-1, xval=0, minsplit=2, minbucket=1, maxcompete=0,
maxsurrogate=5, usesurrogate=2, surrogatestyle=0)``; its ``predict(type="prob")`` must equal
puretree's ``predict_proba`` within 1e-12 on every row.
"""

from __future__ import annotations

import csv
import subprocess
from pathlib import Path

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import puretree as pt
from puretree.errors import ParameterError
from puretree.nodes import Split, Surrogates
from puretree.surrogates import grow_rpart

DATA = Path(__file__).parent / "data"

RPART = r"""
library(rpart)
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1], na.strings = "", colClasses = "character")
spec <- read.csv(args[2], colClasses = c("character", "integer"))
for (i in seq_len(nrow(spec))) {
  v <- spec$name[i]; m <- spec$levels[i]
  d[[v]] <- if (m > 0) factor(d[[v]], levels = as.character(0:(m - 1))) else as.numeric(d[[v]])
}
fit <- rpart(y ~ ., data = d, method = "class", parms = list(split = args[4]),
  control = rpart.control(cp = -1, xval = 0, minsplit = 2, minbucket = 1, maxcompete = 0,
                          maxsurrogate = 5, usesurrogate = 2, surrogatestyle = 0))
p <- predict(fit, newdata = d, type = "prob")
write.table(format(p, digits = 17), args[3], sep = ",", row.names = FALSE, col.names = FALSE, quote = FALSE)
"""


def rpart_proba(ds: pt.Dataset, tmp: Path, split: str = "gini") -> np.ndarray:
    """rpart's class probabilities for every row of ``ds``, fitted on ``ds`` (categorical
    columns as factors whose levels are puretree's category codes, in the same order)."""
    names = [f"v{j}" for j in range(ds.schema.n_features)]
    with open(tmp / "data.csv", "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow([*names, "y"])
        for row, label in zip(ds.X, ds.y):
            cells = ["" if np.isnan(v) else repr(float(v)) if f.is_numeric else str(int(v)) for v, f in zip(row, ds.schema.features)]
            out.writerow([*cells, str(int(label))])
    with open(tmp / "spec.csv", "w") as fh:
        fh.write("name,levels\n")
        for name, f in zip(names, ds.schema.features):
            fh.write(f"{name},{0 if f.is_numeric else len(f.categories)}\n")
        fh.write(f"y,{len(ds.schema.classes)}\n")
    (tmp / "fit.R").write_text(RPART)
    subprocess.run(["Rscript", str(tmp / "fit.R"), str(tmp / "data.csv"), str(tmp / "spec.csv"), str(tmp / "proba.csv"), split], check=True, timeout=600, capture_output=True)
    return np.loadtxt(tmp / "proba.csv", delimiter=",", ndmin=2)


def blanked(ds: pt.Dataset, fraction: float, seed: int = 0) -> pt.Dataset:
    X = ds.X.copy()
    X[np.random.default_rng(seed).random(X.shape) < fraction] = np.nan
    return attrs.evolve(ds, X=X)


def splits(node):
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is Split:
            yield n
            stack.extend(n.children)


@pytest.mark.parametrize("name", ["breast-cancer", "vote", "soybean"])
@pytest.mark.parametrize("blank", [0.0, 0.2])
def test_predictions_equal_rpart(name: str, blank: float, tmp_path: Path) -> None:
    ds = pt.read_arff(DATA / f"{name}.arff")
    ds = blanked(ds, blank) if blank else ds
    tree = pt.cart(ds, missing="surrogate")
    theirs = rpart_proba(ds, tmp_path)
    ours = tree.predict_proba(ds)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)
    assert all(s.surrogates is not None for s in splits(tree.root))
    if blank:
        # The blanked cells leave rows that only surrogates (or the majority) route.
        assert sum(len(s.surrogates.splits) for s in splits(tree.root)) > 10
        # and the surrogates change predictions: the heaviest-branch tree is not rpart's
        assert np.abs(pt.cart(ds).predict_proba(ds) - theirs).max() > 0.1


@pytest.mark.parametrize("name", ["vote", "soybean"])
def test_information_gain_is_rpart_s_information_split(name: str, tmp_path: Path) -> None:
    ds = blanked(pt.read_arff(DATA / f"{name}.arff"), 0.2)
    tree = pt.cart(ds, missing="surrogate", score="information_gain")
    np.testing.assert_allclose(tree.predict_proba(ds), rpart_proba(ds, tmp_path, "information"), rtol=0, atol=1e-12)


def test_mixed_numeric_and_categorical_equal_rpart(tmp_path: Path) -> None:
    ds = blanked(pt.read_arff(DATA / "credit-g.arff"), 0.2, seed=1)
    np.testing.assert_allclose(pt.cart(ds, missing="surrogate").predict_proba(ds), rpart_proba(ds, tmp_path), rtol=0, atol=1e-12)


def _walk(node, row, features):
    """One row down a surrogate tree by the rules, node by node (the reference for the
    vectorised walk)."""
    while type(node) is Split:
        branch = int(node.surrogates.route(node.feature, node.test, row[None, :], features)[0])
        if branch < 0:
            return node
        node = node.children[branch]
    return node


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), blank=st.floats(0.0, 0.6))
def test_vectorised_walk_matches_the_rules(seed: int, blank: float) -> None:
    ds = pt.read_arff(DATA / "breast-cancer.arff")
    train = blanked(ds, 0.2, seed=1)
    tree = pt.cart(train, missing="surrogate", max_depth=4)
    test = blanked(ds, blank, seed=seed)
    proba = tree.predict_proba(test)
    for row, got in zip(test.X, proba):
        end = _walk(tree.root, row, tree.schema.features)
        stats = np.asarray(end.stats)
        np.testing.assert_allclose(got, stats / stats.sum(), rtol=0, atol=1e-15)


def test_a_row_with_every_value_missing_follows_the_majority_or_stops() -> None:
    ds = blanked(pt.read_arff(DATA / "vote.arff"), 0.2)
    tree = pt.cart(ds, missing="surrogate")
    row = np.full((1, ds.schema.n_features), np.nan)
    end = _walk(tree.root, row[0], tree.schema.features)
    stats = np.asarray(end.stats)
    np.testing.assert_allclose(tree.predict_proba(attrs.evolve(ds, X=row, y=ds.y[:1])), [stats / stats.sum()])


@pytest.mark.parametrize(
    "options, words",
    [
        ({"engine": "fast"}, "engine='fast'"),
        ({"max_bins": 16}, "histogram"),
        ({"max_features": 2}, "max_features"),
        ({"score": "gain_ratio"}, "gini"),
        ({"max_leaf_nodes": 4}, "max_leaf_nodes=4"),
        ({"min_impurity_decrease": 0.01}, "min_impurity_decrease=0.01"),
    ],
)
def test_refused_where_it_has_no_meaning(options: dict, words: str) -> None:
    ds = pt.read_arff(DATA / "vote.arff")
    with pytest.raises(ParameterError, match="surrogate") as info:
        pt.cart(ds, missing="surrogate", **options)
    assert words in str(info.value)


def test_regression_refused() -> None:
    with pytest.raises(ParameterError, match="surrogate.*classification"):
        pt.cart([[1.0], [2.0], [3.0]], [1.0, 2.0, 3.0], task="regression", missing="surrogate")


def test_input_not_mutated() -> None:
    ds = blanked(pt.read_arff(DATA / "vote.arff"), 0.2)
    before = ds.X.copy()
    grow_rpart(ds)
    np.testing.assert_array_equal(ds.X, before)


def test_surrogates_value_checks() -> None:
    with pytest.raises(ParameterError, match="fallback"):
        Surrogates((), fallback=2)
    with pytest.raises(ParameterError, match="Surrogate"):
        Surrogates(("not a surrogate",))


def test_json_round_trip_and_version() -> None:
    from puretree.io import VERSION, from_json, to_dict, to_json

    ds = blanked(pt.read_arff(DATA / "soybean.arff"), 0.2)
    tree = pt.cart(ds, missing="surrogate")
    assert to_dict(tree)["version"] == 5 and VERSION == 6  # 6: a tree that holds histograms
    back = from_json(to_json(tree))
    assert back == tree and back.to_text() == tree.to_text()
    np.testing.assert_array_equal(back.predict_proba(ds), tree.predict_proba(ds))
    # a tree without surrogates is written as before
    assert to_dict(pt.cart(ds))["version"] == 3


def test_json_refuses_surrogates_in_an_older_version_and_bad_fields() -> None:
    from puretree.errors import ModelFormatError
    from puretree.io import from_dict, to_dict

    ds = blanked(pt.read_arff(DATA / "vote.arff"), 0.2)
    d = to_dict(pt.cart(ds, missing="surrogate", max_depth=2))
    old = dict(d, version=4)
    with pytest.raises(ModelFormatError, match=r"nodes\[\d+\]: surrogates is a field of version 5"):
        from_dict(old)
    bad = json_copy(d)
    bad["nodes"][0]["surrogates"]["fallback"] = 2
    with pytest.raises(ModelFormatError, match=r"nodes\[0\]\.surrogates: fallback must be"):
        from_dict(bad)
    bad = json_copy(d)
    bad["nodes"][0]["surrogates"]["splits"][0]["feature"] = bad["nodes"][0]["feature"]
    with pytest.raises(ModelFormatError, match=r"nodes\[0\]\.surrogates\.splits\[0\]"):
        from_dict(bad)


def json_copy(d):
    import json

    return json.loads(json.dumps(d))


def test_one_row_answers_as_the_batch() -> None:
    # One row is answered through the tree's generated Python code: it must route through
    # the surrogates as the batch walk does.
    ds = blanked(pt.read_arff(DATA / "vote.arff"), 0.3)
    tree = pt.cart(ds, missing="surrogate")
    rows = [dict(zip(ds.schema.feature_names, (None if np.isnan(v) else f.categories[int(v)] for v, f in zip(r, ds.schema.features)))) for r in ds.X[:40]]
    batch = tree.predict_proba(ds)[:40]
    for row, expected in zip(rows, batch):
        np.testing.assert_array_equal(tree.predict_proba(row), expected)


@pytest.mark.parametrize("name", ["vote", "soybean", "credit-g", "diabetes"])
@pytest.mark.parametrize("target, feature_type", [("python", "double"), ("c", "double"), ("c-table", "double"), ("c", "float")])
def test_generated_code_takes_the_surrogates_exactly(name: str, target: str, feature_type: str) -> None:
    # verify runs the code on the rows (20% of cells missing), every threshold's
    # neighbourhood, unseen categories and missing values, and compares every answer.
    from puretree.codegen.verify import verify

    ds = blanked(pt.read_arff(DATA / f"{name}.arff"), 0.2)
    tree = pt.cart(ds, missing="surrogate")
    report = verify(tree, ds, target, feature_type=feature_type, sanitize=target == "c")
    assert report.ok and report.n_checked > ds.n_rows, report


def test_generated_code_is_the_table_form() -> None:
    from puretree.codegen import generate
    from puretree.errors import CodegenError

    tree = pt.cart(blanked(pt.read_arff(DATA / "vote.arff"), 0.2), missing="surrogate", max_depth=3)
    assert "_ROUTES" in generate(tree, "python", name="t")["t.py"]
    with pytest.raises(CodegenError, match="surrogate.*table form"):
        generate(tree, "c", name="t", form="nested")


def test_the_command_line_fits_and_predicts_with_surrogates(tmp_path: Path) -> None:
    import sys

    data = tmp_path / "d.csv"
    data.write_text("x,z,y\n1,1,a\n2,2,a\n3,,a\n4,4,b\n,5,b\n6,6,b\n", encoding="utf-8")
    model = tmp_path / "m.json"
    fit = subprocess.run([sys.executable, "-m", "puretree", "fit", str(data), "--target", "y", "--algorithm", "cart", "--missing", "surrogate", "-o", str(model)], capture_output=True, text=True)
    assert fit.returncode == 0, fit.stderr
    tree = pt.load(model)
    assert tree.root.surrogates is not None and tree.root.surrogates.splits[0].feature == 1
    show = subprocess.run([sys.executable, "-m", "puretree", "show", str(model)], capture_output=True, text=True)
    assert "(surrogate: z <= 3)" in show.stdout
    rows = tmp_path / "new.csv"
    rows.write_text("x,z\n,0.5\n,5.5\n,\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "puretree", "predict", str(model), str(rows)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-3:] == ["a", "b", "a"]  # the last: both missing, the first child has as many rows: a tie stops at the root, whose majority is a
    refused = subprocess.run([sys.executable, "-m", "puretree", "fit", str(data), "--target", "y", "--algorithm", "c45", "--missing", "surrogate", "-o", str(model)], capture_output=True, text=True)
    assert refused.returncode != 0 and refused.stderr.count("\n") == 1 and "missing='surrogate'" in refused.stderr


def test_the_estimator_takes_missing_surrogate(tmp_path: Path) -> None:
    from puretree.estimators import TreeClassifier

    ds = blanked(pt.read_arff(DATA / "vote.arff"), 0.2)
    X = ds.X  # the vote codes as numbers: each column numeric with values 0 and 1
    model = TreeClassifier(missing="surrogate").fit(X, ds.y)
    assert model.tree_.root.surrogates is not None
    np.testing.assert_array_equal(model.predict_proba(X), pt.cart(X, ds.y, missing="surrogate").predict_proba(X))


def test_dask_refuses_missing_surrogate() -> None:
    import dask.array as da  # the test extra installs dask

    import puretree.dask as ptdask

    X = da.from_array(np.array([[0.0], [1.0], [np.nan], [3.0]]), chunks=2)
    y = da.from_array(np.array([0, 1, 0, 1]), chunks=2)
    with pytest.raises(ParameterError, match="missing='surrogate' .* in-memory reference builder only"):
        ptdask.cart(X, y, missing="surrogate")


def test_check_tree_accepts_rows_that_stay_at_a_split_and_to_sklearn_refuses() -> None:
    from puretree.invariants import check_tree
    from puretree.sklearn_export import UnsupportedTreeError, to_sklearn

    ds = blanked(pt.read_arff(DATA / "vote.arff"), 0.2)
    tree = pt.cart(ds, missing="surrogate")
    # rpart keeps at a split the rows no test routes (a tie for the fallback): some split here holds more than its children
    assert any(not np.allclose(np.sum([k.stats for k in s.children], axis=0), s.stats) for s in splits(tree.root))
    check_tree(tree)
    X = np.array([[1.0, 1.0], [2.0, 2.0], [3.0, np.nan], [4.0, 4.0], [np.nan, 5.0], [6.0, 6.0]])
    numeric = pt.cart(X, ["a", "a", "a", "b", "b", "b"], missing="surrogate")
    with pytest.raises(UnsupportedTreeError, match="surrogate"):
        to_sklearn(numeric)


def test_resources_count_the_surrogate_tables() -> None:
    import re

    from puretree.codegen import generate
    from puretree.codegen.lower import lower, resources

    tree = pt.cart(blanked(pt.read_arff(DATA / "vote.arff"), 0.2), missing="surrogate")
    model = lower(tree, "c", {"name": "t"})
    tables = resources(model)["tables"]
    source = generate(tree, "c", name="t")["t.c"]
    declared = set(re.findall(r"static const \w+ t_(\w+)\[", source))
    assert set(tables) == declared - {"category_names_0"} and "sur_kids" in tables


def test_threshold_data_refused() -> None:
    with pytest.raises(ParameterError, match="surrogate.*threshold='data'"):
        pt.cart([[1.0], [2.0], [np.nan], [4.0]], ["a", "a", "b", "b"], missing="surrogate", threshold="data")


def test_quantized_code_keeps_the_surrogates() -> None:
    # The integer code routes a row whose split value is missing through the surrogates, their
    # thresholds quantized on their own features' ranges: quantization changes no answer here,
    # where dropping the surrogates (the tree's fallback instead) changed some.
    from puretree.codegen.lower import feature_ranges, quantization, quantized_tree
    from puretree.codegen.verify import verify

    X, y = _continuous_with_gaps()
    tree = pt.cart(X, y, missing="surrogate", max_depth=4)
    kept = [n.surrogates for n in pt.iter_nodes(tree) if isinstance(n, Split) and n.surrogates]
    assert kept
    offset, scale = quantization(tree.schema, feature_ranges(X), "int16")
    q = quantized_tree(tree, offset, scale, "int16")
    got = [n.surrogates for n in pt.iter_nodes(q) if isinstance(n, Split) and n.surrogates]
    assert [[s.feature for s in g.splits] for g in got] == [[s.feature for s in k.splits] for k in kept]
    assert any(s.test.value != t.test.value for g, k in zip(got, kept) for s, t in zip(g.splits, k.splits))
    report = verify(tree, X, "c", feature_type="int16", quantize=feature_ranges(X), max_changed=0)
    assert report.ok and report.n_mismatches == 0 and report.changed_by_quantization == 0, report


def _continuous_with_gaps() -> tuple[np.ndarray, np.ndarray]:
    """breast_cancer with 20% of its cells blanked (seeded): surrogates decide many rows."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < 0.2] = np.nan
    return X, y


def test_a_quantize_option_that_is_not_ranges_is_refused_by_name() -> None:
    from puretree.codegen.verify import verify
    from puretree.errors import CodegenError

    X, y = _continuous_with_gaps()
    tree = pt.cart(X[:, :2], y, max_depth=2)
    with pytest.raises(CodegenError, match="range of feature 'x0' must be two numbers"):
        verify(tree, X[:, :2], "c", feature_type="int16", quantize=["ab", "cd"])
