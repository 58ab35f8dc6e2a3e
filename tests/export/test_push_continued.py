"""A session continued on another host, each pushed from its own host (trial 28a F1; docs/push.md, Known limits).

Carol's host holds 5c0375b4 (the corpus's sample session); bob's holds a resumed copy of it under another id, its
first 30 lines (sessionId changed) and one call of his. In one root the copy continues 5c0375b4 and the repeated
records are counted there once. Each host's rounds are assembled on that host, and bob's never held 5c0375b4, so the
team root counts the repeated calls twice. The receiver says so, whatever order the hosts push in: ``_received/
twice.list`` names the pair with the repeated calls, counted here from the source lines (message.id + requestId),
and ``asz verify`` (a ``counted twice`` warning), ``asz ls`` and ``asz usage`` say it. A real receiver on loopback.
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest

from asz_core.export.receive import Receiver

from export_helpers import asz, sent_files

PROJECT = "-home-user-sample-project"
SESSION = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
COPY = "c0c0c0c0-2222-4333-8444-555566667777"
HEAD = 30


def _hosts(corpus_dir: Path, tmp: Path) -> tuple[Path, Path, int]:
    """Carol's and bob's roots, collected, and the model calls bob's copy repeats (from the source lines)."""
    src = corpus_dir / "claude-code" / "projects" / PROJECT / f"{SESSION}.jsonl"
    lines = src.read_text().splitlines(keepends=True)
    head = [json.loads(ln) for ln in lines[:HEAD]]
    calls = {(d["message"]["id"], d.get("requestId")) for d in head
             if d.get("type") == "assistant" and isinstance(d.get("message"), dict) and d["message"].get("usage")}
    for d in head:
        if "sessionId" in d:
            d["sessionId"] = COPY
    last = next(d for d in reversed(head) if d.get("uuid"))
    mine = {"parentUuid": last["uuid"], "isSidechain": False, "type": "assistant", "sessionId": COPY,
            "uuid": "b0b0b0b0-0000-4000-8000-000000000001", "timestamp": "2026-01-01T00:00:00.000Z",
            "cwd": last.get("cwd", "/p"), "requestId": "req_bob_1",
            "message": {"id": "msg_bob_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-20250514",
                        "content": [{"type": "text", "text": "bob goes on"}], "stop_reason": "end_turn",
                        "usage": {"input_tokens": 10, "output_tokens": 1000, "cache_read_input_tokens": 100000,
                                  "cache_creation_input_tokens": 0}}}
    roots = []
    for name, files in (("carol", {f"{SESSION}.jsonl": "".join(lines)}),
                        ("bob", {f"{COPY}.jsonl": "".join(json.dumps(d) + "\n" for d in head + [mine])})):
        proj = tmp / f"{name}-src" / PROJECT
        proj.mkdir(parents=True)
        for n, text in files.items():
            (proj / n).write_text(text)
        roots.append(tmp / name)
        p = asz("collect", "--once", "--source", str(proj.parent), "--root", str(roots[-1]), cwd=tmp)
        assert p.returncode == 0, p.stderr
    return roots[0], roots[1], len(calls)


def _push(root: Path, address: str) -> None:
    cfg = root.parent / f"{root.name}.yaml"
    cfg.write_text(f"export:\n  otlp:\n    instance_id: {root.name}@host\n")
    p = asz("push", "--root", str(root), "--config", str(cfg), "--endpoint", f"http://{address}", cwd=root.parent)
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.mark.slow
@pytest.mark.parametrize("order", ["carol first", "bob first"])
def test_a_session_continued_on_another_host_is_said_counted_twice(corpus_dir, tmp_path, order):
    carol, bob, repeated_calls = _hosts(corpus_dir, tmp_path)
    assert repeated_calls > 1
    one = tmp_path / "one"  # both files in one root: the copy continues the session there
    for r in (carol, bob):
        src = r.parent / f"{r.name}-src"
        assert asz("collect", "--once", "--source", str(src), "--root", str(one), cwd=tmp_path).returncode == 0
    assert f"{COPY[:8]} continues {SESSION[:8]}: the records it repeats" in asz("ls", "--root", str(one)).stdout
    team = tmp_path / "team"
    rcv = Receiver(team, "127.0.0.1:0").start().serve_in_thread()
    try:
        for r in ((carol, bob) if order == "carol first" else (bob, carol)):
            _push(r, rcv.address)
    finally:
        rcv.stop()
    listed = [json.loads(ln) for ln in (team / "_received" / "twice.list").read_text().splitlines()]
    assert [(d["session"], d["continues"], d["calls"]) for d in listed] == [(COPY, SESSION, repeated_calls)], listed
    assert (listed[0]["instance"], listed[0]["other"]) == ("bob@host", "carol@host")
    said = (f"{COPY} continues {SESSION}, but its rounds were assembled by bob@host, whose root did not hold "
            f"{SESSION[:8]} (sent by carol@host): the {listed[0]['repeated']} record(s) it repeats, {repeated_calls} "
            "model call(s) and their tokens with them, are counted in both here")
    v = asz("verify", "--root", str(team))
    assert v.returncode == 0 and "counted twice" in v.stdout and said in v.stdout, v.stdout
    for cmd in ("ls", "usage"):
        out = asz(cmd, "--root", str(team))
        assert said in out.stdout + out.stderr, out.stdout + out.stderr


@pytest.mark.slow
def test_an_id_table_that_cannot_be_used_costs_no_landed_file(corpus_dir, tmp_path):
    """The look for continuations is derived: a root whose ``_index`` is a file (the id table cannot be made) lands
    every file both hosts send, refuses none, and says per session that it was not looked at."""
    carol, bob, _ = _hosts(corpus_dir, tmp_path)
    team = tmp_path / "team"
    team.mkdir()
    (team / "_index").write_text("not a folder\n")
    said = io.StringIO()
    rcv = Receiver(team, "127.0.0.1:0", err=said).start().serve_in_thread()
    try:
        for r in (carol, bob):
            _push(r, rcv.address)
    finally:
        rcv.stop()
    assert sent_files(team) == {**sent_files(carol), **sent_files(bob)}
    errors = [ln for ln in said.getvalue().splitlines() if ln.startswith("error:")]
    assert errors and all("_received/twice.list" in ln and "_index/ids.sqlite" in ln for ln in errors), said.getvalue()
    assert {s for s in (SESSION, COPY) if any(f"session {s}" in ln for ln in errors)} == {SESSION, COPY}, errors
    out = said.getvalue()
    assert re.findall(r"(\d+) rejected", out) and set(re.findall(r"(\d+) rejected", out)) == {"0"}, out
    assert not [ln for ln in out.splitlines() if ln.startswith("rejected")], out
    assert not (team / "_received" / "twice.list").exists()
