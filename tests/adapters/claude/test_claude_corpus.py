"""The Claude Code adapter over the whole real corpus: one record per line, byte fidelity, counts.

The expectations are computed here from the raw bytes (split on b"\\n" only,
field report 9), never taken from the adapter.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pytest

from asz_adapters_claude.plugin import ClaudeCodeLocal
from asz_core import RawJSON, Source, compact, json_loads
from asz_core.sessiondata import decode_record, encode_measured, encode_record

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared"
CORPUS = SHARED / "corpus" / "claude-code" / "projects"
FIXTURE = SHARED / "conformance" / "fixtures" / "claude-code-tree"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is absent (the shared corpus is not beside the repo)")


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json"))


def _source(path: Path, root: Path) -> Source:
    kind = "agent_meta" if path.name.endswith(".meta.json") else "transcript"
    if path.name == "journal.jsonl":
        kind = "journal"
    elif path.suffix == ".json" and path.name.startswith("wf_"):
        kind = "workflow_manifest"
    mode = "snapshot" if path.suffix == ".json" else "append"
    return Source(session="s", kind=kind, path=path, src=path.relative_to(root).as_posix(), dialect="claude-code/1", mode=mode)


def _values(value):
    """Every JSON value inside ``value``, itself included."""
    stack = [value]
    while stack:
        v = stack.pop()
        yield v
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def _check_data_parts(record, raw: bytes, counts: dict) -> None:
    """Every data part holding source JSON is the compacted source slice, byte for byte."""
    whole = compact(raw.strip(b" \t\r"))
    source_values = None
    for part in record.parts:
        if not isinstance(part.data, RawJSON):
            continue
        counts["source_json_parts"] += 1
        got = part.data.raw
        # it is a slice of the compacted line, already compact, and a value the line holds
        assert got in whole, f"ord {record.ord}: data part bytes are not a slice of the source"
        assert compact(got) == got
        if source_values is None:
            source_values = list(_values(json_loads(raw)))
        assert json_loads(got) in source_values
        counts["source_json_exact"] += 1


@pytest.mark.parametrize("root", [CORPUS, FIXTURE], ids=["corpus", "fixture-tree"])
def test_every_line_lands_as_one_record(root: Path) -> None:
    adapter = ClaudeCodeLocal()
    counts = {"files": 0, "lines": 0, "records": 0, "exact_addr": 0, "source_json_parts": 0, "source_json_exact": 0, "unknown": 0}
    for path in _files(root):
        counts["files"] += 1
        data = path.read_bytes()
        src = _source(path, root)
        if src.mode == "snapshot":
            doc = data.rstrip(b"\n")
            counts["lines"] += 1
            rec = adapter.convert_document(src, doc)
            counts["records"] += 1
            assert (rec.ord, rec.off, rec.bytes, rec.sha) == (1, 0, len(doc), hashlib.sha256(doc).hexdigest()[:12])
            counts["exact_addr"] += 1
            _check_data_parts(rec, doc, counts)
            assert decode_record(encode_record(rec)) is not None
            continue
        pieces = data.split(b"\n")
        complete, tail = pieces[:-1], pieces[-1]
        assert tail == b"", f"{path}: corpus files end with a newline"
        off = 0
        for i, line in enumerate(complete, start=1):
            counts["lines"] += 1
            rec = adapter.convert_line(src, line, i, off)
            counts["records"] += 1
            want = (i, off, len(line), hashlib.sha256(line).hexdigest()[:12])
            assert (rec.ord, rec.off, rec.bytes, rec.sha) == want, f"{path}:{i}"
            counts["exact_addr"] += 1
            assert rec.parts, f"{path}:{i}: a record with no parts"
            counts["unknown"] += sum(p.k == "unknown" for p in rec.parts)
            _check_data_parts(rec, line, counts)
            line_bytes = encode_record(rec)
            back = decode_record(line_bytes)
            assert (back.ord, back.off, back.bytes, back.sha, len(back.parts)) == (rec.ord, rec.off, rec.bytes, rec.sha, len(rec.parts))
            # a record landed alone (a window of one line) is measured and written in one encoding: the same bytes
            assert encode_measured(rec) == (line_bytes, len(line_bytes) + 1), f"{path}:{i}"
            off += len(line) + 1
        assert off == len(data)
    print(
        f"\n{root.name}: {counts['files']} files, {counts['records']}/{counts['lines']} lines landed as records, "
        f"{counts['exact_addr']}/{counts['records']} with ord/off/bytes/sha exact, "
        f"{counts['source_json_exact']}/{counts['source_json_parts']} source-JSON data parts byte-exact, "
        f"{counts['unknown']} unknown parts"
    )
    assert counts["records"] == counts["lines"] == counts["exact_addr"]
    assert counts["source_json_exact"] == counts["source_json_parts"] > 0
    if root == CORPUS:
        assert counts["unknown"] == 0, "every corpus line is one this dialect describes"


def test_whole_record_data_is_the_line_itself() -> None:
    """A record with no message content lands whole: data equals the compacted line exactly."""
    adapter = ClaudeCodeLocal()
    seen = 0
    for path in _files(CORPUS):
        if path.suffix != ".jsonl":
            continue
        src = _source(path, CORPUS)
        for i, line in enumerate(path.read_bytes().split(b"\n")[:-1], start=1):
            t = orjson.loads(line).get("type")
            if t in ("system", "progress", "summary", "file-history-snapshot", "queue-operation", "last-prompt", "permission-mode"):
                rec = adapter.convert_line(src, line, i, 0)
                assert [p.k for p in rec.parts] == ["data"]
                assert rec.parts[0].data.raw == compact(line)
                assert rec.parts[0].bytes == len(line)
                seen += 1
    assert seen > 1000


def test_usage_keeps_the_1_hour_cache_writes_as_the_source_counts_them() -> None:
    """Every corpus line's landed usage: ``cache_write`` is ``cache_creation_input_tokens`` (all writes) and
    ``cache_write_1h`` is ``cache_creation.ephemeral_1h_input_tokens`` (left out when 0); per file the landed sums
    equal the source's. Counted here from the raw lines, never from the adapter."""
    adapter = ClaudeCodeLocal()
    files_with_hour = 0
    hour_total = 0
    for path in _files(CORPUS):
        src = _source(path, CORPUS)
        if src.mode == "snapshot":
            continue
        want = {"cache_write": 0, "cache_write_1h": 0}
        got = dict.fromkeys(want, 0)
        off = 0
        for i, line in enumerate(path.read_bytes().split(b"\n")[:-1], start=1):
            rec = decode_record(encode_record(adapter.convert_line(src, line, i, off)))
            off += len(line) + 1
            try:
                u = orjson.loads(line)["message"]["usage"]
            except (orjson.JSONDecodeError, KeyError, TypeError):
                continue
            want["cache_write"] += u.get("cache_creation_input_tokens") or 0
            want["cache_write_1h"] += (u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0
            if rec.usage is not None:
                got["cache_write"] += rec.usage.cache_write
                got["cache_write_1h"] += rec.usage.cache_write_1h
                hour = (u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0
                assert (b'"cache_write_1h":' in encode_record(rec)) == (hour > 0), f"{path}:{i}"
        assert got == want, path
        files_with_hour += want["cache_write_1h"] > 0
        hour_total += want["cache_write_1h"]
    assert files_with_hour == 5 and hour_total > 0
