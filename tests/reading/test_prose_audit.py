"""``asz export --format prose --audit`` (trial 17b, F1 F2 F3 F6 F6b F7 F13 F14), and the default prose unchanged.

Every expected figure is counted here straight from the corpus's source ``.jsonl`` files (a session's own file and
its sub-agents' files, which carry its ``sessionId``), never from asz's output.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import orjson
import pytest
from reading_helpers import asz

from asz_core.storage.layout import landed_files

SESSIONS = {  # session -> its project folder
    "cb2e607c-c758-415a-8b45-c49e4631906a": "-Users-alex-workspace-coderabbit-review-helper",  # IDE prompts, Warmups
    "0d3a8e6f-290f-4105-a327-a2496e5e2a83": "-Users-alex-workspace-claude-code-log-sample",  # image, interrupts, refusals
    "8463c716-a2ea-4c14-9efa-87158ebd9f20": "-home-user-spotter",  # compaction, hook injections, a subagent
}
REFUSED = "The user doesn't want to proceed with this tool use."
INTERRUPTS = ("[Request interrupted by user]", "[Request interrupted by user for tool use]")


def _files(source: Path, sid: str) -> list[Path]:
    """The session's source transcripts: its own file, then every ``*.jsonl`` of its folder and of the project
    folder whose lines carry its sessionId (old-style ``agent-*.jsonl`` beside it)."""
    project = source / SESSIONS[sid]
    out = [project / f"{sid}.jsonl", *sorted((project / sid).rglob("*.jsonl"))]
    for p in sorted(project.glob("agent-*.jsonl")):
        if any(d.get("sessionId") == sid for _, d in _lines(p)):
            out.append(p)
    return out


def _lines(path: Path) -> list[tuple[int, dict]]:
    """``(1-based line number, object)`` of each line of ``path`` that is a JSON object."""
    out = []
    for n, raw in enumerate(path.read_bytes().split(b"\n"), 1):
        try:
            d = json.loads(raw)
        except ValueError:
            continue
        if isinstance(d, dict):
            out.append((n, d))
    return out


def _content(d: dict):
    msg = d.get("message")
    return msg.get("content") if isinstance(msg, dict) else None


def _landed(root: Path, sid: str) -> dict[tuple[str, int], tuple[str, str, int]]:
    """``(source path relative to the projects folder, source line)`` -> ``(landed file relative to the root, its
    stream, row)``: where each source line landed (a record's ``ord`` is its source line; the first landing counts)."""
    out: dict = {}
    for _, p in landed_files(root / sid):
        lines = p.read_bytes().split(b"\n")
        h = orjson.loads(lines[0])
        for row, raw in enumerate(lines[1:], 1):
            rec = orjson.loads(raw) if raw.startswith(b'{"ord"') else {}
            if "ord" in rec:
                out.setdefault((h["src"], rec["ord"]), (p.relative_to(root).as_posix(), h.get("stream") or "main", row))
    return out


def _seed_003_bytes(root: Path, source: Path, sid: str) -> bytes:
    """The default prose of ``sid`` as main's export writes it, from seed 003's structured jq filter applied to each
    source file (``select(.text != "" and .text != null)``: a text of only whitespace is kept), each turn with the
    landed file and row its source line landed at; streams main first, then by their first record's time."""
    landed, streams, first = _landed(root, sid), {}, {}
    for path in _files(source, sid):
        src = path.relative_to(source).as_posix()
        for n, d in _lines(path):
            file, stream, row = landed[(src, n)]
            c = _content(d)
            if d.get("timestamp") and stream not in first:
                first[stream] = d["timestamp"]
            if not ((d.get("type") == "assistant" and isinstance(c, list)) or (d.get("type") == "user" and isinstance(c, str))):
                continue
            text = c if isinstance(c, str) else "\n".join(b.get("text") for b in c if isinstance(b, dict) and b.get("type") == "text")
            if text:
                streams.setdefault(stream, []).append({"conversation": sid, "stream": stream, "role": d["message"]["role"],
                                                       "ts": d.get("timestamp"), "text": text, "file": file, "row": row})
    order = sorted(streams, key=lambda s: (s != "main", first.get(s, "~"), s))
    return b"".join(orjson.dumps(t) + b"\n" for s in order for t in streams[s])


def _export(root: Path, sid: str, *extra: str):
    return asz("export", sid, "--format", "prose", "--root", str(root), *extra)


@pytest.mark.parametrize("sid", sorted(SESSIONS))
def test_the_default_prose_is_byte_for_byte_seed_003s_rule(corpus_root, corpus_source, sid):
    got = _export(corpus_root, sid).stdout.encode("utf-8")
    assert got == _seed_003_bytes(corpus_root, corpus_source, sid)
    blank = [t for t in map(json.loads, got.splitlines()) if not t["text"].strip()]
    if sid.startswith("8463c716"):  # the seed's filter keeps a reply of only "\n\n"; so does the default
        assert blank and all(t["role"] == "assistant" for t in blank)


def _audit(root: Path, sid: str, *extra: str) -> tuple[dict, list[dict], str]:
    res = _export(root, sid, "--audit", *extra)
    lines = [json.loads(x) for x in res.stdout.splitlines()]
    assert lines[0]["kind"] == "conversation" and all(x["kind"] != "conversation" for x in lines[1:])
    return lines[0], lines[1:], res.stderr


@pytest.mark.parametrize("sid", sorted(SESSIONS))
def test_the_audit_form_keeps_every_default_line_and_key(corpus_root, sid):
    default = _export(corpus_root, sid, "--thinking").stdout.splitlines()
    _, lines, _ = _audit(corpus_root, sid, "--thinking")
    kept = [orjson.dumps({k: v for k, v in x.items() if k != "kind"}).decode("utf-8") for x in lines
            if x["kind"] not in ("prompt_blocks", "interrupt", "tool_call", "compaction")]
    assert sorted(kept) == sorted(default)
    for stream in {json.loads(x)["stream"] for x in default}:  # each stream in its own order
        assert [x for x in kept if json.loads(x)["stream"] == stream] == [x for x in default if json.loads(x)["stream"] == stream]


def test_a_subagents_lines_follow_the_call_that_started_it(corpus_root, corpus_source):
    """Streams are interleaved by time (F3): the Explore subagent's prompt right after the main stream's Task call."""
    sid = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
    _, lines, _ = _audit(corpus_root, sid)
    at = next(i for i, x in enumerate(lines) if x["stream"] == "a7be2f0")
    task = [b for _, d in _lines(corpus_source / SESSIONS[sid] / f"{sid}.jsonl") if d.get("type") == "assistant"
            for b in _content(d) or () if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == "Task"]
    assert len(task) == 1 and lines[at - 1]["kind"] == "tool_call" and lines[at - 1]["tool"] == "Task"
    assert lines[at - 1]["text"] == f"Task: {task[0]['input']['description']}" and lines[at]["kind"] == "subagent_prompt"


def _expected(source: Path, sid: str) -> dict:
    """What the audit form must hold, counted from the source files."""
    calls, results, person, interrupts, images, thinking = [], {}, 0, 0, [], 0
    summaries = injected = asked = 0
    stamps = []
    for path in _files(source, sid):
        for _, d in _lines(path):
            c = _content(d)
            stamps += [d["timestamp"]] if d.get("timestamp") and d.get("sessionId") == sid else []
            if d.get("type") == "assistant" and isinstance(c, list):
                calls += [b for b in c if isinstance(b, dict) and b.get("type") == "tool_use"]
                thinking += sum(1 for b in c if isinstance(b, dict) and b.get("type") == "thinking")
            if d.get("type") != "user":
                continue
            for b in c if isinstance(c, list) else ():
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    results[b.get("tool_use_id")] = (b, d.get("toolUseResult"))
            if isinstance(c, str):
                summaries += bool(d.get("isCompactSummary"))
                injected += bool(d.get("isMeta")) and not d.get("isCompactSummary")
                asked += bool(d.get("isSidechain")) and not d.get("isMeta") and not d.get("isCompactSummary")
            elif (isinstance(c, list) and c and not d.get("isMeta") and not d.get("isSidechain") and "toolUseResult" not in d
                  and all(isinstance(b, dict) and b.get("type") in ("text", "image") for b in c)):
                person += 1
                interrupts += [b.get("type") for b in c] == ["text"] and c[0]["text"] in INTERRUPTS
                images += [f"[image: {b['source']['media_type']}, {len(b['source']['data']):,} bytes]" for b in c
                           if b.get("type") == "image"]

    def status(call: dict) -> str:
        if call["id"] not in results:
            return "no_result"
        b, tur = results[call["id"]]
        text = b.get("content") if isinstance(b.get("content"), str) else "\n".join(
            x.get("text", "") for x in b.get("content") or () if isinstance(x, dict))
        if isinstance(tur, dict) and tur.get("interrupted") is True:
            return "interrupted"
        if text.startswith(REFUSED):
            return "refused"
        return "error" if b.get("is_error") is True else "ok"

    return {"calls": Counter((b["name"], status(b)) for b in calls), "person": person, "interrupts": interrupts,
            "images": images, "thinking": thinking, "summaries": summaries, "injected": injected, "asked": asked,
            "from": min(stamps), "to": max(stamps)}


@pytest.mark.parametrize("sid", sorted(SESSIONS))
def test_the_audit_form_counts_what_the_source_holds(corpus_root, corpus_source, sid):
    want = _expected(corpus_source, sid)
    head, lines, err = _audit(corpus_root, sid)
    kinds = Counter(x["kind"] for x in lines)
    assert Counter((x["tool"], x["status"]) for x in lines if x["kind"] == "tool_call") == want["calls"]
    assert all(len(x["text"]) <= len(x["tool"]) + 2 + 200 for x in lines if x["kind"] == "tool_call")
    assert kinds["prompt_blocks"] + kinds["interrupt"] == want["person"] and kinds["interrupt"] == want["interrupts"]
    assert [i for x in lines if x["kind"] == "prompt_blocks" for i in want["images"] if i in x["text"]] == want["images"]
    assert kinds["compaction_summary"] == want["summaries"] and kinds["injected"] == want["injected"]
    assert kinds["subagent_prompt"] == want["asked"]
    assert head["left_out"]["thinking"] == want["thinking"] and head["left_out"]["tool_results"] == sum(
        n for (_, s), n in want["calls"].items() if s != "no_result")
    assert (head["from"], head["to"]) == (want["from"], want["to"]) and head["state"] == "verified"
    assert head["lines"] == dict(kinds)
    if want["person"]:
        assert "are kept in this audit form" in err and "left out of the prose" not in err and "seed 0" not in err


def test_the_compaction_and_the_problems_are_in_the_file(corpus_root, corpus_source):
    sid = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
    boundary = [d for p in _files(corpus_source, sid) for _, d in _lines(p) if d.get("subtype") == "compact_boundary"]
    head, lines, _ = _audit(corpus_root, sid)
    (compaction,) = [x for x in lines if x["kind"] == "compaction"]
    assert len(boundary) == 1 and compaction["ts"] == boundary[0]["timestamp"]
    assert f"{boundary[0]['compactMetadata']['preTokens']:,} tokens before" in compaction["text"]
    (summary,) = [i for i, x in enumerate(lines) if x["kind"] == "compaction_summary"]
    assert lines[summary - 1] is compaction or lines[summary - 1]["kind"] == "compaction"
    missing = [p for p in head["problems"] if p.startswith("missing companion file tool-results/")]
    assert len(missing) == 1  # the page's and asz ls's problem, now in the file (F14)


def test_in_range_marks_the_lines_of_the_window(corpus_root):
    res = asz("export", "--since", "2025-11-17", "--until", "2025-11-17", "--tz", "UTC", "--format", "prose", "--audit",
              "--project", "coderabbit", "--root", str(corpus_root))
    lines = [json.loads(x) for x in res.stdout.splitlines()]
    heads = [x for x in lines if x["kind"] == "conversation"]
    assert heads and all(h["window"] == ["2025-11-17T00:00:00.000Z", "2025-11-17T23:59:59.999Z"] for h in heads)
    turns = [x for x in lines if x["kind"] != "conversation"]
    assert all(x["in_range"] == x["ts"].startswith("2025-11-17") for x in turns)
    assert {x["in_range"] for x in turns} == {True, False}  # the Warmups of 2025-11-14 are out of the window


@pytest.mark.parametrize("day", ["2025-11-14", "2025-11-17"])
def test_a_days_default_prose_marks_and_counts_the_lines_outside_it(corpus_root, corpus_source, day):
    """Trial 19, F13: a day's export gives whole conversations; the default prose marks each line ``in_range`` and
    stderr counts those outside the day, both counted here from the source JSONL's timestamps by seed 003's rule."""
    sid = "cb2e607c-c758-415a-8b45-c49e4631906a"  # the corpus's one conversation active on either day
    window = ("--since", day, "--until", day, "--tz", "UTC", "--format", "prose", "--root", str(corpus_root))
    res = asz("export", *window)
    lines = [json.loads(x) for x in res.stdout.splitlines()]
    seed = [json.loads(x) for x in _seed_003_bytes(corpus_root, corpus_source, sid).splitlines()]
    assert [{k: v for k, v in x.items() if k != "in_range"} for x in lines] == seed  # the rule's lines, one key more
    inside = [x["ts"].startswith(day) for x in seed]
    assert [x["in_range"] for x in lines] == inside and 0 < sum(inside) < len(seed)
    assert (f"asz export: {len(seed) - sum(inside):,} of {len(seed):,} prose line(s) lie outside the window "
            f"{day}T00:00:00.000Z .. {day}T23:59:59.999Z") in res.stderr and "--in-range-only leaves them out" in res.stderr
    only = asz("export", *window, "--in-range-only")
    assert [json.loads(x) for x in only.stdout.splitlines()] == [x for x in lines if x["in_range"]]
    assert f"--in-range-only left out {len(seed) - sum(inside):,} of {len(seed):,} prose line(s)" in only.stderr
    audit = [json.loads(x) for x in asz("export", *window, "--audit", "--in-range-only").stdout.splitlines()]
    assert all(x["in_range"] for x in audit[1:])  # the lines of an earlier day are counted, the later ones not (note22)
    assert (audit[0]["left_out"]["before_window"] > 0) == (day == "2025-11-17")
    assert sum(audit[0]["lines"].values()) == len(audit) - 1


def test_in_range_only_needs_a_window(corpus_root):
    res = asz("export", "cb2e607c", "--in-range-only", "--root", str(corpus_root), check=False)
    assert res.returncode == 2 and "--in-range-only reads a --since/--until window" in res.stderr


def test_audit_is_a_form_of_prose_only(corpus_root):
    res = asz("export", "cb2e607c", "--format", "md", "--audit", "--root", str(corpus_root), check=False)
    assert res.returncode == 2 and "--audit is a form of --format prose" in res.stderr


def test_audit_alone_gives_the_audit_prose(corpus_root):
    """``--audit`` with no ``--format`` is the audit form (it was refused: the default format is md)."""
    alone = asz("export", "cb2e607c", "--audit", "--root", str(corpus_root))
    assert alone.stdout == _export(corpus_root, "cb2e607c-c758-415a-8b45-c49e4631906a", "--audit").stdout
    assert json.loads(alone.stdout.splitlines()[0])["kind"] == "conversation"


def test_a_task_notification_has_its_own_kind(corpus_root, corpus_source):
    """A user line Claude Code wrote for a background task's notification (string content opening with
    ``<task-notification>``, 8463c716) is kind ``notification``, never ``text``; counted from the source."""
    sid = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
    want = sorted(d["uuid"] for p in _files(corpus_source, sid) for _, d in _lines(p) if d.get("type") == "user"
                  and isinstance(_content(d), str) and _content(d).lstrip().startswith("<task-notification>"))
    head, lines, _ = _audit(corpus_root, sid)
    texts = {d["uuid"]: _content(d) for p in _files(corpus_source, sid) for _, d in _lines(p) if d.get("uuid") in want}
    got = [x for x in lines if x["kind"] == "notification"]
    assert len(want) == 1 and sorted(x["text"] for x in got) == sorted(texts.values())
    assert not [x for x in lines if x["kind"] == "text" and x["text"].lstrip().startswith("<task-notification>")]
    assert head["lines"]["notification"] == 1


def test_the_claude_adapter_reads_its_runtimes_fixed_notices(corpus_source):
    """``Adapter.fixed_notice`` on every user line of the corpus: the interrupt notices and rejected calls counted
    from the source are named, a typed prompt or another result never is; an adapter with no such rule says None."""
    from asz_core import Adapter
    from asz_core.plugins.manager import adapter_for_dialect

    a = adapter_for_dialect("claude-code/1")
    said, want = Counter(), Counter()
    for path in sorted(corpus_source.rglob("*.jsonl")):
        for _, d in _lines(path):
            c = _content(d)
            if d.get("type") != "user":
                continue
            texts = [c] if isinstance(c, str) else []
            for b in c if isinstance(c, list) else ():
                if isinstance(b, dict) and b.get("type") == "text":
                    texts.append(b["text"])
                elif isinstance(b, dict) and b.get("type") == "tool_result":
                    texts.append(b["content"] if isinstance(b.get("content"), str) else "")
            for t in texts:
                said[a.fixed_notice("claude-code/1", t)] += 1
                want["interrupt" if t in INTERRUPTS else "refused" if t.startswith(REFUSED) else None] += 1
    assert said == want and want["interrupt"] >= 4 and want["refused"] >= 5
    assert Adapter.fixed_notice(a, "claude-code/1", INTERRUPTS[0]) is None  # the default: no rule


def _tasks(path: Path) -> list[dict]:
    """The ``Task`` tool_use blocks of the source file ``path``."""
    return [b for _, d in _lines(path) if d.get("type") == "assistant" for b in _content(d) or ()
            if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == "Task"]


def test_a_subagent_whose_file_holds_no_prompt_is_given_its_calls_prompt(corpus_root, corpus_source):
    """Trial 17c §5: a7da6a22's old-layout ``agent-c8d9b115.jsonl`` opens with its reply; the audit form says what it
    was asked from the Task call's ``input.prompt`` (as the page does), whole, right after the call, its record's
    time, file and row; the default prose does not gain it."""
    sid, project = "a7da6a22-facc-4fcd-8bab-f83c87862004", corpus_source / "-src-deep-manifest"
    agent = _lines(project / "agent-c8d9b115.jsonl")
    assert not any(d.get("type") == "user" and isinstance(_content(d), str) for _, d in agent)
    (task,) = _tasks(project / f"{sid}.jsonl")
    (row,) = [n for n, d in _lines(project / f"{sid}.jsonl") if isinstance(_content(d), list) and task in _content(d)]
    _, lines, _ = _audit(corpus_root, sid)
    (asked,) = [x for x in lines if x["kind"] == "subagent_prompt"]
    at = lines.index(asked)
    assert asked["stream"] == "c8d9b115" and asked["role"] == "user" and asked["text"] == task["input"]["prompt"]
    assert len(asked["text"]) > 200 and lines[at - 1]["tool"] == "Task" and lines[at - 1]["kind"] == "tool_call"
    assert (asked["file"], asked["row"], asked["ts"]) == (lines[at - 1]["file"], lines[at - 1]["row"], lines[at - 1]["ts"])
    assert _landed(corpus_root, sid)[(f"-src-deep-manifest/{sid}.jsonl", row)][::2] == (asked["file"], asked["row"])
    assert all(x["stream"] != "c8d9b115" for x in lines[:at])
    assert task["input"]["prompt"] not in _export(corpus_root, sid).stdout


def test_injected_context_written_as_a_list_of_text_is_an_injected_line(corpus_root, corpus_source):
    """Trial 17c §5: an ``isMeta`` user record whose content is a list of one text block (ef958aa1's subagent
    ``agent-a52886dc180afb356.jsonl`` line 7, a skill's body) is kind ``injected`` as an ``isMeta`` string is; the
    default prose (seed 003: string content only) does not gain it."""
    sid = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    path = corpus_source / "-experiments-worktrees" / sid / "subagents" / "agent-a52886dc180afb356.jsonl"
    metas = [(n, d) for n, d in _lines(path) if d.get("type") == "user" and d.get("isMeta") and isinstance(_content(d), list)]
    assert [n for n, _ in metas] == [7] and [b["type"] for b in _content(metas[0][1])] == ["text"]
    text = _content(metas[0][1])[0]["text"]
    _, lines, _ = _audit(corpus_root, sid)
    got = [x for x in lines if x["text"] == text]
    assert [(x["kind"], x["role"], x["stream"], x["ts"]) for x in got] == [
        ("injected", "user", "a52886dc180afb356", metas[0][1]["timestamp"])]
    assert text not in {json.loads(x)["text"] for x in _export(corpus_root, sid).stdout.splitlines()}
