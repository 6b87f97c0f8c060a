"""Ensembles (puretree.ensemble): values built by pure functions, the same in parallel and
serial runs and with both growth engines, combined as scikit-learn combines them."""

from __future__ import annotations

import json
import math

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import puretree
from puretree.ensemble import Ensemble, adaboost, bagging, bootstrap_counts, canonical_order, random_forest, stump, vote_total, votes
from puretree.errors import ModelFormatError, ParameterError
from puretree.grow import cart, id3
from puretree.strategies import datasets

small = datasets(min_rows=2, max_rows=25, max_features=4, max_classes=3)
with_missing = datasets(min_rows=2, max_rows=25, max_features=4, max_classes=3, missing=True)


def _wine():
    from sklearn.datasets import load_wine

    return load_wine(return_X_y=True)


# -- feature subsampling: a splitter option of grow, the same in both engines ----------------


@settings(max_examples=40)
@given(ds=with_missing, k=st.integers(1, 4), seed=st.integers(0, 2**32), member=st.integers(0, 50), preset=st.sampled_from([cart, id3]))
def test_both_engines_draw_the_same_features_at_every_node(ds, k, seed, member, preset):
    k = min(k, ds.schema.n_features)
    ref = preset(ds, max_features=k, seed=(seed, member), engine="reference")
    fast = preset(ds, max_features=k, seed=(seed, member), engine="fast")
    assert ref == fast


def test_both_engines_agree_on_a_regression_forest_member():
    X, _ = _wine()
    y = X[:, 0]
    for seed in range(3):
        ref = cart(X[:, 1:], y, task="regression", max_features=4, seed=(seed, 1), engine="reference")
        assert ref == cart(X[:, 1:], y, task="regression", max_features=4, seed=(seed, 1), engine="fast")


def test_feature_subsampling_changes_the_tree_with_the_seed_and_only_then():
    X, y = _wine()
    a = cart(X, y, max_features="sqrt", seed=1)
    assert a == cart(X, y, max_features="sqrt", seed=1)
    assert any(a != cart(X, y, max_features="sqrt", seed=s) for s in range(2, 6))
    # every split's feature is one the node drew
    from puretree.splits import node_features

    def check(node, path):
        if isinstance(node, puretree.Leaf):
            return
        assert node.feature in node_features(X.shape[1], 3, (1,), path).tolist()
        for b, child in enumerate(node.children):
            check(child, (*path, b))

    check(a.root, ())


@pytest.mark.parametrize("bad", ["cube", 0, -1, 1.5, 0.0, True, 99])
def test_bad_max_features_is_refused_with_its_value(bad):
    X, y = _wine()
    with pytest.raises(ParameterError, match="max_features"):
        cart(X, y, max_features=bad)


@pytest.mark.parametrize("bad", ["x", -1, (1, -2), (), 1.5, True])
def test_bad_seed_of_grow_is_refused_with_its_value(bad):
    with pytest.raises(ParameterError, match="seed"):
        cart([[0.0], [1.0]], [0, 1], max_features=1, seed=bad)


# -- values: pure functions of their inputs and seed ---------------------------------------


@settings(max_examples=25)
@given(ds=small, seed=st.integers(0, 2**32), n=st.integers(1, 4))
def test_the_same_call_gives_an_equal_value(ds, seed, n):
    assert random_forest(ds, n_trees=n, seed=seed, n_jobs=1) == random_forest(ds, n_trees=n, seed=seed, n_jobs=1)
    assert bagging(ds, n_trees=n, seed=seed, n_jobs=1) == bagging(ds, n_trees=n, seed=seed, n_jobs=1)
    assert adaboost(ds, n_rounds=n, seed=seed) == adaboost(ds, n_rounds=n, seed=seed) if len(ds.schema.classes) > 1 else True


@settings(max_examples=8)
@given(ds=small, seed=st.integers(0, 2**32))
def test_parallel_and_serial_runs_grow_the_same_members(ds, seed):
    serial = random_forest(ds, n_trees=5, seed=seed, n_jobs=1)
    parallel = random_forest(ds, n_trees=5, seed=seed, n_jobs=2)
    assert serial == parallel
    assert serial.oob_score == parallel.oob_score or (serial.oob_score is None and parallel.oob_score is None)


