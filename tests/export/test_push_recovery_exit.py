"""A re-imaged host's pass that recovers exits 0 and says nothing was rejected (trial 34b F4; docs/push.md, The rest of
a stream).

The host's root is lost after it pushed, the transcripts collected again into a new root under the same instance id,
one of them one line longer (a person's prompt appended: the receiver lacks that record). The receiver refuses the new
root's files (their seqs are the old root's), the pass makes the rest of the stream, the receiver takes it, and the
refused files go again and are held whole: everything the receiver holds matches. Before, that pass said
``rejected=2`` and ``rejected: …`` and exited 1 (a cron alert on a recovery that worked); and once retention removed
the files the receiver holds from the old root, every later pass said ``the metrics of N session(s) not sent: … rejected
landed files of theirs``, of sessions the receiver held whole.

Real processes: ``asz collect --once`` of two corpus projects, ``asz receive`` on loopback, ``asz push`` with
``storage.retention.after: 1d`` (the corpus sessions are months old: pruned after the push)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from export_helpers import ASZ, asz, collect_corpus, copied_projects, free_port, sent_files, summary

PROJECTS = ("-home-user-claude-reliability", "-Users-alex-workspace-personal-site-next")
GROWN = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"


@pytest.mark.slow  # ~40 s under load: three collects, four pushes
def test_a_reimaged_hosts_recovering_pass_exits_0(corpus_dir, tmp_path):
    src = copied_projects(corpus_dir, tmp_path / "src", PROJECTS)
    cfg = tmp_path / "asz.yaml"
    old, new = tmp_path / "old" / "data", tmp_path / "new" / "data"
    collect_corpus(src, old, tmp_path / "old")
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    cfg.write_text(f"export:\n  otlp:\n    instance_id: dev@hD\n    endpoint: {endpoint}\nstorage:\n  retention:\n    after: 1d\n")
    team = tmp_path / "team"
    rcv = subprocess.Popen([*ASZ, "receive", "--no-token", "--root", str(team), "--listen", f"127.0.0.1:{port}"], cwd=tmp_path,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert rcv.stderr.readline().startswith("receiving:")
        # the old root pushed (no retention on it: its copy is simply lost, as a re-imaged disk)
        assert asz("push", "--root", str(old), "--endpoint", endpoint, cwd=tmp_path).returncode == 0
        f = src / PROJECTS[0] / f"{GROWN}.jsonl"
        lines = f.read_bytes().splitlines(keepends=True)
        more = json.loads(lines[-1])
        more["uuid"], more["parentUuid"] = "00000000-0000-4000-8000-000000000034", more["uuid"]
        f.write_bytes(b"".join(lines) + json.dumps(more).encode() + b"\n")
        collect_corpus(src, new, tmp_path / "new")
        refused = sent_files(new)  # every file and round of the new root: the receiver holds each seq and round there
        first = asz("push", "--root", str(new), "--config", str(cfg), "--endpoint", endpoint, cwd=tmp_path)
        later = asz("push", "--root", str(new), "--config", str(cfg), "--endpoint", endpoint, cwd=tmp_path)
    finally:
        rcv.terminate()
        rcv.communicate(timeout=60)
    said = first.stdout + first.stderr
    assert "made " in first.stderr and f"{GROWN}/streams/main" in first.stderr, said  # the rest of the stream
    assert first.returncode == 0, said
    got = summary([ln for ln in first.stdout.splitlines() if ln.startswith("[") and " files=" in ln][-1])
    assert (got["rejected"], got["errors"]) == ("0", "0"), said
    assert got["held"] == str(len(refused)) == "4", said  # each session's seq 1 and round 1, held there whole now
    assert "rejected:" not in first.stderr and "error:" not in first.stderr, said
    assert f"removed {GROWN}" in first.stdout, said  # retention: every file received (held whole counts)
    assert later.returncode == 0, later.stdout + later.stderr
    assert "metrics of" not in later.stderr and "rejected" not in later.stderr, later.stderr
    # the receiver holds the appended record: the rest landed at seq 2, after the old root's seq 1
    rest = sorted((team / GROWN / "streams" / "main").glob("*.sd"))
    assert len(rest) == 2 and b"00000000-0000-4000-8000-000000000034" in rest[-1].read_bytes()
    v = asz("verify", "--root", str(team), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr
