"""Instructions per prediction on emulated Cortex-M boards, puretree's generated C against emlearn's.

Run by hand after ``bash bench/setup_codegen.sh`` (emlearn; the Arm toolchain, newlib and
QEMU come with ``make test``'s Debian packages):

    .venv/bin/python bench/bench_mcu.py [--quick]

Same scikit-learn trees as bench/bench_codegen.py (breast_cancer fully grown; depth 8 on
100,000 x 20 make_classification). Every program is built into one firmware per core and
feature type with puretree.mcu (its startup code, linker scripts and row runner), compiled
``arm-none-eabi-gcc -Os -ffunction-sections -fdata-sections`` with the core's flags, and run
in QEMU with ``-icount shift=0``: QEMU counts executed *instructions*, not cycles (a real
core's cycles per instruction vary with flash wait states, branches and the FPU). The
figure is the mean number of instructions inside one call of ``predict`` over the rows (the
loop and call overhead, measured with an empty function of the same type, subtracted).
Rows: the test rows (breast_cancer: all 569; synthetic: the first 2,000); the int16 forms
get them rounded to integers, as in bench_codegen.py, so they walk other paths.
Flash: bench_codegen.py's linked figure (the code behind one call of predict, --gc-sections).
Mismatches: the board's answers against scikit-learn's predict on the same rows.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_codegen  # noqa: E402
from puretree import mcu  # noqa: E402
from puretree.codegen import generate  # noqa: E402
from puretree.sklearn import from_sklearn  # noqa: E402

CORES = ("cortex-m0", "cortex-m3", "cortex-m4", "cortex-m7")
# bench_codegen's flash() takes its flags from CPUS: the same as the boards'.
bench_codegen.CPUS.update({core: list(mcu.CORES[core].cflags) for core in CORES})


def programs(est, tree, work: Path) -> dict[str, list[tuple[str, mcu.Program, tuple]]]:
    """Per feature type: (label, program, (C file, ctype, call) for bench_codegen.flash)."""
    import emlearn

    d, k = est.n_features_in_, len(est.classes_)
    out: dict[str, list] = {"float": [], "double": [], "int16": []}
    for target in ("c-table", "c"):
        for ftype in out:
            name = f"pt_{target.replace('-', '_')}_{ftype}"
            files = generate(tree, target, name=name, feature_type=ftype, proba=False)
            for fname, text in files.items():
                (work / fname).write_text(text)
            ctype = {"float": "float", "double": "double", "int16": "int16_t"}[ftype]
            out[ftype].append((f"puretree {target} {ftype}", mcu.Program(name, files, d, k, False), (str(work / f"{name}.c"), ctype, f"{name}_predict(x)")))
    for method, ftype, ctype in (("inline", "float", "float"), ("loadable", "int16", "int16_t")):
        header = f"eml_{method}.h"
        emlearn.convert(est, method=method, dtype=ctype).save(file=str(work / header), name=f"eml_{method}")
        (work / f"eml_{method}.c").write_text(f'#include "{header}"\n')
        name = f"wrap_eml_{method}"
        files = {
            f"{name}.h": f"#include <stdint.h>\nint {name}_predict(const {ctype} *x);\n",
            f"{name}.c": f'#include <stdint.h>\n#include "{name}.h"\n#include "{header}"\nint {name}_predict(const {ctype} *x) {{ return (int)eml_{method}_predict(x, {d}); }}\n',
        }
        program = mcu.Program(name, files, d, k, False, strict=False, cflags=("-std=gnu99", "-w", f"-I{work}", f"-I{bench_codegen.emlearn_include()}"))
        out[ftype].append((f"emlearn {method} {ftype}", program, (str(work / f"eml_{method}.c"), ctype, f"eml_{method}_predict(x, N_FEATURES)")))
    return out


def measure(title: str, est, X: np.ndarray) -> list[str]:
    tree = from_sklearn(est)
    rows = {"float": X, "double": X, "int16": np.clip(np.rint(X), -32767, 32767)}
    want = {ftype: est.predict(r) for ftype, r in rows.items()}
    results: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-mcu-") as tmp:
        work = Path(tmp)
        by_type = programs(est, tree, work)
        for core in CORES:
            for ftype, entries in by_type.items():
                progs = [p for _, p, _ in entries]
                fw = work / f"{core}-{ftype}"
                elf = mcu.build_firmware(progs, core=core, feature_type=ftype, workdir=fw)
                jobs = [(i, rows[ftype]) for i in range(len(progs))]
                answers = mcu.run_firmware(elf, progs, jobs, core=core, feature_type=ftype, workdir=fw).answers
                counts = mcu.instructions_per_prediction(elf, progs, jobs, core=core, feature_type=ftype, workdir=fw, repeats=16)
                for (label, _, (c_file, ctype, call)), got, n in zip(entries, answers, counts):
                    size = bench_codegen.flash(label, c_file, ctype, call, est.n_features_in_, len(est.classes_), core, work).split()[0]
                    bad = int((est.classes_[np.array(got)] != want[ftype]).sum())
                    cell = results.setdefault(label, {})
                    cell[core] = f"{size} / {n:.1f}"
                    cell["bad"] = str(max(bad, int(cell.get("bad", "0"))))
    lines = [f"\n#### {title}: {est.tree_.node_count} nodes, depth {est.get_depth()}, {len(X)} rows\n",
             "| code | " + " | ".join(f"{c}: flash B / instructions" for c in CORES) + " | mismatches vs sklearn |",
             "|---|" + "---:|" * (len(CORES) + 1)]
    for label, cell in results.items():
        lines.append(f"| {label} | " + " | ".join(cell[c] for c in CORES) + f" | {cell['bad']} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller synthetic data")
    args = parser.parse_args()
    mcu.check_tools()
    for title, est, X in bench_codegen.trees(args.quick):
        if title.startswith("chain"):
            continue
        print("\n".join(measure(title, est, X[:2000])), flush=True)
    print(f"\n(run at {time.strftime('%Y-%m-%d %H:%M')}; QEMU {mcu.QEMU} -icount shift=0: instructions, not cycles)")


if __name__ == "__main__":
    main()
