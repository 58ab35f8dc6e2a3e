"""Torn tails (issue 18, field report 6): a finished session whose last line has no newline.

The smallest real shape: a Claude Code transcript with one whole ``user``
line and an ``assistant`` line cut inside its text, no final newline. While
the file may still grow it waits quietly (a write in progress); once it has
not changed for the idle window (10 minutes), ``asz sources``, ``asz verify``
(a warning, exit 0) and the document's ``summary.problems`` say ``torn tail``
with the file; when the line is completed it lands and all three stop.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson

from collect_helpers import asz

SID = "5f0c8a2e-1d3b-4c6e-9a7f-2b4d6e8f0a1c"
USER = orjson.dumps({"type": "user", "uuid": "u-1", "parentUuid": None, "sessionId": SID, "timestamp": "2026-11-20T09:00:00.000Z",
                     "message": {"role": "user", "content": "Say hello"}})
CUT = b'{"type":"assistant","uuid":"a-1","parentUuid":"u-1","sessionId":"' + SID.encode() + \
      b'","timestamp":"2026-11-20T09:00:01.000Z","message":{"id":"msg_1","role":"assistant","model":"claude-opus-5","content":[{"type":"text","text":"par'
REST = b'tial"}]}}'


def _args(src: Path, root: Path) -> list[str]:
    return ["--adapter", "claude-code-local", "--source", str(src), "--root", str(root)]


def _age(path: Path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


def _says_torn(src: Path, root: Path, rel: str) -> tuple[bool, bool, bool]:
    s = asz("sources", *_args(src, root))
    assert s.returncode == 0, s.stderr
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr  # a torn tail is a warning, never a failure
    c = asz("conversation", SID, "--root", str(root), "--json")
    assert c.returncode == 0, c.stderr
    problems = orjson.loads(c.stdout)["summary"]["problems"]
    return (
        any("torn tail" in ln and rel in ln for ln in s.stdout.splitlines()),
        any("torn tail" in ln and rel in ln for ln in v.stdout.splitlines()),
        any("torn tail" in p and rel in p for p in problems),
    )


def test_a_torn_tail_is_said_by_sources_verify_and_the_document_until_it_lands(tmp_path):
    src, root = tmp_path / "projects", tmp_path / "data"
    path = src / "-home-u-p" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(USER + b"\n" + CUT)
    rel = f"-home-u-p/{SID}.jsonl"

    # still young: a write in progress, nobody says torn tail
    p = asz("collect", "--once", *_args(src, root))
    assert p.returncode == 0, p.stderr
    assert "partial=1" in p.stdout
    assert _says_torn(src, root, rel) == (False, False, False)

    # unchanged for longer than the idle window: a torn tail, the cut line still not landed
    _age(path, 11 * 60)
    assert asz("collect", "--once", *_args(src, root)).returncode == 0
    assert _says_torn(src, root, rel) == (True, True, True)
    v = asz("verify", "--root", str(root), "--json")
    warn = orjson.loads(v.stdout)["warnings"]
    assert [w["problem"] for w in warn] == ["torn tail"] and str(len(CUT)) in warn[0]["detail"]
    assert orjson.loads(v.stdout)["records"] == 1  # only the whole line landed

    # completed: it lands, and all three stop
    with open(path, "ab") as f:
        f.write(REST + b"\n")
    assert asz("collect", "--once", *_args(src, root)).returncode == 0
    assert _says_torn(src, root, rel) == (False, False, False)
    v = asz("verify", "--root", str(root), "--json")
    assert orjson.loads(v.stdout)["records"] == 2
