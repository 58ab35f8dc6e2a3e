"""Which sessions of a cluster are looked at again when one of them grows (fix46b; f23ae7d6, trial 45d F1).

A live session resumed many times made every pass that added one line to it compare each resumed copy with every
other again (bench/resume_cluster.py: 200 copies, x13 the CPU of a pass over a session with no copy). A pair turns
over only where the grown session had no record of its own beside the other (the other holds every id it held), when
a new record is earlier than an old one, or where a new record goes on with a call an old one made
(shared_ids._may_turn). Built from a real corpus transcript (``55604662``, 15 lines): the live session's first 10
lines, three resumed copies of its first 4, 5 and 10 lines with a prompt and a reply of their own a day later, and a
whole copy with no record of its own; in one case the live session holds a sub-agent of its own too (no copy holds it:
its main stream decides, 0c82ba63). Each case lands one more line of the live session, asks
:func:`~asz_core.flow.shared_ids.prepare` of a copy of the root which sessions it looks at again (the sessions holding
them counted from the source files), then parses and compares every conversation's calls, tokens and ``continues`` with
a root collected fresh from the same files, and each call once against the source lines.
"""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest

from asz_core.flow.shared_ids import prepare
from cli_helpers import asz_ok
from test_view_usage import add_to, source_usage

PROJECT = "-home-user-spotter"
SOURCE = "55604662-cf2a-4331-851a-ec234028f8ca"
LIVE = "1a000000-0000-4000-8000-000000000000"
COPIES = {f"2b00000{i}-0000-4000-8000-000000000000": k for i, k in enumerate((4, 5, 10))}  # name -> lines repeated
WHOLE = "0c000000-0000-4000-8000-000000000000"  # every line of the live session, nothing of its own
AGENT = "8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-acompact-f46190.jsonl"  # 7 lines, 1 call


def _recs(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, recs: list[dict], session: str) -> None:
    path.write_text("".join(json.dumps(dict(r, sessionId=session) if "sessionId" in r else r) + "\n" for r in recs),
                    encoding="utf-8")


def _line(recs: list[dict], session: str, tag: str, ts: str, *, call: str = "") -> dict:
    """A line after ``recs``' last record with a uuid: a prompt, or with ``call`` a later line of that model call."""
    parent = next(r["uuid"] for r in reversed(recs) if r.get("uuid"))
    if call:
        r = json.loads(json.dumps(next(r for r in reversed(recs) if (r.get("message") or {}).get("id") == call)))
    else:
        r = json.loads(json.dumps(next(r for r in recs if r.get("type") == "user")))
        r["message"] = {"role": "user", "content": f"And {tag}."}
    r.update(uuid=str(uuid.uuid5(uuid.NAMESPACE_URL, f"fix46b/{session}/{tag}")), parentUuid=parent, timestamp=ts, sessionId=session)
    return r


def _made(src: Path, original: Path) -> Path:
    """The five sessions under ``src/PROJECT``; returns the live session's file."""
    recs = _recs(original)
    proj = src / PROJECT
    proj.mkdir(parents=True)
    live = recs[:10]
    _write(proj / f"{LIVE}.jsonl", live, LIVE)
    _write(proj / f"{WHOLE}.jsonl", live, WHOLE)
    for n, (name, k) in enumerate(sorted(COPIES.items())):
        head = recs[:k]
        own = _line(head, name, "resumed", f"2026-02-11T0{n}:00:00.000Z")
        reply = json.loads(json.dumps(next(r for r in recs if r.get("type") == "assistant")))
        reply.update(uuid=str(uuid.uuid5(uuid.NAMESPACE_URL, f"fix46b/{name}/reply")), parentUuid=own["uuid"],
                     timestamp=f"2026-02-11T0{n}:00:03.000Z", requestId=f"req_fix46b{n}")
        reply["message"]["id"] = f"msg_fix46b_resumed_{n}"
        _write(proj / f"{name}.jsonl", head + [own, reply], name)
    return proj / f"{LIVE}.jsonl"


def _holding(proj: Path, ids: set[str]) -> set[str]:
    """The sessions other than the live one whose source lines hold every one of ``ids``."""
    return {f.stem for f in proj.glob("*.jsonl") if f.stem != LIVE and ids <= {r.get("uuid") for r in _recs(f)}}


