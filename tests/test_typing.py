"""The package type-checks: ``mypy -p puretree`` (the version pinned in constraints/test.txt,
settings in pyproject.toml) reports no error, and ``py.typed`` tells type checkers to read it.
What users of mypy see: ``mypy --strict examples/`` is clean, and a user's script (written to
tmp_path, checked against puretree as installed) reveals precise types and has its misspelt
options reported; the option TypedDicts name exactly the options the functions take."""

from __future__ import annotations

import ast
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import puretree
import puretree.dask
from puretree.c45 import c45
from puretree.dask import DaskC45Options, DaskID3Options, DaskOptions, DaskRegressorOptions
from puretree.data import DATA_OPTIONS
from puretree.errors import ParameterError
from puretree.ensemble import adaboost, bagging, random_forest
from puretree.grow import C45Options, DataOptions, ForestOptions, GrowOptions, MemberOptions, grow

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_says_it_is_typed():
    assert (Path(puretree.__file__).parent / "py.typed").is_file()


def test_mypy_reports_no_error():
    # A subprocess from the repository root: mypy reads [tool.mypy] there and keeps its cache
    # in .mypy_cache, so later runs check only what changed.
    done = subprocess.run([sys.executable, "-m", "mypy", "-p", "puretree"], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    assert done.stdout.startswith("Success: no issues found")


def _mypy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # The puretree imported here is the one mypy reads, through PYTHONPATH as an installed
    # package is read (PEP 561: it must carry py.typed, or mypy treats it as untyped).
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(puretree.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "mypy", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=900)


def test_the_examples_type_check_strictly():
    done = _mypy("--strict", "examples/", cwd=ROOT)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]