def test_parallel_run_on_real_data_equals_the_serial_one():
    X, y = _wine()
    assert random_forest(X, y, n_trees=8, seed=4, n_jobs=2) == random_forest(X, y, n_trees=8, seed=4, n_jobs=1)


@settings(max_examples=30)
@given(ds=small)
def test_an_ensemble_of_one_tree_without_resampling_predicts_as_the_tree(ds):
    tree = cart(ds)
    one = bagging(ds, n_trees=1, bootstrap=False)
    assert one.members == (tree,)
    assert np.array_equal(puretree.predict_proba(one, ds), puretree.predict_proba(tree, ds))
    assert puretree.predict(one, ds).tolist() == puretree.predict(tree, ds).tolist()


@settings(max_examples=30)
@given(ds=small, seed=st.integers(0, 1000))
def test_member_order_does_not_change_predictions(ds, seed):
    ens = bagging(ds, n_trees=4, seed=seed, n_jobs=1)
    turned = attrs.evolve(ens, members=ens.members[::-1], weights=ens.weights[::-1])
    p, q = puretree.predict_proba(ens, ds), puretree.predict_proba(turned, ds)
    np.testing.assert_allclose(p, q, rtol=0, atol=1e-12)
    top2 = np.sort(p, axis=1)[:, -2:] if p.shape[1] > 1 else np.zeros((len(p), 2))
    clear = (top2[:, 1] - top2[:, 0]) > 1e-9  # rows not tied (within rounding) between two classes
    assert puretree.predict(ens, ds)[clear].tolist() == puretree.predict(turned, ds)[clear].tolist()


@settings(max_examples=30)
@given(ds=small, n=st.integers(1, 4))
def test_a_forest_of_all_features_without_bootstrap_is_n_copies_of_one_tree(ds, n):
    forest = random_forest(ds, n_trees=n, max_features=None, bootstrap=False, n_jobs=1)
    assert forest.members == (cart(ds),) * n
    assert forest.oob_score is None


@settings(max_examples=30)
@given(ds=small, seed=st.integers(0, 1000), method=st.sampled_from(["forest", "bagging", "adaboost"]))
def test_json_round_trip_gives_an_equal_value(ds, seed, method):
    if method == "adaboost" and len(ds.schema.classes) < 2:
        return
    ens = {"forest": lambda: random_forest(ds, n_trees=3, seed=seed, n_jobs=1), "bagging": lambda: bagging(ds, n_trees=2, seed=seed, n_jobs=1), "adaboost": lambda: adaboost(ds, n_rounds=3, seed=seed)}[method]()
    back = puretree.from_json(puretree.to_json(ens))
    assert back == ens
    assert back.oob_score == ens.oob_score
    assert back.options == ens.options and back.method == ens.method and back.seed == ens.seed


def test_save_and_load_an_ensemble(tmp_path):
    X, y = _wine()
    forest = random_forest(X, y, n_trees=3, seed=2)
    puretree.save(forest, tmp_path / "f.json")
    assert puretree.load(tmp_path / "f.json") == forest


@pytest.mark.parametrize(
    "field, value, message",
    [("weights", [1.0], "weights"), ("weights", [1.0, -1.0, 1.0], r"weights\[1\]"), ("method", "boosting", "method"), ("seed", -3, "seed"), ("oob_score", "high", "oob_score"), ("members", [], "members")],
)
def test_a_tampered_ensemble_file_is_refused_naming_the_field(field, value, message):
    X, y = _wine()
    obj = json.loads(puretree.to_json(random_forest(X, y, n_trees=3, seed=2)))
    obj[field] = value
    with pytest.raises(ModelFormatError, match=message):
        puretree.from_json(json.dumps(obj))


def test_a_bad_member_is_named_by_its_position():
    X, y = _wine()
    obj = json.loads(puretree.to_json(random_forest(X, y, n_trees=3, seed=2)))
    obj["members"][2]["nodes"][0]["feature"] = 99
    with pytest.raises(ModelFormatError, match=r"members\[2\]"):
        puretree.from_json(json.dumps(obj))


