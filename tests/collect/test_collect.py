"""The collect pass against the eight append steps, snapshots and pruning (origin-digest §2.2), in-process."""

from __future__ import annotations

import os
from pathlib import Path
import shutil

import orjson
import pytest

from asz_core.sessiondata import SDReader, format_rfc3339, read_file
from asz_core.sessiondata.times import parse_instant
from asz_core.storage import read_cursor
from asz_core.storage.layout import landed_files, parse_landed_name

import forked
from collect_helpers import all_files_ok, append, landed, line, poke, source_lines, stream_files


def test_rerun_lands_nothing(dirs, runner):
    src, root = dirs
    append(src / "s1" / "main.jsonl", *(line(i) for i in range(50)))
    run = runner()
    first = run()
    assert (first.landed, first.records, first.conflicts, first.errors) == (1, 50, 0, 0)
    files = sorted(root.rglob("*.sd"))
    again = run()
    assert (again.landed, again.records, again.bytes) == (0, 0, 0)
    assert sorted(root.rglob("*.sd")) == files
    # a new process (a new Collector) agrees
    assert runner()().landed == 0


def test_a_session_with_nothing_new_is_passed_over_without_its_lock(dirs, runner):
    # Another writer holds the session's lock. A pass with nothing new reads only stats, cursors and the
    # snapshot's bytes, so it neither waits nor reports busy; once a line or a new snapshot content arrives,
    # the pass needs the lock and says the session is busy.
    from asz_core.storage.root import session_lock

    src, root = dirs
    main = src / "s1" / "main.jsonl"
    meta = src / "s1" / "a1.meta.json"
    append(main, *(line(i) for i in range(5)))
    meta.write_text('{"agentType":"x"}\n')
    run = runner(lock_timeout=0.0)
    first = run()
    assert (first.landed, first.records, first.busy) == (2, 6, 0)
    with session_lock(root, "s1"):
        again = run()
        assert (again.sessions, again.sources, again.landed, again.busy, again.errors) == (1, 2, 0, 0, 0)
        meta.write_text('{"agentType":"y"}\n')
        assert run().busy == 1
        meta.write_text('{"agentType":"x"}\n\n')  # the landed content again (trailing newlines are not content)
        assert run().busy == 0
        append(main, line(5))
        assert run().busy == 1
    c = run()
    assert (c.landed, c.records, c.busy) == (1, 1, 0)
    assert landed(root, "s1") == source_lines(main)


def test_appending_one_line_lands_exactly_one_record(dirs, runner):
    src, root = dirs
    path = src / "s1" / "main.jsonl"
    append(path, *(line(i) for i in range(10)))
    runner()()
    append(path, line(10))
    c = runner()()
    assert (c.landed, c.records) == (1, 1)
    assert landed(root, "s1") == source_lines(path)
    newest = stream_files(root, "s1")[-1]
    _, recs, _ = read_file(newest)
    assert [(r.ord, r.off) for r in recs] == [source_lines(path)[-1][:2]]


def test_line_written_in_two_halves_lands_once_whole(dirs, runner):
    src, root = dirs
    path = src / "s1" / "main.jsonl"
    append(path, line(0))
    whole = line(1, 500)
    run = runner()
    run()
    with open(path, "ab") as f:
        f.write(whole[:200])
    c = run()
    assert (c.landed, c.records, c.pending) == (0, 0, 0)  # a partial last line waits, and is not pending
    with open(path, "ab") as f:
        f.write(whole[200:] + b"\n")
    c = run()
    assert (c.landed, c.records) == (1, 1)
    assert landed(root, "s1") == source_lines(path)
    _, recs, _ = read_file(stream_files(root, "s1")[-1])
    assert recs[0].bytes == len(whole)
    assert recs[0].parts[0].data_value() == orjson.loads(whole)


