"""The ensemble estimators (RandomForest*, ExtraTrees*, Bagging*, AdaBoostClassifier in
puretree.estimators) pass scikit-learn's own estimator checks with no expected failure, and
answer as the puretree ensembles they wrap."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_diabetes, load_iris
from sklearn.model_selection import GridSearchCV
from sklearn.utils.estimator_checks import estimator_checks_generator

import puretree as pt
from puretree.estimators import (
    AdaBoostClassifier,
    BaggingClassifier,
    BaggingRegressor,
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)

ESTIMATORS = [RandomForestClassifier(), RandomForestRegressor(), ExtraTreesClassifier(), ExtraTreesRegressor(), BaggingClassifier(), BaggingRegressor(), AdaBoostClassifier()]


def scikit_learn_checks():
    for estimator in ESTIMATORS:
        for item in estimator_checks_generator(estimator, mark="xfail", xfail_strict=True):
            est, check = getattr(item, "values", item)
            name = check.func.__name__
            if name != "check_array_api_input":  # runs only with SCIPY_ARRAY_API set; no array-API support is declared
                yield pytest.param(est, check, id=f"{type(est).__name__}-{name}")


@pytest.mark.parametrize("estimator, check", list(scikit_learn_checks()))
def test_scikit_learn_checks(estimator, check):
    check(estimator)


def test_extra_trees_are_puretrees_extra_trees_with_scikit_learns_parameters():
    from sklearn.ensemble import ExtraTreesClassifier as SkClassifier
    from sklearn.ensemble import ExtraTreesRegressor as SkRegressor

    X, y = load_iris(return_X_y=True)
    est = ExtraTreesClassifier(n_estimators=6, random_state=2, max_depth=3).fit(X, y)
    assert est.ensemble_ == pt.ensemble.extra_trees(X, y, n_trees=6, seed=2, max_depth=3)
    assert not hasattr(est, "oob_score_") and len(est.estimators_) == 6  # scikit-learn's: only with oob_score=True
    Xd, yd = load_diabetes(return_X_y=True)
    reg = ExtraTreesRegressor(n_estimators=4, random_state=1, max_depth=2).fit(Xd, yd)
    assert reg.ensemble_ == pt.ensemble.extra_trees(pt.from_numpy(Xd, yd, task="regression"), n_trees=4, seed=1, max_depth=2, max_features=None)
    # The parameters they share with scikit-learn's have scikit-learn's names and defaults.
    for ours, theirs in ((ExtraTreesClassifier(), SkClassifier()), (ExtraTreesRegressor(), SkRegressor())):
        mine, sk = ours.get_params(), theirs.get_params()
        shared = {"n_estimators", "max_depth", "min_samples_split", "max_features", "bootstrap", "random_state", "n_jobs"}
        assert shared <= set(mine) and all(mine[k] == sk[k] for k in shared - {"min_samples_split"}), {k: (mine[k], sk[k]) for k in shared}


def test_the_forest_is_puretrees_forest():
    X, y = load_iris(return_X_y=True)
    est = RandomForestClassifier(n_estimators=7, random_state=3, max_depth=4, oob_score=True).fit(X, y)
    ens = pt.ensemble.random_forest(X, y, n_trees=7, seed=3, max_depth=4)
    assert est.ensemble_ == ens
    np.testing.assert_array_equal(est.predict_proba(X), pt.predict_proba(ens, X))
    assert est.oob_score_ == ens.oob_score and len(est.estimators_) == 7


def test_bagging_and_boosting_are_puretrees():
    X, y = load_iris(return_X_y=True)
    assert BaggingClassifier(n_estimators=4, random_state=1).fit(X, y).ensemble_ == pt.ensemble.bagging(X, y, n_trees=4, seed=1)
    assert AdaBoostClassifier(n_estimators=6).fit(X, y).ensemble_ == pt.ensemble.adaboost(X, y, n_rounds=6)
    Xr, yr = load_diabetes(return_X_y=True)
    reg = RandomForestRegressor(n_estimators=3, random_state=0, max_depth=3).fit(Xr, yr)
    np.testing.assert_allclose(reg.predict(Xr), pt.predict(pt.ensemble.random_forest(Xr, yr, n_trees=3, seed=0, max_depth=3, max_features=None, task="regression"), Xr))
    assert BaggingRegressor(n_estimators=3).fit(Xr, yr).score(Xr, yr) > 0.5


def test_a_grid_search_takes_them():
    X, y = load_iris(return_X_y=True)
    search = GridSearchCV(RandomForestClassifier(n_estimators=5), {"max_depth": [1, 3], "max_features": ["sqrt", None]}, cv=3).fit(X, y)
    assert sorted(search.best_params_) == ["max_depth", "max_features"] and search.best_score_ > 0.8
    assert clone(AdaBoostClassifier(learning_rate=0.5)).get_params()["learning_rate"] == 0.5


# -- scikit-learn's forest parameters (issue 27) ----------------------------------------------------

from sklearn import ensemble as sk_ensemble  # noqa: E402
from sklearn.datasets import load_breast_cancer  # noqa: E402
from sklearn.utils.class_weight import compute_sample_weight  # noqa: E402

from puretree.errors import ParameterError  # noqa: E402
from puretree.estimators import TreeClassifier, TreeRegressor  # noqa: E402

#: Forests whose members are CART trees on all rows and features: scikit-learn grows the same
#: trees where its split search meets no tie (diabetes' regression trees; its random feature
#: order decides ties among breast_cancer's classification splits, so those compare to puretree's).
EVERY_ROW = dict(n_estimators=2, bootstrap=False, max_features=None, random_state=0)


@pytest.mark.parametrize("option", [dict(min_weight_fraction_leaf=0.05), dict(min_impurity_decrease=0.01), dict(max_leaf_nodes=6), dict(monotonic_cst=[-1] * 10 + [0] * 20)])
def test_the_forests_grow_their_members_with_scikit_learns_size_options(option):
    X, y = load_breast_cancer(return_X_y=True)
    est = RandomForestClassifier(n_estimators=3, random_state=4, **option).fit(X, y)
    assert est.ensemble_ == pt.ensemble.random_forest(X, y, n_trees=3, seed=4, **option)
    plain = RandomForestClassifier(n_estimators=3, random_state=4).fit(X, y).ensemble_
    assert all(a != b for a, b in zip(est.ensemble_.members, plain.members))  # it changes every member
    extra = ExtraTreesClassifier(n_estimators=3, random_state=1, **option).fit(X, y)
    assert extra.ensemble_ == pt.ensemble.extra_trees(X, y, n_trees=3, seed=1, **option)


@pytest.mark.parametrize("option", [dict(max_leaf_nodes=8), dict(min_impurity_decrease=20.0), dict(min_weight_fraction_leaf=0.05), dict(ccp_alpha=50.0, max_depth=6)])
def test_the_regression_forests_options_grow_scikit_learns_trees(option):
    X, y = load_diabetes(return_X_y=True)
    ours = RandomForestRegressor(**EVERY_ROW, **option).fit(X, y)
    theirs = sk_ensemble.RandomForestRegressor(**EVERY_ROW, **option).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12)
    plain = RandomForestRegressor(**EVERY_ROW).fit(X, y)
    assert not np.allclose(plain.predict(X), ours.predict(X))


def test_ccp_alpha_prunes_each_member_on_its_own_weights():
    X, y = load_breast_cancer(return_X_y=True)
    est = RandomForestClassifier(n_estimators=6, random_state=2, ccp_alpha=0.01, oob_score=True).fit(X, y)
    grown = pt.ensemble.random_forest(X, y, n_trees=6, seed=2)
    assert est.ensemble_.members == tuple(pt.prune.cost_complexity(m, 0.01) for m in grown.members)
    assert sum(pt.n_leaves(m) for m in est.estimators_) < sum(pt.n_leaves(m) for m in grown.members)
    # the out-of-bag score is the pruned members'
    assert est.oob_score_ == pt.ensemble.out_of_bag_score(est.ensemble_, X, y) != grown.oob_score
    assert dict(est.ensemble_.options)["ccp_alpha"] == 0.01


def test_class_weight_weighs_the_rows_as_scikit_learns_forest():
    X, y = load_breast_cancer(return_X_y=True)
    for class_weight in ("balanced", "balanced_subsample", {0: 3.0, 1: 1.0}):
        ours = RandomForestClassifier(**EVERY_ROW, max_depth=3, class_weight=class_weight).fit(X, y)
        theirs = sk_ensemble.RandomForestClassifier(**EVERY_ROW, max_depth=3, class_weight=class_weight).fit(X, y)
        np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-12)
        weights = compute_sample_weight("balanced" if isinstance(class_weight, str) else class_weight, y)
        expected = pt.ensemble.random_forest(X, y, n_trees=2, seed=0, bootstrap=False, max_features=None, max_depth=3, sample_weight=weights)
        assert ours.ensemble_ == expected
    plain = RandomForestClassifier(n_estimators=3, random_state=0, max_depth=3).fit(X, y)
    balanced = RandomForestClassifier(n_estimators=3, random_state=0, max_depth=3, class_weight="balanced").fit(X, y)
    assert balanced.ensemble_ == pt.ensemble.random_forest(X, y, n_trees=3, seed=0, max_depth=3, sample_weight=compute_sample_weight("balanced", y))
    assert balanced.ensemble_.members != plain.ensemble_.members
    with pytest.raises(ParameterError, match="balanced_subsample.*bootstrap=True"):
        RandomForestClassifier(class_weight="balanced_subsample").fit(X, y)
    with pytest.raises(ParameterError, match="class_weight must be one of"):
        RandomForestClassifier(class_weight="balance").fit(X, y)
    with pytest.raises(ParameterError, match=r"class_weight \{7: 2.0\}"):
        RandomForestClassifier(n_estimators=2, class_weight={7: 2.0}).fit(X, y)


def test_oob_score_and_warm_start_as_scikit_learn_names_them():
    X, y = load_iris(return_X_y=True)
    est = RandomForestClassifier(n_estimators=8, random_state=1, oob_score=True).fit(X, y)
    assert est.oob_score_ == pt.ensemble.random_forest(X, y, n_trees=8, seed=1).oob_score
    assert not hasattr(RandomForestClassifier(n_estimators=8, random_state=1).fit(X, y), "oob_score_")
    bag = BaggingClassifier(n_estimators=4, random_state=1, oob_score=True).fit(X, y)
    assert bag.oob_score_ == pt.ensemble.bagging(X, y, n_trees=4, seed=1).oob_score
    with pytest.raises(ParameterError, match="needs bootstrap=True"):
        ExtraTreesClassifier(oob_score=True).fit(X, y)
    with pytest.raises(ParameterError, match="oob_score must be True or False"):
        RandomForestClassifier(oob_score=lambda y, p: 0.0).fit(X, y)


def test_sample_weight_in_fit_of_extra_trees_and_adaboost():
    X, y = load_breast_cancer(return_X_y=True)
    w = np.random.default_rng(0).integers(0, 4, len(y)).astype(float)
    extra = ExtraTreesClassifier(n_estimators=3, random_state=2, max_depth=4).fit(X, y, sample_weight=w)
    assert extra.ensemble_ == pt.ensemble.extra_trees(X, y, n_trees=3, seed=2, max_depth=4, sample_weight=w)
    assert extra.ensemble_ != ExtraTreesClassifier(n_estimators=3, random_state=2, max_depth=4).fit(X, y).ensemble_
    boost = AdaBoostClassifier(n_estimators=5).fit(X, y, sample_weight=w)
    assert boost.ensemble_ == pt.ensemble.adaboost(X, y, n_rounds=5, sample_weight=w)
    with np.errstate(divide="ignore"):  # scikit-learn takes log(0) of the zero weights
        theirs = sk_ensemble.AdaBoostClassifier(n_estimators=5, random_state=0).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(boost.predict_proba(X), theirs.predict_proba(X), rtol=1e-9)


def test_sample_weight_in_fit_of_the_forests_and_bagging():
    """Without bootstrap, a one-tree forest that looks at every feature is scikit-learn's
    weighted tree; with it, the rows are drawn in proportion to their weights (scikit-learn
    1.9's meaning) and a weight of 0 leaves the row out of every member."""
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    X, y = load_breast_cancer(return_X_y=True)
    w = np.random.default_rng(0).integers(0, 4, len(y)).astype(float)
    given = w.copy()
    one = RandomForestClassifier(n_estimators=1, bootstrap=False, max_features=None).fit(X, y, sample_weight=w)
    assert one.estimators_[0] == TreeClassifier().fit(X, y, sample_weight=w).tree_  # puretree's weighted cart
    # scikit-learn's random feature order decides ties deeper down (see EVERY_ROW): compare at depth 3
    one = RandomForestClassifier(n_estimators=1, bootstrap=False, max_features=None, max_depth=3).fit(X, y, sample_weight=w)
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(one.predict_proba(X), tree.predict_proba(X), rtol=1e-12)
    assert np.array_equal(w, given)  # not mutated
    Xd, yd = load_diabetes(return_X_y=True)
    wd = np.random.default_rng(1).integers(1, 4, len(yd)).astype(float)  # (a row of weight 0 moves scikit-learn's midpoints)
    reg = RandomForestRegressor(n_estimators=1, bootstrap=False, max_depth=4).fit(Xd, yd, sample_weight=wd)
    np.testing.assert_allclose(reg.predict(Xd), DecisionTreeRegressor(max_depth=4, random_state=0).fit(Xd, yd, sample_weight=wd).predict(Xd), rtol=1e-12)
    bag = BaggingRegressor(n_estimators=1, bootstrap=False).fit(Xd, yd, sample_weight=wd)
    np.testing.assert_allclose(bag.predict(Xd), DecisionTreeRegressor(random_state=0).fit(Xd, yd, sample_weight=wd).predict(Xd), rtol=1e-12)
    for est in (RandomForestClassifier(n_estimators=4, random_state=3), BaggingClassifier(n_estimators=4, random_state=3)):
        est.fit(X, y, sample_weight=w)
        assert est.ensemble_ != clone(est).fit(X, y).ensemble_
        for member in est.estimators_:  # each member's root: the draw of sum(w) rows among those of positive weight
            assert sum(member.root.stats) == w.sum()
        zero = w == 0
        np.testing.assert_array_equal(est.fit(X[~zero], y[~zero], sample_weight=w[~zero]).predict_proba(X), clone(est).fit(X, y, sample_weight=w).predict_proba(X))


def test_integer_sample_weights_are_repeated_rows_in_any_order():
    """A row of weight k grows the members it would grow as k copies of it, wherever the rows
    are: the draw is made in the rows' own order (their values), not the order they come in."""
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(40, 3)), rng.integers(0, 3, 40)
    w = rng.integers(0, 4, 40)
    shuffled = rng.permutation(40)
    for est in (RandomForestClassifier(n_estimators=5, random_state=1), BaggingClassifier(n_estimators=5, random_state=1, max_samples=0.5)):
        weighted = clone(est).fit(X[shuffled], y[shuffled], sample_weight=w[shuffled])
        repeated = clone(est).fit(X.repeat(w, axis=0), y.repeat(w))
        assert weighted.ensemble_.members == repeated.ensemble_.members


