"""``export`` (generated Python / C source) and ``verify`` (generated code against the model)."""

from __future__ import annotations

import argparse
from typing import Any

from ..codegen.lower import FEATURE_TYPES, INDEX_TYPES, check_options
from ..codegen.render import export
from ..codegen.verify import verify
from ..data import encode_table, read_csv_table
from ..files import check_not_inputs
from ..io import load

ORDER = 40

BUILT_IN = ("python", "c", "c-table")


def _name(text: str) -> str:
    from ..errors import CodegenError

    try:
        check_options("c", {"name": text})
    except CodegenError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _common(p: argparse.ArgumentParser, *, targets: Any) -> None:
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("--target", required=True, choices=targets, metavar="TARGET", help=f"one of {', '.join(BUILT_IN)}" + ("" if targets else ", or a target of --template-dir"))
    p.add_argument("--feature-type", choices=FEATURE_TYPES, default="double", help="C type of the features (default: double)")
    p.add_argument("--name", type=_name, default="tree", help="prefix of the generated files and symbols (default: tree)")
    p.add_argument("--index-type", choices=("auto", *INDEX_TYPES), default="auto", help="C index type of the node tables (default: the smallest that fits)")
    p.add_argument("--form", choices=("auto", "nested", "table"), default="auto", help="Python: nested if/else or a table (default: nested when shallow enough)")
    p.add_argument("--no-proba", dest="proba", action="store_false", help="leave out predict_proba")
    p.add_argument("--template-dir", action="append", default=[], metavar="DIR", help="extra template folder, searched first (repeatable)")


def _options(args: argparse.Namespace) -> dict[str, Any]:
    return {"feature_type": args.feature_type, "name": args.name, "index_type": args.index_type, "form": args.form, "proba": args.proba, "template_dirs": args.template_dir}


def _export(args: argparse.Namespace) -> int:
    # OUT_DIR is replaced as a whole: neither the model nor a template may live in it.
    check_not_inputs(args.output, [args.model, *args.template_dir], folder=True)
    tree = load(args.model)
    extra = {"language": args.language} if args.language else {}
    paths = export(tree, args.target, out_dir=args.output, **_options(args), **extra)
    for path in paths:
        print(path)
    return 0


def _verify(args: argparse.Namespace) -> int:
    tree = load(args.model)
    header, body = read_csv_table(args.data)
    X = encode_table(tree.schema, header, body)
    report = verify(tree, X, args.target, sanitize=args.sanitize, **_options(args))
    print(f"{args.target} ({args.feature_type}): checked {report.n_checked} rows ({len(body)} from {args.data}, the rest at thresholds, unseen categories and missing values): {len(report.mismatches)} mismatches")
    for row, want, got in report.mismatches[:10]:
        print(f"  row {row}: model {want!r}, generated code {got!r}")
    return 0 if report.ok else 1


def register(sub: Any) -> None:
    p = sub.add_parser("export", help="compile a tree to Python or C source", description="Write standalone source code whose predictions equal the model's exactly.")
    _common(p, targets=None)
    p.add_argument("--language", choices=("python", "c", "javascript"), help="literal syntax of a target from --template-dir")
    p.add_argument("-o", "--output", required=True, metavar="OUT_DIR", help="folder for the generated files (created if needed); the files appear in it together, atomically")
    p.set_defaults(func=_export)

    p = sub.add_parser("verify", help="check generated code against the model", description="Compile or load the generated code, run it on the rows of a CSV file and on every threshold's neighbourhood, and compare with the model. Exits with status 1 when any prediction differs.")
    _common(p, targets=BUILT_IN)
    p.add_argument("data", metavar="DATA.csv")
    p.add_argument("--sanitize", action="store_true", help="C: also build with -fsanitize=address,undefined")
    p.set_defaults(func=_verify)
