"""Records whose time does not read (seed 000, Times: a value that is not an RFC 3339 time means the record has no
time; trial 30a F8): how an adapter keeps such a value and the words every reader says it in.

* :func:`time_as_written`: what an adapter puts in a record's ``time`` when the runtime's value does not read as a
  time it knows: a string as written, any other JSON value as its JSON text (``1767261700000``), ``''`` for none,
  so nothing the runtime wrote is lost and every reader reads it as no time (public: ``asz_core.time_as_written``,
  for the Claude Code, Kiro and LangChain adapters alike).
* :func:`untimed`: whether a landed record's ``time`` is one that does not read (given, and no RFC 3339 time).
* :func:`untimed_said` and :func:`untimed_at`: the words ``asz collect``'s warning, ``asz verify``'s warning, the
  asz.view document's ``summary.problems`` line (so ``asz conversation``, ``asz ls``'s ``!`` and the page) and the
  exports' step lines share.
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from .times import parse_instant

__all__ = ["UNTIMED_COUNTED", "UNTIMED_MARKED", "UNTIMED_PREFIX", "UNTIMED_PROBLEM", "time_as_written", "untimed", "untimed_at", "untimed_rows",
           "untimed_said"]

#: How the asz.view document's ``summary.problems`` line about such records starts (docs/view.md).
UNTIMED_PREFIX = "time does not read: "
#: The name of ``asz verify``'s warning about them (docs/verify.md; it does not fail the run).
UNTIMED_PROBLEM = "time does not read"
#: What ``asz usage`` adds to the problems line it says of a conversation holding such records (docs/view.md).
UNTIMED_COUNTED = ("; asz usage counts their calls in every total, a call with no time of its own placed as such calls "
                   "are (by its conversation's recorded range, else in the (no time) row), never by a time it does not "
                   "have")
#: The session index's state key saying every line of its ``entries.jsonl`` carries the ``untimed`` key where its
#: records call for one (:mod:`asz_core.flow.index`; written ``1`` by an index begun by this asz, kept by every append
#: to it): an index an asz before session 32 began lacks it, and ``asz verify`` reads its lines' records again
#: (:func:`untimed_rows`) rather than take them as all timed (trial 30a F8).
UNTIMED_MARKED = "untimed_marked"
#: At most this many characters of a value are quoted (a value is the runtime's, of any length).
SHOWN_CHARS = 40


def time_as_written(value: object, source: bytes | None = None) -> str:
    """The runtime's time ``value`` as a record's ``time`` when the adapter cannot read it as a time it knows: a string
    as written (``"yesterday"``), ``None`` as ``''`` (no time given), any other JSON value as its JSON text
    (``1767261700000``, ``true``, ``{"at": 1}``): ``source``, its source bytes (compacted), where the adapter has
    them (a number a decoder rounds, ``100000000000000000000`` read as ``1e+20``, stays as written), else orjson's
    encoding of ``value``. So nothing is lost and every reader reads it as having no time (seed 000, Times);
    ``asz collect`` then says the record in one ``warning:`` per source (file, line, field, value). Never raises: a
    value orjson cannot encode (not JSON) is its ``repr``."""
    if value is None or isinstance(value, str):
        return value or ""
    if source is not None:
        return bytes(source).decode("utf-8", "replace")
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return repr(value)


def untimed(time: object) -> bool:
    """True when ``time`` (a landed record's ``time``) is given and does not read as an RFC 3339 time
    (:func:`~asz_core.sessiondata.times.parse_instant`); an empty or missing time is no time given, not this."""
    return bool(time) and parse_instant(time) is None


def untimed_rows(records: Sequence[dict]) -> list[list]:
    """``[[line in the landed file, the time as landed], …]`` of a session index line's ``records`` (slim records in
    file order, the header being line 1) whose time is given and does not read: those with a ``time`` and no ``ts``
    (:mod:`asz_core.flow.index`). What the index line's ``untimed`` key holds, and what ``asz verify`` reads again from
    a line an older asz wrote without that key (trial 30a F8)."""
    return [[row, r["time"]] for row, r in enumerate(records, 2)
            if isinstance(r, dict) and "ts" not in r and "time" in r and untimed(r["time"])]


def untimed_at(value: str, where: str) -> str:
    """A step's time slot when its record's time does not read: ``time does not read ('yesterday', S/streams/main/
    transcript-….sd line 3)`` (``where``: the landed file and line); the exports draw it where a time would be
    (docs/reading.md)."""
    return f"{UNTIMED_PROBLEM} ({value[:SHOWN_CHARS]!r}, {where})"


def untimed_said(found: Sequence[tuple[str, int, str]], field: str = "time", shown: int = 5) -> str:
    """The words of every reader's line about records whose time does not read: ``found`` as ``(file, line, the time
    as landed)`` (``file``: ``''`` where the line that says them names it already, a source's or a landed file's
    warning; else the landed file under the root, said once before its first line: ``S/streams/main/transcript-….sd
    line 3: 'yesterday'; line 4: '1767261700000'``), ``field`` the record's field and, where an adapter names it, the
    runtime's (``time (timestamp)``): how many, the first ``shown`` with their values, and that each landed with its
    value as written and reads as having no time (seed 000, Times; trial 30a F8)."""
    said, last = [], None
    for file, line, value in found[:shown]:
        said.append(f"{file + ' ' if file and file != last else ''}line {line}: {value[:SHOWN_CHARS]!r}")
        last = file
    more = f"; and {len(found) - shown} more" if len(found) > shown else ""
    return (f"{len(found)} record(s) give a time that does not read as an RFC 3339 time, field {field} "
            f"({'; '.join(said)}{more}): each landed with the value as written (a value that is no string as its JSON "
            "text) and reads as having no time: no reader places it by a time it does not have")
