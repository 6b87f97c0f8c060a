"""Run the whole hostile sweep and print the count by verdict and by category.

    python -m tests.hostile               # the table and every case that is not ok
    python -m tests.hostile csv json      # only these categories
    python -m tests.hostile --markdown    # the same as a Markdown table (for notes)

Exit status 0 when every case is ok, 1 otherwise.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time

from .harness import CATEGORIES, VERDICTS, run_case

MODULES = {
    "csv": "test_csv",
    "predict": "test_predict_schema",
    "json": "test_model_json",
    "library": "test_library",
    "outputs": "test_outputs",
    "codegen": "test_codegen",
}


def all_cases(categories=CATEGORIES):
    cases = []
    for category in categories:
        module = importlib.import_module(f"{__package__}.{MODULES[category]}")
        cases.extend(module.CASES)
    return cases


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.hostile", description=__doc__.splitlines()[0])
    parser.add_argument("categories", nargs="*", help="categories to run (default: all)")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--all", action="store_true", help="also list the ok cases with what they saw")
    args = parser.parse_args(argv)
    categories = args.categories or list(CATEGORIES)
    counts = {c: dict.fromkeys(VERDICTS, 0) for c in categories}
    bad = []
    start = time.monotonic()
    for case in all_cases(categories):
        result = run_case(case)
        counts[case.category][result.verdict] += 1
        if result.verdict != "ok" or args.all:
            bad.append((case, result))
    took = time.monotonic() - start
    total = {v: sum(counts[c][v] for c in categories) for v in VERDICTS}
    n = sum(total.values())
    header = ["category", "cases", *VERDICTS]
    rows = [[c, str(sum(counts[c].values())), *(str(counts[c][v]) for v in VERDICTS)] for c in categories]
    rows.append(["total", str(n), *(str(total[v]) for v in VERDICTS)])
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        widths = [max(len(x) for x in col) for col in zip(header, *rows)]
        for r in (header, *rows):
            print("  ".join(x.rjust(w) if i else x.ljust(w) for i, (x, w) in enumerate(zip(r, widths))))
    print(f"\n{n} cases in {took:.1f} s; not ok: {n - total['ok']}")
    for case, result in bad:
        line = f"{case.id} [{result.verdict}]: {result.detail}".encode("utf-8", "backslashreplace").decode("utf-8")
        print(("- " if args.markdown else "  ") + (line if len(line) <= 400 else line[:397] + "..."))
    return 0 if total["ok"] == n else 1


if __name__ == "__main__":
    sys.exit(main())
