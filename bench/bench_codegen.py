"""Generated code side by side with emlearn and m2cgen, on the same scikit-learn trees.

Run by hand after ``bash bench/setup_codegen.sh`` (arm-none-eabi-gcc, emlearn, m2cgen):

    .venv/bin/python bench/bench_codegen.py [--quick]

For each tree (breast_cancer fully grown; depth 8 on 100,000 x 20 make_classification; the
deepest chain-shaped tree both tools can take) it prints:

- flash (bytes, ``.text + .rodata + .data``) with ``arm-none-eabi-gcc -Os -mthumb`` for
  Cortex-M0 and Cortex-M4: of an image linking the generated code behind one call to predict
  (``--gc-sections``: what a firmware pays, soft-float helpers included), and in brackets of
  the generated source's object file as a whole (puretree's: with its name tables). puretree
  is built without ``predict_proba``, to compare with predict-only code;
- host time per row of each generated C (gcc -O2, median of repeats over all rows, one call
  per row) and of puretree's generated Python, against scikit-learn's ``predict`` on one row;
- mismatches against scikit-learn's ``predict`` on the test rows plus every threshold's
  float32/float64 neighbourhood (for the int16 forms: on those rows rounded to integers, the
  inputs an int16 program can receive; for the quantized form: against puretree's quantized
  tree on the quantized rows; the int8 quantized form likewise, on int8's scale);
- the tables ``export --report`` computes for puretree's code, and how often each code agrees
  with the float model on the held-out test rows as it receives them (int16: cast; quantized:
  float readings through ``NAME_quantize``);
- and, for breast_cancer, the Arduino layout's example sketch built with arm-none-eabi-g++
  against a stand-in ``Arduino.h``.

Trees are trained on 80% of the rows; the quantized forms take their ranges from those.

``--xgboost`` instead compares, for one 100-tree XGBoost model (breast_cancer, XGBoost's defaults
but ``base_score=0.5``, which m2cgen 0.10 needs: its issue #581), puretree's import
(``pt.from_xgboost``) with m2cgen's conversion, the gates of issue 29:

- generated Python, time per row (median of 7 repeats over the 114 test rows; the two run
  alternately, 5 rounds, the median of the rounds): puretree's ``predict_proba`` (and
  ``decision_function``) against m2cgen's ``score`` (its probabilities); gate: at most 1x;
- linked Cortex-M4 flash of the C (as above: one call to predict behind ``--gc-sections``):
  puretree's ``predict_proba`` (float inputs; and ``predict``) against m2cgen's ``score`` (its
  probabilities) with an argmax; gate: at most 0.6x;
- and how many held-out rows each gets bit for bit: puretree's raw scores against XGBoost's
  margins, m2cgen's probabilities against XGBoost's ``predict``.

``--leaves`` instead measures the uint8 leaf tables (``--leaf-type uint8``) against the double
ones on breast_cancer: the fully grown tree behind ``predict_proba`` and scikit-learn forests of
10 and 100 trees (depth 8) behind ``predict``, float and int8 quantized features, linked for the
Cortex-M0 and M4 as above, with the test rows whose class the uint8 leaves change and verify's
mismatches (docs/codegen.md, "uint8 leaf tables").

``--gradient-boosting`` compares, for scikit-learn's ``GradientBoostingClassifier(n_estimators=100,
max_depth=3)`` on breast_cancer (80% of the rows), the linked Cortex-M4 flash (as above) of
puretree's C for it (``from_sklearn``) and for the model ``pt.gradient_boosting`` grows with the same
options, against m2cgen's C for the scikit-learn model (issue 28's gate: at most 0.5x). m2cgen 0.10
has no assembler for scikit-learn's gradient boosting, so its C is built from its own parts as its
XGBoost assembler builds a boosted model: each stage's tree by its ``TreeModelAssembler`` (scikit-learn's
regression trees), times the learning rate, summed from the initial raw score, through its sigmoid
(``score`` gives the two probabilities). The table also gives puretree's quantized int16 C (float
readings through ``NAME_quantize``) and how often each agrees with scikit-learn on the held-out rows.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from puretree.codegen import generate  # noqa: E402
from puretree.codegen import literals as lit  # noqa: E402
from puretree.codegen.lower import feature_ranges, lower, quantize, quantized_tree, resources, tree_quantization  # noqa: E402
from puretree.codegen.verify import load_python  # noqa: E402
from puretree.sklearn import from_sklearn  # noqa: E402

CPUS = {"M0": ["-mcpu=cortex-m0", "-mthumb"], "M4": ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"]}


def trees(quick: bool):
    """(title, estimator, training rows, test rows): trained on 80%, tested on the other 20%."""
    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.2, random_state=0)
    yield "breast_cancer (full)", DecisionTreeClassifier(random_state=0).fit(Xtr, ytr), Xtr, Xte
    n = 20_000 if quick else 100_000
    X, y = make_classification(n_samples=n, n_features=20, n_informative=10, random_state=0)
    Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.2, random_state=0)
    yield f"synthetic {n}x20 (depth 8)", DecisionTreeClassifier(max_depth=8, random_state=0).fit(Xtr, ytr), Xtr, Xte[:5000]
    if not quick:
        yield f"synthetic {n}x20 (full)", DecisionTreeClassifier(random_state=0).fit(Xtr, ytr), Xtr, Xte[:5000]
    for depth in ([100, 300] if quick else [100, 300, 500]):
        Xc = np.arange(depth + 1, dtype=float)[:, None] / 7.0
        yc = np.arange(depth + 1) % 2
        est = DecisionTreeClassifier(random_state=0).fit(Xc, yc, sample_weight=2.0 ** np.arange(depth + 1))
        yield f"chain (depth {est.get_depth()})", est, Xc, Xc


def probe_rows(est, X, rng):
    """Test rows plus each threshold's neighbourhood (float64 and float32 neighbours)."""
    t = est.tree_
    rows = [X]
    for node in np.flatnonzero(t.feature >= 0):
        j, thr = int(t.feature[node]), float(t.threshold[node])
        f = np.float32(thr)
        values = [thr, np.nextafter(thr, -np.inf), np.nextafter(thr, np.inf), float(f), float(np.nextafter(f, np.float32(np.inf))), float(np.nextafter(f, np.float32(-np.inf)))]
        block = X[rng.integers(len(X), size=len(values))].copy()
        block[:, j] = values
        rows.append(block)
    return np.vstack(rows)


