"""A closed day's ``asz export --audit --in-range-only`` file stays byte for byte when a call made inside the day gets
its result after the day's end (trial 27b F1's remainder, recheck 27: the call read ``status: no_result`` until the
result landed, then the result's status, so the day's file changed once).

The file is read from the window's records only: such a call reads ``no_result_in_window`` before and after the result
lands, and the header's ``status_read`` says so. Real input: the corpus's b25638d7 (Claude Code, all on 2025-09-29):
its first 23 lines are day D as written, the last of them a ``tool_use`` (line 23); line 24, its ``tool_result``, and
the rest are appended re-dated one day later, D+1, then collected again."""

from __future__ import annotations

import json

from reading_helpers import asz
from test_audit_closed_day import DAY, FOLDER, SID
from test_audit_closed_day_untimed import _two_days

SPLIT = 23  # lines of day D: the last is a call whose result (line 24) lands on D+1


def test_a_call_whose_result_lands_after_the_day_leaves_the_closed_day_unchanged(corpus_source, tmp_path):
    lines, before, after = _two_days(corpus_source, tmp_path, FOLDER, SID, SPLIT, DAY)
    call, result = json.loads(lines[SPLIT - 1]), json.loads(lines[SPLIT])
    (use,) = [b for b in call["message"]["content"] if b["type"] == "tool_use"]
    assert [b["tool_use_id"] for b in result["message"]["content"] if b["type"] == "tool_result"] == [use["id"]]
    assert after == before, (before[-900:], after[-900:])
    got = [json.loads(x) for x in after.splitlines()]
    calls = [x for x in got if x.get("kind") == "tool_call"]
    # every other call of day D has its result on day D: its status as the result says (none of them failed)
    uses = [b for x in map(json.loads, lines[:SPLIT]) for b in x["message"]["content"]
            if isinstance(x["message"]["content"], list) and b.get("type") == "tool_use"]
    failed = {b["tool_use_id"] for x in map(json.loads, lines[:SPLIT]) if isinstance(x["message"]["content"], list)
              for b in x["message"]["content"] if b.get("type") == "tool_result" and b.get("is_error") is True}
    assert len(calls) == len(uses) == 8 and not failed
    assert [c["status"] for c in calls] == ["ok"] * 7 + ["no_result_in_window"]
    assert calls[-1]["tool"] == use["name"] and calls[-1]["ts"] == call["timestamp"]
    assert got[0]["status_read"].startswith("the results inside the window only")
    # the next day's file, and the day without --in-range-only, read the result where it is
    root = tmp_path / "root"
    whole = [json.loads(x) for x in asz("export", "--since", DAY, "--until", DAY, "--tz", "UTC", "--audit",
                                         "--root", str(root)).stdout.splitlines()]
    assert [c["status"] for c in whole if c.get("kind") == "tool_call" and c["ts"] == call["timestamp"]] == ["ok"]
    assert "status_read" not in whole[0]
