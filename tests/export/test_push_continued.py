"""A session continued on another host, each pushed from its own host (trial 28a F1; docs/push.md, Known limits).

Carol's host holds 5c0375b4 (the corpus's sample session); bob's holds a resumed copy of it under another id, its
first 30 lines (sessionId changed) and one call of his. In one root the copy continues 5c0375b4 and the repeated
records are counted there once. Each host's rounds are assembled on that host, and bob's never held 5c0375b4, so its
rounds draw the repeated calls too. The receiver lists the pair with the repeated records' ids in ``_received/
twice.list``, whatever order the hosts push in, and the readers count those calls once, in 5c0375b4: ``asz usage``,
``asz ls``, ``/api/usage`` and ``/api/conversations`` give the figures counted here straight from the two source files
(one usage per message.id + requestId, the last line's, priced from prices.yaml's rates), and say what they corrected
(``counted once here``). A real ``asz receive`` on loopback, restarted, and killed in the middle of a request.
"""

from __future__ import annotations

import io
import json
import re
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from decimal import Decimal
from pathlib import Path

import forked
import pytest

from asz_core.export.receive import Receiver

from export_helpers import ASZ, asz, free_port, sent_files

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view"))
from claude_lines import priced  # noqa: E402
from cli_helpers import usage_json  # noqa: E402

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


def _sources(tmp: Path) -> tuple[list[Path], list[Path]]:
    """Carol's and bob's source files (:func:`_hosts`)."""
    return sorted((tmp / "carol-src").rglob("*.jsonl")), sorted((tmp / "bob-src").rglob("*.jsonl"))


def _push(root: Path, address: str) -> None:
    cfg = root.parent / f"{root.name}.yaml"
    cfg.write_text(f"export:\n  otlp:\n    instance_id: {root.name}@host\n")
    p = asz("push", "--root", str(root), "--config", str(cfg), "--endpoint", f"http://{address}", cwd=root.parent)
    assert p.returncode == 0, p.stdout + p.stderr


def _source_figures(files: list[Path]) -> tuple[int, dict[str, int], Decimal]:
    """``(calls, tokens, exact USD)`` counted from Claude Code source files: one usage per (message.id, requestId)
    over all of them, the last line's; priced at the shipped rates of prices.yaml (the data file:
    :func:`claude_lines.priced`)."""
    usage: dict[tuple, tuple[str, dict]] = {}
    for f in files:
        for ln in f.read_text().splitlines():
            d = json.loads(ln)
            m = d.get("message")
            if d.get("type") == "assistant" and isinstance(m, dict) and m.get("usage") and m.get("model") != "<synthetic>":
                usage[(m["id"], d.get("requestId"))] = (m["model"], m["usage"])
    tokens = dict.fromkeys(("in", "out", "cache_read", "cache_write"), 0)
    for _, u in usage.values():
        for k, src in (("in", "input_tokens"), ("out", "output_tokens"), ("cache_read", "cache_read_input_tokens"),
                       ("cache_write", "cache_creation_input_tokens")):
            tokens[k] += u.get(src, 0)
    return len(usage), tokens, sum((priced(model, u) for model, u in usage.values()), Decimal(0))


class _Receiving:
    """A real ``asz receive`` child on loopback into ``root`` (its stderr in ``root.parent/receive-N.log``)."""

    def __init__(self, root: Path, n: int = 0, address: str = ""):
        self.address = address or f"127.0.0.1:{free_port()}"
        self.log = root.parent / f"receive-{n}.log"
        self.err = self.log.open("w")
        self.proc = forked.Popen([*ASZ, "receive", "--no-token", "--root", str(root), "--listen", self.address],
                                     stdout=subprocess.DEVNULL, stderr=self.err, cwd=root.parent)
        deadline = time.monotonic() + 60
        while "receiving:" not in self.log.read_text():
            assert self.proc.poll() is None and time.monotonic() < deadline, self.log.read_text()
            time.sleep(0.05)

    def stop(self, sig: int = signal.SIGINT) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=60)
        self.err.close()
        return self.log.read_text()


