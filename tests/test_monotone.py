"""``check_monotone``: an exact check over the model's boxes; a witness really breaks the
direction, and True really holds on sampled pairs of rows."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import puretree as pt
from puretree.errors import ParameterError
from puretree.grow import cart, cart_regressor
from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
from puretree.strategies import trees
from puretree.tree import Tree


def value(model, rows):
    if model.schema.is_regression:
        return np.asarray(pt.predict(model, rows), dtype=np.float64)
    return np.asarray(pt.predict_proba(model, rows))[:, 1]


def assert_answer_is_right(model, name, direction, answer, data):
    schema = model.schema
    if answer is True:
        # Sampled pairs differing only in the feature never break the direction.
        cuts = sorted({n.test.value for m in getattr(model, "members", (model,)) for n in pt.iter_nodes(m) if isinstance(n, Split) and n.test.kind == "threshold"})
        near = [c + d for c in cuts for d in (-1.0, 0.0, 1.0) if math.isfinite(c + d)] or [0.0]
        cell = st.sampled_from(near) | st.floats(-1e3, 1e3)
        for _ in range(20):
            row = {f.name: data.draw(cell) if f.is_numeric else data.draw(st.sampled_from(f.categories)) for f in schema.features}
            a, b = sorted([data.draw(cell), data.draw(cell)])
            low, high = {**row, name: a}, {**row, name: b}
            va, vb = value(model, [low, high])
            assert (va <= vb) if direction == 1 else (va >= vb), (low, high, va, vb)
    else:
        low, high = answer
        assert set(low) == set(high) == set(schema.feature_names)
        assert all(low[k] == high[k] for k in low if k != name) and low[name] < high[name]
        va, vb = value(model, [low, high])
        assert (va > vb) if direction == 1 else (va < vb)


@settings(max_examples=80)
@given(trees(n_classes=2, max_depth=4, splits=("threshold", "subset", "multiway")), st.sampled_from([1, -1]), st.data())
def test_on_drawn_trees_a_witness_breaks_and_true_holds(tree, direction, data):
    numeric = [f.name for f in tree.schema.features if f.is_numeric]
    if not numeric:
        return
    name = data.draw(st.sampled_from(numeric))
    assert_answer_is_right(tree, name, direction, pt.check_monotone(tree, name, direction), data)


@st.composite
def regression_data(draw):
    n, k = draw(st.integers(2, 30)), draw(st.integers(1, 3))
    X = np.array(draw(st.lists(st.lists(st.integers(-5, 5).map(float), min_size=k, max_size=k), min_size=n, max_size=n)))
    slope = draw(st.sampled_from([1.0, -1.0, 0.0]))
    y = slope * X[:, 0] + np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=float) * draw(st.sampled_from([0.0, 0.1, 1.0]))
    return X, y


@settings(max_examples=60)
@given(regression_data(), st.sampled_from(["tree", "bagging", "random_forest"]), st.sampled_from([1, -1]), st.data())
def test_on_grown_regressors_and_ensembles_a_witness_breaks_and_true_holds(xy, kind, direction, data):
    X, y = xy
    if kind == "tree":
        model = cart_regressor(X, y, max_depth=3)
    else:
        model = getattr(pt, kind)(X, y, n_trees=3, seed=data.draw(st.integers(0, 9)), max_depth=2, task="regression")
    assert_answer_is_right(model, "x0", direction, pt.check_monotone(model, "x0", direction), data)


def test_a_monotone_fit_is_proved_and_a_bump_is_found():
    X = np.arange(40.0).reshape(-1, 1)
    assert pt.check_monotone(cart_regressor(X, 2 * X[:, 0]), 0, +1) is True
    assert pt.check_monotone(cart_regressor(X, -X[:, 0]), "x0", -1) is True
    bowl = cart_regressor(X, (X[:, 0] - 20) ** 2)
    low, high = pt.check_monotone(bowl, "x0", +1)
    assert low["x0"] < high["x0"] and pt.predict(bowl, low) > pt.predict(bowl, high)


def test_an_ensemble_is_checked_over_the_overlay_of_its_members():
    # Each member alone is monotone (+1) in x; their sum is too, except where one member's
    # drop at x <= 2 meets the other's rise: the overlay of both trees is what decides.
    schema = Schema((Feature("x"), Feature("z")), task="regression")
    up = Tree(Split(0, Threshold(1.0), (Leaf((1, 0, 0)), Leaf((1, 1, 1))), (2, 1, 1)), schema)
    down_where_z = Tree(Split(1, Threshold(0.0), (Split(0, Threshold(2.0), (Leaf((1, 5, 25)), Leaf((1, 0, 0))), (2, 5, 25)), Leaf((1, 0, 0))), (3, 5, 25)), schema)
    ens = pt.Ensemble((up, down_where_z), (1.0, 1.0), schema, "bagging", 0, {}, None)
    assert pt.check_monotone(up, "x", +1) is True and pt.check_monotone(down_where_z, "x", -1) is True
    low, high = pt.check_monotone(ens, "x", +1)
    assert low["z"] == high["z"] <= 0.0 and low["x"] <= 2.0 < high["x"]
    assert pt.check_monotone(ens, "z", -1) is True


def test_a_loaded_model_is_checked_as_the_grown_one():
    X = np.arange(30.0).reshape(-1, 1)
    tree = cart_regressor(X, np.sin(X[:, 0]))
    assert pt.check_monotone(pt.from_json(pt.to_json(tree)), "x0", 1) == pt.check_monotone(tree, "x0", 1)


@pytest.mark.parametrize("args, message", [
    (("nope", 1), "unknown feature"),
    ((5, 1), "feature must be a name or an index"),
    (("x0", 2), "direction must be"),
    (("x0", True), "direction must be"),
])
def test_bad_arguments_are_refused_by_name(args, message):
    tree = cart_regressor(np.arange(4.0).reshape(-1, 1), np.arange(4.0))
    with pytest.raises(pt.PuretreeError, match=message):
        pt.check_monotone(tree, *args)


def test_a_categorical_feature_and_a_multiclass_model_are_refused():
    with pytest.raises(ParameterError, match="categorical"):
        pt.check_monotone(pt.id3(pt.datasets.load_playtennis()), "outlook", 1)
    X = np.arange(9.0).reshape(-1, 1)
    with pytest.raises(ParameterError, match="3 classes"):
        pt.check_monotone(cart(X, ["a", "b", "c"] * 3), "x0", 1)


def test_a_cut_at_the_lowest_float_raises_no_floating_point_warning():
    # No value lies below -max: the check says so without numpy's overflow flag (a drawn tree found it).
    schema = Schema((Feature("x"),), task="regression")
    lowest = -np.finfo(np.float64).max
    tree = Tree(Split(0, Threshold(lowest), (Leaf((1, 5, 25)), Leaf((1, 0, 0))), (2, 5, 25)), schema)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pt.check_monotone(tree, "x", -1) is True
        low, high = pt.check_monotone(tree, "x", 1)
    assert low["x"] < high["x"] and value(tree, [low])[0] > value(tree, [high])[0]


# -- every imported model kind, and the command line ---------------------------------------


def bump_data():
    rng = np.random.default_rng(3)
    X = rng.uniform(-3, 3, size=(400, 2))
    return X, X[:, 0] ** 2 + 0.3 * X[:, 1] + rng.normal(0, 0.1, 400)


def assert_witness_breaks(model, name, direction):
    answer = pt.check_monotone(model, name, direction)
    assert answer is not True
    low, high = answer
    assert low[name] < high[name] and all(low[k] == high[k] for k in low if k != name)
    va, vb = value(model, [low, high])
    assert (va > vb) if direction == 1 else (va < vb)


def imported(kind, constrained):
    X, y = bump_data()
    if kind == "xgboost":
        import xgboost
        est = xgboost.XGBRegressor(n_estimators=15, max_depth=3, monotone_constraints="(1,0)" if constrained else None, random_state=0)
        return pt.from_xgboost(est.fit(np.abs(X) if constrained else X, y))
    if kind == "lightgbm":
        import lightgbm
        est = lightgbm.LGBMRegressor(n_estimators=15, num_leaves=8, monotone_constraints=[1, 0] if constrained else None, verbose=-1, random_state=0)
        return pt.from_lightgbm(est.fit(X, y))
    from sklearn.ensemble import GradientBoostingRegressor, HistGradientBoostingRegressor, RandomForestRegressor
    if kind == "sklearn-hgb":
        est = HistGradientBoostingRegressor(max_iter=15, max_depth=3, monotonic_cst=[1, 0] if constrained else None, random_state=0)
    elif kind == "sklearn-forest":
        est = RandomForestRegressor(n_estimators=5, max_depth=3, monotonic_cst=[1, 0] if constrained else None, random_state=0)
    else:
        est = GradientBoostingRegressor(n_estimators=15, max_depth=3, random_state=0)
    return pt.from_sklearn(est.fit(X, y))


@pytest.mark.parametrize("kind", ["xgboost", "lightgbm", "sklearn-hgb", "sklearn-forest", "sklearn-gb"])
def test_imported_models_are_checked_a_bump_is_found_and_a_constraint_proved(kind):
    bowl = imported(kind, False)
    name = bowl.schema.feature_names[0]
    assert_witness_breaks(bowl, name, +1)
    assert_witness_breaks(bowl, name, -1)
    if kind != "sklearn-gb":  # scikit-learn's GradientBoosting has no monotonic constraint
        assert pt.check_monotone(imported(kind, True), name, +1) is True


def test_a_boosted_classifier_reads_its_probability():
    from sklearn.ensemble import GradientBoostingClassifier
    X, y = bump_data()
    model = pt.from_sklearn(GradientBoostingClassifier(n_estimators=10, max_depth=2, random_state=0).fit(X, y > 3))
    assert_witness_breaks(model, "x0", +1)
    assert pt.check_monotone(pt.gradient_boosting(X[:, :1], (X[:, 0] > 0).astype(int), n_estimators=3, max_depth=1), "x0", +1) is True


def test_the_command_line_says_monotone_or_prints_two_rows(tmp_path):
    import json
    import subprocess
    import sys

    X = np.arange(30.0).reshape(-1, 1)
    path = tmp_path / "bowl.json"
    pt.save(cart_regressor(X, (X[:, 0] - 15) ** 2), path)
    run = lambda *args: subprocess.run([sys.executable, "-m", "puretree", "check-monotone", str(path), *args], capture_output=True, text=True)
    broken = run("--feature", "x0", "--direction", "+1")
    assert broken.returncode == 3, broken.stderr
    head, low, high = broken.stdout.splitlines()
    assert head.startswith("not monotone") and json.loads(low)["x0"] < json.loads(high)["x0"]
    up = tmp_path / "up.json"
    pt.save(cart_regressor(X, X[:, 0]), up)
    fine = subprocess.run([sys.executable, "-m", "puretree", "check-monotone", str(up), "--feature", "x0", "--direction", "+1"], capture_output=True, text=True)
    assert fine.returncode == 0 and fine.stdout == "monotone: the model is non-decreasing in x0\n"
    for args, message in ((("--feature", "x0", "--direction", "2"), "--direction must be +1 or -1, got '2'"), (("--feature", "nope", "--direction", "-1"), "nope")):
        bad = run(*args)
        assert bad.returncode == 1 and message in bad.stderr and "Traceback" not in bad.stderr, bad.stderr


@pytest.mark.parametrize("kind", ["xgboost", "lightgbm", "sklearn-hgb", "sklearn-forest", "sklearn-gb"])
def test_the_command_line_checks_each_imported_model_saved_as_json(kind, tmp_path):
    import json
    import subprocess
    import sys

    path = tmp_path / "model.json"
    pt.save(imported(kind, False), path)
    model = pt.load(path)
    name = model.schema.feature_names[0]
    run = subprocess.run([sys.executable, "-m", "puretree", "check-monotone", str(path), "--feature", name, "--direction", "+1"], capture_output=True, text=True)
    assert run.returncode == 3, run.stderr
    _, low, high = run.stdout.splitlines()
    low, high = json.loads(low), json.loads(high)
    assert low[name] < high[name] and value(model, [low, high])[0] > value(model, [low, high])[1]
    if kind != "sklearn-gb":
        pt.save(imported(kind, True), path)
        fine = subprocess.run([sys.executable, "-m", "puretree", "check-monotone", str(path), "--feature", name, "--direction", "+1"], capture_output=True, text=True)
        assert fine.returncode == 0 and fine.stdout == f"monotone: the model is non-decreasing in {name}\n", fine.stderr
