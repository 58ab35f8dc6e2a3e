"""Long first runs say where they are when stderr is not a terminal (trial 22b, F1: a 73 s collect of 1 GB said nothing).

"Long" is ``ASZ_PROGRESS_AFTER`` seconds (default 5; tests/conftest.py sets 3600 for every other test): 0 makes
every run long, a line at each item with ``ASZ_PROGRESS_EVERY`` 0; 3600 makes every run here short. Nothing here
asserts a time. The commands run in this process (tests/cli_helpers.py): their stderr is not a terminal there.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cli_helpers import asz_in_process  # noqa: E402
from test_progress import BAR, Tty  # noqa: E402

PLAIN = re.compile(r"^(collect|parse|rows|conversations|index): (\d+)(?: of (\d+))? ([a-z()]+), (\d+) s$", re.M)


def _runs(source: Path, root: Path, home: Path, after: str, fresh: bool = True) -> dict[str, str]:
    """stderr of ``collect --once`` (``fresh``: a first one, into an empty root), then a first ``conversations``
    counting every row and a first ``search``."""
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / "none"), "ASZ_PROGRESS_AFTER": after,
           "ASZ_PROGRESS_EVERY": "0"}
    out = {}
    p = asz_in_process("collect", "--once", "--source", str(source), "--root", str(root), env=env)
    assert p.returncode == 0, p.stderr
    rounds = 11 if fresh else 0
    assert re.fullmatch(rf"\[\d\d:\d\d:\d\d\] sessions=11 sources=\d+ landed=\d+ .* rounds={rounds} \(\d+\.\d{{3}}s\)\n", p.stdout), p.stdout
    out["collect"] = p.stderr
    for kept in [*(root / "_index").glob("summaries.sqlite*"), *(root / "_index").glob("search.sqlite*")]:  # the rows the collect kept: counted again, as a first ls
        kept.unlink()
    p = asz_in_process("conversations", "--root", str(root), env=env)
    assert p.returncode == 0 and p.stdout.endswith("\n11 of 11 conversations\n"), p.stdout + p.stderr
    out["conversations"] = p.stderr
    p = asz_in_process("search", "--root", str(root), "the", env=env)
    assert p.returncode == 0, p.stderr
    out["search"] = p.stderr
    return out


def _plain(text: str) -> list[tuple[str, int, int | None, str]]:
    return [(m[1], int(m[2]), int(m[3]) if m[3] else None, m[4]) for m in PLAIN.finditer(text)]


def test_a_long_run_not_on_a_terminal_says_where_it_is_in_plain_lines(corpus_source, tmp_path):
    said = _runs(corpus_source, tmp_path / "root", tmp_path, after="0")
    for stream in said.values():
        assert BAR.decode() not in stream and "\x1b[" not in stream
    collect = _plain(said["collect"])
    landing = [c for c in collect if c[0] == "collect"]
    assert landing and all(c[2:] == (11, "session(s)") for c in landing), said["collect"]
    assert [c[1] for c in landing] == sorted(c[1] for c in landing) and landing[-1][1] == 11  # counts only go up
    parsing = [c for c in collect if c[0] == "parse"]
    assert parsing and parsing[-1] == ("parse", 11, None, "session(s)"), said["collect"]
    assert collect.index(landing[-1]) < collect.index(parsing[0])  # landing, then the parse
    kept = [c for c in collect if c[0] == "rows"]  # then the list rows kept after the pass line
    assert kept and kept[-1] == ("rows", 11, 11, "conversation(s)") and collect.index(parsing[-1]) < collect.index(kept[0])
    rows = _plain(said["conversations"])
    assert [r[1] for r in rows] == list(range(1, 12)) and {r[2:] for r in rows} == {(11, "conversation(s)")}
    index = _plain(said["search"])
    assert [r[1] for r in index] == list(range(1, 12)) and {r[2:] for r in index} == {(11, "conversation(s)")}
    assert re.search(r"^indexed 11 conversation\(s\), \d+ text\(s\) in ", said["search"], re.M)


def test_a_short_run_not_on_a_terminal_says_nothing_more(corpus_source, corpus_copy, tmp_path):
    """The same commands over the collected corpus (a copy: a pass with nothing new, the rows and the index counted
    again), each run short: no plain line."""
    said = _runs(corpus_source, corpus_copy(), tmp_path, after="3600", fresh=False)
    for name, stream in said.items():
        assert _plain(stream) == [], (name, stream)
    assert said["collect"] == "" and said["conversations"] == ""


def test_on_a_terminal_the_bar_is_drawn_and_no_plain_line(corpus_source, tmp_path, monkeypatch):
    monkeypatch.setenv("ASZ_PROGRESS_AFTER", "0")
    monkeypatch.setenv("ASZ_PROGRESS_EVERY", "0")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "none"))
    t = Tty("collect", "--once", "--source", str(corpus_source), "--root", str(tmp_path / "root"))
    assert t.finish() == 0, t.out.decode(errors="replace")
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", t.out.decode(errors="replace"))
    assert BAR.decode() in text and "collect claude-code-local" in text and "/11" in text, text
    assert _plain(text.replace("\r", "\n")) == [], text
    assert "rounds=11" in text
    assert os.environ["ASZ_PROGRESS_AFTER"] == "0"  # the setting the command saw: it is the terminal that kept it quiet
