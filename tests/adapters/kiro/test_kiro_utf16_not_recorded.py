"""A Kiro session whose every record is undescribed (trial 23a, F17): the corpus's real 3.x ``messages.jsonl`` with
each line's characters reversed, so no line reads as JSON (the trial wrote it in UTF-16, which collect now refuses
whole with one line, trial 36c F3: tests/collect/test_utf16_source.py). Nothing in it records a token count, so no reader says 0 tokens or $0.00: ``asz
ls`` reads ``not recorded`` and ``-`` (``usage_recorded`` false), ``asz conversation`` ``tokens not recorded`` and
``cost -``, by the one rule (``asz_core.view.rows.usage_unrecorded``). Counts from the source file.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import asz_ok as _asz

V3 = "2f1c0d9e8b7a6f5e/sess_5e804080-466c-4f65-bde9-f6133b7068f6"
SESSION = "sess_16161616-1616-4616-8616-161616161616"


def test_a_utf16_kiro_session_reads_not_recorded(corpus_dir: Path, tmp_path: Path) -> None:
    src = corpus_dir / "kiro" / "home" / ".kiro" / "sessions" / V3 / "messages.jsonl"
    if not src.is_file():
        pytest.skip(f"{src} is absent")
    text = src.read_text(encoding="utf-8")
    lines = len(text.splitlines())
    assert lines == 46
    d = tmp_path / "home" / ".kiro" / "sessions" / "2f1c0d9e8b7a6f5e" / SESSION
    d.mkdir(parents=True)
    (d / "messages.jsonl").write_text("".join(x[::-1] + "\n" for x in text.splitlines()), encoding="utf-8")
    root = tmp_path / "root"
    _asz("collect", "--once", "--adapter", "kiro", "--source", str(tmp_path / "home" / ".kiro"), "--root", str(root))
    doc = json.loads(_asz("conversation", SESSION, "--json", "--root", str(root)))
    assert doc["summary"]["undescribed"] == lines and doc["summary"]["llm_calls"] == 0  # every line, none read
    (row,) = json.loads(_asz("ls", "--json", "--root", str(root)))
    assert row["usage_recorded"] is False and row["calls_with_usage"] == 0
    # its talks and calls are not figures either: none read, 46 records unread (the keys kept, calls_unread added)
    assert row["talks"] == 0 and row["llm_calls"] == 0 and row["calls_unread"] is True
    table = _asz("ls", "--root", str(root))
    cells = next(x for x in table.splitlines() if x.startswith("sess_161")).split()
    assert "not recorded" in " ".join(cells) and "$0.00" not in table
    head, line = table.splitlines()[0], next(x for x in table.splitlines() if x.startswith("sess_161"))
    for name in ("TALKS", "CALLS"):  # right-aligned: a cell ends where its header ends
        at = head.index(name) + len(name)
        assert line[:at].split()[-1] == "-", (name, table)
    said = _asz("conversation", SESSION, "--root", str(root))
    assert ("tokens not recorded: no model call could be read in this conversation (its transcript records the dialect "
            "could not read may hold some; see undescribed)") in said and "cost - (no tokens to price)" in said
    assert "tokens in 0" not in said and "$0.00" not in said
    # the page reads the same problem line to word its tokens chip (app.js, listing.unrecorded_text's words)
    assert any(p.startswith(f"undescribed records that could hold calls: {lines} transcript record(s)")
               for p in doc["summary"]["problems"])
