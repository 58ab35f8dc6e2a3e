"""Hosts pushing to one receiver, one of whose roots is re-made or lost (trial 24a F4, F1, F2, F3, F5).

A real receiver on loopback (in a thread), real ``asz collect`` / ``asz push`` / ``asz parse`` children, corpus
transcripts. Counts are made from the source lines: one model call per (message.id, requestId) of an assistant line
with ``message.usage``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from asz_core.export.receive import Receiver

from export_helpers import asz, summary

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "claude-code" / "projects"
DE3 = ("-home-user-claude-reliability", "de3b8b19-5bc0-4a2a-934a-1b6806567e25")
C5 = ("-home-user-sample-project", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7")


def _source(project: str, sid: str) -> Path:
    p = CORPUS / project / f"{sid}.jsonl"
    if not p.is_file():
        pytest.skip(f"the corpus is absent ({p})")
    return p


def calls(lines: list[bytes]) -> dict[tuple, int]:
    """(message.id, requestId) -> tokens (input + output + cache write + cache read) of the last line seen."""
    out = {}
    for ln in lines:
        try:
            d = json.loads(ln)
        except ValueError:
            continue
        m = d.get("message") if isinstance(d, dict) else None
        if d.get("type") == "assistant" and isinstance(m, dict) and isinstance(m.get("usage"), dict):
            u = m["usage"]
            out[(m.get("id"), d.get("requestId"))] = sum(int(u.get(k) or 0) for k in (
                "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    return out


def _collect(src: Path, root: Path, tmp: Path) -> None:
    p = asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp, child=True)
    assert p.returncode == 0, p.stdout + p.stderr


def _push(root: Path, r: Receiver, tmp: Path, *extra: str):
    return asz("push", "--root", str(root), "--endpoint", f"grpc://{r.address}", *extra, cwd=tmp)


def _usage_total(root: Path, tmp: Path) -> tuple[int, int]:
    """(calls, tokens) of ``asz usage --json`` over the whole root."""
    p = asz("usage", "--root", str(root), "--json", "--since", "2000-01-01", cwd=tmp)
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    if not rows:
        return 0, 0
    tot = rows[-1]["total"]  # every row carries the whole window's total
    return int(tot["calls"]), sum(int(v) for v in tot["usage"].values())


@pytest.fixture
def receiver(tmp_path):
    r = Receiver(tmp_path / "team", "127.0.0.1:0").start().serve_in_thread()
    yield r
    r.stop()


def _rounds(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "_conversations").rglob("*.sf"))}


def test_parse_of_one_session_writes_only_its_rounds_on_a_receiving_root(receiver, tmp_path):
    """F4: three hosts push de3b8b19, a copy of it under another id (the same record uuids, as a copied or resumed
    session has) and the first 20 lines of 5c0375b4. ``asz parse 5c0375b4`` on the team root wrote the copy's round
    too, and host 2's next round was refused (one round per number). Now it writes only 5c0375b4's, and both hosts'
    next pushes land."""
    de3, c5 = _source(*DE3), _source(*C5)
    copy_id = "d03b8b19" + DE3[1][8:]
    srcs = {h: tmp_path / h / "-p" for h in ("h1", "h2", "h3")}
    for s in srcs.values():
        s.mkdir(parents=True)
    shutil.copy(de3, srcs["h1"] / de3.name)
    (srcs["h2"] / f"{copy_id}.jsonl").write_bytes(de3.read_bytes().replace(DE3[1][:13].encode(), copy_id[:13].encode()))
    c5_lines = c5.read_bytes().splitlines(keepends=True)
    (srcs["h3"] / c5.name).write_bytes(b"".join(c5_lines[:20]))
    for h, s in srcs.items():
        _collect(s.parent, tmp_path / f"{h}.data", tmp_path)
        p = _push(tmp_path / f"{h}.data", receiver, tmp_path)
        assert p.returncode == 0, p.stderr
    team = receiver.root
    before = _rounds(team)
    assert {k.split("/")[1] for k in before} == {DE3[1], copy_id, C5[1]}
    p = asz("parse", C5[1][:8], "--root", str(team), "--jobs", "1", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    rows = [ln.split()[0] for ln in p.stdout.splitlines()[1:]]
    assert rows == [C5[1]], p.stdout  # one row: the session named
    after = _rounds(team)
    assert {k: v for k, v in after.items() if f"/{C5[1]}/" not in k} == {k: v for k, v in before.items() if f"/{C5[1]}/" not in k}
    # host 3's session goes on: its next round lands (its chain was the team's); host 2's too
    (srcs["h3"] / c5.name).write_bytes(c5.read_bytes())
    _collect(srcs["h3"].parent, tmp_path / "h3.data", tmp_path)
    p3 = _push(tmp_path / "h3.data", receiver, tmp_path)
    last = json.loads(de3.read_bytes().splitlines()[-1])
    more = {"type": "user", "uuid": "h2-more", "parentUuid": last.get("uuid"), "sessionId": copy_id,
            "timestamp": "2026-01-22T00:05:00.000Z", "cwd": "/tmp/x", "message": {"role": "user", "content": "one more on host 2"}}
    with open(srcs["h2"] / f"{copy_id}.jsonl", "a") as f:
        f.write(json.dumps(more) + "\n")
    _collect(srcs["h2"].parent, tmp_path / "h2.data", tmp_path)
    p2 = _push(tmp_path / "h2.data", receiver, tmp_path)
    assert p3.returncode == 0 and p2.returncode == 0, p3.stderr + p2.stderr
    assert summary(p2.stdout.strip().splitlines()[-1])["errors"] == "0"
    # every host's rounds are the team's, byte for byte
    for h in ("h1", "h2", "h3"):
        mine = _rounds(tmp_path / f"{h}.data")
        assert mine and all(after_bytes == _rounds(team).get(k) for k, after_bytes in mine.items()), h
    # and the team counts what the sources hold
    want = calls(de3.read_bytes().splitlines()) | {}
    n_de3 = len(calls(de3.read_bytes().splitlines()))
    n_c5, t_c5 = len(calls(c5_lines)), sum(calls(c5_lines).values())
    assert _usage_total(team, tmp_path) == (2 * n_de3 + n_c5, 2 * sum(want.values()) + t_c5)