# -- the tools' code --------------------------------------------------------------------------


#: puretree's forms: (key, target, form, feature type, quantized).
FORMS = [
    ("puretree c-table compact float", "c-table", "compact", "float", False),
    ("puretree c-table compact double", "c-table", "compact", "double", False),
    ("puretree c-table compact int16", "c-table", "compact", "int16", False),
    ("puretree c-table compact int16 quantized", "c-table", "compact", "int16", True),
    ("puretree c-table compact int8 quantized", "c-table", "compact", "int8", True),
    ("puretree c-table float", "c-table", "table", "float", False),
    ("puretree c-table double", "c-table", "table", "double", False),
    ("puretree c-table int16", "c-table", "table", "int16", False),
    ("puretree c float", "c", "nested", "float", False),
    ("puretree c double", "c", "nested", "double", False),
    ("puretree c int16", "c", "nested", "int16", False),
]
CTYPES = {"float": "float", "double": "double", "int16": "int16_t"}


def sources(est, tree, work: Path, ranges) -> dict[str, tuple[str, str, str, str, str]]:
    """name -> (C file, input C type, call expression, wrapper code, computed table bytes)
    for every tool and form. A quantized form takes float inputs: its wrapper quantizes
    them (NAME_quantize, counted in its flash) and predicts."""
    import emlearn
    import m2cgen

    out: dict[str, tuple[str, str, str, str, str]] = {}
    for key, target, form, ftype, quantized in FORMS:
        name = f"pt{len(out)}"
        options = {"name": name, "feature_type": ftype, "proba": False, "form": form, "quantize": ranges if quantized else None}
        try:
            files = generate(tree, target, **options)
            tables = str(resources(lower(tree, target, options))["flash_tables"])
        except Exception as exc:  # a nested form too deep, for instance
            out[key] = ("", "", f"failed: {type(exc).__name__}: {str(exc)[:80]}", "", "")
            continue
        for fname, text in files.items():
            (work / fname).write_text(text)
        if quantized:
            wrap = f"static int {name}_run(const float *x) {{ {lit.C_TYPES[ftype][0]} q[N_FEATURES]; {name}_quantize(x, q); return {name}_predict(q); }}"
            out[key] = (str(work / f"{name}.c"), "float", f"{name}_run(x)", wrap, tables)
        else:
            out[key] = (str(work / f"{name}.c"), CTYPES[ftype], f"{name}_predict(x)", "", tables)
    for method, ctype in (("inline", "float"), ("inline", "int16_t"), ("loadable", "int16_t")):
        label = "float" if ctype == "float" else "int16"
        key = f"emlearn {method} {label}"
        path = work / f"eml_{method}_{label}.h"
        try:
            emlearn.convert(est, method=method, dtype=ctype).save(file=str(path), name=f"eml_{method}_{label}")
            c = work / f"eml_{method}_{label}.c"
            c.write_text(f'#include "eml_{method}_{label}.h"\n')
            out[key] = (str(c), ctype, f"eml_{method}_{label}_predict(x, N_FEATURES)", "", "")
        except Exception as exc:
            out[key] = ("", "", f"failed: {type(exc).__name__}: {str(exc)[:80]}", "", "")
    try:
        code = m2cgen.export_to_c(est)  # recursive: deep trees raise RecursionError
        (work / "m2cgen.c").write_text(code)
        out["m2cgen double"] = (str(work / "m2cgen.c"), "double", "m2c_predict(x)", M2C_WRAP % (len(est.classes_), len(est.classes_)), "")
    except Exception as exc:
        out["m2cgen double"] = ("", "", f"failed: {type(exc).__name__}: {str(exc)[:80]}", "", "")
    return out


