"""``asz verify``'s word on landed records whose time does not read (trial 30a F8; docs/verify.md, Output).

A record whose runtime gave a time that is no RFC 3339 time (``"yesterday"``, a number) lands with the value as
written and reads as having no time (seed 000, Times). Its bytes are whole, so it is no damage and never fails the
run (exit 0, decided in session 32): one ``time does not read [time]`` warning per landed file holding such records,
at the first one's line, in the words every reader says them in
(:func:`~asz_core.sessiondata.untimed.untimed_said`), and ``untimed_records`` in ``--json``.

They are read from each session's index (``index/entries.jsonl``: a line of a landed file holding such records lists
them under ``untimed``, :mod:`asz_core.flow.index`), never by decoding the landed records: one search for the key per
index (0.4 ms for 500 KB), and only a line holding it is decoded. A file landed and not parsed yet (``asz collect
--no-parse``) is not in the index: its records are said once a parse indexed them, as ``asz collect`` said them when
they landed. An index an asz before session 32 began has lines without that key: its state lacks
:data:`~asz_core.sessiondata.untimed.UNTIMED_MARKED`, and every line of it is decoded and its records' ``time`` read
again (:func:`~asz_core.sessiondata.untimed.untimed_rows`), never taken as all timed (fix34a; deleting the session's
``index/`` and running ``asz parse`` writes a marked one).
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from ..sessiondata.untimed import UNTIMED_MARKED, UNTIMED_PROBLEM, untimed, untimed_rows, untimed_said
from ..storage.root import read_state
from ..storage.layout import session_dirs
from .report import Problem, Section

__all__ = ["marked_index", "untimed_in_session", "untimed_section"]

#: What an index line holding such records carries (its ``untimed`` key), looked for before any line is decoded.
MARK = b'"untimed'


def untimed_in_session(sdir: Path) -> dict[str, list[tuple[int, str]]]:
    """``{landed file under the session: [(line, the time as landed)]}`` of ``sdir``'s indexed records whose time is
    given and does not read (each index line's ``untimed``, :mod:`asz_core.flow.index`); ``{}`` when none, when the
    session has no index or its index does not read (the ``unreadable state file`` warning says that one)."""
    try:
        with open(sdir / "index" / "entries.jsonl", "rb") as f:
            data = f.read()
    except OSError:
        return {}
    every = not marked_index(sdir)  # an older asz's index: its lines' records read again (fix34a)
    if not every and MARK not in data:  # nearly always: one search (a needle ending in a rare byte), no line decoded
        return {}
    out: dict[str, list[tuple[int, str]]] = {}
    for raw in data.split(b"\n"):
        if not every and MARK not in raw or not raw:
            continue
        try:
            entry = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue  # a line cut by a write in progress, or one the unreadable state file warning names
        found = entry.get("untimed") if isinstance(entry, dict) else None
        if found is None and every and isinstance(entry, dict) and isinstance(entry.get("records"), list):
            found = untimed_rows(entry["records"])
        if isinstance(found, list) and isinstance(entry.get("path"), str):
            out.setdefault(entry["path"], []).extend(
                (n, t) for n, t in (x for x in found if isinstance(x, list) and len(x) == 2)
                if isinstance(n, int) and isinstance(t, str) and untimed(t))
    return {k: v for k, v in out.items() if v}


def marked_index(sdir: Path) -> bool:
    """True when ``sdir``'s index state says every index line carries the ``untimed`` key where it is due
    (:data:`~asz_core.sessiondata.untimed.UNTIMED_MARKED`); False for an index an older asz began, or none."""
    return read_state(sdir / "index" / "index.state").get(UNTIMED_MARKED) == "1"


def untimed_section(root: str | os.PathLike, only: str | None = None, marked: dict[str, bool] | None = None) -> Section | None:
    """The ``untimed`` section of ``asz verify`` over ``root`` (``only``: one session): one :data:`UNTIMED_PROBLEM`
    warning per landed file holding records whose time does not read, named under ``root`` as given, at its first
    such line; None when there is none (the report keeps its shape). Counts ``untimed_records``. Never fails the run.
    ``marked``: each session index the state files' check of the same run read whole, by session folder (str), and
    whether it holds :data:`MARK` (:class:`~asz_core.flow.verify_chain.Seen`): one without it is not read again
    (issue 22, session 32)."""
    shown = str(root)
    sdirs = [Path(root) / only] if only is not None else session_dirs(Path(root))
    marked = marked or {}
    warnings, n = [], 0
    for sdir in sdirs:
        if marked.get(str(sdir)) is False:  # False only for a marked index without the key (session_files)
            continue
        for path, found in sorted(untimed_in_session(sdir).items()):
            file = os.path.join(shown, sdir.name, path)
            warnings.append(Problem(file, found[0][0], "time", UNTIMED_PROBLEM,
                                    untimed_said([("", line, v) for line, v in found])))
            n += len(found)
    if not warnings:
        return None
    summary = (f"{n} landed record(s) in {len(warnings)} file(s) give a time that does not read as an RFC 3339 time: "
               "each reads as having no time; the bytes are whole (a warning, not a problem)")
    return Section("untimed", summary, {"untimed_records": n}, warnings=warnings)
