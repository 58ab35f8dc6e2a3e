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


def test_a_failure_whose_call_was_made_the_day_before_is_in_the_day_it_lands(corpus_source, tmp_path):
    """Trial 39a F2: a call made before midnight whose failing result came after it was in no day's --in-range-only
    audit (day D: ``no_result_in_window``; D+1 left the call out, and its failure). b25638d7 as above, its line 24 (the
    call's result) flagged ``is_error`` as a failed command's is: day D+1 has a ``tool_result`` line at the result's
    time saying the call it answers and when it was made, status error with its text; each call is in exactly one
    day's file and the failure too. The copies made at render 13 (no such line) still check."""
    from test_audit_closed_day_untimed import _later
    from view_server_helpers import collect_and_parse

    from asz_core.reading.export_render import drawing
    from cli_helpers import asz_in_process
    from reading_helpers import checks_as_render

    lines = (corpus_source / FOLDER / f"{SID}.jsonl").read_bytes().splitlines(keepends=True)
    call, result = json.loads(lines[SPLIT - 1]), json.loads(lines[SPLIT])
    (use,) = [b for b in call["message"]["content"] if b["type"] == "tool_use"]
    (block,) = [b for b in result["message"]["content"] if b["type"] == "tool_result"]
    block["is_error"] = True
    later = [_later(json.dumps(result, separators=(",", ":")).encode() + b"\n"), *map(_later, lines[SPLIT + 1:])]
    (tmp_path / "projects" / FOLDER).mkdir(parents=True)
    (tmp_path / "projects" / FOLDER / f"{SID}.jsonl").write_bytes(b"".join(lines[:SPLIT]) + b"".join(later))
    root = tmp_path / "root"
    collect_and_parse(tmp_path / "projects", root)
    landed_at = json.loads(later[0])["timestamp"]
    next_day = landed_at[:10]
    uses = [b for x in map(json.loads, [*lines[:SPLIT], *later]) if isinstance(x.get("message", {}).get("content"), list)
            for b in x["message"]["content"] if b.get("type") == "tool_use"]
    failed = [b for x in map(json.loads, [*lines[:SPLIT], *later]) if isinstance(x.get("message", {}).get("content"), list)
              for b in x["message"]["content"] if b.get("type") == "tool_result" and b.get("is_error") is True]

    def day(d: str, fmt: str = "prose") -> str:
        return asz("export", "--since", d, "--until", d, "--tz", "UTC", "--format", fmt, "--audit" if fmt == "prose" else
                   "--in-range-only", *(["--in-range-only"] if fmt == "prose" else []), "--root", str(root)).stdout

    d1, d2 = ([json.loads(x) for x in day(d).splitlines()] for d in (DAY, next_day))
    calls = [x for x in d1 + d2 if x.get("kind") == "tool_call"]
    assert len(calls) == len(uses)  # each call once, in its own day
    (late,) = [x for x in d1 + d2 if x.get("kind") == "tool_result"]
    assert late in d2 and (late["ts"], late["call_ts"], late["tool"]) == (landed_at, call["timestamp"], use["name"])
    assert late["status"] == "error" and late["text"].startswith(f"{use['name']}: ") and late["in_range"] is True
    text = block["content"] if isinstance(block["content"], str) else "".join(c.get("text", "") for c in block["content"])
    assert late["error"]["text"] == text[:1000] and late["error"]["bytes"] == len(text.encode())
    errors = [x for x in d1 + d2 if x.get("status") == "error"]
    assert len(errors) == len(failed) and d2[0]["lines"]["tool_result"] == 1
    assert [c["status"] for c in d1 if c.get("kind") == "tool_call"][-1] == "no_result_in_window"
    plain = day(next_day, "text")
    assert f"] tool_result, error\nanswers: the tool_call made at {call['timestamp']}, before the window\n" in plain
    copy = tmp_path / "d2.txt"
    asz("export", "--since", next_day, "--until", next_day, "--tz", "UTC", "--format", "text", "--in-range-only",
        "--root", str(root), "--out", str(copy))
    assert asz("verify", "--export", str(copy), "--root", str(root)).stdout.splitlines()[-1] == \
        "the copy checks against the root"
    old = tmp_path / "old.txt"
    with drawing(13):  # render 13's day D+1: the failure in no line
        assert asz_in_process("export", "--since", next_day, "--until", next_day, "--tz", "UTC", "--format", "text",
                              "--in-range-only", "--root", str(root), "--out", str(old)).returncode == 0
    assert "] tool_result" not in old.read_text(encoding="utf-8") and "] tool_result, error" in copy.read_text(encoding="utf-8")
    checks_as_render(old, root, 13, 14)
