"""The LangSmith ingest directory's state and journal on disk (:mod:`.inbox`'s crash safety): ``state.json`` read
and written atomically, a committed journal applied (redo, never twice), finished traces forgotten."""

from __future__ import annotations

import base64
import os
from datetime import datetime, timezone
from pathlib import Path

import orjson

from asz_core.storage.root import gone_if_raised

__all__ = ["PRUNE_AFTER", "STATE_VERSION", "apply_journal", "load_state", "prune", "write_atomic"]

#: Seconds of silence (by the receiver's clock) after which a trace whose runs all ended is forgotten.
PRUNE_AFTER = 24 * 3600
#: The ``v`` of ``state.json``; a file of another version (or not a JSON object) is read as a new, empty state.
STATE_VERSION = 1


def load_state(path: Path) -> dict:
    """``state.json`` at ``path`` as a dict with every key a pass reads: ``v``, ``runs`` (run id -> what is remembered
    of it), ``traces``, ``sessions`` (dicts), ``waiting`` (the arrivals still waiting, a list) and ``journal`` (the
    committed journal not yet applied, or None). A missing file, or one of another version, gives that empty state.
    Raises OSError when the file cannot be read, orjson.JSONDecodeError when it is not JSON."""
    try:
        st = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        st = {}
    if not isinstance(st, dict) or st.get("v") != STATE_VERSION:
        st = {"v": STATE_VERSION}
    for k in ("runs", "traces", "sessions"):
        st.setdefault(k, {})
    st.setdefault("waiting", [])
    st.setdefault("journal", None)
    return st


def write_atomic(path: Path, data: bytes) -> None:
    """Replace the file ``path`` by ``data`` (bytes) whole or not at all: written to ``.tmp-NAME`` beside it, synced,
    renamed over it, then its folder synced. Raises OSError when the folder cannot be written."""
    tmp = path.with_name(f".tmp-{path.name}")
    with gone_if_raised(tmp):  # from the open on: a stop or a full disk leaves no .tmp- file (session 41)
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def prune(st: dict, keep_seconds: int = PRUNE_AFTER) -> int:
    """Forget the runs of traces that are over: every run ended, and nothing arrived for the trace in the
    ``keep_seconds`` before the newest arrival the state has seen. Returns how many traces were forgotten.

    A late arrival of a forgotten trace then waits like any run whose ancestry is unknown and lands with
    what it says itself. Session memory (title, summaries) is kept.
    """
    seen = st.get("seen") or {}
    if not seen:
        return 0
    newest = max(seen.values())
    try:
        edge = datetime.fromisoformat(newest[:26].replace("Z", "")).replace(tzinfo=timezone.utc).timestamp() - keep_seconds
    except ValueError:
        return 0
    cutoff = datetime.fromtimestamp(edge, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    by_trace: dict[str, list[str]] = {}
    for rid, m in st["runs"].items():
        by_trace.setdefault(m.get("t", ""), []).append(rid)
    gone = 0
    for trace, last in list(seen.items()):
        if last[:19] >= cutoff:
            continue
        rids = by_trace.get(trace, [])
        if any(not st["runs"][r].get("end") for r in rids):
            continue
        for r in rids:
            del st["runs"][r]
        st["traces"].pop(trace, None)
        del seen[trace]
        gone += 1
    return gone


def apply_journal(ingest: Path, journal: dict) -> None:
    """Bring every stream file of a committed journal to its end: append what is missing (redo), never twice.

    A file at the journal's start length gets the bytes; one already at the
    end length is left alone; one in between (a crash mid-append) is cut back
    to the start and written again. Then the consumed inbox files move to ``done/``.
    """
    for rel, ent in journal.get("files", {}).items():
        p = ingest / rel
        data = base64.b64decode(ent["data"])
        start = int(ent["from"])
        p.parent.mkdir(parents=True, exist_ok=True)
        with open(p, "a+b") as f:
            size = f.seek(0, os.SEEK_END)
            if size >= start + len(data):
                continue
            if size > start:
                f.truncate(start)
            elif size < start:
                continue  # not the file the journal was written for: leave it, nothing is invented
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    names = journal.get("consumed", [])
    if names:
        done = ingest / "done"
        done.mkdir(parents=True, exist_ok=True)
        for name in names:
            try:
                os.replace(ingest / "inbox" / name, done / name)
            except FileNotFoundError:
                pass
