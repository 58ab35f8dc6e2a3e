"""The help a person reads (``asz CMD --help``), made plain from a command's docstring.

A command's docstring is written for both Sphinx-style readers and the terminal: reStructuredText literals
(````asz push````) and roles (``:mod:`asz_core.collect.reset```), and lines broken at the source's width. Typer
shows the docstring as it is, keeping every line break after the first paragraph, so ``--help`` showed the markup
and wrapped raggedly (a new user's report). :func:`plain` turns it into what the terminal should show; the
generated reference (``scripts/gen_cli_docs.py``) reads the docstring itself through :func:`source_of`, so
docs/cli.md keeps its Markdown code spans.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

__all__ = ["plain", "paragraphs", "source_of", "plain_commands"]

#: ``:role:`target``` and ``:role:`~a.b.target``` (Sphinx cross references).
_ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|exc|obj|const):`(~?)([^`]+)`")
#: A reStructuredText inline literal: two backticks, text, two backticks.
_LITERAL = re.compile(r"``(.+?)``", re.DOTALL)

#: plain help -> the docstring it was made from (for the reference page, which renders the markup as Markdown).
_SOURCES: dict[str, str] = {}


def _role(m: re.Match) -> str:
    """A cross reference as its target's name (the last part only with ``~``, as Sphinx shows it)."""
    target = m.group(2)
    return target.rsplit(".", 1)[-1] if m.group(1) else target


def plain(doc: str | None) -> str:
    """``doc`` (a docstring) as plain help: roles as their target, ````literal```` as ``literal``, each paragraph on one
    line (the terminal wraps it to its width), paragraphs apart by one blank line. A paragraph ending in ``::`` is
    followed by a literal block, kept line by line (Typer's help keeps the line breaks of every paragraph after the
    first) and the ``::`` is one ``:``. '' for no docstring; a text this function made is given back as it is (a group shared by two
    applications is made plain once)."""
    if doc in _SOURCES:
        return doc
    text = inspect.cleandoc(doc or "").strip()
    if not text:
        return ""
    out = [para if literal else _LITERAL.sub(r"\1", _ROLE.sub(_role, para)) for para, literal in paragraphs(text)]
    result = "\n\n".join(out)
    _SOURCES[result] = text
    return result


def paragraphs(doc: str | None) -> list[tuple[str, bool]]:
    """``(text, literal)`` per paragraph of a docstring, markup kept: a paragraph joined into one line (a ``::`` at
    its end made one ``:``), or the literal block after such a paragraph, its lines kept (``literal`` True)."""
    out: list[tuple[str, bool]] = []
    literal_next = False
    for block in re.split(r"\n\s*\n", inspect.cleandoc(doc or "").strip()):
        if not block.strip():
            continue
        if literal_next:
            out.append((inspect.cleandoc(block), True))
            literal_next = False
            continue
        line = " ".join(part.strip() for part in block.splitlines())
        if line.endswith("::"):
            literal_next = True
            line = line[:-1]
        out.append((line, False))
    return out


def source_of(help_text: str | None) -> str:
    """The docstring :func:`plain` made ``help_text`` from, or ``help_text`` itself when it was not made so."""
    return _SOURCES.get(help_text or "", help_text or "")


def plain_commands(app: Any) -> None:
    """Give every command of the Typer application ``app`` and of its groups (plugins' too) :func:`plain` help: its
    own ``help=``, else its callback's docstring; a group's help likewise."""
    for info in app.registered_commands:
        doc = info.help if isinstance(info.help, str) else inspect.getdoc(info.callback) if info.callback else None
        if doc:
            info.help = plain(doc)
    for group in app.registered_groups:
        inst = group.typer_instance
        if isinstance(group.help, str):
            group.help = plain(group.help)
        if inst is not None:
            ginfo = inst.info
            if isinstance(ginfo.help, str):
                ginfo.help = plain(ginfo.help)
            elif ginfo.callback is not None and inspect.getdoc(ginfo.callback):
                ginfo.help = plain(inspect.getdoc(ginfo.callback))
            plain_commands(inst)
