"""A session's files stay its first credential's (trial 27c F1; docs/push.md, One session, one credential).

With one token per person (a token file of ``NAME TOKEN`` lines), bob's token could land a file and a round into a
session alice's token sent, and every reader said ``verified``. Real input: the corpus's sample project collected by
the real ``asz collect --once``; alice's root pushed by the real ``asz push`` to a real loopback receiver; bob's
copy of her root with one line of his appended, collected and pushed under her instance id with his token.
"""

from __future__ import annotations

import html
import io
import json
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

import forked
from asz_core.export import receive
from asz_core.export.credentials import read_token_file
from asz_core.export.receive import Receiver

from cli_helpers import write_secret
from export_helpers import ASZ, asz, page_json, sent_files

PROJECT = "-home-user-sample-project"
SESSION = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
TOKENS = {"alice": "aliceTOKEN1234567890abcdef", "bob": "bobTOKEN1234567890abcdefgh"}
#: What bob appends to his copy of alice's session.
FORGED = "FORGED BY BOB: please push prod credentials"


def _append(src: Path, text: str, uuid: str) -> None:
    with open(src / "projects" / "-p" / f"{SESSION}.jsonl", "a") as f:
        f.write(json.dumps({"parentUuid": None, "type": "user", "sessionId": SESSION, "cwd": "/path/to/Demo",
                            "message": {"role": "user", "content": text}, "uuid": uuid,
                            "timestamp": "2025-09-07T09:55:00.000Z"}) + "\n")


def _collect(src: Path, root: Path, cwd: Path) -> None:
    p = asz("collect", "--once", "--source", str(src / "projects"), "--root", str(root), cwd=cwd, child=True,
            env={"CLAUDE_CONFIG_DIR": str(src)})
    assert p.returncode == 0, p.stdout + p.stderr


def _push(root: Path, address: str, who: str, tmp: Path, proto: str) -> str:
    p = asz(*_push_args(root, address, who, tmp, proto), cwd=tmp)
    return p.stdout + p.stderr


def _push_args(root: Path, address: str, who: str, tmp: Path, proto: str, *more: str) -> list[str]:
    """``push`` of ``root`` to ``proto://address`` with credential ``who``'s token (a file of mode 0600) as instance
    root@vm, then ``more``."""
    tok = write_secret(tmp / f"{who}.tok", TOKENS[who] + "\n")
    cfg = tmp / "push.yaml"
    cfg.write_text('export:\n  otlp:\n    instance_id: "root@vm"\n')
    return ["push", "--root", str(root), "--config", str(cfg), "--endpoint", f"{proto}://{address}",
            "--token-file", str(tok), *more]


def _team_tokens(tmp: Path) -> Path:
    """``tmp/team.tokens``: alice's and bob's ``NAME TOKEN`` lines, mode 0600 (asz refuses a token file others read)."""
    return write_secret(tmp / "team.tokens", "".join(f"{n} {t}\n" for n, t in TOKENS.items()))


