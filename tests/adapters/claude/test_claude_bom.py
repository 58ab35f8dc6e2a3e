"""A UTF-8 byte order mark at the start of a Claude Code transcript (trial 18, F-b): the first line is read as the
JSON after the mark, so its prompt and the title land as typed data; the record's ``off``/``bytes``/``sha`` still
cover the mark, and ``dropped`` lists it (seed 000, Dropped; docs/adapters/claude-code.md, Sources). A mark at the
start of a later line, where two files that each began with one were joined (Windows ``copy /b a+b``), is read the
same way (trial 31c F5), so the call on that line is counted.

Real data: a corpus transcript (../shared/corpus, skipped when absent) copied to tmp as it is and with EF BB BF
prepended, each collected by the real ``asz collect --once``; the commands run in process (tests/cli_helpers.py).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from anchors import anchor_usage
from asz_adapters_claude.plugin import ClaudeCodeLocal
from asz_core import BOM_WHAT, BOM_WHY, BOM_WHY_LINE, Source
from asz_core.sessiondata.reader import read_file
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


def _joined(source: bytes) -> tuple[bytes, int]:
    """Two files, each starting with a mark, joined as Windows ``copy /b a+b`` joins them: ``source`` cut before the
    first line after line 1 that is the only line of its call (one ``message.id`` and ``requestId`` with usage), so
    the call's usage is on the marked line alone. Returns the bytes and that line's index (from 0)."""
    lines = source.split(b"\n")
    seen: dict[tuple, list[int]] = {}
    for i, ln in enumerate(lines):
        d = json.loads(ln) if ln else {}
        m = d.get("message")
        if d.get("type") == "assistant" and isinstance(m, dict) and m.get("usage"):
            seen.setdefault((m["id"], d.get("requestId")), []).append(i)
    k = next(v[0] for v in seen.values() if len(v) == 1 and v[0] > 0)
    return BOM + b"\n".join(lines[:k]) + b"\n" + BOM + b"\n".join(lines[k:]), k


def test_a_bom_on_a_later_line_is_read_past(source: bytes) -> None:
    """A mark at the start of a later line (trial 31c F5) is read past as line 1's is: the record covers the line
    with its mark (``off``, ``bytes``, ``sha``), its parts are the plain line's, and ``dropped`` names the mark."""
    data, k = _joined(source)
    off = data.index(b"\n" + BOM) + 1
    line = data[off:].split(b"\n", 1)[0]
    src = Source(session=SID, kind="transcript", path=Path("/nowhere"), src=f"{PROJECT}/{SID}.jsonl",
                 dialect="claude-code/1")
    rec = ClaudeCodeLocal().convert_line(src, line, k + 1, off)
    plain = ClaudeCodeLocal().convert_line(src, line[3:], k + 1, off)
    assert (rec.off, rec.bytes, rec.sha) == (off, len(line), hashlib.sha256(line).hexdigest()[:12])
    assert [p.k for p in rec.parts] == [p.k for p in plain.parts] and "unknown" not in [p.k for p in rec.parts]
    assert rec.usage == plain.usage and rec.usage is not None and rec.id == plain.id
    assert [(d.what, d.bytes, d.why) for d in rec.dropped] == [(BOM_WHAT, 3, BOM_WHY_LINE)] + [
        (d.what, d.bytes, d.why) for d in plain.dropped]


def test_joined_files_count_the_marked_lines_call(source: bytes, tmp_path: Path) -> None:
    """The joined file collected by the real ``asz collect --once``: no line is undescribed, the landed record of the
    marked line holds its bytes with the mark (its digest covers it), the root verifies, and ``asz ls`` counts every
    call and token the source lines give (read past their marks), the marked line's call among them."""
    data, k = _joined(source)
    proj = tmp_path / "projects" / PROJECT
    proj.mkdir(parents=True)
    (proj / f"{SID}.jsonl").write_bytes(data)
    root = tmp_path / "root"
    p = asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    assert p.returncode == 0 and "could not describe" not in p.stderr and "not valid JSON" not in p.stderr, p.stderr
    records = [r for f in sorted((root / SID / "streams" / "main").glob("*.sd")) for r in read_file(f)[1]]
    lines = data.split(b"\n")[:-1]  # the file ends in a newline
    assert [r.ord for r in records] == list(range(1, len(lines) + 1))
    marked = records[k]
    assert (marked.off, marked.bytes, marked.sha) == (len(b"\n".join(lines[:k])) + 1, len(lines[k]),
                                                      hashlib.sha256(lines[k]).hexdigest()[:12])
    assert lines[k].startswith(BOM) and [d.what for d in marked.dropped][:1] == [BOM_WHAT] and marked.usage is not None
    assert asz_in_process("verify", "--root", str(root)).returncode == 0
    tokens, calls = anchor_usage([ln.removeprefix(BOM) for ln in lines])  # the marked line's call is one of them
    [row] = json.loads(asz_in_process("ls", "--root", str(root), "--json").stdout)
    assert row["llm_calls"] == row["calls_with_usage"] == calls
    assert {key: row["usage"][key] for key in tokens} == tokens
