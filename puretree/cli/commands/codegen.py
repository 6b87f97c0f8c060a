"""``export`` (generated Python / C source) and ``verify`` (generated code against the model)."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from ...boosted import Boosted
from ...codegen.ensemble import generate as generate_any, measure_files, verify, verify_code
from ...codegen.leaves import LEAF_TYPES
from ...codegen.lower import FEATURE_TYPES, INDEX_TYPES, MANIFEST_MARK, check_options, feature_ranges, lower, resources
from ...codegen.render import environment
from ...ensemble import Ensemble
from ...codegen.verify import allowed_changes
from ...data import encode_table
from ...errors import CodegenError, ParameterError
from ...files import check_not_inputs, write_folder
from ...io import load
from ...io.formats import read_table
from ...mcu import CORES, DEFAULT_CORE, PACKAGES, check_tools
from .. import CommandLineError

__all__ = ["ORDER", "register", "arduino_files"]

ORDER = 40

_BUILT_IN = ("python", "c", "c-table", "javascript", "java", "rust")


def _name(text: str) -> str:
    try:
        check_options("c", {"name": text})
    except CodegenError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _max_changed(text: str) -> str:
    """``--max-changed``: a count of rows or a share ``P%`` (checked by :func:`~puretree.codegen.verify.allowed_changes`)."""

    try:
        allowed_changes(text, 0)
    except ParameterError:
        raise argparse.ArgumentTypeError(f"expected a number of rows (N) or a share of them (P%), got {text!r}") from None
    return text


class _Given(argparse.Action):
    """Store the value and remember that the user gave it (a default name is not a choice)."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        setattr(namespace, self.dest, values)
        namespace.name_given = True


def _common(p: argparse.ArgumentParser, *, targets: Any, required: bool = True, name_action: Any = "store") -> None:
    p.add_argument("model", metavar="MODEL.json")
    # --to reads as what it is here (the language), where fit's --target is a column (fit's alias: --label).
    p.add_argument("--to", "--target", dest="target", required=required, choices=targets, metavar="TARGET", help=f"the code to write: one of {', '.join(_BUILT_IN)}" + ("" if targets else ", or a target of --template-dir") + " (--to is the same option)")
    p.add_argument("--feature-type", choices=FEATURE_TYPES, default="double", help="C type of the features (default: double)")
    p.add_argument("--name", type=_name, default="tree", action=name_action, help="prefix of the generated files and symbols (default: tree)")
    p.add_argument("--index-type", choices=("auto", *INDEX_TYPES), default="auto", help="C index type of the node tables (default: the smallest that fits)")
    p.add_argument("--form", choices=("auto", "nested", "table", "compact", "shared"), default="auto", help="Python: nested if/else or a table (default: nested when shallow enough); C: compact is the smallest table (threshold splits, missing values under majority or error); shared (ensembles with c-table, boosted models with c): every member in one table, each distinct subtree once")
    p.add_argument("--no-proba", dest="proba", action="store_false", help="leave out predict_proba")
    p.add_argument("--template-dir", action="append", default=[], metavar="DIR", help="extra template folder, searched first (repeatable)")
    p.add_argument("--quantize", action="store_true", help="C with --feature-type int8/int16/int32: fixed point, each feature scaled from its training range (adds NAME_quantize)")
    p.add_argument("--ranges-from", metavar="TRAIN.csv", help="with --quantize (required): each feature's range is its smallest and largest value in this CSV (the training data)")
    p.add_argument("--certified", action="store_true",
                   help="a single tree: lower it after the rewrites that keep every answer of this code (unreachable branches removed, thresholds on the feature type's grid, with --no-proba subtrees of one class merged); verify checks it against the original model")
    p.add_argument("--leaf-type", choices=LEAF_TYPES, default="double",
                   help="C, classification: the leaf table's class probabilities as double (exact, the default) or uint8 (whole 255ths, one byte per class; verify reports the rows whose class that changes)")


def _options(args: argparse.Namespace, tree: Any = None) -> dict[str, Any]:
    options = {"feature_type": args.feature_type, "name": args.name, "index_type": args.index_type, "form": args.form, "proba": args.proba, "template_dirs": args.template_dir}
    if getattr(args, "selftest", False):
        options["selftest"] = True
    if getattr(args, "contributions", False):
        options["contributions"] = True
    if getattr(args, "certified", False):
        options["certified"] = True
    if args.leaf_type != "double":
        options["leaf_type"] = args.leaf_type
    if tree is not None and args.quantize:
        options["quantize"] = _ranges(args, tree)
    elif tree is not None and args.ranges_from is not None:
        raise CommandLineError("--ranges-from goes with --quantize")
    return options