@pytest.mark.parametrize("proto", ["http", "grpc"])
def test_another_credential_cannot_add_to_a_session(corpus_dir, tmp_path, proto):
    src_a = tmp_path / "srcA"
    (src_a / "projects" / "-p").mkdir(parents=True)
    shutil.copy(corpus_dir / "claude-code" / "projects" / PROJECT / f"{SESSION}.jsonl", src_a / "projects" / "-p")
    _team_tokens(tmp_path)
    log = io.StringIO()
    rcv = Receiver(tmp_path / "team", "127.0.0.1:0", token=read_token_file(tmp_path / "team.tokens"),
                   err=log).start().serve_in_thread()
    try:
        _collect(src_a, tmp_path / "root_a", tmp_path)
        _push(tmp_path / "root_a", rcv.address, "alice", tmp_path, proto)
        alice_sent = sent_files(tmp_path / "team")
        assert alice_sent == sent_files(tmp_path / "root_a") and alice_sent  # all of alice's files landed
        shutil.copytree(tmp_path / "root_a", tmp_path / "root_b", symlinks=True)
        (tmp_path / "root_b" / "push.state").unlink()
        shutil.copytree(src_a, tmp_path / "srcB")
        _append(tmp_path / "srcB", FORGED, "forged-1")
        _collect(tmp_path / "srcB", tmp_path / "root_b", tmp_path)
        bob_new = set(sent_files(tmp_path / "root_b")) - set(alice_sent)
        assert len(bob_new) == 2  # his seq 2 and his round 2
        out = _push(tmp_path / "root_b", rcv.address, "bob", tmp_path, proto)
        assert sent_files(tmp_path / "team") == alice_sent, out  # nothing of bob's landed
        said = log.getvalue()
        sent = set(sent_files(tmp_path / "root_b"))  # bob's root holds no push.state: he sends all 4
        # his seq 1 (and the round reading it) repeat alice's records: held whole, as his push counts them (held=),
        # the rest rejected (trial 32c F5: the receiver said every one rejected)
        held = int(re.search(r" held=(\d+) ", out).group(1))
        assert held == 2, out
        assert f"4 file(s): 0 landed, 0 already there, 2 rejected, {held} held; from root@vm (credential bob)" in said, said
        for rel in sent:
            assert f"rejected {rel}: " in said or f"held {rel}: " in said
        for rel in (r for r in sent if r.endswith(".sd")):  # his files name why; his rounds read them
            assert (f" {rel}: its session {SESSION} was first sent with credential alice: credential bob "
                    "cannot add to it") in said
        # alice herself goes on: her next line lands
        _append(src_a, "alice's own next line", "alice-2")
        _collect(src_a, tmp_path / "root_a", tmp_path)
        _push(tmp_path / "root_a", rcv.address, "alice", tmp_path, proto)
        assert sent_files(tmp_path / "team") == sent_files(tmp_path / "root_a")
    finally:
        rcv.stop()
    found = asz("search", "FORGED", "--root", str(tmp_path / "team"))
    assert "FORGED" not in found.stdout
    v = asz("verify", "--root", str(tmp_path / "team"))
    assert v.returncode == 0, v.stdout


def mixed_team(corpus_dir: Path, tmp_path: Path) -> Path:
    """The root ``tmp_path/team`` of a receiver first run with a token file naming alice, then with one unnamed token
    (the owner is checked only between named credentials): alice's root of the corpus's sample project (3 talks), then
    bob's copy of it with one line of his appended (:data:`FORGED`, a 4th talk), sent with no credential name."""
    src_a = tmp_path / "srcA"
    (src_a / "projects" / "-p").mkdir(parents=True)
    shutil.copy(corpus_dir / "claude-code" / "projects" / PROJECT / f"{SESSION}.jsonl", src_a / "projects" / "-p")
    _team_tokens(tmp_path)
    _collect(src_a, tmp_path / "root_a", tmp_path)
    rcv = Receiver(tmp_path / "team", "127.0.0.1:0", token=read_token_file(tmp_path / "team.tokens")).start().serve_in_thread()
    try:
        _push(tmp_path / "root_a", rcv.address, "alice", tmp_path, "http")
    finally:
        rcv.stop()
    shutil.copytree(tmp_path / "root_a", tmp_path / "root_b", symlinks=True)
    (tmp_path / "root_b" / "push.state").unlink()
    shutil.copytree(src_a, tmp_path / "srcB")
    _append(tmp_path / "srcB", FORGED, "forged-1")
    _collect(tmp_path / "srcB", tmp_path / "root_b", tmp_path)
    rcv = Receiver(tmp_path / "team", "127.0.0.1:0", token=TOKENS["bob"]).start().serve_in_thread()  # one unnamed token
    try:
        _push(tmp_path / "root_b", rcv.address, "bob", tmp_path, "http")
    finally:
        rcv.stop()
    return tmp_path / "team"


def test_a_conversation_from_two_credentials_is_never_plain_verified(corpus_dir, tmp_path):
    """A root holding alice's files and one sent with no credential name (:func:`mixed_team`): every reader says the
    conversation is not one sender's."""
    team = str(mixed_team(corpus_dir, tmp_path))
    mixed = "sent by 2 credentials (alice, (no credential name)), not one sender's"
    ls = asz("ls", "--root", team)
    row = next(line for line in ls.stdout.splitlines() if line.startswith(SESSION[:8]))
    assert row.rstrip().endswith("verified ! mixed"), ls.stdout
    assert f"mixed: {SESSION[:8]} {mixed}; asz conversation {SESSION[:8]} says who sent which" in ls.stdout
    conv = asz("conversation", SESSION[:8], "--root", team).stdout
    assert f"state verified, {mixed}: 4 talks" in conv  # the source's 3 talks and bob's
    assert "state verified:" not in conv
    assert f"MIXED SENDERS: {mixed}; sent by root@vm (credential alice)" in conv
    doc = json.loads(asz("conversation", SESSION[:8], "--root", team, "--json").stdout)  # the page's document
    assert doc["summary"]["state"] == "verified"
    assert any(p.startswith(f"{mixed}: its landed files came with more than one receiver credential")
               for p in doc["summary"]["problems"]), doc["summary"]["problems"]
    for fmt in ("md", "html"):
        out = asz("export", SESSION[:8], "--root", team, "--format", fmt).stdout
        assert f"MIXED SENDERS: {mixed}; sent by root@vm" in (html.unescape(out) if fmt == "html" else out)


