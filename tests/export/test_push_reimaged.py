"""A re-imaged host's first push says what the receiver held in one line (``--each-session``: a line per session), not
its whole answers (trial 31a F5: a new root of the same transcripts, pushed as the same instance, the receiver holding
them from the old root: seven stderr lines of up to 33 KB, each quoting every file's reason; trial 41a F5: ~70 such
lines, a line per session, buried the one error; docs/push.md, partial success).

Real processes: the corpus collected into two roots (the old host's and the re-imaged one's: the same records, files
named by another landing time), ``asz receive`` on loopback, both pushed as ``dev@h4`` in small batches (many
requests). Expected figures come from the roots' own files."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from asz_core.export.push_refusals import SHOWN

from export_helpers import ASZ, asz, collect_corpus, free_port, sent_files, summary

KEYS = ("files", "metrics", "bytes", "wire", "requests", "paused", "rejected", "errors", "held")
HELD = re.compile(r"held: (\d+) file\(s\) and (\d+) round\(s\) the receiver refused because it holds every record of them already "
                  r"\(not a failure\), of session ([0-9a-f-]{36}): (.+)")


def landed_in(rels) -> list:
    """The landed files of ``rels`` (root-relative paths), not the rounds (``_conversations/…``)."""
    return [r for r in rels if not r.startswith("_conversations/")]


def _session(rel: str) -> str:
    parts = rel.split("/")
    return parts[1] if parts[0] == "_conversations" else parts[0]


@pytest.mark.slow
def test_a_reimaged_hosts_first_push_says_one_held_line_per_session(corpus_projects, tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    collect_corpus(corpus_projects, old / "data", old)
    collect_corpus(corpus_projects, new / "data", new)
    shutil.copytree(new / "data", tmp_path / "again" / "data", symlinks=True)  # pushed without --each-session
    cfg = tmp_path / "push.yaml"
    cfg.write_text("export:\n  otlp:\n    instance_id: dev@h4\n    batch_bytes: 1500000\n")
    port = free_port()
    rcv = subprocess.Popen([*ASZ, "receive", "--no-token", "--root", str(tmp_path / "team"), "--listen", f"127.0.0.1:{port}"],
                           cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert rcv.stderr.readline().startswith("receiving:")
        push = [asz("push", "--root", str(d / "data"), "--config", str(cfg), "--endpoint", f"http://127.0.0.1:{port}",
                    *extra, cwd=d) for d, extra in ((old, ()), (new, ("--each-session",)), (tmp_path / "again", ()))]
    finally:
        rcv.terminate()
        rcv.communicate(timeout=60)
    assert push[0].returncode == 0, push[0].stderr
    first = push[1]
    assert first.returncode == 0, first.stdout + first.stderr
    line = first.stdout.strip().splitlines()[-1]
    assert [tok.split("=")[0] for tok in line.split() if "=" in tok] == list(KEYS), line  # the contract's keys, in order
    state = (new / "data" / "push.state").read_text().splitlines()
    files = sorted(ln.split()[1] for ln in state if ln.startswith("pushed "))  # what this pass sent and was answered
    landed = [rel for rel in sent_files(new / "data") if rel.endswith(".sd")]
    assert set(landed) <= set(files) <= set(sent_files(new / "data"))  # every landed file; rounds not held back
    elsewhere = {ln.split()[1]: ln.split()[2] for ln in state if ln.startswith("elsewhere ")}  # push.state names each
    assert elsewhere == dict.fromkeys(landed, "all")  # held there whole, from the old root
    got = summary(line)
    assert (got["files"], got["held"], got["rejected"], got["errors"]) == (str(len(files)), str(len(files)), "0", "0")
    assert int(got["requests"]) > 3, line  # several answers: before, one line each
    per_session = Counter(_session(rel) for rel in files)
    held = [HELD.fullmatch(ln) for ln in first.stderr.splitlines() if ln.startswith("held: ")]
    assert all(held), first.stderr
    # one line per session, its landed files and its rounds counted apart (trial 45c F6: both were "record(s)")
    assert {m.group(3): (int(m.group(1)), int(m.group(2))) for m in held} == {
        s: (sum(1 for r in files if _session(r) == s and not r.startswith("_conversations/")),
            sum(1 for r in files if _session(r) == s and r.startswith("_conversations/"))) for s in per_session}
    assert len(held) == len(per_session)
    for m in held:
        names = m.group(4).split(" and ")[0].split(", ")
        n = int(m.group(1)) + int(m.group(2))
        assert len(names) == min(n, SHOWN) and all(name in files and _session(name) == m.group(3) for name in names)
        assert m.group(4).endswith(f" and {n - SHOWN} more") == (n > SHOWN), m.group(0)
    assert "is already landed as" not in "".join(m.group(0) for m in held)  # the reasons stay in push.state and the log
    assert "rejected:" not in first.stderr and "error:" not in first.stderr, first.stderr
    assert max(len(ln) for ln in first.stderr.splitlines()) < 1200, first.stderr
    # without --each-session: one held: line for them all, their count and first ids (trial 41a F5)
    again = push[2]
    assert again.returncode == 0 and summary(again.stdout.strip().splitlines()[-1])["held"] == str(len(files))
    ids = sorted(per_session)
    assert [ln for ln in again.stderr.splitlines() if ln.startswith("held: ")] == [
        f"held: {len(landed_in(files))} file(s) and {len(files) - len(landed_in(files))} round(s) of {len(ids)} session(s) ({', '.join(i[:8] for i in ids[:SHOWN])} and "
        f"{len(ids) - SHOWN} more) the receiver refused because it holds every record of them already (not a failure; "
        "push.state's elsewhere and owned lines name each file; asz push --each-session says a line per session)"]
