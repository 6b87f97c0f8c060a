"""The JavaScript, Java and Rust targets: generated, compiled (node; javac and java; rustc -O)
and run on every row verify checks (the data, every threshold with its neighbours, unseen
categories, missing values), answering exactly as the model; safe with hostile names."""

import json
import math
import shutil
import subprocess

import attrs
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris

import puretree as pt
from puretree.cli import main
from puretree.codegen import export, generate, verify, verify_code
from puretree.codegen import literals as lit
from puretree.data import Dataset, encode_features
from puretree.datasets import load_temperature
from puretree.ensemble import bagging, random_forest
from puretree.errors import CodegenError
from puretree.flat import flatten
from puretree.grow import c45, cart, cart_regressor, id3
from puretree.invariants import boundary_cases
from puretree.io import save
from puretree.nodes import Feature, Schema
from puretree.strategies import datasets, trees

TARGETS = ("javascript", "java", "rust")
FORMS = ("nested", "table")
LITERAL = {"javascript": lit.js_float, "java": lit.java_double, "rust": lit.rust_f64}
MAIN_FILE = {"javascript": "{}.js", "java": "{}.java", "rust": "{}.rs"}


def _models():
    Xb, yb = load_breast_cancer(return_X_y=True)
    Xi, yi = load_iris(return_X_y=True)
    Xd, yd = load_diabetes(return_X_y=True)
    return {
        "breast_cancer": (cart(Xb, yb), Xb),
        "iris": (cart(Xi, yi), Xi),
        "diabetes": (cart_regressor(Xd, yd, max_depth=8), Xd),
        "forest": (random_forest(Xb, yb, n_trees=4, seed=0, max_depth=6), Xb),
        "regression_forest": (bagging(Xd, yd, n_trees=3, seed=1, max_depth=5), Xd),
    }


MODELS = _models()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("which", sorted(MODELS))
def test_compiled_code_answers_as_the_model(which, form, target):
    model, X = MODELS[which]
    report = verify(model, X, target, form=form)
    assert report.mismatches == [] and report.n_mismatches == 0
    assert report.n_checked > len(X)  # the thresholds' neighbours and missing values too


@pytest.mark.parametrize("target", TARGETS)
def test_verify_finds_a_threshold_moved_by_one_ulp(tmp_path, target):
    # The exported code, its root threshold edited to the next double up: the row at the
    # threshold's neighbour goes the other way, and verify --code must say so.
    tree, X = MODELS["breast_cancer"]
    export(tree, target, out_dir=tmp_path, form="nested")
    path = tmp_path / MAIN_FILE[target].format("tree")
    t = float(tree.root.test.value)
    text = path.read_text()
    # The root's test is the first comparison with its threshold: "x <= t" or "!(x > t)".
    old = next(op + LITERAL[target](t) for op in ("> ", "<= ") if op + LITERAL[target](t) in text)
    new = old.replace(LITERAL[target](t), LITERAL[target](math.nextafter(t, math.inf)))
    manifest, report = verify_code(tree, X, tmp_path)
    assert manifest["target"] == target and report.mismatches == []
    path.write_text(text.replace(old, new, 1))
    _, report = verify_code(tree, X, tmp_path)
    assert report.n_mismatches >= 1


