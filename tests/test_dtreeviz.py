"""dtreeviz draws puretree-grown trees through ``to_sklearn()`` (issue 27: "one call gives
scikit-learn's own views ... and dtreeviz"): the classifier (CART and C4.5 trees, int and string
labels) and the regressor render an SVG, its tree the one puretree grew, node for node."""

import tempfile
import xml.etree.ElementTree as ET

import numpy as np
import dtreeviz  # a test dependency, pinned in constraints/test.txt
import pytest
from sklearn.datasets import load_diabetes, load_iris
from sklearn.tree import DecisionTreeClassifier

import puretree as pt
from puretree.estimators import TreeClassifier, TreeRegressor

NAMES = np.array(["setosa", "versicolor", "virginica"])
FEATURES = ["sepal length", "sepal width", "petal length", "petal width"]


@pytest.fixture(autouse=True)
def _own_temp_folder(tmp_path, monkeypatch):
    # dtreeviz's svg() writes DTreeViz_<pid> and DTreeViz_<pid>.svg into tempfile.gettempdir()
    # and leaves them there: each test's pictures go to its own folder instead of the machine's /tmp.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def rendered(model, **view):
    svg = model.view(**view).svg()
    ET.fromstring(svg)  # well-formed XML, an SVG document
    assert svg.lstrip().startswith("<svg") or "<svg" in svg[:400]
    return svg


def shadow_size(model):
    return model.shadow_tree.nnodes()


@pytest.mark.parametrize("algorithm", ["cart", "c45"])
def test_dtreeviz_draws_a_tree_grown_on_int_labels(algorithm, tmp_path):
    X, y = load_iris(return_X_y=True)
    # C4.5's own missing-value strategy ("distribute") is one scikit-learn cannot represent; J48's
    # tree with "majority" it can.
    options = {"missing": "majority"} if algorithm == "c45" else {}
    clf = TreeClassifier(algorithm=algorithm, max_depth=3, **options).fit(X, y)
    model = dtreeviz.model(clf.to_sklearn(), X, y, feature_names=FEATURES, target_name="species", class_names=list(NAMES))
    assert shadow_size(model) == pt.n_nodes(clf.tree_)
    plain = rendered(model)
    path = rendered(model, x=X[60])  # one row's path highlighted: another picture
    assert plain != path
    np.testing.assert_array_equal(model.shadow_tree.predict(X[60]), clf.predict(X[60:61])[0])
    assert any(p.name.startswith("DTreeViz_") for p in tmp_path.iterdir())  # drawn in the test's own folder


def test_dtreeviz_draws_a_tree_grown_on_string_labels():
    X, y = load_iris(return_X_y=True)
    labels = NAMES[y]
    clf = TreeClassifier(max_depth=3).fit(X, labels)
    sk = clf.to_sklearn()
    assert sk.classes_.tolist() == NAMES.tolist()  # the labels survive the conversion
    # dtreeviz 2.3.2 draws classifiers whose classes_ are 0..k-1 only: scikit-learn's own tree
    # grown on the same strings is refused the same way ...
    own = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, labels)
    for tree in (own, sk):
        with pytest.raises(TypeError):  # numpy's UFuncTypeError: max() of strings
            dtreeviz.model(tree, X, labels).view()
    # ... and both draw as dtreeviz's documentation asks: class codes, the names given apart.
    codes = np.searchsorted(clf.classes_, labels)
    sk.classes_ = np.arange(len(clf.classes_))
    model = dtreeviz.model(sk, X, codes, feature_names=FEATURES, target_name="species", class_names=list(clf.classes_))
    assert shadow_size(model) == pt.n_nodes(clf.tree_)
    rendered(model)
    assert clf.classes_[int(model.shadow_tree.predict(X[120]))] == clf.predict(X[120:121])[0]


def test_dtreeviz_draws_a_regression_tree():
    X, y = load_diabetes(return_X_y=True)
    reg = TreeRegressor(max_depth=2).fit(X, y)
    model = dtreeviz.model(reg.to_sklearn(), X, y, feature_names=[f"x{i}" for i in range(X.shape[1])], target_name="progression")
    assert shadow_size(model) == pt.n_nodes(reg.tree_)
    rendered(model)
    assert model.shadow_tree.predict(X[5]) == pytest.approx(reg.predict(X[5:6])[0])
