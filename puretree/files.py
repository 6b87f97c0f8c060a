"""Safe writes: every file puretree writes is the old one or the new one, never a mix.

A file is written to a temporary file in the target's own folder (so that the final rename
stays on one file system), flushed, fsynced, and renamed over the target with
:func:`os.replace`, which is atomic: a reader, a crash or ``kill -9`` sees either the
complete old file or the complete new one. The folder is fsynced after the rename where the
platform allows it, so the rename survives a power cut too. A symbolic link as target is
followed: the file it points to is replaced and the link keeps pointing to it (as ``cp``
does).

Only a regular file (or a new path) is replaced. A named pipe or a character device
(``/dev/null``, a terminal, ``/dev/stdout`` whatever standard output is, also through a
symbolic link) is written into in place, never replaced by a regular file: its reader gets
the bytes and the node stays. A block device or a socket is refused. A folder output
(:func:`write_folder`) that names anything but a folder is refused.

>>> import os, tempfile
>>> scratch = tempfile.TemporaryDirectory(); folder = scratch.name
>>> path = os.path.join(folder, "model.json")
>>> write_text(path, '{"old": true}\\n')
>>> write_text(path, '{"new": true}\\n')
>>> open(path).read(), os.listdir(folder)
('{"new": true}\\n', ['model.json'])

A set of files (an export) is written into a temporary folder next to the target folder and
renamed into place as a whole:

>>> out = os.path.join(folder, "out")
>>> [p.name for p in write_folder(out, {"tree.h": "/* h */\\n", "tree.c": "/* c */\\n"})]
['tree.c', 'tree.h']
>>> sorted(os.listdir(out))
['tree.c', 'tree.h']
>>> scratch.cleanup()

What a kill at each step leaves
-------------------------------
:func:`write_bytes` / :func:`write_text`:

1. while the temporary file ``.NAME.XXXXXXXX.tmp`` is written (and fsynced): the target is
   untouched. Any exception, Ctrl-C (``KeyboardInterrupt``) included, removes the temporary
   file (so does SIGTERM to the ``puretree`` command, which raises too); only ``SIGKILL`` or
   a power cut can leave it behind, hidden, next to the target.
2. ``os.replace``: atomic; from then on the target is the complete new file.

:func:`write_folder` (target folder ``OUT``):

1. while the files are written into the temporary folder ``.OUT.XXXXXXXX.tmp`` (and
   fsynced): ``OUT`` is untouched; an exception removes the temporary folder, ``SIGKILL``
   can leave it behind.
2. files of ``OUT`` that the export does not write are carried over into the temporary
   folder as hard links (copies where links are impossible), so nothing of the user's is lost.
3. swap: on Linux, ``renameat2(RENAME_EXCHANGE)`` exchanges the two folders atomically, so
   ``OUT`` is the old folder or the new one at every instant; the old one is then under the
   temporary name and is removed (``SIGKILL`` at that moment can leave it there, hidden).
   Where an atomic exchange is unavailable, ``OUT`` is renamed aside to ``.OUT.XXXXXXXX.old``
   and the new folder renamed in; a ``SIGKILL`` between these two renames (a window of two
   system calls) leaves ``OUT`` absent and the complete old folder under the ``.old`` name.
   Any other failure there renames the old folder back.

A target folder that holds a subfolder or a special file, or that is the current folder (or
holds it), is refused: those cannot be carried over atomically. Two processes writing one
folder at once each swap in a whole folder; the last swap wins (as for files), and a file
the other added in between is not carried over.

Test hook
---------
The fault tests (``tests/test_outputs.py``) stop a writer at an exact point: when the
environment variable ``PURETREE_TEST_HOOK`` names a file, each checkpoint reached
(``half-written``, ``before-rename``, ``between-renames``, and the command line's
``started``, ``command`` and ``fit``) is appended to it as a line ``STAGE DETAIL``; with
``PURETREE_TEST_PAUSE_AT=STAGE`` the process then waits there (at most a minute) for the test
to kill or interrupt it, or to create the file named by ``PURETREE_TEST_RESUME``. Without
``PURETREE_TEST_HOOK`` the checkpoints do nothing.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from .errors import ParameterError

__all__ = ["write_bytes", "write_text", "write_folder", "check_not_inputs"]

#: How long a paused checkpoint waits for the test to signal it before going on.
_PAUSE_SECONDS = 60.0


def checkpoint(stage: str, detail: object = "") -> None:
    """Test hook: report reaching ``stage`` and, if asked, wait there (see the module docs).

    >>> checkpoint("half-written", "/tmp/x")  # does nothing unless PURETREE_TEST_HOOK is set
    """
    report = os.environ.get("PURETREE_TEST_HOOK")
    if not report:
        return
    with open(report, "a", encoding="utf-8") as fh:  # the test's own file, not an output
        fh.write(f"{stage} {detail}\n")
    if os.environ.get("PURETREE_TEST_PAUSE_AT") == stage:
        resume = os.environ.get("PURETREE_TEST_RESUME")
        deadline = time.monotonic() + _PAUSE_SECONDS
        # A signal (Ctrl-C, kill) ends the wait, or the test creating the resume file.
        while time.monotonic() < deadline and not (resume and os.path.exists(resume)):
            time.sleep(0.01)


@contextlib.contextmanager
def _uninterrupted() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) and SIGTERM for a few system calls that must not be separated.

    Creating a temporary file and remembering its name, or renaming and forgetting it, must
    happen together: a ``KeyboardInterrupt`` between the two would leak the file or remove the
    wrong one. A signal that arrives meanwhile is raised again, to its own handler, when the
    block ends. (The Python-level handlers are swapped, not the signal mask: numpy's threads
    would receive a signal blocked in this thread, and Python would run its handler anyway.)
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread runs signal handlers (and may change them)
        return
    received: list[int] = []
    previous = {}
    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            handler = signal.getsignal(signum)
            if handler is not None and handler != signal.SIG_IGN:
                previous[signum] = handler
                signal.signal(signum, lambda n, frame: received.append(n))
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for number in dict.fromkeys(received):
            signal.raise_signal(number)


def _target(path: str | os.PathLike[str]) -> str:
    """The file actually written: ``path`` with symbolic links followed, absolute."""
    return os.path.realpath(os.fspath(path))


def _fsync_folder(folder: str) -> None:
    """Make a rename in ``folder`` durable (a no-op where folders cannot be opened, e.g. Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):  # some file systems refuse fsync on a folder
            os.fsync(fd)
    finally:
        os.close(fd)


