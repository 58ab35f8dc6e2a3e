"""``asz verify`` over a storage root: every kind of loss or damage is found and the file named.

Roots are landed with the Session Data writer in the documented layout
(origin-digest §2.1) and cursors committed after the files (§2.2). Checks
follow seed 000 (Record: contiguity; Closing line) and origin-digest §3.3, §8.1.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from verify_landing import RootBuilder, change_byte, closing_for, edit_records, jsonl, overwrite

from asz_core.flow.verify_chain import RELAND_SOURCE, reland_command
from asz_core.verify.report import LOST_HINT
from asz_core.verify.walk import DUPLICATES_LINE, OK_LINE, verify_root


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """Two sessions: main in 5 files of 10 records, a child in 3 files, its meta, a workflow run, provider bodies."""
    b = RootBuilder(tmp_path / "root")
    b.land_stream("s1", jsonl(50), per_file=10)
    b.land_stream("s1", jsonl(7, width=300), stream="agent-a1", per_file=3)
    b.land_snapshot("s1", "agent_meta", b'{"agentType":"helper"}', stream="agent-a1")
    b.land_stream("s1", jsonl(5), kind="journal", batch="run1")
    b.land_snapshot("s1", "workflow_manifest", b'{"name":"wf"}', batch="run1")
    b.land_snapshot("s1", "workflow_script", b"export default 1;", batch="run1")
    b.land("s1", "provider_body", [], src=".")
    b.land_stream("s2", jsonl(3))
    return tmp_path / "root"


def files(root: Path, session: str = "s1", stream: str = "main", kind: str = "transcript") -> list[Path]:
    d = root / session / ("runs" if kind in ("journal",) else "streams") / stream
    return sorted(d.glob(f"{kind}-*.sd"))


def problems(root: Path, session: str | None = None) -> list[tuple[str, int, str, str]]:
    """``(file name, line, field, problem)`` of every problem found."""
    report = verify_root(root, session)
    return [(Path(p.file).name, p.line, p.field, p.problem) for p in report.problems]


def test_clean_root(root: Path) -> None:
    report = verify_root(root)
    assert report.ok
    assert report.lines() == ["checked 2 session(s), 8 source file(s), 68 records", OK_LINE]
    assert report.as_dict() == {"sessions": 2, "streams": 8, "sources": 8, "records": 68, "duplicates": 0, "problems": [], "ok": True}


def test_one_session(root: Path) -> None:
    assert verify_root(root, "s2").lines() == ["checked 1 session(s), 1 source file(s), 3 records", OK_LINE]
    with pytest.raises(FileNotFoundError):
        verify_root(root, "s9")


def _unlink(path: Path) -> None:
    os.chmod(path.parent, 0o755)
    path.unlink()


def test_deleting_the_first_file_of_a_stream(root: Path) -> None:
    f = files(root)
    _unlink(f[0])
    assert problems(root) == [(f[1].name, 2, "ord", "ord gap"), (f[1].name, 2, "off", "byte gap")]


def test_deleting_a_middle_file(root: Path) -> None:
    f = files(root)
    _unlink(f[2])
    assert problems(root) == [(f[3].name, 2, "ord", "ord gap"), (f[3].name, 2, "off", "byte gap")]
    detail = verify_root(root).problems[0].detail
    assert detail == "expected ord 21, found 31" + LOST_HINT.format(command=reland_command("s1", root), source=RELAND_SOURCE)
    # the way back, as the whole command to run: the root as verify was given it, and --source DIR (not recorded)
    assert f"asz sources --reland s1 --root {root} --source DIR lands it again from its source (DIR: the folder" in detail


def test_deleting_the_last_file_is_an_end_gap(root: Path) -> None:
    f = files(root)
    _unlink(f[-1])
    report = verify_root(root)
    assert [(Path(p.file).name, p.problem) for p in report.problems] == [("transcript.cursor", "end gap")]
    detail = report.problems[0].detail
    assert f[-2].name in detail and "seq 5" in detail and "ord 50" in detail


def test_deleting_every_file_of_a_stream_is_an_end_gap(root: Path) -> None:
    for f in files(root, stream="agent-a1"):
        _unlink(f)
    assert problems(root) == [("transcript.cursor", 0, "ord", "end gap")]


def test_deleting_a_record_line_with_the_closing_line_fixed(root: Path) -> None:
    f = files(root)[1]
    edit_records(f, lambda recs: recs[:4] + recs[5:], fix_closing=True)
    assert problems(root) == [(f.name, 6, "ord", "ord gap"), (f.name, 6, "off", "byte gap")]


def test_deleting_a_record_line_without_fixing(root: Path) -> None:
    f = files(root)[1]
    edit_records(f, lambda recs: recs[:4] + recs[5:], fix_closing=False)
    got = problems(root)
    assert (f.name, 11, "records", "count mismatch") in got and (f.name, 11, "digest", "digest mismatch") in got
    assert (f.name, 6, "ord", "ord gap") in got


def test_duplicating_a_record_line_with_the_closing_line_fixed(root: Path) -> None:
    f = files(root)[1]
    edit_records(f, lambda recs: recs[:5] + [recs[4]] + recs[5:], fix_closing=True)
    assert problems(root) == [(f.name, 7, "ord", "ord gap"), (f.name, 7, "off", "byte gap")]
    assert verify_root(root).as_dict()["duplicates"] == 0


def test_duplicating_a_record_line_without_fixing(root: Path) -> None:
    f = files(root)[1]
    edit_records(f, lambda recs: recs[:5] + [recs[4]] + recs[5:], fix_closing=False)
    got = problems(root)
    assert (f.name, 13, "digest", "digest mismatch") in got and (f.name, 13, "records", "count mismatch") in got


@pytest.mark.parametrize("keep", [0.1, 0.5, 0.95, -1, -2])
def test_truncating_a_file(root: Path, keep: float) -> None:
    f = files(root)[2]
    data = f.read_bytes()
    cut = int(len(data) * keep) if keep > 0 else len(data) + int(keep)
    overwrite(f, data[:cut])
    got = problems(root)
    assert got and all(name == f.name for name, *_ in got)
    assert any(p == "missing closing line" for *_, p in got), got


def test_truncating_at_a_line_boundary(root: Path) -> None:
    f = files(root)[2]
    lines = f.read_bytes().splitlines(keepends=True)
    overwrite(f, b"".join(lines[:-1]))  # the closing line is gone, every record is whole
    assert problems(root) == [(f.name, 12, "", "missing closing line")]


def test_swapping_two_files_contents(root: Path) -> None:
    a, b = files(root)[1], files(root)[3]
    da, db = a.read_bytes(), b.read_bytes()
    overwrite(a, db)
    overwrite(b, da)
    got = problems(root)
    assert (a.name, 1, "seq", "name mismatch") in got and (b.name, 1, "seq", "name mismatch") in got


def test_swapping_files_of_two_streams(root: Path) -> None:
    a, b = files(root)[-1], files(root, stream="agent-a1")[-1]
    da, db = a.read_bytes(), b.read_bytes()
    overwrite(a, db)
    overwrite(b, da)
    got = problems(root)
    assert (a.name, 1, "stream", "name mismatch") in got and (b.name, 1, "stream", "name mismatch") in got


@pytest.mark.parametrize("extra", [b"x", b"\n", b'{"ord":51,"off":3851,"bytes":3}\n'])
def test_appending_to_a_landed_file(root: Path, extra: bytes) -> None:
    f = files(root)[-1]
    overwrite(f, f.read_bytes() + extra)
    got = problems(root)
    assert got and all(name == f.name for name, *_ in got), got
    assert any(p in ("missing closing line", "bad record") for *_, p in got)


def test_a_writable_file(root: Path) -> None:
    f = files(root)[0]
    os.chmod(f, 0o644)
    assert problems(root) == [(f.name, 0, "mode", "writable")]
    os.chmod(f, 0o440 | 0o020)
    assert problems(root) == [(f.name, 0, "mode", "writable")]


def test_renaming_a_file_to_another_seq(root: Path) -> None:
    f = files(root)[-1]
    os.chmod(f.parent, 0o755)
    new = f.with_name(f.name.replace("-000005.sd", "-000099.sd"))
    os.rename(f, new)
    assert problems(root) == [(new.name, 1, "seq", "name mismatch")]


def test_renaming_onto_a_seq_another_file_holds(root: Path) -> None:
    f = files(root)[-1]
    other = files(root, stream="agent-a1")[0]  # seq 6
    new = f.with_name(f.name.replace("-000005.sd", "-000006.sd"))
    os.rename(f, new)
    got = problems(root)
    assert (new.name, 1, "seq", "name mismatch") in got
    dup = [p for p in verify_root(root).problems if p.problem == "duplicate seq"]
    assert len(dup) == 1 and other.name in dup[0].file + dup[0].detail and new.name in dup[0].file + dup[0].detail


def test_a_file_moved_to_another_session(root: Path) -> None:
    f = files(root, session="s2")[0]
    dest = root / "s1" / "streams" / "main" / f.name.replace("-000001.sd", "-000077.sd")
    shutil.copy2(f, dest)
    got = problems(root)
    assert (dest.name, 1, "session", "name mismatch") in got


def test_a_kind_prefix_that_disagrees_with_the_header(root: Path) -> None:
    f = files(root)[0]
    new = f.with_name(f.name.replace("transcript-", "changes-"))
    os.rename(f, new)
    got = problems(root)
    assert (new.name, 1, "kind", "name mismatch") in got


def test_records_landed_twice_by_an_interrupted_pass(tmp_path: Path) -> None:
    """The file landed, the cursor did not move, the next pass landed the same records again."""
    b = RootBuilder(tmp_path / "root")
    data = jsonl(12)
    b.land_stream("s", data[: data.index(b'"n":9,')].rsplit(b"\n", 1)[0] + b"\n", per_file=4, cursor=False)  # ords 1-8
    b.land_stream("s", data, per_file=0)  # a pass from the start again: ords 1-12, cursor at 12
    report = verify_root(tmp_path / "root")
    assert report.ok, report.lines()
    assert report.as_dict()["duplicates"] == 8
    assert report.lines() == ["checked 1 session(s), 1 source file(s), 20 records", DUPLICATES_LINE.format(n=8), OK_LINE]


def test_records_landed_twice_at_the_tail(tmp_path: Path) -> None:
    from asz_core.sessiondata import SDWriter
    from verify_landing import record_for, split_lines

    b = RootBuilder(tmp_path / "root")
    data = jsonl(10)
    b.land_stream("s", data, per_file=6)  # files: 1-6, 7-10
    lines = split_lines(data)
    b.land("s", "transcript", [record_for(*x) for x in lines[7:]], stream="main")  # 8-10 again
    report = verify_root(tmp_path / "root")
    assert report.ok and report.as_dict()["duplicates"] == 3


def test_a_repeat_that_differs_is_not_a_duplicate(tmp_path: Path) -> None:
    from verify_landing import record_for

    b = RootBuilder(tmp_path / "root")
    b.land_stream("s", jsonl(4))
    rec = record_for(3, 5, b"different")
    b.land("s", "transcript", [rec], stream="main")
    got = problems(tmp_path / "root")
    assert [p for *_, p in got] == ["ord gap", "byte gap"]


def test_a_temp_file_left_over_is_ignored(root: Path) -> None:
    d = files(root)[0].parent
    (d / ".transcript-20260101T000000.000000000Z-000099.sd.4242.tmp").write_bytes(b"half a file")
    assert verify_root(root).ok


def test_an_unexpected_sd_name_is_reported(root: Path) -> None:
    f = files(root)[0]
    shutil.copy(f, f.parent / "transcript-copy.sd")
    assert problems(root) == [("transcript-copy.sd", 0, "", "unexpected file")]


def test_a_one_document_file_holding_more(root: Path) -> None:
    f = next((root / "s1" / "streams" / "agent-a1").glob("meta-*.sd"))
    edit_records(f, lambda recs: recs + [recs[0].replace(b'"ord":1,"off":0', b'"ord":2,"off":23')], fix_closing=True)
    assert problems(root) == [(f.name, 3, "ord", "ord gap"), (f.name, 3, "off", "byte gap")]


def test_a_bad_cursor_is_reported(root: Path) -> None:
    c = root / "s2" / "streams" / "main" / "transcript.cursor"
    c.write_text(c.read_text().replace("offset", "offset          many\n#"))
    assert problems(root) == [("transcript.cursor", 0, "", "bad cursor")]


def test_a_directory_in_a_cursors_place_is_a_bad_cursor(root: Path) -> None:
    """Trial 4, F8: a directory where the cursor should be was a traceback (IsADirectoryError); it is a bad cursor,
    named with why, and the rest of the root is still checked."""
    c = root / "s2" / "streams" / "main" / "transcript.cursor"
    c.unlink()
    c.mkdir()
    got = verify_root(root)
    assert [(Path(p.file).name, p.line, p.field, p.problem) for p in got.problems] == [("transcript.cursor", 0, "", "bad cursor")]
    assert "transcript.cursor: unreadable: Is a directory; asz collect sets it aside (ROOT/_set_aside/" in got.problems[0].detail


def test_records_beyond_the_cursor_are_fine(root: Path) -> None:
    """A pass that landed a file but died before its cursor moved: the records reach past the cursor."""
    from asz_core.storage import cursor_path, read_cursor, write_cursor

    from asz_core.storage.layout import parse_landed_name
    from asz_core.verify.walk import check_landed_file

    c = cursor_path(files(root)[0].parent, "transcript")
    cur = read_cursor(c)
    saved = read_cursor(c)
    second = files(root)[1]  # the pass landed the files after this one, then died: its cursor still names this one
    last = check_landed_file(second).positions[-1]
    cur.ord, cur.offset, cur.last_seq = last.ord, last.off + last.bytes + 1, parse_landed_name(second.name).seq
    write_cursor(c, cur)
    assert verify_root(root).ok

    # the same cursor moved back while it still names the last file: the files it names hold more than it says
    saved.ord, saved.offset = last.ord, last.off + last.bytes + 1
    write_cursor(c, saved)
    got = verify_root(root)
    assert [(p.problem, p.field) for p in got.problems] == [("cursor behind", "ord")]
    assert f"last_seq {saved.last_seq}" in got.problems[0].detail and "moved back or damaged" in got.problems[0].detail


def test_a_cursor_cut_short_or_missing(root: Path) -> None:
    """A cut cursor is a bad cursor (verify) and an unreadable one (collect); a lost one is a note, not a failure."""
    import os

    from asz_core.storage import cursor_path
    from asz_core.verify.walk import UNCURSORED_LINE

    c = cursor_path(files(root)[0].parent, "transcript")
    text = c.read_bytes()
    c.write_bytes(text[:100])
    got = verify_root(root)
    assert [(p.file.endswith("transcript.cursor"), p.problem) for p in got.problems] == [(True, "bad cursor")]
    assert "cut short" in got.problems[0].detail or "missing" in got.problems[0].detail
    c.write_bytes(text[: text.index(b"last_seq")])  # whole lines, the later keys gone
    got = verify_root(root)
    assert [p.problem for p in got.problems] == ["bad cursor"] and "last_seq: missing" in got.problems[0].detail
    os.unlink(c)
    got = verify_root(root)
    assert got.ok and UNCURSORED_LINE.format(n=1) not in got.lines()  # no collect pass landed s1 here: no note
    from asz_core.storage.root import SESSION_STATE, write_state

    # as a collect pass leaves it: session.state says a collect pass landed this session here (trial finding 9)
    write_state(files(root)[0].parents[2] / SESSION_STATE, (("next_seq", 12), ("liveness", "unknown")))
    got = verify_root(root)
    assert got.ok and UNCURSORED_LINE.format(n=1) in got.lines()


def test_every_single_byte_change_of_a_landed_file_is_found(tmp_path: Path) -> None:
    """Exhaustive over one small landed file in a root: each position flipped, mode left read-only."""
    b = RootBuilder(tmp_path / "root")
    (f,) = b.land_stream("s", jsonl(3, width=5))
    original = f.read_bytes()
    assert verify_root(tmp_path / "root").ok
    for pos in range(len(original)):
        for value in {original[pos] ^ 0x01, original[pos] ^ 0x20}:
            change_byte(f, pos, value)
            report = verify_root(tmp_path / "root")
            assert not report.ok, f"byte {pos} -> {value:#04x} went unnoticed"
            assert all(Path(p.file).name in (f.name, "transcript.cursor") for p in report.problems)
            assert any(Path(p.file).name == f.name for p in report.problems)
        overwrite(f, original)


def test_cli_reports_root_problems(root: Path, tmp_path: Path) -> None:
    import json

    from test_verify_file import run

    got = run("verify", "--root", str(root), cwd=tmp_path)
    assert got.returncode == 0
    assert got.stdout.splitlines() == [
        "checked 2 session(s), 8 source file(s), 68 records",
        "checked 0 conversation chain(s), 0 round(s)",
        "checked 0 provider bodies: 0 rebuilt to their digest",  # the fixture lands one empty provider_body file
        # landed, never parsed: said, not a problem (trial finding 10)
        "2 landed session(s) not parsed yet, so no conversation chain (left so by asz collect --no-parse, or by a "
        "collect pass stopped before its parse by an asz built before 2026-12-05, which marked no session to be parsed, "
        "so the two cannot be told apart here; asz parse builds them): s1, s2",
        OK_LINE,
    ]
    f = files(root)[1]
    _unlink(f)
    got = run("verify", "--root", str(root), cwd=tmp_path)
    assert got.returncode == 1
    out = got.stdout.splitlines()
    assert out[0] == "checked 2 session(s), 8 source file(s), 58 records"
    assert out[3].startswith("2 landed session(s) not parsed yet")  # notes before problems
    assert out[4].startswith(str(files(root)[1]) + ":2: ord gap [ord]: ")
    got = run("verify", "--root", str(root), "--json", cwd=tmp_path)
    d = json.loads(got.stdout)
    assert got.returncode == 1 and d["ok"] is False and d["records"] == 58
    assert d["problems"][0] == {"file": str(files(root)[1]), "line": 2, "field": "ord", "problem": "ord gap", "detail": "expected ord 11, found 21" + LOST_HINT.format(command=reland_command("s1", root), source=RELAND_SOURCE)}
    got = run("verify", "s2", "--root", str(root), cwd=tmp_path)
    assert got.returncode == 0 and got.stdout.splitlines()[0] == "checked 1 session(s), 1 source file(s), 3 records"
    got = run("verify", "nope", "--root", str(root), cwd=tmp_path)
    assert got.returncode == 2 and "no session" in got.stderr


def test_cli_root_from_config_and_default(root: Path, tmp_path: Path) -> None:
    from test_verify_file import run

    work = tmp_path / "work"
    work.mkdir()
    cfg = work / "custom.yaml"
    cfg.write_text(f"storage:\n  root: {root}\n")
    got = run("verify", "--config", str(cfg), cwd=work)
    assert got.returncode == 0, got.stderr
    got = run("verify", cwd=work)  # ./data does not exist here
    assert got.returncode == 2 and "data" in got.stderr
    shutil.copytree(root, work / "data")
    got = run("verify", cwd=work)
    assert got.returncode == 0 and got.stdout.startswith("checked 2 session(s)")
    (work / "asz.yaml").write_text("storage:\n  rooot: x\n")
    got = run("verify", cwd=work)
    assert got.returncode == 2 and "rooot" in got.stderr


def test_a_skeleton_in_place_of_a_landed_file(root: Path) -> None:
    """Retention left a gzip ``.sk`` where a landed file was: it is read, and its records still count."""
    import gzip

    from asz_core.sessiondata.skeleton import skeleton_bytes

    f = files(root)[2]
    sk = f.with_suffix(".sk")
    sk.write_bytes(gzip.compress(skeleton_bytes(f.read_bytes(), at="2026-10-13T10:00:00Z", generation=1, receiver="accepted", owner="o")))
    os.chmod(sk, 0o444)
    assert verify_root(root).ok  # both there (a removal in progress): the landed file is read
    _unlink(f)
    report = verify_root(root)
    assert report.ok and report.as_dict()["records"] == 68
    os.chmod(sk, 0o644)
    assert problems(root) == [(sk.name, 0, "mode", "writable")]
    os.chmod(sk, 0o444)
    sk.chmod(0o644)
    sk.write_bytes(gzip.compress(gzip.decompress(sk.read_bytes()).replace(b'"receiver":"accepted"', b'"receiver":"maybe"')))
    sk.chmod(0o444)
    assert [p[2:] for p in problems(root)][:1] == [("removed", "bad header")]


def test_a_journal_filed_under_another_run(root: Path) -> None:
    f = next((root / "s1" / "runs" / "run1").glob("journal-*.sd"))
    other = root / "s1" / "runs" / "run2"
    other.mkdir()
    shutil.copy2(f, other / f.name.replace("-000010.sd", "-000050.sd"))
    got = problems(root)
    assert ("journal-20260101T000000.000000000Z-000050.sd", 1, "batch", "name mismatch") in got


def test_a_closing_line_cut_or_not_last_is_named_as_such(root: Path) -> None:
    """The final newline cut: the closing line is named, not taken for a record; a line added after it: the closing line is named."""
    f = files(root)[-1]
    whole = f.read_bytes()
    last = whole.count(b"\n")  # the closing line's number
    overwrite(f, whole[:-1])
    got = problems(root)
    assert got == [(f.name, last, "", "missing closing line")], got
    overwrite(f, whole + b'{"type":"user"}\n')
    got = problems(root)
    assert (f.name, last, "t", "closing line not last") in got and (f.name, last + 2, "", "missing closing line") in got
    assert not any(line == last and p == "bad record" for _, line, _, p in got)


def test_a_directory_that_is_no_storage_root_is_refused(root: Path, tmp_path: Path) -> None:
    """A session directory, or a directory of other directories, verified as a root would pass with nothing in it."""
    with pytest.raises(FileNotFoundError, match="not a storage root but a session directory in one: asz verify s1 --root"):
        verify_root(root / "s1")
    projects = tmp_path / "projects"
    (projects / "-Users-me-app").mkdir(parents=True)
    (projects / "-Users-me-app" / "0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl").write_text("{}\n")
    with pytest.raises(FileNotFoundError, match=r"not a storage root: none of its 1 directory \(-Users-me-app\) holds streams/"):
        verify_root(projects)
    assert verify_root(root).ok and verify_root(root, "s2").ok
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="no landed data in .*: nothing to verify"):
        verify_root(empty)  # an empty folder is no root, as asz verify says (exit 2), never a clean verdict on nothing


def test_a_directory_holding_only_files_is_refused_with_exit_2(tmp_path: Path) -> None:
    """A folder holding only a file (a transcript, notes) is no root: verify and the reading commands say so, exit 2."""
    from typer.testing import CliRunner

    from asz_core.cli.main import app

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl").write_text("{}\n")
    with pytest.raises(FileNotFoundError, match=r"not a storage root: it holds 1 file\(s\) \(0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl\)"):
        verify_root(folder)
    for cmd in (["verify"], ["ls"], ["usage"]):
        r = CliRunner().invoke(app, [*cmd, "--root", str(folder)])
        assert r.exit_code == 2 and "not a storage root: it holds 1 file(s)" in r.output, (cmd, r.output)
    (folder / "push.state").write_text("")  # a file a root holds beside its sessions
    (folder / "0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl").unlink()
    assert verify_root(folder).as_dict()["sessions"] == 0
