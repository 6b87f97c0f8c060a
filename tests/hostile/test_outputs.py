"""Outputs under faults: SIGKILL mid-write, two concurrent writers, Ctrl-C, a full disk (a
file-size limit) and outputs aimed at inputs. A kill at any moment leaves the old file or the
new one, an export's folder appears whole or not at all, Ctrl-C ends with one line and status
130, and no command writes over a data file it reads."""

from __future__ import annotations

import json
import os
import re
import resource
import signal

import pytest

from . import harness as h
from .common import TRAIN, load_ok, model_text, predictions
from .faults import spawn

CAT = "outputs"
OLD = model_text()  # the model already on disk
FIT = ["fit", "data.csv", "--target", "label", "-o", "m.json"]
BIGGER = "a,c,label\n" + "".join(f"{i},{'xyz'[i % 3]},{'np'[(i // 2) % 2]}\n" for i in range(60))


def old_or_complete(path, old_bytes):
    """None when ``path`` holds the old bytes or a complete model; else what was lost."""
    if path.is_file() and path.read_bytes() == old_bytes:
        return None
    if not path.exists():
        return f"{path.name} is gone"
    if load_ok(path) is None:
        return f"{path.name} holds {path.stat().st_size} bytes that are neither the old model nor a complete new one"
    return None


def folder(path):
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())} if path.is_dir() else None


# -- SIGKILL while writing ------------------------------------------------------------------------


def killed(name, files, argv=None, code=None, target="m.json"):
    def body(tmp):
        h.write_files(tmp, files)
        old = (tmp / target).read_bytes()
        child = spawn(tmp, pause={"on": "write", "dir": str(tmp)}, argv=argv, code=code)
        if not child.wait_paused():
            status, err = child.finish()
            return h.Result("wrong", f"never wrote {target} (exit {status}): {err.strip()[-200:]}")
        child.kill()
        problem = old_or_complete(tmp / target, old)
        return h.Result("lost data", problem) if problem else h.Result("ok")

    return h.custom(name, body, category=CAT, guard=90)


def export_killed(name, fresh):
    """SIGKILL during ``export`` into a folder: it holds the old set or the complete new one."""

    def body(tmp):
        import puretree as pt

        (tmp / "m.json").write_text(model_text(), encoding="utf-8")
        if not fresh:
            (tmp / "old.json").write_text(json.dumps({**json.loads(OLD), "missing": "distribute"}), encoding="utf-8")
            pt.export(pt.load(tmp / "old.json"), "c", out_dir=tmp / "out")
        before = folder(tmp / "out")
        child = spawn(tmp, pause={"on": "write", "dir": str(tmp)}, argv=["export", "m.json", "--target", "c", "-o", "out"])
        if not child.wait_paused():
            status, err = child.finish()
            return h.Result("wrong", f"never wrote (exit {status}): {err.strip()[-200:]}")
        child.kill()
        after = folder(tmp / "out")
        ref_status, _, ref_err, _ = h.run_cli(["export", "m.json", "--target", "c", "-o", "ref"], tmp)
        if ref_status != 0:
            return h.Result("wrong", f"the reference export failed: {ref_err.strip()}")
        if after == before or after == folder(tmp / "ref"):
            return h.Result("ok")
        names = sorted(after) if after is not None else None
        return h.Result("lost data", f"out/ holds {names}, neither the old set nor the complete new one")

    return h.custom(name, body, category=CAT, guard=90)


# -- two writers -------------------------------------------------------------------------------


def both_write(a, b):
    """A and B both stopped mid-write, then A finishes, then B. A writer that serialises
    writers (a lock) keeps B from writing while A holds it: B is then released after A."""
    if not a.wait_paused():
        sa, ea = a.finish()
        b.proc.kill()
        return sa, None, ea, b.finish()[1], False
    b_first = b.wait_paused(timeout=30)
    sa, ea = a.release()
    if not b_first and not b.wait_paused():
        sb, eb = b.finish()
        return sa, sb, ea, eb, False
    sb, eb = b.release()
    return sa, sb, ea, eb, True


def two_writers(name, a_files, a_argv, b_argv, *, target="m.json"):
    """A and B both stop after their first write to ``target``'s folder; A finishes, then B.
    The file must be exactly one writer's complete output."""

    def body(tmp):
        h.write_files(tmp, a_files)
        a = spawn(tmp, pause={"on": "write", "dir": str(tmp)}, argv=a_argv)
        b = spawn(tmp, pause={"on": "write", "dir": str(tmp)}, argv=b_argv)
        sa, sb, ea, eb, paused = both_write(a, b)
        if not paused:
            return h.Result("wrong", f"a writer never wrote: {ea.strip()[-150:]} {eb.strip()[-150:]}")
        if sa != 0 or sb != 0:
            return h.Result("wrong", f"exit {sa} and {sb}: {ea.strip()[-150:]} {eb.strip()[-150:]}")
        if load_ok(tmp / target) is None:
            return h.Result("lost data", f"{target} ({(tmp / target).stat().st_size} bytes) is neither writer's model")
        return h.Result("ok")

    return h.custom(name, body, category=CAT, guard=120)


def two_exports(name):
    def body(tmp):
        (tmp / "a.json").write_text(model_text(), encoding="utf-8")
        (tmp / "b.json").write_text(json.dumps({**json.loads(OLD), "missing": "distribute"}), encoding="utf-8")
        a = spawn(tmp, pause={"on": "write", "dir": str(tmp)}, argv=["export", "a.json", "--target", "c", "-o", "out"])
        b = spawn(tmp, pause={"on": "write", "dir": str(tmp)}, argv=["export", "b.json", "--target", "c", "-o", "out"])
        sa, sb, ea, eb, paused = both_write(a, b)
        if not paused or sa != 0 or sb != 0:
            return h.Result("wrong", f"exit {sa} and {sb}: {ea.strip()[-150:]} {eb.strip()[-150:]}")
        for ref, model in (("ra", "a.json"), ("rb", "b.json")):
            h.run_cli(["export", model, "--target", "c", "-o", ref], tmp)
        if folder(tmp / "out") in (folder(tmp / "ra"), folder(tmp / "rb")):
            return h.Result("ok")
        return h.Result("lost data", "out/ mixes the two exports")

    return h.custom(name, body, category=CAT, guard=120)


# -- Ctrl-C ------------------------------------------------------------------------------------


def ctrl_c(name, pause, argv, files, *, keep=()):
    def body(tmp):
        h.write_files(tmp, files)
        before = h.snapshot(tmp)
        point = {**pause, "dir": str(tmp)} if pause.get("dir") == "." else pause
        child = spawn(tmp, pause=point, argv=argv)
        if not child.wait_paused():
            status, err = child.finish()
            return h.Result("wrong", f"never reached the pause point {pause} (exit {status}): {err.strip()[-200:]}")
        status, err = child.interrupt()
        lines = [l for l in err.splitlines() if l.strip()]
        for name_ in keep:
            problem = old_or_complete(tmp / name_, before[name_])
            if problem:
                return h.Result("lost data", problem)
        if "Traceback" in err:
            return h.Result("traceback", " ".join(err.split())[-300:])
        if status != 130 or len(lines) != 1:
            return h.Result("unclear", f"exit {status}, {len(lines)} lines on stderr: {' '.join(err.split())[-200:]}")
        return h.Result("ok")

    return h.custom(name, body, category=CAT, guard=90)


# -- a full disk: writes past a file-size limit fail (EFBIG) -------------------------------------


def disk_full(name, files, argv, *, limit, target):
    """Run in the guarded (forked) child: a file-size limit makes the write fail midway. The
    command must fail with one line and leave ``target`` as it was."""

    def body(tmp):
        h.write_files(tmp, files)
        before = h.snapshot(tmp)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
        status, out, err, escaped = h.run_cli(argv, tmp)
        resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        if target.endswith("/"):
            after = {k: v for k, v in h.snapshot(tmp).items() if k.startswith(target)}
            old = {k: v for k, v in before.items() if k.startswith(target)}
            if after != old:
                return h.Result("lost data", f"{target} changed: {sorted(after)} (was {sorted(old)})")
        else:
            lost = h.lost_files(tmp, before)
            if lost:
                return h.Result("lost data", f"changed or removed: {lost}")
        return h.classify_cli_error(status, out, err, escaped, fragments=[], expect_status=1)

    return h.custom(name, body, category=CAT, guard=60)


