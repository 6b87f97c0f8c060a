"""Nothing lost: every output is the old file or the new one, and Ctrl-C ends with one line.

Fault tests stop the ``puretree`` command at an exact point with the test hook of
:mod:`puretree.files` (``PURETREE_TEST_HOOK``: the child appends each checkpoint it reaches to a
report file; ``PURETREE_TEST_PAUSE_AT``: it waits there), then kill or interrupt it, or let it
go on (``PURETREE_TEST_RESUME``). Process time-outs are only guards against hangs.
"""

from __future__ import annotations

import csv
import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puretree import datasets, files
from puretree.cli import main
from puretree.errors import ParameterError
from puretree.grow import c45
from puretree.io import load, to_json

TENNIS = Path(str(datasets.path("playtennis")))
GUARD = 120  # seconds: only against a hang, never part of what is tested


# -- helpers -----------------------------------------------------------------------------


def _default_sigint() -> None:
    # A child started from a shell's background job inherits SIGINT ignored, and Python then
    # installs no KeyboardInterrupt handler: give it the disposition a terminal would.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Child:
    """``python -m puretree ARGS`` in ``cwd``, reporting its checkpoints to a file."""

    def __init__(self, args, *, cwd: Path, pause_at: str | None = None, code: str | None = None, tag: str = "child"):
        self.report = cwd / f"{tag}.report"
        self.resume = cwd / f"{tag}.resume"
        env = {k: v for k, v in os.environ.items() if not k.startswith("PURETREE_")}
        env["PURETREE_TEST_HOOK"] = str(self.report)
        env["PURETREE_TEST_RESUME"] = str(self.resume)
        if pause_at:
            env["PURETREE_TEST_PAUSE_AT"] = pause_at
        command = [sys.executable, "-m", "puretree", *map(str, args)] if code is None else [sys.executable, "-c", code, *map(str, args)]
        self.proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)

    def lines(self) -> list[str]:
        return self.report.read_text(encoding="utf-8").splitlines() if self.report.exists() else []

    def reached(self, stage: str) -> str:
        """Wait until the child reports ``stage``; returns the detail it reported with it."""
        deadline = time.monotonic() + GUARD
        while time.monotonic() < deadline:
            for line in self.lines():
                name, _, detail = line.partition(" ")
                if name == stage:
                    return detail
            if self.proc.poll() is not None:
                out, err = self.proc.communicate()
                pytest.fail(f"the child ended (status {self.proc.returncode}) before {stage!r}; reported {self.lines()}; stderr: {err}")
            time.sleep(0.005)
        self.proc.kill()
        pytest.fail(f"guard: no {stage!r} from the child in {GUARD} s")

    def go_on(self) -> None:
        self.resume.write_text("")

    def finish(self) -> tuple[int, str, str]:
        out, err = self.proc.communicate(timeout=GUARD)
        return self.proc.returncode, out, err

    def kill(self, sig: int = signal.SIGKILL) -> tuple[int, str, str]:
        self.proc.send_signal(sig)
        return self.finish()


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _leftovers(folder: Path, expected: set[str]) -> set[str]:
    return {p.name for p in folder.iterdir()} - expected - {p.name for p in folder.glob("*.report")} - {p.name for p in folder.glob("*.resume")}


