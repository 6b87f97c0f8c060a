"""The documentation site's configuration (mkdocs.yml) against the pages: every page of docs/ is
in the navigation, and every module the API reference names exists. ``make docs`` builds the
site (strictly); this test needs no MkDocs, so it runs in ``make test``."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def nav_pages() -> list[str]:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = text.split("\nnav:\n", 1)[1]
    return re.findall(r":\s*(\S+\.md)\s*$", nav, flags=re.M)


def test_every_page_is_in_the_navigation_once():
    pages = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    listed = nav_pages()
    assert sorted(listed) == pages
    assert len(set(listed)) == len(listed)


def test_the_api_reference_names_modules_that_exist():
    names = [m for page in (DOCS / "api").glob("*.md") for m in re.findall(r"^::: (\S+)$", page.read_text(encoding="utf-8"), flags=re.M)]
    assert "puretree.views" in names and len(names) == len(set(names))
    for name in names:
        importlib.import_module(name)
    # Every public module of the package has its reference (the command line has docs/cli.md).
    package = ROOT / "puretree"
    modules = {"puretree." + ".".join(p.relative_to(package).with_suffix("").parts) for p in package.glob("*.py") if not p.name.startswith("_")}
    modules |= {"puretree.codegen", "puretree.datasets", "puretree.cli"}
    # The folders of pruning and input/output: the package and each of its modules.
    for folder in ("prune", "io"):
        modules |= {f"puretree.{folder}"} | {f"puretree.{folder}.{p.stem}" for p in (package / folder).glob("*.py") if not p.name.startswith("_")}
    # Left out: the command line (docs/cli.md), grow (it gathers names documented in builder and
    # c45), and the held-out encoding, internal to prune (growth's modules are builders' internals).
    internal = {"puretree.cli", "puretree.grow", "puretree.validation"}
    assert modules - set(names) == internal


def test_the_site_is_strict_and_builds_into_site():
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^strict: true$", text, flags=re.M) and re.search(r"^site_dir: site$", text, flags=re.M)
    assert "name: material" in text and "mkdocstrings" in text


def test_every_public_name_is_in_the_reference_and_in_a_page_or_an_example():
    # What `import puretree` offers is what the documentation shows: each name of
    # puretree.__all__ is in the API reference (a module there exports it) and is named on a
    # page, in README.md or in an example. Plumbing is not in __all__.
    import types

    import puretree

    referenced = [importlib.import_module(m) for page in (DOCS / "api").glob("*.md") for m in re.findall(r"^::: (\S+)$", page.read_text(encoding="utf-8"), flags=re.M)]
    text = "\n".join(p.read_text(encoding="utf-8") for p in [*DOCS.glob("*.md"), ROOT / "README.md", *(ROOT / "examples").rglob("*.py")])
    not_in_reference, not_on_a_page = [], []
    for name in puretree.__all__:
        value = getattr(puretree, name)
        if isinstance(value, types.ModuleType):
            found = value in referenced or any(m.__name__.startswith(value.__name__ + ".") for m in referenced)
        else:
            found = name == "__version__" or any(getattr(m, attr, None) is value for m in referenced for attr in getattr(m, "__all__", ()))
        if not found:
            not_in_reference.append(name)
        if not re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text):
            not_on_a_page.append(name)
    assert not_in_reference == [] and not_on_a_page == []