@st.composite
def grown(draw, *, regression=False):
    """A tree learned from random data (numeric and categorical columns, edge floats, NaN
    cells) under a random missing-value strategy, or a random valid tree with every split kind."""
    if draw(st.booleans()):
        tree = draw(trees(max_depth=4, max_nodes=20, weighted=True))
        assume(not flatten(tree).surrogated)
        cases = boundary_cases(tree, unseen=True)
        return tree, (encode_features(tree.schema, cases) if cases else np.zeros((1, tree.schema.n_features)))
    ds = draw(datasets(min_rows=3, max_rows=30, max_features=3, max_classes=3, missing=draw(st.sampled_from([False, 0.1]))))
    missing = draw(st.sampled_from(["majority", "distribute", "error"]))
    if regression:
        y = np.array(draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=ds.n_rows, max_size=ds.n_rows)))
        tree = cart_regressor(Dataset(Schema(ds.schema.features, (), task="regression"), ds.X, y), missing="majority")
    else:
        tree = draw(st.sampled_from([id3, c45, cart]))(ds, missing="majority")
    return attrs.evolve(tree, missing=missing), ds.X


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(case=st.one_of(grown(), grown(regression=True)), form=st.sampled_from(FORMS))
@pytest.mark.parametrize("target", TARGETS)
def test_random_trees_compile_to_the_models_answers(target, case, form):
    tree, X = case
    report = verify(tree, X, target, form=form)
    assert report.mismatches == []


HOSTILE = ['"); process.exit(1); ("', "*/ } static { System.exit(1); } /*", "\\u0022 + x + \\u000a", "\\", "a\nb\rc\u2028d",
           "</script>", "${1+1}", "{} {:?}", "é 😀", "\x00nul", "x /* y", "// z"]


@pytest.mark.parametrize("target", TARGETS)
def test_hostile_feature_and_class_names_stay_strings(tmp_path, target):
    # Names from a user's file reach the code only inside escaped string literals: the code
    # compiles, answers as the model, and holds each name as it was, byte for byte.
    names = HOSTILE[:6]
    classes = tuple(HOSTILE[6:])
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, len(names)))
    y = [classes[int(k)] for k in rng.integers(0, len(classes), size=80)]
    ds = Dataset(Schema(tuple(Feature(n) for n in names), classes), X, np.array([classes.index(c) for c in y]))
    tree = cart(ds)
    assert verify(tree, X, target, form="table").mismatches == []
    files = generate(tree, target, name="Hostile" if target == "java" else "hostile")
    for filename, text in files.items():
        (tmp_path / filename).write_text(text, encoding="utf-8")
    assert text.isascii()
    assert _names_in(tmp_path, target) == [list(names), list(classes)]


def _names_in(folder, target):
    """The feature names and class labels the compiled code holds, read by running it."""
    if target == "javascript":
        script = "const m = require(process.argv[1]); process.stdout.write(JSON.stringify([m.FEATURES, m.CLASSES]));"
        out = subprocess.run(["node", "-e", script, str(folder / "hostile.js")], capture_output=True, text=True, check=True).stdout
        return json.loads(out)
    if target == "java":
        (folder / "Names.java").write_text("""public class Names {
    static String hex(String[] a) { StringBuilder b = new StringBuilder(); for (String s : a) { for (byte x : s.getBytes(java.nio.charset.StandardCharsets.UTF_8)) b.append(String.format("%02x", x)); b.append(','); } return b.toString(); }
    public static void main(String[] args) { System.out.println(hex(Hostile.features())); System.out.println(hex(Hostile.classes())); }
}
""")
        subprocess.run(["javac", "-encoding", "UTF-8", "-d", "classes", "Hostile.java", "Names.java"], cwd=folder, check=True)
        out = subprocess.run(["java", "-cp", str(folder / "classes"), "Names"], capture_output=True, text=True, check=True).stdout
    else:
        (folder / "names.rs").write_text("""mod hostile { include!("hostile.rs"); }
fn hex(a: &[&str]) -> String { a.iter().map(|s| s.bytes().map(|b| format!("{:02x}", b)).collect::<String>() + ",").collect() }
fn main() { println!("{}", hex(&hostile::FEATURES)); println!("{}", hex(&hostile::CLASSES)); }
""")
        subprocess.run(["rustc", "--edition", "2018", "names.rs", "-o", "names"], cwd=folder, check=True, capture_output=True)
        out = subprocess.run([str(folder / "names")], capture_output=True, text=True, check=True).stdout
    return [[bytes.fromhex(h).decode("utf-8") for h in line.split(",")[:-1]] for line in out.splitlines()]


