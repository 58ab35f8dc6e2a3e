"""A copy whose shared record ids stay unresolved (it does not open by repeating, so neither session continues the
other) says where its shared calls are counted: in each row, and ``asz usage``'s total counts each once (they are the
same provider calls: trial 35a F5, test_same_calls_counted_once.py) (note22, "Copies": such a copy got no line, unlike
one that continues: test_continues_counted_there.py).

Real input: the corpus's 326189cf (A) and a copy D of every line of it under a new session id, opened by a prompt of
its own (its first record with an id is not A's: docs/session-flow.md, Links across sessions). The calls are counted
straight from A's transcript (tests/anchors.py, reader-anchors.md's count).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from reading_helpers import asz

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from anchors import anchor_usage  # noqa: E402

PROJECT = "-Users-alex-workspace-claude-code-log-sample"
A = "326189cf-5676-4237-8cde-1ce80aae4a9f"
D = "7d7d7d7d-0000-4000-8000-00000000000d"
SAID = "neither continuing the other: those records, {calls} call(s) and their tokens with them, are counted in each row (asz usage's totals count each model call once)"


def test_a_copy_with_unresolved_shared_ids_says_its_calls_are_counted_in_each(corpus_source, tmp_path):
    lines = (corpus_source / PROJECT / f"{A}.jsonl").read_bytes().splitlines(keepends=True)
    recs = [json.loads(ln) for ln in lines]
    own = dict(next(r for r in recs if r.get("type") == "user" and r["message"]["content"] == "please fix these"),
               uuid="7e7e7e7e-0000-4000-8000-0000000000d1", parentUuid=None, sessionId=D,
               timestamp="2025-07-14T07:00:00.000Z", message={"role": "user", "content": "A prompt of my own first."})
    proj = tmp_path / "projects" / PROJECT
    proj.mkdir(parents=True)
    (proj / f"{A}.jsonl").write_bytes(b"".join(lines))
    (proj / f"{D}.jsonl").write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in [own, *(
        dict(r, sessionId=D) if "sessionId" in r else r for r in recs)]))
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    ids = {r["uuid"] for r in recs if r.get("uuid")}
    _, calls = anchor_usage(lines)
    assert calls == 15

    rows = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout)}
    assert rows[A]["continues"] is None and rows[D]["continues"] is None  # unresolved, not linked
    assert rows[A]["shares"] == {"with": [D], "ids": len(ids), "calls": calls}
    assert rows[D]["shares"] == {"with": [A], "ids": len(ids), "calls": calls}
    assert rows[A]["llm_calls"] == rows[D]["llm_calls"] == calls  # each counts them: the line says so
    listed = asz("ls", "--root", str(root)).stdout.splitlines()
    assert [ln for ln in listed if " shares " in ln] == [
        f"{D[:8]} shares {len(ids)} record id(s) with {A[:8]}, " + SAID.format(calls=calls),
        f"{A[:8]} shares {len(ids)} record id(s) with {D[:8]}, " + SAID.format(calls=calls)]
    got = json.loads(asz("usage", "session", "--json", "--tz", "UTC", "--root", str(root)).stdout)
    assert [r["calls"] for r in got] == [calls, calls]  # each row its own figure
    assert got[0]["total"]["calls"] == calls  # the same call ids: counted once in the total (trial 35a F5; was 2 x)
