"""Unseen categories are said (issue 26): predict(..., unseen="warn" | "error" | "ignore"),
the count on standard error from the command line."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import puretree as pt
from puretree.datasets import load_playtennis
from puretree.datasets import path as dataset_path
from puretree.predict import UnseenCategoryWarning

TREE = pt.id3(load_playtennis())
SEEN = {"outlook": "sunny", "temperature": "hot", "humidity": "high", "wind": "weak"}
FOGGY = dict(SEEN, outlook="foggy")


@pytest.mark.parametrize("shape", ["mapping", "mappings", "frame", "object array"])
@pytest.mark.parametrize("call", [pt.predict, pt.predict_proba, pt.apply])
def test_unseen_categories_warn_by_default_and_are_answered_as_before(shape, call):
    rows = [SEEN, FOGGY, FOGGY]
    X = {"mapping": FOGGY, "mappings": rows, "frame": pd.DataFrame(rows), "object array": np.array([[r[n] for n in TREE.schema.feature_names] for r in rows], dtype=object)}[shape]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        answer = call(TREE, X)
    assert [type(w.message) for w in said] == [UnseenCategoryWarning]
    text = str(said[0].message)
    n = 1 if shape == "mapping" else 2
    assert text.startswith(f"{n} row{'s' if n > 1 else ''} hold") and "column 'outlook'" in text and "'foggy'" in text
    assert said[0].filename == __file__  # the user's line, not puretree's
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet = call(TREE, X, unseen="ignore")
    assert np.array_equal(np.asarray(answer), np.asarray(quiet))
    with pytest.raises(pt.DataError, match=f"{n} rows? holds? a category the tree did not see in training \\(column 'outlook'"):
        call(TREE, X, unseen="error")


def test_seen_rows_say_nothing_and_a_bad_option_is_named():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pt.predict(TREE, [SEEN], unseen="error").tolist() == ["no"]
    with pytest.raises(pt.ParameterError, match="unseen must be one of"):
        pt.predict(TREE, [SEEN], unseen="silent")


def test_the_command_line_counts_unseen_rows_on_stderr(tmp_path):
    model = tmp_path / "t.json"
    subprocess.run([sys.executable, "-m", "puretree", "fit", str(dataset_path("playtennis")), "--target", "play", "--ignore", "day", "--algorithm", "id3", "-o", str(model)], check=True, capture_output=True)
    data = tmp_path / "u.csv"
    data.write_text("outlook,temperature,humidity,wind\nsunny,hot,high,weak\nfoggy,hot,high,weak\nfoggy,mild,high,weak\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "puretree", "predict", str(model), str(data)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == "prediction\nno\nyes\nyes\n"
    assert done.stderr == (f"puretree predict: 2 rows hold a category the tree did not see in training (column 'outlook': 2 rows, the first 'foggy' at {data}: line 3); "
                           "each is answered at the split it cannot pass\n")


def _said(call):
    """What ``call()`` answers and the UnseenCategoryWarnings it gives (every warning kept)."""
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        answer = call()
    return answer, [w for w in said if issubclass(w.category, UnseenCategoryWarning)]


def _ensembles():
    data = load_playtennis()
    return {"bagging": pt.bagging(data, n_trees=3, seed=0), "forest": pt.random_forest(data, n_trees=3, seed=0), "adaboost": pt.adaboost(data, n_rounds=3, seed=0)}


ENSEMBLES = _ensembles()


@pytest.mark.parametrize("method", sorted(ENSEMBLES))
@pytest.mark.parametrize("how", ["pt.predict", "pt.predict_proba", "ens.predict", "ens.predict_proba"])
def test_an_ensemble_says_unseen_categories_once_and_takes_the_option(method, how):
    ens = ENSEMBLES[method]
    rows = pd.DataFrame([SEEN, FOGGY, FOGGY])
    name = how.split(".")[1]
    call = (lambda **kw: getattr(pt, name)(ens, rows, **kw)) if how.startswith("pt.") else (lambda **kw: getattr(ens, name)(rows, **kw))
    answer, said = _said(call)
    assert len(said) == 1 and str(said[0].message).startswith("2 rows hold") and said[0].filename == __file__  # one for the batch, not one per member
    quiet, none = _said(lambda: call(unseen="ignore"))
    assert none == [] and np.array_equal(np.asarray(answer), np.asarray(quiet))
    with pytest.raises(pt.DataError, match="2 rows hold a category"):
        call(unseen="error")
    with pytest.raises(pt.ParameterError, match="unseen must be one of"):
        call(unseen="loud")


@pytest.mark.parametrize("name", ["predict", "predict_proba", "apply"])
def test_a_tree_s_methods_take_the_option(name):
    call = getattr(TREE, name)
    answer, said = _said(lambda: call([SEEN, FOGGY]))
    assert len(said) == 1 and said[0].filename == __file__
    quiet, none = _said(lambda: call([SEEN, FOGGY], unseen="ignore"))
    assert none == [] and np.array_equal(np.asarray(answer), np.asarray(quiet))
    with pytest.raises(pt.DataError, match="1 row holds a category"):
        call([SEEN, FOGGY], unseen="error")




@pytest.mark.parametrize("kind", ["TreeClassifier", "TreeRegressor", "RandomForestClassifier", "RandomForestRegressor"])
def test_the_estimators_take_the_option_as_a_keyword_of_predict(kind):
    from puretree import estimators

    X = pd.DataFrame([SEEN, dict(SEEN, outlook="rain"), dict(SEEN, outlook="overcast", wind="strong"), dict(SEEN, humidity="normal")] * 3)
    y = [0, 1, 1, 0] * 3 if "Classifier" in kind else [0.0, 1.0, 2.0, 0.5] * 3
    est = getattr(estimators, kind)(**({"n_estimators": 3, "random_state": 0} if "Forest" in kind else {})).fit(X, y)
    rows = pd.DataFrame([SEEN, FOGGY, FOGGY])
    methods = ["predict", "predict_proba"] if "Classifier" in kind else ["predict"]
    methods += ["apply", "decision_path"] if kind.startswith("Tree") else []
    for name in methods:
        call = getattr(est, name)
        answer, said = _said(lambda: call(rows))
        assert len(said) == 1 and "column 'outlook'" in str(said[0].message), name
        quiet, none = _said(lambda: call(rows, unseen="ignore"))
        dense = (lambda m: m.toarray()) if name == "decision_path" else np.asarray
        assert none == [] and np.array_equal(dense(answer), dense(quiet)), name
        with pytest.raises(pt.DataError, match="2 rows hold a category"):
            call(rows, unseen="error")
