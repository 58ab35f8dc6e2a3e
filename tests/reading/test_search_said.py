"""A search never leaves hits out without a word, whenever the damage came (trial 12: a new user's findings).

Real input: two projects of the Claude Code corpus (session de3b8b19, one landed transcript holding ``hello``; session
cb2e607c, a main transcript and three subagents' streams) collected once by the real ``asz collect --once`` into a
temporary root, then copied per case and damaged on disk: the header line of de3b8b19's landed file edited (not JSON,
or its ``session`` field removed), that file deleted, the only round of its conversation edited so it does not read,
its closing line cut. Each case runs both ways: damage, then the first ``asz search``; and a first search, the damage,
a second search. The truth is read straight from the files: the parts of de3b8b19's landed records whose text holds
the word ``hello`` (what the search loses), the file the session index (``index/entries.jsonl``) names for seq 1, the
landed file's line count, and what the real ``asz verify --json`` says of the damaged file. Asked: the real ``asz
search`` (stdout with ``!`` notes and stderr, ``--json --held-back``) and ``/api/search?held_back=1``'s answer
(:func:`asz_core.reading.search_api.answer`, what the server's route returns).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from pathlib import Path

import pytest

from asz_core.reading.search_api import answer
from reading_helpers import asz, asz_process

PROJECTS = ("-home-user-claude-reliability", "-Users-alex-workspace-coderabbit-review-helper")
SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
WORD = re.compile(rb"(?<![0-9a-z])hello(?![0-9a-z])", re.I)


class Refused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(status, message)


@pytest.fixture(scope="module")
def slice_root(corpus_dir, tmp_path_factory) -> Path:
    """The two projects collected by the real ``asz collect --once`` (nobody writes here: each case copies it)."""
    base = tmp_path_factory.mktemp("said")
    for name in PROJECTS:
        src = corpus_dir / "claude-code" / "projects" / name
        if not src.is_dir():
            pytest.skip(f"{src} is absent")
        shutil.copytree(src, base / "projects" / name)
    asz_process("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    return base / "root"


def _landed(root: Path) -> Path:
    (path,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    return path


def _hello_parts(path: Path) -> int:
    """Parts of the landed file's records (header and closing line skipped) whose text, name or data holds ``hello``."""
    n = 0
    for line in path.read_bytes().rstrip(b"\n").split(b"\n")[1:-1]:
        for p in json.loads(line).get("parts", ()):
            body = (p.get("name", "") + " " + (p.get("text") or "") + " " + json.dumps(p.get("data"))).encode()
            if p.get("k") in ("text", "reasoning", "call", "result") and WORD.search(body):
                n += 1
    return n


def _rewrite(path: Path, data: bytes) -> None:
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    path.write_bytes(data)
    os.chmod(path, stat.S_IRUSR)


def _header_not_json(root: Path) -> None:
    path = _landed(root)
    data = path.read_bytes()
    first = data.index(b"\n")
    _rewrite(path, data[: first - 1] + data[first:])  # the header's closing brace gone


def _header_no_session(root: Path) -> None:
    path = _landed(root)
    data = path.read_bytes()
    first = data.index(b"\n")
    _rewrite(path, re.sub(rb',"session":"[^"]*"', b"", data[:first], count=1) + data[first:])


def _delete(root: Path) -> None:
    path = _landed(root)
    os.chmod(path.parent, 0o755)
    path.unlink()


def _round_unreadable(root: Path) -> None:
    (rnd,) = (root / "_conversations" / SID / "rounds").glob("*.sf")
    data = rnd.read_bytes()
    _rewrite(rnd, b"{" + data[data.index(b"\n"):])  # its header line no longer reads


def _cut_closing(root: Path) -> None:
    path = _landed(root)
    data = path.read_bytes().rstrip(b"\n")
    _rewrite(path, data[: data.rindex(b"\n") + 1])


def _asked(root: Path) -> dict:
    """What a reader is told of ``hello``: the CLI's JSON with --held-back, its stdout and stderr notes, the API's answer."""
    table = asz("search", "hello", "--limit", "50", "--root", str(root), check=False)
    assert table.returncode == 1  # hits left out or a text unsearched: a problem found (trial 26b F4)
    warned = [line.removeprefix("asz search: warning: ") for line in table.stderr.splitlines() if "warning:" in line]
    assert warned  # never a search that leaves hits out without a word
    notes = [line[2:] for line in table.stdout.splitlines() if line.startswith("! ")]
    assert notes == warned  # the same notes on stdout (under the hits) as on stderr
    api = answer(root, [("q", "hello"), ("limit", "50"), ("held_back", "1")], (), Refused)
    cli = json.loads(asz("search", "hello", "--json", "--held-back", "--limit", "50", "--root", str(root), check=False).stdout)
    page = {k: api.pop(k) for k in ("total", "total_capped", "offset", "limit", "next")}  # the API's page (36a F3)
    assert page == {"total": len(api["hits"]) + api["held_back"]["hits"], "total_capped": False, "offset": 0, "limit": 50,
                    "next": None}
    assert cli == api  # asz search --json --held-back answers what /api/search?held_back=1 answers
    return {"answer": api, "notes": notes}


