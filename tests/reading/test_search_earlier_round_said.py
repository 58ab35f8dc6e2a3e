"""Every search names the landed files whose hits it holds back, whatever ``--limit`` fetched and with or without
``--json`` (session 13: a damaged file ranked below the limit was counted in ``N of M hits`` but named only by
``--json --held-back``), and a landed file of an earlier round damaged or deleted after the index was built is
noticed at the next search by a stat, not only when one of its hits is about to be returned.

Real input: the Claude Code corpus session de3b8b19 (nine lines) given to the real ``asz collect --once`` in two
parts (lines 1-4, then all nine: two rounds, two landed files), beside the project -home-user-spotter; the index
built by a first real ``asz search``; then round 1's landed file (seq 1) changed in place, one byte of a record, or
deleted. The truth is what ``asz search hello --json --limit 500`` served from that file before the damage, and
that the first hit comes from another file (so ``--limit 1`` never fetches one of its hits).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from reading_helpers import asz, asz_process

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"


@pytest.fixture(scope="module")
def two_rounds(corpus_dir, tmp_path_factory):
    """(root, seq 1's landed file relative to root, the hello hits served from it before any damage)."""
    base = tmp_path_factory.mktemp("earlier-round")
    projects = corpus_dir / "claude-code" / "projects"
    lines = (projects / "-home-user-claude-reliability" / f"{SID}.jsonl").read_bytes().splitlines(keepends=True)
    assert len(lines) == 9
    (base / "projects" / "p").mkdir(parents=True)
    shutil.copytree(projects / "-home-user-spotter", base / "projects" / "-home-user-spotter")
    src = base / "projects" / "p" / f"{SID}.jsonl"
    src.write_bytes(b"".join(lines[:4]))
    asz_process("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    src.write_bytes(b"".join(lines))
    asz_process("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    root = base / "root"
    assert len(list((root / "_conversations" / SID / "rounds").glob("*.sf"))) == 2
    first, second = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    rel = first.relative_to(root).as_posix()
    before = _placed(json.loads(asz("search", "hello", "--json", "--limit", "500", "--root", str(root)).stdout))
    mine = [h for h in before if h["file"] == rel]
    assert mine and before[0]["file"] != rel  # --limit 1 never fetches a hit of seq 1's file
    return root, rel, before


def _placed(hits: list[dict]) -> list[dict]:
    """``hits`` without their ``open`` command (507d04ec), which names the root searched: the copy's is another."""
    return [{k: v for k, v in h.items() if k != "open"} for h in hits]


def _change_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    at = data.index(b"\n") + 20  # inside the first record
    data[at] = ord("x") if data[at] != ord("x") else ord("y")
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    path.write_bytes(bytes(data))
    os.chmod(path, stat.S_IRUSR)


def _told(root: Path, limit: str) -> dict:
    """Files named by each way of asking: stdout ``!`` notes, stderr warnings (plain and --json), --json --held-back."""
    plain = asz("search", "hello", "--limit", limit, "--root", str(root), check=False)
    js = asz("search", "hello", "--json", "--limit", limit, "--root", str(root), check=False)
    held = asz("search", "hello", "--json", "--held-back", "--limit", limit, "--root", str(root), check=False)
    assert plain.returncode == js.returncode == held.returncode == 1  # a file named: a problem found (trial 26b F4)
    held = json.loads(held.stdout)
    notes = [x[2:] for x in plain.stdout.splitlines() if x.startswith("! ")]
    warned = [x.removeprefix("asz search: warning: ") for x in plain.stderr.splitlines() if "warning:" in x]
    json_warned = [x.removeprefix("asz search: warning: ") for x in js.stderr.splitlines() if "warning:" in x]
    return {"notes": notes, "warned": warned, "json_warned": json_warned, "held": held["held_back"],
            "hits": _placed(json.loads(js.stdout)), "count": [x for x in plain.stdout.splitlines() if " hit(s)" in x]}


def test_a_byte_changed_in_an_earlier_round_s_file_is_named_whatever_the_limit(two_rounds, tmp_path):
    src, rel, before = two_rounds
    root = tmp_path / "root"
    shutil.copytree(src, root, symlinks=True)
    asz("search", "hello", "--root", str(root))  # the copy's index built (new inodes: indexed again), before the damage
    _change_a_byte(root / rel)
    n = sum(1 for h in before if h["file"] == rel)
    for limit in ("1", "500"):
        got = _told(root, limit)
        [f] = got["held"]["files"]
        assert f["file"] == rel and f["hits"] == n and f["problem"].startswith("digest mismatch")
        note = f"hits in {rel} left out: the landed file does not verify ({f['problem']}); asz verify names the damage"
        assert got["notes"] == got["warned"] == got["json_warned"] == [note], limit
        assert got["hits"] == [h for h in before if h["file"] != rel][: int(limit)]
        [count] = got["count"]
        assert f"({n} held back" in count, count


def test_an_earlier_round_s_file_deleted_is_named_whatever_the_limit(two_rounds, tmp_path):
    src, rel, before = two_rounds
    root = tmp_path / "root"
    shutil.copytree(src, root, symlinks=True)
    asz("search", "hello", "--root", str(root))
    os.chmod((root / rel).parent, 0o755)
    (root / rel).unlink()
    got = _told(root, "1")
    [gap] = got["held"]["not_searched"]
    assert gap["file"] == rel and gap["problem"].startswith(f"landed file seq 1 of session {SID} is missing")
    assert got["notes"] == got["warned"] == got["json_warned"] == [f"{rel} not searched: {gap['problem']}"]
    # the conversation is indexed again without seq 1 (its title came from seq 1's prompt): the same places served
    assert [(h["file"], h["row"], h["kind"]) for h in got["hits"]] == [(h["file"], h["row"], h["kind"]) for h in before if h["file"] != rel][:1]
