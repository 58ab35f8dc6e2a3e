"""A transcript line its runtime wrote again is one search hit, at the record the conversation draws (trial 48b F1).

Field reports 20, 21 and 23: Claude Code appends a line again byte for byte (the same uuid, the same payload). The
conversation draws and counts it once, but ``asz search`` gave a second hit with ``step`` '' at the repeat's landed
row (``…-000005.sd`` row 1 in the trial, appended while ``asz server`` ran), whose page link marked nothing.

Real input: the first 8 lines of the corpus's spotter transcript (Claude Code: its prompt ``mix phx.server doesnt
seem to start`` and the assistant ``tool_use`` running ``mix phx.server 2>&1 | head -80``), landed by the real
``asz collect --once``; then its prompt line and its tool_use line appended again, byte for byte, and landed by a
later pass (``asz collect --once`` again, and ``asz collect --no-parse`` then ``asz parse``), or all in one pass. The
expected hits are counted from the JSONL written here: one for each record id whose line holds the words.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import asz_in_process as asz
from reading_helpers import SPOTTER

WORDS = ("doesnt seem", "head -80")  # the prompt's words; the tool_use command's


def _expected(source: bytes, words: str) -> dict[str, int]:
    """Record id -> the 1-based row of its first line holding ``words`` in the JSONL ``source``; every id once."""
    out: dict[str, int] = {}
    for row, line in enumerate(source.splitlines(), 1):
        if words.encode() in line:
            out.setdefault(json.loads(line)["uuid"], row)
    return out


def _collect(tmp_path: Path, *args: str) -> None:
    for cmd in ([["collect", "--once", *args, "--source", str(tmp_path / "projects")]]
                + ([["parse"]] if "--no-parse" in args else [])):
        made = asz(*cmd, "--root", str(tmp_path / "root"), env={"CLAUDE_CONFIG_DIR": str(tmp_path / "claude-home")})
        assert made.returncode == 0, made.stdout + made.stderr


def _hits(root: Path, words: str) -> list[dict]:
    got = asz("search", f'"{words}"', "--json", "--limit", "50", "--root", str(root))
    assert got.returncode == 0, got.stdout + got.stderr
    return json.loads(got.stdout)


@pytest.mark.parametrize("passes", ["later collect", "later collect and parse", "one pass"])
def test_a_line_written_again_is_one_hit_at_the_record_drawn(corpus_dir, tmp_path, passes):
    lines = (corpus_dir / SPOTTER).read_bytes().splitlines(keepends=True)[:8]
    again = [x for x in lines if b'"uuid"' in x and any(w.encode() in x for w in WORDS)]
    assert len(again) == 2 and b'"tool_use"' in again[1]  # the prompt line and the assistant tool_use line
    source = tmp_path / "projects" / "-home-user-spotter" / SPOTTER.rsplit("/", 1)[1]
    source.parent.mkdir(parents=True)
    source.write_bytes(b"".join(lines + (again if passes == "one pass" else [])))
    _collect(tmp_path)
    if passes != "one pass":
        with open(source, "ab") as f:
            f.write(b"".join(again))  # appended again, byte for byte, and landed by a later pass
        _collect(tmp_path, *(["--no-parse"] if passes.endswith("parse") else []))
    written = source.read_bytes()
    for words in WORDS:
        want = _expected(written, words)
        assert sum(words.encode() in x for x in written.splitlines()) == 2 and len(want) == 1
        hits = _hits(tmp_path / "root", words)
        assert len(hits) == len(want), [(h["step"], h["file"], h["row"]) for h in hits]
        for h in hits:
            assert h["step"] and h["repeats"] == "", h
            rec = json.loads((tmp_path / "root" / h["file"]).read_bytes().split(b"\n")[h["row"]])
            assert rec["id"] in want  # the record the conversation draws: the id's first line
    if passes != "one pass":  # the repeats landed in a later file: the case the trial saw
        files = sorted(p.name for p in (tmp_path / "root").glob("*/streams/main/*.sd"))
        assert len(files) == 2, files
