"""Names are data, never code: hostile feature names, category values and class labels in
every target produce code that compiles, keeps the names only inside escaped string literals,
and runs nothing injected."""

import ast
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import attrs
import numpy as np
import pytest

from puretree.codegen.literals import c_string, identifiers, py_string
from puretree.codegen.render import generate
from puretree.codegen.verify import load_python, verify
from puretree.data import from_rows
from puretree.errors import CodegenError
from puretree.grow import c45, cart

HOSTILE = [
    'quote"inside',
    "back\\slash\\",
    "new\nline",
    "*/ int injected = 1; /*",
    "??/",
    "nul\x00byte",
    "naïve Température",
    "1st",
    "int",
    "class",
    "x y",
    "x_y",
    '"); system("echo PWNED"); ("',
    "\nprint('PWNED')\n#",
    "#include <stdio.h>",
    "'''",
    "\\u0022\\x22",
    "`${PWNED}`",
    "// PWNED",
]
EXAMPLE_TARGET = Path(__file__).resolve().parent.parent / "examples" / "javascript_target"


def hostile_data():
    rng = np.random.default_rng(3)
    numeric, categorical = HOSTILE[:10], HOSTILE[10:15]
    values = HOSTILE[12:]
    rows = []
    for _ in range(60):
        row = {name: float(rng.integers(0, 5)) for name in numeric}
        row.update({name: values[rng.integers(0, len(values))] for name in categorical})
        rows.append(row)
    labels = [HOSTILE[int(rng.integers(12, 19))] for _ in rows]
    return from_rows(rows, labels, categorical=categorical)


def strip_c(source):
    """C source without its string literals and comments: what the compiler sees as code."""
    return re.sub(r'"(?:[^"\\\n]|\\.)*"|/\*.*?\*/', " ", source, flags=re.S)


def c_unescape(literal):
    body = literal[1:-1]
    out = bytearray()
    i = 0
    simple = {"n": 10, "r": 13, "t": 9, "\\": 92, '"': 34, "?": 63}
    while i < len(body):
        if body[i] == "\\":
            if body[i + 1] in simple:
                out.append(simple[body[i + 1]])
                i += 2
            else:
                out.append(int(body[i + 1: i + 4], 8))
                i += 4
        else:
            out.append(ord(body[i]))
            i += 1
    return out.decode("utf-8")


@pytest.fixture(scope="module")
def trees():
    data = hostile_data()
    return data, [c45(data), cart(data, missing="distribute")]


@pytest.mark.parametrize("target", ["c", "c-table"])
def test_c_with_hostile_names_compiles_runs_exactly_and_injects_nothing(trees, target):
    data, models = trees
    for tree in models:
        files = generate(tree, target, feature_type="float")
        for text in files.values():
            code = strip_c(text)
            tokens = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code))
            assert not tokens & {"PWNED", "injected", "system", "print", "printf", "stdio"}
            for fragment in ("??/", "\x00", "*/ int", "\\"):
                assert fragment not in code
            called = set(re.findall(r"([A-Za-z_]\w*)\s*\(", code))
            assert called <= {"isnan", "tree_code", "tree_walk", "tree_spread", "tree_add", "tree_argmax", "tree_predict", "tree_predict_proba", "if", "for", "void"}, called
            directives = [line.strip() for line in code.splitlines() if line.strip().startswith("#")]
            assert all(re.fullmatch(r'#(include <(stdint|math)\.h>|include\s*|ifndef \w+|ifdef __cplusplus|define \w+( .*)?|endif)', d) for d in directives), directives
            assert text.isascii()
        # The names survive, byte for byte, inside the string tables.
        literals = re.findall(r'"(?:[^"\\\n]|\\.)*"', files["tree.c"])
        decoded = {c_unescape(lit) for lit in literals}
        assert set(tree.schema.feature_names) <= decoded
        assert {str(c) for c in tree.schema.classes} <= decoded
        assert verify(tree, data, target, feature_type="float").mismatches == []