def _both_ways(slice_root: Path, tmp_path: Path, damage) -> dict:
    """The answer after ``damage`` before the first search, and after a first search; asserts they are the same."""
    got = []
    for order in ("before", "after"):
        root = tmp_path / order / "root"
        shutil.copytree(slice_root, root, symlinks=True)
        if order == "after":
            first = json.loads(asz("search", "hello", "--json", "--limit", "50", "--root", str(root)).stdout)
            assert len(first) == _hello_parts(_landed(root))
        damage(root)
        got.append(_asked(root))
    assert got[0] == got[1]  # the answer does not depend on when the index was built
    return got[0]


@pytest.mark.parametrize("damage, field", [(_header_not_json, ""), (_header_no_session, "session")])
def test_a_damaged_header_line_is_named_with_its_line_and_field(slice_root, tmp_path, damage, field):
    truth = _hello_parts(_landed(slice_root))
    assert truth >= 2
    rel = _landed(slice_root).relative_to(slice_root).as_posix()
    got = _both_ways(slice_root, tmp_path, damage)
    held = got["answer"]["held_back"]
    assert got["answer"]["hits"] == [] and held["hits"] == truth and held["not_searched"] == []
    [f] = held["files"]
    assert f["file"] == rel and f["hits"] == truth
    assert f["problem"].startswith("bad header" + (f" [{field}]" if field else "") + ": ") and f["problem"].endswith("(line 1)")
    assert got["notes"] == [f"hits in {rel} left out: the landed file does not verify ({f['problem']}); asz verify names the damage"]


def test_a_landed_file_deleted_is_named_as_missing(slice_root, tmp_path):
    index = (slice_root / SID / "index" / "entries.jsonl").read_bytes().splitlines()
    [named] = [json.loads(line)["path"] for line in index if json.loads(line)["seq"] == 1]
    rel = f"{SID}/{named}"
    assert rel == _landed(slice_root).relative_to(slice_root).as_posix()
    got = _both_ways(slice_root, tmp_path, _delete)
    held = got["answer"]["held_back"]
    assert got["answer"]["hits"] == [] and held["hits"] == 0 and held["files"] == []
    [gap] = held["not_searched"]
    assert gap["conversation"] == SID and gap["file"] == rel
    assert gap["problem"].startswith(f"landed file seq 1 of session {SID} is missing; the conversation is incomplete")
    assert got["notes"] == [f"{rel} not searched: {gap['problem']}"]


def test_a_conversation_with_no_usable_round_is_named(slice_root, tmp_path):
    (rnd,) = (slice_root / "_conversations" / SID / "rounds").glob("*.sf")
    got = _both_ways(slice_root, tmp_path, _round_unreadable)
    held = got["answer"]["held_back"]
    assert got["answer"]["hits"] == [] and held["files"] == []
    [gap] = held["not_searched"]
    assert gap["conversation"] == SID and gap["file"] == f"_conversations/{SID}/rounds"
    assert gap["problem"].startswith(f"conversation {SID} has no usable round (_conversations/{SID}/rounds/{rnd.name}:1: ")
    assert got["notes"] == [f"_conversations/{SID}/rounds not searched: {gap['problem']}"]


def test_a_cut_file_is_worded_as_asz_verify_words_it(slice_root, tmp_path):
    truth = _hello_parts(_landed(slice_root))
    lines = _landed(slice_root).read_bytes().count(b"\n") - 1  # the closing line cut: the file ends after this line
    rel = _landed(slice_root).relative_to(slice_root).as_posix()
    got = _both_ways(slice_root, tmp_path, _cut_closing)
    [f] = got["answer"]["held_back"]["files"]
    assert f["file"] == rel and f["hits"] == truth
    assert f["problem"] == f"missing closing line: the file ends after line {lines} (line {lines + 1})"
    root = tmp_path / "before" / "root"
    v = asz_process("verify", "--json", "--root", str(root), check=False)
    [p] = [p for p in json.loads(v.stdout)["problems"] if p["file"].endswith(rel) and p["problem"] == "missing closing line"]
    assert f"{p['problem']}: {p['detail']} (line {p['line']})" == f["problem"]
    text = asz_process("verify", "--root", str(root), check=False).stdout
    assert f":{lines + 1}: missing closing line: the file ends after line {lines}\n" in text
