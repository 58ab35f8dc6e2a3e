"""asz repack of a session whose source was read again from its start (trial 17, F15; asz sources --reset-conflict
--reread): each reading keeps files of its own in DEST, DEST verifies, and a DEST that does not verify is said, exit 1.

The real transcript ../shared/corpus/claude-code/projects/-home-user-spotter/55604662-….jsonl (15 lines, 10,459
bytes) is collected from a copy, one byte of a landed line changed and a line appended (16 lines), re-read, collected.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from asz_core.retention import repack as repack_module
from asz_core.storage.cursor import read_cursor
from asz_core.storage.layout import landed_files

from export_helpers import asz

SESSION = "55604662-cf2a-4331-851a-ec234028f8ca"
PROJECT = "-home-user-spotter"


@pytest.fixture()
def reread_root(corpus_dir: Path, tmp_path: Path) -> tuple[Path, bytes, bytes]:
    """A root holding both readings of the rewritten transcript: (root, first version's bytes, re-read version's)."""
    real = corpus_dir / "claude-code" / "projects" / PROJECT / f"{SESSION}.jsonl"
    if not real.is_file():
        pytest.skip(f"{real} is absent")
    src = tmp_path / "src"
    (src / PROJECT).mkdir(parents=True)
    source = src / PROJECT / real.name
    shutil.copyfile(real, source)
    root = tmp_path / "root"
    collect = ("collect", "--once", "--source", str(src), "--root", str(root))
    assert asz(*collect, cwd=tmp_path).returncode == 0
    first = source.read_bytes()
    at = first.index(b'"content"') + 12  # a letter of the first record's text
    lines = first.split(b"\n")
    second = first[:at] + bytes([first[at] ^ 1]) + first[at + 1:] + lines[-2] + b"\n"
    source.write_bytes(second)
    assert asz(*collect, cwd=tmp_path).returncode == 1  # conflict: rewritten
    p = asz("sources", "--source", str(src), "--root", str(root), "--reset-conflict", SESSION[:4], "--reread", cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    p = asz(*collect, cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    v = asz("verify", "--root", str(root), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr
    return root, first, second


def _readings(root: Path) -> list[list[tuple[int, int]]]:
    """The main stream's records as (ord, off), split where ord starts again at 1."""
    out: list[list[tuple[int, int]]] = []
    for ln, f in landed_files(root / SESSION):
        if f.parent.name != "main" or ln.kind != "transcript":
            continue
        for line in f.read_bytes().split(b"\n")[1:-2]:
            rec = orjson.loads(line)
            if rec["ord"] == 1:
                out.append([])
            out[-1].append((rec["ord"], rec["off"]))
    return out


@pytest.mark.parametrize("how", [(), (SESSION[:4],), ("--max-delta-bytes", "4096")])
def test_repack_keeps_each_reading_in_files_of_its_own(reread_root, tmp_path, how):
    root, first, second = reread_root
    dest = tmp_path / "dest"
    p = asz("repack", str(dest), *how, "--root", str(root), cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    v = asz("verify", "--root", str(dest), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr
    assert "checked 1 session(s), 1 source file(s), 31 records" in v.stdout  # 15 + 16 lines of the two versions
    readings = _readings(dest)
    assert [len(r) for r in readings] == [first.count(b"\n"), second.count(b"\n")] == [15, 16]
    assert readings[1][0] == (1, 0) and readings[0][-1][1] + len(first.split(b"\n")[-2]) + 1 == len(first)
    files = [(ln.seq, f) for ln, f in landed_files(dest / SESSION) if f.parent.name == "main"]
    cursor = read_cursor(dest / SESSION / "streams" / "main" / "transcript.cursor")
    starts = [seq for seq, f in files if orjson.loads(f.read_bytes().split(b"\n")[1])["ord"] == 1]
    assert cursor.reread_seq == starts[1] and cursor.last_seq == files[-1][0]  # the re-read reading's first file


def test_repack_says_when_dest_does_not_verify(reread_root, tmp_path, monkeypatch):
    """The check of DEST is what stands between a repack fault and a root that fails verify: with the re-read
    boundary unseen (the fault trial 17 found), DEST is written, verified, and the repack exits 1 naming the gap."""
    root, _, _ = reread_root
    monkeypatch.setattr(repack_module, "_reread_seq", lambda src, group: 0)
    dest = tmp_path / "dest"
    p = asz("repack", str(dest), "--root", str(root), cwd=tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr
    # 21,212 bytes before claude-code-local 0.9.0: its 2 interrupt notices land 29 bytes shorter each (flags notice,
    # no "trigger":"external": trial 43c F1)
    assert p.stdout.splitlines()[1].split() == [SESSION, "2", "1", "31", str(21212 - 2 * 29)]
    assert f"asz repack: {dest} was written but does not verify (2 problem(s)); keep the root as it is" in p.stderr
    assert "ord gap [ord]: expected ord 16, found 1" in p.stderr and "byte gap [off]: expected off 10459, found 0" in p.stderr
    assert f"`asz verify --root {dest}` lists the problems" in p.stderr
