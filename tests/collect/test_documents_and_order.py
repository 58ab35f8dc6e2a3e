"""Document sources, a fixed pass stamp, source_gone without landed files, and the landing order across adapters.

Spec: origin-digest §2.1 (file names, stamps, seq), §2.2 (snapshot cursors, pruned sources).
Real files in tmp_path; two small test adapters defined here beside ``mini_adapter``:

* ``mini-docs``: ``<session>/store.json`` is a JSON object whose members are
  documents; ``<session>/keys.txt`` lists the members discovery offers
  (one per line), each a ``mode="document"`` source ``<session>/store.json#<key>``
  of kind ``agent_meta`` in stream ``<key>``;
* ``mini-observer``: ``<session>/<stream>.jsonl`` lands as kind ``changes``.
"""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import orjson
import pytest

from asz_core.collect.collector import CollectOptions, Collector, Report, landing_rank, run_passes
from asz_core.plugins.adapter import Discovery, Source
from asz_core.sessiondata import read_file
from asz_core.storage.cursor import read_cursor, write_cursor
from asz_core.storage.layout import landed_files

from collect_helpers import all_files_ok, append, landed, line, source_lines
from mini_adapter import MiniAdapter


class MiniDocs(MiniAdapter):
    """Documents inside a JSON file: each member of ``store.json`` named in ``keys.txt``."""

    name = "mini-docs"
    kinds = ("agent_meta",)

    def discover(self, source_root, *, include=(), exclude=()):
        disc = Discovery()
        for e in sorted(os.scandir(source_root), key=lambda e: e.name):
            keys = Path(e.path) / "keys.txt"
            if not keys.is_file():
                continue
            for key in keys.read_text().split():
                disc.sources.append(Source(e.name, "agent_meta", Path(e.path) / "store.json", f"{e.name}/store.json#{key}",
                                           "mini/1", stream=key, mode="document"))
        return disc

    def read_document(self, source):
        store = orjson.loads(Path(source.path).read_bytes())  # a missing store raises FileNotFoundError
        key = source.src.partition("#")[2]
        if key not in store:
            raise FileNotFoundError(f"{source.src}: no such member")
        return orjson.dumps(store[key]) + b"\n"

    def source_exists(self, source):
        assert source.mode == "document" and source.path.name == "store.json"  # rebuilt from the cursor
        if not source.path.exists():
            return False
        return source.src.partition("#")[2] in orjson.loads(source.path.read_bytes())


class MiniObserver(MiniAdapter):
    """``<session>/<stream>.jsonl`` as kind ``changes`` (an observer's file)."""

    name = "mini-observer"
    kinds = ("changes",)

    def discover(self, source_root, *, include=(), exclude=()):
        disc = super().discover(source_root, include=include, exclude=exclude)
        for s in disc.sources:
            s.kind = "changes"
        return disc


def _collector(root: Path, adapter, src: Path, **opts) -> Collector:
    opts.setdefault("fsync", False)
    return Collector(root, adapter, src, options=CollectOptions(**opts), report=Report(io.StringIO()))


def _store(src: Path, session: str, docs: dict, keys: list[str] | None = None) -> Path:
    d = src / session
    d.mkdir(parents=True, exist_ok=True)
    (d / "store.json").write_bytes(orjson.dumps(docs))
    (d / "keys.txt").write_text("\n".join(keys if keys is not None else list(docs)) + "\n")
    return d / "store.json"


def _meta_cursor(root: Path, session: str, stream: str):
    return read_cursor(root / session / "streams" / stream / "meta.cursor")


# ---------------------------------------------------------------------- document sources