@pytest.mark.parametrize("form", ["nested", "table"])
def test_python_with_hostile_names_imports_runs_exactly_and_injects_nothing(trees, form, capfd):
    data, models = trees
    for tree in models:
        source = generate(tree, "python", form=form)["tree.py"]
        assert source.isascii()
        names = {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}
        calls = {n.func.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert not names & {"system", "PWNED", "print", "exec", "eval", "__import__", "open"}
        assert calls <= {"float", "frozenset", "ValueError", "isinstance", "hasattr", "all", "int", "len", "list", "tuple", "type", "object", "_number", "_category", "_values", "_read", "_walk", "_spread", "_argmax", "range", "predict_proba"}
        module = load_python(source, tempfile.mkdtemp())
        sys.modules.pop(module.__name__, None)
        assert module.FEATURES == tree.schema.feature_names
        assert module.CLASSES == tree.schema.classes
        assert verify(tree, data, "python", form=form).mismatches == []
    assert "PWNED" not in capfd.readouterr().out


def test_javascript_example_target_with_hostile_names(trees, tmp_path):
    data, models = trees
    tree = attrs.evolve(models[0], missing="majority")  # the example handles this strategy only
    files = generate(tree, "javascript", language="javascript", template_dirs=[EXAMPLE_TARGET])
    source = files["tree.js"]
    code = re.sub(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*', " ", source)
    assert "PWNED" not in code and "system" not in code and "`" not in code
    path = tmp_path / "tree.js"
    path.write_text(source, encoding="utf-8")
    row = {name: v for name, v in zip(tree.schema.feature_names, data.X[0].tolist())}
    row.update({f.name: f.categories[int(data.X[0, j])] for j, f in enumerate(tree.schema.features) if not f.is_numeric})
    script = "const t = require(process.argv[1]); console.log(JSON.stringify([t.FEATURES, t.CLASSES, t.predict(JSON.parse(process.argv[2]))]));"
    node = shutil.which("node")
    assert node, "node is needed to run the JavaScript example target"
    done = subprocess.run([node, "-e", script, str(path), json.dumps(row)], capture_output=True, text=True, check=True)
    features, classes, label = json.loads(done.stdout)
    assert done.stdout.count("\n") == 1 and done.stderr == ""  # the one line the script prints, nothing else
    assert features == list(tree.schema.feature_names) and classes == list(tree.schema.classes)
    assert label == tree.predict(row)


def test_literal_escapers_and_identifiers():
    for text in HOSTILE:
        assert ast.literal_eval(py_string(text)) == text
        assert c_unescape(c_string(text)) == text
        assert "*/" not in c_string(text) and "??" not in c_string(text)
    idents = identifiers(HOSTILE, prefix="T")
    assert len(set(idents)) == len(HOSTILE)
    assert all(re.fullmatch(r"T_[A-Za-z0-9_]+", i) and "__" not in i for i in idents)
    assert identifiers(["x y", "x_y", "x-y"]) == ["x_y", "x_y_2", "x_y_3"]


@pytest.mark.parametrize("name", ["2tree", "int", "tree;system", "a__b", "_x", "très", "x" * 40, ""])
def test_invalid_names_are_refused(name):
    data = hostile_data()
    with pytest.raises(CodegenError, match="invalid name"):
        generate(c45(data), "c", name=name)


def test_long_names_give_short_distinct_identifiers():
    long = ["measurement " * 20 + str(k) for k in range(3)]
    rows = [{name: float(i + k) for k, name in enumerate(long)} for i in range(6)]
    data = from_rows(rows, ["a", "b"] * 3)
    tree = cart(data)
    source = generate(tree, "c", name="t")["t.h"]
    idents = re.findall(r"^\s+(T_F_\w+) = \d+,$", source, flags=re.M)
    assert len(idents) == 3 and len(set(idents)) == 3
    assert all(len(i) <= 63 for i in idents)
