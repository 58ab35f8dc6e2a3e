"""``asz verify PATH``: one file on its own (seed 000, Closing line; the released writer's fixture)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import asz_in_process
from rewrite import rewrite_bytes

from asz_core.verify.walk import ALONE_NOTE, FILE_OK_LINE, verify_file

ASZ = [sys.executable, "-m", "asz_core.cli.main"]


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run the ``asz`` command line in this process (tests/cli_helpers.py), in ``cwd``."""
    return asz_in_process(*args, cwd=cwd)


@pytest.fixture(scope="module")
def released(shared_dir: Path) -> bytes:
    path = shared_dir / "conformance" / "fixtures" / "released-writer.sd"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return path.read_bytes()


def test_released_writer_file_verifies(shared_dir: Path, tmp_path: Path) -> None:
    path = shared_dir / "conformance" / "fixtures" / "released-writer.sd"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    got = run("verify", str(path), cwd=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    # away from any root: the note names the command with placeholders (test_push_unverified.py: with the real ones)
    assert got.stdout.splitlines() == ["checked 1 file, 3 records", ALONE_NOTE.format(command="asz verify --root ROOT SESSION"),
                                       FILE_OK_LINE]


def _line_of(data: bytes, pos: int) -> int:
    return data.count(b"\n", 0, pos) + 1


def _variants(b: int) -> set[int]:
    return {b ^ 0x01, b ^ 0x20, b ^ 0x80, 0x0A, 0x20, 0x00} - {b}


@pytest.mark.parametrize("stride", [pytest.param(1, marks=pytest.mark.slow, id="every"), pytest.param(11, id="every-11th")])
def test_every_single_byte_change_of_the_released_file_fails(released: bytes, tmp_path: Path, stride: int) -> None:
    """Every byte position (the quick subset: every 11th, spread over every line), several replacement values
    each: never whole, and a line is named."""
    closing_line = released.count(b"\n")
    path = tmp_path / "released-writer.sd"
    checked = 0
    positions = range(0, len(released), stride)
    for pos in positions:
        for value in sorted(_variants(released[pos])):
            data = bytearray(released)
            data[pos] = value
            rewrite_bytes(path, bytes(data))
            report = verify_file(path)
            assert not report.ok, f"byte {pos} set to {value:#04x} went unnoticed"
            lines = {p.line for p in report.problems}
            assert all(p.file == str(path) for p in report.problems)
            # Either the changed line itself is named, or the closing line that binds it.
            assert lines & {_line_of(released, pos), closing_line, closing_line + 1}, (pos, value, report.lines())
            checked += 1
    assert checked >= 5 * len(positions)


@pytest.mark.parametrize("stride", [pytest.param(1, marks=pytest.mark.slow, id="every"), pytest.param(7, id="every-7th-value")])
def test_every_value_of_every_closing_line_byte_fails(released: bytes, tmp_path: Path, stride: int) -> None:
    """The closing line is the one place a change is not caught by the digest itself.

    Every value of every byte of its frame (the quick subset: every 7th value,
    and every printable ASCII value); every other hex digit, both cases, and a
    few more for each digit of the digest.
    """
    start = released.rindex(b"\n", 0, len(released) - 1) + 1
    digest_at = released.index(b'"digest":"', start) + len(b'"digest":"')
    path = tmp_path / "c.sd"
    for pos in range(start, len(released)):
        if digest_at <= pos < digest_at + 64:
            values = set(b"0123456789abcdefABCDEF \"\\gz\x00\n")
        else:
            values = set(range(0, 256, stride)) | (set(range(32, 127)) if stride > 1 else set())
        for value in sorted(values - {released[pos]}):
            data = bytearray(released)
            data[pos] = value
            rewrite_bytes(path, bytes(data))
            assert not verify_file(path).ok, f"closing byte {pos} set to {value:#04x} went unnoticed"


@pytest.mark.parametrize("pos", [0, 100, 300, 700, 1000, -40, -3, -1])
def test_cli_names_file_and_line_for_a_changed_byte(released: bytes, tmp_path: Path, pos: int) -> None:
    data = bytearray(released)
    data[pos] ^= 0x01
    path = tmp_path / "changed.sd"
    rewrite_bytes(path, bytes(data))
    got = run("verify", str(path), cwd=tmp_path)
    assert got.returncode == 1, got.stdout + got.stderr
    out = got.stdout.splitlines()
    assert out[0] == "checked 1 file, " + out[0].split(", ")[1]
    problems = out[1:]
    assert problems and all(line.startswith(f"{path}:") for line in problems), out


def test_cli_usage_errors_exit_2(tmp_path: Path) -> None:
    got = run("verify", str(tmp_path / "missing.sd"), cwd=tmp_path)
    assert got.returncode == 2
    assert "no such file" in got.stderr
    got = run("verify", "--root", str(tmp_path / "no-root"), cwd=tmp_path)
    assert got.returncode == 2
    assert "no storage root" in got.stderr
    got = run("verify", "--bogus", cwd=tmp_path)
    assert got.returncode == 2


def test_file_mode_checks_contiguity_inside_the_file(tmp_path: Path) -> None:
    from verify_landing import RootBuilder, edit_records, jsonl

    b = RootBuilder(tmp_path / "root")
    (path,) = b.land_stream("s", jsonl(6, start=1))
    edit_records(path, lambda recs: recs[:2] + recs[3:], fix_closing=True)
    report = verify_file(path)
    assert [(p.line, p.problem) for p in report.problems] == [(4, "ord gap"), (4, "byte gap")]


def test_file_mode_checks_name_against_header(tmp_path: Path) -> None:
    from verify_landing import RootBuilder, jsonl

    b = RootBuilder(tmp_path / "root")
    (path,) = b.land_stream("s", jsonl(3))
    moved = path.with_name(path.name.replace("-000001.sd", "-000009.sd"))
    os.rename(path, moved)
    report = verify_file(moved)
    assert [(p.field, p.problem) for p in report.problems] == [("seq", "name mismatch")]


def test_a_skeleton_is_read_through_gzip(tmp_path: Path) -> None:
    import gzip

    from verify_landing import RootBuilder, jsonl

    b = RootBuilder(tmp_path / "root")
    (path,) = b.land_stream("s", jsonl(4))
    sk = path.with_suffix(".sk")
    sk.write_bytes(gzip.compress(path.read_bytes()))
    assert verify_file(sk).ok
    sk.write_bytes(gzip.compress(path.read_bytes()[:-2] + b"0\n"))
    assert not verify_file(sk).ok


def test_a_file_that_is_not_session_data_is_a_usage_error(tmp_path: Path) -> None:
    """A cursor (or any file not .sd/.sk) is refused, naming it (exit 2); a session id and a directory work as before."""
    from asz_core.storage import cursor_path

    from verify_landing import RootBuilder, jsonl

    root = tmp_path / "root"
    b = RootBuilder(root)
    (path,) = b.land_stream("s", jsonl(4))
    cursor = cursor_path(path.parent, "transcript")
    assert cursor.is_file()
    got = run("verify", str(cursor), cwd=tmp_path)
    assert got.returncode == 2, got.stdout + got.stderr
    assert got.stdout == ""
    assert got.stderr.startswith(f"asz verify: {cursor} is not a Session Data file (.sd) or skeleton (.sk)")
    # the session id, even when a file of that name is in the working directory, is still the session
    (tmp_path / "s").write_text("not a session\n")
    got = run("verify", "s", "--root", str(root), cwd=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    assert got.stdout.splitlines()[0].startswith("checked 1 session(s), 1 source file(s), 4 records")
    # a directory is still pointed at --root
    got = run("verify", str(root), "--root", str(root), cwd=tmp_path)
    assert got.returncode == 2 and f"give it as --root {root}" in got.stderr, got.stderr


def test_a_file_without_its_closing_line_names_the_line_after_its_last(released: bytes, tmp_path: Path) -> None:
    """The closing line removed: every check (``asz verify``, the reader every command uses, check_file) names the
    line where it was expected, one after the file's last line, and says where the file ends (a reader used to name
    the last record's line instead)."""
    from asz_core.sessiondata import SDError, SDReader, check_file

    lines = released.splitlines(keepends=True)
    path = tmp_path / "transcript-20260101T000000.000000000Z-000001.sd"
    for keep in (len(lines) - 1, 1):  # every record kept; the header alone
        path.write_bytes(b"".join(lines[:keep]))
        want = f"{path}:{keep + 1}: missing closing line: the file ends after line {keep}"
        got = run("verify", str(path), cwd=tmp_path)
        assert got.returncode == 1 and want in got.stdout.splitlines(), got.stdout
        with pytest.raises(SDError) as exc:
            list(SDReader(path))
        assert (exc.value.line, str(exc.value)) == (keep + 1, want)
        assert [str(p) for p in check_file(path).problems] == [want]
