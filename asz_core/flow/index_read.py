"""Reading one landed file into a line of a session's index (origin-digest §2.4; split from :mod:`asz_core.flow.index`).

:func:`index_file` reads a landed ``.sd`` (or a skeleton's ``.sk``) whole, checks it
as the reader does (header, closing count and digest) and keeps of each record
only its role fields (:data:`ROLE_FIELDS`, :data:`PART_FIELDS`): never text, data or media.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import orjson

from ..sessiondata import SDError, SDReader, parse_instant

__all__ = ["ROLE_FIELDS", "PART_FIELDS", "IndexBuildError", "index_file"]

#: Record role fields copied into the index, in record key order (origin-digest §3.3).
ROLE_FIELDS = ("id", "parent", "call", "run", "continues", "tool", "child", "batch", "label", "started_by", "from",
               "time", "trigger", "model", "sha")
#: Part fields copied into the index (origin-digest §3.5); never text, data or media.
#: A part's ``state`` is not copied: a skeleton says ``removed`` where the landed file said what it held,
#: and the index built from either must be the same (seed 000, Skeletons).
PART_FIELDS = ("k", "id", "of", "name", "server", "server_tool", "failed", "bytes")


class IndexBuildError(RuntimeError):
    """A landed file could not be indexed: ``path`` and a message. Files below it stay indexed."""

    def __init__(self, path: str | os.PathLike, message: str):
        self.path = str(path)
        super().__init__(f"{path}: {message}")


def _changes_identity(data: Any) -> list | None:
    """``[captured_by|id, additions, deletions]`` for a changes/1 value, else None (seed 000)."""
    if not isinstance(data, dict) or data.get("schema") != "changes/1":
        return None
    adds = dels = 0
    for ch in data.get("changes") or ():
        if isinstance(ch, dict):
            a, d = ch.get("additions"), ch.get("deletions")
            if isinstance(a, int) and not isinstance(a, bool):
                adds += a
            if isinstance(d, int) and not isinstance(d, bool):
                dels += d
    return [f"{data.get('captured_by', '')}|{data.get('id', '')}", adds, dels]


def _provider_identity(data: Any) -> list | None:
    """``[role, request, previous_request, call]`` of a provider_body/1 manifest, else None (origin-digest §3.7, §4.1)."""
    if not isinstance(data, dict) or data.get("schema") != "provider_body/1":
        return None
    return [str(data.get(k) or "") for k in ("role", "request", "previous_request", "call")]


_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


def _slim_record(d: dict) -> dict:
    """The role fields of one decoded record dict; no text, data or media."""
    g = d.get
    out: dict[str, Any] = {key: v for key in ROLE_FIELDS if (v := g(key))}
    ts = parse_instant(out.get("time", ""))
    if ts is not None:
        # A time before 1677-09-21 or after 2262-04-11 is more nanoseconds than a signed 64-bit
        # integer holds (what the JSON line may carry): it is written as its decimal text instead.
        out["ts"] = ts if _I64_MIN <= ts <= _I64_MAX else str(ts)
    if isinstance(d.get("ord"), int):
        out["o"] = d["ord"]  # issue 10: landed-line gaps withhold request joins (seed 004)
    flags = d.get("flags")
    if flags:
        out["flags"] = list(flags)
    usage = d.get("usage")
    if usage:
        out["usage"] = dict(usage)
    parts = d.get("parts")
    if parts:
        slim = []
        for p in parts:
            pg = p.get
            sp = {k: v for k in PART_FIELDS if (v := pg(k)) is not None and v != ""}
            if pg("k") == "data":
                ch = _changes_identity(p.get("data"))
                if ch:
                    sp["ch"] = ch
                pb = _provider_identity(p.get("data"))  # issue 10: provider-body join keys
                if pb:
                    sp["pb"] = pb
            slim.append(sp)
        out["parts"] = slim
    return out


def index_file(session_dir: Path, seq: int, path: Path) -> dict:
    """Read one landed file (``seq`` its seq, ``path`` under ``session_dir``) into an ``entries.jsonl`` line (the
    shape in :mod:`asz_core.flow.index`). Raises :class:`IndexBuildError` when it does not read whole."""
    try:
        raw = blob = path.read_bytes()
        if path.suffix == ".sk":  # a skeleton's lines are inside its gzip (seed 000, Skeletons)
            import gzip

            raw = gzip.decompress(blob)
    except (OSError, EOFError) as exc:
        raise IndexBuildError(path, f"unreadable: {getattr(exc, 'strerror', None) or exc}") from None
    reader = SDReader(path, decode=False, data=blob)  # the bytes just read: the file is read once
    records = []
    try:
        for _row, d in reader:
            records.append(_slim_record(d))  # type: ignore[arg-type]
    except SDError as exc:
        raise IndexBuildError(path, f"not a whole landed file ({exc})") from None
    hdr = reader.header
    assert hdr is not None
    stream = hdr.stream
    batch = hdr.batch
    rel = path.relative_to(session_dir).as_posix()
    parts = rel.split("/")
    # A header without stream/batch: the layout says where the file belongs.
    if not stream and len(parts) >= 3 and parts[0] == "streams":
        stream = parts[1]
    if not batch and len(parts) >= 3 and parts[0] == "runs":
        batch = parts[1]
    if hdr.seq and hdr.seq != seq:
        raise IndexBuildError(path, f"header seq {hdr.seq} does not match the file name's seq {seq}")
    line = {
        "seq": seq,
        "path": rel,
        "kind": hdr.kind,
        "stream": stream,
        "batch": batch,
        "session": hdr.session,
        "digest": reader.digest,  # the SHA-256 of the whole file (of its lines, for a skeleton), as read
        "size": len(raw),
        "head": _short_sha(raw[: raw.find(b"\n")]),
        "rows": [_short_sha(x) for x in raw.split(b"\n")[1: 1 + len(records)]],
        "records": records,
    }
    removed = _removed_of(path)
    if removed is not None:  # a skeleton: the landed file it stands for (seed 000, Skeletons)
        line["digest"], line["size"] = removed["digest"], removed["size"]
    return line


def _short_sha(line: bytes) -> str:
    """The first 16 hex digits of the SHA-256 of one line (what ``head`` and ``rows`` hold)."""
    return hashlib.sha256(line).hexdigest()[:16]


def _removed_of(path: Path) -> dict | None:
    """A skeleton's ``removed`` mapping (digest and size of the landed file), or None for a landed file."""
    if path.suffix != ".sk":
        return None
    import gzip

    from .round import landed_file_digest

    with gzip.open(path, "rb") as f:
        head = orjson.loads(f.readline())
    return {"digest": landed_file_digest(path), "size": int(head["removed"]["size"])}