@pytest.fixture
def work(tmp_path, monkeypatch):
    """A folder holding the tennis data, an old model of it (m.json) and a different new one."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data.csv").write_bytes(TENNIS.read_bytes())
    assert main(["fit", "data.csv", "--target", "play", "--ignore", "day", "--max-depth", "1", "-o", "m.json"]) == 0
    return tmp_path


FIT_NEW = ["fit", "data.csv", "--target", "play", "--ignore", "day", "-o", "m.json"]


def _new_model_text(work: Path) -> str:
    from puretree.data import read_csv

    return to_json(c45(read_csv(str(work / "data.csv"), target="play", ignore=["day"])), indent=1) + "\n"


# -- the atomic writer itself ------------------------------------------------------------


def test_write_text_replaces_and_leaves_nothing_else(tmp_path):
    target = tmp_path / "x.txt"
    files.write_text(target, "old\n")
    files.write_text(target, "new\n")
    assert target.read_text() == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["x.txt"]


def test_write_follows_a_link_to_the_real_file(tmp_path):
    (tmp_path / "real.json").write_text("old")
    (tmp_path / "link.json").symlink_to("real.json")
    files.write_text(tmp_path / "link.json", "new")
    assert (tmp_path / "link.json").is_symlink()
    assert (tmp_path / "real.json").read_text() == "new"


@pytest.mark.parametrize("failing", ["fsync", "replace"])
def test_a_failed_write_keeps_the_old_file_and_removes_the_temporary_one(tmp_path, monkeypatch, failing):
    target = tmp_path / "x.txt"
    target.write_text("old")

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", "/somewhere/.x.txt.tmp")

    monkeypatch.setattr(files.os, failing, no_space)
    with pytest.raises(OSError) as caught:
        files.write_text(target, "new")
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(target)  # the user's path, not the temporary one
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["x.txt"]


def test_an_interrupted_write_keeps_the_old_file_and_removes_the_temporary_one(tmp_path, monkeypatch):
    target = tmp_path / "x.txt"
    target.write_text("old")

    def interrupted(stage, detail=""):
        if stage == "before-rename":
            raise KeyboardInterrupt

    monkeypatch.setattr(files, "checkpoint", interrupted)
    with pytest.raises(KeyboardInterrupt):
        files.write_text(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["x.txt"]


def test_write_folder_keeps_the_users_other_files_and_refuses_subfolders(tmp_path):
    out = tmp_path / "out"
    files.write_folder(out, {"tree.c": "old c", "tree.h": "old h"})
    (out / "notes.txt").write_text("mine")
    files.write_folder(out, {"tree.c": "new c", "tree.h": "new h"})
    assert _snapshot(out) == {"notes.txt": b"mine", "tree.c": b"new c", "tree.h": b"new h"}
    (out / "sub").mkdir()
    with pytest.raises(ParameterError, match=r"out: holds 'sub', which is not a regular file"):
        files.write_folder(out, {"tree.c": "newer c"})
    assert (out / "tree.c").read_text() == "new c"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.parametrize("bad", ["", ".", "..", "a/b"])
def test_write_folder_refuses_names_that_are_not_plain(tmp_path, bad):
    with pytest.raises(ParameterError, match="is not a plain file name"):
        files.write_folder(tmp_path / "out", {bad: "x"})
    assert list(tmp_path.iterdir()) == []


def test_write_folder_refuses_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ParameterError, match="refusing to replace the current folder"):
        files.write_folder(".", {"tree.c": "x"})
    assert list(tmp_path.iterdir()) == []


def test_write_folder_without_an_atomic_exchange_renames_aside(tmp_path, monkeypatch):
    out = tmp_path / "out"
    files.write_folder(out, {"a": "old"})
    monkeypatch.setattr(files, "_exchange", lambda a, b: False)
    files.write_folder(out, {"a": "new"})
    assert _snapshot(out) == {"a": b"new"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_write_folder_puts_the_old_folder_back_when_the_new_one_cannot_go_in(tmp_path, monkeypatch):
    out = tmp_path / "out"
    files.write_folder(out, {"a": "old"})
    monkeypatch.setattr(files, "_exchange", lambda a, b: False)
    real_rename = os.rename

    def rename(src, dst):
        if os.path.basename(src).endswith(".tmp"):
            raise OSError(errno.EIO, "I/O error", src)
        return real_rename(src, dst)

    monkeypatch.setattr(files.os, "rename", rename)
    with pytest.raises(OSError):
        files.write_folder(out, {"a": "new"})
    assert _snapshot(out) == {"a": b"old"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


# -- SIGKILL at a deterministic point ----------------------------------------------------


@pytest.mark.parametrize("stage", ["half-written", "before-rename"])
def test_sigkill_during_a_save_leaves_the_old_model(work, stage):
    old_bytes = (work / "m.json").read_bytes()
    old_tree = load(work / "m.json")
    new_text = _new_model_text(work)
    assert new_text.encode() != old_bytes
    child = Child(FIT_NEW, cwd=work, pause_at=stage)
    tmp = Path(child.reached(stage))
    # The child really is mid-write: its temporary file sits next to the target.
    assert tmp.parent == work and tmp.name.startswith(".m.json.") and tmp.name.endswith(".tmp")
    expected_size = len(new_text.encode()) // 2 if stage == "half-written" else len(new_text.encode())
    assert tmp.stat().st_size == expected_size
    status, _, _ = child.kill()
    assert status == -signal.SIGKILL
    assert (work / "m.json").read_bytes() == old_bytes
    assert load(work / "m.json") == old_tree
    # Only SIGKILL leaves the documented hidden temporary file, and only that one.
    assert _leftovers(work, {"data.csv", "m.json"}) <= {tmp.name}


def test_the_same_save_left_alone_writes_the_new_model(work):
    child = Child(FIT_NEW, cwd=work, pause_at="before-rename")
    child.reached("before-rename")
    child.go_on()
    status, out, err = child.finish()
    assert (status, err) == (0, "")
    assert (work / "m.json").read_text() == _new_model_text(work)
    assert _leftovers(work, {"data.csv", "m.json"}) == set()


@pytest.mark.parametrize("stage", ["half-written", "before-rename"])
def test_sigkill_during_predict_o_leaves_the_old_predictions(work, stage):
    (work / "p.csv").write_text("prediction\nold\n")
    child = Child(["predict", "m.json", "data.csv", "--proba", "-o", "p.csv"], cwd=work, pause_at=stage)
    tmp = Path(child.reached(stage))
    assert tmp.exists()
    assert child.kill()[0] == -signal.SIGKILL
    assert (work / "p.csv").read_text() == "prediction\nold\n"
    assert _leftovers(work, {"data.csv", "m.json", "p.csv"}) <= {tmp.name}


def test_predict_o_writes_what_stdout_shows(work, capsys):
    assert main(["predict", "m.json", "data.csv", "--proba"]) == 0
    shown = capsys.readouterr().out
    assert main(["predict", "m.json", "data.csv", "--proba", "-o", "p.csv"]) == 0
    assert capsys.readouterr().out == "14 predictions written to p.csv\n"
    assert (work / "p.csv").read_text() == shown
    rows = list(csv.reader(shown.splitlines()))
    assert rows[0][0] == "prediction" and len(rows) == 15


def _export(work: Path, model: str, **kwargs) -> Child:
    return Child(["export", model, "--target", "c", "--name", "tree", "-o", "out"], cwd=work, **kwargs)


@pytest.fixture
def exported(work):
    """``out/`` exported from the old model; ``new.json`` a different model."""
    assert main(["export", "m.json", "--target", "c", "-o", "out"]) == 0
    assert main(FIT_NEW[:-1] + ["new.json"]) == 0
    old = _snapshot(work / "out")
    assert main(["export", "new.json", "--target", "c", "-o", "new_out"]) == 0
    new = _snapshot(work / "new_out")
    assert sorted(old) == sorted(new) == ["tree.c", "tree.h"] and old != new
    return old, new


@pytest.mark.parametrize("stage", ["half-written", "before-rename"])
def test_sigkill_during_export_leaves_the_old_folder_whole(work, exported, stage):
    old, new = exported
    child = _export(work, "new.json", pause_at=stage)
    tmp = Path(child.reached(stage))
    if stage == "half-written":  # one of the two files is in the temporary folder
        assert len(list(tmp.iterdir())) == 1
    assert child.kill()[0] == -signal.SIGKILL
    assert _snapshot(work / "out") == old
    assert _leftovers(work, {"data.csv", "m.json", "new.json", "out", "new_out"}) <= {tmp.name}


def test_an_export_left_alone_replaces_the_folder_whole(work, exported):
    old, new = exported
    child = _export(work, "new.json", pause_at="before-rename")
    child.reached("before-rename")
    assert _snapshot(work / "out") == old
    child.go_on()
    status, out, err = child.finish()
    assert (status, err) == (0, "") and out.split() == ["out/tree.c", "out/tree.h"]
    assert _snapshot(work / "out") == new
    assert _leftovers(work, {"data.csv", "m.json", "new.json", "out", "new_out"}) == set()


# The same export where the system has no atomic exchange of two folders: renamed aside.
NO_EXCHANGE = "import sys; import puretree.files as f; f._exchange = lambda a, b: False; from puretree.cli import main; sys.exit(main(sys.argv[1:]))"


@pytest.mark.parametrize("stage", ["half-written", "before-rename"])
def test_sigkill_during_a_rename_aside_export_before_the_swap_leaves_the_old_folder(work, exported, stage):
    old, _ = exported
    child = _export(work, "new.json", pause_at=stage, code=NO_EXCHANGE)
    child.reached(stage)
    assert child.kill()[0] == -signal.SIGKILL
    assert _snapshot(work / "out") == old


def test_sigkill_between_the_renames_aside_leaves_the_documented_state(work, exported):
    # The one documented window without an atomic exchange: OUT is absent and the complete
    # old folder is under the hidden ``.out.*.old`` name; never a mix of old and new files.
    old, _ = exported
    child = _export(work, "new.json", pause_at="between-renames", code=NO_EXCHANGE)
    aside = Path(child.reached("between-renames"))
    assert child.kill()[0] == -signal.SIGKILL
    assert not (work / "out").exists()
    assert aside.name.startswith(".out.") and aside.name.endswith(".old")
    assert _snapshot(aside) == old


# -- concurrent writers ------------------------------------------------------------------


@pytest.mark.parametrize("stage", ["half-written", "before-rename"])
def test_two_concurrent_saves_leave_one_complete_model(work, stage):
    # Both writers are stopped at the same point, with both temporary files written as far
    # as that point, then both go on: the result must be one whole model, not a mixture.
    a = Child(["fit", "data.csv", "--target", "play", "--ignore", "day", "-o", "out.json"], cwd=work, pause_at=stage, tag="a")
    b = Child(["fit", "data.csv", "--target", "play", "--ignore", "day", "--algorithm", "cart", "--max-depth", "2", "-o", "out.json"], cwd=work, pause_at=stage, tag="b")
    a.reached(stage)
    b.reached(stage)
    a.go_on()
    b.go_on()
    assert a.finish()[0] == 0 and b.finish()[0] == 0
    from puretree.data import read_csv
    from puretree.grow import cart

    data = read_csv(str(work / "data.csv"), target="play", ignore=["day"])
    candidates = [c45(data), cart(data, max_depth=2)]
    assert candidates[0] != candidates[1]
    assert load(work / "out.json") in candidates
    assert _leftovers(work, {"data.csv", "m.json", "out.json"}) == set()


def test_two_concurrent_exports_leave_one_whole_folder(work, exported):
    old, new = exported
    a = _export(work, "m.json", pause_at="before-rename", tag="a")
    b = _export(work, "new.json", pause_at="before-rename", tag="b")
    a.reached("before-rename")
    b.reached("before-rename")
    a.go_on()
    b.go_on()
    assert a.finish()[0] == 0 and b.finish()[0] == 0
    assert _snapshot(work / "out") in (old, new)
    assert _leftovers(work, {"data.csv", "m.json", "new.json", "out", "new_out"}) == set()


# -- rewriting a model in place ----------------------------------------------------------


def test_prune_in_place_rewrites_the_model(work):
    assert main(FIT_NEW) == 0
    assert main(["prune", "m.json", "--method", "penalty", "--penalty", "3", "-o", "m.json"]) == 0
    from puretree.prune import penalty

    from puretree.data import read_csv

    assert load(work / "m.json") == penalty(c45(read_csv(str(work / "data.csv"), target="play", ignore=["day"])), per_leaf=3)


def test_prune_in_place_that_fails_midway_leaves_the_model_byte_identical(work, monkeypatch, capsys):
    assert main(FIT_NEW) == 0
    before = (work / "m.json").read_bytes()
    import puretree.cli.commands.prune as command

    def broken(*args, **kwargs):
        raise MemoryError("injected after the model was read")

    monkeypatch.setattr(command, "pessimistic", broken)
    assert main(["prune", "m.json", "--method", "pessimistic", "-o", "m.json"]) == 70
    assert (work / "m.json").read_bytes() == before
    assert _leftovers(work, {"data.csv", "m.json"}) == set()


def test_prune_in_place_whose_write_fails_leaves_the_model_byte_identical(work, monkeypatch, capsys):
    assert main(FIT_NEW) == 0
    before = (work / "m.json").read_bytes()
    capsys.readouterr()

    def no_space(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", no_space)
    assert main(["prune", "m.json", "--method", "pessimistic", "-o", "m.json"]) == 1
    assert capsys.readouterr().err == "puretree: error: m.json: No space left on device\n"
    assert (work / "m.json").read_bytes() == before
    assert _leftovers(work, {"data.csv", "m.json"}) == set()


@pytest.mark.parametrize("stage", ["half-written", "before-rename"])
def test_prune_in_place_killed_midway_leaves_the_model_byte_identical(work, stage):
    assert main(FIT_NEW) == 0
    before = (work / "m.json").read_bytes()
    child = Child(["prune", "m.json", "--method", "pessimistic", "-o", "m.json"], cwd=work, pause_at=stage)
    tmp = Path(child.reached(stage))
    assert child.kill()[0] == -signal.SIGKILL
    assert (work / "m.json").read_bytes() == before
    assert _leftovers(work, {"data.csv", "m.json"}) <= {tmp.name}


# -- outputs never overwrite inputs ------------------------------------------------------


def _refused(argv, capsys, work, *, path):
    before = {p.name: p.read_bytes() for p in work.iterdir() if p.is_file()}
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 1
    assert err.count("\n") == 1 and err.startswith(f"puretree: error: {path}: refusing to ")
    assert {p.name: p.read_bytes() for p in work.iterdir() if p.is_file()} == before
    return err


@pytest.mark.parametrize("output", ["data.csv", "./data.csv", "{abs}", "link.csv", "hard.csv"])
def test_fit_refuses_to_write_over_its_data(work, capsys, output):
    (work / "link.csv").symlink_to("data.csv")
    os.link(work / "data.csv", work / "hard.csv")
    output = output.format(abs=work / "data.csv")
    err = _refused(["fit", "data.csv", "--target", "play", "-o", output], capsys, work, path=output)
    assert "(data.csv)" in err


def test_fit_refusal_from_the_command_line(work):
    before = (work / "data.csv").read_bytes()
    done = subprocess.run([sys.executable, "-m", "puretree", "fit", "data.csv", "--target", "play", "-o", "data.csv"], cwd=work, capture_output=True, text=True, timeout=GUARD)
    assert done.returncode == 1
    assert done.stderr == "puretree: error: data.csv: refusing to overwrite an input of this command (data.csv); choose another output path\n"
    assert (work / "data.csv").read_bytes() == before


@pytest.mark.parametrize("output", ["data.csv", "m.json"])
def test_predict_o_refuses_to_write_over_its_inputs(work, capsys, output):
    _refused(["predict", "m.json", "data.csv", "-o", output], capsys, work, path=output)


def test_prune_refuses_to_write_over_its_validation_data(work, capsys):
    _refused(["prune", "m.json", "--method", "reduced-error", "--validation", "data.csv", "-o", "data.csv"], capsys, work, path="data.csv")


@pytest.mark.parametrize("output", [".", "{abs}"])
def test_export_refuses_a_folder_that_holds_its_model(work, capsys, output):
    output = output.format(abs=work)
    _refused(["export", "m.json", "--target", "c", "-o", output], capsys, work, path=output)


def test_export_refuses_a_folder_that_holds_its_templates(work, capsys):
    (work / "out" / "tpl" / "mine").mkdir(parents=True)
    (work / "out" / "tpl" / "mine" / "NAME.txt.j2").write_text("{{ name }}\n")
    assert main(["export", "m.json", "--target", "mine", "--language", "python", "--template-dir", "out/tpl", "-o", "out"]) == 1
    assert "refusing to replace a folder that holds an input of this command (out/tpl)" in capsys.readouterr().err
    assert (work / "out" / "tpl" / "mine" / "NAME.txt.j2").exists()


# -- Ctrl-C -------------------------------------------------------------------------------


def _assert_interrupted(child: Child, sig: int = signal.SIGINT) -> str:
    status, out, err = child.kill(sig)
    assert (status, err) == ((130, "puretree: interrupted\n") if sig == signal.SIGINT else (143, "puretree: terminated\n"))
    return out


def test_importing_the_package_or_the_command_line_loads_no_numpy():
    # The command's Ctrl-C handler must be in place before anything heavy is imported.
    code = "import sys, puretree, puretree.cli; print(sorted(m for m in ('numpy', 'attrs', 'jinja2') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=GUARD)
    assert (done.returncode, done.stdout, done.stderr) == (0, "[]\n", "")


@pytest.fixture
def slow_data(work):
    """Random numeric rows: a full-depth fit takes long enough to be interrupted in."""
    rng = np.random.default_rng(0)
    with open(work / "slow.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["a", "b", "c", "y"])
        writer.writerows([*np.round(rng.normal(size=3), 4), f"k{rng.integers(3)}"] for _ in range(1500))
    return "slow.csv"


SLOW_FIT = ["fit", "slow.csv", "--target", "y", "-o", "slow.json"]


@pytest.mark.parametrize("stage", ["started", "command"])
def test_ctrl_c_while_starting_ends_with_one_line(work, slow_data, stage):
    child = Child(SLOW_FIT, cwd=work, pause_at=stage)
    child.reached(stage)
    _assert_interrupted(child)
    assert not (work / "slow.json").exists()


def test_ctrl_c_during_the_heavy_imports_ends_with_one_line(work, slow_data):
    # No pause: the signal lands wherever the child is once it has started (importing numpy
    # and the commands, parsing, or fitting); the fit takes far longer than those.
    child = Child(SLOW_FIT, cwd=work)
    child.reached("started")
    _assert_interrupted(child)
    assert not (work / "slow.json").exists()


def test_ctrl_c_as_the_fit_starts_ends_with_one_line(work, slow_data):
    # Parked at the fit's checkpoint, so the signal lands there on every run: the compiled fit of
    # these rows takes milliseconds, and a signal sent after the checkpoint without a pause could
    # arrive after the model was saved. Ctrl-C inside a long compiled fit is
    # tests/test_kernel_build.py's test_a_long_compiled_fit_stops_on_ctrl_c.
    child = Child(SLOW_FIT, cwd=work, pause_at="fit")
    child.reached("fit")
    _assert_interrupted(child)
    assert not (work / "slow.json").exists()
    assert _leftovers(work, {"data.csv", "m.json", "slow.csv"}) == set()


@pytest.mark.parametrize("stage", ["half-written", "before-rename"])
@pytest.mark.parametrize("command,target", [
    (FIT_NEW, "m.json"),
    (["prune", "m.json", "--method", "pessimistic", "-o", "m.json"], "m.json"),
    (["predict", "m.json", "data.csv", "-o", "p.csv"], "p.csv"),
    (["export", "m.json", "--target", "c", "-o", "out"], "out"),
])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_while_writing_leaves_the_old_output_and_no_temporary_file(work, stage, command, target, sig):
    assert main(["export", "m.json", "--target", "python", "-o", "out"]) == 0
    (work / "p.csv").write_text("prediction\nold\n")
    before = {p.relative_to(work): p.read_bytes() for p in work.rglob("*") if p.is_file()}
    child = Child(command, cwd=work, pause_at=stage)
    assert Path(child.reached(stage)).exists()
    _assert_interrupted(child, sig)
    assert {p.relative_to(work): p.read_bytes() for p in work.rglob("*") if p.is_file() and p.suffix not in (".report", ".resume")} == before
    assert _leftovers(work, {"data.csv", "m.json", "p.csv", "out"}) == set()


# -- the light package -------------------------------------------------------------------


def _type_checking_imports() -> dict[str, tuple[str, str]]:
    """``{public name: (module, attribute)}`` from the package's ``if TYPE_CHECKING:`` block."""
    import ast

    import puretree

    tree = ast.parse(Path(puretree.__file__).read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING")
    names = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom)
        if node.level == 0:  # typing, for annotations
            continue
        for alias in node.names:
            if node.module is None:
                names[alias.asname or alias.name] = (f"puretree.{alias.name}", "")
            else:
                names[alias.asname or alias.name] = (f"puretree.{node.module}", alias.name)
    return names


