"""The self-test generated code carries (``export --selftest``): it answers 0 when the built code
predicts its rows as the library did, on the host, in Python and on the emulated boards, and
it finds one edited threshold."""

from __future__ import annotations

import hashlib
import importlib.util
import math
import subprocess
import sys
import uuid

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes

from puretree import mcu
from puretree.codegen import generate
from puretree.codegen import literals as lit
from puretree.codegen.selftest import MAX_ROWS
from puretree.codegen.verify import STRICT_FLAGS
from puretree.datasets import load_temperature
from puretree.ensemble import random_forest
from puretree.gradient_boosting import gradient_boosting
from puretree.grow import c45, cart, cart_regressor
from puretree.io import save, to_json

CANCER = load_breast_cancer(return_X_y=True)


def models():
    X, y = CANCER
    D, t = load_diabetes(return_X_y=True)
    yield "tree", cart(X, y, max_depth=5)
    yield "categorical", c45(load_temperature(), missing="distribute")
    yield "regression", cart_regressor(D, t, max_depth=4)
    yield "forest", random_forest(X, y, n_trees=3, max_depth=3, seed=0)
    yield "boosted", gradient_boosting(X, y, n_estimators=3, max_depth=2)


MODELS = dict(models())
MAIN = '#include <stdio.h>\n#include "m.h"\nint main(void) { printf("%d\\n", m_selftest()); return 0; }\n'


def run_c(files, tmp_path):
    for filename, text in files.items():
        (tmp_path / filename).write_text(text)
    (tmp_path / "main.c").write_text(MAIN)
    subprocess.run(["gcc", *STRICT_FLAGS, "-O1", "-c", "m.c", "-o", "m.o"], cwd=tmp_path, check=True, capture_output=True)
    subprocess.run(["gcc", "-std=c99", "main.c", "m.o", "-o", "main", "-lm"], cwd=tmp_path, check=True, capture_output=True)
    return int(subprocess.run(["./main"], cwd=tmp_path, check=True, capture_output=True, text=True).stdout)


def run_python(files, tmp_path):
    for filename, text in files.items():
        (tmp_path / filename).write_text(text)
    sys.path.insert(0, str(tmp_path))
    try:
        key = f"m_{uuid.uuid4().hex}"
        spec = importlib.util.spec_from_file_location(key, tmp_path / "m.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.selftest(), module.DIGEST
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n.startswith("m_")]:
            sys.modules.pop(name, None)


# Boosted models' code takes float or double readings only.
CASES = [(kind, ftype) for kind in sorted(MODELS) for ftype in ("double", "float", "int16") if (kind, ftype) != ("boosted", "int16")]


@pytest.mark.parametrize(("kind", "feature_type"), CASES)
def test_the_c_selftest_passes_on_the_host(kind, feature_type, tmp_path):
    model = MODELS[kind]
    files = generate(model, "c", name="m", feature_type=feature_type, selftest=True)
    n = int(files["m.c"].split("static const unsigned char m_st_cells[")[1].split("]")[0])
    assert 1 <= n <= MAX_ROWS
    assert f'#define M_DIGEST "sha256:{hashlib.sha256(to_json(model).encode()).hexdigest()}"' in files["m.h"]
    assert run_c(files, tmp_path) == 0


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_the_python_selftest_passes(kind, tmp_path):
    model = MODELS[kind]
    got, digest = run_python(generate(model, "python", name="m", selftest=True), tmp_path)
    assert got == 0 and digest == "sha256:" + hashlib.sha256(to_json(model).encode()).hexdigest()


def _stump():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    return cart(X, [0, 0, 1, 1])


def _edited(text, t, fmt, *, before):
    # The threshold moved up by one double wherever the model's code writes it (not in the
    # self-test's own rows, after `before`): the row just above it goes the other way.
    old, new = fmt(t), fmt(math.nextafter(t, math.inf))
    code, rest = text.split(before, 1)
    assert old in code
    return code.replace(old, new) + before + rest


def test_an_edited_threshold_fails_the_selftest(tmp_path):
    tree = _stump()
    t = tree.root.test.value
    files = generate(tree, "c", name="m", selftest=True)
    for folder in ("ok", "bad", "py"):
        (tmp_path / folder).mkdir()
    assert run_c(files, tmp_path / "ok") == 0
    assert run_c({**files, "m.c": _edited(files["m.c"], t, lit.c_double, before="/* Self-test")}, tmp_path / "bad") > 0
    py = generate(tree, "python", name="m", selftest=True)
    assert run_python({"m.py": _edited(py["m.py"], t, lit.py_float, before="#: The model's digest")}, tmp_path / "py")[0] > 0


def test_quantized_code_is_refused_with_a_reason():
    from puretree.errors import CodegenError

    with pytest.raises(CodegenError, match="quantized code is not covered"):
        generate(_stump(), "c", feature_type="int16", quantize=[(0.0, 3.0)], selftest=True)


def test_export_selftest_on_the_command_line(tmp_path):
    model = tmp_path / "m.json"
    save(MODELS["forest"], model)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "puretree", "export", str(model), "--target", "c", "--selftest", "--name", "m", "-o", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert run_c({p.name: p.read_text() for p in out.iterdir()}, tmp_path) == 0


def _board_program(files):
    # The runner calls predict(x): this one runs the self-test whatever the row.
    body = '#include "m.c"\nint st_predict(const double *x) { (void)x; return m_selftest(); }\n'
    return mcu.Program("st", {**files, "st.c": body, "st.h": "int st_predict(const double *x);\n"}, 1, 1, False)


@pytest.mark.parametrize("core", ["cortex-m0", "cortex-m3", "cortex-m4"])
def test_the_selftest_runs_on_the_boards(core, tmp_path):
    tree = _stump()
    t = tree.root.test.value
    files = generate(MODELS["tree"], "c", name="m", selftest=True)
    small = generate(tree, "c", name="m", selftest=True)
    bad = {**small, "m.c": _edited(small["m.c"], t, lit.c_double, before="/* Self-test")}
    answers = []
    for i, fileset in enumerate((files, bad)):
        program = _board_program(fileset)
        elf = mcu.build_firmware([program], core=core, feature_type="double", workdir=tmp_path / str(i))
        answers.append(mcu.run_firmware(elf, [program], [(0, np.zeros((1, 1)))], core=core, feature_type="double", workdir=tmp_path / str(i)).answers[0][0])
    assert answers[0] == 0 and answers[1] is not None and answers[1] > 0