def _ranges(args: argparse.Namespace, tree: Any) -> Any:
    """The feature ranges to quantize with: each column's smallest and largest value in --ranges-from."""

    if args.feature_type not in ("int8", "int16", "int32"):
        raise CommandLineError(f"--quantize needs --feature-type int8, int16 or int32, not {args.feature_type}")
    if args.ranges_from is None:
        # The model's JSON does not record the training ranges (yet): the data gives them.
        raise CommandLineError("--quantize needs each feature's training range: give --ranges-from TRAIN.csv (the training data, or any CSV spanning the readings to expect)")
    header, body, _ = read_table(args.ranges_from)
    return feature_ranges(encode_table(tree.schema, header, body))


def _export(args: argparse.Namespace) -> int:
    # OUT_DIR is replaced as a whole: neither the model nor a template may live in it.
    check_not_inputs(args.output, [args.model, *args.template_dir], folder=True)
    tree = load(args.model)
    if isinstance(tree, Boosted):
        _boosted_options(args)
    extra = {"language": args.language} if args.language else {}
    options = {**_options(args, tree), **extra}
    files = _generated(tree, args, options)
    report = _report(tree, args.target, options, files) if args.report else None  # before anything is written
    if args.layout == "arduino":
        paths = _export_arduino(tree, args.target, out_dir=args.output, generated=files, **options)
    else:
        paths = write_folder(args.output, files)
    for path in paths:
        print(path)
    if report is not None:
        print(report)
    return 0


def _generated(tree: Any, args: argparse.Namespace, options: dict[str, Any]) -> dict[str, str]:
    """The files to export: C measured on ``--measure-on``'s core, or by default (C targets
    ``c`` and ``c-table`` from the built-in templates, no ``--no-measure``) on the Cortex-M4
    when the Arm toolchain and QEMU are found. The default is best effort: without the tools,
    or when the measurement fails (a firmware too large for the board), one warning line on
    stderr and the header's note on how to measure; a core asked for by name must be measured."""
    if args.no_measure and args.measure_on:
        raise CommandLineError("--no-measure and --measure-on exclude each other")
    files = generate_any(tree, args.target, **options)
    if args.measure_on:
        return measure_files(tree, files, args.target, core=args.measure_on, **options)
    if args.no_measure or args.target not in ("c", "c-table") or args.template_dir:
        return files
    try:
        check_tools()
    except CodegenError:
        _warn(f"instructions per prediction not measured (needs arm-none-eabi-gcc, newlib and qemu-system-arm; Debian: apt-get install {' '.join(PACKAGES)})")
        return files
    try:
        return measure_files(tree, files, args.target, core=DEFAULT_CORE, **options)
    except CodegenError as exc:
        _warn(f"instructions per prediction not measured on {DEFAULT_CORE}: {str(exc).splitlines()[0][:300]}")
        return files


def _warn(text: str) -> None:
    print(f"puretree export: warning: {text}; --no-measure skips the measurement", file=sys.stderr)


def _boosted_options(args: argparse.Namespace) -> None:
    """Refuse the options a boosted model's code does not take (it is written in float or
    double; its C as tables, quantized with --quantize or as one shared table with --form shared;
    its other targets nested or as tables: --form)."""
    form_refused = args.form not in ("auto", "shared") and getattr(args, "target", None) in (None, "c", "c-table")
    asked = [flag for flag, given in (("--leaf-type", args.leaf_type != "double"), ("--template-dir", args.template_dir), ("--form", form_refused),
                                      ("--index-type", args.index_type != "auto"), ("--layout arduino", getattr(args, "layout", "flat") != "flat"),
                                      ("--report", getattr(args, "report", False)),
                                      ("--on", getattr(args, "on", None)), ("--code", getattr(args, "code", None))) if given]
    if asked:
        raise CommandLineError(f"{args.model} is a boosted model: its code is written for python, c, javascript, java or rust (C as tables), without {', '.join(asked)}")


