"""``export`` (generated Python / C source) and ``verify`` (generated code against the model)."""

from __future__ import annotations

import argparse
from typing import Any

from ..codegen.lower import FEATURE_TYPES, INDEX_TYPES, check_options
from ..codegen.render import export
from ..codegen.verify import verify, verify_code
from ..data import encode_table, read_csv_table
from ..files import check_not_inputs
from ..io import load
from ..mcu import CORES

ORDER = 40

BUILT_IN = ("python", "c", "c-table")


def _name(text: str) -> str:
    from ..errors import CodegenError

    try:
        check_options("c", {"name": text})
    except CodegenError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


class _Given(argparse.Action):
    """Store the value and remember that the user gave it (a default name is not a choice)."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        setattr(namespace, self.dest, values)
        namespace.name_given = True


def _common(p: argparse.ArgumentParser, *, targets: Any, required: bool = True, name_action: Any = "store") -> None:
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("--target", required=required, choices=targets, metavar="TARGET", help=f"one of {', '.join(BUILT_IN)}" + ("" if targets else ", or a target of --template-dir"))
    p.add_argument("--feature-type", choices=FEATURE_TYPES, default="double", help="C type of the features (default: double)")
    p.add_argument("--name", type=_name, default="tree", action=name_action, help="prefix of the generated files and symbols (default: tree)")
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
    if args.stack_on:
        from ..files import write_folder
        from ..mcu import generate_with_stack

        paths = write_folder(args.output, generate_with_stack(tree, args.target, core=args.stack_on, **_options(args)))
    else:
        paths = export(tree, args.target, out_dir=args.output, **_options(args), **extra)
    for path in paths:
        print(path)
    return 0


def _verify(args: argparse.Namespace) -> int:
    from ..cli import CommandLineError
    from ..errors import CodegenError

    if args.code is None and args.target is None:
        raise CommandLineError("verify needs --target (to generate the code) or --code DIR (to check code already exported)")
    tree = load(args.model)
    header, body = read_csv_table(args.data)
    X = encode_table(tree.schema, header, body)
    if args.code is not None:
        name = args.name if args.name_given else None
        manifest, report = verify_code(tree, X, args.code, name=name, sanitize=args.sanitize, on=args.on)
        if args.target is not None and args.target != manifest["target"]:
            raise CodegenError(f"{args.code}: holds {manifest['target']} code, not {args.target}")
        what = f"{args.code} ({manifest['target']}, {manifest['form']}, {manifest['feature_type']}, name {manifest['name']})"
        code = "the code in " + args.code
    else:
        report = verify(tree, X, args.target, sanitize=args.sanitize, on=args.on, **_options(args))
        what = f"{args.target} ({args.feature_type})"
        code = "generated code"
    if args.on:
        what += f" on {args.on} (QEMU)"
    if report.unreached:
        shown = ", ".join(map(str, report.unreached[:10])) + (", ..." if len(report.unreached) > 10 else "")
        print(f"note: {len(report.unreached)} nodes are reached by no row without missing values in the feature type (nodes {shown}): only missing-value rows check them")
    for row, want, got in report.mismatches[:10]:
        print(f"  row {row}: model {want!r}, {code} {got!r}")
    print(f"{what}: checked {report.n_checked} rows ({len(body)} from {args.data}, the rest at every node, threshold, unseen category and missing value): {report.n_mismatches} mismatches")
    return 0 if report.ok else 1


def register(sub: Any) -> None:
    p = sub.add_parser("export", help="compile a tree to Python or C source", description="Write standalone source code whose predictions equal the model's exactly.")
    _common(p, targets=None)
    p.add_argument("--language", choices=("python", "c", "javascript"), help="literal syntax of a target from --template-dir")
    p.add_argument("--stack-on", choices=tuple(CORES), metavar="CORE", help="C: state in the header the stack measured for CORE with arm-none-eabi-gcc -fstack-usage (see docs/codegen.md)")
    p.add_argument("-o", "--output", required=True, metavar="OUT_DIR", help="folder for the generated files (created if needed); the files appear in it together, atomically")
    p.set_defaults(func=_export)

    p = sub.add_parser("verify", help="check generated code against the model", description="Compile or load the generated code (or, with --code, the code already exported to a folder), run it on the rows of a CSV file, at every node, on every threshold's neighbourhood, unseen categories and missing values, and compare with the model. Exits with status 1 when any prediction differs.")
    _common(p, targets=BUILT_IN, required=False, name_action=_Given)
    p.add_argument("data", metavar="DATA.csv")
    p.add_argument("--code", metavar="DIR", help="check the files exported to DIR (as they are now) instead of generating code; how they were generated comes from their header")
    p.set_defaults(name_given=False)
    p.add_argument("--sanitize", action="store_true", help="C: also build with -fsanitize=address,undefined")
    p.add_argument("--on", choices=tuple(CORES), metavar="CORE", help="C: run the code on an emulated microcontroller (cortex-m0, cortex-m3, cortex-m4, cortex-m7; needs qemu-system-arm, gcc-arm-none-eabi, libnewlib-arm-none-eabi)")
    p.set_defaults(func=_verify)
