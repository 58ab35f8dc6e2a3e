"""What a collect pass would read, without reading it: sources, sizes and cursor states (``asz sources``).

Spec: origin-digest §2.2 (cursors), §8.1 (``asz sources``). Takes no lock and
writes nothing, so it may run beside a collector; what it shows can be a pass
behind.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Iterable

from ..plugins.adapter import Adapter, discovery_failure
from ..storage.cursor import UNREADABLE_CURSOR, AppendCursor, SnapshotCursor, read_cursor
from ..storage.erased_list import ERASED_LIST, erasure_said, read_erased
from ..storage.layout import cursor_path, kind_dir, session_dir
from ..storage.torn import torn_bytes, torn_line
from .src_text import shown
from .windows import SourceError, open_source
from .folders import discover_folders
from .other_adapter import other_adapter_refusal
from .second_source import refuse_seconds
from ..storage.cursor import reset_step
from .src_text import take_unwritable

__all__ = ["survey"]


def survey(root: str | os.PathLike, adapter: Adapter, source_root: str | os.PathLike, *,
           include: Iterable[str] = (), exclude: Iterable[str] = (), more_roots: Iterable[str | os.PathLike] = (),
           optional: bool = False, default_folders: bool = True) -> dict:
    """Describe one adapter's sources against a storage root, as a JSON-ready dict.

    Shape::

        {"adapter": name, "source_root": str, "skipped": N,
         "errors": [{"path", "message"}], "conflicts": [{"path", "reason"}],
         "sessions": [{"session", "sources": [{"src", "path", "kind", "mode", "stream", "batch",
                       "size", "landed", "unread", "ord", "state", "reason", "cursor", "torn_tail"}]}],
         "torn_tails": ["torn tail: <src>: …"], "notes": [{"path", "message"}]}

    Sizes are bytes (a source another adapter's session id refuses: :func:`_row`). ``size`` is None and ``state`` ``unreadable`` when the
    file cannot be read; ``state`` is ``new`` when no cursor exists. A session the root erased on request
    (``_erased.list``: a pass leaves it out unread, :mod:`asz_core.collect.erased`) has every source ``state``
    ``erased``, ``unread`` 0, its ``reason`` and the session's ``erased`` naming the erasure (trial 32b, F6). For an
    append source ``landed`` is the cursor offset and ``unread`` is
    ``size - landed``; for a snapshot ``unread`` is the size when the content
    differs from what landed, else 0. A ``mode="document"`` source is read
    through ``adapter.read_document`` (its ``size`` is the document's bytes,
    ``state`` ``gone`` when the adapter says it no longer exists) and compared
    like a snapshot. Discovery exceptions become one error; ``conflicts`` are
    the sources discovery refused because another lands into their stream; ``notes`` the adapter's own. ``torn_tail`` is
    the size in bytes of an append source's unterminated last line when the
    file has not changed for the idle window (:mod:`asz_core.storage.torn`),
    else 0; each such source is also a ``torn_tails`` line. With ``more_roots`` (further source folders read into the
    same root, :mod:`asz_core.collect.folders`) the dict also has ``"source_roots": [str]`` (every folder, the root's
    own first) and ``"missing": [str]`` (those that do not exist), and a copy in another folder whose bytes are all in
    the source that lands is a skipped entry, as a pass counts it. ``optional`` (its folders are the adapter's defaults
    and another adapter is listed beside it: :func:`~asz_core.cli.jobs.missing_is_note`): when none of its folders
    exists, no error, ``"source_roots"`` and ``"missing"`` (every one of them) say it, as a pass notes it (trial 29c F5).
    ``default_folders``: the folders are the adapter's defaults; when not, a conflict's ``next`` names them
    (``--adapter A --source F``: :func:`~asz_core.storage.cursor.reset_step`, trial 34a F1), as a pass's does.
    """
    root = Path(root)
    out: dict = {"adapter": adapter.name, "source_root": str(source_root), "skipped": 0, "errors": [], "conflicts": [], "sessions": [], "torn_tails": [], "notes": []}
    now = time.time_ns()
    more = [Path(p) for p in more_roots]
    folder_of = None
    every = [Path(source_root), *more]
    if optional and not any(p.exists() for p in every):  # a pass's note (collect/folders.py NO_DEFAULT), not an error
        out.update(source_roots=[str(p) for p in every], missing=[str(p) for p in every])
        return out
    if more:
        found = discover_folders(adapter, [Path(source_root), *more], include=include, exclude=exclude)
        disc, folder_of = found.disc, found.folder_of
        out["source_roots"] = [str(source_root), *map(str, more)]
        out["missing"] = [str(p) for p in found.missing]
        out["errors"] += [{"path": str(p), "message": m} for p, m in found.failed]
    else:
        try:
            disc = adapter.discover(Path(source_root), include=list(include), exclude=list(exclude))
        except Exception as exc:
            out["errors"].append({"path": str(source_root), "message": discovery_failure(exc)})
            return out
    refuse_seconds(root, disc, folder_of)  # as collect refuses them: the source the cursor follows keeps its stream
    out["skipped"] = len(disc.skipped)
    out["skipped_entries"] = [{"path": shown(p), "reason": r} for p, r in disc.skipped]  # not UTF-8: \\xNN (JSON holds no other)
    out["errors"] += [{"path": str(p), "message": m} for p, m in [*disc.errors, *take_unwritable(Path(source_root), disc)]]
    out["conflicts"] = [{"path": str(p), "reason": r} for p, r in disc.conflicts]
    out["notes"] = [{"path": str(p), "message": m} for p, m in disc.notes]
    gone = read_erased(root)
    for session, sources in disc.sessions().items():
        try:
            e = gone.get(session_dir(root, session).name) if gone else None
        except ValueError:
            e = None
        if e is not None:  # a pass leaves it out before reading it (collect/erased.py): nothing of it is read
            why = (f"session {e.session} was {erasure_said(e)} ({root / ERASED_LIST}:{e.line}): its source is not "
                   "landed again")
            rows = [{"src": s.src, "path": str(s.path), "kind": s.kind, "mode": s.mode, "stream": s.stream,
                     "batch": s.batch, "size": _size(s.path), "landed": 0, "unread": 0, "ord": 0, "state": "erased",
                     "reason": why, "cursor": "", "torn_tail": 0} for s in sources]
            out["sessions"].append({"session": session, "sources": rows, "erased": why})
            continue
        rows = [_row(root, adapter, session, s, now, out["torn_tails"], () if default_folders or adapter.source_in_storage else every)
                for s in sources]
        out["sessions"].append({"session": session, "sources": rows})
    return out


def _size(path) -> int | None:
    """The size in bytes of the file at ``path``, None when it cannot be read (a stat: nothing of it is opened)."""
    try:
        return os.stat(path).st_size
    except (OSError, TypeError, ValueError):
        return None


def _row(root: Path, adapter: Adapter, session: str, s, now: int, torn_tails: list[str], named=()) -> dict:
    """One source's row of :func:`survey` (see its shape): its size, what landed and what is unread, in bytes.

    ``s`` is a discovered source of ``session``; ``now`` (ns since the epoch)
    judges a torn tail, whose line is appended to ``torn_tails``. Never
    raises for the source: what cannot be read is ``state`` ``unreadable`` or
    ``gone`` with its ``reason``.
    A source whose session another adapter lands its kind into (:func:`~.other_adapter.other_adapter_refusal`), which a
    pass refuses, has ``state`` ``conflict``, ``other_adapter`` (that adapter's name), the pass's reason naming both,
    ``landed`` 0 and ``unread`` its size (trial 35a: it read as the other adapter's source moved, with its landed bytes
    and a ``--reset-conflict`` step).
    """
    row = {"src": s.src, "path": str(s.path), "kind": s.kind, "mode": s.mode, "stream": s.stream, "batch": s.batch,
           "size": None, "landed": 0, "unread": None, "ord": 0, "state": "new", "reason": "", "cursor": "", "torn_tail": 0}
    try:
        cp = cursor_path(kind_dir(root, session, s.kind, s.stream, s.batch), s.kind)
        row["cursor"] = str(cp)
        cur = read_cursor(cp)
    except (ValueError, KeyError, OSError) as exc:
        damaged = isinstance(exc, (ValueError, IsADirectoryError))  # what a collect pass sets aside and reads on from
        row["state"], row["reason"], cur = "unreadable", f"{exc}; {UNREADABLE_CURSOR}" if damaged else str(exc), None
    doc_sha = ""
    try:
        if s.mode == "document":
            data = adapter.read_document(s)
            size = len(data)
            body = data.rstrip(b"\n")
            doc_sha = hashlib.sha256(body).hexdigest() if body else ""
            del data, body
        else:
            fd, st = open_source(s.path)  # what collect opens: a FIFO, a device or a directory is unreadable
            os.close(fd)
            size = st.st_size
            if s.mode == "append":
                row["torn_tail"] = torn_bytes(s.path, st, now)
                if row["torn_tail"]:
                    torn_tails.append(torn_line(s.src, row["torn_tail"]))
        row["size"] = size
    except FileNotFoundError as exc:
        size = None
        row["state"], row["reason"] = "gone", exc.strerror or str(exc)
    except SourceError as exc:
        size = None
        row["state"], row["reason"] = "unreadable", str(exc).removeprefix("unreadable: ")
    except Exception as exc:  # OSError, or an adapter's ValueError for a document it cannot read
        size = None
        row["state"], row["reason"] = "unreadable", getattr(exc, "strerror", None) or str(exc)
    unread_now = (row["state"], row["reason"]) if size is None and row["state"] == "unreadable" else None
    owner, why = other_adapter_refusal(root, session, s.kind, cp, cur, adapter.name) if row["cursor"] else ("", "")
    if owner:  # a pass refuses it, naming both adapters: never "the cursor belongs to" the other's source (trial 35a)
        row.update(state="conflict", reason=why, other_adapter=owner, unread=size)
        return row
    if cur is not None:
        # the source that cannot be read now says so over its cursor's state (trial 26a, F6: it read `active`)
        row["state"], row["reason"] = unread_now or (cur.state, cur.reason)
        if cur.source != s.src:
            row["state"], row["reason"] = "conflict", (f"the cursor belongs to {cur.source}; asz collect follows it here "
                                                       "when this file holds what landed, else says why")
        if row["state"] == "conflict":  # what resolves it, said with every conflict (collect/report.py)
            row["next"], row["since"] = reset_step(session, root, adapter.name, named), cur.updated_at  # since: when found
    if isinstance(cur, AppendCursor):
        row["landed"], row["ord"] = cur.offset, cur.ord
        if size is not None:
            row["unread"] = max(0, size - cur.offset)
    elif size is not None and s.mode in ("snapshot", "document"):
        sha = doc_sha if s.mode == "document" else _content_sha(s.path)
        same = isinstance(cur, SnapshotCursor) and sha == cur.content_sha256
        row["landed"] = size if same else 0
        row["unread"] = 0 if same else size
    elif size is not None:
        row["unread"] = size
    return row


def _content_sha(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return ""
    data = data.rstrip(b"\n")
    return hashlib.sha256(data).hexdigest() if data else ""
