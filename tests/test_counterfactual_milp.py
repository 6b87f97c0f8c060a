"""The solver's counterfactuals and robustness (``method="milp"``) against the exact box search
on ensembles small enough for both: the same distance (up to 1e-9 relative; linf and robustness
exactly), the witness predicted, the constraints kept; on 10 trees of depth 4 (where the boxes
are too many) every answer exact and predicted; a time limit gives a bound; no scipy: a clear error."""

import math
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import puretree as pt
from puretree.analysis import SolverUnavailableError, counterfactual, robustness


def small_models(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(-4, 5, size=(40, 3)).astype(float)
    noisy = X[:, 0] + X[:, 1] - X[:, 2] + rng.integers(-2, 3, 40)
    binary = np.where(noisy > 0, "p", "n")
    three = np.digitize(noisy, [-2.0, 2.0])
    return X, [
        pt.random_forest(X, binary, n_trees=3, seed=seed, max_depth=3),
        pt.gradient_boosting(X, (noisy > 0).astype(int), n_estimators=3, max_depth=2),
        pt.gradient_boosting(X, three, n_estimators=2, max_depth=2),  # multiclass: one score per class
        pt.random_forest(X, three, n_trees=2, seed=seed, max_depth=3),
    ]


def distance(schema, row, other, norm):
    d = [abs(other[f.name] - row[f.name]) if f.is_numeric else float(other[f.name] != row[f.name]) for f in schema.features]
    return sum(d) if norm == "l1" else math.hypot(*d) if norm == "l2" else max(d, default=0.0)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["l1", "l2", "linf"]), st.data())
def test_the_solver_finds_the_distance_of_the_box_search(seed, norm, data):
    X, models = small_models(seed)
    model = data.draw(st.sampled_from(models))
    base = X[data.draw(st.integers(0, len(X) - 1))]
    shift = data.draw(st.sampled_from([0.0, 0.25, -0.5, 0.5]))  # on a cut, and between cuts
    row = {f"x{j}": float(base[j]) + shift for j in range(3)}
    target = data.draw(st.sampled_from(model.schema.classes))
    immutable = data.draw(st.lists(st.sampled_from(["x0", "x1", "x2"]), max_size=1))
    ranges = data.draw(st.sampled_from([None, {"x1": (-1.0, 2.0)}]))
    if ranges and immutable == ["x1"]:
        ranges = None
    boxes = counterfactual(model, row, target, norm=norm, immutable=immutable, ranges=ranges, method="boxes")
    found = counterfactual(model, row, target, norm=norm, immutable=immutable, ranges=ranges, method="milp")
    assert (boxes is None) == (found is None)
    if found is None:
        return
    assert found.exact and found.method == "milp" and found.lower_bound == found.distance
    assert pt.predict(model, found.row) == target == found.answer
    assert all(found.row[k] == row[k] for k in immutable)
    if ranges:
        assert -1.0 <= found.row["x1"] <= 2.0
    assert found.distance == distance(model.schema, row, found.row, norm)
    if norm == "linf":
        assert found.distance == boxes.distance
    else:
        assert math.isclose(found.distance, boxes.distance, rel_tol=1e-9, abs_tol=0.0), (found, boxes)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.data())
def test_the_solvers_robustness_is_the_box_searchs(seed, data):
    X, models = small_models(seed)
    model = data.draw(st.sampled_from(models))
    base = X[data.draw(st.integers(0, len(X) - 1))]
    row = {f"x{j}": float(base[j]) + data.draw(st.sampled_from([0.0, 0.25, -0.5])) for j in range(3)}
    boxes = robustness(model, row, method="boxes")
    found = robustness(model, row, method="milp")
    assert found.exact and found.radius == boxes.radius and found.answer == boxes.answer
    if found.witness is not None:
        assert pt.predict(model, found.witness) == found.witness_answer != found.answer
        assert max(abs(found.witness[k] - row[k]) for k in row) == found.radius


def test_categorical_features_are_chosen_by_the_solver_as_by_the_boxes():
    rng = np.random.default_rng(7)
    colour = rng.choice(["red", "green", "blue"], 60)
    x = rng.integers(0, 10, 60).astype(float)
    y = np.where((colour == "red") ^ (x > 5), "yes", "no")
    data = [{"colour": c, "x": v} for c, v in zip(colour, x)]
    forest = pt.random_forest(data, y, n_trees=3, seed=1, max_depth=3)
    for row in ({"colour": "red", "x": 2.0}, {"colour": "blue", "x": 7.0}):
        for norm in ("l1", "l2", "linf"):
            for target in ("yes", "no"):
                a = counterfactual(forest, row, target, norm=norm, method="boxes")
                b = counterfactual(forest, row, target, norm=norm, method="milp")
                assert (a is None) == (b is None)
                if b is not None:
                    assert pt.predict(forest, b.row) == target and math.isclose(a.distance, b.distance, rel_tol=1e-9, abs_tol=0.0)
        assert counterfactual(forest, row, "yes", ranges={"colour": ["green"]}, method="milp").row["colour"] == "green"
        assert robustness(forest, row, method="milp").radius == robustness(forest, row, method="boxes").radius


