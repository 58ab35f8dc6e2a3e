"""A session that does not verify is never pushed, and never pruned (trial 15, F4; docs/push.md, What travels).

Real input: the Claude Code corpus collected by the real ``asz collect --once`` (tests/conftest.py); one reply of
session 55604662's landed transcript is changed to a text of the same length and the file's closing line recomputed
("re-sealed", as the trial did): the file is whole on its own, and only its conversation's round chain shows it is
not the file that was parsed. A real ``asz receive`` process on loopback receives the push.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import forked
from asz_core.export.settings import RetentionConfig
from asz_core.export.state import PushState
from asz_core.retention.prune import prune

from export_helpers import ASZ, asz, sent_files, summary

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "verify"))
from verify_landing import edit_records  # noqa: E402

SID = "55604662-cf2a-4331-851a-ec234028f8ca"
#: What the agent replied in line 7 of the corpus's source transcript of SID
#: (../shared/corpus/claude-code/projects/-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl).
REPLY = b"try running the server"
ALTERED = b"try smashed the server"


def reseal(root: Path) -> Path:
    """Change REPLY in SID's landed transcript, recompute its closing line (mode 0444 kept); the file's path."""
    (path,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    assert path.read_bytes().count(REPLY) == 1
    edit_records(path, lambda recs: [r.replace(REPLY, ALTERED) for r in recs], fix_closing=True)
    assert path.stat().st_mode & 0o777 == 0o444
    return path


def session_files(root: Path, session: str) -> set[str]:
    """The landed files of ``session`` and the rounds of its conversations (a round header's ``session``), root-relative."""
    out = {rel for rel in sent_files(root) if rel.startswith(f"{session}/")}
    for rnd in (root / "_conversations").glob("*/rounds/*.sf"):
        with open(rnd, "rb") as f:
            if json.loads(f.readline()).get("session") == session:
                out.add(rnd.relative_to(root).as_posix())
    return out


@pytest.fixture
def receiver(tmp_path):
    """A real ``asz receive`` child on a free loopback port, forked from the pre-imported server (tests/forked.py):
    ``(endpoint, receiving root)``."""
    recv = tmp_path / "received"
    proc = forked.Popen([*ASZ, "receive", "--no-token", "--listen", "127.0.0.1:0", "--root", str(recv)], cwd=tmp_path,
                        stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert line.startswith("receiving: "), line
        address = line.split(" on ", 1)[1].split(" into ", 1)[0]
        yield f"http://{address}", recv
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_resealed_session_is_held_back_named_and_push_exits_1(corpus_copy, receiver, tmp_path):
    endpoint, recv = receiver
    root = corpus_copy(tmp_path / "data")
    everything = sent_files(root)
    held = session_files(root, SID)
    assert len(held) == 2  # its one transcript and its one round (counted from the root's files)
    reseal(root)
    for attempt in range(2):  # held back on every pass while the root holds the change
        p = asz("push", "--root", str(root), "--endpoint", endpoint, cwd=tmp_path)
        assert p.returncode == 1, p.stdout + p.stderr
        errors = [ln for ln in p.stderr.splitlines() if ln.startswith("error: ")]
        assert len(errors) == 1, p.stderr
        assert errors[0].startswith(f"error: {SID}: does not verify (2 problem(s), the first: "), errors[0]
        assert "input digest recomputed from the landed files of seq 1–1 does not match the header" in errors[0]
        assert f"none of its 2 due file(s) and round(s) is sent" in errors[0]
        assert errors[0].endswith(f"(asz verify --root {root} {SID} names the problems)")
        s = summary(p.stdout.strip().splitlines()[-1])
        assert (s["files"], s["rejected"], s["errors"]) == (str(len(everything) - 2 if attempt == 0 else 0), "0", "1")
    # the receiver holds every other file, byte for byte, none of SID's, and verifies
    got = sent_files(recv)
    assert got == {rel: d for rel, d in everything.items() if rel not in held}
    v = asz("verify", "--root", str(recv), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr
    # push.state never says the receiver took a file of SID
    state = PushState.load(root).for_endpoint(endpoint)
    assert not held & set(state.pushed)


def test_prune_keeps_a_session_that_does_not_verify_even_if_marked_accepted(corpus_copy, receiver, tmp_path):
    """As a push before this check left it: the re-sealed file's digest marked accepted in push.state. Retention keeps
    the session (its landed copy is what shows the change) and says why; the other sessions go as before."""
    endpoint, _ = receiver
    root = corpus_copy(tmp_path / "data")
    p = asz("push", "--root", str(root), "--endpoint", endpoint, cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    path = reseal(root)
    import hashlib

    state = PushState.load(root).for_endpoint(endpoint)
    state.mark(path.relative_to(root).as_posix(), hashlib.sha256(path.read_bytes()).hexdigest(), False)
    state.save()
    for cfg in (RetentionConfig(after=0.0), RetentionConfig(after=0.0, require_accepted=False)):
        rep = prune(root, cfg, endpoint=endpoint, dry_run=True)
        assert [k.session for k in rep.kept] == [SID]
        why = rep.kept[0].reason
        assert why.startswith("it does not verify (2 problem(s), the first: ") and why.endswith(
            f"asz verify --root {root} {SID} names the problems"), why
        assert sorted(rep.removed) == sorted(d.name for d in root.iterdir() if d.is_dir() and d.name[0] not in "_." and d.name != SID)
    rep = prune(root, RetentionConfig(after=0.0), endpoint=endpoint)
    assert path.is_file() and not list((root / SID).rglob("*.sk"))


def test_verify_of_one_file_says_what_it_cannot_see(corpus_copy, tmp_path):
    root = corpus_copy(tmp_path / "data")
    path = reseal(root)
    p = asz("verify", str(path), cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr  # the file alone is whole: true, and now said to be all it shows
    lines = p.stdout.splitlines()
    assert lines[-1] == "the file is whole: its header, records and closing digest check"
    assert lines[1] == ("checked on its own: a single file's check sees only the file itself, not its session's cursor nor "
                        "its conversation's round chain (whether this is the file that was parsed, and that nothing is "
                        f"missing or was re-sealed); asz verify --root {root} {SID} checks those")
    whole = asz("verify", "--root", str(root), SID, cwd=tmp_path)
    assert whole.returncode == 1 and "does not match the header" in whole.stdout


def test_a_chain_under_another_name_is_held_back_with_its_session(corpus_copy, receiver, tmp_path):
    """A pass finds each session's chains in its one look at the root's chains (SessionChains): SID's chain moved to a
    directory its id does not name (its round 1 still names SID) is sent as SID's and checked with SID, so it is held
    back with SID, in the words asz verify --root ROOT SID says."""
    from asz_core.export import push as push_mod
    from asz_core.export.settings import ExportConfig

    endpoint, recv = receiver
    root = corpus_copy(tmp_path / "data")
    (root / "_conversations" / SID).rename(root / "_conversations" / "moved")
    everything = sent_files(root)
    held = session_files(root, SID)
    assert sorted(held) == sorted([f"{SID}/{p.relative_to(root / SID).as_posix()}" for p in (root / SID).rglob("*.sd")] + [
        f"_conversations/moved/rounds/{p.name}" for p in (root / "_conversations" / "moved" / "rounds").iterdir()])
    reseal(root)
    rep = push_mod.push(root, ExportConfig(metrics=False), endpoint=endpoint)
    assert rep.errors == 1 and rep.rejected == 0 and rep.files == len(everything) - len(held)
    assert rep.problems[0].startswith(f"{SID}: does not verify (")
    assert f"the first: {root}/_conversations/moved/rounds/r000001-" in rep.problems[0]
    assert "input digest recomputed from the landed files of seq 1–1 does not match the header" in rep.problems[0]
    assert "does not match the header); none of its 2 due file(s) and round(s) is sent" in rep.problems[0]
    v = asz("verify", "--root", str(root), SID, cwd=tmp_path)  # the command names the same round
    assert v.returncode == 1 and any(ln.startswith(f"{root}/_conversations/moved/rounds/r000001-")
                                     and "does not match the header" in ln for ln in v.stdout.splitlines())
    assert sent_files(recv) == {rel: d for rel, d in everything.items() if rel not in held}


def test_one_session_s_check_opens_its_own_files_only(corpus_copy, tmp_path):
    """With the root's chains read once (what a push pass and prune do), checking one session opens and lists
    nothing of another session: no other session's directory, no other chain (before, every chain's round 1)."""
    from asz_core.flow.chain import SessionChains
    from asz_core.verify import unverified

    root = corpus_copy(tmp_path / "data")
    others = {d.name for d in root.iterdir() if d.is_dir() and d.name[0] not in "_." and d.name != SID}
    assert len(others) == 10  # the corpus's 11 sessions (../shared/corpus/claude-code/projects), less SID
    chains = SessionChains(root)
    touched: list[str] = []
    watching = [False]

    def hook(event, args):
        if watching[0] and event in ("open", "os.listdir", "os.scandir") and args and isinstance(args[0], (str, Path)):
            touched.append(os.fspath(args[0]))

    sys.addaudithook(hook)
    watching[0] = True
    try:
        assert unverified(root, SID, chains=chains) == ""
    finally:
        watching[0] = False
    parts = [Path(t).relative_to(root).parts for t in touched if Path(t).is_relative_to(root)]
    assert any(p[:1] == (SID,) for p in parts) and any(p[:2] == ("_conversations", SID) for p in parts)
    assert not [p for p in parts if p[0] in others or (p[0] == "_conversations" and len(p) > 1 and p[1] != SID)]