def test_max_samples_as_scikit_learn():
    X, y = load_iris(return_X_y=True)
    for est in (RandomForestClassifier(n_estimators=3, max_samples=40), BaggingClassifier(n_estimators=3, max_samples=40), ExtraTreesClassifier(n_estimators=3, bootstrap=True, max_samples=40)):
        assert all(sum(m.root.stats) == 40 for m in est.fit(X, y).estimators_)
    forest = RandomForestClassifier(n_estimators=3, max_samples=0.5).fit(X, y)
    assert all(sum(m.root.stats) == 75 for m in forest.estimators_)
    assert forest.ensemble_.option("max_samples") == 0.5
    w = np.full(len(y), 2.0)
    assert all(sum(m.root.stats) == 150 for m in clone(forest).fit(X, y, sample_weight=w).estimators_)  # a fraction of the weights' sum
    # bagging without bootstrap: max_samples distinct rows, each with its weight
    sub = BaggingClassifier(n_estimators=3, bootstrap=False, max_samples=30, random_state=2).fit(X, y, sample_weight=w)
    assert all(sum(m.root.stats) == 60 for m in sub.estimators_)
    assert RandomForestClassifier(n_estimators=3, max_samples=40, oob_score=True).fit(X, y).oob_score_ > 0.8
    with pytest.raises(ParameterError, match="max_samples=40 needs bootstrap=True"):
        ExtraTreesClassifier(max_samples=40).fit(X, y)
    with pytest.raises(ParameterError, match="151 rows drawn without replacement"):
        BaggingClassifier(bootstrap=False, max_samples=151).fit(X, y)
    for bad in (0, -0.5, "half", True):
        with pytest.raises(ParameterError, match="max_samples must be None, an integer >= 1 or a fraction > 0"):
            RandomForestClassifier(max_samples=bad).fit(X, y)
    with pytest.warns(UserWarning, match="the sample weights sum to 1: each member draws 1 rows"):
        RandomForestClassifier(n_estimators=2).fit(X, y, sample_weight=np.full(len(y), 1 / len(y)))


