"""A copy of a session cut after a streamed message's first line counts that model call once, from its last line
(trial 33a F1).

Real input: the corpus's 8463c716 (-home-user-spotter, with its sub-agents) and a copy of its first 60 lines under a
new session id, as a resume or fork copy is: the copy's last assistant line is the first of the three lines Claude Code
streamed for ``msg_01TeKamWeK4PT2KUfBXJHBkX`` (output 25; the original's third line carries the final usage, output
223). 8463c716 continues the copy (the copy has no record of its own), so the records it repeats are counted in the
copy; the cut call's later lines landed in 8463c716 only, so the call is counted there, once, with its final usage
(reader-anchors.md, Token counts: one usage per message.id + requestId, from its last line). Before the fix the call
was counted in both (158 calls where the source holds 157; +33,352 tokens).

The expected figures are this test's own count of the source files: every line of both files (sub-agents included),
one record per ``uuid`` (a repeated record is one record), one usage per (message.id, requestId) from its last line in
time order. Checked against ``asz usage --json``, ``asz usage session``, ``asz ls --json``, ``asz conversation --json``
of both, ``/api/usage`` and ``/api/conversations`` of a real ``asz view`` and the md export's tokens line.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from anchors import ANCHOR_KEYS
from cli_helpers import asz_ok as _asz

PROJECT = "-home-user-spotter"
A = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
COPY = "aaaa3333-0000-4000-8000-000000000001"
CUT = "msg_01TeKamWeK4PT2KUfBXJHBkX"


def _source_count(files: list[Path]) -> tuple[dict[str, int], int]:
    """The four token kinds and the calls of ``files`` by the rule of the module docstring."""
    by_uuid: dict[str, dict] = {}
    plain: list[dict] = []
    for f in files:
        for ln in f.read_bytes().splitlines():
            d = json.loads(ln)
            if d.get("uuid"):
                by_uuid.setdefault(d["uuid"], d)
            else:
                plain.append(d)
    last: dict[tuple, dict] = {}
    for d in sorted([*by_uuid.values(), *plain], key=lambda d: d.get("timestamp") or ""):
        m = d.get("message")
        if d.get("type") == "assistant" and isinstance(m, dict) and m.get("id") and isinstance(m.get("usage"), dict):
            last[(m["id"], d.get("requestId"))] = m["usage"]
    return {k: sum(u.get(f) or 0 for u in last.values()) for f, k in ANCHOR_KEYS.items()}, len(last)


def _tokens(u: dict) -> dict[str, int]:
    return {k: u[k] for k in ("in", "out", "cache_read", "cache_write")}


def _sum(rows: list[dict]) -> dict[str, int]:
    return {k: sum(r[k] for r in rows) for k in ("in", "out", "cache_read", "cache_write")}


@pytest.fixture(scope="module")
def cut_root(corpus_dir, tmp_path_factory) -> tuple[Path, list[Path]]:
    src = corpus_dir / "claude-code" / "projects" / PROJECT
    if not (src / f"{A}.jsonl").is_file():
        pytest.skip(f"corpus transcript {A} is absent")
    base = tmp_path_factory.mktemp("cut-copy")
    proj = base / "projects" / PROJECT
    shutil.copytree(src / A, proj / A)
    shutil.copy(src / f"{A}.jsonl", proj / f"{A}.jsonl")
    head = (src / f"{A}.jsonl").read_bytes().splitlines(keepends=True)[:60]
    (proj / f"{COPY}.jsonl").write_bytes(b"".join(head).replace(A.encode(), COPY.encode()))
    # the shape of the finding: the copy ends on the first of the cut message's three lines, the original's last
    # line of it carries the final usage
    lines = [json.loads(ln) for ln in (src / f"{A}.jsonl").read_bytes().splitlines()]
    of_cut = [i for i, d in enumerate(lines) if (d.get("message") or {}).get("id") == CUT]
    assert len(of_cut) == 3 and of_cut[0] < 60 < of_cut[1]
    assert [lines[i]["message"]["usage"]["output_tokens"] for i in of_cut] == [25, 25, 223]
    root = base / "root"
    _asz("collect", "--once", "--adapter", "claude-code-local", "--source", str(base / "projects"), "--root", str(root))
    return root, sorted(proj.rglob("*.jsonl"))


def test_a_call_cut_in_a_copy_is_counted_once_from_its_last_line(cut_root, serve):
    root, files = cut_root
    want, calls = _source_count(files)
    assert calls == 157 and sum(want.values()) == 16_526_897  # 8463c716's own figures: the copy adds no call
    total = json.loads(_asz("usage", "--root", str(root), "--json", "--total-once", "--tz", "UTC"))["total"]
    assert (_tokens(total["usage"]), total["calls"]) == (want, calls)
    per = {r["conversation"]: r for r in json.loads(_asz("usage", "session", "--root", str(root), "--json", "--tz", "UTC"))}
    rows = {r["id"]: r for r in json.loads(_asz("ls", "--root", str(root), "--json"))}
    docs = {c: json.loads(_asz("conversation", c, "--root", str(root), "--json"))["summary"] for c in (A, COPY)}
    assert sum(r["llm_calls"] for r in rows.values()) == sum(d["llm_calls"] for d in docs.values()) == calls
    assert _sum([rows[c]["usage"] for c in (A, COPY)]) == _sum([docs[c]["usage"] for c in (A, COPY)]) == want
    assert _sum([per[c]["usage"] for c in (A, COPY)]) == want
    # where: the copy draws the cut call and counts it in 8463c716, which holds its last line
    assert docs[COPY]["counted_later"] == {"in": [A], "calls": 1, "nodes": [f"call/{CUT}"]}
    assert rows[COPY]["counted_later"] == docs[COPY]["counted_later"] and rows[A]["counted_later"] is None
    assert (rows[COPY]["llm_calls"], rows[A]["llm_calls"], rows[A]["continues"]) == (4, 153, COPY)
    [rel] = [r for r in json.loads(_asz("conversation", COPY, "--root", str(root), "--json"))["relations"]
             if r["from"] == f"call/{CUT}"]
    assert (rel["type"], rel["to"], len(rel["evidence"])) == ("continues", f"conversation/{A}", 1)
    said = _asz("ls", "--root", str(root)).splitlines()
    assert (f"{COPY[:8]} draws 1 model call(s) that go on in {A[:8]}, which holds their last line: counted there, "
            "with its final usage") in said
    text = _asz("conversation", COPY, "--root", str(root)).splitlines()
    assert (f"continued in {A} (1 model call(s) drawn here go on there: their later lines, the last with the final "
            "usage, landed there only, so they are counted there)") in text
    u = docs[COPY]["usage"]
    md = _asz("export", COPY, "--format", "md", "--root", str(root))
    assert f"in {u['in']:,}, out {u['out']:,}, cache read {u['cache_read']:,}, cache write {u['cache_write']:,}" in md
    # the page's figures: /api/usage once every conversation is summed, and the rows it lists
    s = serve(root)
    deadline = time.monotonic() + 180
    while not (api := s.get("/api/usage").json())["complete"]:
        assert time.monotonic() < deadline, "/api/usage never complete"
        time.sleep(0.2)
    assert (_sum(api["hours"]), sum(h["calls"] for h in api["hours"])) == (want, calls)
    listed = s.get("/api/conversations").json()["conversations"]
    deadline = time.monotonic() + 180
    while any(r.get("counting") for r in listed):
        assert time.monotonic() < deadline, "rows never counted"
        time.sleep(0.2)
        listed = s.get("/api/conversations").json()["conversations"]
    assert sum(r["llm_calls"] for r in listed) == calls and _sum([r["usage"] for r in listed]) == want
