"""What a parse refused by a full file system leaves in conversation chains (``_conversations/<id>/rounds/.r….sf.PID
.tmp``) and session indexes (``<session>/index/.index.state.PID.tmp``) is counted by ``asz verify`` and removed by the
next pass with room, those no live process owns (recheck 26 N2: 236 of them left, verify silent; fixd2: the index's
temporaries were never removed).

Real input: the Claude Code corpus (../shared/corpus/claude-code/projects) copied and landed with ``--no-parse``; the
next ``asz collect --once`` parses under RLIMIT_FSIZE below a round's size and above its index's (EFBIG, as
tests/collect/test_full_disk.py makes a full file system), which leaves the real round temporaries. A chain that pass
did write is current, so the pass with room does not parse it again (its lock is never taken): a temporary of a writer
that is gone is placed there and in its session's index, and one named by a live process (this test's) beside them,
which must stay.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
from pathlib import Path

import forked
from collect_helpers import ASZ, env, summary

from asz_core.storage.root import read_state

PARSE_SAID = ("temporary file(s) a parse left in conversation chains and session indexes (.<name>.<pid>.tmp, e.g. {first}: "
              "a parse killed, or refused by a full disk): they are no part of a chain or an index and are not checked; "
              "the next parse of their conversation removes them, and the next pass with room after a full file system "
              "those no live process owns")


def _collect(src: Path, root: Path, *more: str, limit: int | None = None) -> subprocess.CompletedProcess:
    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    args = [*ASZ, "collect", "--once", "--jobs", "1", "--source", str(src), "--root", str(root), *more]
    if limit:  # a file-size limit set before it runs: a fresh interpreter (the fork server takes no preexec_fn)
        return subprocess.run(args, env=env(), capture_output=True, text=True, timeout=300, preexec_fn=limited)
    return forked.run(args, env=env(), capture_output=True, text=True, timeout=300)  # tests/forked.py


def _temporaries(root: Path) -> list[Path]:
    """Every ``.<name>.tmp`` under ``root``'s chains and session indexes, counted from the file system."""
    return sorted(p for p in root.rglob(".*.tmp") if p.parent.name in ("rounds", "index"))


def _verify_note(root: Path) -> str:
    v = forked.run([*ASZ, "verify", "--root", str(root)], env=env(), capture_output=True, text=True, timeout=300)
    return next((ln.strip() for ln in v.stdout.splitlines() if "a parse left in conversation chains" in ln), "")


#: A session small enough that its index and its round fit under 5,000 bytes: one prompt and its reply.
TINY = "".join(json.dumps({"parentUuid": p, "isSidechain": False, "userType": "external", "cwd": "/home/user/tiny",
                           "sessionId": "f1e1d000-0000-4000-8000-0000000000aa", "version": "2.0.1", "uuid": u,
                           "timestamp": f"2026-11-20T12:0{i}:00.000Z", "type": t, "message": m}) + "\n"
               for i, (p, u, t, m) in enumerate((
                   (None, "t1", "user", {"role": "user", "content": "say hi"}),
                   ("t1", "t2", "assistant", {"id": "msg_tiny", "type": "message", "role": "assistant", "model": "m",
                                              "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn",
                                              "usage": {"input_tokens": 1, "output_tokens": 1}}))))