M2C_WRAP = "static int m2c_predict(double *x) { double out[%d]; int k, best = 0; score(x, out); for (k = 1; k < %d; k++) if (out[k] > out[best]) best = k; return best; }"


def emlearn_include() -> str:
    try:
        import emlearn
    except ImportError:  # the XGBoost comparison (--xgboost) needs no emlearn
        return "."

    return str(Path(emlearn.__file__).resolve().parent)


def _sizes(path: Path) -> tuple[int, int, int]:
    sizes = subprocess.run(["arm-none-eabi-size", "-A", str(path)], capture_output=True, text=True, check=True).stdout
    text = rodata = data = 0
    for line in sizes.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1].isdigit():
            if parts[0].startswith(".text"):
                text += int(parts[1])
            elif parts[0].startswith(".rodata"):
                rodata += int(parts[1])
            elif parts[0].startswith(".data"):
                data += int(parts[1])
    return text, rodata, data


def flash(key: str, c_file: str, ctype: str, call: str, wrap: str, n_features: int, cpu: str, work: Path) -> str:
    """Flash of what a firmware calling predict links in: the tool's code in one translation
    unit with an entry function calling predict, built -Os with -ffunction-sections
    -fdata-sections and linked with --gc-sections (so tables nobody references, such as
    puretree's name tables, drop out as they do in a real firmware; the soft-float helpers
    a Cortex-M0 needs for float/double comparisons are counted). Then, in brackets, the
    whole object file as generated (every table kept)."""
    stem = Path(c_file).stem + f"_{cpu}"
    included = str(Path(c_file).with_suffix(".h")) if key.startswith("emlearn") else c_file
    if key.startswith("m2cgen"):
        call = "m2c_predict((double *)x)"
    entry = work / f"entry_{stem}.c"
    entry.write_text(f'#include <stdint.h>\n#define N_FEATURES {n_features}\n#include "{included}"\n{wrap}\nint entry(const {ctype} *x);\nint entry(const {ctype} *x) {{ return (int)({call}); }}\n')
    common = ["-Os", *CPUS[cpu], "-std=gnu99", "-w", "-ffp-contract=off", "-ffunction-sections", "-fdata-sections", "-I", str(work), "-I", emlearn_include()]
    obj, elf = work / f"{stem}.o", work / f"{stem}.elf"
    whole = work / f"whole_{stem}.o"
    steps = [
        ["arm-none-eabi-gcc", *common, "-c", str(entry), "-o", str(obj)],
        ["arm-none-eabi-gcc", *CPUS[cpu], "-nostartfiles", "-Wl,--gc-sections", "-Wl,-e,entry", str(obj), "-o", str(elf), "-lc", "-lm", "-lgcc", "-lnosys"],
        ["arm-none-eabi-gcc", *common, "-c", c_file, "-o", str(whole)],
    ]
    for cmd in steps:
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            return "build error: " + done.stderr.strip().splitlines()[-1][:60]
    text, rodata, data = _sizes(elf)
    wt, wr, wd = _sizes(whole)
    return f"{text + rodata + data} ({wt + wr + wd})"


DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#define N_FEATURES %(d)d
%(prelude)s
#include "%(source)s"
%(wrap)s
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
int main(void) {
    long n, i, r; int j;
    if (fread(&n, sizeof n, 1, stdin) != 1) return 1;
    double *raw = malloc(sizeof(double) * n * N_FEATURES);
    %(ctype)s *all = malloc(sizeof(%(ctype)s) * n * N_FEATURES);
    int *pred = malloc(sizeof(int) * n);
    double best[7];
    if (fread(raw, sizeof(double), n * N_FEATURES, stdin) != (size_t)(n * N_FEATURES)) return 1;
    for (i = 0; i < n * N_FEATURES; i++) all[i] = (%(ctype)s)raw[i];
    for (r = 0; r < 7; r++) {
        double t0 = now();
        for (i = 0; i < n; i++) { const %(ctype)s *x = all + i * N_FEATURES; pred[i] = (int)(%(call)s); }
        best[r] = (now() - t0) / n;
    }
    for (r = 1; r < 7; r++) { double v = best[r]; j = (int)r - 1; while (j >= 0 && best[j] > v) { best[j + 1] = best[j]; j--; } best[j + 1] = v; }
    printf("%%.1f\n", best[3]);
    for (i = 0; i < n; i++) printf("%%d\n", pred[i]);
    return 0;
}
"""


def host_run(key: str, c_file: str, ctype: str, call: str, wrap: str, rows: np.ndarray, work: Path) -> tuple[float, np.ndarray]:
    stem = Path(c_file).stem
    prelude = ""
    if key.startswith("m2cgen"):
        call = "m2c_predict((double *)x)"
    driver = work / f"drive_{stem}.c"
    source = c_file if key.startswith(("m2cgen", "puretree")) else str(Path(c_file).with_suffix(".h"))
    driver.write_text(DRIVER % {"d": rows.shape[1], "prelude": prelude, "source": source, "wrap": wrap, "ctype": ctype, "call": call})
    program = work / f"drive_{stem}"
    cmd = ["gcc", "-O2", "-std=gnu99", "-w", "-ffp-contract=off", "-I", str(work), "-I", emlearn_include(), str(driver), "-o", str(program), "-lm"]
    subprocess.run(cmd, check=True, capture_output=True)
    payload = np.int64(len(rows)).tobytes() + np.ascontiguousarray(rows, dtype=np.float64).tobytes()
    out = subprocess.run([str(program)], input=payload, capture_output=True, check=True).stdout.decode().split()
    return float(out[0]), np.array([int(v) for v in out[1:]])


ARDUINO_H = """/* A minimal stand-in for a board core's Arduino.h (board cores cannot be downloaded here). */
#pragma once
#include <stdint.h>
#include <stddef.h>
class StandInSerial {
public:
    void begin(unsigned long baud) { (void)baud; }
    size_t println(const char *s) { sink = s; return 0; }
    size_t println(double v) { value = v; return 0; }
    const char *volatile sink;
    volatile double value;
};
extern StandInSerial Serial;
void delay(unsigned long ms);
"""
ARDUINO_MAIN = """#include <Arduino.h>
StandInSerial Serial;
void delay(unsigned long ms) { (void)ms; }
void setup();
void loop();
extern "C" int entry(void);
extern "C" int entry(void) { setup(); loop(); return 0; }
"""


def arduino_build(tree, ranges, work: Path) -> list[str]:
    """Export the Arduino layout (float table; compact int16 quantized), compile src/ with
    arm-none-eabi-gcc and the example sketch with arm-none-eabi-g++ against a stand-in
    Arduino.h, link for Cortex-M4: the linked flash, or the compiler's error."""
    from puretree.cli.commands.codegen import arduino_files

    out = []
    for label, options in (("c-table float", {"feature_type": "float", "proba": False}),
                           ("c-table compact int16 quantized", {"feature_type": "int16", "form": "compact", "proba": False, "quantize": ranges})):
        lib = work / f"arduino_{len(out)}"
        for rel, text in arduino_files(tree, "c-table", name="model", **options).items():
            (lib / rel).parent.mkdir(parents=True, exist_ok=True)
            (lib / rel).write_text(text)
        (lib / "core").mkdir()
        (lib / "core" / "Arduino.h").write_text(ARDUINO_H)
        (lib / "core" / "main.cpp").write_text(ARDUINO_MAIN)
        sketch = lib / "sketch.cpp"  # as the Arduino builder does: the .ino, as C++, after #include <Arduino.h>
        sketch.write_text("#include <Arduino.h>\n" + (lib / "examples" / "model_example" / "model_example.ino").read_text())
        cpu = CPUS["M4"]
        flags = ["-Os", *cpu, "-ffunction-sections", "-fdata-sections", "-ffp-contract=off", "-I", str(lib / "core"), "-I", str(lib / "src")]
        steps = [
            ["arm-none-eabi-gcc", "-std=c99", "-Wall", "-Werror", *flags, "-c", str(lib / "src" / "model.c"), "-o", str(lib / "model.o")],
            ["arm-none-eabi-g++", "-std=gnu++11", "-Wall", "-Werror", "-fno-exceptions", "-fno-rtti", *flags, "-c", str(sketch), "-o", str(lib / "sketch.o")],
            ["arm-none-eabi-g++", "-std=gnu++11", "-fno-exceptions", "-fno-rtti", *flags, "-c", str(lib / "core" / "main.cpp"), "-o", str(lib / "main.o")],
            ["arm-none-eabi-g++", *cpu, "-nostartfiles", "-Wl,--gc-sections", "-Wl,-e,entry", str(lib / "main.o"), str(lib / "sketch.o"), str(lib / "model.o"), "-o", str(lib / "sketch.elf"), "-lc", "-lm", "-lgcc", "-lnosys"],
        ]
        for cmd in steps:
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                out.append(f"| {label} | build error: {done.stderr.strip().splitlines()[-1][:80]} |")
                break
        else:
            text, rodata, data = _sizes(lib / "sketch.elf")
            out.append(f"| {label} | {text + rodata + data} |")
    return out


