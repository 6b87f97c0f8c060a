"""The ``puretree`` command line.

Subcommands live in :mod:`puretree.commands`, one module per group; each module has a
``register(subparsers)`` function and an ``ORDER`` number (its place in ``--help``).
Errors are reported as one line on standard error with a non-zero exit status: 1 for bad
input, 2 for bad usage; never a traceback (set ``PURETREE_DEBUG=1`` to get one). Ctrl-C at
any point ends with the line ``puretree: interrupted`` and exit status 130: this module and
the package import only the standard library, and everything heavy (numpy, the commands)
is imported inside :func:`main`, where the interruption is caught.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import signal
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from .errors import PuretreeError

__all__ = ["main", "build_parser", "CommandLineError"]


class CommandLineError(PuretreeError):
    """Bad usage of the command line (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    """argparse, but errors are raised (and reported as one line by :func:`main`)."""

    def error(self, message: str) -> NoReturn:
        raise CommandLineError(f"{self.prog}: {message}")


def _command_modules() -> list[Any]:
    from . import commands

    modules = [importlib.import_module(f"{commands.__name__}.{info.name}") for info in pkgutil.iter_modules(commands.__path__) if not info.name.startswith("_")]
    return sorted(modules, key=lambda m: (getattr(m, "ORDER", 100), m.__name__))


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every registered subcommand."""
    from . import __version__

    parser = _Parser(prog="puretree", description="Learn decision trees, inspect, prune and compile them.")
    parser.add_argument("--version", action="version", version=f"puretree {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for module in _command_modules():
        module.register(sub)
    return parser


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


class _Terminated(BaseException):
    """SIGTERM, raised like Ctrl-C so that an output being written is cleaned up."""


def _terminate(signum: int, frame: Any) -> NoReturn:
    raise _Terminated


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    ``argv`` defaults to the process's arguments; when it is not given, ``main`` is the
    program (the ``puretree`` command): SIGTERM (``kill``) then ends it like Ctrl-C, with
    ``puretree: terminated`` and status 143, and a second signal while it reports the first
    is ignored.
    """
    program = argv is None
    try:
        if program:
            signal.signal(signal.SIGTERM, _terminate)
        return _run(argv)
    except (KeyboardInterrupt, _Terminated) as exc:  # outermost: also covers the error reports of _run
        if program:  # the program is ending: one message, even if Ctrl-C is pressed again
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if isinstance(exc, _Terminated):
            print("puretree: terminated", file=sys.stderr)
            return 143
        print("puretree: interrupted", file=sys.stderr)
        return 130


def _run(argv: Sequence[str] | None) -> int:
    try:
        from .files import checkpoint

        checkpoint("started")
        args = build_parser().parse_args(argv)  # imports the commands, and numpy with them
        checkpoint("command", args.command)
        return int(args.func(args) or 0)
    except CommandLineError as exc:
        print(f"puretree: error: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    except PuretreeError as exc:
        print(f"puretree: error: {_one_line(str(exc))}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: not an error worth a message.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keep interpreter shutdown quiet
        return 141
    except OSError as exc:
        where = f" {exc.filename}:" if getattr(exc, "filename", None) else ""
        print(f"puretree: error:{where} {_one_line(exc.strerror or str(exc))}", file=sys.stderr)
        return 1
    except Exception as exc:  # the promise is: never a traceback
        if os.environ.get("PURETREE_DEBUG"):
            raise
        print(f"puretree: internal error: {type(exc).__name__}: {_one_line(str(exc))} (set PURETREE_DEBUG=1 for details)", file=sys.stderr)
        return 70


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
