"""The hostile sweep's harness: a case is data, running it gives one verdict.

A :class:`Case` names its category, what it builds (files in a fresh folder, a library call)
and what must happen (a specific :class:`~puretree.errors.PuretreeError` subclass whose message
names the culprit, or a specific correct result). :func:`run_case` classifies what actually
happened as one of :data:`VERDICTS`:

- ``ok``: what the case expects;
- ``traceback``: an exception that is not a ``PuretreeError`` escaped (or, on the command line,
  ``Traceback`` / ``internal error`` on stderr);
- ``wrong``: a successful run with a wrong result, or success where an error was due;
- ``lost data``: a file the user had is gone, truncated, mixed or changed;
- ``hang``: the case ran past its time (or memory) guard;
- ``unclear``: an error of the wrong class, on more than one line, or not naming the column,
  row, line, value or path it must name.

Cases that can loop or exhaust memory on a faulty build run in a forked child under a time
and address-space limit (``guard=seconds``); everything else runs in-process, so the sweep is
fast. Nothing here is random.

>>> from puretree.errors import DataError
>>> case = lib_error("demo", lambda tmp: int("x"), DataError, ["x"], category="library")
>>> run_case(case).verdict
'traceback'
"""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import os
import re
import resource
import signal
import tempfile
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "VERDICTS",
    "CATEGORIES",
    "Case",
    "Result",
    "run_case",
    "cli_error",
    "cli_ok",
    "lib_error",
    "lib_ok",
    "custom",
    "run_cli",
    "write_files",
    "snapshot",
    "lost_files",
    "needs",
    "ids",
    "check",
]

VERDICTS = ("ok", "traceback", "wrong", "lost data", "hang", "unclear")
CATEGORIES = ("csv", "predict", "json", "library", "outputs", "codegen")

#: Address-space cap of a guarded child: a faulty build that allocates without bound stops here.
GUARD_MEMORY = 4_000_000_000


@dataclass(frozen=True)
class Result:
    verdict: str
    detail: str = ""


@dataclass(frozen=True)
class Case:
    """One hostile input or fault: ``body(tmp)`` runs it in a fresh folder and returns a Result."""

    category: str
    name: str
    body: Callable[[Path], Result] = field(repr=False)
    guard: float | None = None  # seconds: run in a forked child with this time limit

    @property
    def id(self) -> str:
        return f"{self.category}/{self.name}"


def ids(cases: Sequence[Case]) -> list[str]:
    return [c.name for c in cases]


def check(case: Case) -> None:
    """The body of each parametrized test: the case's verdict must be ``ok``."""
    result = run_case(case)
    assert result.verdict == "ok", f"{result.verdict}: {result.detail}"


# -- files ----------------------------------------------------------------------------------


FileSpec = Mapping[str, "str | bytes | Callable[[Path], Any]"]


def write_files(tmp: Path, files: FileSpec) -> None:
    """Write each file (text as UTF-8 with no newline translation, bytes as they are); a
    callable builds its file itself (``f(path)``)."""
    for name, content in files.items():
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if callable(content):
            content(path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))


def snapshot(tmp: Path) -> dict[str, bytes]:
    """Every regular file under ``tmp`` (relative name -> bytes)."""
    out = {}
    for path in sorted(tmp.rglob("*")):
        if path.is_file() and not path.is_symlink():
            out[str(path.relative_to(tmp))] = path.read_bytes()
    return out


def lost_files(tmp: Path, before: Mapping[str, bytes], *, may_change: Iterable[str] = ()) -> list[str]:
    """Files that were there before and are now gone or different (outside ``may_change``)."""
    allowed = set(may_change)
    lost = []
    for name, content in before.items():
        if name in allowed:
            continue
        path = tmp / name
        if not path.is_file() or path.read_bytes() != content:
            lost.append(name)
    return lost


# -- running --------------------------------------------------------------------------------