# -- what the ensembles compute -------------------------------------------------------------


def test_adaboost_weights_on_a_hand_case():
    # Round 1: uniform weights 1/5; the stump x <= 1.5 errs on the last row only: e = 0.2,
    # alpha = log(0.8 / 0.2) = log 4; that row's weight becomes 0.8 (others 0.2), normalised to
    # 0.5 (others 0.125). Round 2: the best stump (x <= 3.5) predicts "a" on both sides (the left
    # holds a and b at 0.25 each: the first class), erring on the two b rows: e = 0.25,
    # alpha = log(0.75 / 0.25) = log 3.
    boost = adaboost([[0.0], [1.0], [2.0], [3.0], [4.0]], ["a", "a", "b", "b", "a"], n_rounds=2)
    assert boost.weights == pytest.approx((math.log(4.0), math.log(3.0)), rel=1e-12)
    assert [m.root.test.value for m in boost.members] == [1.5, 3.5]
    # votes: row 2 gets +log4 for b from the first stump and +log3 for a from the second
    v = votes(boost, [[2.0]])
    total = math.log(4.0) + math.log(3.0)
    assert v[0].tolist() == pytest.approx([(math.log(3.0) - math.log(4.0)) / total, (math.log(4.0) - math.log(3.0)) / total], rel=1e-12)
    assert puretree.predict(boost, [[2.0]]).tolist() == ["b"]


def test_adaboost_is_scikit_learns_samme_exactly():
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    X, y = _wine()
    ours = adaboost(X, y, n_rounds=12)
    theirs = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=12, random_state=0).fit(X, y)
    assert np.array_equal(np.array(ours.weights), theirs.estimator_weights_[: len(ours.weights)])
    assert np.array_equal(puretree.predict_proba(ours, X), theirs.predict_proba(X))
    assert np.array_equal(puretree.predict(ours, X), theirs.predict(X))
    assert np.array_equal(np.array(list(puretree.feature_importances(ours).values())), theirs.feature_importances_)


def test_adaboost_with_sample_weights_is_scikit_learns():
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    X, y = _wine()
    w = 1.0 + (np.arange(len(y)) % 4)  # the starting weights, as scikit-learn's fit(sample_weight=)
    ours = adaboost(X, y, n_rounds=10, sample_weight=w)
    theirs = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=10, random_state=0).fit(X, y, sample_weight=w)
    assert np.allclose(np.array(ours.weights), theirs.estimator_weights_[: len(ours.weights)], rtol=1e-12)
    assert np.array_equal(puretree.predict(ours, X), theirs.predict(X))


def test_adaboost_two_classes_as_scikit_learn():
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_breast_cancer(return_X_y=True)
    ours = adaboost(X, y, n_rounds=8)
    theirs = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=8, random_state=0).fit(X, y)
    assert np.array_equal(puretree.predict_proba(ours, X), theirs.predict_proba(X))
    assert np.array_equal(puretree.predict(ours, X), theirs.predict(X))


def test_adaboost_refuses_regression_and_a_useless_first_member():
    with pytest.raises(ParameterError, match="regression"):
        adaboost([[0.0], [1.0]], [0.5, 1.5], task="regression")
    with pytest.raises(ParameterError, match="no better than chance"):
        adaboost([[0.0], [0.0]], ["a", "b"])


def test_bagging_averages_member_probabilities_in_member_order():
    X, y = _wine()
    bag = bagging(X, y, n_trees=5, seed=3)
    acc = np.zeros((len(X), 3))
    for m in bag.members:
        acc += 1.0 * puretree.predict_proba(m, X)
    acc /= vote_total(bag)
    assert np.array_equal(puretree.predict_proba(bag, X), acc)
    assert puretree.predict(bag, X).tolist() == np.argmax(acc, axis=1).tolist()


