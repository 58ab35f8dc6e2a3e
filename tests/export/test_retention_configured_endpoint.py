"""Retention counts only the configured endpoint's acceptance (trial 41a F2, F7; docs/push.md, Retention).

On host B of trial 41a one ``asz push --endpoint`` to a test receiver made ``asz prune`` remove a session the
configured endpoint (``export.otlp.endpoint``, the team receiver) never got: retention read ``push.state``, the state
of the endpoint pushed to last. Every later push to the team receiver then failed for it, for good. Now the state of
the configured endpoint decides, wherever the root keeps it, and with no endpoint configured nothing goes. After a
prune, a push to a receiver that is not reached is one line, and a push to one that never got the removed sessions
says them in one line, not a line each.

Real processes: ``asz collect --once`` of two corpus transcripts (two sessions), two ``asz receive`` on loopback,
``asz push`` and ``asz prune`` as a user runs them."""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path

import pytest

from export_helpers import ASZ, asz, collect_corpus, copied_projects, free_port, sent_files, summary

PROJECTS = ("-home-user-claude-reliability", "-Users-alex-workspace-personal-site-next")


def _receive(team: Path, port: int, cwd: Path) -> subprocess.Popen:
    rcv = subprocess.Popen([*ASZ, "receive", "--no-token", "--root", str(team), "--listen", f"127.0.0.1:{port}"],
                           cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert rcv.stderr.readline().startswith("receiving:")
    return rcv


def _said(p: subprocess.CompletedProcess, start: str) -> list[str]:
    return [ln for ln in p.stderr.splitlines() if ln.startswith(start)]


@pytest.mark.slow  # ~30 s under load: a collect, six pushes, three prunes, two receivers
def test_only_the_configured_endpoint_makes_a_session_removable(corpus_dir, tmp_path):
    src = copied_projects(corpus_dir, tmp_path / "src", PROJECTS)
    sessions = sorted(p.stem for p in src.rglob("*.jsonl"))
    root = tmp_path / "data"
    collect_corpus(src, root, tmp_path)
    landed = sorted(rel for rel in sent_files(root) if rel.endswith(".sd"))
    assert len(sessions) == 2 and {rel.split("/")[0] for rel in landed} == set(sessions)
    pa, pb = free_port(), free_port()
    team, test = f"grpc://127.0.0.1:{pa}", f"grpc://127.0.0.1:{pb}"
    push_only, ret, none = tmp_path / "push.yaml", tmp_path / "asz.yaml", tmp_path / "none.yaml"
    push_only.write_text(f"export: {{otlp: {{endpoint: '{team}', instance_id: dev@hostB}}}}\n")
    ret.write_text(f"export: {{otlp: {{endpoint: '{team}', instance_id: dev@hostB}}}}\n"
                   "storage: {retention: {after: 30d}}\n")  # the corpus sessions are months old
    none.write_text("storage: {retention: {after: 30d}}\n")
    ra, rb = _receive(tmp_path / "team", pa, tmp_path), _receive(tmp_path / "test", pb, tmp_path)
    try:
        # a push to the test receiver, retention configured: the prune after it removes nothing (the team has none)
        p = asz("push", "--root", str(root), "--config", str(ret), "--endpoint", test, cwd=tmp_path)
        assert p.returncode == 0, p.stdout + p.stderr
        assert sent_files(tmp_path / "test") == sent_files(root)
        assert p.stdout.splitlines()[-1] == "prune: sessions=0 files=0 bytes=0 kept=2 errors=0", p.stdout
        dry = asz("prune", "--root", str(root), "--config", str(ret), "--dry-run", cwd=tmp_path)
        assert [ln.split(":")[0] for ln in dry.stdout.splitlines() if ln.startswith("kept ")] == [f"kept {s}" for s in sessions]
        assert dry.stdout.count(f"nothing of this root was pushed to {team} (export.otlp.endpoint)") == 2, dry.stdout
        # no endpoint configured: nothing goes, and one note says why
        p = asz("prune", "--root", str(root), "--config", str(none), cwd=tmp_path)
        assert p.returncode == 0 and p.stdout.splitlines()[-1].startswith("prune: sessions=0 files=0"), p.stdout
        assert _said(p, "asz prune: note: ") == [
            "asz prune: note: none of 2 session(s) old enough went: export.otlp.endpoint is not set: with "
            "storage.retention.require_accepted (the default) retention removes only sessions the configured endpoint "
            "accepted, and a push to another one (asz push --endpoint) does not count; set it to the team receiver "
            "(docs/push.md, Retention)"], p.stderr
        assert not list(root.rglob("*.sk"))
        # the team receiver gets them; then the test receiver again, so push.state is the test receiver's
        assert asz("push", "--root", str(root), "--config", str(push_only), cwd=tmp_path).returncode == 0
        assert sent_files(tmp_path / "team") == sent_files(root)
        p = asz("push", "--root", str(root), "--config", str(push_only), "--endpoint", test, cwd=tmp_path)
        assert p.returncode == 0 and summary(p.stdout.splitlines()[-1])["files"] == "0", p.stdout + p.stderr
        assert (root / "push.state").read_text().splitlines()[2] == f"endpoint {test}"
        # the team accepted every file: prune removes both sessions, the skeletons naming the team as owner
        p = asz("prune", "--root", str(root), "--config", str(ret), cwd=tmp_path)
        assert p.returncode == 0 and p.stdout.splitlines()[-1].startswith("prune: sessions=2 "), p.stdout + p.stderr
        for rel in landed:
            with gzip.open(root / (rel[:-3] + ".sk"), "rb") as f:
                removed = json.loads(f.readline())["removed"]
            assert (removed["receiver"], removed["owner"]) == ("accepted", f"grpc:%2F%2F127.0.0.1:{pa}||dev@hostB")
        # the team receiver: nothing due, nothing wrong
        p = asz("push", "--root", str(root), "--config", str(ret), cwd=tmp_path)
        assert p.returncode == 0 and not _said(p, "error:"), p.stderr
        # F7: a port nothing listens on: one line, exit 1, before anything of the removed sessions
        dead = f"http://127.0.0.1:{free_port()}"
        p = asz("push", "--root", str(root), "--config", str(push_only), "--endpoint", dead, cwd=tmp_path)
        assert p.returncode == 1 and len(_said(p, "error: ")) == 1, p.stderr
        assert _said(p, "error: ")[0].startswith(f"error: push to {dead}: ") and "removed by retention" not in p.stderr
        # the team receiver by another scheme is another endpoint, which never got them: one line for both sessions
        other = f"http://127.0.0.1:{pa}"
        p = asz("push", "--root", str(root), "--config", str(push_only), "--endpoint", other, cwd=tmp_path)
    finally:
        for r in (ra, rb):
            r.terminate()
            r.communicate(timeout=60)
    assert p.returncode == 1, p.stdout + p.stderr
    assert _said(p, "error: ") == [
        f"error: 2 session(s) ({sessions[0][:8]}, {sessions[1][:8]}): their landed files were removed by retention "
        f"before {other} received them ({len(landed)} file(s)); none of their files or rounds is sent (skeletons stay "
        "local; asz push --each-session says a line per session)"], p.stderr
    assert summary(p.stdout.splitlines()[0])["errors"] == "2"