@contextlib.contextmanager
def _cwd(path: Path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def run_cli(argv: Sequence[str], cwd: Path) -> tuple[int | None, str, str, str | None]:
    """``puretree.cli.main(argv)`` in-process: (status, stdout, stderr, escaped exception)."""
    from puretree.cli import main

    out, err = io.StringIO(), io.StringIO()
    escaped = None
    status: int | None = None
    with _cwd(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exc:  # argparse --help / --version
            status = exc.code if isinstance(exc.code, int) else 1
        except BaseException as exc:  # noqa: BLE001 - anything that escapes main is the finding
            escaped = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return status, out.getvalue(), err.getvalue(), escaped


def _matches(fragment: "str | re.Pattern[str]", text: str) -> bool:
    if isinstance(fragment, re.Pattern):
        return fragment.search(text) is not None
    return fragment.lower() in text.lower()


def _missing_fragments(fragments: Iterable["str | re.Pattern[str]"], text: str) -> list[str]:
    return [f.pattern if isinstance(f, re.Pattern) else f for f in fragments if not _matches(f, text)]


def _short(text: str, n: int = 300) -> str:
    # One line, printable anywhere (a lone surrogate in a message must not break the report).
    text = " ".join(str(text).split()).encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= n else text[: n - 3] + "..."


def classify_cli_error(status: int | None, out: str, err: str, escaped: str | None, *, fragments: Sequence[Any], expect_status: "int | tuple[int, ...] | None") -> Result:
    """The verdict of a command that must fail with one clear line on stderr."""
    if escaped is not None:
        return Result("traceback", f"escaped main: {_short(escaped)}")
    if "Traceback" in err or "internal error" in err:
        return Result("traceback", _short(err))
    if status == 0:
        return Result("wrong", f"exit 0, expected an error; stdout: {_short(out, 160)}")
    lines = [l for l in err.splitlines() if l.strip()]
    if len(lines) != 1:
        return Result("unclear", f"{len(lines)} lines on stderr: {_short(err)}")
    missing = _missing_fragments(fragments, lines[0])
    if missing:
        return Result("unclear", f"message does not name {missing}: {_short(lines[0])}")
    allowed = expect_status if isinstance(expect_status, tuple) else (expect_status,)
    if expect_status is not None and status not in allowed:
        return Result("unclear", f"exit {status}, expected {expect_status}: {_short(lines[0])}")
    return Result("ok", _short(lines[0]))


def cli_error(
    name: str,
    files: FileSpec,
    argv: Sequence[str],
    fragments: Sequence[Any],
    *,
    category: str,
    status: "int | tuple[int, ...] | None" = 1,
    may_change: Iterable[str] = (),
    guard: float | None = None,
) -> Case:
    """A command that must fail: exit ``status`` (or one of several), one line naming every
    fragment, no file lost."""
    may_change = tuple(may_change)

    def body(tmp: Path) -> Result:
        write_files(tmp, files)
        before = snapshot(tmp)
        status_, out, err, escaped = run_cli(argv, tmp)
        result = classify_cli_error(status_, out, err, escaped, fragments=fragments, expect_status=status)
        if result.verdict in ("ok", "unclear", "wrong"):
            lost = lost_files(tmp, before, may_change=may_change)
            if lost:
                return Result("lost data", f"changed or removed: {lost}; {result.detail}")
        return result

    return Case(category, name, body, guard)


Check = Callable[[str, str, Path], "str | None"]


def cli_ok(
    name: str,
    files: FileSpec,
    argv: Sequence[str],
    check: Check,
    *,
    category: str,
    may_change: Iterable[str] = (),
    guard: float | None = None,
) -> Case:
    """A command that must succeed (exit 0, nothing on stderr) and pass ``check(stdout, stderr,
    folder)``, which returns ``None`` or what is wrong (``"lost data: ..."`` for a lost file)."""
    may_change = tuple(may_change)

    def body(tmp: Path) -> Result:
        write_files(tmp, files)
        before = snapshot(tmp)
        status, out, err, escaped = run_cli(argv, tmp)
        if escaped is not None:
            return Result("traceback", f"escaped main: {_short(escaped)}")
        if "Traceback" in err or "internal error" in err:
            return Result("traceback", _short(err))
        lost = lost_files(tmp, before, may_change=may_change)
        if lost:
            return Result("lost data", f"changed or removed: {lost}")
        if status != 0:
            return Result("wrong", f"exit {status}, expected success: {_short(err)}")
        problem = check(out, err, tmp)
        if problem:
            if problem.startswith("lost data:"):
                return Result("lost data", problem[len("lost data:") :].strip())
            return Result("wrong", problem)
        return Result("ok")

    return Case(category, name, body, guard)


def lib_error(
    name: str,
    call: Callable[[Path], Any],
    error: "type[BaseException] | tuple[type[BaseException], ...]",
    fragments: Sequence[Any],
    *,
    category: str,
    guard: float | None = None,
) -> Case:
    """A library call that must raise ``error`` (or a subclass; a tuple allows several) naming
    every fragment. A non-puretree class in ``error`` (``TypeError`` for a misspelt keyword of a
    plain function, as Python itself reports it) is accepted only when listed."""
    errors = error if isinstance(error, tuple) else (error,)

    def body(tmp: Path) -> Result:
        from puretree.errors import PuretreeError

        try:
            value = call(tmp)
        except PuretreeError as exc:
            text = str(exc)
            if not isinstance(exc, errors):
                wanted = " or ".join(e.__name__ for e in errors)
                return Result("unclear", f"{type(exc).__name__}, expected {wanted}: {_short(text)}")
            missing = _missing_fragments(fragments, text)
            if missing:
                return Result("unclear", f"message does not name {missing}: {_short(text)}")
            return Result("ok", _short(text))
        except RecursionError as exc:
            return Result("traceback", f"RecursionError: {_short(exc)}")
        except Exception as exc:  # noqa: BLE001 - a non-puretree exception is the finding
            if isinstance(exc, errors):
                missing = _missing_fragments(fragments, str(exc))
                return Result("unclear", f"message does not name {missing}") if missing else Result("ok")
            return Result("traceback", f"{type(exc).__name__}: {_short(exc)}")
        return Result("wrong", f"no error; returned {_short(repr(value), 160)}")

    return Case(category, name, body, guard)


def lib_ok(name: str, call: Callable[[Path], Any], check: Callable[[Any], "str | None"], *, category: str, guard: float | None = None) -> Case:
    """A library call that must succeed and pass ``check(value)`` (``None`` or what is wrong)."""

    def body(tmp: Path) -> Result:
        from puretree.errors import PuretreeError

        try:
            value = call(tmp)
        except PuretreeError as exc:
            return Result("wrong", f"{type(exc).__name__} where a result was due: {_short(exc)}")
        except Exception as exc:  # noqa: BLE001
            return Result("traceback", f"{type(exc).__name__}: {_short(exc)}")
        problem = check(value)
        return Result("wrong", problem) if problem else Result("ok")

    return Case(category, name, body, guard)


def custom(name: str, body: Callable[[Path], Result], *, category: str, guard: float | None = None) -> Case:
    """A case whose body classifies itself (subprocess faults: kills, Ctrl-C, writers)."""
    return Case(category, name, body, guard)


def needs(tool: str) -> str | None:
    """Why a case cannot run on this machine (``None`` when it can); reported, never skipped."""
    import shutil

    return None if shutil.which(tool) else f"{tool} is not installed"


# -- guarded (forked) execution -------------------------------------------------------------


def _child(case: Case, tmp: str, conn: Any) -> None:
    try:
        resource.setrlimit(resource.RLIMIT_AS, (GUARD_MEMORY, GUARD_MEMORY))
    except (ValueError, OSError):  # an existing lower limit stays
        pass
    try:
        result = case.body(Path(tmp))
    except MemoryError:
        result = Result("hang", "ran out of memory under the guard")
    except BaseException as exc:  # noqa: BLE001
        result = Result("traceback", f"harness: {type(exc).__name__}: {_short(exc)}")
    conn.send((result.verdict, result.detail))
    conn.close()
    os._exit(0)


def _run_guarded(case: Case, tmp: Path) -> Result:
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(case, str(tmp), child))
    proc.start()
    child.close()
    ready = parent.poll(case.guard)
    if not ready:
        os.kill(proc.pid, signal.SIGKILL)
        proc.join()
        return Result("hang", f"still running after {case.guard:g} s")
    try:
        verdict, detail = parent.recv()
    except EOFError:
        proc.join()
        return Result("hang", f"the guarded run died (exit {proc.exitcode}), e.g. out of memory")
    proc.join()
    return Result(verdict, detail)


def run_case(case: Case) -> Result:
    """Run one case in a fresh temporary folder and classify what happened."""
    with tempfile.TemporaryDirectory(prefix="puretree-hostile-") as tmp:
        path = Path(tmp).resolve()
        if case.guard is not None:
            return _run_guarded(case, path)
        try:
            return case.body(path)
        except RecursionError as exc:
            return Result("traceback", f"RecursionError: {_short(exc)}")
