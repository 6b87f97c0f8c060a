"""``diff``: the boxes where two models answer differently are exact: a row inside a returned
box gets two different answers, a row outside every box the same answer (checked by
predicting drawn rows, many of them on and next to the models' thresholds)."""

import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import puretree as pt
from puretree.analysis import Diff, diff
from puretree.grow import cart, cart_regressor
from puretree.strategies import schemas, trees


def cuts(model):
    members = getattr(model, "members", None) or [t for s in getattr(model, "stages", ()) for t in s] or [model]
    return sorted({n.test.value for m in members for n in pt.iter_nodes(m) if isinstance(n, pt.Split) and n.test.kind == "threshold" and math.isfinite(n.test.value)})


def near_values(*models):
    with np.errstate(over="ignore"):
        out = near_cuts(models)
    return [v for v in out if math.isfinite(v)] or [0.0]


def near_cuts(models):
    out = []
    for c in set(cuts(models[0])) | set(cuts(models[1])):
        out += [c, float(np.nextafter(c, -np.inf)), float(np.nextafter(c, np.inf)), c - 0.5, c + 0.5,
                float(np.float32(c)), float(np.nextafter(np.float32(c), np.float32(np.inf))), (float(np.float32(c)) + float(np.nextafter(np.float32(c), np.float32(np.inf)))) / 2]
    return out


def draw_rows(data, schema, values, n=25):
    cell = st.sampled_from(values) | st.floats(-1e6, 1e6, allow_nan=False)
    return [{f.name: data.draw(cell) if f.is_numeric else data.draw(st.sampled_from(f.categories)) for f in schema.features} for _ in range(n)]


def assert_exact(a, b, d, rows, tolerance=0.0):
    assert isinstance(d, Diff) and d.complete
    ya, yb = pt.predict(a, rows, unseen="ignore"), pt.predict(b, rows, unseen="ignore")
    for row, va, vb in zip(rows, ya.tolist(), yb.tolist()):
        inside = [box for box in d.boxes if box.contains(d.schema, row)]
        assert len(inside) <= 1, "the boxes are disjoint"
        differ = abs(va - vb) > tolerance if d.schema.is_regression else va != vb
        assert differ == bool(inside), (row, va, vb, [box.text(d.schema) for box in inside])
        if inside:
            assert (inside[0].a, inside[0].b) == (va, vb)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_drawn_trees_differ_exactly_inside_the_boxes(data):
    schema = data.draw(schemas(max_features=3))
    kinds = ("threshold", "subset", "multiway")
    a = data.draw(trees(schema=schema, max_depth=4, splits=kinds))
    b = data.draw(trees(schema=schema, max_depth=4, splits=kinds))
    d = diff(a, b)
    assert_exact(a, b, d, draw_rows(data, schema, near_values(a, b)))
    assert diff(a, a).boxes == ()


@st.composite
def tables(draw, n_features=2):
    n = draw(st.integers(6, 30))
    X = np.array(draw(st.lists(st.lists(st.integers(-4, 4).map(float), min_size=n_features, max_size=n_features), min_size=n, max_size=n)))
    return X, draw(st.integers(0, 10**6))


def grown(kind, X, seed, regression):
    rng = np.random.default_rng(seed)
    if regression:
        y = X[:, 0] * rng.choice([1.0, -1.0]) + rng.integers(-2, 3, len(X)) * 0.5
    else:
        y = np.where(X[:, 0] + rng.integers(-2, 3, len(X)) > 0, "p", "n")
        if len(set(y)) < 2:
            y[0] = "p" if y[0] == "n" else "n"
    task = "regression" if regression else "classification"
    if kind == "tree":
        return (cart_regressor if regression else cart)(X, y, max_depth=3)
    if kind == "forest":
        return pt.random_forest(X, y, n_trees=3, seed=seed % 7, max_depth=3, task=task)
    if kind == "adaboost":
        return pt.adaboost(X, y, n_rounds=4, seed=seed % 5)
    return pt.gradient_boosting(X, y, n_estimators=3, max_depth=2, random_state=seed % 3, loss="squared_error" if regression else "log_loss")


@settings(max_examples=40, deadline=None)
@given(tables(), st.sampled_from(["tree", "forest", "adaboost", "boosted"]), st.sampled_from(["tree", "forest", "adaboost", "boosted"]),
       st.booleans(), st.sampled_from([0.0, 0.25]), st.data())
def test_grown_models_and_ensembles_differ_exactly_inside_the_boxes(table, kind_a, kind_b, regression, tolerance, data):
    X, seed = table
    if regression and "adaboost" in (kind_a, kind_b):
        return
    a, b = grown(kind_a, X, seed, regression), grown(kind_b, X[::-1][: max(6, len(X) - 3)], seed + 1, regression)
    d = diff(a, b, tolerance=tolerance, X=X)
    rows = draw_rows(data, a.schema, near_values(a, b)) + [dict(zip(a.schema.feature_names, x)) for x in X.tolist()]
    assert_exact(a, b, d, rows, tolerance if regression else 0.0)
    # The weight in each box is the number of the given rows in it; together: the rows answered differently.
    ya, yb = pt.predict(a, X), pt.predict(b, X)
    differ = np.abs(ya - yb) > tolerance if regression else ya != yb
    assert d.weight == float(differ.sum()) and d.total_weight == len(X)
    for box in d.boxes:
        assert box.weight == sum(box.contains(d.schema, x) for x in X.tolist())


