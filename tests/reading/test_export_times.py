"""``asz export`` of a conversation none of whose records could be decoded (every line undescribed) gave empty
times (``- from  to , 0 talks``): it says the times are unknown and when its landed file was written (the file's
header ``at``); the index of an export of several says ``unknown`` for its last activity.

Input: a hand-made transcript of three lines no dialect can read (a cut line, a line that is not JSON, bytes that
are not UTF-8), collected by the real ``asz collect --once``."""

from __future__ import annotations

import calendar
import json
import time

from asz_core.storage.layout import landed_files

from reading_helpers import asz

SID = "c0ffee00-0000-4000-8000-00000000ab06"


def test_export_of_undecodable_records_says_times_are_unknown_and_when_they_landed(tmp_path):
    src = tmp_path / "src" / "-p"
    src.mkdir(parents=True)
    (src / f"{SID}.jsonl").write_bytes(b'{"type":"user","message":{"content":"cut\nnot json at all\n\xff\xfe garbage\n')
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "src"), "--root", str(root))
    [(_, path)] = list(landed_files(root / SID))
    at = json.loads(path.read_bytes().split(b"\n", 1)[0])["at"]  # e.g. 2026-12-02T10:02:32.624561907Z
    landed = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(calendar.timegm(time.strptime(at[:19], "%Y-%m-%dT%H:%M:%S"))))
    said = f"times unknown (no record carries one; landed {landed}, UTC)"  # the zone named (trial 12)

    md = asz("export", SID[:8], "--format", "md", "--tz", "UTC", "--root", str(root)).stdout
    assert f"\n- {said}, 0 talks, state verified\n" in md
    html = asz("export", SID[:8], "--format", "html", "--tz", "UTC", "--root", str(root)).stdout
    assert f"</span> · {said} · 0 talks · state verified</p>" in html


def test_an_index_says_unknown_for_a_conversation_without_times(tmp_path):
    """A prompt line with a working directory but no timestamp: exported by --project, its index row says unknown."""
    src = tmp_path / "src" / "-p"
    src.mkdir(parents=True)
    line = {"type": "user", "uuid": "u-1", "sessionId": SID, "cwd": "/home/dev/timeless", "message": {"role": "user", "content": "hi"}}
    (src / f"{SID}.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "src"), "--root", str(root))
    out = tmp_path / "all"
    asz("export", "--project", "timeless", "--format", "md", "--out", str(out), "--root", str(root))
    # no model call: nothing recorded to count, as asz ls says it (rows.usage_unrecorded), never 0 and $0.00
    row = f"| unknown | hi | /home/dev/timeless | claude-code | 1 | not recorded | - | verified | [{SID}.md]({SID}.md) |"
    assert row in (out / "index.md").read_text(encoding="utf-8")
    assert "\n- times unknown (no record carries one; landed " in (out / f"{SID}.md").read_text(encoding="utf-8")