def test_a_round_of_another_session_cannot_join_the_chain_of_a_session_another_sent(corpus_dir, tmp_path):
    """A round whose header names bob's own session, at the path of alice's chain's next round: the chain's round 1
    names her session, so the round is refused (before: it took round 2's slot of her chain, and the fold stopped
    there, every reader saying mismatch)."""
    from asz_core.export.land import Refused
    from asz_core.export.owners import owned_by, release

    src_a = tmp_path / "srcA"
    (src_a / "projects" / "-p").mkdir(parents=True)
    shutil.copy(corpus_dir / "claude-code" / "projects" / PROJECT / f"{SESSION}.jsonl", src_a / "projects" / "-p")
    _team_tokens(tmp_path)
    rcv = Receiver(tmp_path / "team", "127.0.0.1:0", token=read_token_file(tmp_path / "team.tokens"),
                   err=io.StringIO()).start().serve_in_thread()
    try:
        _collect(src_a, tmp_path / "root_a", tmp_path)
        _push(tmp_path / "root_a", rcv.address, "alice", tmp_path, "http")
    finally:
        rcv.stop()
    team = tmp_path / "team"
    chains = sorted(p.name for p in (team / "_conversations").iterdir())
    assert chains == [SESSION]
    header = json.dumps({"t": "header", "session": "bobs-own-session", "conversation": SESSION, "round": 2,
                         "from_seq": 2, "through_seq": 2}).encode() + b"\n"
    rel = f"_conversations/{SESSION}/rounds/r000002-0123456789ab.sf"
    claimed: set[tuple[str, str]] = set()
    with pytest.raises(Refused, match=f"its session {SESSION} was first sent with credential alice: credential bob"):
        owned_by(team, rel, header, "bob", claimed)
    release(claimed)
    owned_by(team, rel, header, "alice", claimed)  # the chain's own credential: not refused here (admit checks the rest)
    release(claimed)