def test_a_float32_model_is_diffed_in_the_doubles_it_is_given():
    # XGBoost reads x as float32: a double just above a cut that rounds onto it goes left.
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2)) * 3.3
    y = (X[:, 0] + 0.5 * X[:, 1] > 0.3).astype(int)
    a = pt.from_xgboost(xgb.XGBClassifier(n_estimators=4, max_depth=2, random_state=0).fit(X, y))
    b = pt.from_xgboost(xgb.XGBClassifier(n_estimators=6, max_depth=3, learning_rate=0.5, random_state=1).fit(X, y))
    d = diff(a, b)
    values = near_values(a, b)
    rows = [{"f0": u, "f1": v} for u in values[::3] for v in values[1::5]]
    assert_exact(a, b, d, rows)


def test_max_boxes_stops_the_search_with_the_boxes_found():
    X = np.arange(40.0).reshape(-1, 1)
    a = cart_regressor(X, X[:, 0])
    b = cart_regressor(X, -X[:, 0])
    everything = diff(a, b)
    assert everything.complete and len(everything.boxes) > 3
    first = diff(a, b, max_boxes=3)
    assert not first.complete and len(first.boxes) == 3
    assert set(first.boxes) <= set(everything.boxes)
    assert "stopped at 3" in first.summary()
    exactly = diff(a, b, max_boxes=len(everything.boxes))
    assert exactly.complete and exactly.boxes == everything.boxes


def test_sample_weight_is_summed_per_box():
    X = np.arange(8.0).reshape(-1, 1)
    a = cart_regressor(X, (X[:, 0] > 3.5).astype(float))
    b = cart_regressor(X, (X[:, 0] > 4.5).astype(float))
    d = diff(a, b, X=X, sample_weight=np.arange(8.0))
    assert [box.weight for box in d.boxes] == [4.0] and d.weight == 4.0 and d.total_weight == 28.0


@pytest.mark.parametrize("kwargs, message", [
    ({"tolerance": -1.0}, "tolerance must be a finite number >= 0, got -1.0"),
    ({"tolerance": math.nan}, "tolerance must be"),
    ({"max_boxes": 0}, "max_boxes must be an integer >= 1, got 0"),
    ({"max_boxes": 2.5}, "max_boxes must be an integer"),
    ({"sample_weight": [1.0]}, "sample_weight goes with X"),
    ({"X": np.zeros((2, 1)), "sample_weight": [1.0]}, "sample_weight has 1 values for 2 rows"),
    ({"X": np.zeros((2, 1)), "sample_weight": [1.0, -2.0]}, "sample_weight of row 1 is -2.0"),
])
def test_bad_options_are_refused_by_value(kwargs, message):
    tree = cart_regressor(np.arange(4.0).reshape(-1, 1), np.arange(4.0))
    with pytest.raises(pt.PuretreeError, match=message):
        diff(tree, tree, **kwargs)


def test_models_on_other_features_or_tasks_are_refused():
    X = np.arange(6.0).reshape(-1, 1)
    reg = cart_regressor(X, X[:, 0])
    with pytest.raises(pt.ParameterError, match="regression model, the other a classifier"):
        diff(reg, cart(X, ["a", "b"] * 3))
    with pytest.raises(pt.ParameterError, match="different features"):
        diff(reg, cart_regressor(np.hstack([X, X]), X[:, 0]))
    with pytest.raises(pt.ParameterError, match="different classes"):
        diff(cart(X, ["a", "b"] * 3), cart(X, ["a", "c"] * 3))
    with pytest.raises(pt.ParameterError, match="b is a str"):
        diff(reg, "model.json")


def test_the_command_line_prints_the_summary_and_the_boxes(tmp_path):
    X = np.arange(8.0).reshape(-1, 1)
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    pt.save(cart_regressor(X, (X[:, 0] > 3.5).astype(float)), old)
    pt.save(cart_regressor(X, (X[:, 0] > 4.5).astype(float)), new)
    data = tmp_path / "rows.csv"
    data.write_text("x0\n" + "\n".join(str(v) for v in [1.0, 4.0, 4.2, 7.0]) + "\n")
    run = subprocess.run([sys.executable, "-m", "puretree", "diff", str(old), str(new), "--data", str(data)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "1 box where the models answer regression values more than 0 apart; 2 of 4 data weight falls in them",
        "1: a=1 b=0 weight=2: 3.5 < x0 <= 4.5",
    ]
    same = subprocess.run([sys.executable, "-m", "puretree", "diff", str(old), str(old), "--tolerance", "0.5"], capture_output=True, text=True)
    assert same.returncode == 0 and same.stdout.startswith("0 boxes"), same.stderr
    bad = subprocess.run([sys.executable, "-m", "puretree", "diff", str(old), str(new), "--max-boxes", "0"], capture_output=True, text=True)
    assert bad.returncode != 0 and "max_boxes must be an integer >= 1, got 0" in bad.stderr and "Traceback" not in bad.stderr
