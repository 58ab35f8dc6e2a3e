"""``asz CMD --help`` is plain text (a new user's report: ``asz sources --help`` showed ````--reread```` and
``:mod:`asz_core.collect.reset``` and wrapped raggedly, each docstring line break kept). Every command's help, as
Click gets it, has no reStructuredText markup and each paragraph on one line; the terminal's help shows it so;
docs/cli.md is still made from the docstrings (its Markdown code spans stay)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import typer

from asz_core.cli.helptext import plain, source_of
from cli_helpers import asz_in_process

REPO = Path(__file__).resolve().parents[2]
MARKUP = re.compile(r"``|:(?:func|class|meth|mod|data|attr|exc|obj|const):`")


def _commands():
    from asz_core.cli.main import app

    stack = [(("asz",), typer.main.get_command(app))]
    while stack:
        path, cmd = stack.pop()
        yield path, cmd
        for name, sub in (getattr(cmd, "commands", None) or {}).items():
            stack.append((path + (name,), sub))


def test_plain_turns_the_markup_into_text_and_joins_each_paragraph():
    doc = """First line.

    With ``--reset-conflict SESSION``: check
    (:mod:`asz_core.collect.reset`, :func:`~asz_core.view.prices.cost_of`) again.

    Usage::

        asz a
        asz b
    """
    assert plain(doc) == ("First line.\n\nWith --reset-conflict SESSION: check (asz_core.collect.reset, cost_of) again."
                          "\n\nUsage:\n\nasz a\nasz b")
    assert plain(plain(doc)) == plain(doc) and source_of(plain(doc)).startswith("First line.\n\nWith ``--reset")


def test_every_commands_help_is_plain():
    seen = 0
    for path, cmd in _commands():
        text = cmd.help or ""
        assert not MARKUP.search(text), (path, text)
        for para in text.split("\n\n"):
            assert "\n" not in para, (path, para)  # one line (no command's help holds a literal block)
        seen += 1
    assert seen > 30


def test_the_terminal_help_of_sources_reads_plain():
    p = asz_in_process("sources", "--help")
    assert p.returncode == 0
    assert "``" not in p.stdout and ":mod:" not in p.stdout
    flat = " ".join(p.stdout.split())
    assert "With --reset-conflict SESSION: check that session's conflicted sources again (asz_core.collect.reset)" in flat
    assert "With --reread as well" in flat


def test_the_reference_keeps_its_code_spans():
    page = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "With `--reset-conflict SESSION`: check that session's conflicted sources again (`asz_core.collect.reset`)" in page
