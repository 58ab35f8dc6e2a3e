"""Where a stream's new reading starts: a source read again from its start (trial 34b F2; docs/storage-root.md).

``asz sources --reset-conflict SESSION --reread`` has a rewritten source landed again from ord 1, off 0, in new files
after the ones that landed. The cursor of that stream and kind keeps ``reread_seq``: the files with a seq from it on
hold the new reading, those before it the earlier one, kept as evidence. One rule reads the two apart everywhere
(:func:`same_reading`): ``asz verify`` walks each reading on its own, and a receiving root does the same with the seq
its sending root's cursor gave.

A receiving root has no cursor. ``asz push`` marks every landed file of a new reading with its cursor's
``reread_seq`` (the record attribute ``asz.reread``, :func:`reread_of_file`), and ``asz receive`` keeps it, per stream
and kind, in ``_received/readings.list``, one JSON line per stream written before the first file of its new reading
lands (:func:`record_reading`)::

    {"session":"<session dir>","dir":"streams/main","kind":"transcript","reread_seq":3,
     "file":"<the first file of the new reading, root-relative>","instance":"dev@hostC","at":"2026-12-06T03:00:00Z"}

The list is what the sending root's cursor said, not derived from the landed files (nothing in them says a reading
starts), so it lives beside the sender records, not under ``_index/``. A line that does not read is skipped (verify
then walks the stream as one reading and names the break, ``ord gap``).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from .cursor import AppendCursor, read_cursor
from .layout import cursor_path, parse_landed_name
from .short_list import append_line, json_lines, read_once

__all__ = ["READINGS_LIST", "same_reading", "reread_of_file", "received_rereads", "received_reread", "record_reading"]

READINGS_LIST = "readings.list"
_lock = threading.Lock()
#: path of a root's list -> (its stat key when read, session dir -> {(dir, kind): reread_seq})
_READ: dict[str, tuple[tuple, dict[str, dict[tuple[str, str], int]]]] = {}


def same_reading(a: int, b: int, reread: int) -> bool:
    """True when seqs ``a`` and ``b`` of one stream and kind hold the same reading of its source, given the seq its new
    reading starts at (``reread``; 0: read once, one reading): both before it or both from it on."""
    return not reread or (a >= reread) == (b >= reread)


def reread_of_file(path: str | os.PathLike) -> int:
    """The ``reread_seq`` of the cursor beside the landed file ``path`` (its stream and kind) when the file holds that
    new reading (its seq from it on), else 0: what ``asz push`` sends as ``asz.reread``. Never raises (a cursor that
    does not read gives 0)."""
    ln = parse_landed_name(os.path.basename(path))
    if ln is None or ln.ext != "sd":
        return 0
    try:
        cur = read_cursor(cursor_path(Path(path).parent, ln.kind))
    except (ValueError, OSError, KeyError):
        return 0
    reread = cur.reread_seq if isinstance(cur, AppendCursor) else 0
    return reread if reread and ln.seq >= reread else 0


def received_rereads(root: str | os.PathLike, session_dir: str) -> dict[tuple[str, str], int]:
    """``{(dir, kind): reread_seq}`` of session directory ``session_dir`` in ``root``'s ``_received/readings.list``
    (``dir``: the stream's or run's directory relative to the session, ``/``-separated); {} when none. The first line of
    a stream counts (a source is read again once). Read once per state of the list's file. Never raises."""
    def build() -> dict[str, dict[tuple[str, str], int]]:
        by: dict[str, dict[tuple[str, str], int]] = {}
        for d in json_lines(root, READINGS_LIST, ("session", "dir", "kind")):
            seq = d.get("reread_seq")
            if isinstance(seq, int) and not isinstance(seq, bool) and seq > 0:
                by.setdefault(d["session"], {}).setdefault((d["dir"], d["kind"]), seq)
        return by

    return dict((read_once(root, READINGS_LIST, _READ, build) or {}).get(session_dir, {}))


def received_reread(root: str | os.PathLike, parts: tuple[str, ...], kind: str) -> int:
    """The ``reread_seq`` ``root``'s list holds for the stream and kind of the landed file at ``parts`` (its
    root-relative path's segments); 0 when none."""
    return received_rereads(root, parts[0]).get(("/".join(parts[1:-1]), kind), 0)


def record_reading(root: str | os.PathLike, parts: tuple[str, ...], kind: str, reread: int, instance: str | None,
                   at: str) -> bool:
    """Append the line of the new reading starting at seq ``reread`` of the stream and kind of the landed file at
    ``parts`` (the first file of it to land), unless the list holds that stream already; True when written. Raises
    OSError when it cannot be written."""
    with _lock:
        if received_reread(root, parts, kind):
            return False
        append_line(root, {"session": parts[0], "dir": "/".join(parts[1:-1]), "kind": kind, "reread_seq": reread,
                           "file": "/".join(parts), "instance": instance, "at": at}, READINGS_LIST)
        return True