def test_document_sources_land_through_read_document_with_a_snapshot_cursor(dirs):
    src, root = dirs
    _store(src, "s1", {"a": {"v": 1}, "b": {"v": 2}})
    col = _collector(root, MiniDocs(), src)
    c = col.run_pass()
    assert (c.landed, c.records, c.errors, c.gone) == (2, 2, 0, 0)
    for key, value in (("a", {"v": 1}), ("b", {"v": 2})):
        (f,) = [p for ln, p in landed_files(root / "s1") if p.parent.name == key]
        header, recs, _ = read_file(f)
        assert header.src == f"s1/store.json#{key}" and header.kind == "agent_meta"
        assert (recs[0].ord, recs[0].off, recs[0].bytes) == (1, 0, len(orjson.dumps(value)))  # trailing newline trimmed
        assert recs[0].parts[0].data_value() == value
        cur = _meta_cursor(root, "s1", key)
        assert (cur.kind, cur.mode, cur.adapter, cur.state, cur.source) == ("snapshot", "document", "mini-docs", "active", header.src)
        assert "mode            document" in (root / "s1" / "streams" / key / "meta.cursor").read_text()
    assert col.run_pass().landed == 0  # nothing changed: nothing lands
    _store(src, "s1", {"a": {"v": 1}, "b": {"v": 3}})
    c = col.run_pass()
    assert (c.landed, c.records) == (1, 1)
    assert len([p for ln, p in landed_files(root / "s1") if p.parent.name == "b"]) == 2
    # a member no longer listed and no longer in the store: gone, asked through source_exists
    _store(src, "s1", {"a": {"v": 1}}, keys=["a"])
    c = col.run_pass()
    assert (c.gone, c.landed, c.errors) == (1, 0, 0)
    assert _meta_cursor(root, "s1", "b").state == "source_gone"
    # listed again with the content that landed last: active again, nothing lands
    _store(src, "s1", {"a": {"v": 1}, "b": {"v": 3}})
    c = col.run_pass()
    assert (c.gone, c.landed) == (0, 0) and _meta_cursor(root, "s1", "b").state == "active"
    assert all_files_ok(root) == []


def test_a_listed_document_that_read_document_cannot_find_is_gone_and_a_read_error_is_an_error(dirs):
    src, root = dirs
    store = _store(src, "s1", {"a": {"v": 1}})
    col = _collector(root, MiniDocs(), src)
    col.run_pass()
    _store(src, "s1", {}, keys=["a"])  # still listed, but read_document raises FileNotFoundError
    c = col.run_pass()
    assert (c.gone, c.errors) == (1, 0) and _meta_cursor(root, "s1", "a").state == "source_gone"
    store.unlink()
    store.mkdir()  # reading a directory: an OSError that is not FileNotFoundError
    c = col.run_pass()
    assert c.errors == 1 and c.landed == 0 and "unreadable" in col.report.stream.getvalue()


def test_a_source_with_an_unknown_mode_is_an_error(dirs):
    src, root = dirs
    append(src / "s1" / "main.jsonl", line(0))

    class Odd(MiniAdapter):
        name = "mini-odd"

        def discover(self, source_root, *, include=(), exclude=()):
            disc = super().discover(source_root)
            for s in disc.sources:
                s.mode = "stream"
            return disc

    col = _collector(root, Odd(), src)
    c = col.run_pass()
    assert (c.errors, c.landed) == (1, 0) and "mode 'stream'" in col.report.stream.getvalue()


# ---------------------------------------------------------------------- fixed stamp


def test_stamp_ns_names_every_file_of_the_pass(dirs, adapter):
    src, root = dirs
    append(src / "s1" / "main.jsonl", line(0), line(1))
    (src / "s1" / "a1.meta.json").write_text('{"agentType":"x"}')
    stamp = 1_767_225_600_123_456_789  # 2026-01-01T00:00:00.123456789Z
    c = _collector(root, adapter, src, stamp_ns=stamp).run_pass()
    assert c.landed == 2
    for ln, p in landed_files(root / "s1"):
        assert ln.stamp == "20260101T000000.123456789Z"
        header, _, _ = read_file(p)
        assert header.at == "2026-01-01T00:00:00.123456789Z"


# ---------------------------------------------------------------------- source_gone without landed files


def _main_and_child_landed(src: Path, root: Path, adapter) -> Collector:
    """s1 with a main and an a1 stream, landed by one pass; returns the collector."""
    append(src / "s1" / "main.jsonl", line(0))
    append(src / "s1" / "a1.jsonl", line(0))
    col = _collector(root, adapter, src)
    col.run_pass()
    return col


def test_a_vanished_source_is_gone_even_when_its_landed_files_were_deleted(dirs, adapter):
    src, root = dirs
    col = _main_and_child_landed(src, root, adapter)
    assert read_cursor(root / "s1" / "streams" / "a1" / "transcript.cursor").adapter == "mini-jsonl"
    shutil.rmtree(src / "s1")
    for d in ("main", "a1"):
        for p in (root / "s1" / "streams" / d).glob("*.sd"):
            p.unlink()
    c = col.run_pass()
    assert c.gone == 2
    for d in ("main", "a1"):
        assert read_cursor(root / "s1" / "streams" / d / "transcript.cursor").state == "source_gone"


def test_a_cursor_from_before_the_adapter_key_is_owned_through_its_landed_file(dirs, adapter):
    src, root = dirs
    col = _main_and_child_landed(src, root, adapter)
    cp = root / "s1" / "streams" / "a1" / "transcript.cursor"
    cur = read_cursor(cp)
    cur.adapter = ""
    write_cursor(cp, cur, fsync=False)
    assert "adapter" not in cp.read_text()
    (src / "s1" / "a1.jsonl").unlink()
    assert col.run_pass().gone == 1 and read_cursor(cp).state == "source_gone"