def test_truncated_source_is_a_sticky_conflict_and_keeps_what_landed(dirs, runner):
    src, root = dirs
    path = src / "s1" / "main.jsonl"
    append(path, *(line(i) for i in range(20)))
    run = runner()
    run()
    before = {p: p.read_bytes() for p in root.rglob("*.sd")}
    path.write_bytes(b"".join(line(i) + b"\n" for i in range(5)))
    c = run()
    assert c.conflicts == 1 and c.landed == 0
    assert run.err.count("conflict:") == 1
    assert str(path) in run.err and "truncated" in run.err
    cur = read_cursor(root / "s1" / "streams" / "main" / "transcript.cursor")
    assert cur.state == "conflict" and "truncated" in cur.reason
    # sticky: later passes only count it, even once the file has grown back
    append(path, *(line(i) for i in range(5, 40)))
    c = run()
    assert c.conflicts == 1 and c.landed == 0
    assert run.err.count("conflict:") == 1
    assert {p: p.read_bytes() for p in root.rglob("*.sd")} == before
    assert all_files_ok(root) == []


def test_rewritten_source_same_size_other_tail_is_a_conflict(dirs, runner):
    src, root = dirs
    path = src / "s1" / "main.jsonl"
    append(path, *(line(i) for i in range(20)))
    run = runner()
    run()
    poke(path, 30)  # same size, one byte changed, same inode
    append(path, line(20))
    c = run()
    assert c.conflicts == 1 and c.landed == 0
    assert "rewritten" in run.err
    assert read_cursor(root / "s1" / "streams" / "main" / "transcript.cursor").state == "conflict"


def test_same_size_rewrite_with_nothing_new_is_a_conflict_and_keeps_what_landed(dirs, runner):
    """Step 3: size == offset and the same inode, but the mtime is not the cursor's: one byte of a landed line changed
    in place (same size) is a rewrite, refused as a sticky conflict naming the file, what landed kept (as a shrunk or
    otherwise rewritten source)."""
    src, root = dirs
    path = src / "s1" / "main.jsonl"
    append(path, *(line(i) for i in range(3)))
    run = runner()
    run()
    before = {p: p.read_bytes() for p in root.rglob("*.sd")}
    size = path.stat().st_size
    poke(path, 5)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # a later write, whatever the clock's tick
    assert path.stat().st_size == size
    c = run()
    assert (c.conflicts, c.landed) == (1, 0)
    cp = root / "s1" / "streams" / "main" / "transcript.cursor"
    assert (f"conflict: {path}: rewritten in place (same size, modified since it landed): the {size} bytes before "
            f"offset {size} changed") in run.err
    cur = read_cursor(cp)
    assert cur.state == "conflict" and cur.reason.startswith("rewritten in place")
    assert {p: p.read_bytes() for p in root.rglob("*.sd")} == before
    c = run()
    assert (c.conflicts, c.landed) == (1, 0) and run.err.count("conflict:") == 1  # sticky, told once


def test_a_touched_source_with_the_same_bytes_is_hashed_once_and_not_a_conflict(dirs, runner):
    """Only the mtime moved (touch, or the same bytes written again): the tail still matches, the cursor keeps the new
    mtime, and the next pass is again a stat alone."""
    src, root = dirs
    path = src / "s1" / "main.jsonl"
    append(path, *(line(i) for i in range(3)))
    run = runner()
    run()
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    c = run()
    assert (c.conflicts, c.landed, c.errors) == (0, 0, 0)
    assert read_cursor(root / "s1" / "streams" / "main" / "transcript.cursor").mtime == st.st_mtime_ns + 1_000_000


def test_new_inode_with_the_same_bytes_is_adopted(dirs, runner):
    src, root = dirs
    path = src / "s1" / "main.jsonl"
    append(path, *(line(i) for i in range(10)))
    run = runner()
    run()
    old_ino = path.stat().st_ino
    copy = path.with_name("copy.tmp")
    shutil.copyfile(path, copy)
    append(copy, line(10))
    os.replace(copy, path)
    assert path.stat().st_ino != old_ino
    c = run()
    assert (c.conflicts, c.landed, c.records) == (0, 1, 1)
    cur = read_cursor(root / "s1" / "streams" / "main" / "transcript.cursor")
    assert cur.ino == path.stat().st_ino and cur.state == "active"
    assert landed(root, "s1") == source_lines(path)