def _naming(exc: OSError, path: str | os.PathLike[str]) -> OSError:
    """The same error, naming the user's path instead of a hidden temporary name."""
    return OSError(exc.errno, exc.strerror or str(exc), os.fspath(path))


def _special(path: str | os.PathLike[str]) -> str | None:
    """What kind of special file ``path`` names, links followed; ``None`` for a regular file,
    a folder or nothing at all.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _special(folder), _special(os.path.join(folder, "new.json"))
    (None, None)
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:  # nothing there (or a dangling link): a new file is created
        return None
    for kind, test in _SPECIAL_KINDS:
        if test(mode):
            return kind
    return None


#: The special files an output can name, and whether data is written into them in place
#: (a pipe's reader or a device gets the bytes, as from ``cp``) or the output is refused
#: (replacing a disk's or a socket's node would destroy it; writing into a disk too).
_SPECIAL_KINDS = (("named pipe", stat.S_ISFIFO), ("character device", stat.S_ISCHR), ("block device", stat.S_ISBLK), ("socket", stat.S_ISSOCK))
_WRITTEN_IN_PLACE = frozenset({"named pipe", "character device"})


def _write_in_place(path: str | os.PathLike[str], data: bytes) -> bool:
    """Write ``data`` into the pipe or character device ``path`` (opened as given, so that
    ``/dev/stdout`` reaches whatever standard output is); False if ``path`` turned out, once
    opened, to be something else (it changed since it was looked at): the caller replaces it.

    Opening a named pipe waits for its reader, as ``cp`` and a shell's ``>`` do.
    """
    # Neither O_CREAT nor O_TRUNC: nothing is created or emptied if the node changed meanwhile.
    fd = os.open(path, os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
            return False
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        return True
    finally:
        os.close(fd)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace the file ``path`` by ``data`` atomically (see the module docs).

    A named pipe or a character device (``/dev/null``, a terminal, ``/dev/stdout`` whatever
    standard output is) is written into in place, never replaced; a block device or a socket
    is refused with a :class:`~puretree.errors.ParameterError`.

    >>> import os, tempfile
    >>> scratch = tempfile.TemporaryDirectory(); path = os.path.join(scratch.name, "x.bin")
    >>> write_bytes(path, b"\\x00\\x01")
    >>> open(path, "rb").read()
    b'\\x00\\x01'
    >>> write_bytes(os.devnull, b"discarded")  # written into, not replaced by a file
    >>> import stat; stat.S_ISCHR(os.stat(os.devnull).st_mode)
    True
    >>> scratch.cleanup()
    """
    kind = _special(path)
    if kind is not None:
        if kind not in _WRITTEN_IN_PLACE:
            raise ParameterError(f"{os.fspath(path)}: is a {kind}; refusing to write a file over it")
        try:
            written = _write_in_place(path, data)
        except OSError as exc:
            if exc.filename == os.fspath(path):
                raise
            raise _naming(exc, path) from exc
        if written:
            return
    target = _target(path)
    folder, name = os.path.split(target)
    tmp: str | None = None
    fd: int | None = None
    try:
        with _uninterrupted():
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
        # From here a KeyboardInterrupt anywhere reaches the except clause with tmp set.
        with open(fd, "wb", closefd=True) as fh:
            fd = None
            os.chmod(tmp, _mode_for(target))
            half = len(data) // 2
            fh.write(data[:half])
            fh.flush()
            checkpoint("half-written", tmp)
            fh.write(data[half:])
            fh.flush()
            os.fsync(fh.fileno())
        checkpoint("before-rename", tmp)
        with _uninterrupted():
            os.replace(tmp, target)
            tmp = None
        _fsync_folder(folder)
    except BaseException as exc:
        with _uninterrupted():
            if fd is not None:
                os.close(fd)
            if tmp is not None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename != os.fspath(path):
            raise _naming(exc, path) from exc
        raise