def test_another_adapters_cursors_are_never_marked_gone(tmp_path):
    root, src1, src2 = tmp_path / "data", tmp_path / "src1", tmp_path / "src2"
    append(src1 / "s1" / "main.jsonl", line(0))
    append(src2 / "s1" / "main.jsonl", line(0))
    mini, obs = _collector(root, MiniAdapter(), src1), _collector(root, MiniObserver(), src2)
    run_passes([mini, obs])
    for p in (root / "s1" / "streams" / "main").glob("*.sd"):
        p.unlink()  # no landed file names an owner any more
    # each collector alone: the other one's cursor has a source path that does not exist under its root
    (src1 / "s1" / "main.jsonl").rename(src1 / "s1" / "other.jsonl")
    c = obs.run_pass()
    assert c.gone == 0
    c = mini.run_pass()
    assert c.gone == 1
    assert read_cursor(root / "s1" / "streams" / "main" / "transcript.cursor").state == "source_gone"
    assert read_cursor(root / "s1" / "streams" / "main" / "changes.cursor").state == "active"


# ---------------------------------------------------------------------- landing order


def test_landing_rank():
    def s(kind, stream=""):
        return Source("s", kind, Path("/x"), "x", "d", stream=stream)

    assert [landing_rank(x) for x in (s("transcript"), s("transcript", "main"), s("changes", "a1"), s("execution"),
                                       s("transcript", "a1"), s("agent_meta"), s("journal"))] == [0, 0, 1, 1, 2, 2, 2]


def test_one_pass_of_several_adapters_lands_main_then_observers_then_the_rest(tmp_path):
    root, src1, src2 = tmp_path / "data", tmp_path / "src1", tmp_path / "src2"
    # discovery lists a1.jsonl and a1.meta.json before main.jsonl (sorted names)
    append(src1 / "s1" / "a1.jsonl", line(0))
    (src1 / "s1" / "a1.meta.json").write_text('{"agentType":"x"}')
    append(src1 / "s1" / "main.jsonl", line(0), line(1))
    append(src2 / "s1" / "a1.jsonl", line(5))
    append(src2 / "s1" / "main.jsonl", line(6))
    append(src2 / "s2" / "main.jsonl", line(7))  # a session only the observer knows
    stamp = 1_767_225_600_000_000_000
    mini = _collector(root, MiniAdapter(), src1, stamp_ns=stamp)
    obs = _collector(root, MiniObserver(), src2, stamp_ns=stamp)
    c = run_passes([mini, obs])
    assert (c.sessions, c.landed, c.errors, c.conflicts) == (2, 6, 0, 0)
    order = [(ln.seq, ln.kind, p.parent.name) for ln, p in landed_files(root / "s1")]
    assert order == [(1, "transcript", "main"), (2, "changes", "a1"), (3, "changes", "main"),
                     (4, "transcript", "a1"), (5, "agent_meta", "a1")]
    assert {ln.stamp for ln, _ in landed_files(root / "s1")} == {"20260101T000000.000000000Z"}
    assert landed(root, "s1") == source_lines(src1 / "s1" / "main.jsonl")
    assert landed(root, "s1", "main", "changes") == source_lines(src2 / "s1" / "main.jsonl")
    # the next pass: new lines of both adapters continue the seq; nothing else lands
    append(src1 / "s1" / "a1.jsonl", line(2))
    append(src2 / "s1" / "main.jsonl", line(8))
    c = run_passes([mini, obs])
    assert c.landed == 2
    assert [(ln.seq, ln.kind, p.parent.name) for ln, p in landed_files(root / "s1")][5:] == [(6, "changes", "main"), (7, "transcript", "a1")]
    assert run_passes([mini, obs]).landed == 0
    assert all_files_ok(root) == []


def test_a_single_adapter_lands_its_main_transcript_first(dirs, adapter):
    src, root = dirs
    append(src / "s1" / "a1.jsonl", line(0))
    append(src / "s1" / "main.jsonl", line(0))
    _collector(root, adapter, src).run_pass()
    assert [(ln.seq, p.parent.name) for ln, p in landed_files(root / "s1")] == [(1, "main"), (2, "a1")]


def test_run_passes_needs_one_storage_root(tmp_path, adapter):
    a = _collector(tmp_path / "r1", adapter, tmp_path)
    b = _collector(tmp_path / "r2", adapter, tmp_path)
    with pytest.raises(ValueError, match="one storage root"):
        run_passes([a, b])
    assert run_passes([]).sessions == 0