# A user's script: each line ending in "# reveals: T" must reveal T; each "# error: TEXT" line
# must be reported with TEXT; nothing else may be reported, under --strict.
USER_SCRIPT = '''
import numpy as np
import puretree as pt
import puretree.dask
import puretree.sklearn
from puretree.estimators import AdaBoostClassifier, BaggingRegressor, ExtraTreesClassifier, RandomForestClassifier, TreeClassifier, TreeRegressor

X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 3.0]])
y = [0, 1, 0, 1]
row = {"x0": 1.0, "x1": 2.0}
tree = pt.cart(X, y, max_depth=2, feature_names=["x0", "x1"])
forest = pt.random_forest(X, y, n_trees=3, max_depth=2)
reveal_type(tree)  # reveals: puretree.tree.Tree
reveal_type(forest)  # reveals: puretree.ensemble.Ensemble
reveal_type(pt.predict(tree, X))  # reveals: numpy.ndarray
reveal_type(pt.predict(tree, [row]))  # reveals: numpy.ndarray
reveal_type(pt.predict(forest, X))  # reveals: numpy.ndarray
reveal_type(pt.predict(tree, row))  # reveals: str | int | float
reveal_type(pt.predict(forest, row))  # reveals: str | int | float
reveal_type(pt.predict_proba(tree, X))  # reveals: numpy.ndarray
reveal_type(pt.predict_proba(forest, row))  # reveals: numpy.ndarray
reveal_type(pt.apply(tree, X))  # reveals: numpy.ndarray
reveal_type(pt.apply(tree, row))  # reveals: int
reveal_type(pt.decision_path(tree, row))  # reveals: tuple[int, ...]
reveal_type(pt.to_function(tree))  # reveals: def (typing.Mapping[str, Any] | typing.Sequence[Any]) -> str | int | float | bool
reveal_type(pt.c45(X, y, collapse=False))  # reveals: puretree.tree.Tree
reveal_type(tree.predict(row))  # reveals: str | int | float
reveal_type(tree.predict(X))  # reveals: numpy.ndarray
reveal_type(tree.apply(row))  # reveals: int
reveal_type(forest.predict(X))  # reveals: numpy.ndarray
reveal_type(forest.predict_proba(row))  # reveals: numpy.ndarray
reveal_type(pt.adaboost(X, y, n_rounds=2))  # reveals: puretree.ensemble.Ensemble
clf = TreeClassifier(max_depth=2)
reveal_type(clf.fit(X, y))  # reveals: puretree.estimators.TreeClassifier
reveal_type(clf.predict(X))  # reveals: numpy.ndarray
reveal_type(clf.predict_proba(X))  # reveals: numpy.ndarray
reveal_type(clf.apply(X))  # reveals: numpy.ndarray
reveal_type(clf.score(X, y))  # reveals: float
reveal_type(clf.set_params(max_depth=3))  # reveals: puretree.estimators.TreeClassifier
reveal_type(clf.get_depth())  # reveals: int
reveal_type(clf.tree_)  # reveals: puretree.tree.Tree
reveal_type(clf.classes_)  # reveals: numpy.ndarray
reveal_type(TreeRegressor().fit(X, [1.0, 2.0, 3.0, 4.0]).predict(X))  # reveals: numpy.ndarray
reveal_type(puretree.sklearn.TreeClassifier().fit(X, y))  # reveals: puretree.estimators.TreeClassifier
reveal_type(RandomForestClassifier(n_estimators=3).fit(X, y))  # reveals: puretree.estimators.RandomForestClassifier
reveal_type(RandomForestClassifier(n_estimators=3).fit(X, y).estimators_)  # reveals: list[puretree.tree.Tree]
reveal_type(AdaBoostClassifier().fit(X, y).predict_proba(X))  # reveals: numpy.ndarray
reveal_type(BaggingRegressor().fit(X, [1.0, 2.0, 3.0, 4.0]).ensemble_)  # reveals: puretree.ensemble.Ensemble
reveal_type(RandomForestClassifier(max_samples=0.5).fit(X, y, sample_weight=[1.0, 2.0, 1.0, 1.0]))  # reveals: puretree.estimators.RandomForestClassifier
reveal_type(BaggingRegressor(max_features=1, bootstrap_features=True).fit(X, [1.0, 2.0, 3.0, 4.0], sample_weight=None).ensemble_)  # reveals: puretree.ensemble.Ensemble
pt.bagging(X, y, member_feature=1)  # error: Unexpected keyword argument "member_feature"
reveal_type(clf.predict_log_proba(X))  # reveals: numpy.ndarray
reveal_type(ExtraTreesClassifier(n_estimators=3).fit(X, y))  # reveals: puretree.estimators.ExtraTreesClassifier
reveal_type(pt.with_histograms(tree, X, y))  # reveals: puretree.tree.Tree
reveal_type(tree.histograms)  # reveals: puretree.distributions.NodeHistograms | None
reveal_type(pt.to_dot(tree, X=X, y=y))  # reveals: str
TreeClassifier(max_depht=3)  # error: Unexpected keyword argument "max_depht"
pt.to_svg(tree, widht=300)  # error: Unexpected keyword argument "widht"
pt.cart(X, y, max_depht=3)  # error: Unexpected keyword argument "max_depht"
pt.grow(X, y, max_depht=3)  # error: Unexpected keyword argument "max_depht"
pt.id3(X, y, max_depht=3)  # error: Unexpected keyword argument "max_depht"
pt.cart_regressor(X, y, max_depht=3)  # error: Unexpected keyword argument "max_depht"
pt.c45(X, y, max_depht=3)  # error: Unexpected keyword argument "max_depht"
pt.random_forest(X, y, max_depht=3)  # error: Unexpected keyword argument "max_depht"
pt.bagging(X, y, max_depht=3)  # error: Unexpected keyword argument "max_depht"
pt.adaboost(X, y, max_depht=3)  # error: Unexpected keyword argument "max_depht"
pt.attribute_scores(X, y, feature_name=["a", "b"])  # error: Unexpected keyword argument "feature_name"
pt.cart(X, y, max_depth="3")  # error: Argument "max_depth" to "__call__" of "Grower" has incompatible type "str"
pt.predict(tree, row, unseen="warning")  # error: No overload variant of "predict" matches
puretree.dask.cart(X, y, max_depht=3)  # error: Unexpected keyword argument "max_depht"
puretree.dask.id3(X, y, max_depht=3)  # error: Unexpected keyword argument "max_depht"
puretree.dask.c45(X, y, max_depht=3)  # error: Unexpected keyword argument "max_depht"
puretree.dask.cart_regressor(X, y, max_depht=3)  # error: Unexpected keyword argument "max_depht"
'''


