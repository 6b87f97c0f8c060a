"""TreeSHAP in generated C on an emulated Cortex-M4: flash and instructions per row of
``NAME_contributions`` (``generate(..., contributions=True)``), next to ``NAME_predict``'s.

    PYTHONPATH=$PWD .venv/bin/python bench/bench_contributions.py

Models: scikit-learn's DecisionTreeClassifier(max_depth=5) and RandomForestClassifier(n_estimators=10)
(fully grown) on breast_cancer (random_state=0), imported with from_sklearn, generated as C
(target ``c``, double features).

Flash: the linked image of an entry function calling the one function, built
``arm-none-eabi-gcc -Os -ffunction-sections -fdata-sections`` with the M4's flags
(``-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard``) and linked with
``--gc-sections``: the code, its tables and the soft-float double helpers it calls (the M4's
FPU is single precision), text + rodata + data. Instructions: puretree.mcu's row runner in
QEMU (mps2-an386, ``-icount shift=0``), the mean instructions inside one call over the 569 rows
(the call overhead, an empty function's, subtracted); QEMU counts instructions, not cycles.
The board's values are checked bit for bit against puretree.explain.contributions.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from puretree import mcu  # noqa: E402
from puretree.codegen import generate  # noqa: E402
from puretree.codegen.ensemble import contributions_program  # noqa: E402
from puretree.ensemble import Ensemble  # noqa: E402
from puretree.explain import contribution_tables, contributions  # noqa: E402
from puretree.sklearn import from_sklearn  # noqa: E402

CORE = "cortex-m4"


def _sizes(path: Path) -> int:
    out = subprocess.run(["arm-none-eabi-size", "-A", str(path)], capture_output=True, text=True, check=True).stdout
    total = 0
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1].isdigit() and parts[0].startswith((".text", ".rodata", ".data")):
            total += int(parts[1])
    return total


def flash(files: dict[str, str], name: str, call: str, work: Path) -> int:
    """Bytes of the linked image whose entry makes ``call`` (``x``: the features, ``out``: a buffer)."""
    for filename, text in files.items():
        (work / filename).write_text(text)
    stem = f"{name}_{abs(hash(call)) % 10_000}"
    entry = work / f"entry_{stem}.c"
    entry.write_text(f'#include "{name}.c"\nstatic double out[256];\nint entry(const double *x);\nint entry(const double *x) {{ return (int)({call}); }}\n')
    flags = list(mcu.CORES[CORE].cflags)
    obj, elf = work / f"{stem}.o", work / f"{stem}.elf"
    subprocess.run(["arm-none-eabi-gcc", "-Os", *flags, "-std=c99", "-ffunction-sections", "-fdata-sections", "-I", str(work), "-c", str(entry), "-o", str(obj)], check=True)
    subprocess.run(["arm-none-eabi-gcc", *flags, "-nostartfiles", "-Wl,--gc-sections", "-Wl,-e,entry", str(obj), "-o", str(elf), "-lc", "-lm", "-lgcc", "-lnosys"], check=True)
    return _sizes(elf)


def models() -> list[tuple[str, object, np.ndarray]]:
    X, y = load_breast_cancer(return_X_y=True)
    tree = from_sklearn(DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y))
    forest_est = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    members = tuple(from_sklearn(e) for e in forest_est.estimators_)
    forest = Ensemble(members, (1.0,) * len(members), members[0].schema, "forest", 0, ())
    return [("breast_cancer tree, depth 5", tree, X), ("breast_cancer forest, 10 trees", forest, X)]


def main() -> None:
    mcu.check_tools()
    print("| model | leaves | predict: flash B, instr./row | contributions: flash B, instr./row | values bit for bit |")
    print("|---|---:|---:|---:|---|")
    for title, model, X in models():
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            files = generate(model, "c", name="m", contributions=True)
            n = model.schema.n_features
            plain = mcu.program_for(files, name="m", n_features=n, n_classes=2, proba=False)
            shap_prog = contributions_program(files, name="m", n_features=n)
            per_row = []
            for i, program in enumerate((plain, shap_prog)):  # one firmware each: the wrapper includes m.c
                elf = mcu.build_firmware([program], core=CORE, feature_type="double", workdir=work / f"fw{i}")
                per_row += mcu.instructions_per_prediction(elf, [program], [(0, X)], core=CORE, feature_type="double", workdir=work / f"fw{i}", repeats=2)
            answers = mcu.run_firmware(elf, [shap_prog], [(0, X)], core=CORE, feature_type="double", workdir=work / "fw1").answers[0]
            got = np.array([a[1] for a in answers])
            want = contributions(model, X).reshape(len(X), -1)
            same = bool(np.array_equal(got.view(np.int64), want.view(np.int64)))
            f_pred = flash(files, "m", "m_predict(x)", work)
            f_shap = flash(files, "m", "(m_contributions(x, out), 0)", work)
            leaves = len(contribution_tables(model).leaves)
            print(f"| {title} | {leaves} | {f_pred}, {per_row[0]:.0f} | {f_shap}, {per_row[1]:.0f} | {same} ({len(X)} rows) |")


if __name__ == "__main__":
    main()
