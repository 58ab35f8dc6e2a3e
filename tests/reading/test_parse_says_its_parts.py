"""``asz parse`` of landed, unparsed sessions says each part while the user waits, and its closing line the whole
wait (trial 47d F1: ``parse: 0 of 262 session(s), 5 s``, then 56 s of nothing, then ``(12.6s)`` of a 63.8 s command).

A real root: three real-shaped copies of the corpus (33 conversations) landed by ``asz collect --once --no-parse``,
then the real ``asz parse`` piped, with a progress line due at every step (``ASZ_PROGRESS_AFTER=0``,
``ASZ_PROGRESS_EVERY=0``). The totals are counted from the source files: the distinct ``sessionId`` of the
top-level transcripts of the project folders, one conversation each.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

ASZ = [sys.executable, "-m", "asz_core.cli.main"]


def _sessions(source: Path) -> int:
    """The distinct ``sessionId`` of the top-level transcripts (an ``agent-*.jsonl`` beside them carries its session's)."""
    ids = set()
    for path in source.glob("*/*.jsonl"):
        with path.open("rb") as f:
            for line in f:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if isinstance(rec, dict) and rec.get("sessionId"):
                    ids.add(rec["sessionId"])
                    break
    return len(ids)


@pytest.mark.slow
def test_parse_says_each_part_and_the_whole_wait(corpus_source_x3: Path, tmp_path: Path):
    root = tmp_path / "root"
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(tmp_path / "claude-home"), "HOME": str(tmp_path)}
    landed = subprocess.run([*ASZ, "collect", "--once", "--no-parse", "--source", str(corpus_source_x3), "--root",
                             str(root)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=900)
    assert landed.returncode == 0, landed.stderr
    total = _sessions(corpus_source_x3)
    assert total == 33
    env.update(ASZ_PROGRESS_AFTER="0", ASZ_PROGRESS_EVERY="0")
    began = time.monotonic()
    p = subprocess.run([*ASZ, "parse", "--root", str(root), "--jobs", "2"], capture_output=True, text=True,
                       cwd=tmp_path, env=env, timeout=900)
    wall = time.monotonic() - began
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    closing = [i for i, ln in enumerate(lines) if ln.startswith(f"parsed {total} session(s): {total} round(s) written")]
    assert len(closing) == 1, p.stderr
    before = lines[:closing[0]]
    parsed = [int(m.group(1)) for ln in before if (m := re.fullmatch(rf"parse: (\d+) of {total} session\(s\).*, \d+ s", ln))]
    assert any(0 < n for n in parsed), p.stderr  # the count moves as sessions are done, not only at the end
    for label in ("index", "rows"):  # the search index and the list rows after the parse: each said, counted
        counts = [int(m.group(1)) for ln in before if (m := re.fullmatch(rf"{label}: (\d+) of {total} conversation\(s\), \d+ s", ln))]
        assert counts and max(counts) > 0, (label, p.stderr)
    m = re.search(r"\((\d+\.\d)s in all: start-up (\d+\.\d)s, parsing (\d+\.\d)s, the search index (\d+\.\d)s, "
                  rf"the list rows of {total} conversation\(s\) (\d+\.\d)s\)$", lines[closing[0]])
    assert m, lines[closing[0]]
    whole, *parts = (float(g) for g in m.groups())
    assert abs(whole - sum(parts)) <= 0.25, lines[closing[0]]  # the parts add up (each rounded to 0.1 s)
    assert wall - 3.0 <= whole <= wall + 0.1, (whole, wall)  # the wait the user had, from the process's start