def test_new_inode_with_other_bytes_is_a_conflict(dirs, runner):
    src, root = dirs
    path = src / "s1" / "main.jsonl"
    append(path, *(line(i) for i in range(10)))
    run = runner()
    run()
    path.unlink()
    append(path, *(line(i, 300) for i in range(10)))
    c = run()
    assert c.conflicts == 1 and "rewritten" in run.err


def test_a_3mb_line_lands_alone_shrunk_still_one_record(dirs, runner):
    src, root = dirs
    path = src / "s1" / "main.jsonl"
    big = line(1, 3_000_000)
    append(path, line(0), big, line(2))
    c = runner(max_delta_bytes=2 * 1024 * 1024)()
    assert c.records == 3 and c.errors == 0
    files = stream_files(root, "s1")
    assert len(files) == 3
    sizes = [p.stat().st_size for p in files]
    assert max(sizes) <= 2 * 1024 * 1024
    _, recs, closing = read_file(files[1])
    assert closing.records == 1 and len(recs) == 1
    rec = recs[0]
    assert (rec.ord, rec.off, rec.bytes) == (2, len(line(0)) + 1, len(big))
    assert rec.parts[0].state == "too_large" and rec.parts[0].bytes == len(big) and rec.parts[0].sha256
    assert landed(root, "s1") == source_lines(path)
    assert all_files_ok(root) == []


def test_cutting_at_max_delta_bytes_gives_several_contiguous_files(dirs, runner):
    src, root = dirs
    path = src / "s1" / "main.jsonl"
    append(path, *(line(i, 100 + (i * 37) % 900) for i in range(400)))
    budget = 8192
    c = runner(max_delta_bytes=budget)()
    files = stream_files(root, "s1")
    assert c.landed == len(files) > 10
    assert all(p.stat().st_size <= budget for p in files)
    got = landed(root, "s1")
    assert got == source_lines(path)  # ord 1.. with no gap, each off where the previous line ended
    seqs = [parse_landed_name(p.name).seq for p in files]
    assert seqs == list(range(1, len(files) + 1))
    stamps = {parse_landed_name(p.name).stamp for p in files}
    assert len(stamps) == 1  # one pass, one stamp
    cur = read_cursor(root / "s1" / "streams" / "main" / "transcript.cursor")
    assert (cur.offset, cur.ord, cur.last_seq) == (path.stat().st_size, 400, seqs[-1])


def test_windows_per_pass_are_bounded_and_the_rest_is_pending(dirs, runner):
    src, root = dirs
    path = src / "s1" / "main.jsonl"
    append(path, *(line(i, 500) for i in range(100)))
    run = runner(max_delta_bytes=4096, max_windows=3)
    c = run()
    assert c.pending == 1 and c.failed
    n = len(landed(root, "s1"))
    assert 0 < n < 100
    while run().pending:
        pass
    assert landed(root, "s1") == source_lines(path)


def test_header_seq_stamp_and_at(dirs, runner, adapter):
    src, root = dirs
    append(src / "s1" / "main.jsonl", line(0))
    (src / "s1" / "a1.meta.json").write_text('{"agentType":"x"}\n')
    runner()()
    files = landed_files(root / "s1")
    assert [ln.seq for ln, _ in files] == [1, 2]
    stamp = files[0][0].stamp
    for ln, p in files:
        h, _, _ = read_file(p)
        assert h.adapter == adapter.identity == "mini-jsonl/0.1.0"
        assert h.dialect == "mini/1" and h.session == "s1"
        assert ln.stamp == stamp
        ns = parse_instant(h.at)
        assert format_rfc3339(ns) == h.at
        from asz_core.sessiondata import format_stamp

        assert format_stamp(ns) == stamp
    hdr = {read_file(p)[0].kind: read_file(p)[0] for _, p in files}
    assert hdr["transcript"].stream == "main" and hdr["transcript"].src == "s1/main.jsonl"
    assert hdr["agent_meta"].stream == "a1" and hdr["agent_meta"].src == "s1/a1.meta.json"


