"""The Claude Code adapter finds source spans two ways and lands the same bytes either way.

A line that is byte for byte orjson's encoding of its value (what Claude Code
writes) gets its member spans from encoded lengths; any other line from the
byte-level span finders of asz_core. Over the real corpus both ways must give
the same encoded record for every line, and a line re-written with
whitespace between its tokens must land the same parts (seed 000, What data
holds: source JSON lands byte for byte apart from inter-token whitespace).
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from asz_adapters_claude import convert, jsonspans
from asz_core import Source, compact
from asz_core.sessiondata import encode_record
from asz_core.sessiondata.codec import encode_part

CORPUS = Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus" / "claude-code" / "projects"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is absent (the shared corpus is not beside the repo)")


def _transcript_lines() -> list[tuple[Source, bytes]]:
    out = []
    for path in sorted(CORPUS.rglob("*.jsonl")):
        if path.name == "journal.jsonl":
            continue
        src = Source(session="s", kind="transcript", path=path, src=path.name, dialect=convert.DIALECT)
        out += [(src, line) for line in path.read_bytes().split(b"\n") if line]
    return out


def _encoded(lines) -> list[bytes]:
    return [encode_record(convert.convert_record(src, line, i + 1, 0)) for i, (src, line) in enumerate(lines)]


def test_canonical_lines_land_as_the_span_walk_lands_them(monkeypatch):
    lines = _transcript_lines()
    canonical = 0
    for _, line in lines:
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        canonical += jsonspans.canonical(line, value, 0, len(line))
    assert (len(lines), canonical) == (3140, 3136)  # Claude Code writes what orjson writes, nearly always
    fast = _encoded(lines)
    monkeypatch.setattr(jsonspans, "CANONICAL_MAX", -1)  # every line through object_members / array_elements
    assert _encoded(lines) == fast


def test_whitespace_between_tokens_lands_the_same_parts():
    lines = [(src, line) for src, line in _transcript_lines() if line.startswith(b"{")]
    compared = 0
    for src, line in lines:
        wide = json.dumps(orjson.loads(line), ensure_ascii=False, separators=(" , ", " : ")).encode("utf-8", "surrogatepass")
        assert compact(wide) == line  # json.dumps spells every value as Claude Code did, spaces aside
        a, b = convert.convert_record(src, line, 1, 0), convert.convert_record(src, wide, 1, 0)
        assert b.bytes == len(wide) > a.bytes
        for pa, pb in zip(a.parts, b.parts, strict=True):
            pb.bytes = pa.bytes  # the size of the source value, whitespace included, differs by design
            assert encode_part(pa) == encode_part(pb)
        compared += 1
    assert compared == len(lines) == 3140
