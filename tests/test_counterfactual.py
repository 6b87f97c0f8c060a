"""``robustness`` and ``counterfactual``: each answer's witness row is predicted as said, rows
closer than the answer's distance are answered otherwise (sampled, on drawn trees and small
ensembles), the constraints hold, and bad input is refused by name."""

import json
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import puretree as pt
from puretree.analysis import counterfactual, robustness
from puretree.grow import cart
from puretree.strategies import schemas, trees


def cuts(model):
    members = getattr(model, "members", None) or [t for s in getattr(model, "stages", ()) for t in s] or [model]
    return sorted({n.test.value for m in members for n in pt.iter_nodes(m) if isinstance(n, pt.Split) and n.test.kind == "threshold" and math.isfinite(n.test.value)})


def a_row(data, model):
    near = [c + d for c in cuts(model) for d in (-0.25, 0.0, 0.25)] or [0.0]
    cell = st.sampled_from(near) | st.floats(-100, 100)
    return {f.name: data.draw(cell) if f.is_numeric else data.draw(st.sampled_from(f.categories)) for f in model.schema.features}


def linf(schema, a, b):
    return max((abs(a[f.name] - b[f.name]) for f in schema.features if f.is_numeric), default=0.0)


def assert_robustness_is_exact(model, row, data):
    r = robustness(model, row)
    assert r.answer == pt.predict(model, row)
    if r.witness is None:
        assert r.radius == math.inf
        return
    assert r.exact and r.witness_answer != r.answer and pt.predict(model, r.witness) == r.witness_answer
    assert linf(model.schema, row, r.witness) == r.radius
    # Rows closer than the radius (towards the witness, and anywhere in the ball) keep the answer.
    inside = [{k: (row[k] + (r.witness[k] - row[k]) * t if isinstance(row[k], float) else row[k]) for k in row} for t in (0.5, 0.9, 1 - 1e-9)]
    for _ in range(10):
        inside.append({f.name: (row[f.name] + data.draw(st.floats(-1, 1)) * r.radius if f.is_numeric else row[f.name]) for f in model.schema.features})
    for other in inside:
        if linf(model.schema, row, other) < r.radius:
            assert pt.predict(model, other) == r.answer, (other, r)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_robustness_of_drawn_trees_is_exact(data):
    tree = data.draw(trees(schema=schemas(max_features=3), max_depth=4, splits=("threshold", "subset", "multiway")))
    assert_robustness_is_exact(tree, a_row(data, tree), data)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 1000), st.data())
def test_robustness_of_a_small_forest_is_exact_and_its_bound_lower(seed, data):
    rng = np.random.default_rng(seed)
    X = rng.integers(-4, 5, size=(30, 2)).astype(float)
    y = np.where(X[:, 0] + X[:, 1] + rng.integers(-2, 3, 30) > 0, "p", "n")
    forest = pt.random_forest(X, y, n_trees=3, seed=seed % 5, max_depth=3)
    row = a_row(data, forest)
    assert_robustness_is_exact(forest, row, data)  # the solver's ("auto" for an ensemble)
    boxes = robustness(forest, row, method="boxes")
    assert boxes.exact and boxes.radius == robustness(forest, row).radius
    bound = robustness(forest, row, method="boxes", max_boxes=1)
    assert not bound.exact and bound.witness is None
    assert 0.0 <= bound.radius <= boxes.radius


def assert_counterfactual_is_nearest(model, row, target, norm, immutable, data):
    cf = counterfactual(model, row, target, norm=norm, immutable=immutable)
    schema = model.schema

    def distance(other):
        d = np.array([abs(other[f.name] - row[f.name]) if f.is_numeric else float(other[f.name] != row[f.name]) for f in schema.features])
        return d.sum() if norm == "l1" else math.hypot(*d.tolist()) if norm == "l2" else d.max(initial=0.0)

    # Sampled rows that keep the immutable features and get the target are never nearer.
    near = [c + d for c in cuts(model) for d in (-0.25, 0.0, 0.25)] or [0.0]
    others = [{**a_row(data, model), **{k: row[k] for k in immutable}} for _ in range(15)]
    others = [o for o in others if pt.predict(model, o) == target]
    if cf is None:
        assert others == []
        return
    assert cf.answer == target and pt.predict(model, cf.row) == target
    assert all(cf.row[k] == row[k] for k in immutable)
    assert math.isclose(distance(cf.row), cf.distance, rel_tol=1e-12, abs_tol=1e-300)
    for o in others:
        assert distance(o) >= cf.distance * (1 - 1e-12), (o, cf)
    del near


@settings(max_examples=60, deadline=None)
@given(st.data(), st.sampled_from(["l1", "l2", "linf"]))
def test_counterfactuals_of_drawn_trees_are_the_nearest_rows_with_the_target(data, norm):
    tree = data.draw(trees(schema=schemas(max_features=3, n_classes=2), max_depth=4, splits=("threshold", "subset", "multiway")))
    row = a_row(data, tree)
    immutable = data.draw(st.lists(st.sampled_from(tree.schema.feature_names), max_size=1, unique=True))
    assert_counterfactual_is_nearest(tree, row, tree.schema.classes[data.draw(st.integers(0, 1))], norm, immutable, data)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 1000), st.sampled_from(["l1", "l2", "linf"]), st.data())
