"""A source read again from its start on the pushing host lands on the receiver as its new reading (trial 34b F2).

Before: after ``asz sources --reset-conflict S --reread`` the host landed the rewritten transcript again from ord 1,
and the receiver refused its first file for good (``record ord 1 repeats a record from inside …`` or ``… does not
continue its stream``): every later ``asz push`` exited 1, the team root verified clean and its figures lacked the new
turn, silently. Now the pusher sends each file of the new reading with ``asz.reread`` (its cursor's ``reread_seq``), the
receiver keeps it in ``_received/readings.list`` and walks that stream as the host does, and an older receiver (one that
ignores the attribute) refuses as before while the host says why.

Real processes: the corpus project personal-site-next (one session, 46 lines) collected by ``asz collect --once``, a
real ``asz receive`` on loopback, ``asz push``, the trial's rewrite (one usage figure changed in place, a turn
appended), ``asz sources --reset-conflict --reread``. Figures are counted from the rewritten source file
(tests/source_calls.py), never from asz's output.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import forked
from source_calls import source_calls

from export_helpers import ASZ, asz, free_port, sent_files, summary

PROJECT = "-Users-alex-workspace-personal-site-next"
SESSION = "b25638d7-b104-4f06-a797-70ac33d069ed"
NEW_ID = "msg_01NewTurnAfterTheRewrite0001"


def _env(tmp: Path) -> dict:
    return {"CLAUDE_CONFIG_DIR": str(tmp / "home")}


def _collect(src: Path, host: Path, tmp: Path) -> subprocess.CompletedProcess:
    return asz("collect", "--once", "--source", str(src), "--root", str(host), cwd=tmp, env=_env(tmp), child=True)


@pytest.fixture
def pushed(corpus_dir, tmp_path) -> tuple[Path, Path, Path, str]:
    """``(src, host, team, endpoint)``: the project collected and pushed to a real ``asz receive`` (stopped again)."""
    d = corpus_dir / "claude-code" / "projects" / PROJECT
    if not d.is_dir():
        pytest.skip(f"{d} is absent")
    src = tmp_path / "src"
    shutil.copytree(d, src / PROJECT)
    host, team = tmp_path / "host", tmp_path / "team"
    c = _collect(src, host, tmp_path)
    assert c.returncode == 0, c.stdout + c.stderr
    with _Receiving(team) as rcv:
        p = asz("push", "--root", str(host), "--endpoint", rcv.endpoint, cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    return src, host, team, rcv.endpoint


class _Receiving:
    """A real ``asz receive`` child on loopback into ``team`` (its log: :attr:`said` once stopped), on ``endpoint``
    (``http://127.0.0.1:PORT``; a free port when '')."""

    def __init__(self, team: Path, endpoint: str = ""):
        self.endpoint = endpoint or f"http://127.0.0.1:{free_port()}"
        self.log = team.parent / "receive.log"
        self.err = self.log.open("a")
        start = self.log.stat().st_size  # a receiver started before on this team said "receiving:" above this
        self.proc = forked.Popen([*ASZ, "receive", "--no-token", "--root", str(team), "--listen", self.endpoint[len("http://"):]],
                                 stdout=subprocess.DEVNULL, stderr=self.err, cwd=team.parent)
        deadline = time.monotonic() + 60
        while b"receiving:" not in self.log.read_bytes()[start:]:
            assert self.proc.poll() is None and time.monotonic() < deadline, self.log.read_text()
            time.sleep(0.05)

    def __enter__(self) -> "_Receiving":
        return self

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=60)
        self.err.close()
        self.said = self.log.read_text()


def _rewrite_and_reread(src: Path, host: Path, tmp: Path) -> Path:
    """The trial's rewrite: a usage figure changed in place (``output_tokens`` 406 → 906, the same length) and a turn
    appended; the pass finds the conflict, ``--reread`` resets it, the next pass lands the new reading. Returns the
    transcript."""
    transcript = src / PROJECT / f"{SESSION}.jsonl"
    transcript.chmod(0o644)
    lines = transcript.read_bytes().splitlines()
    assert sum(b'"output_tokens":406' in ln for ln in lines) == 1
    last = json.loads(lines[-1])
    last["uuid"], last["parentUuid"], last["message"]["id"] = "0e0e0e0e-1111-4222-8333-444444444444", last["uuid"], NEW_ID
    transcript.write_bytes(b"\n".join(ln.replace(b'"output_tokens":406', b'"output_tokens":906') for ln in lines)
                           + b"\n" + json.dumps(last, separators=(",", ":")).encode() + b"\n")
    c = _collect(src, host, tmp)
    assert "conflict" in c.stdout + c.stderr, c.stdout + c.stderr
    r = asz("sources", "--reset-conflict", SESSION, "--reread", "--source", str(src), "--root", str(host), cwd=tmp,
            env=_env(tmp))
    assert r.returncode == 0 and "read again from its start" in r.stdout, r.stdout + r.stderr
    c = _collect(src, host, tmp)
    assert c.returncode == 0, c.stdout + c.stderr
    assert asz("verify", "--root", str(host), cwd=tmp).returncode == 0
    return transcript


