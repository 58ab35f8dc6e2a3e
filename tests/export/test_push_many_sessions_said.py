"""A host whose sessions another credential already sent: one line for all of them, not one each (trial 41a F5, F6;
docs/push.md, One session, one credential).

Trial 41a's host C held 81 sessions host A (another credential) had sent: every ``asz push`` said 81 notes (~32 KB) and
~70 ``held:`` lines, burying the one real ``error:``, then ``the metrics of 81 session(s) not sent: … rejected landed
files of theirs`` of a pass that rejected nothing. Now two sessions or more of one kind are one line with their
count and first three ids (``asz push --each-session``: a line each), and the metrics note says the real reason.

Real processes: ``asz collect --once`` of three corpus transcripts into two roots, a real loopback receiver with a
token per credential, ``asz push`` of each root with its own token."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from asz_core.export.credentials import read_token_file
from asz_core.export.push_refusals import files_and_rounds
from asz_core.export.receive import Receiver

from cli_helpers import write_secret
from export_helpers import asz, collect_corpus, copied_projects, sent_files, summary

PROJECTS = ("-home-user-claude-reliability", "-Users-alex-workspace-personal-site-next", "-home-user-sample-project")
TOKENS = {"alice": "aliceTOKEN1234567890abcdef", "bob": "bobTOKEN1234567890abcdefgh"}


def _push(root: Path, address: str, who: str, tmp: Path, *extra: str):
    tok = tmp / f"{who}.tok"
    write_secret(tok, TOKENS[who] + "\n")
    cfg = tmp / f"{who}.yaml"
    cfg.write_text(f"export: {{otlp: {{instance_id: dev@{who}}}}}\n")
    return asz("push", "--root", str(root), "--config", str(cfg), "--endpoint", f"grpc://{address}", "--token-file",
               str(tok), *extra, cwd=tmp)


@pytest.mark.slow  # ~20 s under load: two collects, four pushes
def test_sessions_another_credential_sent_are_one_line_of_each_kind(corpus_dir, tmp_path):
    for host in ("a", "c"):
        collect_corpus(copied_projects(corpus_dir, tmp_path / host / "src", PROJECTS), tmp_path / host / "root",
                       tmp_path / host)
    host_c = tmp_path / "c" / "root"
    sessions = sorted(p.stem for p in (tmp_path / "c" / "src").rglob("*.jsonl"))
    ids = ", ".join(s[:8] for s in sessions)
    write_secret(tmp_path / "team.tokens", "".join(f"{n} {t}\n" for n, t in TOKENS.items()))
    rcv = Receiver(tmp_path / "team", "127.0.0.1:0", token=read_token_file(tmp_path / "team.tokens"),
                   err=io.StringIO()).start().serve_in_thread()
    try:
        assert _push(tmp_path / "a" / "root", rcv.address, "alice", tmp_path).returncode == 0
        first, later, each = (_push(host_c, rcv.address, "bob", tmp_path, *extra)
                              for extra in ((), (), ("--each-session",)))
    finally:
        rcv.stop()
    endpoint = f"grpc://{rcv.address}"
    refused = len(sent_files(host_c))  # every landed file and round of host C, counted from the root
    for p in (first, later, each):
        assert p.returncode == 0 and "error:" not in p.stderr, p.stdout + p.stderr
    assert summary(first.stdout.splitlines()[-1])["held"] == str(refused), first.stdout
    assert [ln for ln in first.stderr.splitlines() if ln.startswith("held:")] == [
        f"held: {files_and_rounds(list(sent_files(host_c)))} of 3 session(s) ({ids}) the receiver refused because it "
        "holds every record of them already (not a failure; push.state's elsewhere and owned lines name each file; asz push --each-session says a "
        "line per session)"], first.stderr
    for p in (first, later):
        notes = [ln for ln in p.stderr.splitlines() if ln.startswith("note: ")]
        assert len(notes) == 2 and len(p.stderr) < 2000, p.stderr
        assert notes[0].startswith(f"note: 3 session(s) ({ids}): {endpoint} holds them from credential alice, which "
                                   "sent their first files, and refuses what credential bob sends of them: "), notes
        assert "not an error (the owned lines of" in notes[0] and "asz push --each-session" in notes[0]
        # F6: the real reason, not "rejected landed files of theirs" (nothing was rejected)
        assert notes[1] == (f"note: the metrics of 3 session(s) not sent: 3 {endpoint} holds them as another "
                            "credential's (that credential's sender sends their metrics)"), notes
    owned = [ln for ln in each.stderr.splitlines() if ln.startswith("note: ") and "holds this session from credential" in ln]
    assert [ln.split(":")[1].strip() for ln in owned] == sessions, each.stderr
