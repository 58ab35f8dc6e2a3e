"""A session copied through a FAT drive or by a Windows tool: its file name upper-cased (``DE3B8B19-….jsonl``) or its
extension (``….JSONL``) (trial 31c F1; asz_adapters_claude.discover.session_of, asz_core.collect.second_source).

Claude Code names a session's file by its id, a lower-case UUID, and every line carries it as ``sessionId``. Such a
copy lands under that lower-case id: alone, it is the session; beside the original (in another source folder or in
the same project folder) it lands once, as a lower-case copy in two folders does (README: a copy of a session in two
folders lands once), and the root never holds two session folders differing only in case (one folder on a disk that
ignores case). A name that differs from the lines' ``sessionId`` in more than case keeps its own id.

Real files: corpus transcripts (../shared/corpus, skipped when absent) copied under the names a FAT copy gives them,
collected by the real ``asz collect --once`` in process with HOME a temporary folder; calls and tokens counted straight
from the source lines (tests/anchors.py, reader-anchors.md's rule) against the rows ``asz ls --json`` gives.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from anchors import anchor_usage
from asz_core.storage.cursor import read_cursor
from cli_helpers import asz_in_process

RELIABILITY = "-home-user-claude-reliability"
SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"  # one main transcript, 4 calls
WORKTREES = "-experiments-worktrees"
SUB = "ef958aa1-0e93-49f0-bb71-150f63befcd1"  # a main transcript and its subagents/ folder


@pytest.fixture(scope="module")
def projects(corpus_dir: Path) -> Path:
    p = corpus_dir / "claude-code" / "projects"
    for f in (p / RELIABILITY / f"{SID}.jsonl", p / WORKTREES / f"{SUB}.jsonl", p / WORKTREES / SUB / "subagents"):
        if not f.exists():
            pytest.skip(f"{f} is absent")
    return p


def _collect(tmp: Path, *folders: Path, root: str = "root") -> tuple[dict[str, int], str]:
    """``asz collect --once`` of ``folders`` (the first the root's own) into ``tmp/root``: the pass line's counts and
    stderr; exit 0 asserted."""
    args = [a for f in folders for a in ("--source", str(f))]
    p = asz_in_process("collect", "--once", "--adapter", "claude-code-local", "--root", str(tmp / root), *args, cwd=tmp,
                       env={"HOME": str(tmp / "home"), "CLAUDE_CONFIG_DIR": None, "XDG_CONFIG_HOME": None})
    assert p.returncode == 0, p.stdout + p.stderr
    return {k: int(v) for k, v in (f.split("=", 1) for f in p.stdout.split() if "=" in f)}, p.stderr


def _rows(root: Path) -> list[dict]:
    p = asz_in_process("ls", "--root", str(root), "--json", env={"HOME": str(root.parent / "home")})
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def _sessions(root: Path) -> list[str]:
    """The session folders of the root (names not starting with ``_``)."""
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("_"))


def _source(root: Path) -> str:
    """The source the main stream's cursor follows (its ``src``)."""
    return read_cursor(root / SID / "streams" / "main" / "transcript.cursor").source


def _lines(*files: Path) -> list[bytes]:
    return [ln for f in files for ln in f.read_bytes().splitlines()]


def _expect(row: dict, lines: list[bytes]) -> None:
    """The row's calls and tokens are the source's: one usage per (message.id, requestId), its last line."""
    tokens, calls = anchor_usage(lines)
    assert calls > 0 and row["llm_calls"] == row["calls_with_usage"] == calls
    assert {k: row["usage"][k] for k in tokens} == tokens


def _copy(src: Path, dst: Path) -> Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)
    return dst


def test_an_upper_case_copy_alone_is_the_session(projects, tmp_path):
    """``DE3B8B19-….jsonl`` alone lands as session de3b8b19-… (its lines' id), with every call and token of it."""
    src = projects / RELIABILITY / f"{SID}.jsonl"
    _copy(src, tmp_path / "stick" / RELIABILITY.upper() / f"{SID.upper()}.jsonl")
    counts, _ = _collect(tmp_path, tmp_path / "stick")
    assert (counts["sessions"], counts["records"], counts["skipped"]) == (1, len(_lines(src)), 0)
    assert _sessions(tmp_path / "root") == [SID]
    [row] = _rows(tmp_path / "root")
    assert row["id"] == SID and row["continues"] is None
    _expect(row, _lines(src))


def test_its_session_folder_follows_it(projects, tmp_path):
    """A session folder upper-cased beside its upper-cased transcript (``EF958AA1-…/subagents/…``, both extensions
    ``.JSONL``) is the same session: its children land under the lowercase id, and their calls count there."""
    main = projects / WORKTREES / f"{SUB}.jsonl"
    children = sorted((projects / WORKTREES / SUB / "subagents").iterdir())
    stick = tmp_path / "stick" / WORKTREES
    _copy(main, stick / f"{SUB.upper()}.JSONL")
    for f in children:
        name = f.name[:-len(".jsonl")] + ".JSONL" if f.name.endswith(".jsonl") else f.name
        _copy(f, stick / SUB.upper() / "subagents" / name)
    counts, _ = _collect(tmp_path, tmp_path / "stick")
    assert (counts["sessions"], counts["sources"], counts["skipped"]) == (1, 1 + len(children), 0)
    assert _sessions(tmp_path / "root") == [SUB]
    assert {p.name for p in (tmp_path / "root" / SUB / "streams").iterdir()} == {"main"} | {
        f.name.split(".")[0].removeprefix("agent-") for f in children}
    [row] = _rows(tmp_path / "root")
    assert row["id"] == SUB and row["subagents"] > 0
    _expect(row, _lines(main, *(f for f in children if f.name.endswith(".jsonl"))))