@pytest.mark.parametrize("target,reserved", [("java", "class"), ("java", "java"), ("rust", "fn"), ("rust", "match")])
def test_a_keyword_is_refused_as_the_name(target, reserved):
    tree, _ = MODELS["iris"]
    with pytest.raises(CodegenError, match=f"invalid name '{reserved}'"):
        generate(tree, target, name=reserved)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("form", FORMS)
def test_distributed_missing_values_are_summed_as_the_model_sums_them(target, form):
    # C4.5's strategy: a missing value goes down every branch, weighted by the training
    # fractions; the sums are formed level by level in the library's order, so they are equal.
    Xd, yd = load_diabetes(return_X_y=True)
    rng = np.random.default_rng(3)
    holes = np.where(rng.random(Xd.shape) < 0.2, np.nan, Xd)
    regressor = attrs.evolve(cart_regressor(Xd, yd, max_depth=6), missing="distribute")
    forest = bagging(Xd[:200], yd[:200] > 140, n_trees=3, seed=0, max_depth=5, missing="distribute")
    for model in (c45(load_temperature()), regressor, forest):
        X = holes if model is regressor else (holes[:200] if model is forest else load_temperature())
        report = verify(model, X, target, form=form)
        assert report.mismatches == [] and report.n_checked >= 10


@pytest.mark.parametrize("target", TARGETS)
def test_what_the_targets_do_not_write_is_refused_clearly(target):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(CodegenError, match="feature type 'float' is for C"):
        generate(cart(X, y), target, feature_type="float")


def test_the_auto_form_of_java_is_the_table_past_its_method_limit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6000, 4))
    y = rng.integers(0, 2, size=6000)
    big = cart(X, y)
    assert int((flatten(big).kind != 0).sum()) > 1500
    assert '"form": "table"' in generate(big, "java")["tree.java"].splitlines()[0]
    assert '"form": "nested"' in generate(MODELS["iris"][0], "java")["tree.java"].splitlines()[0]
    assert verify(big, X[:200], "java").mismatches == []


def test_to_functions_are_generate(tmp_path):
    tree, _ = MODELS["iris"]
    assert pt.to_javascript(tree) == generate(tree, "javascript")
    assert pt.to_java(tree, name="Iris") == generate(tree, "java", name="Iris")
    assert pt.to_rust(tree, form="table") == generate(tree, "rust", form="table")
    forest, _ = MODELS["forest"]
    assert sorted(pt.to_rust(forest)) == ["tree.rs"] + [f"tree_m{i}.rs" for i in range(4)]


@pytest.mark.parametrize("target,files", [("javascript", ["weather.js"]), ("java", ["weather.java"]), ("rust", ["weather.rs"])])
def test_cli_export_and_verify(tmp_path, capsys, target, files):
    from puretree.datasets import path

    model = tmp_path / "model.json"
    save(c45(load_temperature()), model)  # C4.5's strategy: a missing value is distributed
    out = tmp_path / "out"
    assert main(["export", str(model), "--target", target, "--name", "weather", "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == files
    assert main(["verify", str(model), str(path("temperature")), "--target", target]) == 0
    assert capsys.readouterr().out.strip().endswith(": 0 mismatches")
    assert main(["verify", str(model), str(path("temperature")), "--code", str(out)]) == 0
    assert capsys.readouterr().out.strip().endswith(": 0 mismatches")


def test_the_toolchains_are_the_listed_debian_packages():
    # .ci/system-deps lists what these tests run: node, javac and java, rustc.
    deps = (__import__("pathlib").Path(__file__).resolve().parent.parent / ".ci" / "system-deps").read_text()
    for package, program in (("nodejs", "node"), ("default-jdk-headless", "javac"), ("rustc", "rustc")):
        assert f'"{package}:' in deps
        assert shutil.which(program), f"{program} ({package}) is needed"