def test_every_public_name_resolves_lazily_to_what_type_checkers_see():
    # In a fresh interpreter, importing submodules first (the order that would let the
    # submodules ``predict`` and ``grow`` hide the functions of the same name).
    code = """
import importlib, json, sys, types
import puretree.predict, puretree.grow, puretree.codegen.verify, puretree.fold
import puretree
names = json.loads(sys.argv[1])
wrong = []
for name, (module, attribute) in names.items():
    want = importlib.import_module(module)
    if attribute:
        want = getattr(want, attribute)
    if getattr(puretree, name) is not want:
        wrong.append(name)
missing = sorted(set(puretree.__all__) - set(dir(puretree)))
namespace = {}
exec("from puretree import *", namespace)
print(json.dumps([wrong, missing, sorted(set(puretree.__all__) - set(namespace))]))
"""
    import json

    import puretree

    names = _type_checking_imports()
    assert set(names) == set(puretree.__all__) - {"__version__"}
    done = subprocess.run([sys.executable, "-c", code, json.dumps(names)], capture_output=True, text=True, timeout=GUARD)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [[], [], []]


def test_the_package_keeps_its_version_and_refuses_unknown_names():
    import puretree

    assert puretree.__version__ == "0.1.0"
    with pytest.raises(AttributeError, match="has no attribute 'max_dept'"):
        puretree.max_dept  # noqa: B018


