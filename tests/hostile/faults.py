"""Deterministic faults for the outputs sweep: a child process that stops at a chosen point
(the first write into a folder, the import of a module, the opening of a file) and reports
``PAUSED``; the parent then kills it, interrupts it (Ctrl-C) or releases it. Time-outs are only
guards against hangs: the fault itself is injected at the reported point.

>>> "PAUSED" in CHILD
True
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["CHILD", "Child", "spawn"]

#: Runs ``puretree.cli.main(argv)`` (or ``code``) after installing the pause point:
#: ``{"on": "write", "dir": D}`` stops after the first ``write`` that follows the opening of a
#: file for writing under D (the file is open, possibly truncated, some bytes handed over);
#: ``{"on": "import", "module": M}`` stops when M starts to be imported; ``{"on": "open",
#: "name": N}`` stops when a file named N is opened. Stopped, it blocks reading stdin.
CHILD = r"""
import json, os, sys
spec = json.loads(sys.argv[1])
state = {"armed": False, "done": False}

def pause():
    state["done"] = True
    sys.setprofile(None)
    os.write(1, b"PAUSED\n")
    sys.stdin.readline()

def writing(mode, flags):
    if isinstance(mode, str):
        return any(c in mode for c in "wax+")
    return isinstance(flags, int) and bool(flags & (os.O_WRONLY | os.O_RDWR))

def profile(frame, event, arg):
    if event == "c_return" and not state["done"] and getattr(arg, "__name__", "") in ("write", "writelines"):
        pause()

def audit(event, args):
    if state["done"]:
        return
    on = spec["pause"]["on"]
    if on == "import" and event == "import" and args[0] == spec["pause"]["module"]:
        pause()
    elif event == "open" and isinstance(args[0], (str, bytes)):
        path = os.path.abspath(os.fsdecode(args[0]))
        if on == "open" and os.path.basename(path) == spec["pause"]["name"]:
            pause()
        elif on == "write" and not state["armed"] and path.startswith(spec["pause"]["dir"] + os.sep) and writing(args[1], args[2]):
            state["armed"] = True
            sys.setprofile(profile)

sys.addaudithook(audit)
if spec.get("code"):
    exec(spec["code"])
else:
    from puretree.cli import main
    sys.exit(main(spec["argv"]))
"""


def _default_sigint() -> None:
    """Give the child Ctrl-C as a terminal does: a suite started in the background (a shell's ``&``)
    passes SIGINT on as ignored, and Python then installs no KeyboardInterrupt handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Child:
    """A paused-at-a-point child process (see :data:`CHILD`)."""

    def __init__(self, spec: dict[str, Any], cwd: Path) -> None:
        env = {k: v for k, v in os.environ.items() if k != "PURETREE_DEBUG"}
        self.proc = subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(spec)], cwd=cwd, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     preexec_fn=_default_sigint)
        self.out = b""

    def wait_paused(self, timeout: float = 60.0) -> bool:
        """True once the child reports PAUSED; False when it ended first or the guard ran out."""
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"PAUSED\n" not in self.out:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    return False
                self.out += chunk
        return True

    def kill(self) -> None:
        self.proc.kill()
        self.finish()

    def interrupt(self) -> tuple[int | None, str]:
        self.proc.send_signal(signal.SIGINT)
        return self.finish()

    def release(self) -> tuple[int | None, str]:
        try:
            self.proc.stdin.write(b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        return self.finish()

    def finish(self, timeout: float = 60.0) -> tuple[int | None, str]:
        """Wait for the end (killing it past the guard): (exit status, stderr)."""
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
            return None, err.decode("utf-8", "replace")
        self.out += out or b""
        return self.proc.returncode, err.decode("utf-8", "replace")


def spawn(cwd: Path, *, pause: dict[str, Any], argv: list[str] | None = None, code: str | None = None) -> Child:
    if pause.get("on") == "write":
        pause = {**pause, "dir": str(Path(pause["dir"]).resolve())}
    return Child({"pause": pause, "argv": argv or [], "code": code}, cwd)
