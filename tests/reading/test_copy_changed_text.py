"""A session copied under a new session id with one record's TEXT edited at the same length is no silent duplicate
(fix41a), while an exact copy and a resumed session still read as repeats.

Session 40 (df6f13c0) compared two sessions' records under one id by role fields, usage and parts (kind, ids,
state, failed): an edit of one answer's or one tool result's text that keeps its byte length and state kept the same
payload, so the copy listed that record as a ``duplicate`` of the original's, and a reader of the copy read the
original's text. The session index now keeps a digest of each record's content (``pd``; ``pds`` with session ids
taken out: asz_core.sessiondata.slim.content_digests) and the comparison reads it (asz_core.flow.index.same_content).

Real input from ../shared/corpus, collected in one pass into one root, in three independent groups (no id shared
between groups):

- Claude Code transcript 326189cf and a copy (its session id written again everywhere) whose first long assistant
  answer has one word upper-cased (same bytes);
- transcript fe869ecb and such a copy whose first long tool result has one word upper-cased;
- the first 720 lines of transcript 8463c716 (its own session id named in its records' content: undescribed lines
  kept whole with their ``sessionId``, and line 715's text), an exact copy with the id written again everywhere and a
  resumed session as Claude Code ``--resume`` writes one (the lines again, ``sessionId`` the new one, the text naming
  the old one as it did).

Everything expected is read from the source files: the edited line's uuid and line number, both versions of the
edited words in their context, and the distinct message ids of the 720 lines.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from reading_helpers import asz

LOG = "-Users-alex-workspace-claude-code-log-sample"
ANSWER, ANSWER_COPY = "326189cf-5676-4237-8cde-1ce80aae4a9f", "326189cf-ffff-4000-8000-0000000000a1"
RESULT, RESULT_COPY = "fe869ecb-c176-478f-9734-7e4b8ef12cff", "fe869ecb-ffff-4000-8000-0000000000b1"
SPOTTER = "-home-user-spotter"
SAME, EXACT, RESUMED = ("8463c716-a2ea-4c14-9efa-87158ebd9f20", "8463c716-ffff-4000-8000-0000000000c1",
                        "8463c716-ffff-4000-8000-0000000000c2")
LINES = 720  # line 715 names the session in its text
WORD = re.compile(r"\b[a-z]{8,}\b")  # the word upper-cased: ASCII, so the same bytes


def _blocks(d: dict, kind: str) -> list[dict]:
    c = (d.get("message") or {}).get("content")
    return [b for b in c if isinstance(b, dict) and b.get("type") == kind] if isinstance(c, list) else []


def _edited(lines: list[str], kind: str, key: str) -> tuple[list[str], dict]:
    """``lines`` with the first ``kind`` block holding a lower-case word of 8 letters or more in its ``key`` string
    changed (its words, 24 characters each side of it, in no other line): that word upper-cased (the same byte length,
    the same state), and what was changed: the line's uuid and
    line number (from 1), and 24 characters each side of the word before and after."""
    for n, ln in enumerate(lines):
        d = json.loads(ln)
        for b in _blocks(d, kind):
            text = b.get(key)
            m = WORD.search(text) if isinstance(text, str) and len(text) > 60 else None
            if m and sum(text[max(0, m.start() - 24):m.end() + 24] in x for x in lines) == 1:  # words no other line holds
                new = text[:m.start()] + m.group().upper() + text[m.end():]
                b[key] = new
                line = json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n"
                assert len(line.encode()) == len(ln.encode()), "the edit keeps the line's size"
                around = slice(max(0, m.start() - 24), m.end() + 24)
                return [*lines[:n], line, *lines[n + 1:]], {"rid": d["uuid"], "row": n + 1, "was": text[around],
                                                             "now": new[around]}
    raise AssertionError(f"no {kind} block with such a word in the source")


def _said(rid: str, row: int, others: str) -> str:
    # the one thing that differs named (trial 48c F4): the text, same size, same parts
    return (f"conflict: record id {rid} landed at 1/{row} here and in session(s) {others} with another text or data in "
            "the same parts (its content's digest); each session draws its own")


@pytest.fixture(scope="module")
def copied(corpus_dir: Path, tmp_path_factory) -> dict:
    projects = corpus_dir / "claude-code" / "projects"
    base = tmp_path_factory.mktemp("copy-changed-text")
    src = base / "projects"
    got: dict = {}
    for sid, copy, kind, key in ((ANSWER, ANSWER_COPY, "text", "text"), (RESULT, RESULT_COPY, "tool_result", "content")):
        lines = (projects / LOG / f"{sid}.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
        changed, got[copy] = _edited([ln.replace(sid, copy) for ln in lines], kind, key)
        (src / LOG).mkdir(parents=True, exist_ok=True)
        (src / LOG / f"{sid}.jsonl").write_text("".join(lines), encoding="utf-8")
        (src / LOG / f"{copy}.jsonl").write_text("".join(changed), encoding="utf-8")
    lines = (projects / SPOTTER / f"{SAME}.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)[:LINES]
    assert SAME in json.dumps({k: v for k, v in json.loads(lines[714]).items() if k != "sessionId"}), "line 715 names it"
    (src / SPOTTER).mkdir(parents=True)
    (src / SPOTTER / f"{SAME}.jsonl").write_text("".join(lines), encoding="utf-8")
    (src / SPOTTER / f"{EXACT}.jsonl").write_text("".join(ln.replace(SAME, EXACT) for ln in lines), encoding="utf-8")
    resumed = [re.sub(f'"sessionId": ?"{SAME}"', f'"sessionId":"{RESUMED}"', ln) for ln in lines]
    assert sum(SAME in ln for ln in resumed) >= 1 and sum(RESUMED in ln for ln in resumed) >= LINES // 2
    (src / SPOTTER / f"{RESUMED}.jsonl").write_text("".join(resumed), encoding="utf-8")
    got["calls"] = len({d["message"]["id"] for d in map(json.loads, lines) if d.get("type") == "assistant"})
    got["spotter"] = lines
    got["root"] = root = base / "root"
    asz("collect", "--once", "--source", str(src), "--root", str(root))
    got["rows"] = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout)}
    return got


def _doc(t: dict, conversation: str) -> dict:
    return json.loads(asz("conversation", conversation, "--json", "--root", str(t["root"])).stdout)


def _read(t: dict, conversation: str) -> str:
    return asz("export", conversation, "--format", "md", "--root", str(t["root"])).stdout


@pytest.mark.parametrize("original, copy", [(ANSWER, ANSWER_COPY), (RESULT, RESULT_COPY)], ids=["answer", "tool result"])
def test_a_copy_with_one_text_edited_draws_its_own_text_and_says_the_conflict(copied, original, copy):
    t = copied
    e = t[copy]
    mine, theirs = _doc(t, copy), _doc(t, original)
    assert not any(d["id"] == e["rid"] and d["why"] == "duplicate" for d in mine["not_drawn"])  # was: a duplicate
    assert _said(e["rid"], e["row"], original) in mine["summary"]["problems"], mine["summary"]["problems"]
    assert _said(e["rid"], e["row"], copy) in theirs["summary"]["problems"], theirs["summary"]["problems"]
    assert [p for p in mine["summary"]["problems"] if p.startswith("conflict:")] == [_said(e["rid"], e["row"], original)]
    assert t["rows"][copy]["shares"]["differ"] == 1 and t["rows"][original]["shares"]["differ"] == 1
    # each reader reads its own session's text: the copy's words in the copy, the original's in the original (a
    # result whose request the copy repeats, drawn in the original, is listed in the copy with its text)
    mine_text, theirs_text = _read(t, copy), _read(t, original)
    if original == RESULT:
        (listed,) = [d for d in mine["not_drawn"] if d["id"] == e["rid"]]
        assert listed["why"] == "unresolved", listed
        mine_text = listed["text"]
    assert e["now"] in mine_text and e["was"] not in mine_text
    assert e["was"] in theirs_text and e["now"] not in theirs_text


def test_an_exact_copy_and_a_resumed_session_still_repeat_it(copied):
    t = copied
    rows = t["rows"]
    assert rows[SAME]["llm_calls"] == t["calls"] and rows[EXACT]["llm_calls"] == rows[RESUMED]["llm_calls"] == 0
    for c in (SAME, EXACT, RESUMED):
        problems = _doc(t, c)["summary"]["problems"]
        assert not [p for p in problems if p.startswith("conflict:")], (c, problems)
        assert not (rows[c]["shares"] or {}).get("differ"), (c, rows[c]["shares"])
    uuids = len({d["uuid"] for d in map(json.loads, t["spotter"]) if "uuid" in d})
    for c in (EXACT, RESUMED):  # each repeats every record: one relation to the original citing each
        doc = _doc(t, c)
        assert [(r["type"], r["to"], len(r["evidence"])) for r in doc["relations"]] == [("continues", f"conversation/{SAME}", uuids)], c
