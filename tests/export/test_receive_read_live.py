"""A receiving root owned by another user is read whole while its receiver lands pushes (close43, "Not done"; fix44a;
docs/push.md, Reading a receiving root while hosts push).

Before, :func:`~asz_core.storage.frozen.frozen` took such a root (this process may not write it) as one nothing writes
and opened its derived databases ``immutable``: a reader then read ``_index/ids.sqlite`` while the receiver wrote it
(a page a checkpoint was rewriting read torn). Now ``read_only_db`` reads it through SQLite's own locks
(``mode=ro&readonly_shm=1``) while a writer has it open, and otherwise from a copy taken whole.

Real processes: three corpus projects collected by the real ``asz collect --once``, pushed one after another by the
real pass to a real loopback receiver running here (uid 0, whose capabilities pass over mode bits) into a root whose
folder and ``_index`` belong to uid 65534 (``nobody``); a reader child runs as uid 0 without those capabilities (the
root is then another user's to it: it may read, not write), loops over the id table (``PRAGMA quick_check``, its
sessions) and ``asz ls --json`` until the pushes end. The truth is counted from the files: the session folders and
conversation folders the team root holds, and the sessions the hosts' landed files name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import as_reader, write_secret
from export_helpers import collect_corpus, copied_projects, conversations

PROJECTS = ("-home-user-claude-reliability", "-Users-alex-workspace-personal-site-next", "-home-user-sample-project")
NOBODY = 65534

_READER = r"""
import json, os, sqlite3, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[3])
from cli_helpers import asz_in_process
from asz_core.storage.frozen import NoDatabase, frozen, read_only_db

team, stop = Path(sys.argv[1]), Path(sys.argv[2])
ids = team / "_index" / "ids.sqlite"
last = done = 0
while True:
    ending = stop.exists()
    out = {"frozen": frozen(team), "t": time.time()}
    try:
        if ids.exists():
            try:
                con = read_only_db(ids, timeout=30)
            except NoDatabase:  # made, no table in it yet: nothing to read, as before it was made (fix46a)
                out["no_table"] = True
            else:
                out["check"] = con.execute("PRAGMA quick_check").fetchall()
                out["sessions"] = con.execute("SELECT count(*) FROM sessions").fetchone()[0]
                con.close()
        p = asz_in_process("ls", "--json", "--root", str(team))
        out["ls"] = p.returncode
        out["rows"] = len(json.loads(p.stdout)) if p.returncode == 0 else p.stderr[-400:]
    except Exception as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
    print(json.dumps(out), flush=True)
    if ending:
        break