def _team_said(team: Path, source: list[Path], carol_src: list[Path], bob_src: list[Path]) -> None:
    """The team root counts each repeated call once: its totals, and each conversation's, are those counted from the
    source files; it lists the pair with its records' ids and its readers say what they corrected."""
    listed = [json.loads(ln) for ln in (team / "_received" / "twice.list").read_text().splitlines()]
    assert [(d["session"], d["continues"]) for d in listed][-1:] == [(COPY, SESSION)], listed
    assert listed[-1]["ids"] and listed[-1]["repeated"] == len(listed[-1]["ids"]), listed
    calls, tokens, usd = _source_figures(source)
    got = json.loads(asz("usage", "--root", str(team), "--json", "--total-once").stdout)["total"]
    assert (got["calls"], got["usage"], Decimal(got["cost"]["usd_exact"])) == (calls, usage_json(tokens), usd)
    rows = {r["id"]: r for r in json.loads(asz("ls", "--root", str(team), "--json").stdout)}
    c_calls, c_tokens, c_usd = _source_figures(carol_src)
    assert (rows[SESSION]["llm_calls"], rows[SESSION]["usage"]) == (c_calls, c_tokens)
    assert (rows[COPY]["llm_calls"], Decimal(rows[COPY]["cost"]["usd_exact"])) == (calls - c_calls, usd - c_usd)
    assert rows[COPY]["continues"] == SESSION
    said = f"counted once here: {COPY} continues {SESSION}, but its rounds were assembled by bob@host"
    v = asz("verify", "--root", str(team))
    assert v.returncode == 0 and said in v.stdout and "counted twice" not in v.stdout, v.stdout
    out = asz("ls", "--root", str(team))
    assert f"{COPY[:8]} continues {SESSION[:8]}: the records it repeats" in out.stdout, out.stdout
    table = asz("usage", "--root", str(team)).stdout  # every figure right: the note marks no total "!" (view.md)
    assert re.search(rf"^total +-? +{calls:,} ", table, re.M) and "total !" not in table and "\n! counted once" not in table, table
    for cmd in ("ls", "usage"):
        out = asz(cmd, "--root", str(team))
        assert f"in {SESSION} only, as one root holding both counts them" in out.stdout + out.stderr
        assert "counted twice" not in out.stdout + out.stderr


def _api(base: str, path: str) -> dict:
    with urllib.request.urlopen(base + path, timeout=60) as r:
        return json.loads(r.read())