def parsed_on_a_full_disk(corpus_dir: Path, src: Path, root: Path, limit: int, why: str,
                          tiny: bool = False, held: bool = False) -> subprocess.CompletedProcess:
    """The corpus copied to ``src`` (with :data:`TINY` beside it when ``tiny``) and landed into ``root`` with
    ``--no-parse``, then parsed under RLIMIT_FSIZE of
    ``limit`` bytes: asserts its one ``error:`` line, said once on the root (left27's report: SQLite's ``disk I/O
    error`` on the id table added one line per session whose rounds were written), counting those with no round and
    those with rounds but no id table (``why``: the table's words) from the files, and ``errors=1``. ``held``: the id
    table made (by asz's writer) before the parse, and kept open by another connection through it (a server beside
    the pass), so its log still holds the tables' pages (28,872 bytes) and the parse's first write to it goes past
    ``limit``: the table's own write is refused (its tables made in one transaction, fix46a, they fit under 32 KiB)."""
    shutil.copytree(corpus_dir / "claude-code" / "projects", src)
    if tiny:
        (src / "-home-user-tiny").mkdir()
        (src / "-home-user-tiny" / "f1e1d000-0000-4000-8000-0000000000aa.jsonl").write_text(TINY, encoding="utf-8")
    assert _collect(src, root, "--no-parse").returncode == 0
    sessions = [d for d in root.iterdir() if not d.name.startswith("_") and (d / "streams").is_dir()]
    holder = None
    if held:
        from asz_core.flow.shared_ids import known_sessions

        (root / "_index").mkdir(exist_ok=True)
        holder = sqlite3.connect(root / "_index" / "ids.sqlite")
        holder.execute("PRAGMA journal_mode=WAL")
        holder.execute("SELECT count(*) FROM sqlite_master").fetchone()  # its log opened: asz's close is not the last
        assert known_sessions(root) == set()  # the tables made; their log not checkpointed while the holder reads
    try:
        full = _collect(src, root, limit=limit)
    finally:
        if holder is not None:
            holder.close()
    assert full.returncode == 1 and "file system refused a write (File too large) while parsing" in full.stderr
    chained = [d for d in (root / "_conversations").iterdir() if list((d / "rounds").glob("r*.sf"))]
    assert chained and len(chained) < len(sessions)
    errors = [ln for ln in full.stderr.splitlines() if ln.startswith("error:")]
    assert errors == [f"error: {root}: the storage root's file system refused a write (File too large) while parsing: "
                      f"{len(sessions) - len(chained)} session(s) not parsed this pass; what landed is kept, and a pass "
                      f"with room parses them; {len(chained)} session(s) parsed without the root's id table "
                      f"(_index/ids.sqlite: {why}), so without their links to other sessions, which a pass "
                      "with room draws"], full.stderr
    assert summary(full.stdout)["errors"] == "1"
    return full


def test_a_parse_refused_by_a_full_disk_leaves_temporaries_said_and_swept(corpus_dir, tmp_path):
    src, root = tmp_path / "src", tmp_path / "root"
    # A session's index (entries.jsonl) is written before its round: the limit must let one session's index fit and
    # refuse its round, and let another session's both fit. 5,000 bytes: de3b8b19's index is 3,515 bytes, its round
    # 5,278, and TINY's both are under 2,000. (27,000 was the limit while 0d3a8e6f's round, 27,972 bytes, was larger
    # than its index, 26,099; since its 3 interrupt notices are steps of the talks they interrupted, not talks of their
    # own, trial 43c F1, its round is 25,663: no corpus session's index fits under a limit its round is over while
    # another session's both fit.)
    full = parsed_on_a_full_disk(corpus_dir, src, root, 5_000, "disk I/O error", tiny=True)
    left = _temporaries(root)
    # A session's first index a full disk refused leaves no entries.jsonl (fix41k: it was left cut in place, with no
    # index.state, and verify did not name it); every one there is whole and its state names it.
    indexes = {p.parent.parent.name: p.read_bytes() for p in root.glob("*/index/entries.jsonl")}
    sessions = [d for d in root.iterdir() if not d.name.startswith("_") and (d / "streams").is_dir()]
    assert 0 < len(indexes) < len(sessions)
    assert {s: int(read_state(root / s / "index" / "index.state").get("entries_bytes", -1)) for s in indexes} == {
        s: len(data) for s, data in indexes.items()}
    assert left and all(p.parent.name == "rounds" and p.name.startswith(".r") for p in left), (  # the refused rounds
        left, "no round write was refused: is every session's index now larger than its round?")
    [current, *_] = [d for d in sorted((root / "_conversations").iterdir()) if list((d / "rounds").glob("r*.sf"))]
    gone = subprocess.Popen(["true"])
    gone.wait()  # a writer that no longer runs
    placed = [current / "rounds" / f".r000002-0123456789ab.sf.{gone.pid}.tmp",
              root / current.name / "index" / f".index.state.{gone.pid}.tmp"]
    owned = root / current.name / "index" / f".index.state.{os.getpid()}.tmp"  # a live process's: kept
    for p in (*placed, owned):
        p.write_bytes(b"schema 1\n")
    every = _temporaries(root)
    assert len(every) == len(left) + 3
    first = every[0].relative_to(root).as_posix()
    assert _verify_note(root) == f"{len(every)} " + PARSE_SAID.format(first=first)
    again = _collect(src, root)
    assert again.returncode == 0, again.stderr
    assert int(summary(again.stdout)["rounds"]) > 0
    assert _temporaries(root) == [owned]  # the parse's and the placed ones gone, the live process's kept
    assert _verify_note(root).startswith("1 temporary file(s) a parse left")
    owned.unlink()
    assert _verify_note(root) == ""