def _usage(root: Path, tmp: Path) -> tuple[int, int]:
    t = json.loads(asz("usage", "--root", str(root), "--json", cwd=tmp).stdout)[-1]["total"]
    return t["calls"], sum(t["usage"].values())


def test_a_source_read_again_on_the_host_lands_on_the_receiver_as_its_new_reading(pushed, tmp_path):
    src, host, team, endpoint = pushed
    transcript = _rewrite_and_reread(src, host, tmp_path)
    first = {rel for rel in sent_files(team) if rel.endswith(".sd")}
    reading = sorted(rel for rel in sent_files(host) if rel.endswith(".sd") and rel not in first)
    assert len(first) == 1 and len(reading) == 1 and reading[0].endswith("-000002.sd")
    with _Receiving(team, endpoint) as rcv:  # the same endpoint: its push.state says what it took
        p = asz("push", "--root", str(host), "--endpoint", rcv.endpoint, cwd=tmp_path)
        again = asz("push", "--root", str(host), "--endpoint", rcv.endpoint, cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr  # before: exit 1, "record ord 1 repeats a record from inside …"
    s = summary(p.stdout.strip().splitlines()[-1])
    assert (s["files"], s["rejected"], s["errors"]) == ("2", "0", "0"), p.stdout + p.stderr  # the reading and its round
    assert again.returncode == 0 and summary(again.stdout.strip().splitlines()[-1])["files"] == "0", again.stderr
    assert "rejected" not in rcv.said.replace(" 0 rejected", ""), rcv.said
    assert sent_files(team) == sent_files(host)  # both readings and every round, byte for byte
    listed = [json.loads(ln) for ln in (team / "_received" / "readings.list").read_text().splitlines()]
    assert [(d["session"], d["dir"], d["kind"], d["reread_seq"], d["file"]) for d in listed] == \
        [(SESSION, "streams/main", "transcript", 2, reading[0])]
    v = asz("verify", "--root", str(team), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr
    calls, _ = source_calls(transcript.parent)  # the rewritten source: 406 → 906, and the appended call
    want = (len(calls), sum(c["tokens"] for c in calls))
    assert _usage(team, tmp_path) == want == _usage(host, tmp_path)


def test_an_older_receiver_refuses_the_new_reading_and_the_host_says_why(pushed, tmp_path, monkeypatch):
    """A receiver that ignores ``asz.reread`` (an asz before the attribute: here the running receiver's attribute name
    changed, so it never reads it) refuses the reading's first file as before; the pass exits 1 and says that the file
    holds its source's new reading, which this receiver does not take, and what to do; the team root keeps the first
    reading and verifies clean."""
    from asz_core.export import receive
    from asz_core.export.receive import Receiver

    src, host, team, _ = pushed
    _rewrite_and_reread(src, host, tmp_path)
    monkeypatch.setattr(receive, "REREAD", "asz.reread.not-known-here")
    rcv = Receiver(team, "127.0.0.1:0", err=io.StringIO()).start().serve_in_thread()
    try:
        p = asz("push", "--root", str(host), "--endpoint", f"http://{rcv.address}", cwd=tmp_path)
    finally:
        rcv.stop()
    assert p.returncode == 1, p.stdout + p.stderr
    assert "record ord 23 at off 32321 does not continue its stream" in p.stderr, p.stderr  # the changed line's
    assert ("this file holds its source's new reading, read again from its start from seq 2 (asz sources "
            "--reset-conflict --reread), and said so (asz.reread); this receiver does not take a new reading") in p.stderr
    assert "asz push --retry-rejected" in p.stderr
    assert not (team / "_received" / "readings.list").exists()
    v = asz("verify", "--root", str(team), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr
