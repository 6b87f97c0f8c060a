"""Every Python block of docs/ runs, as a reader would paste the page: its ```python blocks in
order, in one namespace per page (a page's later blocks may use what its earlier ones made).

Blocks of ``>>>`` examples are doctests, which pytest runs already (``--doctest-glob=*.md``);
the other blocks run here, each page from a scratch folder (blocks may write files). A block
that cannot run here is fenced as ``text``, not ``python``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.S | re.M)
#: The languages a fenced block of docs/ may have ("" is output or a shell session).
LANGUAGES = {"", "python", "text", "console", "sh", "json", "c"}


def fenced(page: Path) -> list[tuple[str, int, str]]:
    """(language, line, code) of each fenced block of ``page``."""
    text = page.read_text(encoding="utf-8")
    return [(m.group(1).strip(), text.count("\n", 0, m.start()) + 2, m.group(2)) for m in FENCE.finditer(text)]


def scripts(page: Path) -> list[tuple[int, str]]:
    return [(line, code) for language, line, code in fenced(page) if language == "python" and ">>>" not in code]


PAGES = sorted(DOCS.glob("*.md"))
WITH_SCRIPTS = [p for p in PAGES if scripts(p)]


def test_the_collector_finds_the_pages_with_scripts():
    names = {p.name for p in WITH_SCRIPTS}
    assert {"codegen.md", "pruning.md", "real-data.md", "property-testing.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_blocks_are_fenced_with_a_known_language(page):
    for language, line, code in fenced(page):
        assert language in LANGUAGES, f"{page.name}:{line}: a block fenced as {language!r}"
        if language == "python" and ">>>" in code:
            # A doctest block is all examples: a line of code outside them would not run.
            assert code.lstrip().startswith(">>>"), f"{page.name}:{line}: a doctest block starts with code outside the examples"


@pytest.mark.parametrize("page", WITH_SCRIPTS, ids=lambda p: p.name)
def test_python_blocks_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": f"docs_{page.stem.replace('-', '_')}"}
    for line, code in scripts(page):
        try:
            exec(compile(code, f"{page}:{line}", "exec"), namespace)
        except Exception as exc:
            pytest.fail(f"{page.name}, the block at line {line}: {type(exc).__name__}: {exc}")
