"""The worst case in every generated C header (issue 30).

``puretree export`` to C measures on the emulated Cortex-M4 by default whenever the Arm
toolchain and QEMU are found: the header states ``NAME_INSTRUCTIONS_MAX_CORTEX_M4`` and
``NAME_INSTRUCTIONS_MEAN_CORTEX_M4`` (with the core and the rows measured) beside
``NAME_MAX_COMPARISONS`` and the stack, for trees, forests, boosted models, quantized code,
uint8 leaves and the shared form. Without the tools the export still succeeds, warns in one
line and the header says how to get the figures; ``--no-measure`` skips the measurement; the
library's ``generate`` measures only when asked (``measure="cortex-m4"``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from functools import cache

import numpy as np
import pytest

from puretree import cart, ensemble
from puretree.codegen import boosted as boosted_code, ensemble as ensemble_code, generate
from puretree.codegen.lower import feature_ranges, max_comparisons, quantize, quantized_tree, tree_quantization
from puretree.codegen.verify import check_rows
from puretree.errors import CodegenError
from puretree.gradient_boosting import gradient_boosting
from puretree.io import save

GUARD = 600  # seconds: only against a hang
NONE = np.zeros((0, 30))


@cache
def _cancer():
    from sklearn.datasets import load_breast_cancer

    return load_breast_cancer(return_X_y=True)


@cache
def _models():
    X, y = _cancer()
    return {
        "tree": cart(X, y, max_depth=4),
        "forest": ensemble.random_forest(X, y, n_trees=5, max_depth=3, seed=0),
        "boosted": gradient_boosting(X, y, n_estimators=5, max_depth=2),
    }


def _quantized_rows(tree, ftype):
    """The rows verify checks the quantized tree's code on: the quantized tree's boundary rows, integers."""
    offset, scale = tree_quantization(tree, feature_ranges(_cancer()[0]), ftype)
    return check_rows(quantized_tree(tree, offset, scale, ftype), quantize(NONE, offset, scale, ftype), ftype)


# kind: (model, export options, the rows measured, the target)
CASES = {
    "tree": ("tree", [], lambda m: check_rows(m, NONE), "c"),
    "forest": ("forest", [], lambda m: ensemble_code._rows(m, NONE, "double"), "c-table"),
    "boosted": ("boosted", [], lambda m: boosted_code.check_rows(m, NONE), "c"),
    "quantized tree": ("tree", ["--feature-type", "int16", "--quantize", "--ranges-from", "data.csv"], lambda m: _quantized_rows(m, "int16"), "c"),
    "uint8 leaves": ("forest", ["--leaf-type", "uint8"], lambda m: ensemble_code._rows(m, NONE, "double"), "c-table"),
    "shared forest": ("forest", ["--form", "shared", "--feature-type", "float"], lambda m: ensemble_code._rows(m, NONE, "float"), "c-table"),
    "quantized forest": ("forest", ["--feature-type", "int16", "--quantize", "--ranges-from", "data.csv"], lambda m: _quantized_forest_rows(m, "int16"), "c"),
    "shared boosted": ("boosted", ["--form", "shared"], lambda m: boosted_code.check_rows(m, NONE), "c"),
}


def _quantized_forest_rows(forest, ftype):
    q, offset, scale = ensemble_code.quantized_ensemble(forest, feature_ranges(_cancer()[0]), ftype)
    return ensemble_code._rows(q, quantize(NONE, offset, scale, ftype), ftype)


def _export(tmp_path, model, target, *args, path=None):
    save(model, tmp_path / "m.json")
    X = _cancer()[0]
    names = [f.name for f in model.schema.features]
    (tmp_path / "data.csv").write_text(",".join(names) + "\n" + "".join(",".join(repr(float(v)) for v in row) + "\n" for row in X))
    cmd = [sys.executable, "-m", "puretree", "export", "m.json", "--target", target, *args, "-o", "out"]
    env = None if path is None else {**os.environ, "PATH": str(path)}  # PATH without the Arm toolchain and QEMU
    return subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=GUARD, env=env)


def _figures(header, name="TREE"):
    """The measured figures a header states: {define: value} and the rows the comment names."""
    defines = {k: int(v) for k, v in re.findall(rf"^#define {name}_(\w+) (\d+)u$", header, flags=re.M)}
    stated = re.search(r"measured on cortex-m4 \(QEMU -icount, the call's\n \* own overhead subtracted\) over (\d+) rows: at most (\d+), mean (\d+\.\d)", header)
    return defines, stated


@pytest.mark.parametrize("case", list(CASES))
def test_the_command_line_measures_every_c_export_by_default(case, tmp_path):
    kind, args, rows_of, target = CASES[case]
    model = _models()[kind]
    done = _export(tmp_path, model, target, *args)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    header = (tmp_path / "out" / "tree.h").read_text()
    defines, stated = _figures(header)
    most, mean = defines["INSTRUCTIONS_MAX_CORTEX_M4"], defines["INSTRUCTIONS_MEAN_CORTEX_M4"]
    assert stated is not None, header
    n_rows, stated_most, stated_mean = int(stated.group(1)), int(stated.group(2)), float(stated.group(3))
    assert n_rows == len(rows_of(model)) and stated_most == most and round(stated_mean) == mean
    assert most >= mean > 0
    # Every comparison costs an instruction at least, and some row walks each tree's longest path.
    members = [model] if kind == "tree" else list(model.members) if kind == "forest" else [t for stage in model.stages for t in stage]
    assert most >= max(max_comparisons(t) for t in members) and mean >= len(members)
    assert defines["MAX_COMPARISONS"] == sum(max_comparisons(t) for t in members)
    assert defines["STACK_BYTES_CORTEX_M4"] > 0 and "MAX_STACK_BYTES" in defines
    assert "not measured" not in header


def test_quantized_code_is_timed_on_the_quantized_readings():
    # The rows the quantized code is measured on are verify's quantized ones, not the float rows.
    tree = _models()["tree"]
    rows = ensemble_code._measured_rows(tree, NONE, "int16", feature_ranges(_cancer()[0]))
    assert np.array_equal(rows, _quantized_rows(tree, "int16"), equal_nan=True)
    assert not np.array_equal(rows, check_rows(tree, NONE), equal_nan=True)
    readings = rows[~np.isnan(rows)]
    assert np.array_equal(readings, np.round(readings)) and np.abs(readings).max() > 1000  # integers on int16's scale


def test_measuring_changes_only_the_header_comment_and_defines(tmp_path):
    tree = _models()["tree"]
    plain = generate(tree, "c")
    measured = generate(tree, "c", measure="cortex-m4")
    assert measured["tree.c"] == plain["tree.c"]
    block = re.search(r"/\*\n \* Stack measured on cortex-m4.*?#define TREE_INSTRUCTIONS_MEAN_CORTEX_M4 \d+u\n", measured["tree.h"], flags=re.S)
    note = re.search(r"/\*\n \* Instructions per call of tree_predict: not measured.*?\*/\n", plain["tree.h"], flags=re.S)
    assert block is not None and note is not None
    assert measured["tree.h"].replace(block.group(0), "") == plain["tree.h"].replace(note.group(0), "")


@pytest.mark.parametrize("kind", ["tree", "forest", "boosted"])
def test_the_library_states_how_to_measure_without_measuring(kind):
    header = generate(_models()[kind], "c")["tree.h"]
    assert "Instructions per call of tree_predict: not measured" in header
    assert 'measure="cortex-m4"' in header and "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm" in header
    assert not re.search(r"^#define TREE_INSTRUCTIONS", header, flags=re.M)
    # The note sits right after the comparisons, where the measured figures go.
    assert re.search(r"#define TREE_MAX_COMPARISONS \d+u\n/\*\n \* Instructions per call of tree_predict: not measured", header)


def test_measure_is_for_c_and_known_cores():
    tree = _models()["tree"]
    with pytest.raises(CodegenError, match="measured for C"):
        generate(tree, "python", measure="cortex-m4")
    with pytest.raises(CodegenError, match="unknown core"):
        generate(tree, "c", measure="cortex-m9")


def test_without_the_tools_the_export_warns_once_and_the_header_says_how(tmp_path):
    model = _models()["forest"]
    empty = tmp_path / "bin"
    empty.mkdir()
    done = _export(tmp_path, model, "c", path=empty)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("\n") == 1 and "warning" in done.stderr and "Traceback" not in done.stderr
    assert "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm" in done.stderr
    header = (tmp_path / "out" / "tree.h").read_text()
    assert "Instructions per call of tree_predict: not measured" in header and "apt-get install gcc-arm-none-eabi" in header
    assert "TREE_STACK_BYTES_CORTEX_M4" not in header
    assert header == generate(model, "c")["tree.h"]  # the library's unmeasured header
    # Asked for by name, the measurement is not optional: one line naming the packages, exit 1.
    done = _export(tmp_path, model, "c", "--measure-on", "cortex-m4", path=empty)
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "qemu-system-arm" in done.stderr and "Traceback" not in done.stderr


def test_no_measure_skips_the_measurement(tmp_path):
    model = _models()["tree"]
    empty = tmp_path / "bin"
    empty.mkdir()
    # Without the tools and with --no-measure: nothing to warn about.
    done = _export(tmp_path, model, "c", "--no-measure", path=empty)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert (tmp_path / "out" / "tree.h").read_text() == generate(model, "c")["tree.h"]
    done = _export(tmp_path, model, "c", "--no-measure")
    assert done.returncode == 0 and done.stderr == ""
    assert not re.search(r"^#define TREE_INSTRUCTIONS", (tmp_path / "out" / "tree.h").read_text(), flags=re.M)
    done = _export(tmp_path, model, "c", "--no-measure", "--measure-on", "cortex-m4")
    assert done.returncode != 0 and done.stderr.count("\n") == 1 and "--no-measure" in done.stderr


def test_measure_on_chooses_the_core_and_stack_on_is_its_alias(tmp_path):
    model = _models()["tree"]
    for flag in ("--measure-on", "--stack-on"):
        done = _export(tmp_path, model, "c", flag, "cortex-m3")
        assert done.returncode == 0, done.stderr
        header = (tmp_path / "out" / "tree.h").read_text()
        assert "#define TREE_INSTRUCTIONS_MAX_CORTEX_M3 " in header and "#define TREE_INSTRUCTIONS_MEAN_CORTEX_M3 " in header
        assert "CORTEX_M4 " not in header


def test_python_exports_are_not_measured(tmp_path):
    done = _export(tmp_path, _models()["tree"], "python")
    assert done.returncode == 0 and done.stderr == ""
    assert "not measured" not in (tmp_path / "out" / "tree.py").read_text()


def test_the_arduino_library_is_measured_too(tmp_path):
    done = _export(tmp_path, _models()["tree"], "c", "--layout", "arduino", "--selftest")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    header = (tmp_path / "out" / "src" / "tree.h").read_text()
    defines, stated = _figures(header)
    assert defines["INSTRUCTIONS_MAX_CORTEX_M4"] >= defines["INSTRUCTIONS_MEAN_CORTEX_M4"] > 0 and stated is not None
    assert "int tree_selftest(void);" in header


def test_a_failed_default_measurement_warns_and_writes_the_unmeasured_header(tmp_path):
    # The toolchain is there but the emulator fails: the default measurement gives way (one
    # warning line naming the failure); a core asked for by name does not (one line, exit 1).
    import shutil

    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "arm-none-eabi-gcc").symlink_to(shutil.which("arm-none-eabi-gcc"))
    qemu = bin_ / "qemu-system-arm"
    qemu.write_text("#!/bin/sh\necho 'no board today' >&2\nexit 3\n")
    qemu.chmod(0o755)
    model = _models()["tree"]
    done = _export(tmp_path, model, "c", path=bin_)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("\n") == 1 and "not measured on cortex-m4" in done.stderr and "no board today" in done.stderr
    assert (tmp_path / "out" / "tree.h").read_text() == generate(model, "c")["tree.h"]
    done = _export(tmp_path, model, "c", "--measure-on", "cortex-m4", path=bin_)
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "no board today" in done.stderr


def test_templates_of_ones_own_are_measured_only_when_asked(tmp_path):
    # A user's C templates may state no NAME_MAX_COMPARISONS: no default measurement for them.
    (tmp_path / "tpl").mkdir()
    model = _models()["tree"]
    done = _export(tmp_path, model, "c", "--template-dir", "tpl")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert (tmp_path / "out" / "tree.h").read_text() == generate(model, "c")["tree.h"]
    done = _export(tmp_path, model, "c", "--template-dir", "tpl", "--measure-on", "cortex-m4")
    assert done.returncode == 0 and "#define TREE_INSTRUCTIONS_MAX_CORTEX_M4 " in (tmp_path / "out" / "tree.h").read_text()