def test_bagging_and_adaboost_take_a_puretree_estimator():
    X, y = load_iris(return_X_y=True)
    tree = TreeClassifier(algorithm="c45", max_depth=2, missing="majority")
    bag = BaggingClassifier(tree, n_estimators=3, random_state=1).fit(X, y)
    own = pt.ensemble.bagging(X, y, base=pt.c45, n_trees=3, seed=1, **tree._growth_options())
    assert bag.ensemble_.members == own.members
    pruned = BaggingClassifier(TreeClassifier(ccp_alpha=0.02), n_estimators=3, random_state=1).fit(X, y)
    grown = pt.ensemble.bagging(X, y, n_trees=3, seed=1, **TreeClassifier()._growth_options())
    assert pruned.ensemble_.members == tuple(pt.prune.cost_complexity(m, 0.02) for m in grown.members)
    Xd, yd = load_diabetes(return_X_y=True)
    reg = BaggingRegressor(TreeRegressor(max_leaf_nodes=5), n_estimators=2).fit(Xd, yd)
    assert all(pt.n_leaves(m) == 5 for m in reg.estimators_)
    boost = AdaBoostClassifier(TreeClassifier(max_depth=2), n_estimators=4).fit(X, y)
    assert boost.ensemble_.members == pt.ensemble.adaboost(X, y, n_rounds=4, base=pt.cart, **TreeClassifier(max_depth=2)._growth_options()).members
    from sklearn.tree import DecisionTreeClassifier

    with pytest.raises(ParameterError, match="estimator must be None or a puretree TreeClassifier"):
        BaggingClassifier(DecisionTreeClassifier()).fit(X, y)
    with pytest.raises(ParameterError, match="not both: max_depth"):
        BaggingClassifier(TreeClassifier(), max_depth=3).fit(X, y)
    with pytest.raises(ParameterError, match="pessimistic"):
        BaggingClassifier(TreeClassifier(prune="pessimistic")).fit(X, y)