def arduino_files(tree: Any, target: str, *, name: str = "tree", template_dirs: Any = (), generated: dict[str, str] | None = None, **options: Any) -> dict[str, str]:
    """The files of an Arduino / PlatformIO library (``{relative path: text}``): the generated
    C in ``src/`` (``generated``, or generated here), ``library.properties`` and an example
    sketch in ``examples/NAME_example/`` (templates ``_arduino_library.properties.j2`` and
    ``_arduino_example.ino.j2`` of the C target). The header's ``extern "C"`` lets the sketch,
    compiled as C++, link the C file."""

    files = generate_any(tree, target, name=name, template_dirs=template_dirs, **options) if generated is None else generated
    model = lower(tree, target, {"name": name, **{k: v for k, v in options.items() if k not in _NOT_LOWERED}})
    if model["language"] != "c":
        raise CodegenError(f"--layout arduino is for C targets, not {target!r}")
    env = environment(template_dirs)
    out = {f"src/{filename}": text for filename, text in files.items()}
    out["library.properties"] = env.get_template("c/_arduino_library.properties.j2").render(model=model, **model)
    out[f"examples/{name}_example/{name}_example.ino"] = env.get_template("c/_arduino_example.ino.j2").render(model=model, **model)
    return out


def _export_arduino(tree: Any, target: str, *, out_dir: str, **options: Any) -> list[Path]:
    """Write :func:`arduino_files` as the folder ``out_dir``: staged in a new folder next to
    it (each file written, flushed and fsynced by :func:`puretree.files.write_folder`), then
    renamed into place. An existing ``out_dir`` must be such a library exported before: it
    is replaced as a whole."""

    files = arduino_files(tree, target, **options)
    target_dir = os.path.abspath(out_dir)
    parent, base = os.path.split(target_dir)
    os.makedirs(parent, exist_ok=True)
    if os.path.lexists(target_dir):
        marker = os.path.join(target_dir, "library.properties")
        try:
            with open(marker, encoding="utf-8") as fh:
                ours = MANIFEST_MARK in fh.readline(4096)
        except (OSError, UnicodeDecodeError):
            ours = False
        if not ours:
            raise ParameterError(f"{out_dir}: exists and is not an Arduino library exported by puretree; write into a new folder")
    stage = tempfile.mkdtemp(prefix=f".{base}.", suffix=".tmp", dir=parent)
    placed = False
    aside = None
    try:
        folders: dict[str, dict[str, str]] = {}
        for rel, text in files.items():
            folder, _, filename = rel.rpartition("/")
            folders.setdefault(folder, {})[filename] = text
        for folder, content in sorted(folders.items()):
            write_folder(os.path.join(stage, folder) if folder else stage, content)
        mask = os.umask(0o022)  # read the umask (and put it back): mkdtemp made the folder private
        os.umask(mask)
        os.chmod(stage, 0o777 & ~mask)
        if os.path.lexists(target_dir):
            aside = tempfile.mkdtemp(prefix=f".{base}.", suffix=".old", dir=parent)
            os.rename(target_dir, aside)
        try:
            os.rename(stage, target_dir)
            placed = True
        except BaseException:
            if aside is not None:  # put the old library back
                os.rename(aside, target_dir)
                aside = None
            raise
    finally:
        if not placed:
            shutil.rmtree(stage, ignore_errors=True)
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)
    return [Path(out_dir) / rel for rel in sorted(files)]


#: Options that are not the tree's lowering: where templates are, and what is added to the code.
_NOT_LOWERED = ("template_dirs", "selftest", "contributions", "measure")


def _report(tree: Any, target: str, options: dict[str, Any], files: dict[str, str]) -> str:
    """What the generated C needs (:func:`puretree.codegen.lower.resources`), as text."""
    lowered = {k: v for k, v in options.items() if k not in _NOT_LOWERED}
    if isinstance(tree, Ensemble):
        return _ensemble_report(tree, target, lowered, files)
    model = lower(tree, target, lowered)
    if model["language"] != "c":
        return f"report: {model['comparisons']} comparisons at most per prediction (the flash and RAM figures are for C targets)"
    r = resources(model)
    parts = ", ".join(f"{k} {v}" for k, v in r["tables"].items())
    lines = [
        f"flash, tables: {r['flash_tables']} B ({parts}); plus the code (not counted here: bench/bench_codegen.py measures it)",
        f"flash, name tables: {r['names']} B of pointers on a 32-bit target, plus their strings (dropped by the linker's --gc-sections when nothing reads them)",
        f"RAM: {r['static_ram']} B static, about {r['stack']} B of stack ({model['name'].upper()}_MAX_STACK_BYTES), and the caller's features array",
        f"comparisons: at most {r['comparisons']} split tests per prediction (depth {r['depth']})",
    ]
    return "\n".join(lines)


