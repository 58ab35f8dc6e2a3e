"""A Kiro line holding a byte that is not valid UTF-8 (trial 50c F8: a Latin-1 ``²``, byte 0xB2, in a prompt landed
the whole line as "the record is not valid JSON", the words asz uses for a line cut mid-JSON, and the prompt reached
no reader). Now the reason says where the byte is, and the record is described from the line with the byte written
``\\udcb2`` (the surrogate rule shows U+FFFD), its own bytes kept whole in a trailing unknown part: the one rule the
Claude Code adapter follows (``asz_core.not_utf8_reason``, ``escape_not_utf8``; docs/adapters.md).

Real input: the first line (a prompt) of the corpus's Kiro 3.x ``messages.jsonl`` and of its 2.x ``<id>.jsonl``,
each with one byte of its prompt replaced by 0xB2; then the corpus Kiro home so changed, collected by the real ``asz
collect`` and read by ``asz export``."""

from __future__ import annotations

import json
import shutil

import pytest

from asz_adapters_kiro.convert import convert_line
from asz_core import NOT_UTF8_KEPT, Source
from cli_helpers import asz_in_process


def _bad(line: bytes, word: bytes) -> tuple[bytes, int]:
    """``line`` with the first byte of ``word`` (in its prompt) replaced by 0xB2, and that byte's offset."""
    at = line.index(word)
    return line[:at] + b"\xb2" + line[at + 1:], at


@pytest.mark.parametrize("pattern, word", [("sess_*/messages.jsonl", "Create a directory"), ("cli/*.jsonl", "Do these six")])
def test_the_prompt_is_described_and_the_line_kept(corpus_dir, pattern, word):
    (path,) = (corpus_dir / "kiro").rglob(pattern)
    line = path.read_bytes().split(b"\n")[0]
    bad, at = _bad(line, word.encode())
    src = Source(session="s", kind="transcript", path=None, src="p/x.jsonl", dialect="kiro/1")  # type: ignore[arg-type]
    good = convert_line(src, line, 1, 100)
    rec = convert_line(src, bad, 1, 100)
    want = [p.text.replace(word, "\ufffd" + word[1:], 1) for p in good.parts if p.k == "text"]
    assert want and [p.text for p in rec.parts if p.k == "text"] == want
    *rest, kept = rec.parts
    assert [p.k for p in rest] == [p.k for p in good.parts]
    assert kept.k == "unknown" and kept.text.startswith(
        f"the record is not valid UTF-8: byte 0xb2 at offset {at} of line 1 of p/x.jsonl (file offset {100 + at}), in field ")
    assert kept.text.endswith(f"; {NOT_UTF8_KEPT}")
    assert (rec.bytes, rec.sha, rec.ord, rec.off) == (len(bad), convert_line(src, bad, 1, 100).sha, 1, 100)
    assert rec.sha != good.sha


def test_the_prompt_reaches_the_export(corpus_dir, tmp_path):
    home = corpus_dir / "kiro" / "home" / ".kiro"
    shutil.copytree(home, tmp_path / "kiro")
    (path,) = (tmp_path / "kiro").rglob("sess_*/messages.jsonl")
    path.chmod(0o600)
    lines = path.read_bytes().split(b"\n")
    lines[0], _ = _bad(lines[0], b"Create a directory")
    path.write_bytes(b"\n".join(lines))
    sid = path.parent.name
    p = asz_in_process("collect", "--once", "--adapter", "kiro", "--source", str(tmp_path / "kiro"), "--root", str(tmp_path / "root"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "not valid JSON" not in p.stderr and "not valid UTF-8: byte 0xb2" in p.stderr, p.stderr
    rows = {r["id"]: r for r in json.loads(asz_in_process("ls", "--json", "--root", str(tmp_path / "root")).stdout)}
    assert rows[sid]["state"] == "verified" and not rows[sid]["problems"]  # no undescribed record: the prompt is drawn
    md = asz_in_process("export", sid, "--format", "md", "--root", str(tmp_path / "root")).stdout
    assert "\ufffdreate a directory" in md
    assert asz_in_process("verify", "--root", str(tmp_path / "root")).returncode == 0
