"""A landed file damaged before the search index was first built is held back and said, as one damaged after (trial 6,
finding 1: it was skipped by the index, so ``asz search`` and ``/api/search`` gave fewer hits and said nothing).

Real input: the corpus's session de3b8b19 (its source transcript copied into a projects folder in tmp_path), collected
by the real ``asz collect --once``; its landed transcript then changed in place (``called hello.sh`` becomes
``called HELLO.sh``, closing line left as it was) either before the first ``asz search`` or after it. The truth is the
number of parts of that landed file's records whose text holds the word ``hello`` (read straight from the file), and
the real ``asz search`` (a subprocess) and a real ``asz view`` on loopback are asked.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest

from view_server_helpers import asz, collect_one

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "claude-code" / "projects"
SOURCE = CORPUS / "-home-user-claude-reliability" / f"{SID}.jsonl"
WORD = re.compile(rb"(?<![0-9a-z])hello(?![0-9a-z])", re.I)


def _parts_with_hello(path: Path) -> int:
    """Parts of the landed file's records (header and closing line skipped) whose text, name or data holds ``hello``."""
    lines = path.read_bytes().rstrip(b"\n").split(b"\n")[1:-1]
    n = 0
    for line in lines:
        for p in json.loads(line).get("parts", ()):
            body = (p.get("name", "") + " " + (p.get("text") or "") + " " + json.dumps(p.get("data"))).encode()
            if p.get("k") in ("text", "reasoning", "call", "result") and WORD.search(body):
                n += 1
    return n


def _damage(path: Path) -> None:
    data = path.read_bytes()
    assert data.count(b"called hello.sh") >= 1
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    path.write_bytes(data.replace(b"called hello.sh", b"called HELLO.sh"))
    os.chmod(path, stat.S_IRUSR)


@pytest.mark.parametrize("order", ["before", "after"])
def test_a_damaged_file_is_held_back_and_said_whenever_it_was_damaged(tmp_path, serve, order):
    if not SOURCE.is_file():
        pytest.skip(f"the corpus is absent ({SOURCE})")
    root = collect_one(SOURCE, tmp_path)
    (path,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    rel = path.relative_to(root).as_posix()
    truth = _parts_with_hello(path)
    assert truth >= 2
    if order == "after":
        first = json.loads(asz("search", "hello", "--json", "--limit", "50", "--root", str(root)).stdout)
        assert len(first) == truth and {h["file"] for h in first} == {rel}
    _damage(path)
    for extra in ((), ("--reindex",)):
        p = asz("search", "hello", "--json", "--limit", "50", "--root", str(root), *extra, check=False)
        assert json.loads(p.stdout) == []
        assert p.returncode == 1  # hits left out: a problem found (trial 26b F4)
        assert f"asz search: warning: hits in {rel} left out: the landed file does not verify (digest mismatch [digest]: the file's bytes are not the ones its closing line binds (line" in p.stderr
    s = serve(root)
    got = s.get("/api/search?q=hello&limit=50&held_back=1").json()
    assert got["hits"] == []
    assert got["held_back"]["hits"] == truth
    [f] = got["held_back"]["files"]
    assert f["file"] == rel and f["hits"] == truth and f["problem"].startswith("digest mismatch [digest]: the file's bytes are not the ones its closing line binds")