def _ensemble_report(ens: Ensemble, target: str, lowered: dict[str, Any], files: dict[str, str]) -> str:
    """An ensemble's report: its members' tables (each lowered as the export lowers it) and the
    worst cases its header states (``NAME_MAX_COMPARISONS`` over all members, ``NAME_MAX_STACK_BYTES``)."""
    name = str(lowered.get("name", "tree"))
    if lowered.get("form") == "shared":
        raise CommandLineError("--report counts each member's tables; the shared table (--form shared) is measured by bench/bench_shared.py")
    members = [lower(m, target, {**lowered, "name": f"{name}_m{i}", "proba": not ens.schema.is_regression}) for i, m in enumerate(ens.members)]
    if members and members[0]["language"] != "c":
        return f"report: {sum(m['comparisons'] for m in members)} comparisons at most per prediction over {len(members)} members (the flash and RAM figures are for C targets)"
    used = [resources(m) for m in members]
    header = files.get(f"{name}.h", "")
    stated = {key: re.search(rf"#define {re.escape(name.upper())}_{key} (\d+)u", header) for key in ("MAX_COMPARISONS", "MAX_STACK_BYTES")}
    figures = {key: int(m.group(1)) if m else None for key, m in stated.items()}
    return "\n".join([
        f"members: {len(members)}; flash, tables: {sum(r['flash_tables'] for r in used)} B over the members (the largest member's {max(r['flash_tables'] for r in used)} B); "
        "plus the code and the combiner (not counted here: bench/bench_codegen.py measures them)",
        f"RAM: {sum(r['static_ram'] for r in used)} B static, about {figures['MAX_STACK_BYTES']} B of stack ({name.upper()}_MAX_STACK_BYTES), and the caller's features array",
        f"comparisons: at most {figures['MAX_COMPARISONS']} split tests per prediction over all members ({name.upper()}_MAX_COMPARISONS)",
    ])


def _code_folder(folder: str) -> str:
    """Where the exported files are: ``folder``, or its ``src`` when ``folder`` is the Arduino
    library that ``export --layout arduino`` writes (library.properties beside src/).

    >>> _code_folder("no/such/folder")
    'no/such/folder'
    """
    src = os.path.join(folder, "src")
    if os.path.isfile(os.path.join(folder, "library.properties")) and os.path.isdir(src):
        return src
    return folder


def _verify(args: argparse.Namespace) -> int:

    if args.code is None and args.target is None:
        raise CommandLineError("verify needs --target (to generate the code) or --code DIR (to check code already exported)")
    tree = load(args.model)
    if isinstance(tree, Boosted):
        _boosted_options(args)
    header, body, _ = read_table(args.data)
    X = encode_table(tree.schema, header, body)
    if args.code is not None and args.contributions:
        raise CommandLineError("--contributions checks the code verify generates (--to TARGET --contributions), not an exported folder (--code)")
    if args.code is not None:
        name = args.name if args.name_given else None
        manifest, report = verify_code(tree, X, _code_folder(args.code), name=name, sanitize=args.sanitize, on=args.on, max_changed=args.max_changed)
        if args.target is not None and args.target != manifest["target"]:
            raise CodegenError(f"{args.code}: holds {manifest['target']} code, not {args.target}")
        what = f"{args.code} ({manifest['target']}, {manifest['form']}, {manifest['feature_type']}, name {manifest['name']})"
        code = "the code in " + args.code
    else:
        report = verify(tree, X, args.target, sanitize=args.sanitize, on=args.on, max_changed=args.max_changed, **_options(args, tree))
        what = f"{args.target} ({args.feature_type}{', quantized' if args.quantize else ''}{', uint8 leaves' if args.leaf_type != 'double' else ''})"
        code = "generated code"
    if args.on:
        what += f" on {args.on} (QEMU)"
    if report.unreached:
        shown = ", ".join(map(str, report.unreached[:10])) + (", ..." if len(report.unreached) > 10 else "")
        print(f"note: {len(report.unreached)} nodes are reached by no row without missing values in the feature type (nodes {shown}): only missing-value rows check them")
    for row, want, got in report.mismatches[:10]:
        print(f"  row {row}: model {want!r}, {code} {got!r}")
    for row, want, got in report.contribution_mismatches[:10]:
        print(f"  contributions, row {row}: puretree {want!r}, {code} {got!r}")
    if report.n_contributions:
        print(f"{args.name}_contributions: checked {report.n_contributions} rows against puretree.explain.contributions bit for bit: {report.n_contribution_mismatches} mismatches")
    if report.changed_by_quantization is not None:
        for feature, value, want, got in report.quantize_mismatches[:10]:
            print(f"  quantize: feature {tree.schema.features[feature].name!r}, value {value!r}: puretree {want!r}, {code} {got!r}")
        qname = manifest["name"] if args.code is not None else args.name
        if report.n_quantized:  # a quantizer was checked (uint8 leaves alone have none)
            print(f"{qname}_quantize: checked {report.n_quantized} values against puretree's quantization: {report.n_quantize_mismatches} mismatches")
        changed, n = report.changed_by_quantization, len(body)
        share = f"{100 * changed / n:.3g}%" if n else "0%"
        verdict = "more than" if report.too_many_changed else "within"
        print(f"quantization changes the prediction of {changed} of the {n} rows ({share}) of {args.data} (the quantized model on quantized rows "
              f"against the float model): {verdict} the {report.max_changed} allowed (--max-changed {args.max_changed})")
    print(f"{what}: checked {report.n_checked} rows ({len(body)} from {args.data}, the rest at every node, threshold, unseen category and missing value): {report.n_mismatches} mismatches")
    return 0 if report.ok else 1


