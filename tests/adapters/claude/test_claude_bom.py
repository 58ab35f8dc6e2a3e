"""A UTF-8 byte order mark at the start of a Claude Code transcript (trial 18, F-b): the first line is read as the
JSON after the mark, so its prompt and the title land as typed data; the record's ``off``/``bytes``/``sha`` still
cover the mark, and ``dropped`` lists it (seed 000, Dropped; docs/adapters/claude-code.md, Sources).

Real data: a corpus transcript (../shared/corpus, skipped when absent) copied to tmp as it is and with EF BB BF
prepended, each collected by the real ``asz collect --once``; the commands run in process (tests/cli_helpers.py).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from asz_adapters_claude.convert import BOM_WHAT, BOM_WHY
from asz_adapters_claude.plugin import ClaudeCodeLocal
from asz_core import Source
from cli_helpers import asz_in_process, collect_transcript

SID = "b25638d7-b104-4f06-a797-70ac33d069ed"
PROJECT = "-Users-alex-workspace-personal-site-next"
BOM = b"\xef\xbb\xbf"


def _collect(base: Path, data: bytes) -> Path:
    return collect_transcript(base, PROJECT, SID, data)


def _read(root: Path) -> tuple[str, str, list[dict]]:
    """(title asz ls gives, text of the first user turn asz export --format prose gives); the root verifies."""
    ls = asz_in_process("ls", "--root", str(root), "--json")
    assert ls.returncode == 0, ls.stderr
    prose = asz_in_process("export", SID, "--format", "prose", "--root", str(root))
    assert prose.returncode == 0, prose.stderr
    first = next(t for t in map(json.loads, prose.stdout.splitlines()) if t["role"] == "user")
    assert asz_in_process("verify", "--root", str(root)).returncode == 0
    return json.loads(ls.stdout)[0]["title"], first["text"]


@pytest.fixture(scope="module")
def source(corpus_dir: Path) -> bytes:
    f = corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl"
    if not f.is_file():
        pytest.skip(f"{f} is absent")
    return f.read_bytes()


def test_a_bom_keeps_the_title_and_first_prompt(source: bytes, tmp_path: Path) -> None:
    plain = _read(_collect(tmp_path / "plain", source))
    marked = _read(_collect(tmp_path / "bom", BOM + source))
    assert plain[0].startswith("Oh, I just found out that this is not supported by Chrome")
    assert marked == plain


def test_the_record_covers_the_bom_and_drops_it(source: bytes) -> None:
    line = BOM + source.split(b"\n", 1)[0]
    src = Source(session=SID, kind="transcript", path=Path("/nowhere"), src=f"{PROJECT}/{SID}.jsonl",
                 dialect="claude-code/1")
    rec = ClaudeCodeLocal().convert_line(src, line, 1, 0)
    plain = ClaudeCodeLocal().convert_line(src, line[3:], 1, 0)
    assert (rec.off, rec.bytes, rec.sha) == (0, len(line), hashlib.sha256(line).hexdigest()[:12])
    assert [p.k for p in rec.parts] == [p.k for p in plain.parts] == ["text"]
    assert rec.parts[0].text == plain.parts[0].text and rec.from_ == plain.from_ == "external"
    assert [(d.what, d.bytes, d.why) for d in rec.dropped] == [(BOM_WHAT, 3, BOM_WHY)] and plain.dropped == []


def test_a_bom_only_at_offset_0(source: bytes) -> None:
    """A mark past the start of the file is not one: the line is not JSON, kept whole as one unknown part."""
    line = BOM + source.split(b"\n", 1)[0]
    src = Source(session=SID, kind="transcript", path=Path("/nowhere"), src=f"{PROJECT}/{SID}.jsonl",
                 dialect="claude-code/1")
    rec = ClaudeCodeLocal().convert_line(src, line, 2, 771)
    assert [p.k for p in rec.parts] == ["unknown"] and rec.dropped == [] and rec.parts[0].raw() == line
