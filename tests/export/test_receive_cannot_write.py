"""A receiver that cannot write a file (disk full, a file size limit) refuses it as retryable, with the rounds reading
it, and the host sends it again (trial 34b F1; docs/push.md, ``asz receive``, "A file the receiving root cannot write").

Before, the receiver answered ``rejected PATH: cannot write: File too large`` and still landed the round reading that
file in the same request; the team root failed ``asz verify`` for good (``a landed file this round consumed is no longer
on disk``), and the host wrote a ``rejected`` line and never sent the file again.

Real processes: the corpus project claude-code-log-sample collected by ``asz collect --once``, a real ``asz receive``
on loopback whose file size is limited (``RLIMIT_FSIZE`` in the receiver's process: Python ignores SIGXFSZ, so a write
past it fails with EFBIG, the path ENOSPC takes) between the root's largest landed file and the next, then restarted
without the limit. The expected files are the host root's own."""

from __future__ import annotations

import errno
import json
import os
import resource
import shutil
import subprocess
from pathlib import Path

import pytest

from asz_core.export.admit import RETRY, RETRY_RECORD

from export_helpers import ASZ, asz, collect_corpus, free_port, sent_files, summary
from tmpfs import mount_tmpfs

PROJECT = "-Users-alex-workspace-claude-code-log-sample"


@pytest.fixture(scope="module")
def collected(corpus_dir, tmp_path_factory) -> Path:
    """The project collected once (3 sessions, 3 rounds); each test copies it."""
    d = corpus_dir / "claude-code" / "projects" / PROJECT
    if not d.is_dir():
        pytest.skip(f"{d} is absent")
    base = tmp_path_factory.mktemp("cannot_write")
    (base / "src").mkdir()
    shutil.copytree(d, base / "src" / PROJECT)
    collect_corpus(base / "src", base / "data", base)
    return base / "data"


class _Receiver:
    """``asz receive`` in a child process on a free loopback port, its file size limited to ``limit`` bytes (None:
    none; ``port``: that one); stopped by SIGTERM, its stderr kept in :attr:`said`."""

    def __init__(self, team: Path, limit: int | None = None, port: int | None = None):
        self.port = port or free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        pre = (lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))) if limit else None
        self.proc = subprocess.Popen([*ASZ, "receive", "--no-token", "--root", str(team), "--listen", f"127.0.0.1:{self.port}"],
                                     cwd=team.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     preexec_fn=pre)
        assert self.proc.stderr.readline().startswith("receiving:")
        self.said = ""

    def stop(self) -> None:
        self.proc.terminate()
        self.said = self.proc.communicate(timeout=60)[1]

    def push(self, host: Path) -> subprocess.CompletedProcess:
        """``asz push`` of ``host`` to this receiver, which is then stopped."""
        try:
            return asz("push", "--root", str(host), "--endpoint", self.endpoint, cwd=host.parent)
        finally:
            self.stop()


def _sizes(root: Path) -> dict[str, int]:
    return {p.relative_to(root).as_posix(): p.stat().st_size for p in root.rglob("*.sd") if "/streams/" in p.as_posix()}


