"""Rendering: the Jinja environment, template folders, ``generate`` and ``export``.

A *target* is a folder of templates: ``codegen_templates/<target>/``. Every template whose
file name does not start with ``_`` produces one file, named by replacing ``NAME`` in the
template's name (``NAME.c.j2`` -> ``tree.c``); files starting with ``_`` are shared pieces
to include. Extra template folders (``template_dirs``) are searched first, so a user can
override one template of a built-in target or add a target of their own.

>>> from puretree.datasets import load_playtennis
>>> from puretree.grow import id3
>>> files = generate(id3(load_playtennis()), "c", name="tennis")
>>> sorted(files)
['tennis.c', 'tennis.h']
>>> "int tennis_predict(const double *features);" in files["tennis.h"]
True
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2

from ..errors import CodegenError
from ..files import write_folder
from .lower import lower

if TYPE_CHECKING:  # the tree value sits above: its one-row answers run the generated code
    from ..tree import Tree

__all__ = ["template_roots", "environment", "targets", "smaller_first", "first_reads", "loop_form", "generate", "export"]


def template_roots() -> list[Path]:
    """The built-in template folders: inside the installed package, or the source checkout's."""
    here = Path(__file__).resolve().parent
    candidates = [here.parent / "codegen_templates", here.parent.parent / "codegen_templates"]
    return [p for p in candidates if p.is_dir()][:1]


def _user_roots(template_dirs: Iterable[str | os.PathLike[str]] | None) -> list[Path]:
    roots = []
    for d in template_dirs or ():
        p = Path(d)
        if not p.is_dir():
            raise CodegenError(f"template folder {str(d)!r} does not exist")
        roots.append(p)
    return roots


def environment(template_dirs: Iterable[str | os.PathLike[str]] | None = None) -> jinja2.Environment:
    """The Jinja environment: user folders first, then the built-in templates.

    ``StrictUndefined`` turns a misspelt name into an error instead of empty output;
    ``autoescape`` is off because the output is code, and every user string arrives already
    escaped for its language by :mod:`puretree.codegen.literals`.
    """
    roots = _user_roots(template_dirs) + template_roots()
    if not roots:
        raise CodegenError("the code templates are missing from this installation")
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(r) for r in roots]),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["wrap"] = wrap
    return env


def wrap(values: Iterable[Any], per_line: int = 16, suffix: str = "", indent: str = "    ") -> str:
    """Array items as text, ``per_line`` to a line, each followed by ``suffix`` (e.g. ``u``).

    >>> print(wrap([1, 2, 3], 2, "u"))
    1u, 2u,
        3u
    """
    items = [f"{v}{suffix}" for v in values]
    lines = [", ".join(items[i: i + per_line]) for i in range(0, len(items), per_line)]
    return (",\n" + indent).join(lines)


