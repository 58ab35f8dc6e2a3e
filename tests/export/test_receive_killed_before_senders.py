"""A receiver killed after landing a request's files and before writing their sender lines (trial 45c F1): the team
root's readers said "the record was removed; who sent them cannot be told" (asz verify, exit 1) and ``(not received)``
(asz ls), though nothing was removed. Each request now writes, before its first file lands, the sender line each file
is to get into its journal (``_received/.landing.<pid>.<n>``, fsynced); readers say those files are landed with their
line not yet written, and the next ``asz receive`` writes the lines (docs/push.md, Who sent what).

Real processes: the corpus project claude-code-log-sample collected by ``asz collect --once``; a real ``asz receive``
(token file of named credentials) in a child whose ``record_senders`` sends it SIGKILL as the first request's files
have landed, the point between the two writes; a real ``asz push``; then asz verify, asz ls and asz conversation;
then a second real receiver and a push, and the sender lines are counted against the host root's own files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from asz_core.storage.senders import UNWRITTEN, UNWRITTEN_SENDER

from cli_helpers import write_secret
from export_helpers import ASZ, asz, collect_corpus, free_port, sent_paths

PROJECT = "-Users-alex-workspace-claude-code-log-sample"

#: ``asz receive ARGS`` whose sender lines are never written: the process kills itself (SIGKILL) at the first
#: request's record_senders, its files landed and fsynced.
_KILLED_AT_SENDERS = """
import os, runpy, signal, sys
import asz_core.export.receive as receive

def killed(root, sent_by, err, unless_named=False):
    if sent_by and not unless_named:
        os.kill(os.getpid(), signal.SIGKILL)
    return {}

receive.record_senders = killed
sys.argv = ["asz", *sys.argv[1:]]
runpy.run_module("asz_core.cli.main", run_name="__main__")
"""


def _receiver(team: Path, tokens: Path, port: int, killed: bool) -> tuple[subprocess.Popen, str]:
    """The receiver started, and what it said before its ``receiving:`` line."""
    args = ["receive", "--token-file", str(tokens), "--root", str(team), "--listen", f"127.0.0.1:{port}"]
    cmd = [sys.executable, "-c", _KILLED_AT_SENDERS, *args] if killed else [*ASZ, *args]
    proc = subprocess.Popen(cmd, cwd=team.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    before = ""
    while not (line := proc.stderr.readline()).startswith("receiving:"):
        assert line, before
        before += line
    return proc, before


def test_a_receiver_killed_between_a_file_and_its_sender_line_is_said_so_and_its_next_start_writes_it(corpus_dir, tmp_path):
    d = corpus_dir / "claude-code" / "projects" / PROJECT
    if not d.is_dir():
        pytest.skip(f"{d} is absent")
    (tmp_path / "src").mkdir()
    shutil.copytree(d, tmp_path / "src" / PROJECT)
    host, team = tmp_path / "host", tmp_path / "team"
    collect_corpus(tmp_path / "src", host, tmp_path)
    here = tmp_path / "hostA"  # where the host pushes from: its asz.yaml names its instance
    here.mkdir()
    (here / "asz.yaml").write_text("export:\n  otlp:\n    instance_id: alice@hostA\n")
    landed = [r for r in sent_paths(host) if r.endswith(".sd")]  # the host's own landed files, by name
    tokens = write_secret(tmp_path / "tokens", "alice s3cret-alice\n")
    token = write_secret(tmp_path / "alice.token", "s3cret-alice\n")

    port = free_port()
    rcv, _ = _receiver(team, tokens, port, killed=True)
    p = asz("push", "--root", str(host), "--endpoint", f"http://127.0.0.1:{port}", "--token-file", str(token), cwd=here)
    rcv.wait(timeout=120)
    assert rcv.returncode == -9 and p.returncode == 1, (rcv.returncode, p.stdout + p.stderr)
    got = [r for r in sent_paths(team) if r.endswith(".sd")]
    assert got and set(got) <= set(landed), got  # the first request's files landed, whole, with no line
    assert not list((team / "_received").glob("*.senders"))

    v = asz("verify", "--root", str(team), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr  # nothing is wrong with the evidence: the lines are still to come
    assert "removed" not in v.stdout and "cannot be told" not in v.stdout, v.stdout
    said = [ln for ln in v.stdout.splitlines() if "sender line not yet written" in ln]
    assert sum(int(ln.split("after landing ")[1].split(" ")[0]) for ln in said) == len(got), v.stdout
    assert all("_received/.landing." in ln and "next start" in ln for ln in said), said

    ls = asz("ls", "--root", str(team), "--json", cwd=tmp_path)
    rows = json.loads(ls.stdout)
    assert rows, ls.stderr
    unwritten = [s for r in rows for s in r["senders"] if s.get(UNWRITTEN)]
    assert sum(s["files"] for s in unwritten) == sum(1 for g in got if g.split("/", 1)[0] in
                                                     {r["id"] for r in rows}) > 0, rows
    table = asz("ls", "--root", str(team), cwd=tmp_path, env={"COLUMNS": "400"}).stdout
    assert "(not received)" not in table and UNWRITTEN_SENDER in table, table
    c = asz("conversation", rows[0]["id"], "--root", str(team), cwd=tmp_path)
    assert "landed, its sender line not yet written" in c.stdout, c.stdout

    rcv, started = _receiver(team, tokens, port, killed=False)  # its start writes the lines the journal names
    try:
        p = asz("push", "--root", str(host), "--endpoint", f"http://127.0.0.1:{port}", "--token-file", str(token),
                cwd=here)
        assert p.returncode == 0, p.stdout + p.stderr
    finally:
        rcv.terminate()
        out, err = rcv.communicate(timeout=60)
    assert f"after landing {len(got)} file(s) and before writing their sender lines" in started, started
    lines = [json.loads(ln) for f in (team / "_received").glob("*.senders") for ln in f.read_text().splitlines()]
    assert sorted(e["file"] for e in lines) == sorted(landed)  # one line per landed file, none twice
    assert {(e["instance"], e["credential"]) for e in lines} == {("alice@hostA", "alice")}
    v = asz("verify", "--root", str(team), cwd=tmp_path)
    assert v.returncode == 0 and "not yet written" not in v.stdout, v.stdout
    assert f"{len(landed)} from alice@hostA (credential alice)" in v.stdout, v.stdout