def exported_old(tmp_files):
    """Files for a folder ``out/`` holding an earlier export (of OLD with another strategy)."""

    def make(path):
        import puretree as pt

        path.write_text(json.dumps({**json.loads(OLD), "missing": "distribute"}), encoding="utf-8")
        pt.export(pt.load(path), "c", out_dir=path.parent / "out")

    return {**tmp_files, "old.json": make}


# -- outputs aimed at inputs and other in-process checks ------------------------------------------


def no_strays(expected):
    def check(out, err, tmp):
        names = sorted(p.name for p in tmp.iterdir())
        return None if names == sorted(expected) else f"folder holds {names}, expected {sorted(expected)}"

    return check


def pruned_in_place(out, err, tmp):
    tree = load_ok(tmp / "m.json")
    if tree is None:
        return "lost data: m.json does not load after an in-place prune"
    if (tmp / "m.json").read_text(encoding="utf-8") == OLD:
        return "m.json was not rewritten"
    return None


def predictions_in(name, want):
    def check(out, err, tmp):
        path = tmp / name
        if not path.is_file():
            return f"no {name} written"
        got = predictions(path.read_text(encoding="utf-8"))
        return None if got == want else f"{name} holds {got}, expected {want}"

    return check


def refused(name, files, argv, fragments, **kw):
    """Refused with one line naming the file; bad input (1) or bad usage (2) are both fair,
    an option the command does not know yet is not a refusal."""
    known = re.compile(r"^(?!.*unrecognized arguments)", re.IGNORECASE)
    return h.cli_error(name, files, argv, [*fragments, known], category=CAT, status=kw.pop("status", (1, 2)), **kw)


def save_to(path_name, error_fragment):
    import puretree as pt
    from puretree.errors import PuretreeError

    def call(tmp):
        if path_name == "models_dir":
            (tmp / path_name).mkdir()
        return pt.save(pt.from_json(OLD), tmp / path_name)

    return h.lib_error(f"library-save-into-{path_name.replace('/', '-')}", call,
                       (PuretreeError, OSError), [error_fragment], category=CAT)


def hard_link(tmp_name, link_name):
    def make(path):
        os.link(path.parent / tmp_name, path)

    return make


def sym_link(tmp_name):
    def make(path):
        os.symlink(tmp_name, path)

    return make


NEW = "a,c\n1,x\n3,x\n1,y\n1,z\n"
SAVE_CODE = "import puretree as pt; pt.save(pt.load('new.json'), 'm.json')"