def test_the_parameters_are_scikit_learns_where_they_exist():
    """Each parameter scikit-learn 1.9's ensemble has and puretree's lacks is one of those the
    documentation lists as absent (docs/sklearn.md), and the shared ones have its defaults."""
    absent = {"verbose"}
    differs = {"criterion", "min_samples_leaf"}  # None: the preset's own (scikit-learn's values are taken)
    pairs = [
        (RandomForestClassifier, sk_ensemble.RandomForestClassifier),
        (RandomForestRegressor, sk_ensemble.RandomForestRegressor),
        (ExtraTreesClassifier, sk_ensemble.ExtraTreesClassifier),
        (ExtraTreesRegressor, sk_ensemble.ExtraTreesRegressor),
        (BaggingClassifier, sk_ensemble.BaggingClassifier),
        (BaggingRegressor, sk_ensemble.BaggingRegressor),
        (AdaBoostClassifier, sk_ensemble.AdaBoostClassifier),
    ]
    for ours, theirs in pairs:
        mine, sk = ours().get_params(), theirs().get_params()
        assert set(sk) - set(mine) <= absent, (ours.__name__, set(sk) - set(mine))
        shared = (set(sk) & set(mine)) - differs
        assert all(mine[k] == sk[k] for k in shared), (ours.__name__, {k: (mine[k], sk[k]) for k in shared if mine[k] != sk[k]})


