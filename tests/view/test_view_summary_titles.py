"""A ``summary`` record names the conversation holding its ``leafUuid``'s message, whichever session's file it is in.

Claude Code writes ``{"type":"summary","summary":…,"leafUuid":…}`` lines on resuming, into the transcript it
resumes in, and their ``leafUuid`` often names a message of another session: that session's title when it has
none of its own (trial 41c F2). Two small transcripts of one
project: A's holds a summary for its own last message, then one for B's; B's holds a summary for A's message.
Each title is checked in the document, ``asz ls --json`` and ``asz search``; the corpus's own summaries are
checked against the ids its source transcripts hold.
"""

from __future__ import annotations

import gzip
import json

from asz_core.view import build_view
from asz_core.view.summary import NO_PROMPT, REMOVED

from claude_lines import assert_titled, collect_claude
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


def test_a_summary_for_another_sessions_message_titles_that_conversation(tmp_path):
    """A's own summary (for its message a-2) titles A, before B's copy of it; A's summary for B's message b-2 titles B,
    which has no label of its own (trial 41c F2: as Claude Code's resume list and claude-code-log title it); before,
    B was titled by its first prompt. The same title in the document, ``asz ls --json``, search hits, push and the
    page."""
    root = collect_claude(tmp_path, SESSIONS)
    want = {A: "Parser fixes in session A", B: "Docs written in session B"}
    assert want == {A: SESSIONS[A][0]["summary"], B: SESSIONS[A][1]["summary"]} and SESSIONS[A][1]["leafUuid"] == SESSIONS[B][2]["uuid"]
    assert_titled(root, want, "greetings")
    ls, doc, push, _ = _titles_everywhere(root, sorted(SESSIONS), "greetings")
    assert ls == doc == push == want


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


N = "cccccccc-0000-4000-8000-000000000003"  # a summary record naming no message


def test_a_summary_naming_no_message_names_no_conversation(tmp_path):
    """A ``summary`` record with no ``leafUuid`` names no message, so no conversation: by the rule above (a summary
    titles only the conversation its ``leafUuid`` points into) it is no title, and the first prompt names it."""
    lines = [{"type": "summary", "summary": "Session notes from somewhere"},
             _user(N, "n-1", None, "Rename the greeting module", "2026-01-03T10:00:00Z"),
             _agent(N, "n-2", "n-1", "renamed", "2026-01-03T10:00:05Z")]
    root = collect_claude(tmp_path, {N: lines})
    assert_titled(root, {N: "Rename the greeting module"}, "renamed")


