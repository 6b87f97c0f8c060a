"""C for microcontrollers: C++ callers, fixed point, the compact table, the resource report
and the Arduino layout.

Every generated header is included from C++ (g++) and linked against the C object. The
fixed-point (quantized) code is exact with respect to puretree's own quantization: the
integer tree against :func:`quantized_tree` on quantized rows, ``NAME_quantize`` against
:func:`quantize`, value for value; the quantization may change a prediction only for a value
that shares its integer with a threshold. The compact table decides exactly as the model.
The tables the report counts are the arrays the compiler emits, byte for byte.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puretree.cli import main
from puretree.codegen.literals import float32_floor
from puretree.codegen.lower import QUANTIZED_MAX, feature_ranges, lower, quantization, quantize, quantized_range, quantized_tree, resources, tree_quantization
from puretree.codegen.render import export, generate
from puretree.codegen.verify import verify, verify_code
from puretree.cli.commands.codegen import arduino_files
from puretree.data import Dataset
from puretree.datasets import load_buys_computer, load_playtennis, load_temperature, path
from puretree.errors import CodegenError
from puretree.grow import c45, cart, cart_regressor
from puretree.io import save
from puretree.nodes import Feature, Leaf, NumericSplit, Schema
from puretree.tree import Tree
from puretree.strategies import datasets

MISSING = ("majority", "distribute", "error")


@st.composite
def numeric_trees(draw, *, regression=False, missing=MISSING):
    """A tree learned from random numeric data (edge floats, NaN cells), its rows and ranges."""
    ds = draw(datasets(min_rows=3, max_rows=30, max_features=3, max_classes=3, kinds=("numeric",), missing=draw(st.sampled_from([False, 0.1]))))
    strategy = draw(st.sampled_from(missing))
    grow_missing = "majority" if strategy == "error" else strategy
    if regression:
        y = np.array(draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=ds.n_rows, max_size=ds.n_rows)))
        tree = cart_regressor(Dataset(Schema(ds.schema.features, (), task="regression"), ds.X, y), missing=grow_missing)
    else:
        tree = cart(ds, missing=grow_missing)
    return attrs.evolve(tree, missing=strategy), ds.X


def _float32_ranges(X):
    """The training ranges of ``X`` clipped to float32 (its edge values may lie beyond)."""
    top = float(np.finfo(np.float32).max)
    return [(min(max(lo, -top), top), min(max(hi, -top), top)) for lo, hi in feature_ranges(X)]


# -- C++ ----------------------------------------------------------------------------------------

CPP = """#include <cstdio>
#include "{name}.h"
int main() {{
    static const {ctype} x[{big}_N_FEATURES] = {{ {values} }};
    std::printf("{fmt}\\n", {name}_predict(x));
    return 0;
}}
"""


@pytest.mark.parametrize("target", ["c", "c-table"])
@pytest.mark.parametrize("regression", [False, True])
def test_a_cpp_file_includes_the_header_and_links_the_c_object(tmp_path, target, regression):
    data = load_temperature()
    if regression:
        y = np.nan_to_num(data.X[:, 0]) * 0.5 + np.arange(data.n_rows) % 3
        data = Dataset(Schema(data.schema.features, (), task="regression"), data.X, y)
        tree = cart_regressor(data)
    else:
        tree = c45(data)
    files = generate(tree, target, name="tcpp")
    for filename, text in files.items():
        (tmp_path / filename).write_text(text)
    assert 'extern "C" {' in files["tcpp.h"]
    row = np.nan_to_num(data.X[1])
    values = ", ".join(float(v).hex() for v in row)
    (tmp_path / "main.cpp").write_text(CPP.format(name="tcpp", big="TCPP", ctype="double", values=values, fmt="%a" if regression else "%d"))
    for cmd in (["gcc", "-std=c99", "-Wall", "-Werror", "-c", "tcpp.c", "-o", "tcpp.o"],
                ["g++", "-std=c++17", "-Wall", "-Werror", "-c", "main.cpp", "-o", "main.o"],
                ["g++", "main.o", "tcpp.o", "-o", "main", "-lm"]):
        done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    out = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True, check=True).stdout.strip()
    want = tree.predict(row[None, :])
    if regression:
        assert float.fromhex(out) == float(want[0])
    else:
        assert tree.schema.classes[int(out)] == want[0]


# -- fixed point ------------------------------------------------------------------------------


@settings(max_examples=200)
@given(values=st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=1, max_size=40),
       lo=st.floats(-1e6, 1e6), width=st.floats(0, 1e6), ftype=st.sampled_from(["int16", "int32"]))
def test_quantization_is_monotone_bounded_and_keeps_missing_free(values, lo, width, ftype):
    offset, scale = quantization(Schema((Feature("x"),)), [(lo, lo + width)], ftype)
    x = np.array(sorted(values, key=lambda v: (np.isnan(v), v)), dtype=np.float64)[:, None]
    q = quantize(x, offset, scale, ftype)[:, 0]
    present = ~np.isnan(x[:, 0])
    assert np.isnan(q[~present]).all()
    assert (np.diff(q[present]) >= 0).all()  # monotone: order is kept
    top = {"int16": 2**15 - 1, "int32": 2**31 - 1}[ftype]
    assert (np.abs(q[present]) <= top).all()  # the type's minimum stays the missing value
    # the training range covers the integer range, up to rounding
    ends = quantize(np.array([[lo], [lo + width]]), offset, scale, ftype)[:, 0]
    low, high = quantized_range(ftype)
    # float32 arithmetic: (x - offset) is rounded to 24 bits of the larger of |x| and |offset|
    slack = 2 + QUANTIZED_MAX[ftype] * 2.0**-21 * (2 + max(abs(lo), abs(lo + width)) / max(width, 1e-300))
    if width > max(1e-30, abs(lo) * 1e-5):  # a range float32 can tell apart
        assert ends[0] <= low + slack and ends[1] >= high - slack


@settings(max_examples=100)
@given(t=st.floats(-1e3, 1e3), xs=st.lists(st.floats(-2e3, 2e3, width=32), min_size=1, max_size=30),
       lo=st.floats(-1e3, 0), width=st.floats(1e-3, 2e3), ftype=st.sampled_from(["int16", "int32"]))
def test_a_quantized_threshold_sends_left_every_value_the_model_sends_left(t, xs, lo, width, ftype):
    # x <= t (the model) implies q(x) <= T (the integer tree); a value the model sends right
    # goes left only when it shares its integer with the threshold's largest float32 below.
    schema = Schema((Feature("x"),), ("a", "b"))
    tree = Tree(NumericSplit(0, t, Leaf((1, 0)), Leaf((0, 1)), (1, 1)), schema)
    offset, scale = tree_quantization(tree, [(lo, lo + width)], ftype)
    T = quantized_tree(tree, offset, scale, ftype).root.test.value
    x = np.array(xs, dtype=np.float64)[:, None]
    q = quantize(x, offset, scale, ftype)[:, 0]
    qt = quantize(np.array([[float(float32_floor(t))]]), offset, scale, ftype)[0, 0]
    for value, qv in zip(xs, q.tolist()):
        if value <= t:
            assert qv <= T
        elif qv <= T:
            assert qv == qt == T


@settings(max_examples=12, deadline=None)
@given(case=numeric_trees(), target=st.sampled_from(["c", "c-table"]), ftype=st.sampled_from(["int16", "int32"]))
def test_quantized_code_is_exact_against_the_librarys_quantization(case, target, ftype):
    tree, X = case
    # Exactness, not faithfulness: any number of rows may change (max_changed); ranges are
    # clipped to float32, as the quantizer refuses wider ones.
    report = verify(tree, X, target, feature_type=ftype, quantize=_float32_ranges(X), max_changed="100%")
    assert report.ok, (report.mismatches[:3], report.quantize_mismatches[:3])
    assert report.n_quantized > 0 and report.changed_by_quantization is not None


@settings(max_examples=6, deadline=None)
@given(case=numeric_trees(regression=True), ftype=st.sampled_from(["int16", "int32"]))
def test_quantized_regression_code_is_exact(case, ftype):
    tree, X = case
    assert verify(tree, X, "c-table", feature_type=ftype, quantize=_float32_ranges(X), max_changed="100%").ok


@pytest.mark.parametrize("missing", MISSING)
def test_quantized_categorical_trees_pass_codes_unchanged(missing):
    data = load_buys_computer()
    tree = c45(data, missing="majority" if missing == "error" else missing)
    tree = attrs.evolve(tree, missing=missing)
    ranges = feature_ranges(data.X)
    for target in ("c", "c-table"):
        report = verify(tree, data, target, feature_type="int16", quantize=ranges)
        assert report.ok and report.changed_by_quantization == 0


def _half_tree():
    schema = Schema((Feature("x"),), ("a", "b"))
    return Tree(NumericSplit(0, 0.5, Leaf((3, 0)), Leaf((0, 2)), (3, 2)), schema)


def test_the_report_counts_rows_the_quantization_changes():
    tree = _half_tree()
    above = float(np.nextafter(np.float32(0.5), np.float32(1)))  # right of the threshold, same integer
    X = np.array([[0.0], [0.25], [above], [1.0]])
    report = verify(tree, X, "c-table", feature_type="int16", quantize=[(0.0, 1.0)], max_changed=1)
    assert report.ok and report.changed_by_quantization == 1
    # By default no row may change: the code is exact, the quantization is not faithful.
    strict = verify(tree, X, "c-table", feature_type="int16", quantize=[(0.0, 1.0)])
    assert not strict.ok and strict.too_many_changed and strict.mismatches == [] and strict.n_quantize_mismatches == 0


def test_the_quantizer_checks_have_teeth(tmp_path):
    tree = _half_tree()
    export(tree, "c-table", out_dir=tmp_path, name="half", feature_type="int16", quantize=[(0.0, 1.0)])
    source = (tmp_path / "half.c").read_text()
    edited = re.sub(r"\{ 0\.5f, 65534\.0f \}", "{ 0.5f, 65533.0f }", source)
    assert edited != source
    (tmp_path / "half.c").write_text(edited)
    _, report = verify_code(tree, np.array([[0.3], [0.9]]), tmp_path)
    assert not report.ok and report.n_quantize_mismatches > 0 and report.mismatches == []


def test_quantize_needs_an_integer_type_and_one_finite_range_per_feature():
    tree = _half_tree()
    with pytest.raises(CodegenError, match="int16 or int32"):
        generate(tree, "c-table", feature_type="float", quantize=[(0.0, 1.0)])
    with pytest.raises(CodegenError, match="one \\(low, high\\) range per feature"):
        generate(tree, "c-table", feature_type="int16", quantize=[(0.0, 1.0), (0.0, 1.0)])
    with pytest.raises(CodegenError, match="feature 'x' must be finite"):
        generate(tree, "c-table", feature_type="int16", quantize=[(0.0, float("inf"))])
    with pytest.raises(CodegenError, match="for C targets"):
        generate(tree, "python", quantize=[(0.0, 1.0)])


def test_the_quantizer_is_stored_for_the_features_the_tree_reads_only():
    schema = Schema((Feature("unused"), Feature("x")), ("a", "b"))
    tree = Tree(NumericSplit(1, 0.5, Leaf((3, 0)), Leaf((0, 2)), (3, 2)), schema)
    source = generate(tree, "c-table", name="t", feature_type="int16", quantize=[(0.0, 1.0), (0.0, 1.0)])["t.c"]
    assert re.search(r"t_quantized\[1\] = \{\s*1u\s*\}", source)
    assert "t_offset_scale[1][2]" in source


# -- the compact table ----------------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(case=numeric_trees(missing=("majority", "error")), ftype=st.sampled_from(["double", "float", "int16", "int32"]), proba=st.booleans())
def test_the_compact_table_is_exact(case, ftype, proba):
    tree, X = case
    assert verify(tree, X, "c-table", feature_type=ftype, form="compact", proba=proba).mismatches == []


@settings(max_examples=8, deadline=None)
@given(case=numeric_trees(regression=True, missing=("majority", "error")), ftype=st.sampled_from(["double", "float", "int16"]))
def test_the_compact_table_is_exact_for_regression(case, ftype):
    tree, X = case
    assert verify(tree, X, "c-table", feature_type=ftype, form="compact").mismatches == []


def test_the_compact_table_stores_one_reference_per_node_and_no_left_child():
    schema = Schema((Feature("x"),), ("a", "b"))
    node = Leaf((0, 1))
    for i in range(300):  # a chain: a leaf left of every split, the rest right
        node = NumericSplit(0, float(300 - i), Leaf((1, 0)) if i % 2 else Leaf((2, 1)), node, (i + 3, 2))
    tree = Tree(node, schema)
    table = generate(tree, "c-table", form="table")["tree.c"]
    compact = generate(tree, "c-table", form="compact")["tree.c"]
    assert "tree_left" in table and "tree_left" not in compact and "tree_ref[300]" in compact
    assert "static const uint8_t tree_ref" in compact  # leaves folded in: references stay small
    assert verify(tree, np.arange(0, 302, 3, dtype=float)[:, None], "c-table", form="compact").ok


def test_the_compact_table_refuses_what_it_cannot_hold():
    with pytest.raises(CodegenError, match="categorical"):
        generate(c45(load_playtennis()), "c-table", form="compact")
    with pytest.raises(CodegenError, match="distributes"):
        generate(c45(load_temperature(), missing="distribute"), "c-table", form="compact")
    with pytest.raises(CodegenError, match="C code"):
        generate(c45(load_temperature()), "python", form="compact")


# -- the report -----------------------------------------------------------------------------------


def _object_sizes(source: str, name: str, work: Path) -> dict[str, int]:
    """Sizes of the static arrays in the compiled object (nm -S), by array name."""
    for filename, text in source.items():
        (work / filename).write_text(text)
    subprocess.run(["gcc", "-std=c99", "-O0", "-c", f"{name}.c", "-o", f"{name}.o"], cwd=work, check=True, capture_output=True)
    nm = subprocess.run(["nm", "-S", f"{name}.o"], cwd=work, check=True, capture_output=True, text=True).stdout
    sizes = {}
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "rRdD" and parts[3].startswith(name + "_"):
            sizes[parts[3][len(name) + 1:]] = int(parts[1], 16)
    return sizes


@pytest.mark.parametrize("options", [
    {"target": "c-table", "form": "compact", "feature_type": "int16", "proba": False},
    {"target": "c-table", "form": "compact", "feature_type": "float"},
    {"target": "c-table", "form": "compact", "feature_type": "int16", "quantize": "ranges"},
    {"target": "c-table", "form": "table", "feature_type": "double"},
    {"target": "c-table", "form": "table", "feature_type": "int32", "missing": "distribute"},
    {"target": "c", "feature_type": "float", "missing": "distribute"},
])
def test_the_report_counts_the_tables_the_compiler_emits(tmp_path, options):
    options = dict(options)
    data = load_temperature()
    tree = cart(data, missing=options.pop("missing", "majority"))
    target = options.pop("target")
    if options.get("quantize"):
        options["quantize"] = feature_ranges(data.X)
    model = lower(tree, target, {"name": "rep", **options})
    source = generate(tree, target, name="rep", **options)
    emitted = _object_sizes(source, "rep", tmp_path)
    tables = resources(model)["tables"]
    names = {k: v for k, v in emitted.items() if not k.endswith("names") and not k.startswith(("category_names", "long_name"))}
    assert tables == names


def test_export_report_prints_flash_ram_and_comparisons(tmp_path, capsys):
    model = tmp_path / "m.json"
    tree = cart(load_temperature())
    save(tree, model)
    assert main(["export", str(model), "--target", "c-table", "--form", "compact", "--report", "-o", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    depth = resources(lower(tree, "c-table", {"form": "compact"}))
    assert f"flash, tables: {depth['flash_tables']} B" in out
    assert "RAM: 0 B static" in out
    assert f"comparisons: at most {depth['comparisons']} split tests per prediction" in out


def test_export_report_of_a_forest_counts_each_members_tables(tmp_path, capsys):
    # An ensemble's --report raised AttributeError (exit 70) after writing its files: it now
    # sums the members' tables, as the compiler emits them, and states the header's worst cases.
    from puretree.codegen.ensemble import generate as generate_any
    from puretree.ensemble import random_forest

    data = load_temperature()
    forest = random_forest(data, n_trees=3, max_features=None, seed=1)
    model = tmp_path / "m.json"
    save(forest, model)
    assert main(["export", str(model), "--target", "c-table", "--report", "--no-measure", "-o", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    files = generate_any(forest, "c-table", name="tree")
    (tmp_path / "cc").mkdir()
    emitted = sum(size for i in range(3) for k, size in _object_sizes(files, f"tree_m{i}", tmp_path / "cc").items()
                  if not k.endswith("names") and not k.startswith(("category_names", "long_name")))
    assert f"members: 3; flash, tables: {emitted} B over the members" in out
    stack = re.search(r"#define TREE_MAX_STACK_BYTES (\d+)u", files["tree.h"]).group(1)
    comparisons = re.search(r"#define TREE_MAX_COMPARISONS (\d+)u", files["tree.h"]).group(1)
    assert f"about {stack} B of stack" in out and f"at most {comparisons} split tests per prediction over all members" in out
    shared = tmp_path / "shared"
    assert main(["export", str(model), "--target", "c-table", "--form", "shared", "--report", "--no-measure", "-o", str(shared)]) != 0
    assert "--form shared" in capsys.readouterr().err and not shared.exists()


# -- the command line -----------------------------------------------------------------------------


def test_cli_quantize_export_and_verify(tmp_path, capsys):
    model = tmp_path / "m.json"
    save(c45(load_temperature()), model)
    data = str(path("temperature"))
    out = tmp_path / "out"
    assert main(["export", str(model), "--target", "c-table", "--feature-type", "int16", "--quantize", "--ranges-from", data, "-o", str(out)]) == 0
    assert "void tree_quantize(const float *x, int16_t *q);" in (out / "tree.h").read_text()
    capsys.readouterr()
    assert main(["verify", str(model), "--code", str(out), data]) == 0
    text = capsys.readouterr().out
    assert re.search(r"tree_quantize: checked \d+ values against puretree's quantization: 0 mismatches", text)
    assert re.search(r"quantization changes the prediction of \d+ of the \d+ rows", text)
    assert main(["verify", str(model), "--target", "c", "--feature-type", "int32", "--quantize", "--ranges-from", data, data]) == 0


def test_cli_quantize_without_ranges_or_integer_type_is_a_usage_error(tmp_path, capsys):
    model = tmp_path / "m.json"
    save(c45(load_temperature()), model)
    assert main(["export", str(model), "--target", "c", "--quantize", "-o", str(tmp_path / "o")]) == 2
    assert "int16 or int32" in capsys.readouterr().err
    assert main(["export", str(model), "--target", "c", "--feature-type", "int16", "--quantize", "-o", str(tmp_path / "o")]) == 2
    assert "--ranges-from" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


# -- Arduino ----------------------------------------------------------------------------------------

ARDUINO_H = """#pragma once
#include <stdint.h>
#include <stdio.h>
struct StandInSerial {
    void begin(unsigned long) {}
    void println(const char *s) { printf("%s\\n", s); }
    void println(double v) { printf("%a\\n", v); }
};
extern StandInSerial Serial;
void delay(unsigned long);
"""
ARDUINO_MAIN = """#include <Arduino.h>
StandInSerial Serial;
void delay(unsigned long) {}
void setup();
void loop();
int main() { setup(); loop(); return 0; }
"""


@pytest.mark.parametrize("options", [{}, {"feature_type": "int16", "form": "compact", "quantize": "ranges"}, {"feature_type": "float", "proba": False}])
def test_the_arduino_layout_builds_with_a_cpp_sketch(tmp_path, options):
    data = load_temperature()
    tree = cart(data)
    options = dict(options)
    if options.get("quantize"):
        options["quantize"] = feature_ranges(data.X)
    files = arduino_files(tree, "c-table", name="weather", **options)
    assert sorted(files) == ["examples/weather_example/weather_example.ino", "library.properties", "src/weather.c", "src/weather.h"]
    assert "name=weather" in files["library.properties"] and "includes=weather.h" in files["library.properties"]
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / "stub").mkdir()
    (tmp_path / "stub" / "Arduino.h").write_text(ARDUINO_H)
    (tmp_path / "stub" / "main.cpp").write_text(ARDUINO_MAIN)
    sketch = tmp_path / "sketch.cpp"  # the Arduino IDE adds the include and compiles the .ino as C++
    sketch.write_text("#include <Arduino.h>\n" + files["examples/weather_example/weather_example.ino"])
    steps = [
        ["gcc", "-std=c99", "-Wall", "-Werror", "-c", "src/weather.c", "-o", "weather.o"],
        ["g++", "-Wall", "-Werror", "-Istub", "-Isrc", "-c", "sketch.cpp", "-o", "sketch.o"],
        ["g++", "-Istub", "-c", "stub/main.cpp", "-o", "main.o"],
        ["g++", "sketch.o", "main.o", "weather.o", "-o", "sketch", "-lm"],
    ]
    for cmd in steps:
        done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0, (cmd, done.stderr)
    printed = subprocess.run([str(tmp_path / "sketch")], capture_output=True, text=True, check=True).stdout.strip()
    assert printed in [str(c) for c in tree.schema.classes]


def test_cli_arduino_layout_replaces_only_its_own_folder(tmp_path, capsys):
    model = tmp_path / "m.json"
    save(c45(load_temperature()), model)
    out = tmp_path / "lib"
    for _ in range(2):  # a second export replaces the first
        assert main(["export", str(model), "--target", "c-table", "--layout", "arduino", "-o", str(out)]) == 0
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == ["examples/tree_example/tree_example.ino", "library.properties", "src/tree.c", "src/tree.h"]
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    assert main(["export", str(model), "--target", "c-table", "--layout", "arduino", "-o", str(other)]) == 1
    assert "not an Arduino library exported by puretree" in capsys.readouterr().err
    assert (other / "notes.txt").read_text() == "keep me"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