def test_seq_is_raised_above_the_highest_on_disk(dirs, runner):
    src, root = dirs
    path = src / "s1" / "main.jsonl"
    append(path, line(0))
    runner()()
    state = root / "s1" / "session.state"
    assert "next_seq" in state.read_text()
    state.write_text("next_seq        1\n")  # a stale cache must not win over the files
    skel = root / "s1" / "streams" / "main" / "transcript-20200101T000000.000000000Z-000041.sk"
    skel.write_bytes(b"")  # a skeleton holds its seq too
    append(path, line(1))
    runner()()
    seqs = [ln.seq for ln, _ in landed_files(root / "s1")]
    assert seqs == [1, 42]


def test_snapshot_lands_only_when_the_content_changes(dirs, runner):
    src, root = dirs
    doc = src / "s1" / "a1.meta.json"
    doc.parent.mkdir(parents=True)
    doc.write_text("")
    run = runner()
    assert run().landed == 0  # an empty document lands nothing
    doc.write_text('{"agentType":"x"}')
    assert run().landed == 1
    doc.write_text('{"agentType":"x"}\n\n')  # trailing newlines are trimmed before hashing
    assert run().landed == 0
    doc.write_text('{"agentType":"y"}\n')
    c = run()
    assert (c.landed, c.records) == (1, 1)
    files = stream_files(root, "s1", "a1", "agent_meta")
    assert len(files) == 2
    _, recs, _ = read_file(files[-1])
    assert (recs[0].ord, recs[0].off) == (1, 0)
    assert recs[0].parts[0].data_value() == {"agentType": "y"}


def test_pruned_source_is_gone_and_active_again_when_back(dirs, runner):
    src, root = dirs
    path = src / "s1" / "main.jsonl"
    keep = src / "s1" / "other.jsonl"
    append(path, *(line(i) for i in range(5)))
    append(keep, line(0))
    run = runner()
    run()
    saved = path.read_bytes()
    path.unlink()
    c = run()
    assert c.gone == 1 and c.conflicts == 0 and not c.failed
    cp = root / "s1" / "streams" / "main" / "transcript.cursor"
    assert read_cursor(cp).state == "source_gone"
    assert run().gone == 0  # only active cursors move to source_gone
    path.write_bytes(saved + line(5) + b"\n")
    c = run()
    assert (c.records, c.conflicts) == (1, 0)
    assert read_cursor(cp).state == "active"
    assert landed(root, "s1") == source_lines(path)


def test_a_session_no_longer_discovered_is_checked_once(dirs, runner):
    src, root = dirs
    append(src / "s1" / "main.jsonl", line(0))
    append(src / "s2" / "main.jsonl", line(0))
    run = runner()
    run()
    shutil.rmtree(src / "s2")
    c = run()
    assert c.gone == 1 and c.sessions == 1
    assert read_cursor(root / "s2" / "streams" / "main" / "transcript.cursor").state == "source_gone"
    assert (root / "s2" / "streams" / "main").is_dir()  # landed files are kept


def test_two_sources_into_one_stream_refuse_the_second(dirs, runner):
    src, root = dirs
    append(src / "s1" / "main.jsonl", line(0), line(1))
    append(src / "s1" / "main.ndjson", line(7))
    run = runner()
    c = run()
    assert c.conflicts == 1 and c.records == 2
    assert "main.ndjson" in run.err and "refused" in run.err
    assert read_cursor(root / "s1" / "streams" / "main" / "transcript.cursor").source == "s1/main.jsonl"
    c = run()
    assert c.conflicts == 1 and run.err.count("conflict:") == 1