def _titles_everywhere(root, sids, word):
    """{sid: title} as ``asz ls --json``, ``asz conversation --json``, ``asz push``'s ``asz.conversation.title`` of the
    head round (:class:`~asz_core.export.wire.RoundTitles`) and the ``asz search word`` hits give it, one dict each."""
    from asz_core.export.wire import RoundTitles

    p = asz_in_process("ls", "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    ls = {r["id"]: r["title"] for r in json.loads(p.stdout)}
    doc = {sid: json.loads(asz_in_process("conversation", sid, "--json", "--root", str(root)).stdout)["summary"]["title"]
           for sid in sids}
    sent = RoundTitles(root)
    push = {sid: sent(max((root / "_conversations" / sid / "rounds").glob("*.sf")).read_bytes()) for sid in sids}
    p = asz_in_process("search", word, "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    search = {h["conversation"]: h["title"] for h in json.loads(p.stdout)}
    return ls, doc, push, search


def test_after_prune_a_summary_skeleton_names_no_conversation(tmp_path):
    """A skeleton keeps every record's label and none of its data parts (seed 000, Skeletons): a ``summary`` record's
    ``leafUuid`` goes with its data part, so after ``asz prune`` no reader can tell which message it was written for;
    the adapter then says it names none, and no reader takes another session's summary for the title."""
    from asz_core.export.settings import RetentionConfig
    from asz_core.retention.prune import prune

    root = collect_claude(tmp_path, SESSIONS)
    assert prune(root, RetentionConfig(after=0.0, require_accepted=False)).removed == sorted(SESSIONS)
    for sk in sorted(root.rglob("*.sk")):  # the skeletons keep the labels, in their place, with no leafUuid
        from asz_core.sessiondata import read_file

        recs = read_file(sk)[1]
        labels = [r.label for r in recs if r.label]
        assert labels == [d["summary"] for d in SESSIONS[sk.parts[-4]] if d["type"] == "summary"]
        assert b"leafUuid" not in gzip.decompress(sk.read_bytes())
    summaries = {d["summary"] for lines in SESSIONS.values() for d in lines if d["type"] == "summary"}
    ls, doc, push, search = _titles_everywhere(root, sorted(SESSIONS), "greetings")
    # the prompts' text went with the files: no title is left, and every reader says why (trial 19, F15), never no prompt
    assert ls == doc == {A: REMOVED, B: REMOVED}
    assert push == {A: "", B: ""}  # push sends no placeholder (docs/push.md)
    assert not summaries & {*ls.values(), *doc.values(), *push.values(), *search.values()}
    table = asz_in_process("ls", "--root", str(root)).stdout
    assert not [s for s in summaries if s in table]


def test_after_prune_the_corpus_summaries_title_no_conversation(corpus_dir, corpus_copy, tmp_path):
    """The corpus's three transcripts whose ``summary`` records all name messages they do not hold (counted from the
    source files): titled by none of those summaries before ``asz prune`` nor after it, in the list, the document,
    ``asz push`` and search alike (the same title in each)."""
    from asz_core.export.settings import RetentionConfig
    from asz_core.retention.prune import prune

    foreign: dict[str, set[str]] = {}
    for path in sorted((corpus_dir / "claude-code" / "projects").glob("*/*.jsonl")):
        ids, summaries = _ids_and_summaries(path)
        if summaries:
            foreign[path.stem] = {s["summary"] for s in summaries if s["leafUuid"] not in ids}
    assert len(foreign) == 3 and all(foreign.values())
    root = corpus_copy(tmp_path / "root")
    for when in ("before", "after"):
        if when == "after":
            assert set(foreign) <= set(prune(root, RetentionConfig(after=0.0, require_accepted=False)).removed)
        ls, doc, push, search = _titles_everywhere(root, sorted(foreign), "the")
        for sid, theirs in foreign.items():
            assert ls[sid] == doc[sid] and push[sid] == ("" if doc[sid] in (NO_PROMPT, REMOVED) else doc[sid]), (when, sid)
            assert search.get(sid, ls[sid]) == ls[sid], (when, sid)
            assert ls[sid] not in theirs and push[sid] not in theirs, (when, sid)


W = "dddddddd-0000-4000-8000-000000000004"  # another session's summary and a withheld system prompt, no typed prompt


def test_a_list_row_never_takes_the_headers_title_for_a_withheld_one(tmp_path):
    """Withholding ``system_prompt``, a conversation whose only prompt is a Claude Code ``prompt_snapshot`` (flagged
    ``system_prompt``) and whose only label is a summary for another session's message has no title: the round
    header still carries that summary (assembly's title, from the index), and the page's row, ``asz ls``'s row and
    the document all say '' (before, the page's row fell back to the header's summary)."""
    from asz_core.reading.listing import conversation_rows
    from asz_core.view.state import ViewState

    foreign = "Docs written in another session"
    lines = [_summary(foreign, "x-9"),
             {"type": "attachment", "uuid": "w-0", "parentUuid": None, "sessionId": W, "timestamp": "2026-01-05T10:00:00Z",
              "cwd": "/home/dev/app", "attachment": {"type": "prompt_snapshot", "systemPrompt": "You are helpful"}},
             _agent(W, "w-2", "w-0", "ok", "2026-01-05T10:00:05Z")]
    root = collect_claude(tmp_path, {W: lines})
    (rnd,) = (root / "_conversations" / W / "rounds").glob("*.sf")
    assert json.loads(rnd.read_bytes().split(b"\n", 1)[0])["title"] == foreign  # the header's, unchecked
    hide = ("system_prompt",)
    doc = build_view(root, W, hide=hide)["summary"]["title"]
    (ls,) = [r["title"] for r in conversation_rows(root, hide)]
    page = ViewState(root, hide=hide).row(W, hide)["title"]
    assert doc == ls == page == ""
    assert build_view(root, W)["summary"]["title"] == NO_PROMPT  # nothing withheld: the placeholder, never the summary