def write_text(path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8") -> None:
    """Replace the file ``path`` by ``text`` atomically; newlines are written as given.

    Text that cannot be encoded fails before anything is created:

    >>> import os, tempfile
    >>> scratch = tempfile.TemporaryDirectory(); folder = scratch.name
    >>> write_text(os.path.join(folder, "x.txt"), "\\udc80")
    Traceback (most recent call last):
    ...
    UnicodeEncodeError: 'utf-8' codec can't encode character '\\udc80' in position 0: surrogates not allowed
    >>> os.listdir(folder)
    []
    >>> scratch.cleanup()
    """
    write_bytes(path, text.encode(encoding))


def _plain_name(name: str) -> str:
    if not name or name in (".", "..") or os.sep in name or (os.altsep and os.altsep in name) or "\0" in name:
        raise ParameterError(f"{name!r} is not a plain file name")
    return name


def _carried_over(target: str, written: Iterable[str], shown: str) -> list[os.DirEntry[str]]:
    """The entries of an existing target folder that the new set does not replace.

    Regular files and symbolic links can be carried into the new folder; anything else is refused.
    """
    cwd = os.path.realpath(os.getcwd())
    if cwd == target or cwd.startswith(target.rstrip(os.sep) + os.sep):
        raise ParameterError(f"{shown}: refusing to replace the current folder (or one holding it); write into a folder of its own")
    written = set(written)
    kept = []
    with os.scandir(target) as entries:
        for entry in entries:
            if entry.name in written:
                continue
            if entry.is_symlink() or entry.is_file(follow_symlinks=False):
                kept.append(entry)
            else:
                raise ParameterError(f"{shown}: holds {entry.name!r}, which is not a regular file; write into a folder of its own")
    return kept


def _carry(entry: os.DirEntry[str], into: str) -> None:
    dest = os.path.join(into, entry.name)
    if entry.is_symlink():
        os.symlink(os.readlink(entry.path), dest)
        return
    try:
        os.link(entry.path, dest, follow_symlinks=False)
    except OSError:  # a file system without hard links: a copy (its bytes, mode and times)
        shutil.copy2(entry.path, dest, follow_symlinks=False)


def _exchange(a: str, b: str) -> bool:
    """Swap the paths ``a`` and ``b`` atomically; False where the system cannot.

    Linux's ``renameat2(..., RENAME_EXCHANGE)``; Python's ``os`` has no binding for it.
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), b)


def _swap_aside(new: str, target: str, parent: str, name: str) -> str:
    """Rename ``target`` aside and ``new`` in (no atomic exchange); returns where the old folder is."""
    aside = tempfile.mkdtemp(prefix=f".{name}.", suffix=".old", dir=parent)
    try:
        os.rename(target, aside)  # over the empty folder mkdtemp made (POSIX allows it)
    except FileExistsError:  # Windows does not
        os.rmdir(aside)
        os.rename(target, aside)
    checkpoint("between-renames", aside)
    try:
        os.rename(new, target)
    except BaseException:
        os.rename(aside, target)
        raise
    return aside


def write_folder(path: str | os.PathLike[str], files: Mapping[str, str | bytes], *, encoding: str = "utf-8") -> list[Path]:
    """Write ``files`` (``{file name: text or bytes}``) into the folder ``path`` as a whole.

    The folder (and its parents) is created if needed. An existing folder is replaced
    atomically by one that holds the new files and every other file it held (see the module
    docs for what a kill leaves). Returns the written paths, under ``path`` as given, sorted.

    >>> import os, tempfile
    >>> scratch = tempfile.TemporaryDirectory(); out = os.path.join(scratch.name, "out")
    >>> os.mkdir(out)
    >>> write_text(os.path.join(out, "notes.txt"), "mine\\n")
    >>> [p.name for p in write_folder(out, {"tree.py": "x = 1\\n"})]
    ['tree.py']
    >>> sorted(os.listdir(out))
    ['notes.txt', 'tree.py']
    >>> scratch.cleanup()
    """
    names = sorted(_plain_name(n) for n in files)
    target = _target(path)
    parent, name = os.path.split(target)
    os.makedirs(parent, exist_ok=True)
    exists = os.path.lexists(target)
    if exists and not os.path.isdir(target):
        raise ParameterError(f"{os.fspath(path)}: exists and is not a folder")
    kept = _carried_over(target, names, os.fspath(path)) if exists else []
    tmp: str | None = None
    try:
        with _uninterrupted():
            tmp = tempfile.mkdtemp(prefix=f".{name}.", suffix=".tmp", dir=parent)
        for i, filename in enumerate(names):
            content = files[filename]
            data = content.encode(encoding) if isinstance(content, str) else bytes(content)
            with open(os.path.join(tmp, filename), "xb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            if i == 0:
                checkpoint("half-written", tmp)
        for entry in kept:
            _carry(entry, tmp)
        os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes it private; an output folder is not
        _fsync_folder(tmp)
        checkpoint("before-rename", tmp)
        with _uninterrupted():
            if not exists:
                try:
                    os.rename(tmp, target)
                    tmp = None
                except OSError as exc:
                    # Another writer's folder appeared there meanwhile: replace it as a whole.
                    if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST) or not os.path.isdir(target):
                        raise
                    exists = True
            if exists and not _exchange(tmp, target):  # type: ignore[arg-type]  # None only when the rename took place
                tmp = _swap_aside(tmp, target, parent, name)  # type: ignore[arg-type]
            # else tmp now holds the old folder (or is None): removed below
        _fsync_folder(parent)
        old, tmp = tmp, None
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException as exc:
        if tmp is not None:
            with _uninterrupted():
                shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError) and exc.filename != os.fspath(path):
            raise _naming(exc, path) from exc
        raise
    return [Path(path) / n for n in names]


def _umask() -> int:
    """The process's umask, read without changing it where the system allows (Linux)."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)  # elsewhere set and restored: a thread racing with it still gets 022
    os.umask(mask)
    return mask


def _mode_for(target: str) -> int:
    """The permissions the new file gets: the old file's, or what ``open`` gives a new file.

    (``mkstemp`` creates its file readable by its owner only.)
    """
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def _same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _inside(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> bool:
    p, f = os.path.realpath(path), os.path.realpath(folder)
    return p == f or p.startswith(f.rstrip(os.sep) + os.sep)


def check_not_inputs(output: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str] | None], *, folder: bool = False) -> None:
    """Refuse an output that would overwrite a file the command reads (by any name or link).

    With ``folder=True`` the output is a folder that is replaced as a whole, so an input
    anywhere inside it is refused too.

    >>> import os, tempfile
    >>> scratch = tempfile.TemporaryDirectory(); folder = scratch.name
    >>> data = os.path.join(folder, "data.csv")
    >>> write_text(data, "a,b\\n1,2\\n")
    >>> check_not_inputs(os.path.join(folder, ".", "data.csv"), [data])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    puretree.errors.ParameterError: .../data.csv: refusing to overwrite an input of this command (.../data.csv); choose another output path
    >>> check_not_inputs(os.path.join(folder, "model.json"), [data, None])
    >>> check_not_inputs(folder, [data], folder=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    puretree.errors.ParameterError: ...: refusing to replace a folder that holds an input of this command (.../data.csv); choose another output folder
    >>> scratch.cleanup()
    """
    for source in inputs:
        if source is None:
            continue
        if _same_file(output, source):
            raise ParameterError(f"{os.fspath(output)}: refusing to overwrite an input of this command ({os.fspath(source)}); choose another output path")
        if folder and os.path.exists(source) and _inside(source, output):
            raise ParameterError(f"{os.fspath(output)}: refusing to replace a folder that holds an input of this command ({os.fspath(source)}); choose another output folder")
