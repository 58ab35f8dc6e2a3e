"""Sessions a receiving root would count twice: one continues another, and no sending root held both (trial 28a F1).

After each request :func:`find_twice` adds the landed sessions' record ids to the root's id table
(:mod:`asz_core.flow.shared_ids`, ``_index/ids.sqlite``, the table parse reads continuations from; sessions landed
before it existed are added once) and asks it, by the rules parse follows, which sessions each continues or is
continued by (leaving parse's ``stale`` marks as they are: reviewF28). A pair whose later session's files came from no
instance that sent a file of the earlier one was assembled on a host without the earlier session: its rounds draw the
repeated records again. Each such pair is listed in ``_received/twice.list`` with the repeated records' ids
(:mod:`asz_core.storage.twice_list`): the readers count those records' model calls in the earlier session only, and
say so. A pair listed without ids (by an older receiver) is looked at again by the first request of each process.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TextIO

from .receive_record import cannot_write_now

__all__ = ["find_twice"]

_lock = threading.Lock()
#: Roots whose sessions landed before the table are in it (once per process).
_seeded: set[str] = set()


def find_twice(root: Path, sessions: list[str], err: TextIO | None) -> dict[str, str]:
    """List in ``_received/twice.list`` each pair of ``sessions`` (session directories landed or sent again by the
    request just answered; ``[]`` for a request with no file) and the root's other sessions where one continues the
    other and no instance sent files of both; the first call of a process, a request with no file included, looks at
    the pairs a receiver older than ``ids`` listed too (listed again, with them). Never raises: the list is derived, an error is said on ``err`` (one ``error:`` line per session not looked
    at: a table or index that cannot be read costs that session's look alone, never a landed file; the sessions landed
    before the table are added again by the next process when their adding stopped midway). Returns the sessions of
    ``sessions`` not looked at because the root could not be written now (:func:`.receive_record.cannot_write_now`)
    -> why: the receiver refuses their files of the request as retryable, so they come again (trial 41a F1)."""
    from ..flow.index import load_index
    from ..flow.shared_ids import add_session, known_sessions, session_links
    from ..sessiondata.times import format_rfc3339
    from ..storage.layout import session_dirs
    from ..storage.senders import file_senders
    from ..storage.twice_list import corrected, read_twice, record_twice

    import time

    if not sessions and (str(root) in _seeded or all(corrected(d) for d in read_twice(root))):
        return {}  # a request with no file: only a process's first, when an older receiver listed a pair without ids
    failed: dict[str, str] = {}
    with _lock:
        if str(root) not in _seeded:  # sessions landed before the table: a crash mid-way adds the rest next time
            try:  # and the pairs an older receiver listed without their records' ids: listed again, with them
                sessions = sorted(set(sessions) | {d["session"] for d in read_twice(root) if not corrected(d)})
                known = known_sessions(root)
                for sdir in session_dirs(root):
                    if sdir.name not in known and sdir.name not in sessions:
                        add_session(root, sdir.name, load_index(sdir, rebuild=False))
                _seeded.add(str(root))
            except Exception as exc:  # noqa: BLE001 - derived: the files are landed either way
                _said(err, root, "the sessions landed before the table", exc)
        for s in sessions:  # one session's failure costs no other's look
            try:
                index = load_index(root / s, rebuild=False)
                links = session_links(root, s, index, keep_marks=True)  # parse's marks are parse's (reviewF28)
                pairs = [(s, e, {i for i, o in links.repeated.items() if o == e}) for e in links.earlier]
                pairs += [(later, s, set(same)) for later, same in links.later.items()]
                for later, earlier, ids in pairs:
                    by_later = {i for i in file_senders(root, later).values() if i}
                    by_earlier = {i for i in file_senders(root, earlier).values() if i}
                    if not by_later or not by_earlier or by_later & by_earlier or not ids:
                        continue  # a root that sent both held both: its rounds drew the relation
                    entries = index.entries if later == s else load_index(root / later, rebuild=False).entries
                    calls = {e.call or e.id for e in entries if e.id in ids and e.usage}
                    if record_twice(root, {"session": later, "continues": earlier, "repeated": len(ids),
                                           "calls": len(calls), "instance": ", ".join(sorted(by_later)),
                                           "other": ", ".join(sorted(by_earlier)),
                                           "at": format_rfc3339(time.time_ns()), "ids": sorted(ids)}) and err is not None:
                        print(f"note: {later} continues {earlier}, sent by another instance: counted once here: its "
                              f"{len(calls)} repeated model call(s) are counted in {earlier} only "
                              "(_received/twice.list; asz verify names it)", file=err, flush=True)
            except Exception as exc:  # noqa: BLE001 - derived: the files are landed either way
                _said(err, root, f"session {s}", exc)
                if cannot_write_now(exc):
                    failed[s] = f"{type(exc).__name__}: {exc}"
    return failed


def _said(err: TextIO | None, root: Path, what: str, exc: Exception) -> None:
    """One ``error:`` line on ``err`` (when given) naming the list, ``what`` was not looked at and why."""
    from ..flow.shared_ids import TABLE

    if err is not None:
        print(f"error: {root}/_received/twice.list: {what}: not looked at for continuations "
              f"({root}/{TABLE}): {type(exc).__name__}: {exc}", file=err, flush=True)
