"""Wide characters keep the tables aligned (trial 3, finding 2): ``asz ls`` and ``asz usage`` pad and cut by terminal
cells, not characters. The corpus's Japanese session (5c0375b4) has a CJK title; a copy of it gets a CJK project.

The oracle is Unicode's East Asian Width (``unicodedata``): a W or F character takes two cells, a combining mark none.
"""

from __future__ import annotations

import json
import re
import shutil
import unicodedata

from reading_helpers import asz
from view_server_helpers import collect_and_parse

SESSION = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
WHEN = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d")


def cells(text: str) -> int:
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _aligned(table: str, column: str, value: re.Pattern) -> list[str]:
    """The table's lines, after checking that ``value`` starts on every line at the cell where ``column`` starts."""
    lines = table.splitlines()
    at = cells(lines[0][: lines[0].index(column)])
    rows = [ln for ln in lines[1:] if value.search(ln)]
    assert rows
    for ln in rows:
        assert cells(ln[: value.search(ln).start()]) == at, (ln, at)
    return rows


def test_a_cjk_title_of_the_corpus_keeps_the_columns_in_place(corpus_root):
    rows = _aligned(asz("ls", "--root", str(corpus_root)).stdout, "LAST ACTIVITY", WHEN)
    mine = next(ln for ln in rows if ln.startswith(SESSION[:8]))
    title = mine[10:].split("  ")[0]
    assert cells(mine[:10]) + cells(title) <= 10 + 34
    assert title.startswith("/orchestrator @CLAUDE.md を最新の") and title.endswith("…")
    # every data line is as wide up to its state as the header is up to STATE
    head = asz("ls", "--root", str(corpus_root)).stdout.splitlines()[0]
    state_at = cells(head[: head.index("STATE")])
    for ln in rows:
        assert cells(ln[: ln.rindex("  ") + 2]) == state_at, ln


def test_a_cjk_project_is_cut_and_padded_by_cells(corpus_source, tmp_path):
    src = tmp_path / "projects" / "-home-user-sample-project"
    shutil.copytree(corpus_source / "-home-user-sample-project", src)
    f = src / f"{SESSION}.jsonl"
    f.write_text(f.read_text(encoding="utf-8").replace('"cwd":"/path/to/Demo"', '"cwd":"/path/to/日本語のデモプロジェクト"'),
                 encoding="utf-8")
    root = tmp_path / "root"
    collect_and_parse(tmp_path / "projects", root)
    row = _aligned(asz("ls", "--root", str(root)).stdout, "LAST ACTIVITY", WHEN)[0]
    # the PROJECT column is 20 cells, cut at its start (the tail tells projects apart): the ellipsis, the last 9
    # kanji or kana (2 cells each; no whole folder fits after "…/") and one cell of padding
    assert "  …のデモプロジェクト   " in row, row
    money = re.compile(r"\$\d")
    usage = asz("usage", "project", "--root", str(root)).stdout
    lines = usage.splitlines()
    assert lines[1].startswith("/path/to/日本語のデモプロジェクト  ")
    end = cells(lines[0][: lines[0].index("COST") + 4])
    assert all(cells(ln) == end for ln in lines if money.search(ln)), usage  # the cost column ends where its header does


def test_a_cost_of_a_thousand_dollars_widens_the_cost_column(corpus_source, tmp_path):
    """Trial 4, F13: ``$1,005.…`` was printed for a cost past $1,000; the COST (and TOKENS) column widens instead."""
    src = tmp_path / "projects" / "-home-user-sample-project"
    shutil.copytree(corpus_source / "-home-user-sample-project", src)
    f = src / f"{SESSION}.jsonl"
    text = f.read_text(encoding="utf-8")
    assert text.count('"output_tokens":263,') == 1
    f.write_text(text.replace('"output_tokens":263,', '"output_tokens":99000263,'), encoding="utf-8")
    root = tmp_path / "root"
    collect_and_parse(tmp_path / "projects", root)
    row = next(r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout) if r["id"] == SESSION)
    cost, tokens = row["cost"]["usd"], sum(v for k, v in row["usage"].items() if k in ("in", "out", "cache_read", "cache_write"))
    assert cost > 1000 and tokens > 99_000_000
    table = asz("ls", "--root", str(root)).stdout
    assert "…" not in table.split("\n", 1)[1].split("$")[-1]
    line = next(ln for ln in table.splitlines() if ln.startswith(SESSION[:8]))
    assert f"  {tokens:,}  ${cost:,.2f}  " in line, line
    head = table.splitlines()[0]
    # the COST header ends where the figure does, and STATE starts where the row's state does
    assert cells(head[: head.index("COST") + 4]) == cells(line[: line.index(f"${cost:,.2f}") + len(f"${cost:,.2f}")])
    assert cells(head[: head.index("STATE")]) == cells(line[: line.rindex("  ") + 2])


def test_usage_project_cuts_a_long_path_at_its_start_as_ls_does(corpus_root, corpus_source):
    """trial 16b, 14: ``asz usage project`` cut a long project at its end (``…/spotter-worktrees/spott…``), hiding the
    folders that tell worktrees apart; it now keeps the tail as ``asz ls`` does. The projects are the corpus's cwd values,
    read from the main transcripts."""
    cwds = set()
    for f in corpus_source.glob("*/*.jsonl"):  # a conversation's project: the first cwd of its main transcript
        m = re.search(r'"cwd":"([^"]*)"', f.read_text(encoding="utf-8", errors="replace"))
        if m:
            cwds.add(m.group(1))
    long = sorted(c for c in cwds if cells(c) > 44)  # wider than the key column's 44 cells
    assert long, cwds
    lines = asz("usage", "project", "--root", str(corpus_root)).stdout.splitlines()
    keys = [ln.split("  ")[0] for ln in lines[1:-1]]
    for c in long:
        shown = [k for k in keys if k.startswith("…") and c.endswith(k[1:])]
        assert len(shown) == 1, (c, keys)
        assert c.endswith(shown[0][1:]) and "/" in shown[0]
    assert not any(k.endswith("…") for k in keys), keys  # no key cut at its end