def test_warm_start_keeps_the_members_fitted_before_and_adds_new_ones():
    X, y = load_iris(return_X_y=True)
    est = RandomForestClassifier(n_estimators=3, random_state=0, warm_start=True, oob_score=True).fit(X, y)
    first = est.estimators_
    # On the same data: the fresh fit (member m depends only on random_state and m).
    est.set_params(n_estimators=5).fit(X, y)
    fresh = pt.ensemble.random_forest(X, y, n_trees=5, seed=0)
    assert est.ensemble_ == fresh and est.oob_score_ == fresh.oob_score
    # On other rows, as scikit-learn: the members fitted before stay, the new ones learn the new rows.
    rows = np.arange(0, 150, 2)
    est.set_params(n_estimators=7).fit(X[rows], y[rows])
    assert est.estimators_[:3] == first and est.estimators_[:5] == list(fresh.members)
    assert est.estimators_[5:] == list(pt.ensemble.random_forest(X[rows], y[rows], n_trees=7, seed=0).members[5:])
    with pytest.warns(UserWarning, match="does not fit new trees"):
        est.fit(X, y)
    assert len(est.estimators_) == 7
    with pytest.raises(ParameterError, match="n_estimators=2 must be at least the 7 members"):
        est.set_params(n_estimators=2).fit(X, y)
    with pytest.raises(ParameterError, match="classes differ"):
        est.set_params(n_estimators=9).fit(X[y > 0], y[y > 0])
    assert len(RandomForestClassifier(n_estimators=3, random_state=0, warm_start=False).set_params(n_estimators=2).fit(X, y).estimators_) == 2


