"""A closed day's ``asz export --audit --in-range-only`` header stays byte for byte when later days land (trial 27b
F1): records with no time of their own written later (``last-prompt``, ``permission-mode``,
``file-history-snapshot``), a missing companion file of a later day's call and a title typed on a later day were in
the closed day's header.

Each test writes day D of a corpus transcript as the trial's hosts did (the lines up to the first timed line past
the day's end: the untimed lines after the day's last timed one are day D's file too), exports day D, appends the
rest re-dated one day later (their untimed lines as written), collects and exports day D again: the same bytes."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from reading_helpers import asz
from view_server_helpers import collect_and_parse


def _later(line: bytes) -> bytes:
    """``line`` with its ``timestamp`` (when it has one) one day later, every other byte as written."""
    ts = json.loads(line).get("timestamp")
    if not ts:
        return line
    t = datetime.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S") + timedelta(days=1)
    return line.replace(f'"timestamp":"{ts}"'.encode(), f'"timestamp":"{t:%Y-%m-%dT%H:%M:%S}{ts[19:]}"'.encode(), 1)


def _export(root: Path, day: str) -> bytes:
    return asz("export", "--since", day, "--until", day, "--tz", "UTC", "--audit", "--in-range-only",
               "--root", str(root)).stdout.encode()


def _two_days(corpus_source: Path, tmp_path: Path, folder: str, sid: str, split: int, day: str):
    """Day ``day`` of ``folder/sid.jsonl`` as its first ``split`` lines, exported; then the rest a day later, landed and
    exported again. Returns ``(lines, before, after)``."""
    lines = (corpus_source / folder / f"{sid}.jsonl").read_bytes().splitlines(keepends=True)
    source, root = tmp_path / "projects", tmp_path / "root"
    (source / folder).mkdir(parents=True)
    transcript = source / folder / f"{sid}.jsonl"
    transcript.write_bytes(b"".join(lines[:split]))
    collect_and_parse(source, root)
    before = _export(root, day)
    with open(transcript, "ab") as f:
        f.write(b"".join(_later(x) for x in lines[split:]))
    collect_and_parse(source, root)
    return lines, before, _export(root, day)


def test_records_with_no_time_written_later_are_not_counted_in_a_closed_day(corpus_source, tmp_path):
    # ef958aa1: permission-mode, file-history-snapshot and last-prompt records carry no timestamp; the day's last
    # timed line is line 37 (row 36), then last-prompt and permission-mode, then line 40 (row 39) the next timed one
    folder, sid = "-experiments-worktrees", "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    rows = [json.loads(x) for x in (corpus_source / folder / f"{sid}.jsonl").read_bytes().splitlines()]
    untimed = [i for i, r in enumerate(rows) if "timestamp" not in r]
    assert untimed[:4] == [0, 3, 37, 38] and len(untimed) > 8
    assert all(r["timestamp"].startswith("2026-04-18") for r in rows if "timestamp" in r)
    lines, before, after = _two_days(corpus_source, tmp_path, folder, sid, 39, "2026-04-18")
    assert after == before, (before[:1500], after[:1500])
    head = json.loads(after.splitlines()[0])
    # rows 0 and 3 are placed at the next timed record (rows 1 and 4, the day's); rows 37 and 38 at row 39, the next
    # day's: an untimed record is written no later than the next timed one. The records that gave no line: those
    # untimed ones, attachments, runtime notices (system: stop_hook_summary, turn_duration, away_summary) and
    # the replies holding only a thinking part (with no text) of their day
    def silent(part: list[dict]) -> int:
        return sum(1 for r in part if r.get("type") == "attachment" or (r.get("type") == "assistant" and {
            b.get("type") for b in r["message"]["content"]} == {"thinking"}) or r.get("type") == "system")

    def placed(lo: int, hi: int) -> int:  # untimed records of rows lo..hi-1 whose next timed record is among them
        return sum(1 for i in untimed if lo <= i < hi and any("timestamp" in r for r in rows[i + 1:hi]))

    assert (silent(rows[:39]), placed(0, 39)) == (16, 2)
    assert head["left_out"]["other_records"] == silent(rows[:39]) + placed(0, 39)
    nxt = json.loads(_export(tmp_path / "root", "2026-04-19").splitlines()[0])
    assert nxt["left_out"]["other_records"] == silent(rows[39:]) + placed(37, len(rows))


def test_a_missing_companion_file_of_a_later_days_call_is_not_a_closed_days_problem(corpus_source, tmp_path):
    # 8463c716 line 1095 holds a result whose full output went to tool-results/toolu_019CpL49DWBenUxVVCWEXz3L.txt,
    # a companion file the corpus does not hold; day D is its first 1,061 lines (the last an untimed
    # file-history-snapshot between the records of a tool call)
    folder, sid = "-home-user-spotter", "8463c716-a2ea-4c14-9efa-87158ebd9f20"
    src = (corpus_source / folder / f"{sid}.jsonl").read_text().splitlines()
    named = [i for i, x in enumerate(src) if "tool-results/toolu_019CpL49DWBenUxVVCWEXz3L.txt" in x]
    assert named and min(named) > 1069 and not (corpus_source / folder / sid / "tool-results").exists()
    lines, before, after = _two_days(corpus_source, tmp_path, folder, sid, 1069, "2026-02-11")
    assert after == before, (before[:1500], after[:1500])
    # day D's only problem: the sub-agent calls its parent's progress records copy, whose own transcript (subagents/)
    # is not in this source, counted from the copies (fix49a); said of the copies of day D, counted from its lines
    last = {}
    for x in src[:1069]:
        d = json.loads(x)
        m = (d.get("data") or {}).get("message") if d.get("type") == "progress" and '"agent_progress"' in x else None
        if isinstance(m, dict) and m.get("type") == "assistant":
            last[m["message"]["id"]] = m["message"]["usage"]
    assert len(last) == 12
    said = f"calls seen only in progress records: {len(last)} model call(s) of sub-agent"
    u = {k: sum(x.get(f) or 0 for x in last.values()) for k, f in (("in", "input_tokens"), ("out", "output_tokens"),
         ("cache_read", "cache_read_input_tokens"), ("cache_write", "cache_creation_input_tokens"))}
    figures = f"in {u['in']:,}, out {u['out']:,}, cache_read {u['cache_read']:,}, cache_write {u['cache_write']:,}"
    (line,) = json.loads(after.splitlines()[0])["problems"]
    assert line.startswith(said) and figures in line, line
    nxt = json.loads(_export(tmp_path / "root", "2026-02-12").splitlines()[0])
    # the relayed calls' line belongs to the day of its progress records (they count there): the later day, holding
    # none of them, does not say it (85683998 pinned the conversation's line on every day; fix49a: the day's own)
    gone = "missing companion file tool-results/toolu_019CpL49DWBenUxVVCWEXz3L.txt: the result h"
    assert [p[:len(gone)] for p in nxt["problems"]] == [gone], nxt["problems"]


def test_a_prompt_typed_on_a_later_day_does_not_title_a_closed_day(corpus_source, tmp_path):
    # cb2e607c: two warm-up sub-agents ran on 2025-11-14 (agent-2b93909d, agent-645808c9), the main transcript's first
    # prompt was typed on 2025-11-17
    folder = "-Users-alex-workspace-coderabbit-review-helper"
    stamps = {p.name: {json.loads(x)["timestamp"][:10] for x in p.read_text().splitlines()}
              for p in (corpus_source / folder).glob("*.jsonl")}
    assert stamps["agent-2b93909d.jsonl"] == stamps["agent-645808c9.jsonl"] == {"2025-11-14"}
    assert stamps["cb2e607c-c758-415a-8b45-c49e4631906a.jsonl"] == stamps["agent-ea02459f.jsonl"] == {"2025-11-17"}
    source, root = tmp_path / "projects", tmp_path / "root"
    (source / folder).mkdir(parents=True)
    for name in ("agent-2b93909d.jsonl", "agent-645808c9.jsonl"):
        (source / folder / name).write_bytes((corpus_source / folder / name).read_bytes())
    collect_and_parse(source, root)
    before = _export(root, "2025-11-14")
    for name in ("cb2e607c-c758-415a-8b45-c49e4631906a.jsonl", "agent-ea02459f.jsonl"):
        (source / folder / name).write_bytes((corpus_source / folder / name).read_bytes())
    collect_and_parse(source, root)
    listed = json.loads(asz("ls", "--json", "--root", str(root)).stdout)
    assert [r["title"][:40] for r in listed] == ["How can I make this possible to install "]  # the list's, as ever
    after = _export(root, "2025-11-14")
    assert after == before, (before[:900], after[:900])
    assert json.loads(after.splitlines()[0])["title"] == "(no prompt)"
