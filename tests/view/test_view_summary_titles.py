"""A ``summary`` record names a conversation only when its ``leafUuid`` is a message of that conversation.

Claude Code writes ``{"type":"summary","summary":…,"leafUuid":…}`` lines on resuming, into the transcript it
resumes in, and their ``leafUuid`` often names a message of another session. Two small transcripts of one
project: A's holds a summary for its own last message, then one for B's; B's holds a summary for A's message.
Each title is checked in the document, ``asz ls --json`` and ``asz search``; the corpus's own summaries are
checked against the ids its source transcripts hold.
"""

from __future__ import annotations

import json

from asz_core.view import build_view
from asz_core.view.summary import NO_PROMPT

from claude_lines import collect_claude
from cli_helpers import asz_in_process

A = "aaaaaaaa-0000-4000-8000-000000000001"
B = "bbbbbbbb-0000-4000-8000-000000000002"


def _user(sid, uid, parent, text, ts):
    return {"type": "user", "uuid": uid, "parentUuid": parent, "sessionId": sid, "timestamp": ts, "cwd": "/home/dev/app",
            "version": "1.0.0", "isSidechain": False, "userType": "external", "message": {"role": "user", "content": text}}


def _agent(sid, uid, parent, text, ts):
    return {"type": "assistant", "uuid": uid, "parentUuid": parent, "sessionId": sid, "timestamp": ts, "cwd": "/home/dev/app",
            "version": "1.0.0", "isSidechain": False, "userType": "external", "requestId": f"req_{uid}",
            "message": {"id": f"msg_{uid}", "role": "assistant", "model": "claude-x", "content": [{"type": "text", "text": text}],
                        "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 5}}}


def _summary(text, leaf):
    return {"type": "summary", "summary": text, "leafUuid": leaf}


SESSIONS = {
    A: [_summary("Parser fixes in session A", "a-2"), _summary("Docs written in session B", "b-2"),
        _user(A, "a-1", None, "Fix the parser please", "2026-01-01T10:00:00Z"), _agent(A, "a-2", "a-1", "done", "2026-01-01T10:00:05Z")],
    B: [_summary("Parser fixes in session A", "a-2"),
        _user(B, "b-1", None, "Write the docs for the greeting module", "2026-01-02T10:00:00Z"),
        _agent(B, "b-2", "b-1", "ok, the greetings", "2026-01-02T10:00:05Z")],
}


def test_a_summary_for_another_sessions_message_is_not_the_title(tmp_path):
    root = collect_claude(tmp_path, SESSIONS)
    want = {A: "Parser fixes in session A", B: "Write the docs for the greeting module"}
    for sid, title in want.items():
        assert build_view(root, sid)["summary"]["title"] == title
    p = asz_in_process("ls", "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    assert {r["id"]: r["title"] for r in json.loads(p.stdout)} == want
    p = asz_in_process("search", "greetings", "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    hits = json.loads(p.stdout)
    assert hits and {h["conversation"] for h in hits} == {B} and {h["title"] for h in hits} == {want[B]}


def test_the_summary_record_keeps_its_leaf_in_its_data_part(tmp_path):
    root = collect_claude(tmp_path, SESSIONS)
    (path,) = (root / B / "streams" / "main").glob("transcript-*.sd")
    rec = json.loads(path.read_text().splitlines()[1])
    assert rec["label"] == "Parser fixes in session A"
    assert [p["data"] for p in rec["parts"]] == [SESSIONS[B][0]]


def _ids_and_summaries(path):
    ids, summaries = set(), []
    for line in path.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        if d.get("uuid"):
            ids.add(d["uuid"])
        if d.get("type") == "summary":
            summaries.append(d)
    return ids, summaries


def test_corpus_summaries_for_messages_the_transcript_does_not_hold_name_nothing(corpus):
    """The corpus's three transcripts with ``summary`` records name, in every one of them, a message none of their own
    lines holds: each is titled by its first prompt, as a transcript with no summary is."""
    projects, root = corpus
    titled = 0
    for path in sorted(projects.glob("*/*.jsonl")):
        ids, summaries = _ids_and_summaries(path)
        if not summaries:
            continue
        assert not [s for s in summaries if s["leafUuid"] in ids]
        title = build_view(root, path.stem)["summary"]["title"]
        assert title not in {s["summary"] for s in summaries}
        assert title and title != NO_PROMPT  # the first prompt's, as test_view_titles checks them
        titled += 1
    assert titled == 3