@pytest.mark.parametrize("algorithm", ["cart", "c45"])
def test_bagging_max_features_gives_each_member_its_features(algorithm):
    """Each member splits only on the features drawn for it (max_features of them, or their
    distinct draws with bootstrap_features), and the draws differ between members."""
    X, y = load_breast_cancer(return_X_y=True)
    n = X.shape[1]
    for est, k in ((BaggingClassifier(n_estimators=6, algorithm=algorithm, max_features=2, random_state=1), 2), (BaggingClassifier(n_estimators=6, algorithm=algorithm, max_features=0.5, bootstrap_features=True, random_state=1), n // 2)):
        est.fit(X, y)
        sampling = pt.ensemble._Sampling(True, n_features=None if k == n else k, bootstrap_features=est.bootstrap_features)
        drawn = [sampling.features(n, 1, m) for m in range(6)]
        assert all(len(d) == k if not est.bootstrap_features else 1 <= len(d) <= k for d in drawn)
        assert len({tuple(d) for d in drawn}) > 1
        for member, allowed in zip(est.estimators_, drawn):
            used = {node.feature for node in pt.fold.iter_nodes(member.root) if hasattr(node, "feature")}
            assert used and used <= set(allowed.tolist()), (used, allowed)
    assert BaggingClassifier(n_estimators=2).fit(X, y).estimators_ == BaggingClassifier(n_estimators=2, max_features=n).fit(X, y).estimators_
    for bad in (0, n + 1, 1.5, "sqrt"):
        with pytest.raises(ParameterError, match="must be None, an integer from 1 to the"):
            BaggingClassifier(max_features=bad).fit(X, y)
