"""``asz erase`` in a receiving root (docs/push.md, Erasure in a receiving root; trial 29a F5).

The pair of test_push_continued: carol's host holds the corpus's 5c0375b4, bob's a resumed copy of it under another
id; both push to one real ``asz receive`` on loopback, which lists the pair in ``_received/twice.list`` and counts the
repeated calls once, in 5c0375b4. Erasing either session there drops every line naming it from the receiver's lists
and its sender record, and the calls left are counted once: the other host's figures, counted straight from its
source file. A host that pushes the erased session again is refused, and nothing of it lands.
"""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from export_helpers import asz
from test_push_continued import COPY, SESSION, _hosts, _push, _Receiving, _source_figures, _sources

REASON = "request 2026-115"


def _figures(team: Path) -> tuple[int, dict, Decimal]:
    got = json.loads(asz("usage", "--root", str(team), "--json", "--total-once").stdout)["total"]
    return got["calls"], got["usage"], Decimal(got["cost"]["usd_exact"])


def _named(team: Path, sid: str) -> list[str]:
    return sorted(p.relative_to(team).as_posix() for p in team.rglob("*") if p.is_file() and sid.encode() in p.read_bytes())


@pytest.mark.slow
def test_erasing_either_session_of_a_counted_once_pair_counts_the_rest_once(corpus_dir, tmp_path):
    carol, bob, _ = _hosts(corpus_dir, tmp_path)
    carol_src, bob_src = _sources(tmp_path)
    team = tmp_path / "team"
    rcv = _Receiving(team)
    try:
        _push(carol, rcv.address)
        _push(bob, rcv.address)
    finally:
        rcv.stop()
    assert [(d["session"], d["continues"]) for d in map(json.loads, (team / "_received" / "twice.list").read_text().splitlines())] \
        == [(COPY, SESSION)]
    assert (team / "_received" / f"{SESSION}.senders").is_file()
    for erased, left_src in ((SESSION, bob_src), (COPY, carol_src)):
        root = tmp_path / f"team-{erased[:4]}"
        shutil.copytree(team, root, symlinks=True)
        p = asz("erase", erased, "--root", str(root), "--reason", REASON)
        assert p.returncode == 0, p.stderr
        assert (root / "_received" / "twice.list").read_text() == ""  # the pair's one line went
        assert not (root / "_received" / f"{erased}.senders").exists()
        assert _named(root, erased) == ["_erased.list", "_sessions.list"]
        calls, tokens, usd = _source_figures(left_src)  # the other host's calls, each once, repeated ones included
        assert _figures(root) == (calls, tokens, usd)
        v = asz("verify", "--root", str(root))
        assert v.returncode == 0 and f"session {erased}" in v.stdout and "erased on " in v.stdout, v.stdout + v.stderr
        assert "counted once here" not in v.stdout and "counted twice" not in v.stdout
    # the erased session arrives again from a host that still holds it: refused, nothing lands
    root = tmp_path / f"team-{SESSION[:4]}"
    carol2 = tmp_path / "carol2"
    assert asz("collect", "--once", "--source", str(tmp_path / "carol-src"), "--root", str(carol2), cwd=tmp_path).returncode == 0
    rcv = _Receiving(root, 1)
    try:
        cfg = tmp_path / "carol2.yaml"
        cfg.write_text("export:\n  otlp:\n    instance_id: carol@host\n")
        push = asz("push", "--root", str(carol2), "--config", str(cfg), "--endpoint", f"http://{rcv.address}", cwd=tmp_path)
    finally:
        log = rcv.stop()
    assert push.returncode == 1, push.stdout + push.stderr
    assert f"session {SESSION} was erased on " in log and "it is not landed again" in log, log
    assert not (root / SESSION).exists() and not (root / "_conversations" / SESSION).exists()
    assert _named(root, SESSION) == ["_erased.list", "_sessions.list"]
    assert _figures(root) == _source_figures(bob_src)
    assert asz("verify", "--root", str(root)).returncode == 0
