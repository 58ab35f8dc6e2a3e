"""``asz ls`` on a terminal narrower than its table (trial 17b, F10: ``COLUMNS=80 asz ls`` printed 151-cell lines,
so every row wrapped): columns are left out in a fixed order, said once on stderr, and each line fits; ID, TITLE,
LAST ACTIVITY, COST and STATE always stay. A terminal wide enough shows every column and says nothing; output to a
pipe keeps every column whatever ``COLUMNS`` says (scripts read it). The terminal is a real one (a pseudo-terminal
this test holds the other end of)."""

from __future__ import annotations

import json
import re
import sys

import pytest
from cli_helpers import asz_in_process, asz_on_a_terminal
from rich.cells import cell_len

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="opens a pseudo-terminal (Linux)")

ALL = ["ID", "TITLE", "PROJECT", "LAST ACTIVITY", "DURATION", "TALKS", "CALLS", "CHANGES", "TOKENS", "COST", "RUNTIME", "STATE"]
#: The narrowest terminal the corpus's table shows every column in, each at its own width (PROJECT 20 cells).
EVERY_COLUMN = 169  # 156 before RUNTIME (trial 23a, F1: claude-code, 11 cells and 2 between)


def _on_a_terminal(root, columns: int) -> tuple[list[str], list[str], str]:
    """``asz ls --root ROOT`` with its stdout on a pseudo-terminal ``columns`` wide: the header's cells, the rows'
    lines and stderr."""
    lines, err = asz_on_a_terminal("ls", "--root", str(root), columns=columns)
    head = next(ln for ln in lines if ln.startswith("ID "))  # after the progress bar's lines, when one was drawn
    rows = [ln for ln in lines if re.match(r"[0-9a-f]{8}  ", ln)]
    return re.split(r"\s{2,}", head.strip()), rows, err


def test_an_80_column_terminal_gets_lines_of_80_cells(corpus_root):
    header, rows, err = _on_a_terminal(corpus_root, 80)
    assert header == ["ID", "TITLE", "LAST ACTIVITY", "COST", "STATE"]
    assert len(rows) == 11 and max(cell_len(ln) for ln in rows) <= 80
    assert err == ("asz ls: a narrow terminal: PROJECT, DURATION, TALKS, CALLS, CHANGES, TOKENS, RUNTIME left out "
                   "(a wider one, or --json, shows every column)\n")
    listed = {r["id"][:8]: r for r in json.loads(asz_in_process("ls", "--root", str(corpus_root), "--json").stdout)}
    for ln in rows:  # the figures kept are whole: the cost of each row is the one --json gives
        row = listed[ln[:8]]
        assert re.search(r" \$([\d,]+\.\d\d) ", ln).group(1) == f"{row['cost']['usd']:,.2f}", (ln, row["cost"])


def test_a_100_column_terminal_keeps_tokens(corpus_root):
    header, rows, err = _on_a_terminal(corpus_root, 100)
    assert header == ["ID", "TITLE", "LAST ACTIVITY", "TOKENS", "COST", "STATE"]
    assert max(cell_len(ln) for ln in rows) <= 100 and "PROJECT, DURATION, TALKS, CALLS, CHANGES, RUNTIME left out" in err


def test_a_terminal_wide_enough_shows_every_column_and_says_nothing(corpus_root):
    header, rows, err = _on_a_terminal(corpus_root, EVERY_COLUMN)
    assert header == ALL and err == "" and max(cell_len(ln) for ln in rows) <= EVERY_COLUMN
    header, _, _ = _on_a_terminal(corpus_root, EVERY_COLUMN - 6)  # a few cells short: TITLE gives them, no column goes
    assert header == ALL


def test_a_pipe_gets_every_column_whatever_columns_says(corpus_root):
    p = asz_in_process("ls", "--root", str(corpus_root), env={"COLUMNS": "80"})
    assert re.split(r"\s{2,}", p.stdout.splitlines()[0].strip()) == ALL and "narrow" not in p.stderr
    # RUNTIME names the runtime --json's runtime names (trial 23a, F1), each row's cell before STATE
    rows = {r["id"][:8]: r["runtime"]["name"] for r in json.loads(asz_in_process("ls", "--root", str(corpus_root), "--json").stdout)}
    cells = {ln[:8]: re.split(r"\s{2,}", ln.strip())[-2] for ln in p.stdout.splitlines() if re.match(r"[0-9a-f]{8}  ", ln)}
    assert cells == rows and set(cells.values()) == {"claude-code"}