def test_an_unreadable_source_is_reported_and_the_rest_lands(dirs, runner):
    """Tests run as root, so chmod 000 would not stop a read; a symlink loop cannot be opened by anyone."""
    src, root = dirs
    append(src / "s1" / "main.jsonl", *(line(i) for i in range(3)))
    (src / "s2").mkdir()
    os.symlink("main.jsonl", src / "s2" / "main.jsonl")  # points at itself: ELOOP
    append(src / "s2" / "other.jsonl", line(0))
    fifo = src / "s3" / "main.jsonl"
    fifo.parent.mkdir()
    os.mkfifo(fifo)  # must not hang the pass
    run = runner()
    c = run()
    assert c.errors == 2 and c.records == 4
    assert f"error: {src / 's2' / 'main.jsonl'}: unreadable" in run.err
    assert f"error: {fifo}: unreadable: not a regular file" in run.err
    assert landed(root, "s1") == source_lines(src / "s1" / "main.jsonl")


def test_an_adapter_that_raises_still_lands_the_bytes(dirs, adapter):
    from collect_helpers import Runner

    class Broken(type(adapter)):
        def convert_line(self, source, line, ord, off):
            if b'"i":1}' in line:
                raise RuntimeError("boom")
            return super().convert_line(source, line, ord, off)

    src, root = dirs
    path = src / "s1" / "main.jsonl"
    append(path, line(0), line(1), line(2))
    run = Runner(root, src, Broken(), fsync=False)
    c = run()
    assert c.records == 3 and c.errors == 1 and "boom" in run.err
    assert landed(root, "s1") == source_lines(path)
    _, recs, _ = read_file(stream_files(root, "s1")[0])
    assert recs[1].parts[0].k == "unknown" and recs[1].parts[0].raw() == line(1)


def test_temporaries_of_an_interrupted_writer_are_removed(dirs, runner):
    src, root = dirs
    path = src / "s1" / "main.jsonl"
    append(path, line(0))
    runner()()
    d = root / "s1" / "streams" / "main"
    stale = d / ".transcript-20260101T000000.000000000Z-000002.sd.999999.tmp"
    stale.write_bytes(b"half a file")
    os.chmod(stale, 0o444)
    (d / ".transcript.cursor.999999.tmp").write_text("half")
    append(path, line(1))
    runner()()
    assert not stale.exists() and not (d / ".transcript.cursor.999999.tmp").exists()
    assert all_files_ok(root) == []


def test_landed_files_are_read_only_and_pass_check_file(dirs, runner):
    src, root = dirs
    for s in range(3):
        append(src / f"s{s}" / "main.jsonl", *(line(i, 50 * i) for i in range(30)))
        append(src / f"s{s}" / "agent-a.jsonl", *(line(i) for i in range(3)))
    runner(max_delta_bytes=4096)()
    assert all_files_ok(root) == []
    for ln, p in landed_files(root / "s0"):
        with pytest.raises(PermissionError if os.geteuid() else OSError):
            if os.geteuid() == 0:
                raise OSError("root ignores modes; the mode itself is checked by all_files_ok")
            open(p, "ab")


def test_a_missing_source_root_marks_nothing_gone(dirs, adapter):
    from collect_helpers import Runner

    src, root = dirs
    append(src / "s1" / "main.jsonl", line(0))
    Runner(root, src, adapter, fsync=False)()
    run = Runner(root, src.parent / "typo", adapter, fsync=False)
    c = run()
    assert c.errors == 1 and c.gone == 0 and "typo" in run.err
    assert read_cursor(root / "s1" / "streams" / "main" / "transcript.cursor").state == "active"


def test_a_source_the_writer_refuses_is_an_error_not_a_crash(dirs, adapter):
    from collect_helpers import Runner

    class NoDialect(type(adapter)):
        def discover(self, source_root, *, include=(), exclude=()):
            d = super().discover(source_root, include=include, exclude=exclude)
            for s in d.sources:
                if s.session == "s1":
                    s.dialect = ""
            return d

    src, root = dirs
    append(src / "s1" / "main.jsonl", line(0))
    append(src / "s2" / "main.jsonl", line(0))
    run = Runner(root, src, NoDialect(), fsync=False)
    c = run()
    assert c.errors == 1 and c.records == 1 and "cannot land" in run.err and "dialect" in run.err