"""


def _writes_refused(team: Path) -> bool:
    probe = subprocess.run([sys.executable, "-c", f"open({str(team / '_index' / 'probe')!r}, 'w')"], capture_output=True,
                           preexec_fn=as_reader)
    return probe.returncode != 0


@pytest.mark.slow
def test_a_reader_of_another_users_receiving_root_reads_it_whole_while_pushes_land(corpus_dir, tmp_path):
    from asz_core.export.credentials import read_token_file
    from asz_core.export.push import push
    from asz_core.export.receive import Receiver
    from asz_core.export.settings import ExportConfig

    if os.geteuid() != 0:
        pytest.skip("needs uid 0: the team root is made another user's (chown) and the reader run as a user")
    hosts = []
    for i, project in enumerate(PROJECTS):
        base = tmp_path / f"host{i}"
        collect_corpus(copied_projects(corpus_dir, base / "src", (project,)), base / "root", base)
        hosts.append(base / "root")
    team = tmp_path / "team"
    (team / "_index").mkdir(parents=True)
    for d in (team, team / "_index"):
        os.chown(d, NOBODY, NOBODY)
        os.chmod(d, 0o755)
    if not _writes_refused(team):
        pytest.skip("the reader's writes are not refused here (uid 0 keeps its capabilities)")
    tokens = tmp_path / "tokens"
    write_secret(tokens, "alice tok-44a\n")
    stop = tmp_path / "stop"
    tests_dir = str(Path(__file__).resolve().parents[1])
    # the reader forked before the receiver's gRPC threads start (fix46a: a fork beside them once died before its exec,
    # its stderr gRPC's 'epoll_wait error: Bad file descriptor', and the reader printed nothing)
    reader = subprocess.Popen([sys.executable, "-c", _READER, str(team), str(stop), tests_dir], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, preexec_fn=as_reader,
                              env={**os.environ, "HOME": str(tmp_path)}, cwd=tmp_path)
    rcv = None
    try:
        first = reader.stdout.readline()  # the reader is reading before the first push
        assert first, reader.stderr.read()[-2000:]
        rcv = Receiver(team, "127.0.0.1:0", token=read_token_file(tokens)).start().serve_in_thread()
        for i, host in enumerate(hosts):
            cfg = ExportConfig(instance_id=f"dev@host{i}", headers={"Authorization": "Bearer tok-44a"})
            rep = push(host, cfg, endpoint=f"{('grpc', 'http')[i % 2]}://{rcv.address}")
            assert rep.ok and rep.files, rep.problems
    finally:
        stop.touch()
        out, err = reader.communicate(timeout=600)
        if rcv is not None:
            rcv.stop()
    assert reader.returncode == 0, err[-2000:]
    seen = [json.loads(line) for line in [first, *out.splitlines()]]
    assert len(seen) >= 2, (out, err[-2000:])
    assert all(s["frozen"] for s in seen)  # the reader may not write this root: it is read without a write
    assert [s for s in seen if "error" in s or s.get("ls") != 0] == []
    assert all(s["check"] == [("ok",)] or s["check"] == [["ok"]] for s in seen if "check" in s)
    counts = [s["sessions"] for s in seen if "sessions" in s]
    assert counts == sorted(counts)  # never a session read and then not: each read is one whole state
    read = [i for i, s in enumerate(seen) if "sessions" in s]
    assert not read or not any("no_table" in s for s in seen[read[0]:])  # no table read after one was
    sessions = {rel.split("/", 1)[0] for h in hosts for rel in (p.relative_to(h).as_posix() for p in h.rglob("*.sd"))
                if "/streams/" in rel}
    held = {p.name for p in team.iterdir() if p.is_dir() and (p / "streams").is_dir()}
    assert held == sessions
    assert counts[-1] == len(sessions)
    assert seen[-1]["rows"] == len(conversations(team))
    assert not (team / "_index" / "probe").exists()


def test_an_id_table_being_made_is_read_with_all_its_tables_or_as_none(tmp_path):
    """fix46a: the reader above once read ``no such table: sessions`` after ``PRAGMA quick_check`` said ok. Its cause,
    made certain: a reader opening the root's id table while the real writer (:func:`~asz_core.flow.shared_ids.known_sessions`
    on a new root) makes it read an empty file or its header alone (no table), or ``sessions`` alone (one table a
    statement). Before, 95 creations of 100 were read so at least once in a loop like this one. Now the writer makes its
    tables in one transaction and :func:`read_only_db` raises NoDatabase for a file holding no table yet: every read
    is the four tables, or nothing to read."""
    import sqlite3
    import threading

    from asz_core.flow.shared_ids import known_sessions
    from asz_core.storage.frozen import NoDatabase, read_only_db

    bad: list[str] = []
    whole = none = 0
    for n in range(20):
        root = tmp_path / f"r{n}"
        (root / "_index").mkdir(parents=True)
        path, done = root / "_index" / "ids.sqlite", threading.Event()

        def read() -> None:
            nonlocal whole, none
            while not done.is_set():
                if not path.exists():
                    continue
                try:
                    con = read_only_db(path, timeout=30)
                except NoDatabase:
                    none += 1
                    continue
                try:
                    tables = sorted(t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'"))
                    con.execute("SELECT count(*) FROM sessions s JOIN clusters c ON c.no = s.no").fetchone()
                except sqlite3.Error as exc:
                    tables = [f"{type(exc).__name__}: {exc}"]
                finally:
                    con.close()
                if tables == ["clusters", "ids", "partners", "sessions"]:
                    whole += 1
                else:
                    bad.append(", ".join(tables) or "no table")

        reader = threading.Thread(target=read)
        reader.start()
        try:
            assert known_sessions(root) == set()
        finally:
            done.set()
            reader.join()
        con = read_only_db(path)  # made: read whole once its writer has gone
        assert sorted(t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'")) == [
            "clusters", "ids", "partners", "sessions"]
        con.close()
    assert bad == []
    assert whole + none > 0


def test_a_file_with_no_table_yet_is_no_database_to_read(tmp_path):
    """An empty file (what SQLite's open leaves before the first write) and a database with its header alone (after
    ``PRAGMA journal_mode=WAL``, before a table) read as no database, as a file not there does; its readers then read
    without it (the id table of a read-only root: 'holds no id table')."""
    import sqlite3

    from asz_core.flow.shared_ids import known_sessions
    from asz_core.storage.frozen import NoDatabase, read_only_db

    path = tmp_path / "_index" / "ids.sqlite"
    path.parent.mkdir()
    with pytest.raises(NoDatabase, match="unable to open database file"):
        read_only_db(path)
    path.touch()
    with pytest.raises(NoDatabase, match="no table in it yet"):
        read_only_db(path)
    w = sqlite3.connect(path)
    w.execute("PRAGMA journal_mode=WAL")
    assert path.stat().st_size == 4096  # the header written, no table
    with pytest.raises(NoDatabase, match="no table in it yet"):
        read_only_db(path)
    w.close()
    for d in (tmp_path, path.parent):
        d.chmod(0o555)
    path.chmod(0o444)
    try:  # a read-only root (chmod -R a-w) whose id table holds no table yet: as one holding no id table
        with pytest.raises(sqlite3.OperationalError, match="the root is read-only and holds no id table"):
            known_sessions(tmp_path)
    finally:
        for d in (tmp_path, path.parent):
            d.chmod(0o755)


def _rows(con) -> tuple[int, int]:
    return tuple(con.execute("SELECT count(*), coalesce(sum(length(b)), 0) FROM t").fetchone())


def test_a_database_another_user_may_write_is_read_one_whole_state_at_a_time(tmp_path):
    """The mechanism of the test above, made certain: a database whose folder keeps its owner's write bit (a root of
    another user's receiver) read while a real SQLite writer commits and checkpoints. Before, the reader opened it
    ``immutable`` and, its page cache too small to hold the file, read a table neither before nor after the writes
    (1,339 rows of 200 bytes, where there were 2,000 and then 4,666)."""
    import sqlite3

    from asz_core.storage.frozen import read_only_db, still

    folder = tmp_path / "_index"
    folder.mkdir()
    path = folder / "ids.sqlite"
    w = sqlite3.connect(path)
    w.execute("PRAGMA journal_mode=WAL")
    w.execute("CREATE TABLE t(a, b)")
    w.executemany("INSERT INTO t VALUES (?, ?)", [(i, "x" * 200) for i in range(2000)])
    w.commit()
    w.close()  # no log nor shared-memory file left: no writer has it open
    assert sorted(p.name for p in folder.iterdir()) == ["ids.sqlite"] and not still(path)
    r = read_only_db(path)
    r.execute("PRAGMA cache_size=5")
    assert _rows(r) == (2000, 400000)
    again = read_only_db(path)  # opened again, unchanged: the copy taken is opened, not a second one (review44)
    assert again.execute("PRAGMA database_list").fetchone()[2] == r.execute("PRAGMA database_list").fetchone()[2] != str(path)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):  # a write raises, as on the database itself
        again.execute("INSERT INTO t VALUES (0, '')")
    again.close()
    w = sqlite3.connect(path)
    w.executemany("INSERT INTO t VALUES (?, ?)", [(i, "y" * 300) for i in range(5000)])
    w.commit()
    w.execute("DELETE FROM t WHERE a % 3 = 0")
    w.commit()
    w.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the writer's pages now in the file the reader reads
    now = _rows(w)
    assert now == (1333 + 3333, 1333 * 200 + 3333 * 300)  # a % 3 == 0 gone: 667 of the 2,000, 1,667 of the 5,000
    assert _rows(r) == (2000, 400000)  # the state it opened, whole
    assert r.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    live = read_only_db(path)  # the writer has it open: read through its locks, the newest state
    live.execute("PRAGMA cache_size=5")
    assert _rows(live) == now
    live.execute("BEGIN")
    assert _rows(live) == now
    w.executemany("INSERT INTO t VALUES (?, ?)", [(i, "z" * 100) for i in range(3000)])
    w.commit()
    w.execute("PRAGMA wal_checkpoint(PASSIVE)")
    assert _rows(live) == now  # one read transaction, one state
    live.execute("COMMIT")
    assert _rows(live) == _rows(w) == (now[0] + 3000, now[1] + 300000)
    assert live.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    live.close()
    w.close()  # no writer again, and the file changed since it was copied: copied anew, its newest state
    fresh = read_only_db(path)
    assert _rows(fresh) == (now[0] + 3000, now[1] + 300000)
    assert fresh.execute("PRAGMA database_list").fetchone()[2] != r.execute("PRAGMA database_list").fetchone()[2]
    fresh.close()
    r.close()