def test_regression_forest_averages_member_predictions():
    X, _ = _wine()
    y = X[:, 0]
    forest = random_forest(X[:, 1:], y, n_trees=4, max_features=None, seed=1, task="regression")
    mean = sum(puretree.predict(m, X[:, 1:]) for m in forest.members) / 4
    np.testing.assert_array_equal(puretree.predict(forest, X[:, 1:]), mean)
    assert -1.0 < forest.oob_score <= 1.0
    with pytest.raises(ParameterError, match="classification"):
        puretree.predict_proba(forest, X[:, 1:])


def _drawn(ds, seed, member, weights=None):
    """Member ``member``'s bootstrap counts per row: the draw is made in the rows' canonical order."""
    order = canonical_order(ds)
    counts = np.zeros(ds.n_rows)
    counts[order] = bootstrap_counts(ds.n_rows, seed, member, weights=None if weights is None else weights[order])
    return counts


def test_out_of_bag_accuracy_is_the_left_out_members_vote():
    X, y = _wine()
    forest = random_forest(X, y, n_trees=6, seed=5)
    total, seen = np.zeros((len(X), 3)), np.zeros(len(X), dtype=bool)
    for m, tree in enumerate(forest.members):
        out = _drawn(puretree.as_dataset(X, y), 5, m) == 0
        total[out] += puretree.predict_proba(tree, X[out])
        seen |= out
    assert forest.oob_score == np.mean(np.argmax(total[seen], axis=1) == y[seen])


@settings(max_examples=25)
@given(ds=small, seed=st.integers(0, 2**16), weights=st.data())
def test_each_member_is_grown_on_its_draw_in_proportion_to_the_sample_weights(ds, seed, weights):
    w = np.array(weights.draw(st.lists(st.integers(1, 3), min_size=ds.n_rows, max_size=ds.n_rows)), dtype=np.float64)
    given_w = w.copy()
    ens = bagging(ds.X, ds.y, base=cart, n_trees=3, seed=seed, sample_weight=w)
    assert np.array_equal(w, given_w)  # not mutated
    classes = np.unique(ds.y)  # ds.y holds class codes: the members' classes
    codes = np.searchsorted(classes, ds.y)
    for m, tree in enumerate(ens.members):
        per_row = _drawn(puretree.as_dataset(ds.X, ds.y), seed, m, w)
        # the member is grown on its counts, drawn in proportion to the weights: its root holds their class totals
        expected = np.bincount(codes, weights=per_row, minlength=len(classes))
        assert np.array_equal(np.asarray(tree.root.stats, dtype=np.float64), expected)


def test_feature_importances_are_normalised_as_scikit_learn():
    X, y = _wine()
    forest = random_forest(X, y, n_trees=5, seed=1)
    per = [np.array(list(puretree.feature_importances(m).values())) for m in forest.members]
    mean = np.mean(per, axis=0)
    got = np.array(list(puretree.feature_importances(forest).values()))
    assert np.array_equal(got, mean / mean.sum())
    assert got.sum() == pytest.approx(1.0)


def test_a_single_row_answers_with_a_label():
    X, y = _wine()
    forest = random_forest(X, y, n_trees=3, seed=0, feature_names=[f"f{i}" for i in range(X.shape[1])])
    row = {f"f{i}": float(v) for i, v in enumerate(X[0])}
    assert puretree.predict(forest, row) == puretree.predict(forest, X[:1])[0]
    assert puretree.predict_proba(forest, row).shape == (3,)


@pytest.mark.parametrize("call", [lambda X, y: bagging(X, y, n_trees=0), lambda X, y: random_forest(X, y, seed=-1), lambda X, y: adaboost(X, y, n_rounds=1.5), lambda X, y: bagging(X, y, bootstrap="yes"), lambda X, y: bagging(X, y, max_dept=2)])
def test_bad_options_are_refused(call):
    X, y = _wine()
    with pytest.raises(ParameterError):
        call(X, y)


def test_the_input_is_not_mutated():
    X, y = _wine()
    X0, y0 = X.copy(), y.copy()
    w = np.ones(len(y))
    bagging(X, y, n_trees=2, sample_weight=w)
    adaboost(X, y, n_rounds=3)
    assert np.array_equal(X, X0) and np.array_equal(y, y0) and np.array_equal(w, np.ones(len(y)))