def test_counterfactuals_of_a_small_boosted_model_are_the_nearest_rows(seed, norm, data):
    rng = np.random.default_rng(seed)
    X = rng.integers(-4, 5, size=(30, 2)).astype(float)
    y = (X[:, 0] - X[:, 1] + rng.integers(-2, 3, 30) > 0).astype(int)
    if len(set(y.tolist())) < 2:
        y[0] = 1 - y[0]
    model = pt.gradient_boosting(X, y, n_estimators=3, max_depth=2)
    assert_counterfactual_is_nearest(model, a_row(data, model), data.draw(st.sampled_from([0, 1])), norm, [], data)


def test_ranges_bound_the_counterfactual():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    tree = cart(X, ["a", "a", "b", "b"])
    assert counterfactual(tree, {"x0": 0.0}, "b").row == {"x0": float(np.nextafter(1.5, 2))}
    assert counterfactual(tree, {"x0": 0.0}, "b", ranges={"x0": (2.5, 10.0)}).row == {"x0": 2.5}
    assert counterfactual(tree, {"x0": 0.0}, "b", ranges={"x0": (-5.0, 1.0)}) is None


@pytest.mark.parametrize("call, message", [
    (lambda t: counterfactual(t, {"x0": 1.0}, "zz"), "target 'zz' is not one of the model's classes"),
    (lambda t: counterfactual(t, {"x0": 1.0}, "a", norm="l3"), "norm must be one of"),
    (lambda t: counterfactual(t, {"x0": 1.0}, "a", immutable=["nope"]), "unknown feature 'nope'"),
    (lambda t: counterfactual(t, {"x0": 1.0}, "a", ranges={"x0": (3.0, 1.0)}), "the range of 'x0' is empty"),
    (lambda t: counterfactual(t, {"x0": math.nan}, "a"), "the row's 'x0' is missing"),
    (lambda t: robustness(t, [1.0]), "row must be a mapping"),
    (lambda t: robustness("tree", {"x0": 1.0}), "robustness takes a puretree Tree"),
])
def test_bad_input_is_refused_by_name(call, message):
    tree = cart(np.array([[0.0], [1.0], [2.0], [3.0]]), ["a", "a", "b", "b"])
    with pytest.raises(pt.PuretreeError, match=message):
        call(tree)


def test_the_command_line_prints_the_counterfactual_row(tmp_path):
    path = tmp_path / "tree.json"
    pt.save(cart(np.array([[0.0], [1.0], [2.0], [3.0]]), ["a", "a", "b", "b"]), path)
    run = subprocess.run([sys.executable, "-m", "puretree", "counterfactual", str(path), "--row", '{"x0": 3.0}', "--target", "a", "--norm", "linf"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    head, row = run.stdout.splitlines()
    assert head == "distance 1.5 (linf) to a row answered a:" and json.loads(row) == {"x0": 1.5}
    none = subprocess.run([sys.executable, "-m", "puretree", "counterfactual", str(path), "--row", '{"x0": 3.0}', "--target", "a", "--immutable", "x0"],
                          capture_output=True, text=True)
    assert none.returncode == 3 and none.stdout.startswith("no row")
    bad = subprocess.run([sys.executable, "-m", "puretree", "counterfactual", str(path), "--row", "{x0", "--target", "a"], capture_output=True, text=True)
    assert bad.returncode != 0 and "--row" in bad.stderr and "Traceback" not in bad.stderr


def test_the_command_line_keeps_ranges_and_prints_the_robustness_radius(tmp_path):
    path = tmp_path / "tree.json"
    pt.save(cart(np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 5.0], [3.0, 5.0]]), ["a", "a", "b", "b"]), path)
    row = '{"x0": 3.0, "x1": 5.0}'

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "puretree", *args], capture_output=True, text=True)

    free = cli("counterfactual", str(path), "--row", row, "--target", "a", "--norm", "linf")
    kept = cli("counterfactual", str(path), "--row", row, "--target", "a", "--range", "x0=2.5:")
    assert free.returncode == 0 and json.loads(free.stdout.splitlines()[1])["x0"] < 2.5
    # the same question with x0 kept at 2.5 or more: the library's answer (none), on the command line
    assert counterfactual(pt.load(path), json.loads(row), "a", ranges={"x0": (2.5, math.inf)}) is None
    assert kept.returncode == 3 and kept.stdout.startswith("no row"), kept.stderr
    r = robustness(pt.load(path), json.loads(row))
    out = cli("robustness", str(path), "--row", row)
    assert out.returncode == 0, out.stderr
    head, _, witness = out.stdout.splitlines()
    assert head.startswith(f"radius {r.radius:g} (exact)") and json.loads(witness) == r.witness
    for args, named in ((("counterfactual", str(path), "--row", row, "--target", "a", "--range", "x0=a:b"), "x0=a:b"),
                        (("counterfactual", str(path), "--row", row, "--target", "a", "--range", "nope=1:2"), "nope"),
                        (("robustness", str(path), "--row", "[1]"), "--row")):
        bad = cli(*args)
        assert bad.returncode != 0 and named in bad.stderr and "Traceback" not in bad.stderr
