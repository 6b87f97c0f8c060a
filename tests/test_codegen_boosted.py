"""Python and C for boosted models (issues 28, 29): compiled with gcc (strict flags) and run
against the library by ``verify``: raw scores bit for bit, classes equal, probabilities to 1e-12,
on held-out rows, NaN rows and every threshold's float32 and double neighbours."""

from __future__ import annotations

import importlib.util
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import puretree as pt
from puretree import boosted as bs
from puretree.codegen import boosted as cb
from puretree.data import Dataset
from puretree.errors import CodegenError
from puretree.nodes import CATEGORICAL, Feature, Leaf, Schema, Split, Subset, Surrogates, Threshold
from puretree.tree import Tree

sys.path.insert(0, str(Path(__file__).parent))
from test_import_xgboost import CASES, _credit_g, _model as _xgb_model  # noqa: E402

FEATURES = (Feature("x"), Feature("y"), Feature("c", CATEGORICAL, ("a", "b", "c", "d")))


def _leaf(v: float, w: float = 1.0) -> Leaf:
    return Leaf((w, v * w, v * v * w))


def _tree(i: int, j: int) -> Tree:
    """Thresholds with and without a missing side, a subset split with a fallback and one without
    (an unknown code stops there), an empty leaf (its parent's value answers)."""
    v = [0.1 * (i + 1) - 0.3 * j, -0.7 + 0.2 * j, 1.1 * (j + 1) - 0.05 * i, 0.37 * i - 0.2]
    fallback = Split(2, Subset((0, 2)), (_leaf(v[0]), _leaf(v[1])), (2.0, v[0] + v[1], 1.0), surrogates=Surrogates(fallback=i % 2))
    plain = Split(2, Subset((1,)), (_leaf(v[2], 2.0), _leaf(v[3], 0.0)), (2.0, 2 * v[2], 1.0))
    low = Split(1, Threshold(0.1 + 0.3 * i, missing_branch=None), (fallback, plain), (4.0, 1.0, 2.0))
    return Tree(Split(0, Threshold(1.0 / 3.0 + i, missing_branch=j % 2), (low, _leaf(v[3] * 3)), (5.0, 1.0, 3.0)), bs.tree_schema(Schema(FEATURES)))


def _hand(loss: str, k: int, precision: str = "float64") -> bs.Boosted:
    classes = () if bs.LOSSES[loss] == "identity" else tuple(f"k{c}" for c in range(max(2, k)))
    schema = Schema(FEATURES, classes) if classes else Schema(FEATURES, task="regression")
    stages = tuple(tuple(_tree(i, j) for j in range(k)) for i in range(5))
    return bs.Boosted(stages, tuple(0.1 * j - 0.05 for j in range(k)), 0.1, loss, schema, precision)


HAND = {
    "log_loss binary": ("log_loss", 1),
    "log_loss 3 classes": ("log_loss", 3),
    "exponential": ("exponential", 1),
    "huber": ("huber", 1),
    "multi:softprob": ("multi:softprob", 3),
}

X_HAND = np.array([[0.0, 0.0, 0.0], [0.3, 0.5, 1.0], [2.0, 0.2, 3.0], [np.nan, np.nan, np.nan], [1 / 3, 0.1, 2.0], [5.0, -1.0, 1.0]])


@pytest.mark.parametrize("precision", ["float64", "float32"])
@pytest.mark.parametrize("case", sorted(HAND))
@pytest.mark.parametrize("target, ftype, form", [("python", "double", "nested"), ("python", "double", "table"), ("c", "double", "auto"), ("c", "float", "auto")])
def test_hand_built_models_verify_with_no_mismatch(case: str, precision: str, target: str, ftype: str, form: str) -> None:
    loss, k = HAND[case]
    model = _hand(loss, k, precision)
    report = pt.verify(model, X_HAND, target, feature_type=ftype, form=form)
    assert report.n_checked > 100 and report.mismatches == [] and report.ok


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("target, ftype", [("python", "double"), ("c", "double"), ("c", "float")])
def test_imported_xgboost_models_verify_with_no_mismatch(name: str, target: str, ftype: str) -> None:
    booster, held, _ = _xgb_model(name, 0.1)
    report = pt.verify(pt.from_xgboost(booster), held, target, feature_type=ftype)
    assert report.n_checked > len(held) and report.mismatches == []