# -- properties ----------------------------------------------------------------------------

_names = st.text(st.sampled_from("abcXYZ019_.-"), min_size=1, max_size=8).filter(lambda n: n not in (".", ".."))


@given(old=st.binary(max_size=300), new=st.binary(max_size=300))
def test_write_bytes_leaves_exactly_the_new_content(tmp_path_factory, old, new):
    folder = tmp_path_factory.mktemp("w")
    target = folder / "x"
    files.write_bytes(target, old)
    files.write_bytes(target, new)
    assert target.read_bytes() == new
    assert [p.name for p in folder.iterdir()] == ["x"]


@given(before=st.dictionaries(_names, st.binary(max_size=20), max_size=4), after=st.dictionaries(_names, st.text(max_size=20), max_size=4))
def test_write_folder_holds_the_new_files_and_keeps_the_others(tmp_path_factory, before, after):
    parent = tmp_path_factory.mktemp("f")
    out = parent / "out"
    files.write_folder(out, before)
    paths = files.write_folder(out, after)
    assert [p.name for p in paths] == sorted(after)
    assert _snapshot(out) == {**before, **{k: v.encode() for k, v in after.items()}}
    assert [p.name for p in parent.iterdir()] == ["out"]


def test_a_new_file_gets_the_usual_permissions_and_a_replaced_one_keeps_its_own(tmp_path):
    mask = os.umask(0o022)
    try:
        files.write_text(tmp_path / "new.json", "x")
        assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o644  # as open() would make it, not mkstemp's 0600
        (tmp_path / "old.json").write_text("x")
        (tmp_path / "old.json").chmod(0o640)
        files.write_text(tmp_path / "old.json", "y")
        assert (tmp_path / "old.json").stat().st_mode & 0o777 == 0o640
        files.write_folder(tmp_path / "out", {"a": "x"})
        assert (tmp_path / "out").stat().st_mode & 0o777 == 0o755
        assert (tmp_path / "out" / "a").stat().st_mode & 0o777 == 0o644
    finally:
        os.umask(mask)


