"""The ``puretree`` command line.

Subcommands live in :mod:`puretree.cli.commands`, one module per group; each module has a
``register(subparsers)`` function and an ``ORDER`` number (its place in ``--help``).
Errors are reported as one line on standard error with a non-zero exit status: 1 for bad
input, 2 for bad usage; never a traceback (set ``PURETREE_DEBUG=1`` to get one).

Ctrl-C at any point ends with the line ``puretree: interrupted`` and exit status 130 (SIGTERM:
``puretree: terminated``, 143). For that, nothing is imported before :func:`main` runs but
this module and the package, which need only ``os`` and ``sys``: argparse, numpy and the
commands are imported inside ``main``, where the interruption is caught.
"""

from __future__ import annotations

import os
import sys

from .._version import __version__
from ..errors import PuretreeError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing before main runs
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from types import FrameType
    from typing import Any, NoReturn

# The program is main; build_parser, CommandLineError and fit_progress are shared with the
# subcommands of this folder (puretree.cli.commands), not offered outside it.
__all__ = ["main"]


class CommandLineError(PuretreeError):
    """Bad usage of the command line (exit status 2)."""


def _parser_class() -> type[argparse.ArgumentParser]:
    import argparse

    class _Parser(argparse.ArgumentParser):
        """argparse, but errors are raised (and reported as one line by :func:`main`)."""

        def error(self, message: str) -> NoReturn:
            # The report already starts "puretree: error:": a subcommand's parser adds its
            # name ("fit: ..."), the program's nothing (not "puretree: error: puretree: ...").
            command = self.prog.split(" ", 1)[1] if " " in self.prog else ""
            raise CommandLineError(f"{command}: {message}" if command else message)

    return _Parser


