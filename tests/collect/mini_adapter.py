"""A tiny JSONL adapter for collector tests (loadable in-process or with ``--adapter-file``).

Source layout under the source root::

    <session>/<stream>.jsonl       a stream of lines (append), stream = file stem
    <session>/<stream>.ndjson      the same stream again (to provoke a two-sources conflict)
    <session>/<stream>.meta.json   one document (snapshot), kind agent_meta

Each line becomes one record with one ``data`` part holding the line verbatim,
or an ``unknown`` part when the line is not a JSON object. A line's ``set_flag`` string is set as the record's one
flag, by no rule the adapter declares (its ``flag_map`` is empty).
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from asz_core.plugins.adapter import Adapter, Capabilities, Discovery, Source
from asz_core.sessiondata import Part, RawJSON, Record, source_sha, unknown_part


class MiniAdapter(Adapter):
    """JSONL test adapter: ``mini-jsonl/0.1.0``, dialect ``mini/1``."""

    name = "mini-jsonl"
    version = "0.1.0"
    dialects = ("mini/1",)
    kinds = ("transcript", "agent_meta")
    capabilities = Capabilities()
    description = "test adapter"
    sessions_in_parallel = True  # converts from its arguments alone: asz collect may land sessions in several processes

    def glossary(self, dialect):
        return []

    def flag_map(self, dialect):
        return []

    def default_source_root(self, env=None):
        return Path((env if env is not None else os.environ).get("MINI_SOURCE_ROOT", "./mini-src"))

    def discover(self, source_root, *, include=(), exclude=()):
        disc = Discovery()
        root = Path(source_root)
        try:
            sessions = sorted(os.scandir(root), key=lambda e: e.name)
        except OSError as exc:
            disc.errors.append((str(root), f"unreadable source root: {exc.strerror}"))
            return disc
        for e in sessions:
            if not e.is_dir():
                disc.skipped.append((e.path, "not a session directory"))
                continue
            if include and e.name not in include:
                continue
            if e.name in exclude:
                continue
            try:
                names = sorted(os.listdir(e.path))
            except OSError as exc:
                disc.errors.append((e.path, f"unreadable session directory: {exc.strerror}"))
                continue
            for n in names:
                path = Path(e.path) / n
                src = f"{e.name}/{n}"
                if n.endswith(".meta.json"):
                    disc.sources.append(Source(e.name, "agent_meta", path, src, "mini/1", stream=n[: -len(".meta.json")], mode="snapshot"))
                elif n.endswith(".jsonl") or n.endswith(".ndjson"):
                    disc.sources.append(Source(e.name, "transcript", path, src, "mini/1", stream=n.rsplit(".", 1)[0]))
                else:
                    disc.skipped.append((str(path), "not a source"))
        return disc

    def convert_line(self, source, line, ord, off):
        rec = Record(ord=ord, off=off, sha=source_sha(line), bytes=len(line))
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            obj = None
        if isinstance(obj, dict):
            if isinstance(obj.get("uuid"), str):
                rec.id = obj["uuid"]
            if isinstance(obj.get("timestamp"), str):
                rec.time = obj["timestamp"]
            rec.from_ = "runtime"
            if isinstance(obj.get("set_flag"), str):  # a flag set by no rule (flag_map declares none): collect refuses it
                rec.flags = [obj["set_flag"]]
            rec.parts = [Part(k="data", data=RawJSON(line), bytes=len(line))]
        else:
            rec.parts = [unknown_part(line, "the line is not a JSON object")]
        return rec

    def convert_document(self, source, data):
        body = data.strip()
        rec = Record(ord=1, off=0, sha=source_sha(data), bytes=len(data), from_="runtime")
        try:
            obj = orjson.loads(body)
        except orjson.JSONDecodeError:
            obj = None
        if isinstance(obj, dict):
            rec.parts = [Part(k="data", data=RawJSON(orjson.dumps(obj)), bytes=len(data))]
        else:
            rec.parts = [unknown_part(data, "the document is not a JSON object")]
        return rec


def asz_register_adapters():
    """Hook: this module provides :class:`MiniAdapter`."""
    return [MiniAdapter]