def test_a_users_script_sees_precise_types(tmp_path):
    script = tmp_path / "user.py"
    script.write_text(USER_SCRIPT, encoding="utf-8")
    (tmp_path / "mypy.ini").write_text("[mypy]\n", encoding="utf-8")  # none of the repository's settings
    done = _mypy("--strict", "--config-file", "mypy.ini", "user.py", cwd=tmp_path)
    reported: dict[int, list[str]] = {}
    for line in done.stdout.splitlines():
        where = re.match(r"user\.py:(\d+): (?:error|note): (.*)", line)
        if where:
            reported.setdefault(int(where[1]), []).append(where[2])
    expected_lines = set()
    for number, text in enumerate(USER_SCRIPT.splitlines(), start=1):
        if "# reveals: " in text:
            expected_lines.add(number)
            want = text.split("# reveals: ")[1]
            got = [m[len("Revealed type is ") :].strip('"') for m in reported.get(number, []) if m.startswith("Revealed type is ")]
            assert got and (got[0] == want or got[0].startswith(want + "[")), f"line {number}: {text.strip()}\n  revealed {got}"
        elif "# error: " in text:
            expected_lines.add(number)
            want = text.split("# error: ")[1]
            assert any(want in m for m in reported.get(number, [])), f"line {number}: {text.strip()}\n  reported {reported.get(number)}"
    unexpected = {n: m for n, m in reported.items() if n not in expected_lines}
    assert not unexpected, unexpected
    assert f"Found {sum(1 for t in USER_SCRIPT.splitlines() if '# error: ' in t)} errors in 1 file" in done.stdout, done.stdout[-3000:]


def _keywords(function) -> set[str]:
    return {p.name for p in inspect.signature(function).parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY}


def test_the_option_types_name_exactly_the_options_taken():
    # The TypedDicts are what a type checker accepts; the functions' run-time checks what runs.
    # They must name the same options, or a valid call fails mypy (or a misspelt one passes it).
    assert set(DataOptions.__optional_keys__) == set(DATA_OPTIONS)
    assert set(GrowOptions.__optional_keys__) == _keywords(grow) | set(DATA_OPTIONS)
    assert set(C45Options.__optional_keys__) | _keywords(c45) == set(GrowOptions.__optional_keys__) | {"collapse"}
    assert not set(C45Options.__optional_keys__) & _keywords(c45)
    assert set(ForestOptions.__optional_keys__) | {"seed", "max_features"} == set(GrowOptions.__optional_keys__) | {"collapse"}
    assert set(MemberOptions.__optional_keys__) == set(ForestOptions.__optional_keys__) | {"max_features"}
    for function, options in ((random_forest, ForestOptions), (bagging, MemberOptions), (adaboost, MemberOptions)):
        assert not set(options.__optional_keys__) & _keywords(function), function.__name__


def test_the_dask_option_types_name_exactly_the_options_taken():
    with pytest.raises(ParameterError) as caught:  # the run-time check lists what puretree.dask takes
        puretree.dask.cart(None, None, max_dept=1)
    taken = set(ast.literal_eval(str(caught.value).split("its options are ")[1]))
    assert set(DaskOptions.__optional_keys__) == taken
    assert set(DaskID3Options.__optional_keys__) | _keywords(puretree.dask.id3) == taken
    # puretree.dask.c45 refuses max_features (and so its seed): its type does not offer them
    assert set(DaskC45Options.__optional_keys__) | _keywords(puretree.dask.c45) == (taken - {"max_features", "seed"}) | {"collapse", "threshold"}
    assert set(DaskRegressorOptions.__optional_keys__) | {"task"} == set(DaskC45Options.__optional_keys__)