def targets(template_dirs: Iterable[str | os.PathLike[str]] | None = None) -> list[str]:
    """The targets available: built-in ones and those in the extra template folders.

    >>> targets()
    ['c', 'c-table', 'java', 'javascript', 'python', 'rust']
    """
    found: set[str] = set()
    for root in _user_roots(template_dirs) + template_roots():
        found.update(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    return sorted(found)


def smaller_first(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The nested form's statements with the smaller branch of each ``x <= t`` split first.

    A split written ``if test: A else: B`` whose ``B`` has fewer statements than ``A`` becomes
    ``if not test: B else: A``; its test gets ``swapped`` (the template writes the negated
    comparison, which sends a missing value the same way). Why: CPython jumps over the
    ``if`` body to reach the ``else``; a jump over more than 255 instructions takes an
    ``EXTENDED_ARG``, and a comparison followed by one is never specialized (CPython 3.11
    compares two floats through the generic path there, several times slower). With the
    smaller body first, most jumps stay short whichever branch a row takes.

    >>> lines = [{"depth": 0, "op": "if", "test": {"feature": 3, "kind": "le"}},
    ...          {"depth": 1, "op": "result", "outcome": 0},
    ...          {"depth": 0, "op": "else"},
    ...          {"depth": 1, "op": "if", "test": {"feature": 1, "kind": "le"}},
    ...          {"depth": 2, "op": "result", "outcome": 1},
    ...          {"depth": 1, "op": "else"},
    ...          {"depth": 2, "op": "result", "outcome": 2},
    ...          {"depth": 1, "op": "end"},
    ...          {"depth": 0, "op": "end"}]
    >>> [(x["op"], x.get("outcome", x.get("test", {}).get("swapped"))) for x in smaller_first(lines)]
    [('if', None), ('result', 0), ('else', None), ('if', None), ('result', 1), ('else', None), ('result', 2), ('end', None), ('end', None)]
    >>> lines[1:3] = [{"depth": 1, "op": "if", "test": {"feature": 2, "kind": "le"}}, {"depth": 2, "op": "result", "outcome": 3},
    ...               {"depth": 1, "op": "else"}, {"depth": 2, "op": "result", "outcome": 4}, {"depth": 1, "op": "end"}, {"depth": 0, "op": "else"}]
    >>> lines[7:] = [{"depth": 1, "op": "result", "outcome": 0}, {"depth": 0, "op": "end"}]
    >>> [(x["op"], x.get("outcome", x.get("test", {}).get("swapped"))) for x in smaller_first(lines)]
    [('if', True), ('result', 0), ('else', None), ('if', None), ('result', 3), ('else', None), ('result', 4), ('end', None), ('end', None)]
    """

    def block(i: int) -> tuple[list[dict[str, Any]], int]:
        # The statements from i on, deeper than lines[i - 1], and where they end.
        d = lines[i - 1]["depth"]
        k = i
        while k < len(lines) and lines[k]["depth"] > d:
            k += 1
        return rewrite(i, k), k

    def rewrite(start: int, stop: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        i = start
        while i < stop:
            line = lines[i]
            test: dict[str, Any] = line.get("test") or {}
            if line["op"] == "if" and test["kind"] == "le":
                body, k = block(i + 1)
                if k < stop and lines[k]["op"] == "else" and lines[k]["depth"] == line["depth"]:
                    other, m = block(k + 1)
                    if len(other) < len(body):
                        body, other = other, body
                        line = {**line, "test": {**test, "swapped": True}}
                    out += [line, *body, lines[k], *other]
                    i = m
                    continue
                out += [line, *body]
                i = k
                continue
            out.append(line)
            i += 1
        return out

    return rewrite(0, len(lines)) if lines else []


def first_reads(lines: list[dict[str, Any]], categorical: Iterable[int] = ()) -> list[dict[str, Any]]:
    """The nested form's statements, marked for code that reads a row lazily.

    Each ``if`` gets ``first_read``: whether no split enclosing it reads its feature, so that
    the code fetches and converts the cell there (every test of a split reads one feature,
    and a split's first test is its ``if``). When that first read is of a numeric feature
    (not in ``categorical``), the split's branches get ``infinite``: ``(feature, -1)`` on the
    ``x <= t`` branch, where only ``-inf`` can arrive, ``(feature, 1)`` on the other, where
    only ``+inf`` can: the one value each branch must check to find an infinite number.

    >>> lines = [{"depth": 0, "op": "if", "test": {"feature": 3, "kind": "le"}},
    ...          {"depth": 1, "op": "if", "test": {"feature": 3, "kind": "le"}},
    ...          {"depth": 2, "op": "result", "outcome": 0},
    ...          {"depth": 1, "op": "else"},
    ...          {"depth": 2, "op": "result", "outcome": 1},
    ...          {"depth": 1, "op": "end"},
    ...          {"depth": 0, "op": "else"},
    ...          {"depth": 1, "op": "if", "test": {"feature": 0, "kind": "codes"}}]
    >>> [(line.get("first_read"), line.get("infinite")) for line in first_reads(lines, categorical={0})]
    [(True, (3, -1)), (False, None), (None, None), (None, None), (None, None), (None, None), (None, (3, 1)), (True, None)]
    """
    skip = set(categorical)
    out = []
    path: list[int] = []  # path[d]: the feature read by the split whose ``if`` is at depth d
    opened: dict[int, int | None] = {}  # depth -> the numeric feature its split reads first
    swapped: dict[int, bool] = {}  # depth -> whether its split's if is the x > t branch
    for line in lines:
        op, d = line["op"], line["depth"]
        if op == "if":
            j = line["test"]["feature"]
            del path[d:]
            first = j not in path
            line = {**line, "first_read": first}
            path.append(j)
            opened[d] = j if first and j not in skip else None
        j = opened.get(d)
        if op == "if":
            swapped[d] = bool(line["test"].get("swapped"))
        if j is not None and op in ("if", "elif") and line["test"]["kind"] == "le":
            line = {**line, "infinite": (j, 1 if swapped.get(d) else -1)}
        elif j is not None and op == "else":
            line = {**line, "infinite": (j, -1 if swapped.get(d) else 1)}
        elif op == "end":
            opened.pop(d, None)
        out.append(line)
    return out


#: Statements in a split's first branch above which loop_form leaves it through a loop:
#: about where CPython's jump over the branch needs an EXTENDED_ARG (255 instructions).
LOOP_LINES = 16
#: Loops nested at most (CPython allows 20 nested blocks; the function's try is one).
LOOP_NESTING = 16


def loop_form(lines: list[dict[str, Any]], *, min_lines: int = LOOP_LINES, max_nesting: int = LOOP_NESTING) -> list[dict[str, Any]]:
    """The nested form's statements (marked by :func:`first_reads`), where a long first branch
    is left through a loop, so that the split's comparison jumps over one ``break``.

    ``if test: A else: B`` (an ``x <= t`` split; A more than ``min_lines`` statements) becomes
    a ``loop`` statement (rendered ``while True: if test: break``) followed by B inside the
    loop (B always returns or raises), and A after it, one level less indented; each branch's
    check for an infinity becomes a ``check`` statement at its start. Why: CPython 3.11 only
    specializes a comparison of two floats when the jump after it is short; a jump over a
    long branch takes an EXTENDED_ARG and leaves the comparison on its generic (slower)
    path, at every split near the root. At most ``max_nesting`` loops enclose one another.

    >>> leaf = lambda d, k: {"depth": d, "op": "result", "outcome": k}
    >>> lines = [{"depth": 0, "op": "if", "test": {"feature": 0, "kind": "le"}, "infinite": (0, -1)},
    ...          {"depth": 1, "op": "if", "test": {"feature": 1, "kind": "le"}}, leaf(2, 0),
    ...          {"depth": 1, "op": "else"}, leaf(2, 1), {"depth": 1, "op": "end"},
    ...          {"depth": 0, "op": "else", "infinite": (0, 1)}, leaf(1, 2), {"depth": 0, "op": "end"}]
    >>> [(x["depth"], x["op"], x.get("outcome", x.get("infinite"))) for x in loop_form(lines, min_lines=3)]
    [(0, 'loop', None), (1, 'check', (0, 1)), (1, 'result', 2), (0, 'check', (0, -1)), (0, 'if', None), (1, 'result', 0), (0, 'else', None), (1, 'result', 1), (0, 'end', None), (0, 'end', None)]
    """

    def end_of(i: int) -> int:
        # Where the block of statements deeper than lines[i - 1] ends.
        d = lines[i - 1]["depth"]
        k = i
        while k < len(lines) and lines[k]["depth"] > d:
            k += 1
        return k

    def shifted(block: list[dict[str, Any]], by: int) -> list[dict[str, Any]]:
        return [{**x, "depth": x["depth"] + by} for x in block] if by else block

    def rewrite(start: int, stop: int, nesting: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        i = start
        while i < stop:
            line = lines[i]
            if line["op"] == "if" and line["test"]["kind"] == "le":
                k = end_of(i + 1)
                if k < stop and lines[k]["op"] == "else" and lines[k]["depth"] == line["depth"] and k - i - 1 > min_lines and nesting < max_nesting:
                    m = end_of(k + 1)
                    d = line["depth"]
                    loop = {key: v for key, v in line.items() if key != "infinite"}
                    out.append({**loop, "op": "loop"})
                    if lines[k].get("infinite"):
                        out.append({"depth": d + 1, "op": "check", "infinite": lines[k]["infinite"]})
                    out += rewrite(k + 1, m, nesting + 1)
                    if line.get("infinite"):
                        out.append({"depth": d, "op": "check", "infinite": line["infinite"]})
                    out += shifted(rewrite(i + 1, k, nesting), -1)
                    i = m
                    if i < stop and lines[i]["op"] == "end" and lines[i]["depth"] == d:
                        out.append(lines[i])
                        i += 1
                    continue
            out.append(line)
            i += 1
        return out

    return rewrite(0, len(lines), 0) if lines else []


def _outputs(env: jinja2.Environment, target: str) -> list[str]:
    prefix = f"{target}/"
    names = [] if target.startswith("_") else sorted(t for t in env.list_templates() if t.startswith(prefix) and "/" not in t[len(prefix):] and t.endswith(".j2") and not t[len(prefix):].startswith("_"))
    if not names:
        raise CodegenError(f"unknown target {target!r}; available: {targets_of(env)}")
    return names


def targets_of(env: jinja2.Environment) -> list[str]:
    # A folder whose name starts with "_" holds parts of other targets (_ensemble), not a target.
    return sorted({t.split("/", 1)[0] for t in env.list_templates() if "/" in t and not t.startswith("_")})


def generate(
    tree: Tree,
    target: str,
    *,
    name: str = "tree",
    feature_type: str = "double",
    proba: bool = True,
    form: str = "auto",
    index_type: str = "auto",
    language: str | None = None,
    template_dirs: Iterable[str | os.PathLike[str]] | None = None,
    quantize: Any = None,
    leaf_type: str = "double",
    certified: bool = False,
) -> dict[str, str]:
    """The generated files for ``tree`` as ``{file name: content}``; nothing is written.

    ``target``: ``"python"``, ``"c"`` (nested if/else), ``"c-table"`` (node tables and one
    loop) or a target from ``template_dirs``. ``feature_type`` (C): ``double``, ``float``,
    ``int8``, ``int16`` or ``int32``. ``proba``: also generate ``predict_proba``. ``form`` (C: ``compact``, the smallest table; Python):
    ``auto`` picks nested if/else when the tree is shallow enough, a table otherwise.
    ``index_type`` (C): ``auto`` (the smallest that fits) or ``uint8_t``/``uint16_t``/``uint32_t``;
    a tree too large for it raises :class:`~puretree.errors.CodegenError`. ``quantize`` (C,
    int8/int16/int32): one ``(low, high)`` range per feature (:func:`~puretree.codegen.lower.feature_ranges`
    of the training data): fixed point, with a ``NAME_quantize`` function. ``leaf_type`` (C,
    classification): ``double`` (exact probabilities) or ``uint8`` (each class probability in
    whole 255ths: :mod:`puretree.codegen.leaves`). ``certified``: lower the tree after the
    rewrites that keep every answer of this code (:func:`puretree.codegen.certified.certified`:
    unreachable branches removed, thresholds on the feature type's grid and, without
    ``proba``, subtrees of one class merged).
    """
    env = environment(template_dirs)
    outputs = _outputs(env, target)
    model = lower(tree, target, {"name": name, "feature_type": feature_type, "proba": proba, "form": form, "index_type": index_type, "language": language, "quantize": quantize, "leaf_type": leaf_type, "certified": certified})
    python = model.get("language") == "python"
    lines = first_reads(smaller_first(model["lines"]) if python else model["lines"], [f["index"] for f in model["features"] if f["categorical"]])
    model["lines"] = loop_form(lines) if python else lines
    files = {}
    for template in outputs:
        filename = template.split("/", 1)[1][: -len(".j2")].replace("NAME", name)
        try:
            files[filename] = env.get_template(template).render(model=model, **model)
        except jinja2.TemplateError as exc:
            raise CodegenError(f"template {template!r} failed: {exc}") from exc
    return files


def export(
    tree: Tree,
    target: str,
    *,
    out_dir: str | os.PathLike[str],
    name: str = "tree",
    feature_type: str = "double",
    template_dirs: Iterable[str | os.PathLike[str]] | None = None,
    **options: Any,
) -> list[Path]:
    """Write the generated files into the folder ``out_dir``, as a whole; returns their paths.

    The files appear together or not at all: they are written into a temporary folder next
    to ``out_dir``, which then replaces ``out_dir`` atomically, keeping any other file it held
    (:func:`puretree.files.write_folder`; a folder holding a subfolder is refused).
    """
    files = generate(tree, target, name=name, feature_type=feature_type, template_dirs=template_dirs, **options)
    return write_folder(out_dir, files)