def register(sub: Any) -> None:
    p = sub.add_parser("export", help="compile a model (tree, ensemble or boosted) to Python, C, JavaScript, Java or Rust source", description="Write standalone source code (Python, C, JavaScript, Java or Rust) whose predictions equal the model's exactly: a tree, a forest, bagging, AdaBoost or a boosted model.")
    _common(p, targets=None)
    p.add_argument("--language", choices=("python", "c", "javascript"), help="literal syntax of a target from --template-dir")
    p.add_argument("--selftest", action="store_true", help="add NAME_selftest() (C) / selftest() (Python): up to 64 of the rows verify checks with the model's answers and its digest; 0 when the built code predicts them all as puretree did, else 1 + the first failing row's index")
    p.add_argument("--contributions", action="store_true", help="python, c, c-table: add NAME_contributions(x, out) (C) / contributions(row) (Python): the row's path-dependent TreeSHAP values, bit for bit puretree.explain.contributions (numeric features; see docs/explain.md)")
    p.add_argument("--measure-on", "--stack-on", dest="measure_on", choices=tuple(CORES), metavar="CORE",
                   help=f"C: state in the header the stack measured for CORE with arm-none-eabi-gcc -fstack-usage and the instructions per prediction on the emulated CORE, most and mean over the rows verify checks (default: {DEFAULT_CORE} when arm-none-eabi-gcc and qemu-system-arm are found; see docs/codegen.md)")
    p.add_argument("--no-measure", action="store_true", help="C: do not measure on the emulated core (the header then says how to)")
    p.add_argument("-o", "--output", required=True, metavar="OUT_DIR", help="folder for the generated files (created if needed); the files appear in it together, atomically")
    p.add_argument("--layout", choices=("flat", "arduino"), default="flat", help="flat: the files in OUT_DIR (default); arduino: an Arduino / PlatformIO library (library.properties, src/, an example sketch)")
    p.add_argument("--report", action="store_true", help="C: print the flash and RAM the generated tables need and the most comparisons one prediction makes")
    p.set_defaults(func=_export)

    p = sub.add_parser("verify", help="check generated code against the model", description="Compile or load the generated code (or, with --code, the code already exported to a folder), run it on the rows of a CSV file, at every node, on every threshold's neighbourhood, unseen categories and missing values, and compare with the model. Exits with status 1 when any prediction differs.")
    _common(p, targets=_BUILT_IN, required=False, name_action=_Given)
    p.add_argument("data", metavar="DATA.csv")
    p.add_argument("--code", metavar="DIR", help="check the files exported to DIR (as they are now) instead of generating code; how they were generated comes from their header")
    p.set_defaults(name_given=False)
    p.add_argument("--sanitize", action="store_true", help="C: also build with -fsanitize=address,undefined")
    p.add_argument("--max-changed", type=_max_changed, default="0", metavar="N|P%",
                   help="with --quantize or --leaf-type uint8: fail (exit 1) when the quantization changes the prediction of more than N rows of DATA.csv, or more than P%% of them (default: 0)")
    p.add_argument("--on", choices=tuple(CORES), metavar="CORE", help="C: run the code on an emulated microcontroller (cortex-m0, cortex-m3, cortex-m4, cortex-m7; needs qemu-system-arm, gcc-arm-none-eabi, libnewlib-arm-none-eabi)")
    p.add_argument("--contributions", action="store_true", help="python, c, c-table: the code carries NAME_contributions (export --contributions); compare its TreeSHAP values with puretree's bit for bit on the same rows")
    p.set_defaults(func=_verify)