CASES = [
    killed("sigkill-during-fit-over-a-model", {"data.csv": TRAIN, "m.json": OLD}, argv=FIT),
    killed("sigkill-during-prune-in-place", {"m.json": OLD}, argv=["prune", "m.json", "--method", "pessimistic", "--cf", "0.9", "-o", "m.json"]),
    killed("sigkill-during-library-save", {"m.json": OLD, "new.json": json.dumps({**json.loads(OLD), "missing": "distribute"})}, code=SAVE_CODE),
    export_killed("sigkill-during-export-over-an-export", fresh=False),
    export_killed("sigkill-during-export-into-a-new-folder", fresh=True),
    two_writers("two-fits-to-one-model", {"data.csv": TRAIN, "big.csv": BIGGER},
                ["fit", "big.csv", "--target", "label", "-o", "m.json"], FIT),
    two_writers("two-prunes-to-one-model", {"m.json": OLD, "other.json": json.dumps({**json.loads(OLD), "missing": "distribute"})},
                ["prune", "m.json", "--method", "penalty", "--penalty", "0", "-o", "out.json"], ["prune", "other.json", "--method", "penalty", "--penalty", "100", "-o", "out.json"], target="out.json"),
    two_exports("two-exports-to-one-folder"),
    ctrl_c("ctrl-c-while-importing-numpy", {"on": "import", "module": "numpy"}, ["predict", "m.json", "new.csv"], {"m.json": OLD, "new.csv": NEW}),
    ctrl_c("ctrl-c-while-importing-jinja2", {"on": "import", "module": "jinja2"}, ["export", "m.json", "--target", "c", "-o", "out"], {"m.json": OLD}),
    ctrl_c("ctrl-c-while-reading-data", {"on": "open", "name": "data.csv"}, FIT, {"data.csv": TRAIN, "m.json": OLD}, keep=["m.json", "data.csv"]),
    ctrl_c("ctrl-c-while-saving", {"on": "write", "dir": "."}, FIT, {"data.csv": TRAIN, "m.json": OLD}, keep=["m.json"]),
    ctrl_c("ctrl-c-while-loading-model", {"on": "open", "name": "m.json"}, ["predict", "m.json", "new.csv"], {"m.json": OLD, "new.csv": NEW}, keep=["m.json"]),
    disk_full("disk-full-during-fit-over-a-model", {"data.csv": TRAIN, "m.json": OLD}, FIT, limit=64, target="m.json"),
    disk_full("disk-full-during-prune-in-place", {"m.json": OLD}, ["prune", "m.json", "--method", "pessimistic", "-o", "m.json"], limit=64, target="m.json"),
    disk_full("disk-full-during-export-over-an-export", exported_old({"m.json": OLD}), ["export", "m.json", "--target", "c", "-o", "out"], limit=200, target="out/"),
    refused("fit-output-is-its-data", {"data.csv": TRAIN}, ["fit", "data.csv", "--target", "label", "-o", "data.csv"], ["data.csv"]),
    refused("fit-output-is-its-data-by-another-spelling", {"data.csv": TRAIN, "sub/x": ""}, ["fit", "data.csv", "--target", "label", "-o", "sub/../data.csv"], ["data.csv"]),
    refused("fit-output-is-a-symlink-to-its-data", {"data.csv": TRAIN, "link.csv": sym_link("data.csv")}, ["fit", "data.csv", "--target", "label", "-o", "link.csv"], ["link.csv"]),
    refused("fit-output-is-a-hard-link-to-its-data", {"data.csv": TRAIN, "link.csv": hard_link("data.csv", "link.csv")}, ["fit", "data.csv", "--target", "label", "-o", "link.csv"], ["link.csv"]),
    refused("prune-output-is-its-validation-data", {"m.json": OLD, "v.csv": TRAIN}, ["prune", "m.json", "--method", "reduced-error", "--validation", "v.csv", "-o", "v.csv"], ["v.csv"]),
    refused("predict-output-is-its-data", {"m.json": OLD, "new.csv": NEW}, ["predict", "m.json", "new.csv", "-o", "new.csv"], ["new.csv"]),
    refused("fit-output-in-a-missing-folder", {"data.csv": TRAIN}, ["fit", "data.csv", "--target", "label", "-o", "nowhere/m.json"], ["nowhere"]),
    refused("fit-output-is-a-folder", {"data.csv": TRAIN, "d/keep": "x"}, ["fit", "data.csv", "--target", "label", "-o", "d"], ["d"]),
    refused("export-output-is-a-file", {"m.json": OLD, "out": "not a folder"}, ["export", "m.json", "--target", "python", "-o", "out"], ["out"]),
    h.cli_ok("prune-in-place-allowed", {"m.json": OLD}, ["prune", "m.json", "--method", "pessimistic", "--cf", "0.9", "-o", "m.json"], pruned_in_place, category=CAT, may_change=["m.json"]),
    h.cli_ok("fit-over-a-model-leaves-no-temporary-files", {"data.csv": TRAIN, "m.json": OLD}, FIT, no_strays(["data.csv", "m.json"]), category=CAT, may_change=["m.json"]),
    h.cli_ok("export-leaves-no-temporary-files", {"m.json": OLD}, ["export", "m.json", "--target", "c", "-o", "out"], no_strays(["m.json", "out"]), category=CAT),
    h.cli_ok("predict-writes-output-file", {"m.json": OLD, "new.csv": NEW}, ["predict", "m.json", "new.csv", "-o", "p.csv"], predictions_in("p.csv", ["n", "p", "n", "p"]), category=CAT),
    h.cli_ok("predict-replaces-output-file", {"m.json": OLD, "new.csv": NEW, "p.csv": "old,content\n"}, ["predict", "m.json", "new.csv", "-o", "p.csv"],
             predictions_in("p.csv", ["n", "p", "n", "p"]), category=CAT, may_change=["p.csv"]),
    save_to("missing/m.json", "missing"),
    save_to("models_dir", "models_dir"),
]


@pytest.mark.parametrize("case", CASES, ids=h.ids(CASES))
def test_outputs(case):
    h.check(case)