def _command_modules() -> list[Any]:
    import importlib
    import pkgutil

    from . import commands

    modules = [importlib.import_module(f"{commands.__name__}.{info.name}") for info in pkgutil.iter_modules(commands.__path__) if not info.name.startswith("_")]
    return sorted(modules, key=lambda m: (getattr(m, "ORDER", 100), m.__name__))


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every registered subcommand."""
    _Parser = _parser_class()
    parser = _Parser(prog="puretree", description="Learn decision trees, inspect, prune and compile them.")
    parser.add_argument("--version", action="version", version=f"puretree {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for module in _command_modules():
        module.register(sub)
    return parser


class _FitProgress:
    """A fit's progress on standard error, through tqdm: nodes made, depth reached, rows per
    second (the rows the nodes made so far hold, per second of the fit).

    Called as the growth engines' ``progress(depth, nodes, rows)`` hook
    (:func:`puretree.grow.grow`); :meth:`close` ends the line. It writes to ``stream`` only:
    the fit's standard output and its model are the same with or without it.

    >>> import io
    >>> out = io.StringIO()
    >>> bar = _FitProgress(out)
    >>> bar(0, 1, 100); bar(1, 2, 100); bar.close()
    >>> "3 nodes" in out.getvalue() and "depth 1" in out.getvalue()
    True
    """

    def __init__(self, stream: Any) -> None:
        import time

        from tqdm import tqdm  # type: ignore[import-untyped]  # tqdm ships no type hints

        self._clock = time.monotonic
        self._start = self._shown = self._clock()
        self._rows = 0
        self._depth = 0
        self._bar = tqdm(desc="fit", unit=" nodes", file=stream, mininterval=0.2, leave=True, dynamic_ncols=True,
                         bar_format="{desc}: {n_fmt}{unit}, {elapsed}{postfix}")

    def __call__(self, depth: int, nodes: int, rows: int) -> None:
        self._rows += rows
        self._depth = max(self._depth, depth)
        now = self._clock()
        if now - self._shown >= 0.2:  # text is built a few times a second, not once per node
            self._shown = now
            self._bar.set_postfix_str(self._postfix(now), refresh=False)
        self._bar.update(nodes)

    def _postfix(self, now: float) -> str:
        rate = self._rows / max(now - self._start, 1e-9)
        return f"depth {self._depth}, {rate:,.0f} rows/s"

    def close(self, nodes: int | None = None) -> None:
        """End the line. ``nodes``, the finished tree's node count, is the count shown when it
        differs from the nodes the growth reported (C4.5 prunes as it grows), with the
        number grown beside it.

        >>> import io
        >>> out = io.StringIO()
        >>> bar = _FitProgress(out)
        >>> bar(0, 7, 100); bar.close(nodes=3)
        >>> "3 nodes" in out.getvalue(), "7 grown before pruning" in out.getvalue()
        (True, True)
        """
        postfix = self._postfix(self._clock())
        if nodes is not None and nodes != self._bar.n:
            postfix += f", {self._bar.n:,} grown before pruning"
            self._bar.n = nodes
        self._bar.set_postfix_str(postfix, refresh=False)
        self._bar.close()


def progress_wanted(requested: bool | None) -> bool:
    """Whether ``fit --progress`` is on (``None``: the default, on when standard error is a
    terminal). Progress needs tqdm (the ``cli`` extra): asked for explicitly without it, it is a
    usage error naming the install command; by default it is then silently off."""
    if requested is False:
        return False
    try:
        import tqdm  # noqa: F401  # only whether it is there
    except ImportError:
        if requested:
            raise CommandLineError("--progress needs tqdm: pip install 'puretree[cli]'") from None
        return False
    return bool(requested) or bool(getattr(sys.stderr, "isatty", lambda: False)())


def fit_progress(requested: bool | None) -> _FitProgress | None:
    """The progress reporter of one tree's growth that ``fit --progress`` asks for, or ``None``
    (see :func:`progress_wanted`)."""
    return _FitProgress(sys.stderr) if progress_wanted(requested) else None


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


class _Terminated(BaseException):
    """SIGTERM, raised like Ctrl-C so that an output being written is cleaned up."""


_SIGNALLED: list[int] = []  # the signals the program has received (only when main is the program)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    import signal

    _SIGNALLED.append(signum)
    raise KeyboardInterrupt if signum == signal.SIGINT else _Terminated


def _catch_signals() -> None:
    """Ctrl-C and SIGTERM raise, and are remembered: a library may turn the exception into
    another (numpy's import reports an ``ImportError``) or swallow it in a callback."""
    import signal

    for signum in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(signum) != signal.SIG_IGN:  # e.g. a background job of a shell
            signal.signal(signum, _on_signal)
    sys.unraisablehook = _quiet_unraisable


def _quiet_unraisable(unraisable: Any) -> None:
    # A signal's exception raised inside a callback is "ignored" by Python with a traceback
    # on stderr; it has been remembered, and main reports it in one line.
    if not isinstance(unraisable.exc_value, (KeyboardInterrupt, _Terminated)):
        sys.__unraisablehook__(unraisable)


def _ignore_signals() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    ``argv`` defaults to the process's arguments. When it is not given, ``main`` is the
    program (the ``puretree`` command): SIGTERM (``kill``) then ends it like Ctrl-C, with
    ``puretree: terminated`` and status 143; a signal received while a library turned it into
    another error still reports as the signal; and once the work is done or reported, further
    signals are ignored, so that the program ends with its one line.
    """
    program = argv is None
    signalled: BaseException | None = None
    try:
        if program:
            _SIGNALLED.clear()
            _catch_signals()
        status = _run(argv, program=program)
    except (KeyboardInterrupt, _Terminated) as exc:  # outermost: also covers the error reports of _run
        signalled = exc
    try:
        if program:
            _ignore_signals()
    except (KeyboardInterrupt, _Terminated) as exc:  # arrived just before it was ignored
        signalled = signalled or exc
    if program and _SIGNALLED:
        import signal

        signalled = signalled or (KeyboardInterrupt() if _SIGNALLED[0] == signal.SIGINT else _Terminated())
    if signalled is None:
        return status
    message, status = ("terminated", 143) if isinstance(signalled, _Terminated) else ("interrupted", 130)
    print(f"puretree: {message}", file=sys.stderr)
    if program:
        _exit_now(status)
    return status


def _exit_now(status: int) -> NoReturn:
    """End the interrupted program with ``status`` and nothing more.

    Outputs are already whole (their writers cleaned up as the exception unwound), so the
    interpreter's shutdown has nothing left to save. Skipping it matters: in a sweep of
    Ctrl-C at random moments, CPython 3.11's shutdown now and then ended such a process by
    SIGINT after the message (status -2, not 130) when the interruption had hit an import,
    most likely through its "unhandled KeyboardInterrupt" flag, which a string ``eval``
    inside an import sets and ``sys.exit`` does not clear.
    """
    import contextlib

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


def _run(argv: Sequence[str] | None, *, program: bool) -> int:
    try:
        from ..files import checkpoint

        checkpoint("started")
        args = build_parser().parse_args(argv)  # imports the commands, and numpy with them
        checkpoint("command", args.command)
        return int(args.func(args) or 0)
    except Exception as exc:
        if program and _SIGNALLED:  # an interruption that a library reported as another error
            raise KeyboardInterrupt from exc
        return _report(exc)


def _report(exc: Exception) -> int:
    """One line on standard error for ``exc``; returns the exit status."""
    if isinstance(exc, CommandLineError):
        print(f"puretree: error: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    if isinstance(exc, PuretreeError):
        print(f"puretree: error: {_one_line(str(exc))}", file=sys.stderr)
        return 1
    if isinstance(exc, BrokenPipeError):
        # The reader (e.g. `| head`) went away: not an error worth a message.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keep interpreter shutdown quiet
        return 141
    if isinstance(exc, OSError):
        where = f" {exc.filename}:" if getattr(exc, "filename", None) else ""
        print(f"puretree: error:{where} {_one_line(exc.strerror or str(exc))}", file=sys.stderr)
        return 1
    if os.environ.get("PURETREE_DEBUG"):  # the promise is: never a traceback, unless asked
        raise exc
    print(f"puretree: internal error: {type(exc).__name__}: {_one_line(str(exc))} (set PURETREE_DEBUG=1 for details)", file=sys.stderr)
    return 70

