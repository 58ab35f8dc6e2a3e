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

PLAIN = re.compile(r"^(collect|parse|rows|conversations|index): (\d+)(?: of (\d+))? ([a-z()]+)(?:, ([\d,.]+) of ([\d,.]+) MB)?, (\d+) s$",
                   re.M)


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
    out["collect"], out["pass"] = p.stderr, p.stdout
    for kept in [*(root / "_index").glob("summaries.sqlite*"), *(root / "_index").glob("search*.sqlite*")]:  # the rows the collect kept: counted again, as a first ls
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


def _megabytes(text: str) -> list[tuple[float, float]]:
    """(MB gone through, MB listed) of each collect line of ``text``."""
    return [(float(m[5].replace(",", "")), float(m[6].replace(",", ""))) for m in PLAIN.finditer(text) if m[1] == "collect"]


def test_a_long_run_not_on_a_terminal_says_where_it_is_in_plain_lines(corpus_source, tmp_path):
    said = _runs(corpus_source, tmp_path / "root", tmp_path, after="0")
    for stream in said.values():
        assert BAR.decode() not in stream and "\x1b[" not in stream
    collect = _plain(said["collect"])
    landing = [c for c in collect if c[0] == "collect"]
    assert landing and all(c[2:] == (11, "session(s)") for c in landing), said["collect"]
    assert [c[1] for c in landing] == sorted(c[1] for c in landing) and landing[-1][1] == 11  # counts only go up
    landed = int(re.search(r" bytes=(\d+) ", said["pass"])[1])  # a first collect reads every byte its listing saw
    mb = _megabytes(said["collect"])
    assert len(mb) == len(landing) and {t for _, t in mb} == {round(landed / 1e6, 1)}, said["collect"]
    assert [b for b, _ in mb] == sorted(b for b, _ in mb) and mb[-1][0] == mb[-1][1]
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
        assert name == "pass" or _plain(stream) == [], (name, stream)
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


def test_one_long_session_says_where_it_is_before_it_ends(corpus_source, tmp_path):
    """One session of 7.6 MB (every corpus transcript's lines, real lines, in one file) lands in files of 2 MB at most:
    with a line due at every look (``ASZ_PROGRESS_EVERY`` 0) the pass says how many of its bytes landed as each file
    lands while that session is still in hand, counted against what the listing saw (note22: it said nothing until
    it ended)."""
    one = tmp_path / "projects" / "-one" / "11111111-2222-4333-8444-555555555555.jsonl"
    one.parent.mkdir(parents=True)
    one.write_bytes(b"".join(p.read_bytes() for p in sorted(corpus_source.glob("*/*.jsonl"))))
    size = one.stat().st_size
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "none"), "ASZ_PROGRESS_AFTER": "0", "ASZ_PROGRESS_EVERY": "0"}
    p = asz_in_process("collect", "--once", "--no-parse", "--source", str(one.parent.parent), "--root", str(tmp_path / "root"),
                       env=env)
    assert p.returncode == 0 and f" bytes={size} " in p.stdout, p.stdout + p.stderr
    files = int(re.search(r" landed=(\d+) ", p.stdout)[1])
    lines = [c for c in _plain(p.stderr) if c[0] == "collect"]
    mb = _megabytes(p.stderr)
    assert {t for _, t in mb} == {round(size / 1e6, 1)} and size > 6_000_000
    during = [b for (_, done, _, _), (b, _) in zip(lines, mb) if done == 0]  # said while the session is in hand
    assert len(during) == files >= 4 and during == sorted(during) and 0 < during[0] < during[-2] < round(size / 1e6, 1), p.stderr
