"""Torn tails: a source whose last line has no newline and has not grown for the idle window (issue 18).

While a session may still grow, an unterminated last line is a write in
progress: it is not converted, not counted, and waits for its newline
(field report 6). When the file has not changed for :data:`TORN_AFTER_NS`
(the idle window, the same 10 minutes the assembly uses to cut segments,
``asz_core.sessiondata.times.IDLE_GAP_NS``), the line is reported as a **torn tail**,
distinct from damage inside the file. It still never lands cut: it lands as
soon as it is completed, and every report stops saying ``torn tail`` then.

Three places say it, with the words of :func:`torn_line`:

* ``asz sources`` from the source file itself (:func:`torn_bytes`);
* ``asz collect`` writes the tail's size in the append cursor's additive key
  ``torn`` (0 and left out otherwise); ``asz verify`` warns from it (exit 0);
* the asz.view document's ``summary.problems`` from the same cursor key
  (:func:`session_torn_tails`), which ``asz ls`` marks and names; ``asz usage``
  and ``asz conversation`` say each such line in one stderr note
  (:func:`torn_notes`, trial 15 F17: a total lower than the source's with no word);
* ``asz server``'s ``/api/status`` (``torn_tails``) from the :class:`Tail` each pass records of a source ending in a
  line with no newline, judged when asked (trial 40c F4: a torn tail read ``still being written`` for ever).

Whether an unterminated line is a torn tail or a write in progress is one rule, :func:`is_torn`.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable, Iterable

import attrs

from ..sessiondata.times import IDLE_GAP_NS
from .cursor import AppendCursor, read_cursor
from .layout import SessionListing, session_listing

__all__ = ["TORN_AFTER_NS", "TORN_PREFIX", "Tail", "is_torn", "torn_bytes", "torn_detail", "torn_line", "torn_notes", "session_torn_tails", "cursor_torn",
           "window_text"]

#: How every torn-tail line begins (:func:`torn_line`).
TORN_PREFIX = "torn tail: "

#: How long (ns) a source must be unchanged before its unterminated last line is a torn tail.
TORN_AFTER_NS = IDLE_GAP_NS


def window_text(ns: int = TORN_AFTER_NS) -> str:
    """``10m0s``: the window as the policy string writes it."""
    s = ns // 1_000_000_000
    return f"{s // 60}m{s % 60}s"


def torn_detail(size: int, window_ns: int = TORN_AFTER_NS) -> str:
    """What a torn tail is, after ``torn tail: <src>: ``."""
    return (f"the last line has no newline ({size} bytes) and the file has not changed "
            f"for {window_text(window_ns)}; it lands when the line is completed")


def torn_line(src: str, size: int, window_ns: int = TORN_AFTER_NS) -> str:
    """The one sentence every report uses: ``torn tail: <src>: …``."""
    return f"{TORN_PREFIX}{src}: {torn_detail(size, window_ns)}"


def is_torn(mtime_ns: int, now_ns: int | None = None, window_ns: int = TORN_AFTER_NS) -> bool:
    """Whether a source that ends in a line with no newline and last changed at ``mtime_ns`` (ns since the epoch) is a
    torn tail at ``now_ns`` (default: now): unchanged for ``window_ns`` or longer; else the line is a write in
    progress. The one rule ``asz collect``, ``asz sources`` and ``asz server``'s ``/api/status`` judge by."""
    return (time.time_ns() if now_ns is None else now_ns) - mtime_ns >= window_ns


@attrs.frozen
class Tail:
    """A source a collect pass found ending in a line with no newline: its ``path`` (as the pass's warnings name it),
    the line's ``size`` (bytes after the last newline), the file's ``mtime_ns`` and the pass's ``window_ns``. Whether it
    is a torn tail is judged when asked (:meth:`torn`), so a reader of a pass long past says what the pass would say now
    without a pass."""

    path: str
    size: int
    mtime_ns: int
    window_ns: int = TORN_AFTER_NS

    def torn(self, now_ns: int | None = None) -> bool:
        """:func:`is_torn` of this tail at ``now_ns`` (default: now)."""
        return is_torn(self.mtime_ns, now_ns, self.window_ns)

    def line(self) -> str:
        """:func:`torn_line` of this tail: ``torn tail: PATH: the last line has no newline (N bytes) …``."""
        return torn_line(self.path, self.size, self.window_ns)


def torn_notes(problems: dict[str, Iterable[str]], shown: Callable[[str], str]) -> list[str]:
    """``note: ID is counted without a record not landed yet: torn tail: …`` for each :func:`torn_line` among the
    problem lines of each conversation of ``problems`` (conversation id -> its document's ``summary.problems``), in
    the order given, the conversation named by ``shown`` (its shortest prefix unique in the root,
    :func:`~asz_core.storage.ids.shown_names`): what a reader of figures prints on stderr so a total short by the
    unterminated line is said."""
    return [f"note: {shown(cid)} is counted without the record its source has not finished writing: {p}"
            for cid, lines in problems.items() for p in lines if p.startswith(TORN_PREFIX)]


def torn_bytes(path: str | os.PathLike, st: os.stat_result, now_ns: int, window_ns: int = TORN_AFTER_NS) -> int:
    """Bytes after the last newline of the file at ``path`` when it is a torn tail, else 0.

    A torn tail: the file is not empty, its last byte is not ``\\n``, and its
    mtime (``st``) is at least ``window_ns`` before ``now_ns``. Reads backward
    from the end in 64 KiB blocks until a newline. An unreadable file gives 0
    (the caller reports it as unreadable already).
    """
    size = st.st_size
    if size == 0 or not is_torn(st.st_mtime_ns, now_ns, window_ns):
        return 0
    try:
        with open(path, "rb") as f:
            pos = size
            block = 1 << 16
            while pos > 0:
                start = max(0, pos - block)
                f.seek(start)
                data = f.read(pos - start)
                if pos == size and data.endswith(b"\n"):
                    return 0
                nl = data.rfind(b"\n")
                if nl >= 0:
                    return size - (start + nl + 1)
                pos = start
            return size
    except OSError:
        return 0


def session_torn_tails(session_dir: str | os.PathLike, listing: SessionListing | None = None) -> list[tuple[str, int]]:
    """``(src, bytes)`` of each append cursor of the session that records a torn tail, sorted by src.

    A cursor that does not read is left out (``asz verify`` names it). ``listing``: the session's folders as the
    caller listed them already (:func:`~asz_core.storage.layout.session_listing`), else they are listed here.
    """
    cursors = (listing if listing is not None else session_listing(Path(session_dir))).cursors.values()
    return sorted(tail for tail in map(cursor_torn, cursors) if tail is not None)


def cursor_torn(path: str | os.PathLike) -> tuple[str, int] | None:
    """``(src, bytes)`` of the torn tail the cursor at ``path`` records (an append cursor's ``torn`` key, bytes), None
    when it records none, is a snapshot cursor, is missing or does not read (``asz verify`` names it). Never raises."""
    try:
        cur = read_cursor(Path(path))
    except (ValueError, OSError):
        return None
    return (cur.source, cur.torn) if isinstance(cur, AppendCursor) and cur.torn else None