def ten_trees_of_depth_four():
    from sklearn.datasets import make_classification
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
    import lightgbm
    import xgboost

    X, y = make_classification(n_samples=600, n_features=20, n_informative=10, random_state=0)
    return X, [
        pt.from_sklearn(RandomForestClassifier(n_estimators=10, max_depth=4, random_state=0).fit(X, y)),
        pt.from_sklearn(GradientBoostingClassifier(n_estimators=10, max_depth=4, random_state=0).fit(X, y)),
        pt.from_xgboost(xgboost.XGBClassifier(n_estimators=10, max_depth=4, random_state=0).fit(X, y)),  # float32 thresholds
        pt.from_lightgbm(lightgbm.LGBMClassifier(n_estimators=10, max_depth=4, num_leaves=16, verbose=-1, random_state=0).fit(X, y)),
    ]


@pytest.mark.parametrize("norm", ["l1", "l2", "linf"])
def test_ten_trees_of_depth_four_get_exact_predicted_counterfactuals(norm):
    X, models = ten_trees_of_depth_four()
    for model in models:
        names = model.schema.feature_names
        for i in range(2):
            row = dict(zip(names, X[i].tolist()))
            target = next(c for c in model.schema.classes if c != pt.predict(model, row))
            found = counterfactual(model, row, target, norm=norm)
            assert found.exact and found.method == "milp" and pt.predict(model, found.row) == target
            assert found.distance == distance(model.schema, row, found.row, norm) > 0
            # The robustness radius is the nearest other class in linf: the same number.
            if norm == "linf":
                r = robustness(model, row)
                assert r.exact and r.radius == found.distance and pt.predict(model, r.witness) == target


def test_out_of_time_gives_a_predicted_row_and_a_bound_or_says_so():
    X, models = ten_trees_of_depth_four()
    model = models[0]
    row = dict(zip(model.schema.feature_names, X[0].tolist()))
    target = next(c for c in model.schema.classes if c != pt.predict(model, row))
    exact = counterfactual(model, row, target, norm="l1")
    try:
        quick = counterfactual(model, row, target, norm="l1", time_limit=1e-6)
    except pt.PuretreeError as exc:
        assert "within time_limit=1e-06 s" in str(exc)
    else:
        assert not quick.exact and pt.predict(model, quick.row) == target
        assert quick.lower_bound <= exact.distance <= quick.distance
    r = robustness(model, row, time_limit=1e-6)
    assert not r.exact and 0.0 <= r.radius <= robustness(model, row).radius
    assert r.witness is None or pt.predict(model, r.witness) != r.answer


def test_without_scipy_the_error_says_which_extra(monkeypatch):
    _, models = small_models(0)
    monkeypatch.setitem(sys.modules, "scipy.optimize", None)  # import scipy.optimize now fails
    with pytest.raises(SolverUnavailableError, match=r"pip install 'puretree\[solver\]'"):
        counterfactual(models[0], {"x0": 0.0, "x1": 0.0, "x2": 0.0}, "p", method="milp")
    assert isinstance(SolverUnavailableError("x"), pt.PuretreeError)
    # The box search needs no solver.
    assert counterfactual(models[0], {"x0": 0.0, "x1": 0.0, "x2": 0.0}, "p", method="boxes") is not None


@pytest.mark.parametrize("call, message", [
    (lambda m: counterfactual(m, {"x0": 0.0, "x1": 0.0, "x2": 0.0}, "p", method="lp"), "method must be one of"),
    (lambda m: counterfactual(m, {"x0": 0.0, "x1": 0.0, "x2": 0.0}, "p", time_limit=0), "time_limit must be a number of seconds > 0"),
    (lambda m: counterfactual(m, {"x0": 0.0, "x1": 0.0, "x2": 0.0}, "p", immutable="x0"), "immutable must be a list of feature names"),
    (lambda m: robustness(pt.gradient_boosting(np.arange(8.0).reshape(-1, 1), np.arange(8.0), loss="squared_error", n_estimators=2, max_depth=1), {"x0": 1.0}, method="milp"),
     "asks a classifier"),
])
def test_bad_options_are_refused_by_name(call, message):
    _, models = small_models(0)
    with pytest.raises(pt.PuretreeError, match=message):
        call(models[0])


def test_the_command_line_uses_the_solver_for_a_forest_and_says_when_it_is_not_proven(tmp_path):
    import json
    import subprocess

    X, models = small_models(3)
    path = tmp_path / "forest.json"
    pt.save(models[0], path)
    row = {"x0": 0.0, "x1": 0.0, "x2": 0.0}
    target = next(c for c in models[0].schema.classes if c != pt.predict(models[0], row))
    run = subprocess.run([sys.executable, "-m", "puretree", "counterfactual", str(path), "--row", json.dumps(row), "--target", target, "--norm", "linf"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    head, line = run.stdout.splitlines()
    expected = counterfactual(models[0], row, target, norm="linf", method="boxes")
    from puretree.nodes import format_number

    assert head == f"distance {format_number(expected.distance)} (linf) to a row answered {target}:"
    assert pt.predict(models[0], json.loads(line)) == target
    bad = subprocess.run([sys.executable, "-m", "puretree", "counterfactual", str(path), "--row", json.dumps(row), "--target", target, "--time-limit", "0"],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr and "--time-limit" in bad.stderr
