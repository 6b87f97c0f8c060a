"""The flash the certified rewrites save (``certified=True``, ``--certified``) on bench_codegen's trees.

Run by hand after ``bash bench/setup_codegen.sh`` (arm-none-eabi-gcc; bench_codegen's flash
measure needs emlearn's headers on the include path):

    python bench/bench_certified.py [--quick]

For each of bench_codegen.py's trees (scikit-learn's, trained on 80% of the rows) and each of
puretree's predict-only C forms (``proba=False``, as bench_codegen builds them), it prints the
linked Cortex-M4 flash (``arm-none-eabi-gcc -Os``, ``--gc-sections``: bench_codegen's ``flash``)
of the code as generated and with ``certified=True``, the splits the lowered tree keeps, and
whether ``verify`` (with ``certified=True``: the certified code against the *original* model, on
the held-out rows and every node, threshold neighbourhood, missing value) finds no mismatch.

A scikit-learn tree has no branch its ancestors' tests make unreachable on the real line, so
what the rewrites find there comes from the code's grid (int16 readings, the quantized int16
and int8 readings, where thresholds that differ in the model fall on one grid point) and, the
code answering the class alone, from sibling subtrees of one class (a depth-limited tree has
them: a split that lowers the impurity without changing the majority).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_codegen import CTYPES, FORMS, flash, trees  # noqa: E402

from puretree.codegen import generate, verify  # noqa: E402
from puretree.codegen import literals as lit  # noqa: E402
from puretree.codegen.lower import feature_ranges, lower  # noqa: E402
from puretree.sklearn import from_sklearn  # noqa: E402


def build(tree, target, form, ftype, ranges, certified, work: Path, name: str):
    """(C file, input C type, call, wrapper, splits lowered) of one form (an error raises)."""
    options = {"name": name, "feature_type": ftype, "proba": False, "form": form, "quantize": ranges, "certified": certified}
    files = generate(tree, target, **options)
    model = lower(tree, target, options)
    for fname, text in files.items():
        (work / fname).write_text(text)
    if ranges is not None:
        wrap = f"static int {name}_run(const float *x) {{ {lit.C_TYPES[ftype][0]} q[N_FEATURES]; {name}_quantize(x, q); return {name}_predict(q); }}"
        return str(work / f"{name}.c"), "float", f"{name}_run(x)", wrap, model["table"]["n_internal"]
    return str(work / f"{name}.c"), CTYPES[ftype], f"{name}_predict(x)", "", model["table"]["n_internal"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="bench_codegen's quick trees")
    args = parser.parse_args()
    print("| tree | form | splits: as generated / certified | flash M4 linked: as generated | certified | saved | verify (certified, against the original) |")
    print("|---|---|---|---|---|---|---|")
    for title, est, Xtr, Xte in trees(args.quick):
        tree = from_sklearn(est)
        ranges = feature_ranges(Xtr)
        with tempfile.TemporaryDirectory(prefix="pt-certified-") as tmp:
            work = Path(tmp)
            for i, (key, target, form, ftype, quantized) in enumerate(FORMS):
                q = ranges if quantized else None
                try:
                    plain = build(tree, target, form, ftype, q, False, work, f"p{i}")
                    cert = build(tree, target, form, ftype, q, True, work, f"c{i}")
                except Exception as exc:  # a nested form too deep, for instance
                    print(f"| {title} | {key[9:]} | failed: {type(exc).__name__}: {str(exc)[:60]} | | | | |")
                    continue
                sizes = [flash("puretree", c, ctype, call, wrap, Xtr.shape[1], "M4", work) for c, ctype, call, wrap, _ in (plain, cert)]
                linked = [int(s.split()[0]) if s.split()[0].isdigit() else None for s in sizes]
                saved = f"{linked[0] - linked[1]} B ({(linked[0] - linked[1]) / linked[0]:.1%})" if None not in linked else "?"
                report = verify(tree, Xte, target, feature_type=ftype, proba=False, form=form, quantize=q, certified=True, max_changed="100%")
                ok = "0 mismatches" if report.n_mismatches == 0 and report.n_quantize_mismatches == 0 else f"{report.n_mismatches} mismatches"
                print(f"| {title} | {key[9:]} | {plain[4]} / {cert[4]} | {sizes[0]} | {sizes[1]} | {saved} | {ok} of {report.n_checked} rows |", flush=True)


if __name__ == "__main__":
    main()
