"""``-o PATH`` never replaces a special file (issue 23, data loss).

A regular file or a new path is replaced atomically; a symbolic link's target is written and
the link stays; a named pipe or a character device (``/dev/stdout`` included) is written into
in place; a block device or a socket is refused with one line. Every special file here is made
inside the test's own ``tmp_path``: the real ``/dev`` is never touched.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puretree import datasets, files
from puretree.cli import build_parser
from puretree.codegen import export
from puretree.errors import ParameterError
from puretree.grow import c45
from puretree.data import read_csv
from puretree.io import load, save, to_json

TENNIS = Path(str(datasets.path("playtennis")))
GUARD = 120  # seconds: only against a hang, never part of what is tested


def _run(args, *, cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "puretree", *map(str, args)], cwd=cwd, capture_output=True, timeout=GUARD, **kwargs)


def _one_line_error(proc: subprocess.CompletedProcess) -> str:
    err = proc.stderr.decode()
    assert proc.returncode != 0
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1 and err.startswith("puretree: error:"), err
    return err


class _Reader:
    """A reader waiting on the named pipe ``path`` (in a thread), as a consumer of ``-o`` would."""

    def __init__(self, path: Path):
        self.path = path
        self.data: bytes | None = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        with open(self.path, "rb") as fh:
            self.data = fh.read()

    def finish(self) -> bytes | None:
        """What the reader got; ``None`` if the writer never opened the pipe."""
        deadline = time.monotonic() + GUARD
        self.thread.join(0.2)
        while self.thread.is_alive() and time.monotonic() < deadline:
            if not _is(self.path, stat.S_ISFIFO):
                return None  # the pipe was replaced: its reader waits on a node nobody can reach
            # Nobody opened the pipe for writing (the output was refused): open and close it
            # once, so that the reader's open returns and it reads the end of the file.
            with contextlib.suppress(OSError):
                os.close(os.open(self.path, os.O_WRONLY | os.O_NONBLOCK))
                self.thread.join(GUARD)
                return None
            time.sleep(0.01)
        assert not self.thread.is_alive(), "guard: the pipe's reader never finished"
        return self.data


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _char_device(path: Path, minor: int = 3) -> Path:
    """A character device node with the numbers of /dev/null (1, 3) or /dev/full (1, 7), in tmp_path."""
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
        os.close(os.open(path, os.O_WRONLY))  # a file system mounted nodev refuses to open it
    except PermissionError:
        pytest.skip("device nodes are not permitted here")
    return path


def _is(path: Path, test) -> bool:
    return test(os.lstat(path).st_mode)


@pytest.fixture
def work(tmp_path) -> Path:
    (tmp_path / "data.csv").write_bytes(TENNIS.read_bytes())
    save(c45(read_csv(str(tmp_path / "data.csv"), target="play", ignore=["day"])), tmp_path / "m.json")
    return tmp_path


#: A one-tree model as XGBoost saves it (JSON), for the import command (written where a test needs it).
XGBOOST_MODEL = {"learner": {"objective": {"name": "reg:squarederror"}, "feature_names": ["x"],
                             "learner_model_param": {"num_feature": "1", "num_class": "0", "base_score": "[5E-1]"},
                             "gradient_booster": {"name": "gbtree", "model": {"tree_info": [0], "trees": [
                                 {"left_children": [1, -1, -1], "right_children": [2, -1, -1], "split_indices": [0, 0, 0],
                                  "split_conditions": [0.5, -0.25, 0.75], "default_left": [1, 0, 0]}]}}}}


def _model_text(work: Path) -> str:
    return to_json(load(work / "m.json"), indent=1) + "\n"


# -- the library's writers ----------------------------------------------------------------


def test_write_text_into_a_named_pipe_feeds_its_reader_and_keeps_the_pipe(tmp_path):
    pipe = _fifo(tmp_path / "pipe")
    reader = _Reader(pipe)
    files.write_text(pipe, "hello\n")
    assert reader.finish() == b"hello\n"
    assert _is(pipe, stat.S_ISFIFO)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]  # no temporary file left


def test_save_into_a_named_pipe_feeds_its_reader(work):
    pipe = _fifo(work / "model.pipe")
    reader = _Reader(pipe)
    save(load(work / "m.json"), pipe)
    assert reader.finish() == _model_text(work).encode()
    assert _is(pipe, stat.S_ISFIFO)


def test_export_to_a_named_pipe_is_refused_and_the_pipe_stays(work):
    pipe = _fifo(work / "out")
    with pytest.raises(ParameterError, match="not a folder"):
        export(load(work / "m.json"), "c", out_dir=pipe)
    assert _is(pipe, stat.S_ISFIFO)


@pytest.mark.parametrize("through_link", [False, True])
def test_save_into_a_character_device_writes_into_it(work, through_link):
    node = _char_device(work / "null")
    path = work / "stdout" if through_link else node
    if through_link:
        path.symlink_to(node)
    save(load(work / "m.json"), path)
    assert _is(node, stat.S_ISCHR)
    assert os.stat(node).st_rdev == os.makedev(1, 3)
    assert sorted(p.name for p in work.iterdir()) == sorted(["data.csv", "m.json", "null"] + (["stdout"] if through_link else []))


def test_a_full_character_device_fails_with_its_error_and_stays(work):
    node = _char_device(work / "full", minor=7)
    with pytest.raises(OSError) as caught:
        save(load(work / "m.json"), node)
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == os.fspath(node)
    assert _is(node, stat.S_ISCHR)


def test_a_socket_is_refused_and_stays(work, monkeypatch):
    monkeypatch.chdir(work)  # a relative name: a socket's path is limited to about 100 bytes
    with socket.socket(socket.AF_UNIX) as server:
        server.bind("sock")
        with pytest.raises(ParameterError, match="socket"):
            save(load(work / "m.json"), "sock")
        assert _is(work / "sock", stat.S_ISSOCK)


def test_a_block_device_is_refused_and_stays(work):
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    node = work / "disk"
    try:
        os.mknod(node, stat.S_IFBLK | 0o600, os.makedev(7, 0))  # a loop device's numbers; never opened
    except PermissionError:
        pytest.skip("device nodes are not permitted here")
    with pytest.raises(ParameterError, match="block device"):
        save(load(work / "m.json"), node)
    assert _is(node, stat.S_ISBLK)


@settings(max_examples=25, deadline=None)
@given(data=st.binary(max_size=200_000))
def test_any_bytes_reach_a_pipe_reader_whole(tmp_path_factory, data):
    pipe = _fifo(tmp_path_factory.mktemp("pipe") / "p")
    reader = _Reader(pipe)
    files.write_bytes(pipe, data)
    assert reader.finish() == data and _is(pipe, stat.S_ISFIFO)


def test_write_through_a_link_to_a_regular_file_keeps_the_link(work):
    (work / "real.json").write_text("old")
    (work / "link.json").symlink_to("real.json")
    save(load(work / "m.json"), work / "link.json")
    assert (work / "link.json").is_symlink() and os.readlink(work / "link.json") == "real.json"
    assert (work / "real.json").read_text() == _model_text(work)


# -- the command line ---------------------------------------------------------------------


def test_fit_into_a_named_pipe_feeds_its_reader(work):
    pipe = _fifo(work / "model.pipe")
    reader = _Reader(pipe)
    proc = _run(["fit", "data.csv", "--target", "play", "--ignore", "day", "-o", pipe.name], cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert reader.finish() == _model_text(work).encode()
    assert _is(pipe, stat.S_ISFIFO)


@pytest.mark.parametrize("kind", ["fifo", "chr"])
def test_fit_into_a_link_to_a_special_file_writes_into_it_and_keeps_both(work, kind):
    """``-o /dev/stdout``, in tmp_path: a link to a pipe or a character device."""
    if kind == "fifo":
        node = _fifo(work / "node")
        reader = _Reader(node)
    else:
        node = _char_device(work / "node")
    (work / "stdout").symlink_to(node)
    proc = _run(["fit", "data.csv", "--target", "play", "--ignore", "day", "-o", "stdout"], cwd=work)
    assert proc.returncode == 0, proc.stderr
    if kind == "fifo":
        assert reader.finish() == _model_text(work).encode()
    assert (work / "stdout").is_symlink()
    assert _is(node, stat.S_ISFIFO if kind == "fifo" else stat.S_ISCHR)


def test_fit_into_a_link_to_the_process_standard_output_writes_to_it(work):
    """``-o /dev/stdout`` with standard output a pipe: the model arrives on the pipe."""
    (work / "stdout").symlink_to("/proc/self/fd/1")
    if not os.path.exists("/proc/self/fd/1"):
        pytest.skip("no /proc/self/fd on this platform")
    proc = _run(["fit", "data.csv", "--target", "play", "--ignore", "day", "-o", "stdout"], cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().startswith(_model_text(work))
    assert (work / "stdout").is_symlink()


def test_fit_into_a_full_device_reports_one_line(work):
    node = _char_device(work / "full", minor=7)
    proc = _run(["fit", "data.csv", "--target", "play", "--ignore", "day", "-o", node.name], cwd=work)
    assert "No space left on device" in _one_line_error(proc)
    assert _is(node, stat.S_ISCHR)


def test_fit_through_a_link_to_a_regular_file_keeps_the_link(work):
    (work / "real.json").write_text("old")
    (work / "link.json").symlink_to("real.json")
    proc = _run(["fit", "data.csv", "--target", "play", "--ignore", "day", "-o", "link.json"], cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert (work / "link.json").is_symlink()
    assert (work / "real.json").read_text() == _model_text(work)


# Every subcommand with -o/--output, found by walking the parser: a command added later is
# checked too. Its positional arguments are filled in by metavar, its required options from
# OPTION_SAMPLES; a command that needs something else fails here, asking for a sample.
POSITIONAL_SAMPLES = {"MODEL.json": "m.json", "DATA": "data.csv", "DATA.csv": "data.csv", "MODEL.json|MODEL.ubj": "xgb.json", "MODEL.json|MODEL.ubj|MODEL.txt": "xgb.json", "MODEL.json|MODEL.ubj|MODEL.txt|MODEL.pkl|MODEL.joblib": "xgb.json"}
OPTION_SAMPLES = {"--method": ["pessimistic"], "--target": ["c"], "--from": ["xgboost"]}
EXTRA_SAMPLES = {"fit": ["--target", "play", "--ignore", "day"]}  # what a CSV needs beyond the parser's required


def _output_commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {name: p for name, p in sub.choices.items()
            if any({"-o", "--output"} & set(a.option_strings) for a in p._actions)}


def _arguments(name: str, parser: argparse.ArgumentParser) -> list[str]:
    args = [name]
    for action in parser._actions:
        if action.option_strings and action.required and not {"-o", "--output"} & set(action.option_strings):
            option = action.option_strings[-1]
            if option not in OPTION_SAMPLES:
                pytest.fail(f"{name}: add a sample value of the required option {option} to OPTION_SAMPLES")
            args += [option, *OPTION_SAMPLES[option]]
        elif not action.option_strings and action.nargs not in ("?", "*"):
            if action.metavar not in POSITIONAL_SAMPLES:
                pytest.fail(f"{name}: add a sample of the argument {action.metavar} to POSITIONAL_SAMPLES")
            args.append(POSITIONAL_SAMPLES[action.metavar])
    return args + EXTRA_SAMPLES.get(name, [])


def test_the_parser_walk_finds_the_known_output_commands():
    assert {"fit", "show", "predict", "prune", "export"} <= set(_output_commands())


@pytest.mark.parametrize("name", sorted(_output_commands()))
def test_every_output_command_writes_into_a_named_pipe_or_refuses_it(work, name):
    (work / "xgb.json").write_text(json.dumps(XGBOOST_MODEL))  # what `import --from xgboost` reads
    args = _arguments(name, _output_commands()[name])
    regular = _run([*args, "-o", "regular.out"], cwd=work)
    assert regular.returncode == 0, regular.stderr
    pipe = _fifo(work / "pipe")
    reader = _Reader(pipe)
    proc = _run([*args, "-o", "pipe"], cwd=work)
    got = reader.finish()
    assert _is(pipe, stat.S_ISFIFO)
    if (work / "regular.out").is_dir():  # a folder output: a pipe is no folder
        assert "not a folder" in _one_line_error(proc)
        assert got in (None, b"")
    else:
        assert proc.returncode == 0, proc.stderr
        assert got == (work / "regular.out").read_bytes()
