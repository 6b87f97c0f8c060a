"""The harness gives each verdict when it should: the sweep's counts mean what they say."""

from __future__ import annotations

import time

from puretree.errors import DataError, ParameterError

from . import harness as h


def verdict(case):
    return h.run_case(case).verdict


def test_cli_error_verdicts():
    classify = h.classify_cli_error
    assert classify(1, "", "puretree: error: data.csv: line 3 ...\n", None, fragments=["line 3"], expect_status=1).verdict == "ok"
    assert classify(1, "", "puretree: error: bad row\n", None, fragments=["line 3"], expect_status=1).verdict == "unclear"
    assert classify(1, "", "puretree: error: a\nmore\n", None, fragments=[], expect_status=1).verdict == "unclear"
    assert classify(2, "", "puretree: error: line 3\n", None, fragments=["line 3"], expect_status=1).verdict == "unclear"
    assert classify(2, "", "puretree: error: line 3\n", None, fragments=["line 3"], expect_status=(1, 2)).verdict == "ok"
    assert classify(0, "done", "", None, fragments=[], expect_status=1).verdict == "wrong"
    assert classify(70, "", "puretree: internal error: KeyError: 1\n", None, fragments=[], expect_status=1).verdict == "traceback"
    assert classify(None, "", "", "KeyboardInterrupt", fragments=[], expect_status=1).verdict == "traceback"


def test_library_verdicts():
    def raise_(exc):
        raise exc

    assert verdict(h.lib_error("a", lambda tmp: raise_(DataError("column 'a'")), DataError, ["'a'"], category="library")) == "ok"
    assert verdict(h.lib_error("b", lambda tmp: raise_(DataError("bad")), DataError, ["'a'"], category="library")) == "unclear"
    assert verdict(h.lib_error("c", lambda tmp: raise_(ParameterError("'a'")), DataError, ["'a'"], category="library")) == "unclear"
    assert verdict(h.lib_error("d", lambda tmp: raise_(KeyError("a")), DataError, ["a"], category="library")) == "traceback"
    assert verdict(h.lib_error("e", lambda tmp: 1, DataError, [], category="library")) == "wrong"
    assert verdict(h.lib_ok("f", lambda tmp: 2, lambda v: None if v == 2 else "not 2", category="library")) == "ok"
    assert verdict(h.lib_ok("g", lambda tmp: 3, lambda v: None if v == 2 else "not 2", category="library")) == "wrong"


def test_lost_files_sees_truncation_and_removal(tmp_path):
    h.write_files(tmp_path, {"a": "1", "b": "22", "c": "3"})
    before = h.snapshot(tmp_path)
    (tmp_path / "a").write_text("")
    (tmp_path / "b").unlink()
    assert h.lost_files(tmp_path, before) == ["a", "b"]
    assert h.lost_files(tmp_path, before, may_change=["a", "b"]) == []


def test_guard_reports_a_hang():
    case = h.custom("sleeps", lambda tmp: time.sleep(30) or h.Result("ok"), category="library", guard=0.5)
    start = time.monotonic()
    assert verdict(case) == "hang"
    assert time.monotonic() - start < 10


def test_guard_reports_memory_exhaustion_as_a_hang():
    case = h.custom("allocates", lambda tmp: h.Result("ok" if bytearray(8 * h.GUARD_MEMORY) else "wrong"), category="library", guard=20)
    assert verdict(case) == "hang"


def test_guarded_verdict_comes_back():
    assert verdict(h.custom("fine", lambda tmp: h.Result("wrong", "detail"), category="library", guard=20)) == "wrong"


# The fault injection itself, on two inline savers independent of puretree's own save: a kill
# after the first write must find the atomic one harmless and the truncating one destructive.
ATOMIC_SAVE = """
import os, tempfile
fd, name = tempfile.mkstemp(dir=".", prefix=".m.json.")
with os.fdopen(fd, "w") as fh:
    fh.write(open("new.json").read())
    fh.flush()
    os.fsync(fh.fileno())
os.replace(name, "m.json")
"""
TRUNCATING_SAVE = """
with open("m.json", "w") as fh:
    fh.write(open("new.json").read())
"""


def test_a_kill_mid_write_tells_atomic_from_truncating_saves():
    from .common import model_text
    from .test_outputs import killed

    files = {"m.json": model_text(), "new.json": model_text(lambda m: m.update(missing="distribute"))}
    assert verdict(killed("atomic", files, code=ATOMIC_SAVE)) == "ok"
    assert verdict(killed("truncating", files, code=TRUNCATING_SAVE)) == "lost data"