def test_an_ensemble_needs_members_on_its_schema():
    X, y = _wine()
    tree = cart(X, y)
    other = cart(X[:, :3], y)
    with pytest.raises(ParameterError):
        Ensemble((), (), tree.schema, "bagging")
    with pytest.raises(ParameterError, match="schema"):
        Ensemble((tree, other), (1.0, 1.0), tree.schema, "bagging")
    assert stump(X, y).root.children[0].__class__ is puretree.Leaf


# -- the command line -----------------------------------------------------------------------


@pytest.mark.parametrize("method", ["bagging", "forest", "adaboost"])
def test_cli_fits_shows_predicts_and_evaluates_an_ensemble(method, tmp_path, capsys):
    from puretree import datasets
    from puretree.cli import main

    data = str(datasets.path("playtennis"))
    model = tmp_path / "m.json"
    assert main(["fit", data, "--target", "play", "--ignore", "day", "--ensemble", method, "--n-trees", "4", "--seed", "2", "-o", str(model)]) == 0
    ens = puretree.load(model)
    assert isinstance(ens, Ensemble) and ens.method == method and ens.seed == 2
    assert len(ens.members) == 4 or method == "adaboost"
    capsys.readouterr()
    assert main(["show", str(model), "--trees", "1"]) == 0
    shown = capsys.readouterr().out
    assert "tree 0 (weight" in shown and "tree 1 (weight" not in shown
    assert main(["predict", str(model), data, "--proba"]) == 0
    rows = capsys.readouterr().out.strip().splitlines()
    ds = datasets.load_playtennis()
    expected = puretree.predict(ens, ds).tolist()
    assert [r.split(",")[0] for r in rows[1:]] == expected
    assert main(["evaluate", str(model), data]) == 0
    assert f"accuracy: {np.mean(np.array(expected) == ds.labels()):.4f}" in capsys.readouterr().out


