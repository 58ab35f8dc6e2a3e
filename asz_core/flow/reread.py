"""Records an earlier adapter version flagged by an earlier rule, read by today's (docs/storage-root.md, "A root
several asz versions read").

Flags are set when a file lands, and a landed file is never rewritten (seed 000). So a conversation landed by an
earlier version of an adapter would keep that version's reading for good: a Claude Code ``!`` command's output
(its ``bash-stdout`` record) landed before ``claude-code-local/0.3.0`` is a typed prompt, a talk of its own, where a file landed
now holds it in its command's talk. Where the landed record itself holds what today's rule reads (the prompt's text),
the adapter says how it reads today (:meth:`~asz_core.plugins.adapter.Adapter.read_today`) and the assembly takes
that reading: the same transcript assembles the same whichever version landed it. The landed file, the session index
(``entries.jsonl``: the role fields as they landed) and every reader of the landed bytes (``asz show``, the record
endpoint, the document's records) keep what landed.

:func:`read_today` is called by the parse engine on every index it assembles (:class:`~asz_core.flow.parse.IndexEngine`),
before any assembly reads a flag: it asks only about records flagged ``external_input`` (the flag that opens a talk)
in files whose header names another version than the installed adapter's, reads those files' lines once per process
(kept by path, size and mtime), and changes the :class:`~asz_core.flow.index.IndexEntry` in place (its ``flags``,
``trigger`` and ``reread``: the header's ``adapter`` and what reads differently). :func:`reread_pending` tells parse a
chain whose rounds were folded by the earlier reading (parse then writes a round with nothing new landed, as for a
relink).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable

import orjson

from ..sessiondata.codec import FieldError, decode_header

__all__ = ["read_today", "reread_pending", "forget_read"]

#: ``(path, size, mtime_ns)`` of a landed file → ``{row: (flags, trigger, adapter, why)}`` of its records that read
#: otherwise today (empty: none), for this process. A landed file is written once, so a key that matches holds.
_READ: dict[tuple[str, int, int], dict[int, tuple[frozenset, str, str, str]]] = {}


def forget_read() -> None:
    """Drop what :func:`read_today` kept in this process (a test that lands again at one path)."""
    _READ.clear()


def read_today(session_dir: Path, entries: Iterable[Any], files: Iterable[Any]) -> list[Any]:
    """Read the records of ``entries`` (:class:`~asz_core.flow.index.IndexEntry`, landed in ``session_dir``'s
    ``files``, :class:`~asz_core.flow.index.IndexFile`) that an earlier adapter version flagged by an earlier rule as
    their adapter reads them today: ``flags`` and ``trigger`` replaced, ``reread`` set to ``"<adapter>: <why>"``
    (the header's ``name/version``) and the assembly's per-entry memos cleared. An entry already read so is left as
    it is. Returns the entries read today (all of them, those read before included), in landed order. A file that
    cannot be read is left as indexed (the index and verify say what is wrong with it). Never raises OSError."""
    by_seq: dict[int, list[Any]] = {}
    out: list[Any] = []
    for e in entries:
        if e.reread:
            out.append(e)
        elif "external_input" in e.flags and e.parts:
            by_seq.setdefault(e.seq, []).append(e)
    if not by_seq:
        return out
    paths = {f.seq: f.path for f in files if f.seq in by_seq}
    for seq, es in by_seq.items():
        rel = paths.get(seq)
        if not rel or not rel.endswith(".sd"):
            continue  # a skeleton (.sk) holds no text: its records read as they landed
        got = _file_today(session_dir / rel)
        for e in es:
            today = got.get(e.row)
            if today is None:
                continue
            e.flags, e.trigger = today[0], today[1]
            e.reread = f"{today[2]}: {today[3]}"
            e.cycle = e.unflagged = e.steps = None  # the assembly's memos of the flags they read
            out.append(e)
    out.sort(key=lambda e: (e.seq, e.row))
    return out


def _file_today(path: Path) -> dict[int, tuple[frozenset, str, str, str]]:
    """``{row: (flags, trigger, adapter, why)}`` of the records of the landed file at ``path`` its adapter reads
    otherwise today (:meth:`~asz_core.plugins.adapter.Adapter.read_today`); {} for a file of the installed version,
    of an adapter not installed, or that does not read."""
    try:
        st = os.stat(path)
    except OSError:
        return {}
    key = (str(path), st.st_size, st.st_mtime_ns)
    got = _READ.get(key)
    if got is not None:
        return got
    got = _READ[key] = {}
    try:
        with open(path, "rb") as f:
            head = f.readline().rstrip(b"\n")
            hdr = decode_header(head)
            adapter = _adapter_of(hdr.dialect)
            if adapter is None or hdr.adapter == f"{adapter.name}/{adapter.version}":
                return got
            lines = f.read().split(b"\n")
    except (OSError, FieldError, ValueError):
        return got
    for row, line in enumerate(lines, start=1):
        if b'"external_input"' not in line:
            continue
        try:
            rec = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(rec, dict) or "ord" not in rec:
            continue  # the closing line
        answer = _ask(adapter, hdr.dialect, hdr.adapter, rec)
        if answer is not None:
            got[row] = (frozenset(answer["flags"]), answer["trigger"], hdr.adapter, answer["why"])
    return got


def _adapter_of(dialect: str) -> Any:
    from ..plugins.manager import adapter_for_dialect

    return adapter_for_dialect(dialect) if dialect else None


def _ask(adapter: Any, dialect: str, header_adapter: str, rec: dict) -> dict | None:
    """The adapter's :meth:`read_today` answer when it is of the documented shape, else None (its bug: as landed)."""
    try:
        got = adapter.read_today(dialect, header_adapter, rec)
    except Exception:
        return None
    if not isinstance(got, dict):
        return None
    flags, trigger, why = got.get("flags"), got.get("trigger"), got.get("why")
    if not isinstance(flags, (list, tuple)) or not all(isinstance(f, str) for f in flags):
        return None
    if not isinstance(trigger, str) or not isinstance(why, str) or not why:
        return None
    return {"flags": list(flags), "trigger": trigger, "why": why}


def reread_pending(read: list[Any], fold: Any) -> bool:
    """True when the chain ``fold`` still holds a record of ``read`` (:func:`read_today`'s answer) as a person's
    message (its ``input/<seq>/<row>`` step, ``message.external``): its rounds were folded by the earlier reading, so
    parse writes a round that reads it as today's assembly does (the steps and talks it changes)."""
    nodes = fold.nodes
    for e in read:
        if "external_input" not in e.flags and f"input/{e.seq}/{e.row}" in nodes:
            return True
    return False
