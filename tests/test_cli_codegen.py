"""puretree export / verify on the command line."""

import subprocess
import sys

import pytest

from puretree.cli import main
from puretree.datasets import load_temperature, path
from puretree.grow import c45
from puretree.io import save


@pytest.fixture()
def model(tmp_path):
    out = tmp_path / "model.json"
    save(c45(load_temperature()), out)
    return str(out)


@pytest.mark.parametrize("target,files", [("python", ["weather.py"]), ("c", ["weather.c", "weather.h"]), ("c-table", ["weather.c", "weather.h"])])
def test_export_writes_the_documented_files(model, tmp_path, capsys, target, files):
    out = tmp_path / "out"
    assert main(["export", model, "--target", target, "--name", "weather", "--feature-type", "float", "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == files
    assert capsys.readouterr().out.count("weather.") == len(files)
    if target != "python":
        header = (out / "weather.h").read_text()
        assert "int weather_predict(const float *features);" in header
        assert "int weather_predict_proba(const float *features, double *proba);" in header
        assert "extern const char *const weather_class_names[WEATHER_N_CLASSES];" in header


@pytest.mark.parametrize("target", ["python", "c", "c-table"])
@pytest.mark.parametrize("ftype", ["double", "int16"])
def test_verify_reports_zero_mismatches(model, capsys, target, ftype):
    assert main(["verify", model, str(path("temperature")), "--target", target, "--feature-type", ftype]) == 0
    out = capsys.readouterr().out
    assert out.strip().endswith(": 0 mismatches")


def test_verify_exits_non_zero_on_a_mismatch(model, tmp_path, capsys):
    # A template folder overriding the C source with a wrong answer must be caught.
    bad = tmp_path / "bad" / "c-table"
    bad.mkdir(parents=True)
    from puretree.codegen.render import template_roots

    source = (template_roots()[0] / "c" / "NAME.c.j2").read_text()
    (bad / "NAME.c.j2").write_text(source.replace("result = (int32_t)(node - {{ NI }}u);", "result = 0;"))
    code = main(["verify", model, str(path("temperature")), "--target", "c-table", "--template-dir", str(tmp_path / "bad")])
    out = capsys.readouterr().out
    assert code == 1
    assert " 0 mismatches" not in out and "generated code" in out


@pytest.mark.parametrize("argv,message", [
    (["export", "{model}", "--target", "c", "--name", "1bad", "-o", "x"], "invalid name"),
    (["export", "{model}", "--target", "c", "--feature-type", "int64", "-o", "x"], "invalid choice"),
    (["export", "{model}", "--target", "cobol", "-o", "{tmp}"], "unknown target"),
    (["export", "{model}", "--target", "c", "--template-dir", "/no/such/dir", "-o", "{tmp}"], "does not exist"),
    (["verify", "{model}", "/no/such.csv", "--target", "c"], "no/such.csv"),
    (["export", "/no/model.json", "--target", "c", "-o", "{tmp}"], "model.json"),
])
def test_bad_options_give_one_line_errors(model, tmp_path, argv, message):
    argv = [a.format(model=model, tmp=tmp_path / "o") for a in argv]
    done = subprocess.run([sys.executable, "-m", "puretree", *argv], capture_output=True, text=True)
    assert done.returncode != 0
    assert done.stderr.count("\n") == 1 and message in done.stderr and "Traceback" not in done.stderr


def test_export_an_added_target(model, tmp_path):
    from pathlib import Path

    from puretree.grow import id3
    from puretree.datasets import load_playtennis

    tennis = tmp_path / "tennis.json"
    save(id3(load_playtennis()), tennis)
    example = Path(__file__).resolve().parent.parent / "examples" / "javascript_target"
    out = tmp_path / "js"
    assert main(["export", str(tennis), "--target", "javascript", "--language", "javascript", "--form", "table", "--template-dir", str(example), "-o", str(out)]) == 0
    assert "function predict(row)" in (out / "tree.js").read_text()
