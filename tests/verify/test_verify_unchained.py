"""Sessions with no conversation chain, and a root filled by ``asz receive`` (trial findings 10 and 9).

Real input: the Claude Code corpus (../shared/corpus/claude-code/projects, 11 sessions) collected by the real
``asz collect --once`` (tests/conftest.py), with and without ``--no-parse``; a real ``asz receive`` on loopback fed
by a real ``asz push``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import forked
import pytest
from cli_helpers import asz_in_process

from asz_core.export.receive import Receiver
from asz_core.verify.report import UNCURSORED_LINE

CORPUS_SESSIONS = 11  # main transcripts under ../shared/corpus/claude-code/projects
SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
UNCURSORED_WORDS = UNCURSORED_LINE.split("{n}")[1].split(":")[0]  # " stream(s) hold landed files but no cursor"


def asz(*args: str, cwd: Path | None = None, child: bool | None = None) -> subprocess.CompletedProcess:
    """``asz ARGS``, text captured: in a child ``python -m asz_core.cli.main`` with ``child`` (default: ``push``, whose
    gRPC threads must not live on in this process), forked from the pre-imported server (:func:`forked.run`), else in
    this process (:func:`cli_helpers.asz_in_process`)."""
    if child is None:
        child = bool(args) and args[0] == "push"
    if not child:
        return asz_in_process(*args, cwd=cwd)
    return forked.run([sys.executable, "-m", "asz_core.cli.main", *args], capture_output=True, text=True, timeout=600, cwd=cwd)


def _ls_tail(out: str, n: int) -> list[str]:
    """The last ``n`` lines of ``asz ls`` before its ``(+N) in CHANGES`` line (the corpus's ef958aa1 has edits not derived)."""
    lines = out.splitlines()
    if lines and lines[-1].startswith("(+N) in CHANGES"):
        lines.pop()
    return lines[-n:]


def test_a_session_whose_rounds_were_removed_is_said_by_verify_ls_and_conversation(corpus_copy):
    root = corpus_copy()
    shutil.rmtree(root / "_conversations" / SID)
    v = asz("verify", "--root", str(root))
    assert v.returncode == 1, v.stdout + v.stderr
    lines = v.stdout.splitlines()
    assert lines[0].startswith(f"checked {CORPUS_SESSIONS} session(s), ")
    assert lines[1].startswith(f"checked {CORPUS_SESSIONS - 1} conversation chain(s), ")
    assert f"{root}/_conversations/{SID}: missing chain: session {SID} was parsed (its session index is there) but has no round" in v.stdout
    ls = asz("ls", "--root", str(root))
    assert ls.returncode == 0
    assert _ls_tail(ls.stdout, 2) == [
        f"{CORPUS_SESSIONS - 1} of {CORPUS_SESSIONS - 1} conversations",
        f"1 landed session(s) have no conversation chain and are not listed (1 parsed before: their rounds are gone): "
        f"{SID}; asz parse --root {root} builds them (asz verify names them)"]
    u = asz("usage", "--root", str(root))  # on stdout under a total marked ! (trial 7: stderr only, the total unmarked)
    assert u.returncode == 0 and u.stderr == ""
    assert u.stdout.splitlines()[-1] == (
        f"! 1 landed session(s) have no conversation chain and are not counted (1 parsed before: their rounds "
        f"are gone): {SID}; asz parse --root {root} builds them (asz verify names them)")
    assert [ln for ln in u.stdout.splitlines() if ln.startswith("total")][0].startswith("total !")
    j = asz("usage", "--root", str(root), "--json")
    rows = json.loads(j.stdout)
    assert j.returncode == 0 and rows and all(r["unchained"] == [SID] for r in rows)
    assert f"not counted (1 parsed before: their rounds are gone): {SID};" in j.stderr
    c = asz("conversation", SID[:8], "--root", str(root))
    assert c.returncode == 1
    assert f"conversation '{SID}' has no chain" in c.stderr and f"session {SID} landed in {root}" in c.stderr
    p = asz("parse", "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    again = asz("verify", "--root", str(root))
    assert again.returncode == 0 and "missing chain" not in again.stdout and "not parsed" not in again.stdout
    assert _ls_tail(asz("ls", "--root", str(root)).stdout, 1) == [f"{CORPUS_SESSIONS} of {CORPUS_SESSIONS} conversations"]


def test_a_chain_left_with_no_round_is_listed_read_in_memory_and_not_also_said_unlisted(corpus_copy):
    """Only the round files removed (the chain's directory stays): ls lists the row, read from its landed records in
    memory (``incomplete in memory``: trial 29a F8; it was ``unreadable``), and does not say, in the same answer, that
    the session is not listed (a new user's second trial, finding 10)."""
    root = corpus_copy()
    for f in (root / "_conversations" / SID / "rounds").iterdir():
        f.unlink()
    ls = asz("ls", "--root", str(root))
    assert ls.returncode == 0, ls.stderr
    rows = [ln for ln in ls.stdout.splitlines() if ln.startswith(SID[:8])]
    assert len(rows) == 1 and rows[0].rstrip().endswith("incomplete in memory"), ls.stdout
    assert _ls_tail(ls.stdout, 2) == [f"{CORPUS_SESSIONS} of {CORPUS_SESSIONS} conversations",
                                      f"1 conversation(s) do not verify: their tokens and cost are held back ({SID[:8]} "
                                      "incomplete; asz verify names the problems)"]
    assert "not listed" not in ls.stdout + ls.stderr


def test_sessions_landed_without_a_parse_are_a_note_not_a_problem(corpus_dir, tmp_path):
    root = tmp_path / "root"
    c = asz("collect", "--once", "--no-parse", "--source", str(corpus_dir / "claude-code" / "projects"), "--root", str(root))
    assert c.returncode == 0, c.stdout + c.stderr
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr
    note = [ln for ln in v.stdout.splitlines() if "not parsed yet" in ln]
    assert note and note[0].startswith(f"{CORPUS_SESSIONS} landed session(s) not parsed yet, so no conversation chain "
                                       "(left so by asz collect --no-parse, or by a collect pass stopped before its "
                                       "parse by an asz built before 2026-12-05, which marked no session to be parsed, "
                                       "so the two cannot be told apart here; asz parse builds them): ")
    j = asz("verify", "--root", str(root), "--json")
    assert '"unparsed": 11' in j.stdout and '"ok": true' in j.stdout
    ls = asz("ls", "--root", str(root))
    landed = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("_"))
    assert len(landed) == CORPUS_SESSIONS  # many: the first five named, and a count
    named = f"{', '.join(landed[:5])} and {CORPUS_SESSIONS - 5} more"
    assert ls.stdout.splitlines() == [f"no conversations in {root} (collect and parse sessions into it)",
                                      f"{CORPUS_SESSIONS} landed session(s) have no conversation chain and are not listed: "
                                      f"{named}; asz parse --root {root} builds them (asz verify names them)"]
    line = (f"{CORPUS_SESSIONS} landed session(s) have no conversation chain and are not counted: {named}; asz parse "
            f"--root {root} builds them (asz verify names them)")
    u = asz("usage", "--root", str(root))  # exit 0 as asz ls (trial 3, F9); said on stdout, the total marked ! (trial 7)
    assert u.returncode == 0 and u.stderr == "" and u.stdout.splitlines()[-1] == f"! {line}", u.stdout + u.stderr
    j = asz("usage", "--root", str(root), "--json")
    assert j.returncode == 0 and j.stderr.splitlines() == [f"asz usage: {line}"]


def test_a_clean_parsed_root_keeps_its_report(corpus_collected):
    j = asz("verify", "--root", str(corpus_collected), "--json")
    assert j.returncode == 0
    assert '"unparsed"' not in j.stdout and '"unchained"' not in j.stdout


@pytest.fixture
def receiver(tmp_path):
    r = Receiver(tmp_path / "received", "127.0.0.1:0").start().serve_in_thread()
    yield r
    r.stop()


def test_a_root_filled_by_receive_has_no_cursor_note(corpus_copy, receiver, tmp_path):
    sent = corpus_copy()
    p = asz("push", "--root", str(sent), "--endpoint", f"http://{receiver.address}", cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    v = asz("verify", "--root", str(receiver.root))
    assert v.returncode == 0, v.stdout + v.stderr
    assert UNCURSORED_WORDS not in v.stdout
    assert not list(receiver.root.glob("*/streams/*/*.cursor"))  # a received root holds no cursor at all
    # the same streams in a collected root whose cursors are gone are still said: a collect pass lands them again
    cursors = sorted(sent.glob("*/streams/*/*.cursor"))
    assert cursors
    for c in cursors:
        c.unlink()
    own = asz("verify", "--root", str(sent))
    assert f"{len(cursors)}{UNCURSORED_WORDS}" in own.stdout


def test_a_session_index_with_no_round_while_a_collector_works_is_not_yet_parsed(corpus_copy):
    """A collector indexes every session of its pass before it writes their rounds: while it holds the root's lock
    (here taken for real by this process), an index with no round is 'not parsed yet', not a removed chain; once the
    lock is free it is the 'missing chain' problem again. The readers under the lock run as other processes, as they
    would beside a collector."""
    from asz_core.storage.root import collector_lock, lock_taken
    from asz_core.verify.unparsed import unchained_sessions

    root = corpus_copy()
    shutil.rmtree(root / "_conversations" / SID)
    lock = collector_lock(root)
    assert not lock_taken(lock.path)
    lock.acquire()
    try:
        assert lock_taken(lock.path)
        assert unchained_sessions(root) == ([SID], [], [])
        # asz verify, asz ls and asz usage say the same, and advise no asz parse that would compete with it (trial
        # 29b F6); verify named --no-parse or an old asz's stopped pass, neither true (trial 40d F1)
        why = ("a collector holds the root (asz collect or asz server is at work), so they are not parsed yet; its "
               f"pass builds them: {SID}")
        held = "have no conversation chain yet and are not {}: " + why
        v = asz("verify", "--root", str(root), child=True)
        assert v.returncode == 0 and "missing chain" not in v.stdout and "asz parse" not in v.stdout, v.stdout
        assert [ln for ln in v.stdout.splitlines() if "not parsed yet" in ln] \
            == [f"1 landed session(s) have no conversation chain yet: {why}"], v.stdout
        ls = asz("ls", "--root", str(root), "--json", child=True)
        assert ls.returncode == 0 and f"asz ls: 1 landed session(s) {held.format('listed')}" in ls.stderr.splitlines()
        u = asz("usage", "--root", str(root), "--json", child=True)
        assert u.returncode == 0 and f"asz usage: 1 landed session(s) {held.format('counted')}" in u.stderr.splitlines()
        assert "asz parse" not in ls.stderr + u.stderr
    finally:
        lock.release()
    assert not lock_taken(lock.path)
    assert unchained_sessions(root) == ([], [SID], [])
    ls = asz("ls", "--root", str(root), "--json")
    assert "1 parsed before: their rounds are gone" in ls.stderr and "asz parse --root" in ls.stderr


def test_a_session_whose_lock_a_writer_holds_is_said_naming_the_holder(corpus_copy):
    """A writer (asz parse, asz receive, asz ingest) holding one session's lock, here a real second process taking it
    as they do: asz verify names the holder as the lock file says, not the --no-parse line (session 40 fixed the
    collector's case only); its exit code and counts are unchanged, and once the lock is let go it is the 'missing
    chain' problem again."""
    root = corpus_copy()
    shutil.rmtree(root / "_conversations" / SID)
    code = ("import sys; from asz_core.storage.root import session_lock; session_lock(sys.argv[1], sys.argv[2])"
            ".acquire(); print('held', flush=True); sys.stdin.read()")
    holder = subprocess.Popen([sys.executable, "-c", code, str(root), SID], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        note = (root / SID / ".lock").read_text().strip()  # what the lock file says
        assert note.startswith(f"pid {holder.pid} since 20") and note.endswith("Z"), note
        v = asz("verify", "--root", str(root), "--json")
        assert v.returncode == 0, v.stdout + v.stderr
        got = json.loads(v.stdout)  # the counts' keys as before: counted unparsed, not a removed chain
        assert got["unparsed"] == 1 and "unchained" not in got and got["problems"] == [], got
        v = asz("verify", "--root", str(root))
        assert [ln for ln in v.stdout.splitlines() if SID in ln] == [
            f"1 landed session(s) have no conversation chain yet: another process holds their session lock ({note}), "
            f"so its work may not have reached their parse; asz verify says what is left once it has let go: {SID}"]
        assert "--no-parse" not in v.stdout and "asz parse" not in v.stdout, v.stdout
        for cmd, left_out in (("ls", "listed"), ("usage", "counted")):  # asz ls and asz usage say it as verify does
            got = asz(cmd, "--root", str(root), "--json")
            shown = json.loads(got.stdout)  # not listed by asz ls; asz usage's unchained names it
            assert got.returncode == 0 and shown and (SID not in got.stdout if cmd == "ls" else all(
                r["unchained"] == [SID] for r in shown)), got
            assert [ln for ln in got.stderr.splitlines() if SID in ln] == [
                f"asz {cmd}: 1 landed session(s) have no conversation chain yet and are not {left_out}: another process "
                f"holds their session lock ({note}), so its work may not have reached their parse; asz verify says "
                f"what is left once it has let go: {SID}"], got.stderr
        # the page of asz view says it in asz ls's words, advising no asz parse (close41: it advised asz parse)
        from starlette.testclient import TestClient

        from asz_core.view.server import ViewState, create_app

        page = TestClient(create_app(ViewState(root)), base_url="http://127.0.0.1").get("/api/conversations").json()
        assert SID not in {r["id"] for r in page["conversations"]} and page["note"] == (
            f"1 landed session(s) have no conversation chain yet and are not listed: another process holds their "
            f"session lock ({note}), so its work may not have reached their parse; asz verify says what is left once "
            f"it has let go: {SID}"), page["note"]
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    v = asz("verify", "--root", str(root))
    assert v.returncode == 1 and f"{root}/_conversations/{SID}: missing chain:" in v.stdout, v.stdout