def test_cli_refuses_a_bad_max_features_on_one_line(tmp_path, capsys):
    from puretree import datasets
    from puretree.cli import main

    data = str(datasets.path("playtennis"))
    assert main(["fit", data, "--target", "play", "--ensemble", "forest", "--max-features", "cube", "-o", str(tmp_path / "m.json")]) == 2
    assert main(["fit", data, "--target", "play", "--ensemble", "forest", "--max-features", "9", "-o", str(tmp_path / "m.json")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "max_features=9" in err[1] and "Traceback" not in "".join(err)


def _boosting_csv(tmp_path, loader, n_rows):
    frame = loader(as_frame=True).frame.iloc[:n_rows]
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)  # (floats written as repr: read back exactly)
    return str(path)


def test_cli_fits_gradient_boosting_as_pt_gradient_boosting(tmp_path, capsys):
    from sklearn.datasets import load_breast_cancer, load_diabetes

    from puretree.boosted import Boosted
    from puretree.cli import main
    from puretree.io.formats import read_data

    data = _boosting_csv(tmp_path, load_breast_cancer, 200)
    model = tmp_path / "gb.json"
    args = ["--n-estimators", "4", "--learning-rate", "0.3", "--max-depth", "2", "--subsample", "0.8", "--seed", "3"]
    assert main(["fit", data, "--target", "target", "--ensemble", "gradient-boosting", *args, "-o", str(model)]) == 0
    assert "gradient boosting from 200 rows" in capsys.readouterr().out
    fitted = puretree.load(model)
    ds = read_data(data, target="target")
    assert isinstance(fitted, Boosted) and fitted == puretree.gradient_boosting(ds, n_estimators=4, learning_rate=0.3, max_depth=2, subsample=0.8, random_state=3)
    assert main(["predict", str(model), data]) == 0
    rows = capsys.readouterr().out.strip().splitlines()[1:]
    assert [r.split(",")[0] for r in rows] == [str(v) for v in fitted.predict(ds).tolist()]
    # Regression, scikit-learn's loss options and its tie break.
    data = _boosting_csv(tmp_path, load_diabetes, 150)
    args = ["--task", "regression", "--loss", "huber", "--alpha", "0.8", "--n-trees", "3", "--sklearn-tie-break", "--min-samples-leaf", "3"]
    assert main(["fit", data, "--target", "target", "--ensemble", "gradient-boosting", *args, "-o", str(model)]) == 0
    ds = read_data(data, target="target", task="regression")
    expected = puretree.gradient_boosting(ds, loss="huber", alpha=0.8, n_estimators=3, sklearn_tie_break=True, random_state=0, min_samples_leaf=3)
    assert puretree.load(model) == expected and expected.loss == "huber" and expected.option("sklearn_tie_break") is True


def test_cli_gradient_boosting_reports_each_stage_with_progress(tmp_path, capsys):
    from sklearn.datasets import load_breast_cancer

    from puretree.cli import main

    data = _boosting_csv(tmp_path, load_breast_cancer, 120)
    out = str(tmp_path / "gb.json")
    assert main(["fit", data, "--target", "target", "--ensemble", "gradient-boosting", "--n-estimators", "7", "--progress", "-o", out]) == 0
    err = capsys.readouterr().err
    assert "7/7" in err and "stages" in err
    assert main(["fit", data, "--target", "target", "--ensemble", "gradient-boosting", "--n-estimators", "7", "--no-progress", "-o", out]) == 0
    assert "stages" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--ensemble", "forest", "--learning-rate", "0.5"], "--learning-rate: for --ensemble gradient-boosting only"),
        (["--ensemble", "gradient-boosting", "--algorithm", "cart"], "not --algorithm"),
        (["--ensemble", "gradient-boosting", "--loss", "huber"], "regression loss"),
        (["--ensemble", "gradient-boosting", "--n-trees", "3", "--n-estimators", "4"], "differ"),
    ],
)
def test_cli_gradient_boosting_refuses_bad_options_in_one_line(extra, message, tmp_path, capsys):
    from sklearn.datasets import load_breast_cancer

    from puretree.cli import main

    data = _boosting_csv(tmp_path, load_breast_cancer, 60)
    assert main(["fit", data, "--target", "target", *extra, "-o", str(tmp_path / "m.json")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and not (tmp_path / "m.json").exists()


def test_cli_gradient_boosting_names_a_categorical_feature(tmp_path, capsys):
    from puretree import datasets
    from puretree.cli import main

    data = str(datasets.path("playtennis"))
    assert main(["fit", data, "--target", "play", "--ignore", "day", "--ensemble", "gradient-boosting", "-o", str(tmp_path / "m.json")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "categorical" in err[0] and "outlook" in err[0]


# -- generated code -------------------------------------------------------------------------


def _ensemble_of(method, ds, seed):
    if method == "forest":
        return random_forest(ds, n_trees=3, seed=seed, n_jobs=1)
    if method == "bagging":
        return bagging(ds, base=id3, n_trees=2, seed=seed, n_jobs=1)
    return adaboost(ds, n_rounds=3, seed=seed)


@settings(max_examples=15)
@given(ds=with_missing, seed=st.integers(0, 100), method=st.sampled_from(["forest", "bagging", "adaboost"]))
def test_generated_python_decides_exactly_as_the_ensemble(ds, seed, method):
    from puretree.codegen import verify

    if method == "adaboost" and len(ds.schema.classes) < 2:
        return
    try:
        ens = _ensemble_of(method, ds, seed)
    except ParameterError:  # AdaBoost's first stump no better than chance
        return
    report = verify(ens, ds, "python")
    assert report.mismatches == [] and report.n_checked >= 1  # the distinct rows of ds, and more


@pytest.mark.parametrize("target", ["c", "c-table"])
@pytest.mark.parametrize("method", ["forest", "bagging", "adaboost"])
def test_generated_c_decides_exactly_as_the_ensemble(target, method):
    from puretree import datasets
    from puretree.codegen import verify

    ds = datasets.load_playtennis()
    ens = _ensemble_of(method, ds, 1)
    report = verify(ens, ds, target, name="tennis")
    assert report.mismatches == [] and report.n_checked > ds.n_rows


def test_generated_c_of_a_regression_forest_and_float_features():
    from puretree.codegen import verify

    X, _ = _wine()
    forest = random_forest(X[:, 1:], X[:, 0], n_trees=3, max_features=5, seed=2, task="regression")
    assert verify(forest, X[:, 1:], "c", feature_type="float").mismatches == []
    assert verify(forest, X[:, 1:], "python").mismatches == []


@pytest.mark.parametrize("method", ["forest", "adaboost", "regression"])
@pytest.mark.parametrize("target", ["python", "c", "c-table", "javascript"])
def test_verify_expects_the_code_to_refuse_what_a_member_refuses(method, target):
    # Members grown with missing="error" refuse a row whose path meets a missing value; verify's
    # own check rows hold such rows (one per split with its value missing), and its answer for
    # them is the code's refusal (a ValueError in Python, class -1 or NaN in C), not an error.
    from puretree.codegen import verify
    from puretree.codegen.ensemble import _expected

    X, _ = _wine()
    if method == "regression":
        ens = random_forest(X[:, 1:], X[:, 0], n_trees=3, max_depth=3, seed=2, task="regression", missing="error")
    elif method == "forest":
        ens = random_forest(X, (X[:, 0] > 13).astype(int), n_trees=3, max_depth=3, seed=2, missing="error")
    else:
        ens = adaboost(X, (X[:, 0] > 13).astype(int), n_rounds=3, missing="error")
    rows = X[:, 1:] if method == "regression" else X
    holed = rows[:20].copy()
    holed[:, ens.members[0].root.feature] = np.nan  # the first member's root cannot decide these
    assert all(a is None for a in _expected(ens, holed))
    report = verify(ens, np.vstack([rows[:20], holed]), target)
    assert report.ok and report.n_mismatches == 0 and report.n_checked > 40, report.mismatches[:2]


def test_export_writes_every_member_and_the_combiner(tmp_path):
    from puretree.codegen import export

    X, y = _wine()
    forest = random_forest(X, y, n_trees=3, seed=2)
    paths = export(forest, "c", out_dir=tmp_path / "out", name="wine")
    assert sorted(p.name for p in paths) == ["wine.c", "wine.h", "wine_m0.c", "wine_m0.h", "wine_m1.c", "wine_m1.h", "wine_m2.c", "wine_m2.h"]
    assert '#include "wine_m2.c"' in (tmp_path / "out" / "wine.c").read_text()


def test_verify_code_refuses_an_ensemble_clearly(tmp_path):
    from puretree.codegen import verify_code
    from puretree.errors import CodegenError

    X, y = _wine()
    with pytest.raises(CodegenError, match="ensemble"):
        verify_code(random_forest(X, y, n_trees=2), X, tmp_path)


def test_a_forest_s_nodes_go_to_the_oldest_generation_without_a_young_collection():
    # the members' nodes are long-lived: the first young collection after the fit would walk
    # every one of them (as long as the compiled growth of a small forest) for nothing
    import gc

    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    gc.collect()
    ens = puretree.extra_trees(X, y, n_trees=5, seed=0, n_jobs=1)
    roots = {id(m.root) for m in ens.members}
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert roots <= {id(o) for o in gc.get_objects(generation=2)}


def test_a_program_s_frozen_objects_stay_frozen_through_a_fit():
    import gc

    kept = [[] for _ in range(10)]
    gc.freeze()
    try:
        # Frozen objects are in no generation; a fit that unfroze them (gc.unfreeze) would put the
        # program's lists back into the oldest one. (The freeze count alone is not the measure: a
        # frozen object that dies during the fit, a cache entry replaced, leaves it too.)
        assert not {id(k) for k in kept} & {id(o) for o in gc.get_objects()}
        puretree.extra_trees(np.arange(40.0).reshape(-1, 2), np.arange(20) % 2, n_trees=3, seed=0, n_jobs=1)
        assert gc.isenabled() and gc.get_freeze_count() > 0
        assert not {id(k) for k in kept} & {id(o) for o in gc.get_objects()}
    finally:
        gc.unfreeze()
    assert kept