@pytest.mark.slow
@pytest.mark.parametrize("order", ["carol first", "bob first"])
def test_a_session_continued_on_another_host_is_counted_once(corpus_dir, tmp_path, order):
    carol, bob, repeated_calls = _hosts(corpus_dir, tmp_path)
    assert repeated_calls > 1
    carol_src, bob_src = _sources(tmp_path)
    one = tmp_path / "one"  # both files in one root: the copy continues the session there
    for r in (carol, bob):
        src = r.parent / f"{r.name}-src"
        assert asz("collect", "--once", "--source", str(src), "--root", str(one), cwd=tmp_path).returncode == 0
    assert f"{COPY[:8]} continues {SESSION[:8]}: the records it repeats" in asz("ls", "--root", str(one)).stdout
    team = tmp_path / "team"
    rcv = _Receiving(team)
    try:
        for r in ((carol, bob) if order == "carol first" else (bob, carol)):
            _push(r, rcv.address)
    finally:
        log = rcv.stop()
    assert f"counted once here: its {repeated_calls} repeated model call(s) are counted in {SESSION} only" in log
    listed = json.loads((team / "_received" / "twice.list").read_text().splitlines()[-1])
    assert listed["calls"] == repeated_calls and (listed["instance"], listed["other"]) == ("bob@host", "carol@host")
    _team_said(team, carol_src + bob_src, carol_src, bob_src)
    # the one root counts the same: each figure of the team root is the one root's
    assert json.loads(asz("usage", "--root", str(one), "--json", "--total-once").stdout)["total"]["cost"] == \
        json.loads(asz("usage", "--root", str(team), "--json", "--total-once").stdout)["total"]["cost"]
    if order != "carol first":
        return
    port = free_port()  # the page's answers: /api/usage and /api/conversations
    page = forked.Popen([*ASZ, "view", "--root", str(team), "--port", str(port)], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                usage = _api(base, "/api/usage?since=2000-01-01")
                if usage.get("complete"):
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline and page.poll() is None
            time.sleep(0.2)
        calls, tokens, usd = _source_figures(carol_src + bob_src)
        assert (usage["total"]["calls"], {k: usage["total"][k] for k in tokens}) == (calls, tokens), usage["total"]
        assert Decimal(usage["total"]["cost_exact"]) == usd
        convs = _api(base, "/api/conversations")
        rows = {r["id"]: r for r in convs["conversations"]}
        assert rows[COPY]["llm_calls"] == calls - _source_figures(carol_src)[0]
        assert "counted once here" in convs["note"], convs.get("note")
        doc = _api(base, f"/api/c/{COPY}/view")
        assert doc["summary"]["counted_there"]["calls"] == repeated_calls
    finally:
        page.terminate()
        page.wait(timeout=60)


@pytest.mark.slow
def test_a_receiver_killed_mid_request_and_restarted_counts_the_copy_once(corpus_dir, tmp_path):
    """The look for continuations runs after a request's files landed: a receiver killed there (-9, while the id
    table is held by another process, so the request waits in the look) has landed bob's files and listed nothing.
    Bob's next pass sends the request again to the restarted receiver, its files already there: the look is made
    then, and the figures are counted once (a crash repeats work, never loses it)."""
    carol, bob, _ = _hosts(corpus_dir, tmp_path)
    carol_src, bob_src = _sources(tmp_path)
    team = tmp_path / "team"
    rcv = _Receiving(team, 0)
    try:
        _push(carol, rcv.address)
        assert (team / "_index" / "ids.sqlite").is_file()
        held = sqlite3.connect(team / "_index" / "ids.sqlite", isolation_level=None)
        held.execute("BEGIN IMMEDIATE")  # the receiver's look waits for it (its busy timeout is 120 s)
        cfg = tmp_path / "bob.yaml"
        cfg.write_text("export:\n  otlp:\n    instance_id: bob@host\n")
        pushing = forked.Popen([*ASZ, "push", "--root", str(bob), "--config", str(cfg), "--endpoint",
                                    f"http://{rcv.address}"], cwd=tmp_path, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not any(p.suffix == ".sd" for p in (team / COPY).rglob("*.sd")) if (team / COPY).is_dir() else True:
            assert time.monotonic() < deadline and pushing.poll() is None
            time.sleep(0.05)
        time.sleep(1.0)
        assert pushing.poll() is None  # the request waits in the look
    finally:
        log = rcv.stop(signal.SIGKILL)
    held.execute("ROLLBACK")
    held.close()
    pushing.communicate(timeout=300)
    assert not (team / "_received" / "twice.list").exists(), log
    rcv = _Receiving(team, 1)
    try:
        _push(bob, rcv.address)
    finally:
        log = rcv.stop()
    assert "already there" in log and "counted once here" in log, log
    _team_said(team, carol_src + bob_src, carol_src, bob_src)
    assert sent_files(team) == {**sent_files(carol), **sent_files(bob)}


@pytest.mark.slow
def test_a_pair_listed_without_ids_is_listed_again_by_a_request_with_no_file(corpus_dir, tmp_path):
    """docs/push.md: a line a receiver older than ``ids`` wrote corrects nothing until the receiver lists the pair
    again, and the first request of each receiver process does. A host whose pass has nothing new still sends one
    request with no file; the receiver looked only at requests carrying a file, so such a root kept counting the
    repeated calls twice. Here the team root's line is made as a session-28 receiver wrote it (no ``ids``), a new
    receiver listens at the same address, and bob's next pass sends nothing new: the pair is listed again, with ids,
    and the figures are those counted from the source files."""
    carol, bob, _ = _hosts(corpus_dir, tmp_path)
    carol_src, bob_src = _sources(tmp_path)
    team = tmp_path / "team"
    rcv = _Receiving(team, 0)
    try:
        for r in (carol, bob):
            _push(r, rcv.address)
    finally:
        rcv.stop()
    listed = team / "_received" / "twice.list"
    old = [{k: v for k, v in json.loads(ln).items() if k != "ids"} for ln in listed.read_text().splitlines()]
    listed.write_text("".join(json.dumps(d) + "\n" for d in old))
    calls, _, _ = _source_figures(carol_src + bob_src)
    # a provider call two conversations hold is counted once root-wide since 12b55315 (trial 35a F5), so the old
    # line without ids no longer makes the total count them twice; the receiver's listing is checked below
    assert json.loads(asz("usage", "--root", str(team), "--json", "--total-once").stdout)["total"]["calls"] == calls
    rcv = _Receiving(team, 1, rcv.address)
    try:
        _push(bob, rcv.address)
    finally:
        log = rcv.stop()
    assert re.search(r"logs: 1 request\(s\) with no file", log) and not re.search(r"\b[1-9]\d* (landed|already there)", log), log
    _team_said(team, carol_src + bob_src, carol_src, bob_src)


def test_the_receivers_look_keeps_parses_stale_marks(corpus_dir, tmp_path):
    """reviewF28: the receiver's look (find_twice) read the id table as parse does and took each session's ``stale``
    mark (a session sharing ids with it grew since its links were drawn), so a later ``asz parse`` could skip redrawing
    them. It leaves the marks as they are."""
    from asz_core.export.continued import find_twice

    _hosts(corpus_dir, tmp_path)
    one = tmp_path / "one"
    for name in ("carol", "bob"):
        assert asz("collect", "--once", "--source", str(tmp_path / f"{name}-src"), "--root", str(one),
                   cwd=tmp_path).returncode == 0
    db = sqlite3.connect(one / "_index" / "ids.sqlite", isolation_level=None)
    db.execute("UPDATE sessions SET stale=1 WHERE name IN (?, ?)", (SESSION, COPY))
    find_twice(one, [SESSION, COPY], None)
    assert dict(db.execute("SELECT name, stale FROM sessions WHERE name IN (?, ?)", (SESSION, COPY)).fetchall()) == \
        {SESSION: 1, COPY: 1}
    db.close()


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