@pytest.mark.parametrize("copy_first", [False, True], ids=["original-first", "copy-first"])
def test_beside_the_original_in_another_folder_it_lands_once(projects, tmp_path, copy_first):
    """The original collected, then the upper-case copy's folder added (the trial's steps), or both in one pass with the
    copy's folder first: one conversation under the lowercase id, one session folder, the copy skipped, exit 0."""
    src = projects / RELIABILITY / f"{SID}.jsonl"
    a = _copy(src, tmp_path / "a" / RELIABILITY / f"{SID}.jsonl").parent.parent
    b = _copy(src, tmp_path / "b" / RELIABILITY / f"{SID.upper()}.jsonl").parent.parent
    if copy_first:
        counts, _ = _collect(tmp_path, b, a)
    else:
        _collect(tmp_path, a)
        counts, _ = _collect(tmp_path, a, b)
    assert (counts["sessions"], counts["conflicts"], counts["skipped"]) == (1, 0, 1)
    assert counts["records"] == (len(_lines(src)) if copy_first else 0)
    assert _sessions(tmp_path / "root") == [SID]
    [row] = _rows(tmp_path / "root")
    assert row["id"] == SID and row["continues"] is None
    _expect(row, _lines(src))
    assert _source(tmp_path / "root") == f"{RELIABILITY}/{SID.upper() if copy_first else SID}.jsonl"


def test_beside_the_original_in_the_same_folder_it_lands_once(projects, tmp_path):
    """``-p/DE3B8B19-….jsonl`` beside ``-p/de3b8b19-….jsonl`` (one name on a disk that ignores case): the file named by
    the id lands though the upper-case name sorts first; the copy is skipped as a copy, never a conflict."""
    src = projects / RELIABILITY / f"{SID}.jsonl"
    _copy(src, tmp_path / "p" / RELIABILITY / f"{SID}.jsonl")
    _copy(src, tmp_path / "p" / RELIABILITY / f"{SID.upper()}.jsonl")
    counts, _ = _collect(tmp_path, tmp_path / "p")
    assert (counts["sessions"], counts["sources"], counts["conflicts"], counts["skipped"]) == (1, 1, 0, 1)
    assert counts["records"] == len(_lines(src))
    assert _sessions(tmp_path / "root") == [SID]
    [row] = _rows(tmp_path / "root")
    _expect(row, _lines(src))
    assert _source(tmp_path / "root") == f"{RELIABILITY}/{SID}.jsonl"
    p = asz_in_process("sources", "--source", str(tmp_path / "p"), "--root", str(tmp_path / "root"),
                       env={"HOME": str(tmp_path / "home")})
    assert f"{SID.upper()}.jsonl: a copy of {RELIABILITY}/{SID}.jsonl, which lands into stream 'main' of session {SID}" in p.stdout


def test_an_upper_case_extension_is_read(projects, tmp_path):
    """``<id>.JSONL`` (the extension alone upper-cased) lands, beside another session's ``.jsonl``: nothing skipped."""
    src = projects / RELIABILITY / f"{SID}.jsonl"
    other = projects / WORKTREES / f"{SUB}.jsonl"
    _copy(src, tmp_path / "s" / RELIABILITY / f"{SID}.JSONL")
    _copy(other, tmp_path / "s" / WORKTREES / f"{SUB}.jsonl")
    counts, err = _collect(tmp_path, tmp_path / "s")
    assert (counts["sessions"], counts["skipped"]) == (2, 0) and "not a session id" not in err
    rows = {r["id"]: r for r in _rows(tmp_path / "root")}
    assert sorted(rows) == sorted([SID, SUB])
    _expect(rows[SID], _lines(src))


def test_a_name_the_lines_do_not_give_keeps_its_own_id(projects, tmp_path):
    """A file whose name differs from its lines' ``sessionId`` in more than case is named by its file, as before: the
    upper-case name of another id lands as that id, beside the original, which keeps its own."""
    src = projects / RELIABILITY / f"{SID}.jsonl"
    other = "DE3B8B19-5BC0-4A2A-934A-1B6806567E26"
    _copy(src, tmp_path / "p" / RELIABILITY / f"{SID}.jsonl")
    _copy(src, tmp_path / "p" / RELIABILITY / f"{other}.jsonl")
    counts, _ = _collect(tmp_path, tmp_path / "p")
    assert (counts["sessions"], counts["skipped"]) == (2, 0)
    assert _sessions(tmp_path / "root") == sorted([other, SID])
