"""A source line that is not valid UTF-8 lands verbatim as an unknown part whose reason says so, naming the source
file, the line, the bad byte's offset (in the line and in the file) and the field whose string holds it, not
"not valid JSON" (brief: bad input gets a clear error naming file, line and field, and never costs other records).

Real input: a corpus session (../shared/corpus/claude-code/projects/-home-user-claude-reliability) whose prompt on
line 2 gets a Latin-1 ``é`` (byte 0xE9) in place of ``e`` in "Hello", collected by the real ``asz collect --once``.
"""

from __future__ import annotations

import hashlib
import json
import shutil

from asz_core.sessiondata import SDReader
from asz_core.storage.layout import landed_files

from reading_helpers import asz

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
PROJECT = "-home-user-claude-reliability"


def test_a_line_not_utf8_says_where_and_lands_with_the_others(corpus_dir, tmp_path):
    src = tmp_path / "projects" / PROJECT
    shutil.copytree(corpus_dir / "claude-code" / "projects" / PROJECT, src)
    path = src / f"{SID}.jsonl"
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    assert b'"content":"Write a shell script called hello.sh that prints \\"Hello' in lines[1]
    lines[1] = lines[1].replace(b'prints \\"Hello', b'prints \\"H\xe9llo', 1)
    path.write_bytes(b"\n".join(lines))
    at = lines[1].index(b"\xe9")
    off = len(lines[0]) + 1 + at
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))

    reason = (f"the record is not valid UTF-8: byte 0xe9 at offset {at} of line 2 of {PROJECT}/{SID}.jsonl "
              f"(file offset {off}), in field message.content; the record is described with U+FFFD in its text for "
              "each such byte (\\udcXX in its data), and this part holds the line's own bytes")
    doc = json.loads(asz("conversation", SID, "--json", "--root", str(root)).stdout)
    assert [(u["ref"]["row"], u["reason"]) for u in doc["undescribed"]] == [(2, reason)]
    out = asz("conversation", SID[:8], "--root", str(root)).stdout.splitlines()
    assert f"  seq 1 row 2 block 1: {reason} ({len(lines[1]):,} bytes)" in out
    # the prompt is shown, the bad byte as U+FFFD (session 13: it was lost from the title and the talk)
    prompt = json.loads(lines[1].replace(b"\xe9", b"\xef\xbf\xbd"))["message"]["content"]
    assert "H\ufffdllo" in prompt
    assert out[0] == f"conversation {SID}: {prompt}"  # the title
    assert doc["talks"][0]["label"] == prompt and doc["talks"][0]["ref"] == {"seq": 1, "row": 2}

    records = [rec for _, p in landed_files(root / SID) for _, rec in SDReader(p) if "streams/main/" in p.as_posix()]
    assert len(records) == len(lines) - 1  # every line landed, the bad one too
    text, part = records[1].parts
    assert (text.k, text.text, records[1].replaced) == ("text", prompt, 1)
    assert records[1].sha == hashlib.sha256(lines[1]).hexdigest()[:12] and records[1].bytes == len(lines[1])
    assert part.k == "unknown" and part.text == reason and part.raw() == lines[1]  # its bytes verbatim
    assert records[2].id == json.loads(lines[2])["uuid"]  # the line after it is there as itself
    v = asz("verify", "--deep", "--root", str(root))
    assert v.returncode == 0, v.stdout
