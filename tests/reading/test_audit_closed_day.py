"""A past day's ``asz export --audit --in-range-only`` stays byte for byte when its conversation goes on (note22,
"Audit"): a team running a daily audit hashes each day's export.

The conversation is the corpus's b25638d7 (46 lines, Claude Code): its first 24 lines (one prompt, 8 calls of
``claude-opus-4-1``) are day D as written, 2025-09-29; its other 22 lines (10 calls of ``claude-sonnet-4``) are
appended to the same transcript re-dated one day later, D+1, then collected again."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta
from pathlib import Path

from reading_helpers import asz
from view_server_helpers import collect_and_parse

SID = "b25638d7-b104-4f06-a797-70ac33d069ed"
FOLDER = "-Users-alex-workspace-personal-site-next"
DAY = "2025-09-29"
SPLIT = 24  # lines of day D; the rest go on the next day


def _later(line: bytes) -> bytes:
    """``line`` with its ``timestamp`` one day later (every other byte as written)."""
    ts = json.loads(line)["timestamp"]
    t = datetime.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S") + timedelta(days=1)
    return line.replace(f'"timestamp":"{ts}"'.encode(), f'"timestamp":"{t:%Y-%m-%dT%H:%M:%S}{ts[19:]}"'.encode(), 1)


def _calls(lines: list[bytes]) -> tuple[int, list[str]]:
    """How many model calls ``lines`` hold (one per assistant ``message.id`` + ``requestId``) and their models."""
    got = {(d["message"]["id"], d.get("requestId")): d["message"]["model"] for d in map(json.loads, lines)
           if d.get("type") == "assistant"}
    return len(got), sorted(set(got.values()))


def _export(root: Path, day: str) -> bytes:
    return asz("export", "--since", day, "--until", day, "--tz", "UTC", "--audit", "--in-range-only",
               "--root", str(root)).stdout.encode()


def test_a_closed_days_audit_export_is_byte_identical_when_the_conversation_goes_on(corpus_source, tmp_path):
    lines = (corpus_source / FOLDER / f"{SID}.jsonl").read_bytes().splitlines(keepends=True)
    assert [json.loads(x)["timestamp"][:10] for x in lines] == [DAY] * len(lines)
    later = [_later(x) for x in lines[SPLIT:]]
    assert all(json.loads(x)["timestamp"].startswith("2025-09-30") for x in later)
    source, root = tmp_path / "projects", tmp_path / "root"
    (source / FOLDER).mkdir(parents=True)
    transcript = source / FOLDER / f"{SID}.jsonl"
    transcript.write_bytes(b"".join(lines[:SPLIT]))
    collect_and_parse(source, root)
    before = _export(root, DAY)
    with open(transcript, "ab") as f:
        f.write(b"".join(later))
    collect_and_parse(source, root)
    after = _export(root, DAY)
    assert hashlib.sha256(after).hexdigest() == hashlib.sha256(before).hexdigest(), (before[:900], after[:900])
    head = json.loads(after.splitlines()[0])
    # the header is the day's: its lines' times, its calls' model and figures, nothing of the day after
    assert (head["from"], head["to"]) == ("2025-09-29T17:07:46.135Z", "2025-09-29T17:08:36.338Z")
    assert _calls(lines[:SPLIT]) == (8, ["claude-opus-4-1-20250805"]) and _calls(later) == (10, ["claude-sonnet-4-20250514"])
    assert (head["in_window"]["calls"], head["models"]) == _calls(lines[:SPLIT])
    assert "calls" not in head and head["left_out"]["before_window"] == 0
    nxt = json.loads(_export(root, "2025-09-30").splitlines()[0])  # the next day: its own calls, what came before
    assert (nxt["in_window"]["calls"], nxt["models"]) == _calls(later)
    assert nxt["from"] == "2025-09-30T17:08:45.135Z" and nxt["left_out"]["before_window"] == 16
    whole = asz("export", "--since", DAY, "--until", DAY, "--tz", "UTC", "--audit", "--root", str(root)).stdout
    assert json.loads(whole.splitlines()[0])["calls"] == 18  # without --in-range-only: the whole conversation's