def test_a_file_the_receiver_cannot_write_is_sent_again_and_its_rounds_wait(collected, tmp_path):
    host = tmp_path / "data"
    shutil.copytree(collected, host)
    sizes = sorted(_sizes(host).items(), key=lambda kv: kv[1])
    big, second = sizes[-1], sizes[-2]
    assert big[1] > 2 * second[1] > 0, sizes  # 0d3a8e6f's 1.2 MB transcript, the others at most 0.45 MB
    session = big[0].split("/", 1)[0]
    team = tmp_path / "team"
    rcv = _Receiver(team, limit=(big[1] + second[1]) // 2)
    first = rcv.push(host)
    assert first.returncode == 1, first.stdout + first.stderr
    got = summary(first.stdout.strip().splitlines()[-1])
    assert (got["rejected"], got["errors"]) == ("0", "1"), first.stdout  # not a rejection: an error, due again
    rounds = [rel for rel in sent_files(host) if rel.startswith(f"_conversations/{session}/")]
    assert len(rounds) == 1
    told = [ln for ln in first.stderr.splitlines() if ln.startswith(f"error: {session}: 2 file(s) not stored by ")]
    assert told and "File too large" in told[0] and "they stay due and go again on the next push" in told[0], first.stderr
    assert f"rejected {big[0]}: cannot write: File too large ({RETRY}" in rcv.said, rcv.said
    assert f"rejected {rounds[0]}: it reads seq 1 of its session" in rcv.said, rcv.said
    state = (host / "push.state").read_text()
    assert " rejected" not in state and "\nrejected " not in state and session not in state, state  # nothing recorded
    # the team root holds the two other sessions whole, and no round of the file it could not write: it verifies
    others = {rel: sha for rel, sha in sent_files(host).items() if session not in rel}
    assert sent_files(team) == others
    v = asz("verify", "--root", str(team), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr

    second_push = _Receiver(team, port=rcv.port).push(host)  # room again, at the same endpoint
    assert second_push.returncode == 0, second_push.stdout + second_push.stderr
    got = summary(second_push.stdout.strip().splitlines()[-1])
    assert (got["files"], got["rejected"], got["errors"]) == ("2", "0", "0"), second_push.stdout
    assert sent_files(team) == sent_files(host)  # every file and round, byte for byte
    v = asz("verify", "--root", str(team), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr


def test_a_root_damaged_so_before_is_repaired_by_retry_rejected(collected, tmp_path):
    """The state an older receiver left (trial 34b F1): the team root holds the round and not the file it reads, the
    host's push.state a ``rejected`` line for the file. verify on the team root names the way back, and ``asz push
    --retry-rejected`` on the host sends the file again: the team root then verifies clean."""
    host = tmp_path / "data"
    shutil.copytree(collected, host)
    team = tmp_path / "team"
    rcv = _Receiver(team)
    try:
        assert asz("push", "--root", str(host), "--endpoint", rcv.endpoint, cwd=tmp_path).returncode == 0
        big = max(_sizes(host).items(), key=lambda kv: kv[1])[0]
        lost = team / big  # what the older receiver never wrote, its round landed
        lost.parent.chmod(0o755)
        lost.unlink()
        state = host / "push.state"
        state.write_text(state.read_text() + f"rejected {big}\n")
        v = asz("verify", "--root", str(team), cwd=tmp_path)
        assert v.returncode == 1
        out = v.stdout + v.stderr
        assert "a landed file this round consumed is no longer on disk" in out and "--reland" not in out, out
        assert "asz push --retry-rejected" in out, out
        again = asz("push", "--root", str(host), "--endpoint", rcv.endpoint, cwd=tmp_path)
        assert again.returncode == 1 and "asz push --retry-rejected sends them again" in again.stderr, again.stderr
        fixed = asz("push", "--root", str(host), "--endpoint", rcv.endpoint, "--retry-rejected", cwd=tmp_path)
    finally:
        rcv.stop()
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "note: --retry-rejected: 1 file(s)" in fixed.stderr, fixed.stderr
    assert summary(fixed.stdout.strip().splitlines()[-1])["files"] == "1", fixed.stdout
    assert f"rejected {big}" not in (host / "push.state").read_text()
    assert sent_files(team) == sent_files(host)
    v = asz("verify", "--root", str(team), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr


def test_a_file_whose_sender_line_cannot_be_written_is_not_acknowledged(collected, tmp_path):
    """A file lands but its sender line cannot be written (here a folder stands where its session's sender record goes:
    EISDIR, a real failure on every machine; on the team root of trial 41a, ENOSPC). Before: the receiver said
    ``cannot record who sent 1 file(s)`` and answered success, the host marked the file pushed, and the team root failed
    ``asz verify`` for good (``1 of session …'s 1 landed file(s) have no line in its sender record``). Now it is
    refused as retryable, stays due, and the next push, the file then already there, writes its line."""
    host = tmp_path / "data"
    shutil.copytree(collected, host)
    big = max(_sizes(host).items(), key=lambda kv: kv[1])[0]
    session = big.split("/", 1)[0]
    team = tmp_path / "team"
    (team / "_received" / f"{session}.senders").mkdir(parents=True)
    rcv = _Receiver(team)
    first = rcv.push(host)
    assert first.returncode == 1, first.stdout + first.stderr
    got = summary(first.stdout.strip().splitlines()[-1])
    assert (got["rejected"], got["errors"]) == ("0", "1"), first.stdout
    assert f"rejected {big}: its sender line could not be written: Is a directory ({RETRY_RECORD}" in rcv.said, rcv.said
    told = [ln for ln in first.stderr.splitlines() if ln.startswith(f"error: {session}: 1 file(s) not stored by ")]
    assert told and "which could not record them" in told[0] and big in told[0], first.stderr
    assert big not in (host / "push.state").read_text()  # not acknowledged: due again
    assert (team / big).is_file()  # landed: its rounds, taken in the same request, read it

    (team / "_received" / f"{session}.senders").rmdir()
    again = _Receiver(team, port=rcv.port)
    second = again.push(host)
    assert second.returncode == 0, second.stdout + second.stderr
    assert summary(second.stdout.strip().splitlines()[-1])["files"] == "1", second.stdout
    assert "1 already there" in again.said, again.said
    assert sent_files(team) == sent_files(host)
    record = [json.loads(ln) for ln in (team / "_received" / f"{session}.senders").read_text().splitlines()]
    landed = sorted(p.relative_to(team).as_posix() for p in (team / session).rglob("*.sd"))
    assert sorted(e["file"] for e in record) == landed and len(landed) == 1
    v = asz("verify", "--root", str(team), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr


def test_a_full_receiving_root_stops_the_pass_and_verifies_once_it_has_room(collected, tmp_path):
    """A receiving root on a real 1 MiB tmpfs, the host's largest file 1.2 MB, first in push order, requests of
    100 kB: ENOSPC. Before (trial 41a F1): the pass sent every request (65.2 MB of wire for 7.1 MB taken). Now the
    first refusal for a full root ends the pass, said once; once the tmpfs has room the next push lands the rest and the
    team root verifies."""
    host = tmp_path / "data"
    shutil.copytree(collected, host)
    first_rel = sorted(_sizes(host))[0]
    assert _sizes(host)[first_rel] > 1024 * 1024, _sizes(host)
    cfg = tmp_path / "asz.yaml"
    cfg.write_text("export:\n  otlp:\n    batch_bytes: 100000\n")
    small = tmp_path / "small"
    mount_tmpfs(small, "1m")
    try:
        rcv = _Receiver(small / "team")
        try:
            first = asz("push", "--root", str(host), "--config", str(cfg), "--endpoint", rcv.endpoint, cwd=tmp_path)
        finally:
            rcv.stop()
        assert first.returncode == 1, first.stdout + first.stderr
        stops = [ln for ln in first.stderr.splitlines() if "nothing more is sent this pass" in ln]
        assert len(stops) == 1 and os.strerror(errno.ENOSPC) in stops[0], first.stderr
        requests = [ln for ln in rcv.said.splitlines() if "] logs: " in ln and " file(s): " in ln]
        assert len(requests) == 1 and "0 landed" in requests[0], rcv.said  # the first request, then nothing more
        assert f"rejected {first_rel}: cannot write: {os.strerror(errno.ENOSPC)}" in rcv.said, rcv.said
        assert first_rel not in (host / "push.state").read_text()

        r = subprocess.run(["mount", "-o", "remount,size=64m", str(small)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        second = _Receiver(small / "team", port=rcv.port)
        try:
            done = asz("push", "--root", str(host), "--config", str(cfg), "--endpoint", second.endpoint, cwd=tmp_path)
        finally:
            second.stop()
        assert done.returncode == 0, done.stdout + done.stderr
        assert sent_files(small / "team") == sent_files(host)
        v = asz("verify", "--root", str(small / "team"), cwd=tmp_path)
        assert v.returncode == 0, v.stdout + v.stderr
    finally:
        subprocess.run(["umount", "-l", str(small)], capture_output=True)