def xgboost_gates(rounds: int = 5) -> None:
    """The m2cgen gates of issue 29 on one 100-tree XGBoost model (see the module's docstring)."""
    import os

    import m2cgen
    import xgboost as xgb

    import puretree as pt
    from puretree.boosted import table

    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.2, random_state=0)
    clf = xgb.XGBClassifier(n_estimators=100, base_score=0.5, n_jobs=1, random_state=0).fit(Xtr, ytr)
    booster = clf.get_booster()
    model = pt.from_xgboost(booster)
    n_nodes = sum(len(table(t).kind) for stage in model.stages for t in stage)
    print(f"\n#### XGBoost, breast_cancer: 100 trees (max_depth 6), {n_nodes} nodes, base_score=0.5; m2cgen {m2cgen.__version__}, xgboost {xgb.__version__}; load: {os.getloadavg()[0]:.2f}\n")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        ours = load_python(generate(model, "python", name="ptx")["ptx.py"], work)
        (work / "m2x.py").write_text(m2cgen.export_to_python(clf))
        theirs = load_python((work / "m2x.py").read_text(), work)
        sample = [list(map(float, r)) for r in Xte]

        def per_row(fn) -> float:
            return statistics.median(timeit.repeat(lambda: [fn(r) for r in sample], number=1, repeat=7)) / len(sample) * 1e9

        times: dict[str, list[float]] = {"puretree predict_proba": [], "puretree decision_function": [], "m2cgen score": []}
        for _ in range(rounds):  # alternately, so that the machine's load falls on both
            times["puretree predict_proba"].append(per_row(ours.predict_proba))
            times["m2cgen score"].append(per_row(theirs.score))
            times["puretree decision_function"].append(per_row(ours.decision_function))
        med = {k: statistics.median(v) for k, v in times.items()}
        margins = booster.predict(xgb.DMatrix(Xte), output_margin=True)
        proba = booster.predict(xgb.DMatrix(Xte))
        ours_exact = int(sum(np.float32(ours.decision_function(r)[0]) == m for r, m in zip(sample, margins)))
        theirs_exact = int(sum(np.float32(theirs.score(r)[1]) == p for r, p in zip(sample, proba)))
        ours_proba = int(sum(np.float32(ours.predict_proba(r)[1]) == p for r, p in zip(sample, proba)))
        print("| generated Python | ns/row (median of rounds) | rounds | ratio to m2cgen | rows equal to XGBoost's |")
        print("|---|---:|---|---:|---:|")
        for key, value in med.items():
            exact = {"puretree predict_proba": f"{ours_proba}/{len(sample)} probabilities", "puretree decision_function": f"{ours_exact}/{len(sample)} margins",
                     "m2cgen score": f"{theirs_exact}/{len(sample)} probabilities"}[key]
            print(f"| {key} | {value:.0f} | {', '.join(f'{v:.0f}' for v in times[key])} | {value / med['m2cgen score']:.2f} | {exact} |")
        gate = med["puretree predict_proba"] / med["m2cgen score"]
        print(f"\nPython gate (puretree predict_proba / m2cgen score <= 1): {gate:.2f} {'PASS' if gate <= 1 else 'FAIL'}\n")

        for ftype in ("float", "double"):
            for fname, text in generate(model, "c", name=f"pt_{ftype}", feature_type=ftype).items():
                (work / fname).write_text(text)
        (work / "m2cgen.c").write_text(m2cgen.export_to_c(clf))
        n = X.shape[1]
        sizes = {
            "m2cgen score + argmax (double)": flash("m2cgen", str(work / "m2cgen.c"), "double", "", M2C_WRAP % (2, 2), n, "M4", work),
            "puretree predict (float)": flash("puretree", str(work / "pt_float.c"), "float", "pt_float_predict(x)", "", n, "M4", work),
            "puretree predict (double)": flash("puretree", str(work / "pt_double.c"), "double", "pt_double_predict(x)", "", n, "M4", work),
            "puretree predict_proba (float)": flash("puretree", str(work / "pt_float.c"), "float", "({ double p[2]; pt_float_predict_proba(x, p); })", "", n, "M4", work),
        }
        base = int(sizes["m2cgen score + argmax (double)"].split()[0])
        print("| C, Cortex-M4 -Os | flash: linked (object) | ratio to m2cgen, linked |")
        print("|---|---:|---:|")
        for key, value in sizes.items():
            print(f"| {key} | {value} | {int(value.split()[0]) / base:.2f} |")
        # like with like: m2cgen's score computes the probabilities (its sigmoid, libm's exp)
        gate = int(sizes["puretree predict_proba (float)"].split()[0]) / base
        print(f"\nC gate (puretree predict_proba, float, / m2cgen score <= 0.6): {gate:.2f} {'PASS' if gate <= 0.6 else 'FAIL'}")