def _rows(root: Path) -> dict[str, tuple]:
    return {r["id"]: (r["llm_calls"], r["usage"], r["continues"])
            for r in json.loads(asz_ok("ls", "--json", "--root", str(root)))}


def _calls_in(proj: Path) -> tuple[int, int]:
    """(calls, tokens) of every session's transcript from the source lines: each message id once, the usage of its
    latest line (a call's final usage; the copies repeat its earlier lines)."""
    last: dict[str, tuple[str, dict]] = {}
    for f in sorted(proj.rglob("*.jsonl")):
        for r in _recs(f):
            m = r.get("message")
            if r.get("type") == "assistant" and isinstance(m, dict) and isinstance(m.get("usage"), dict):
                if m["id"] not in last or r["timestamp"] > last[m["id"]][0]:
                    last[m["id"]] = (r["timestamp"], m["usage"])
    total: dict = {}
    for _, usage in last.values():
        add_to(total, source_usage(usage))
    return len(last), sum(v for k, v in total.items() if k != "cache_write_1h")  # a part of cache_write


@pytest.mark.slow
@pytest.mark.parametrize("case", ["later", "earlier", "call", "subagent"])
def test_a_grown_session_looks_again_only_at_pairs_that_can_turn(corpus_projects: Path, tmp_path: Path, case: str):
    original = corpus_projects / PROJECT / f"{SOURCE}.jsonl"
    if not original.is_file():
        pytest.skip(f"{original} is absent")
    src = tmp_path / "projects"
    live = _made(src, original)
    if case == "subagent":  # a sub-agent of the live session's own: no copy holds it (trial 46a F2's original)
        agent = corpus_projects / PROJECT / AGENT
        if not agent.is_file():
            pytest.skip(f"{agent} is absent")
        (live.parent / LIVE / "subagents").mkdir(parents=True)
        _write(live.parent / LIVE / "subagents" / agent.name, _recs(agent), LIVE)
    root = tmp_path / "root"

    def collect(into: Path, *more: str) -> None:
        asz_ok("collect", "--once", "--adapter", "claude-code-local", "--source", str(src), "--root", str(into), *more)

    collect(root)
    recs = _recs(live)
    held = {r["uuid"] for r in recs if r.get("uuid")}
    call = recs[9]["message"]["id"]  # the live session's last line: a line of a model call
    if case in ("later", "subagent"):  # a prompt after everything: only beside a copy of its whole main stream it turns
        line, want = _line(recs, LIVE, "later", "2026-02-12T00:00:00.000Z"), _holding(src / PROJECT, held)  # turns over
    elif case == "earlier":  # out of time order: every other session of the cluster, as before
        line, want = _line(recs, LIVE, "earlier", "2026-02-10T21:00:00.000Z"), {*COPIES, WHOLE}
    else:  # a later line of a call an old record made: the sessions holding that call's records too
        line = _line(recs, LIVE, "call", "2026-02-12T00:00:00.000Z", call=call)
        of_call = {r["uuid"] for r in recs if (r.get("message") or {}).get("id") == call}
        want = _holding(src / PROJECT, held) | {s for i in of_call for s in _holding(src / PROJECT, {i})}
    full, of_call = [n for n, k in COPIES.items() if k == 10], [n for n, k in COPIES.items() if k >= 5]  # line 5: the call's first
    assert want == {"later": {WHOLE, *full}, "subagent": {WHOLE, *full}, "earlier": {WHOLE, *COPIES}, "call": {WHOLE, *of_call}}[case]
    with live.open("a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")
    collect(root, "--no-parse")

    probe = tmp_path / "probe"
    shutil.copytree(root, probe)
    every = sorted(p.name for p in probe.iterdir() if not p.name.startswith(("_", ".")))
    assert set(prepare(probe, [LIVE], every)) == want

    collect(root)
    fresh = tmp_path / "fresh"
    collect(fresh)
    assert _rows(root) == _rows(fresh)
    rows = _rows(root)
    calls, tokens = _calls_in(src / PROJECT)
    assert sum(c for c, _, _ in rows.values()) == calls
    assert sum(v or 0 for _, u, _ in rows.values() for k, v in u.items() if k != "cache_write_1h") == tokens
    assert asz_ok("verify", "--figures", "--root", str(root))