# -- Ctrl-C where a library gets in the way (the program, main() without arguments) ----------


def _program(work: Path, prelude: str, *args: str) -> tuple[int, str, str]:
    code = prelude + "\nimport sys\nfrom puretree.cli import main\nsys.exit(main())\n"
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=work, capture_output=True, text=True, timeout=GUARD, preexec_fn=_default_sigint)
    return done.returncode, done.stdout, done.stderr


def test_ctrl_c_that_a_library_turns_into_another_error_still_reports_as_ctrl_c(work):
    # numpy's import, interrupted, raises ImportError("Importing the numpy C-extensions failed").
    prelude = """
import os, signal
import puretree.cli.commands.core as core
def load(path):
    try:
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10**6): pass
    except KeyboardInterrupt:
        raise ImportError("Importing the numpy C-extensions failed")
core.load = load
"""
    assert _program(work, prelude, "show", "m.json") == (130, "", "puretree: interrupted\n")


def test_ctrl_c_swallowed_by_a_callback_still_ends_the_program_with_one_line(work):
    # Python reports an exception raised in a callback as "Exception ignored in ..." and goes on.
    prelude = """
import gc, os, signal
import puretree.cli.commands.core as core
real = core.load
class Noisy:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10**6): pass
def load(path):
    Noisy()
    gc.collect()
    return real(path)
core.load = load
"""
    status, out, err = _program(work, prelude, "show", "m.json")
    assert (status, err) == (130, "puretree: interrupted\n")


def test_ctrl_c_while_the_temporary_file_is_created_is_deferred_until_it_can_be_removed(work):
    before = (work / "m.json").read_bytes()
    prelude = """
import os, signal, tempfile
real = tempfile.mkstemp
def mkstemp(*args, **kwargs):
    made = real(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGINT)  # arrives between creating the file and knowing its name
    return made
tempfile.mkstemp = mkstemp
"""
    assert _program(work, prelude, *FIT_NEW) == (130, "", "puretree: interrupted\n")
    assert (work / "m.json").read_bytes() == before
    assert _leftovers(work, {"data.csv", "m.json"}) == set()


def test_sigterm_ends_the_program_like_ctrl_c(work):
    prelude = """
import os, signal
import puretree.cli.commands.core as core
def load(path):
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(10**6): pass
core.load = load
"""
    assert _program(work, prelude, "show", "m.json") == (143, "", "puretree: terminated\n")