def test_counters_name_shrunk_records_and_partial_tails(dirs, runner):
    """A record too large to land whole counts as shrunk; a last line still waiting for its newline counts as partial."""
    src, root = dirs
    (src / "s1").mkdir()
    f = src / "s1" / "main.jsonl"
    big = b'{"text":"' + b"x" * 40_000 + b'"}'
    f.write_bytes(b'{"text":"a"}\n' + big + b"\n" + b'{"text":"half')
    c = runner(max_delta_bytes=16_384)()
    assert (c.records, c.shrunk, c.partial) == (2, 1, 1)
    with open(f, "ab") as out:
        out.write(b' done"}\n')
    c = runner(max_delta_bytes=16_384)()
    assert (c.records, c.shrunk, c.partial) == (1, 0, 0)


def test_a_renamed_project_directory_keeps_its_cursors(tmp_path):
    """A Claude Code project directory renamed (same files: device and inode) is followed, not refused (fresh-user report)."""
    import shutil
    import sys

    repo = Path(__file__).resolve().parents[2]
    src, root = tmp_path / "projects", tmp_path / "root"
    shutil.copytree(repo / "examples/claude-code/projects", src)

    def collect():
        return forked.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--no-parse", "--source", str(src),
                           "--root", str(root)], capture_output=True, text=True)  # forked: its output is read, not its start-up

    assert collect().returncode == 0
    [proj] = [p for p in src.iterdir() if p.is_dir()]
    renamed = proj.with_name(proj.name + "-renamed")
    proj.rename(renamed)
    main = next(renamed.glob("*.jsonl"))
    with open(main, "ab") as out:
        out.write(main.read_bytes().splitlines(keepends=True)[-1])
    second = collect()
    assert second.returncode == 0, second.stderr
    assert "conflicts=0" in second.stdout and "records=1 " in second.stdout
    assert "moved" in second.stderr


def test_a_moved_source_s_cursor_is_written_with_its_new_path_at_once(tmp_path):
    """Trial finding 6: after a rename with no new bytes, the cursors name the new path and ``asz sources`` says active."""
    import sys

    repo = Path(__file__).resolve().parents[2]
    src, root = tmp_path / "projects", tmp_path / "root"
    shutil.copytree(repo / "examples/claude-code/projects", src)

    def asz(*args):
        return forked.run([sys.executable, "-m", "asz_core.cli.main", *args, "--source", str(src), "--root", str(root)],
                          capture_output=True, text=True)  # forked: its output is read, not its start-up

    assert asz("collect", "--once", "--no-parse").returncode == 0
    [proj] = [p for p in src.iterdir() if p.is_dir()]
    renamed = proj.rename(src / "-home-ü ser-项目 dir")
    moved = asz("collect", "--once", "--no-parse")
    assert moved.returncode == 0, moved.stderr
    assert "conflicts=0" in moved.stdout and "records=0 " in moved.stdout
    srcs = sorted(str(p.relative_to(src)) for p in renamed.rglob("*") if p.is_file())
    assert moved.stderr.count("its cursor follows it") == len(srcs) == 3
    # two transcripts (append: followed by device and inode) and one agent meta file (snapshot: by its content)
    assert moved.stderr.count("(same device and inode, old path gone)") == 2
    assert moved.stderr.count("(the content it landed, old path gone)") == 1
    cursors = [read_cursor(cp) for cp in sorted(root.rglob("*.cursor"))]
    assert sorted(c.source for c in cursors) == srcs
    listed = asz("sources", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = [r for a in orjson.loads(listed.stdout)["adapters"] for s in a["sessions"] for r in s["sources"]]
    assert sorted(r["src"] for r in rows) == srcs
    assert {(r["state"], r["reason"]) for r in rows} == {("active", "")}
    again = asz("collect", "--once", "--no-parse")
    assert again.returncode == 0 and "moved" not in again.stderr and "conflicts=0" in again.stdout
