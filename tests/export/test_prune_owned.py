"""A session the receiver holds whole under another credential counts as received for retention (trial 43a F6).

Hosts A and B hold byte-identical copies of a session; A's credential alice sent it first, so the receiver refuses B's
(credential bob's) files as alice's session and answers that it holds every record of them (``owned … all``). Before,
``asz prune`` on B said ``kept S: 2 file(s) … has not accepted`` for ever, though nothing was lost by their going. Real
input: the corpus's sample project collected by the real ``asz collect --once`` on each host, pushed by the real ``asz
push`` to a real ``asz receive`` on loopback, pruned by the real ``asz prune`` with the retention tests' settings.
"""

from __future__ import annotations

import gzip
import io
import json
import shutil

import pytest

from asz_core.export.credentials import read_token_file
from asz_core.export.receive import Receiver
from asz_core.export.state import PushState
from asz_core.storage.layout import landed_files, session_dirs

from export_helpers import asz, sent_files
from test_receive_owner import PROJECT, SESSION, _append, _collect, _push_args, _team_tokens


def _usage(team) -> str:
    """The receiving root's figures as ``asz usage --json`` gives them."""
    got = asz("usage", "--root", str(team), "--json")
    assert got.returncode == 0, got.stdout + got.stderr
    return got.stdout


@pytest.mark.slow
def test_a_copy_held_whole_under_another_credential_is_pruned_and_a_partial_one_kept(corpus_dir, tmp_path):
    src = corpus_dir / "claude-code" / "projects" / PROJECT / f"{SESSION}.jsonl"
    for who in ("alice", "bob", "bob2"):
        (tmp_path / who / "projects" / "-p").mkdir(parents=True)
        shutil.copy(src, tmp_path / who / "projects" / "-p")
    _append(tmp_path / "bob2", "a line only bob's second host holds", "bob2-1")  # a copy the receiver lacks a line of
    for who in ("alice", "bob", "bob2"):
        _collect(tmp_path / who, tmp_path / f"root_{who}", tmp_path)
    team = tmp_path / "team"
    rcv = Receiver(team, "127.0.0.1:0", token=read_token_file(_team_tokens(tmp_path)),
                   err=io.StringIO()).start().serve_in_thread()
    endpoint = f"http://{rcv.address}"
    cfg = tmp_path / "prune.yaml"  # as the retention tests set it: everything old enough, the pushed endpoint's word
    cfg.write_text(f'storage: {{retention: {{after: "0"}}}}\nexport: {{otlp: {{endpoint: "{endpoint}"}}}}\n')

    def push(who: str, *more: str):
        root = "bob" if who == "bob" else who
        return asz(*_push_args(tmp_path / f"root_{root}", rcv.address, who.rstrip("2"), tmp_path / who, "http", *more),
                   cwd=tmp_path)

    def prune(who: str, *more: str):
        return asz("prune", "--root", str(tmp_path / f"root_{who}"), "--config", str(cfg), *more, cwd=tmp_path)

    try:
        assert push("alice").returncode == 0
        bob = push("bob")
        assert bob.returncode == 0 and " held=2 " in bob.stdout, bob.stdout + bob.stderr  # his file, the round reading it
        bob_sd = sorted(r for r in sent_files(tmp_path / "root_bob") if r.endswith(".sd"))
        state = PushState.load(tmp_path / "root_bob")
        assert {r: v[:2] for r, v in state.owned.items()} == {r: ("alice", "all") for r in bob_sd}, state.owned
        figures, team_files = _usage(team), sent_files(team)
        held = f"{endpoint} holds every record of its {len(bob_sd)} file(s) in the files of credential alice, which " \
               "sent the session first"
        dry = prune("bob", "--dry-run")
        assert dry.returncode == 0 and dry.stdout.splitlines()[0] == f"would remove {SESSION} ({held})", dry.stdout
        done = prune("bob")
        assert done.returncode == 0 and done.stdout.splitlines()[0] == f"removed {SESSION} ({held})", done.stdout
        (sdir,) = session_dirs(tmp_path / "root_bob")
        assert not landed_files(sdir) and len(landed_files(sdir, skeletons=True)) == len(bob_sd)
        for rel in bob_sd:  # each skeleton says the receiver holds its records, and under which credential
            with gzip.open(tmp_path / "root_bob" / (rel[:-len(".sd")] + ".sk"), "rb") as f:
                removed = json.loads(f.readline())["removed"]
            assert (removed["receiver"], removed["owned"], "elsewhere" in removed) == ("accepted", "alice", False)
        again = push("bob")  # a later pass: nothing sent, not "removed before it was received", the note as before
        assert again.returncode == 0 and "removed by retention" not in again.stderr, again.stdout + again.stderr
        assert (f"refuses what credential bob sends of it: {len(bob_sd)} file(s) and 1 round(s) of this root (docs/"
                "push.md, One session, one credential); it holds every record of those files from that credential's, so "
                "nothing is missing there; they are not sent again and count as received for retention; not an error"
                ) in again.stderr, again.stderr
        assert " files=0 " in again.stdout, again.stdout
        assert (_usage(team), sent_files(team)) == (figures, team_files)  # the receiver's figures as before
        # a copy the receiver lacks a line of (owned … part for its second file) stays whole
        partial = push("bob2")
        assert partial.returncode == 1 and "it lacks records of 1 of them" in partial.stderr, partial.stderr
        assert {v[1] for v in PushState.load(tmp_path / "root_bob2").owned.values()} == {"part"}
        refused = sent_files(tmp_path / "root_bob2")  # its landed file and the round reading it, all refused
        kept = prune("bob2", "--dry-run")
        assert (f"kept {SESSION}: {len(refused)} file(s) {endpoint} (export.otlp.endpoint) has not accepted"
                in kept.stdout), kept.stdout
        assert prune("bob2").returncode == 0
        (sdir2,) = session_dirs(tmp_path / "root_bob2")
        assert [p.suffix for _, p in landed_files(sdir2, skeletons=True)] == [".sd"] * sum(r.endswith(".sd") for r in refused)
    finally:
        rcv.stop()
    assert sent_files(team) == team_files  # nothing of bob's either root landed
    for who in ("bob", "bob2", "alice"):
        v = asz("verify", "--root", str(tmp_path / f"root_{who}"), cwd=tmp_path)
        assert v.returncode == 0, v.stdout + v.stderr
        if who == "bob":  # its skeletons' section names the credential whose files hold them, not the receiver alone
            (line,) = [x for x in v.stdout.splitlines() if " are skeletons: " in x]
            assert (f"({len(bob_sd)} held by {endpoint} in the files of credential alice, which sent their session "
                    "first (it refused this root's); asz verify --root THAT_ROOT") in line, line
            js = json.loads(asz("verify", "--root", str(tmp_path / "root_bob"), "--json", cwd=tmp_path).stdout)
            assert js["removed_by_retention"]["held_by"] == {endpoint: len(bob_sd)}
            assert js["removed_by_retention"]["held_as"] == {f"{endpoint} credential alice": len(bob_sd)}
    v = asz("verify", "--root", str(team), "--receipts", str(tmp_path / "root_bob" / "push.state"), cwd=tmp_path)
    assert v.returncode == 0 and f"{len(state.pushed)} held (the receiver holds every record of them in the files of " \
        "credential alice" in v.stdout, v.stdout