def m2cgen_gradient_boosting_c(est) -> str:
    """m2cgen's C for a binary ``GradientBoostingClassifier``, from m2cgen's own parts (see the
    module's docstring): ``score(input, output)`` writes the two class probabilities."""
    from m2cgen import ast
    from m2cgen.assemblers import utils
    from m2cgen.assemblers.tree import TreeModelAssembler
    from m2cgen.interpreters import CInterpreter

    init = float(est._raw_predict_init(np.zeros((1, est.n_features_in_)))[0, 0])
    trees = [ast.BinNumExpr(ast.NumVal(est.learning_rate), TreeModelAssembler(stage[0]).assemble(), ast.BinNumOpType.MUL) for stage in est.estimators_]
    p = ast.SigmoidExpr(utils.apply_op_to_expressions(ast.BinNumOpType.ADD, ast.NumVal(init), *trees), to_reuse=True)
    return CInterpreter().interpret(ast.VectorVal([ast.BinNumExpr(ast.NumVal(1.0), p, ast.BinNumOpType.SUB), p]))


def gradient_boosting_gates() -> None:
    """Issue 28's flash gate on a 100-stage, depth-3 GradientBoostingClassifier (module docstring)."""
    import os

    import m2cgen
    from sklearn.ensemble import GradientBoostingClassifier

    import puretree as pt
    from puretree.boosted import table

    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.2, random_state=0)
    est = GradientBoostingClassifier(n_estimators=100, max_depth=3, random_state=0).fit(Xtr, ytr)
    models = {"from_sklearn": from_sklearn(est), "pt.gradient_boosting": pt.gradient_boosting(Xtr, ytr, n_estimators=100, max_depth=3)}
    nodes = {k: sum(len(table(t).kind) for stage in m.stages for t in stage) for k, m in models.items()}
    print(f"\n#### GradientBoostingClassifier(n_estimators=100, max_depth=3), breast_cancer: {est.estimators_.shape[0]} stages; nodes: "
          f"{', '.join(f'{k} {v}' for k, v in nodes.items())}; m2cgen {m2cgen.__version__}; load: {os.getloadavg()[0]:.2f}\n")
    ranges = feature_ranges(Xtr)
    n = X.shape[1]
    want = est.predict(Xte)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "m2gb.c").write_text(m2cgen_gradient_boosting_c(est))
        rows: list[tuple[str, str, str, str, str, str]] = [("m2cgen score + argmax (double)", "m2cgen", str(work / "m2gb.c"), "double", "", M2C_WRAP % (2, 2))]
        for label, model in models.items():
            tag = "sk" if label == "from_sklearn" else "pt"
            for ftype in ("float", "double"):
                stem = f"{tag}_{ftype}"
                for fname, text in generate(model, "c", name=stem, feature_type=ftype).items():
                    (work / fname).write_text(text)
                rows.append((f"puretree {label} predict_proba ({ftype})", "puretree", str(work / f"{stem}.c"), ftype, f"({{ double p[2]; {stem}_predict_proba(x, p); }})", ""))
                rows.append((f"puretree {label} predict ({ftype})", "puretree", str(work / f"{stem}.c"), ftype, f"{stem}_predict(x)", ""))
            stem = f"{tag}_q16"
            for fname, text in generate(model, "c", name=stem, feature_type="int16", quantize=ranges).items():
                (work / fname).write_text(text)
            wrap = f"static int {stem}_run(const float *x) {{ int16_t q[N_FEATURES]; {stem}_quantize(x, q); return {stem}_predict(q); }}"
            rows.append((f"puretree {label} int16 quantized, NAME_quantize + predict", "puretree", str(work / f"{stem}.c"), "float", f"{stem}_run(x)", wrap))
        sizes = {key: flash(tool, c_file, ctype, call, wrap, n, "M4", work) for key, tool, c_file, ctype, call, wrap in rows}
        agree = {}
        for key, tool, c_file, ctype, call, wrap in rows:
            _, got = host_run(tool if tool == "m2cgen" else "puretree", c_file, ctype, call if tool != "m2cgen" else "", wrap, Xte, work)
            agree[key] = f"{int((got == want).sum())}/{len(want)}"
        base = int(sizes[rows[0][0]].split()[0])
        print("| C, Cortex-M4 -Os | flash: linked (object) | ratio to m2cgen, linked | held-out classes equal to scikit-learn's |")
        print("|---|---:|---:|---:|")
        for key, value in sizes.items():
            print(f"| {key} | {value} | {int(value.split()[0]) / base:.2f} | {agree[key]} |")
        for label in models:
            gate = int(sizes[f"puretree {label} predict_proba (float)"].split()[0]) / base
            print(f"\nC gate ({label}: puretree predict_proba, float, / m2cgen score <= 0.5): {gate:.2f} {'PASS' if gate <= 0.5 else 'FAIL'}")


def leaf_tables() -> None:
    """``--leaves``: the flash of the uint8 leaf table (``--leaf-type uint8``) against the double
    one, on breast_cancer (80% to train): the fully grown tree (its ``predict_proba``, the call
    that reads the table) and scikit-learn forests of depth 8 (their ``predict``, which adds
    the members' probabilities), linked for the Cortex-M0 and M4 as above, with how many test
    rows' class the uint8 leaves change (verify's count; the code is exact to its model)."""
    from sklearn.ensemble import RandomForestClassifier

    from puretree.codegen import verify

    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.2, random_state=0)
    models = [("tree (full)", DecisionTreeClassifier(random_state=0).fit(Xtr, ytr), "predict_proba")]
    models += [(f"forest of {n} (depth 8)", RandomForestClassifier(n_estimators=n, max_depth=8, random_state=0).fit(Xtr, ytr), "predict") for n in (10, 100)]
    ranges = feature_ranges(Xtr)
    print("| model | code | flash M0: linked (object) | flash M4: linked (object) | test rows whose class changes | mismatches (verify) |")
    print("|---|---|---:|---:|---:|---:|")
    for title, est, call in models:
        model = from_sklearn(est)
        for ftype, quantized in (("float", False), ("int8", True)):
            for leaf in ("double", "uint8"):
                options = {"feature_type": ftype, "form": "compact", "leaf_type": leaf, "quantize": ranges if quantized else None}
                with tempfile.TemporaryDirectory() as tmp:
                    work = Path(tmp)
                    files = generate(model, "c-table", name="pt", **options)
                    for fname, text in files.items():
                        (work / fname).write_text(text)
                    buffer = "uint8_t" if leaf == "uint8" else "double"
                    body = buffer + " p[PT_N_CLASSES]; return pt_predict_proba(%s, p);" if call == "predict_proba" else "return pt_predict(%s);"
                    if quantized:
                        wrap = "static int pt_run(const float *x) { int8_t q[N_FEATURES]; %s }" % (body % "q").replace("return", "pt_quantize(x, q); return", 1)
                    else:
                        wrap = "static int pt_run(const float *x) { %s }" % (body % "x")
                    m0, m4 = (flash("pt", str(work / "pt.c"), "float", "pt_run(x)", wrap, X.shape[1], cpu, work) for cpu in ("M0", "M4"))
                report = verify(model, Xte, "c-table", max_changed="100%", **{k: v for k, v in options.items() if v is not None})
                changed = report.changed_by_quantization or 0
                form = f"compact {ftype}{' quantized' if quantized else ''}, {leaf} leaves"
                print(f"| {title} | {form} | {m0} | {m4} | {changed} of {len(Xte)} | {report.n_mismatches} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller synthetic data and chains, no fully grown synthetic tree")
    parser.add_argument("--xgboost", action="store_true", help="only the comparison with m2cgen on a 100-tree XGBoost model (issue 29's gates)")
    parser.add_argument("--leaves", action="store_true", help="only the uint8 leaf tables against the double ones (trees and forests)")
    parser.add_argument("--gradient-boosting", action="store_true", help="only the comparison with m2cgen on a 100-stage GradientBoostingClassifier (issue 28's flash gate)")
    args = parser.parse_args()
    if args.leaves:
        leaf_tables()
        return
    if args.gradient_boosting:
        gradient_boosting_gates()
        return
    if args.xgboost:
        xgboost_gates()
        return
    sys.setrecursionlimit(10_000)  # emlearn and m2cgen recurse over the tree
    rng = np.random.default_rng(0)
    deepest_ok = None
    for title, est, Xtr, Xte in trees(args.quick):
        tree = from_sklearn(est)
        rows = probe_rows(est, Xte, rng)
        want = est.predict(rows)
        rows16 = np.clip(np.rint(rows), -32767, 32767)
        want16 = est.predict(rows16)
        want_test = est.predict(Xte)
        ranges = feature_ranges(Xtr)
        want_q = {}  # per quantized feature type: puretree's quantized tree on the quantized rows
        for qtype in {f[3] for f in FORMS if f[4]}:
            offset, scale = tree_quantization(tree, ranges, qtype)
            want_q[qtype] = np.asarray(quantized_tree(tree, offset, scale, qtype).predict(quantize(rows, offset, scale, qtype)))
        lines = []
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            code = sources(est, tree, work, ranges)
            tools_ok = not any(v[0] == "" for k, v in code.items() if not k.startswith("puretree"))
            if title.startswith("chain"):
                if not tools_ok:
                    failed = "; ".join(f"{k}: {v[2]}" for k, v in code.items() if v[0] == "" and not k.startswith("puretree"))
                    print(f"\n{title}: skipped, a tool failed ({failed})", flush=True)
                    continue
                deepest_ok = title
            lines.append(f"\n#### {title}: {est.tree_.node_count} nodes, depth {est.get_depth()}, {len(rows)} rows checked, {len(Xte)} test rows\n")
            lines.append("| code | flash M0: linked (object) | flash M4: linked (object) | tables (--report) | host ns/row | mismatches | agrees with the float model on test rows |")
            lines.append("|---|---:|---:|---:|---:|---:|---:|")
            for key, (c_file, ctype, call, wrap, tables) in code.items():
                if not c_file:
                    lines.append(f"| {key} | {call} | | | | | |")
                    continue
                m0, m4 = (flash(key, c_file, ctype, call, wrap, rows.shape[1], cpu, work) for cpu in ("M0", "M4"))
                # Integer forms are exact on integer inputs: compare on the rows rounded to int16.
                # A quantized form is exact against puretree's quantized tree on quantized rows.
                qtype = key.split()[-2] if key.endswith("quantized") else None
                use, expect = (rows16, want16) if ctype == "int16_t" else (rows, want_q[qtype] if qtype else want)
                try:
                    ns, got = host_run(key, c_file, ctype, call, wrap, use, work)
                    bad = int((est.classes_[got] != expect).sum())
                    _, got_test = host_run(key, c_file, ctype, call, wrap, Xte, work)
                    agree = float((est.classes_[got_test] == want_test).mean())
                    lines.append(f"| {key} | {m0} | {m4} | {tables} | {ns:.1f} | {bad} | {agree:.2%} |")
                except subprocess.CalledProcessError as exc:
                    lines.append(f"| {key} | {m0} | {m4} | {tables} | run failed: {exc.stderr[:60]!r} | | |")
            module = load_python(generate(tree, "python", name="pt")["pt.py"], work)
            sample = [list(map(float, r)) for r in rows[:300]]
            py = statistics.median(timeit.repeat(lambda: [module.predict(r) for r in sample], number=1, repeat=5)) / len(sample) * 1e9
            py_bad = int(sum(module.predict(list(map(float, r))) != w for r, w in zip(rows, want)))
            one = rows[:1]
            sk = statistics.median(timeit.repeat(lambda: est.predict(one), number=50, repeat=5)) / 50 * 1e9
            lines.append(f"| puretree python ({'table' if 'while node' in generate(tree, 'python')['tree.py'] else 'nested'}) | | | | {py:.0f} | {py_bad} | |")
            lines.append(f"| scikit-learn predict, one row | | | | {sk:.0f} | 0 | |")
            if title.startswith("breast_cancer"):
                lines.append("\nArduino layout (`export --layout arduino`), the example sketch built with arm-none-eabi-g++ (Cortex-M4) against a stand-in Arduino.h:\n")
                lines.append("| library | linked flash (sketch, predict, names it prints) |")
                lines.append("|---|---:|")
                lines += arduino_build(tree, ranges, work)
        print("\n".join(lines), flush=True)
    print(f"\n(deepest chain both tools took: {deepest_ok or 'none'}; run at {time.strftime('%Y-%m-%d %H:%M')})")


if __name__ == "__main__":
    main()
