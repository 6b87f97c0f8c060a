"""MkDocs hooks of the documentation site (mkdocs.yml: ``hooks``), run by ``make docs`` only.

The docstrings hold doctest examples (``>>> ...`` and their output) as plain paragraphs, which
the test suite runs. Markdown would read them as text (an output ``[['a'], ['b']]`` even as a
reference link), so each run of such lines outside a fenced block becomes a ``pycon`` code block
before Markdown reads the page or a docstring (mkdocstrings renders docstrings with the site's
Markdown extensions). Sphinx roles in docstrings (``:func:`~puretree.grow.grow` ``) become
plain code (``grow``).
"""

from __future__ import annotations

import re
from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor
from mkdocs.plugins import event_priority

_FENCE = re.compile(r"^\s*(```|~~~)")
_PROMPT = re.compile(r"^(\s*)>>>( |$)")
_ROLE = re.compile(r":(?:class|func|meth|data|attr|mod|exc|obj):`~?([^`]+)`")


def _plain_role(match: re.Match[str]) -> str:
    name = match.group(1)
    return f"`{name.rsplit('.', 1)[-1] if match.group(0).count('~') else name}`"


def doctest_blocks(lines: list[str]) -> list[str]:
    """``lines`` with each doctest paragraph (from a ``>>>`` line to the next blank line) fenced.

    >>> doctest_blocks(["Text.", ">>> 1 + 1", "2", "", "See :func:`~puretree.fold.walk`."])
    ['Text.', '', '```pycon', '>>> 1 + 1', '2', '```', '', '', 'See `walk`.']
    """
    out: list[str] = []
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            fenced = not fenced
        prompt = None if fenced else _PROMPT.match(line)
        if prompt is None:
            out.append(line if fenced else _ROLE.sub(_plain_role, line))
            i += 1
            continue
        indent = prompt.group(1)
        block = []
        while i < len(lines) and lines[i].strip():
            block.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        out.extend(["", f"{indent}```pycon", *(indent + b for b in block), f"{indent}```", ""])
    return out


class _DoctestPreprocessor(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        return doctest_blocks(lines)


class DoctestExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 - Markdown's name
        # After whitespace normalisation (30), before fenced blocks are read (25).
        md.preprocessors.register(_DoctestPreprocessor(md), "puretree_doctest_blocks", 28)


@event_priority(100)  # before mkdocstrings reads the extensions it renders docstrings with
def on_config(config: Any) -> Any:
    config.markdown_extensions.append(DoctestExtension())
    return config