@pytest.mark.parametrize("target", ["python", "c"])
def test_credit_g_categoricals_verify_with_no_mismatch(target: str) -> None:
    booster, held, _ = _credit_g()
    report = pt.verify(pt.from_xgboost(booster), held, target)
    assert report.n_checked > 500 and report.mismatches == []


def test_the_c_runs_clean_under_the_sanitizers() -> None:
    booster, held, _ = _credit_g()
    assert pt.verify(pt.from_xgboost(booster), held, "c", sanitize=True).mismatches == []


def test_the_check_rows_hold_the_float32_neighbours_of_every_threshold() -> None:
    model = _hand("log_loss", 1)
    rows = cb.check_rows(model, X_HAND)
    t = 1.0 / 3.0
    for v in (np.float32(t), np.nextafter(np.float32(t), np.float32(0)), np.nextafter(np.float32(t), np.float32(1)), np.nextafter(t, 0), np.nextafter(t, 1)):
        assert (rows[:, 0] == float(v)).any()
    assert np.isnan(rows).all(axis=1).any() and (rows[:, 2] == 4.0).any() and (rows[:, 2] == -1.0).any()


def _broken(monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    made = cb.boosted_files

    def files(*args: object, **kwargs: object) -> dict[str, str]:
        out = made(*args, **kwargs)  # type: ignore[arg-type]
        assert any(old in text for text in out.values())
        return {name: text.replace(old, new) for name, text in out.items()}

    monkeypatch.setattr(cb, "boosted_files", files)


def test_verify_finds_a_strict_comparison_in_the_c(monkeypatch: pytest.MonkeyPatch) -> None:
    """The threshold rows catch x < t where x <= t is due: verify is not blind to the boundary."""
    _broken(monkeypatch, "next = (int)(v <= ", "next = (int)(v < ")
    assert pt.verify(_hand("log_loss", 3), X_HAND, "c").n_mismatches > 0


def test_verify_finds_float32_sums_in_a_float64_model(monkeypatch: pytest.MonkeyPatch) -> None:
    _broken(monkeypatch, "acc[k] += _LR * _leaf(root, x)", "acc[k] = _float32(acc[k] + _LR * _leaf(root, x))")
    assert pt.verify(_hand("huber", 1), X_HAND, "python", form="table").n_mismatches > 0


def test_verify_finds_a_missing_side_lost_in_the_nested_python(monkeypatch: pytest.MonkeyPatch) -> None:
    _broken(monkeypatch, " or v != v:", ":")
    assert pt.verify(_hand("log_loss", 1), X_HAND, "python", form="nested").n_mismatches > 0


def test_the_python_is_nested_up_to_a_depth_then_a_table() -> None:
    model = _hand("log_loss", 1)
    nested = pt.generate(model, "python")["tree.py"]
    assert "    # tree 0\n    if " in nested and "_KIND" not in nested and "def _t0" not in nested  # inline: no call per tree
    assert "def _leaf(i, x):" in pt.generate(model, "python", form="table")["tree.py"]
    with pytest.raises(CodegenError, match="nested or as a table, not 'compact'"):
        pt.generate(model, "python", form="compact")


def test_verify_finds_a_wrong_missing_side(monkeypatch: pytest.MonkeyPatch) -> None:
    _broken(monkeypatch, "next = (int)tree_nan[i];", "next = tree_nan[i] >= 0 ? (int)tree_left[i] : (int)tree_nan[i];")
    assert pt.verify(_hand("log_loss", 1), X_HAND, "c").n_mismatches > 0


def test_export_and_generate(tmp_path: Path) -> None:
    model = _hand("log_loss", 3)
    paths = pt.export(model, "c", out_dir=tmp_path / "gen", name="gb")
    assert sorted(p.name for p in paths) == ["gb.c", "gb.h"]
    files = pt.generate(model, "python", name="gb")
    (tmp_path / "gb.py").write_text(files["gb.py"])
    spec = importlib.util.spec_from_file_location("gb_generated", tmp_path / "gb.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    ds = Dataset(model.schema, X_HAND)
    assert [module.predict(r) for r in X_HAND.tolist()] == bs.predict(model, ds, unseen="ignore").tolist()
    assert [module.decision_function(r) for r in X_HAND.tolist()] == bs.decision_function(model, ds, unseen="ignore").tolist()
    with pytest.raises(CodegenError, match="not 'c-table'"):
        pt.generate(model, "c-table")
    with pytest.raises(CodegenError, match="quantized"):
        pt.generate(model, "c", quantize=[(0, 1)] * 3)


def test_a_deep_tree_is_generated_as_a_table() -> None:
    """20 000 levels: no recursion in the generator or the code, nothing nested for a compiler."""
    depth = 20_000
    node: object = _leaf(2.0)
    for i in range(depth):
        node = Split(0, Threshold(float(depth - i)), (node, _leaf(-1.0)), (2.0, 1.0, 5.0))
    schema = Schema((Feature("x"),), task="regression")
    model = bs.Boosted(((Tree(node, bs.tree_schema(schema)),),), (0.5,), 1.0, "squared_error", schema)  # type: ignore[arg-type]
    with pytest.raises(CodegenError, match="20000 levels deep is written as a table"):
        pt.generate(model, "python", name="deep", form="nested")
    files = pt.generate(model, "python", name="deep")
    assert "def _leaf(i, x):" in files["deep.py"]
    scope: dict = {}
    exec(compile(files["deep.py"], "deep.py", "exec"), scope)
    assert scope["predict"]([0.5]) == 2.5 and scope["predict"]([1.5]) == -0.5 == bs.decision_function(model, [[1.5]])
    assert math.isnan(scope["predict"]([math.nan])) is False


# -- imported LightGBM models (issue 29) ---------------------------------------------------

from test_import_lightgbm import CASES as LGB_CASES, _model as _lgb_model, _train as _lgb_train  # noqa: E402


@pytest.mark.parametrize("name", sorted(LGB_CASES))
@pytest.mark.parametrize("target, ftype, form", [("python", "double", "nested"), ("python", "double", "table"), ("c", "double", "auto"), ("c", "float", "auto")])
def test_imported_lightgbm_models_verify_with_no_mismatch(name: str, target: str, ftype: str, form: str) -> None:
    """binary, multiclass and regression, 10% NaN, credit-g's categorical bitsets: the generated code
    against the library on held-out rows and the boundary rows (zero band, categories' edges, NaN)."""
    booster, held = _lgb_model(name, 0.1)
    model = pt.from_lightgbm(booster)
    report = pt.verify(model, held, target, feature_type=ftype, form=form)
    assert report.n_checked > len(held) and report.mismatches == []
    rows = cb.check_rows(model, held)
    assert np.isnan(rows).all(axis=1).any()
    thresholds = {float(t) for stage in model.stages for tree in stage for t in bs.table(tree).threshold[bs.table(tree).kind == 1]}
    assert all((rows == t).any() for t in list(thresholds)[:200])  # each split's edge is a checked row


def _sigmoid_model(sigmoid: float) -> tuple[bs.Boosted, np.ndarray]:
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    booster = _lgb_train(X[:400], y[:400], "binary", rounds=10, sigmoid=sigmoid)
    return pt.from_lightgbm(booster), X[400:]


@pytest.mark.parametrize("target", ["python", "c"])
def test_the_sigmoid_scale_is_in_the_generated_code(target: str) -> None:
    model, held = _sigmoid_model(0.3)
    assert pt.verify(model, held, target).mismatches == []
    text = "".join(pt.generate(model, target).values())
    assert "0.3 * raw[0]" in text


def test_verify_finds_a_lost_sigmoid_scale(monkeypatch: pytest.MonkeyPatch) -> None:
    model, held = _sigmoid_model(0.3)
    _broken(monkeypatch, "0.3 * raw[0]", "raw[0]")
    assert pt.verify(model, held, "c").n_mismatches > 0


def test_float32_models_scale_the_sigmoid_in_float32() -> None:
    """A float32 model of the loss 'binary' (not what an importer makes, but a valid value): the
    code's float32 product of the scale agrees with the library's."""
    model = bs.Boosted(_hand("log_loss", 1).stages, (0.05,), 0.1, "binary", Schema(FEATURES, ("k0", "k1")), "float32", {"sigmoid": 0.7})
    for target in ("python", "c"):
        assert pt.verify(model, X_HAND, target).mismatches == []


def test_an_infinite_threshold_is_written_as_a_literal_that_compiles() -> None:
    """A split sending every number left and NaN right (LightGBM's reader makes one where a node's
    known values all go one way): inf in the Python (nested and table) and in the C."""
    schema = Schema((Feature("x"),), task="regression")
    tree = Tree(Split(0, Threshold(math.inf, missing_branch=1), (_leaf(1.5), _leaf(-2.0)), (2.0, 1.0, 5.0)), bs.tree_schema(schema))
    model = bs.Boosted(((tree,),), (0.0,), 1.0, "squared_error", schema)
    X = np.array([[0.0], [1.7e308], [-1.7e308], [math.nan]])
    assert bs.decision_function(model, X).tolist() == [1.5, 1.5, 1.5, -2.0]
    for target, form in (("python", "nested"), ("python", "table"), ("c", "auto")):
        assert pt.verify(model, X, target, form=form).mismatches == []


@pytest.mark.parametrize("params", [{}, {"zero_as_missing": True}, {"use_missing": False}], ids=["nan", "zero", "none"])
@pytest.mark.parametrize("target", ["python", "c"])
def test_lightgbm_missing_types_and_categories_verify_with_no_mismatch(params: dict, target: str) -> None:
    """Each missing type (NaN, Zero: zeros and the 1e-35 band go the default way, None: NaN read as 0)
    with credit-g's categorical splits: verify's rows (every cut's neighbours, NaN) and rows of
    zeros and tiny values, generated code against the library and the library against LightGBM."""
    from test_import_lightgbm import _credit_g, _expected as _lgb_expected, _with_nan

    X, y, cats = _credit_g()
    X = _with_nan(X, 0.1, 5)
    X[np.random.default_rng(6).random(X.shape) < 0.1] = 0.0
    booster = _lgb_train(X[:700], y[:700], "binary", rounds=8, categorical=cats, min_data_per_group=5, cat_smooth=1, max_cat_to_onehot=2, **params)
    model = pt.from_lightgbm(booster)
    held = X[700:]
    tiny = held[:20].copy()
    tiny[:, ::2] = 1e-36
    rows = np.vstack([held, tiny, -tiny])
    assert pt.verify(model, rows, target).mismatches == []
    checked = cb.check_rows(model, rows)
    assert np.array_equal(np.asarray(model.decision_function(checked))[:, None], _lgb_expected(booster, checked, raw_score=True))


@pytest.mark.parametrize("form", ["nested", "table"])
def test_float32_python_rounds_each_sum_overflows_to_inf_and_keeps_the_zero_sign(form: str) -> None:
    """The float32 array's += rounds as the library's float32 sums do: a tie to even, an overflow to
    inf, a zero's sign as the library's, and a row of inputs past float32's range."""
    schema = Schema((Feature("x"),), task="regression")
    tie = float(np.float32(2.0**-23))  # 1 + 2**-24 is a tie: to even, 1.0
    stages = []
    for v in (1.0, tie / 2, 3.0e38, 3.0e38, -3.0e38):
        stages.append((Tree(Split(0, Threshold(0.5, missing_branch=0), (_leaf(-0.0), _leaf(v)), (2.0, 1.0, 5.0)), bs.tree_schema(schema)),))
    model = bs.Boosted(tuple(stages), (-0.0,), 1.0, "squared_error", schema, "float32")
    X = np.array([[0.0], [1.0], [np.nan], [1e300], [-1e300], [3.5e38]])
    assert pt.verify(model, X, "python", form=form).mismatches == []
    scope: dict = {}
    exec(compile(pt.generate(model, "python", form=form)["tree.py"], "tree.py", "exec"), scope)
    got = [scope["decision_function"](row)[0] for row in X.tolist()]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # inputs and sums past float32's range are inf, as XGBoost's, without numpy's cast warning
        want = bs.decision_function(model, X)
    assert np.array_equal(np.asarray(got).view(np.int64), np.asarray(want, dtype=np.float64).view(np.int64))  # bit for bit, zeros' signs too
    assert got[1] == math.inf and got[0] == 0.0


# -- the compact C of threshold-only models (issue 29: the flash of 100 XGBoost trees) ----------


def _xgb_binary() -> tuple[bs.Boosted, np.ndarray]:
    booster, held, _ = _xgb_model("breast_cancer", 0.1)
    return pt.from_xgboost(booster), held


def test_threshold_only_models_get_the_packed_c() -> None:
    """One feature byte, a right distance and one float32 number per node (XGBoost: thresholds
    and leaf values in one array), no left-child, missing-side or subset tables; a model with
    subset splits keeps the general tables."""
    model, _ = _xgb_binary()
    text = pt.generate(model, "c", feature_type="float")["tree.c"]
    assert "static const unsigned char tree_feature[" in text and "static const unsigned char tree_right[" in text
    assert "static const float tree_node[" in text and "tree_value[" not in text and "tree_threshold[" not in text
    assert "tree_left[" not in text and "tree_nan[" not in text and "tree_bits[" not in text and "static const int " not in text
    assert "acc[0] += tree_leaf(" in text and "static float tree_leaf(int i, const float *x)" in text
    assert "tree_nan[" in pt.generate(_hand("log_loss", 1), "c")["tree.c"]
    kinds = cb._arrays(model)["kind"]
    assert 1 in kinds  # and some splits send NaN left (feature byte + 128 in the C):
    assert any(a == b for a, b, k in zip(cb._arrays(model)["nan"], cb._arrays(model)["left"], kinds) if k)
    assert "(f > 127u && isnan(v))" in text


def test_a_float64_model_packs_float_thresholds_and_double_leaves() -> None:
    """float inputs: the split layout, float32 thresholds (the largest at most each one) and two
    child references per split, the leaves' products learning_rate * value in double."""
    model = _thresholds_only("float64")
    model = bs.Boosted(model.stages, model.init, 0.1, model.loss, model.schema, "float64")
    text = pt.generate(model, "c", feature_type="float")["tree.c"]
    assert "static const float tree_threshold[" in text and "static const double tree_value[" in text
    assert "static const signed char tree_left[" in text and "return tree_value[-1 - r];" in text and "tree_node[" not in text
    for ftype in ("float", "double"):
        assert pt.verify(model, X_HAND[:, :2], "c", feature_type=ftype).mismatches == []


@pytest.mark.parametrize("old, new", [("(v <= tree_threshold[r]", "(v < tree_threshold[r]"), ("(f > 127u && isnan(v))", "(f > 128u && isnan(v))"),
                                      ("? (int)tree_left[r] : (int)tree_right[r]", "? (int)tree_right[r] : (int)tree_left[r]")],
                         ids=["strict", "nan-left-lost", "sides-swapped"])
def test_verify_finds_a_broken_split_layout_walk(monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    model = _thresholds_only("float64")
    assert pt.verify(model, X_HAND[:, :2], "c", feature_type="float").mismatches == []
    _broken(monkeypatch, old, new)
    assert pt.verify(model, X_HAND[:, :2], "c", feature_type="float").n_mismatches > 0


def test_the_smaller_packed_layout_is_chosen() -> None:
    """XGBoost's float32 thresholds and leaves: one number per node (smaller for its deep trees);
    the split layout where the trees are mostly leaves, and wherever the leaves' numbers are
    wider than the thresholds."""
    model, _ = _xgb_binary()
    assert "static const float tree_node[" in pt.generate(model, "c", feature_type="float")["tree.c"]
    stumps = _thresholds_only("float32")
    stumps = bs.Boosted(tuple((Tree(t.root.children[0], t.schema),) for (t,) in stumps.stages), stumps.init, 1.0, stumps.loss, stumps.schema, "float32")
    text = pt.generate(stumps, "c", feature_type="float")["tree.c"]
    assert "static const float tree_threshold[" in text and "tree_node[" not in text
    assert pt.verify(stumps, X_HAND[:, :2], "c", feature_type="float").mismatches == []


@pytest.mark.parametrize("old, new", [("(v <= tree_node[i]", "(v < tree_node[i]"), ("(f > 127u && isnan(v))", "(f > 128u && isnan(v))"), ("? i + 1 :", "? i + 2 :")],
                         ids=["strict", "nan-left-lost", "wrong-left"])
def test_verify_finds_a_broken_packed_walk(monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    model, held = _xgb_binary()
    assert pt.verify(model, held, "c", feature_type="float").mismatches == []
    _broken(monkeypatch, old, new)
    assert pt.verify(model, held, "c", feature_type="float").n_mismatches > 0


def _thresholds_only(precision: str) -> bs.Boosted:
    """Threshold splits on doubles that are not float32 values (1/3...), NaN sent either way."""
    schema = Schema((Feature("x"), Feature("y")), ("a", "b"))
    stages = []
    for i in range(6):
        low = Split(1, Threshold(0.1 + 0.3 * i, missing_branch=i % 2), (_leaf(0.25 * i - 0.5), _leaf(0.125 - 0.1 * i)), (2.0, 1.0, 1.0))
        stages.append((Tree(Split(0, Threshold(1.0 / 3.0 + i, missing_branch=(i + 1) % 2), (low, _leaf(0.375 * i)), (3.0, 1.0, 2.0)), bs.tree_schema(schema)),))
    return bs.Boosted(tuple(stages), (0.0625,), 1.0, "binary:logistic", schema, precision)


@pytest.mark.parametrize("precision", ["float32", "float64"])
@pytest.mark.parametrize("ftype", ["float", "double"])
def test_compact_c_of_double_thresholds_verifies(precision: str, ftype: str) -> None:
    model = _thresholds_only(precision)
    assert "_nan[" not in pt.generate(model, "c", feature_type=ftype)["tree.c"]
    assert pt.verify(model, X_HAND[:, :2], "c", feature_type=ftype).mismatches == []


def test_verify_finds_thresholds_rounded_to_nearest_not_down(monkeypatch: pytest.MonkeyPatch) -> None:
    """A float threshold must be the largest float32 at most the double one: rounded to nearest,
    the rows on the float32 threshold go the wrong way."""
    model = _thresholds_only("float32")
    monkeypatch.setattr(cb, "_float_below", lambda t: float(np.float32(t)))
    assert pt.verify(model, X_HAND[:, :2], "c", feature_type="double").n_mismatches > 0


@pytest.mark.parametrize("t", [0.1, -0.1, 1.0, 1e-45, 3.5e38, -3.5e38, math.inf, -math.inf, float(np.float32(0.1)), 5e-324])
def test_float_below_is_the_largest_float32_at_most_t(t: float) -> None:
    f = cb._float_below(t)
    assert f <= t and float(np.float32(f)) == f
    with np.errstate(over="ignore"):  # past float32's largest: inf
        up = np.nextafter(np.float32(f), np.float32(np.inf))
    assert float(up) > t or f == math.inf


def _compiled_exp(tmp_path: Path) -> Path:
    """``NAME_exp`` alone, built with the generated code's strict flags, reading x and printing e^x."""
    import subprocess

    from puretree.codegen.verify import FP_FLAGS, STRICT_FLAGS

    src = "#include <math.h>\n#include <stdio.h>\n" + "\n".join(cb._c_exp("t")) + '\nint main(void) { double x; while (scanf("%lf", &x) == 1) printf("%a\\n", t_exp(x)); return 0; }\n'
    (tmp_path / "e.c").write_text(src)
    subprocess.run(["gcc", *STRICT_FLAGS, *FP_FLAGS, "-O1", "e.c", "-o", "e"], cwd=tmp_path, check=True)
    return tmp_path / "e"


@pytest.mark.parametrize("x", [0.0, -0.0, 1e-300, -1e-300, 0.5, -0.5, 1.0, 20.5, -20.5, 700.0, 709.5, 709.78, 709.79, 710.0, -708.0, -708.5,
                               -740.0, -745.1, -745.2, -746.0, math.inf, -math.inf])
def test_the_generated_exp_is_exp_to_1e_12(tmp_path: Path, x: float) -> None:
    """A float64 model's probabilities need no C library: its own exp is within a relative 1e-12
    of math.exp (1e-300 absolute: subnormals), overflows to inf and underflows to 0 where exp does."""
    import subprocess

    program = _compiled_exp(tmp_path)
    xs = [x, *np.linspace(x - 1.0, x + 1.0, 41).tolist()] if math.isfinite(x) else [x]
    out = subprocess.run([str(program)], input="\n".join(repr(v) for v in xs), capture_output=True, text=True, check=True).stdout.split()
    for v, got in zip(xs, out):
        try:
            want = math.exp(v)
        except OverflowError:
            want = math.inf
        assert math.isclose(float.fromhex(got), want, rel_tol=1e-12, abs_tol=1e-300), (v, got, want)


def test_a_float64_models_c_calls_no_libm_exp() -> None:
    """Its probabilities go through NAME_exp: no exp of the C library (and its errno) is linked."""
    model = _thresholds_only("float64")
    text = pt.generate(model, "c", feature_type="float")["tree.c"]
    assert "tree_exp(" in text and " exp(" not in text and "(exp(" not in text
    text32 = pt.generate(_thresholds_only("float32"), "c", feature_type="float")["tree.c"]
    assert "tree_exp(" not in text32 and "exp(" in text32  # float32: the C library's, rounded as the library rounds it


@pytest.mark.parametrize("kind", ["packed-float32", "packed-float64", "tables"])
def test_a_model_of_more_than_32768_leaves_compiles_and_verifies(kind: str) -> None:
    """Its node indices need long tables: the C still builds under -Wconversion -Werror (every
    index read into an int is cast) and predicts as the library."""
    model = _thresholds_only(kind.split("-")[-1]) if kind.startswith("packed") else _hand("log_loss", 1)
    per_stage = sum(len(bs.table(t).kind) for t in model.stages[0])
    big = bs.Boosted(model.stages * (2 * 32768 // (per_stage * len(model.stages)) + 1), model.init, model.learning_rate, model.loss, model.schema, model.precision)
    assert sum(len(bs.table(t).kind) for stage in big.stages for t in stage) > 2 * 32768  # more than 32768 leaves
    text = pt.generate(big, "c")["tree.c"]
    assert "static const long tree_" in text
    assert pt.verify(big, X_HAND[:2, : big.schema.n_features], "c").mismatches == []


def _thresholds_beside_a_category(precision: str) -> bs.Boosted:
    """_thresholds_only with a categorical feature no tree splits: not packed (its codes are not
    float32 readings), the compact tables."""
    model = _thresholds_only(precision)
    schema = Schema((Feature("x"), Feature("y"), Feature("c", CATEGORICAL, ("a", "b"))), ("a", "b"))
    stages = tuple((Tree(t.root, bs.tree_schema(schema)),) for (t,) in model.stages)
    return bs.Boosted(stages, model.init, model.learning_rate, model.loss, schema, precision)


# (x < t for x <= t is no mistake here: the thresholds are doubles no float32 reading equals)
@pytest.mark.parametrize("old, new", [(" == 3 && isnan(v)", " == 4 && isnan(v)"), ("? i + 1 :", "? i + 2 :")], ids=["nan-left-lost", "wrong-left"])
def test_verify_finds_a_broken_compact_walk(monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    model = _thresholds_beside_a_category("float32")
    X = np.column_stack([X_HAND[:, :2], np.zeros(len(X_HAND))])
    text = pt.generate(model, "c", feature_type="float")["tree.c"]
    assert "tree_kind[" in text and "tree_threshold[" in text and "tree_node[" not in text and "tree_left[" not in text
    assert pt.verify(model, X, "c", feature_type="float").mismatches == []
    _broken(monkeypatch, old, new)
    assert pt.verify(model, X, "c", feature_type="float").n_mismatches > 0