@pytest.mark.slow
def test_a_copy_continued_under_another_credential_is_said_on_both_sides(corpus_dir, tmp_path):
    """Trial 28a F2: bob's copy of alice's session, continued on his host (one line of his), is refused whole (one
    session, one credential). Before, the team root said nothing (verify clean, no ls note) and bob's host failed every
    pass, from the second on naming another root as the cause and nothing to do. Now the receiver lists the refusal
    in ``_received/short.list`` (verify's ``short session`` warning, ls's note, the page's list notice read it) and
    every pass of bob's says the true cause and what to do."""
    src_a = tmp_path / "srcA"
    (src_a / "projects" / "-p").mkdir(parents=True)
    shutil.copy(corpus_dir / "claude-code" / "projects" / PROJECT / f"{SESSION}.jsonl", src_a / "projects" / "-p")
    _team_tokens(tmp_path)
    _collect(src_a, tmp_path / "root_a", tmp_path)
    shutil.copytree(src_a, tmp_path / "srcB")
    _append(tmp_path / "srcB", "bob goes on with alice's session", "bob-1")
    _append(tmp_path / "srcB", "and once more", "bob-2")
    lines_a = (src_a / "projects" / "-p" / f"{SESSION}.jsonl").read_bytes().count(b"\n")
    lines_b = (tmp_path / "srcB" / "projects" / "-p" / f"{SESSION}.jsonl").read_bytes().count(b"\n")
    shutil.copytree(tmp_path / "root_a", tmp_path / "root_b", symlinks=True)
    _collect(tmp_path / "srcB", tmp_path / "root_b", tmp_path)
    team = tmp_path / "team"
    rcv = Receiver(team, "127.0.0.1:0", token=read_token_file(tmp_path / "team.tokens"),
                   err=io.StringIO()).start().serve_in_thread()
    try:
        _push(tmp_path / "root_a", rcv.address, "alice", tmp_path, "http")
        said = [_push(tmp_path / "root_b", rcv.address, "bob", tmp_path, "http") for _ in range(2)]
    finally:
        rcv.stop()
    for out in said:  # every pass: the true cause and what to do, never "another root"
        assert (f"error: {SESSION}: http://{rcv.address} holds this session from credential alice, which sent its "
                "first file") in out, out
        assert f"it lacks records of 1 of them ({SESSION}/streams/main/transcript-" in out, out
        assert "push this root with the token of credential alice" in out, out
        assert "holds the session from another root" not in out and "not accepted since" not in out, out
    assert "refuses what credential bob sends of it: 2 file(s) and 2 round(s)" in said[0], said[0]
    state = (tmp_path / "root_b" / "push.state").read_text()
    owned = sorted(ln.split()[2:] for ln in state.splitlines() if ln.startswith("owned "))
    assert owned == [["alice", "all", "bob"], ["alice", "part", "bob"]], state  # seq 1 is alice's byte for byte
    short = [json.loads(ln) for ln in (team / "_received" / "short.list").read_text().splitlines()]
    assert len(short) == 1 and short[0]["owner"] == "alice" and short[0]["credential"] == "bob", short
    assert short[0]["lacks"] == lines_b - lines_a == 2  # the source lines only bob's copy holds
    why = (f"session {SESSION} is short of 2 record(s): root@vm (credential bob) holds them in {short[0]['file']}"
           f" (2 record(s)), refused here because the session is credential alice's")
    v = asz("verify", "--root", str(team))
    assert v.returncode == 0 and "short session" in v.stdout and why in v.stdout, v.stdout
    # the way to end the listing, said where it is read (an older receiver's listing stays until the file goes again)
    assert ("that root's asz push says what to do, and once this root holds them its asz push --retry-rejected sends "
            "the file again, and the answer that this root holds every record of it ends this line") in v.stdout, v.stdout
    ls = asz("ls", "--root", str(team))
    assert why in ls.stdout + ls.stderr, ls.stdout + ls.stderr
    # the conversation's own problems (the page's problems box draws summary.problems; asz conversation, the exports)
    doc = json.loads(asz("conversation", SESSION, "--json", "--root", str(team)).stdout)
    assert any(why in p and "credential bob cannot add to it" in p for p in doc["summary"]["problems"]), doc["summary"]
    served = page_json(team, f"/api/c/{SESSION}/view", tmp_path, wait=60)
    assert any(why in p for p in served["summary"]["problems"]), served["summary"]["problems"]
    # trial 43a F1 (b): alice's host gets bob's two lines too (a synced copy) and pushes them; bob's retry is answered
    # held whole, and that answer ends the listing: verify, ls and usage no longer say the session is short
    for text, uuid in (("bob goes on with alice's session", "bob-1"), ("and once more", "bob-2")):
        _append(src_a, text, uuid)
    _collect(src_a, tmp_path / "root_a", tmp_path)
    assert (src_a / "projects" / "-p" / f"{SESSION}.jsonl").read_bytes() == \
        (tmp_path / "srcB" / "projects" / "-p" / f"{SESSION}.jsonl").read_bytes()
    before = asz("usage", "--root", str(team))
    assert why in before.stdout + before.stderr, before.stdout + before.stderr
    rcv = Receiver(team, "127.0.0.1:0", token=read_token_file(tmp_path / "team.tokens"),
                   err=io.StringIO()).start().serve_in_thread()
    try:
        again = asz(*_push_args(tmp_path / "root_a", rcv.address, "alice", tmp_path, "http"), cwd=tmp_path)
        assert again.returncode == 0 and " rejected=0 " in again.stdout, again.stdout + again.stderr
        retry = asz(*_push_args(tmp_path / "root_b", rcv.address, "bob", tmp_path, "http", "--retry-rejected"),
                    cwd=tmp_path)
    finally:
        rcv.stop()
    assert retry.returncode == 0 and " held=4 " in retry.stdout, retry.stdout + retry.stderr  # 2 files, 2 rounds
    lines = [json.loads(ln) for ln in (team / "_received" / "short.list").read_text().splitlines()]
    assert lines[1:] == [{"session": SESSION, "file": short[0]["file"], "held": True, "at": lines[1]["at"]}], lines
    v = asz("verify", "--root", str(team))
    assert v.returncode == 0 and "short session" not in v.stdout and "short of" not in v.stdout, v.stdout
    for cmd in ("ls", "usage"):
        got = asz(cmd, "--root", str(team))
        assert got.returncode == 0 and "short of" not in got.stdout + got.stderr, got.stdout + got.stderr
    doc = json.loads(asz("conversation", SESSION, "--json", "--root", str(team)).stdout)
    assert not any("short of" in p for p in doc["summary"]["problems"]), doc["summary"]["problems"]


def test_a_copy_pushed_while_its_first_landing_is_in_flight_is_held_not_short(corpus_dir, tmp_path, monkeypatch):
    """Trial 43a F1 (a): two hosts with byte-identical copies of one session push their first pass together, alice's
    request landing first (its first file's landing held 2 s here, so bob's request comes while it lands). Bob's is
    answered after alice's landed (requests of named credentials touching one session are answered one at a time):
    held whole, every record counted from the source, his pass exit 0, and nothing listed short. Before, bob was told
    the root lacks 53 of the 53 records alice was still landing, his pass failed, and the team root called the session
    short for good."""
    src = corpus_dir / "claude-code" / "projects" / PROJECT / f"{SESSION}.jsonl"
    records = sum(1 for ln in src.read_bytes().splitlines() if ln.strip())  # the source's lines, one record each
    for who in ("alice", "bob"):
        (tmp_path / who / "projects" / "-p").mkdir(parents=True)
        shutil.copy(src, tmp_path / who / "projects" / "-p")
        _collect(tmp_path / who, tmp_path / f"root_{who}", tmp_path)
    landing, real = threading.Event(), receive.land

    def land_slowly(*args, **kw):
        if not landing.is_set():
            landing.set()
            time.sleep(2)
        return real(*args, **kw)

    monkeypatch.setattr(receive, "land", land_slowly)
    log = io.StringIO()
    team = tmp_path / "team"
    rcv = Receiver(team, "127.0.0.1:0", token=read_token_file(_team_tokens(tmp_path)), err=log).start().serve_in_thread()
    try:
        pushes = {}
        for who in ("alice", "bob"):
            pushes[who] = forked.Popen([*ASZ, *_push_args(tmp_path / f"root_{who}", rcv.address, who, tmp_path / who,
                                                          "http")], cwd=tmp_path, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, text=True)
            assert who == "bob" or landing.wait(120)  # bob starts while alice's first file lands
        said = {who: p.communicate(timeout=300)[0] for who, p in pushes.items()}
    finally:
        rcv.stop()
    assert pushes["alice"].returncode == 0 and pushes["bob"].returncode == 0, said
    assert " held=2 " in said["bob"] and "lacks" not in said["bob"], said["bob"]  # his file and the round reading it
    bob_file = next(r for r in sent_files(tmp_path / "root_bob") if r.endswith(".sd"))
    assert (f"held {bob_file}: its session {SESSION} was first sent with credential alice: credential bob cannot add "
            f"to it") in log.getvalue(), log.getvalue()
    assert f"this root holds every record of it ({records} record(s))" in log.getvalue(), log.getvalue()
    assert "lacks" not in log.getvalue() and not (team / "_received" / "short.list").exists(), log.getvalue()
    v = asz("verify", "--root", str(team), "--receipts", str(tmp_path / "root_bob" / "push.state"))
    assert v.returncode == 0 and "short session" not in v.stdout, v.stdout
    assert ("0 file(s) the receiver accepted: 0 in the root with that SHA-256, 0 changed, 0 missing; 2 held (the "
            "receiver holds every record of them in the files of credential alice, which sent their session first)"
            ) in v.stdout, v.stdout  # trial 43a F5: "from another root"


def test_held_receipts_are_said_by_their_cause(tmp_path):
    """Trial 43a F5: one host's receipts holding files held from another root (``elsewhere … all``) and files held as
    another credential's session (``owned … all``), each with the round reading it: counted apart, by cause."""
    from asz_core.export.state import PushState
    from asz_core.verify.receipts import _held_said, held_files

    sid = {"e": "11111111-1111-4111-8111-111111111111", "o": "22222222-2222-4222-8222-222222222222"}
    rels = {k: [f"{s}/streams/main/transcript-20261207T000000.000000000Z-000001.sd",
                f"_conversations/{s}/rounds/r000001-0123456789ab.sf"] for k, s in sid.items()}
    got = PushState(tmp_path / "push.state", "http://team:4318", pushed={r: "0" * 64 for v in rels.values() for r in v},
                    rejected={r for v in rels.values() for r in v}, elsewhere={rels["e"][0]: ("all", "x.sd")},
                    owned={rels["o"][0]: ("alice", "all", "bob")})
    held = held_files(got)
    assert held == {r for v in rels.values() for r in v}
    assert _held_said(got, held) == ("(the receiver holds every record of them: 2 from another root, 2 in the files of "
                                     "credential alice, which sent their session first)")
    assert _held_said(got, set(rels["e"])) == "(the receiver holds every record of them from another root)"
