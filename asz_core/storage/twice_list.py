"""``_received/twice.list``: conversations a receiving root would count twice, as its receiver found them, and the
records its readers count once (trial 28a F1).

A session resumed on another host (Claude Code writes a new session whose file repeats the earlier one's records,
with their ids, then goes on) continues the earlier session. In one root, parse finds that from the ids
(:mod:`asz_core.flow.shared_ids`) and draws the repeated records in the earlier session only, so they are counted
once. In a receiving root the two sessions come from two hosts: the later one's rounds were assembled on a host that
did not hold the earlier session, so they draw the repeated records as well. Those rounds are the sending host's
evidence (its receipts name them byte for byte); the receiver does not rewrite them. After each request it adds the
landed sessions' ids to the root's id table and, for each pair where one session continues the other and no instance
sent files of both (so no sending root held both), appends one JSON line::

    {"session":"<later session dir>","continues":"<earlier session dir>","repeated":11,"calls":11,
     "instance":"bob@hostB","other":"carol@hostC","at":"2026-12-05T06:30:00.000000000Z","ids":["<record id>", …]}

(``repeated``: the later session's records repeated from the earlier one; ``calls``: the distinct model calls among
them, the ``call`` ids of those with usage; ``ids``: those records' ids, sorted). The readers count each model call of
the later session all of whose records are among ``ids`` in the earlier session only, as one root holding both does
(:func:`counted_there`, read by :class:`~asz_core.view.view_base.ViewBase`): ``asz ls``, ``asz usage``, the page and
the exports count it once. ``asz verify`` (a ``counted once here`` note), ``asz ls``, ``asz usage`` and the page say
each pair. A line written before ``ids`` was kept (a receiver of session 28) corrects nothing: it is said as
``counted twice`` until the receiver lists the pair again (it does at the pair's next request, or a restarted
receiver's first). The list is derived from the landed files and the sender record, never evidence; a line that does
not read is skipped; a pair is listed once (the later line for a pair that grew replaces it).
"""

from __future__ import annotations

import os
import threading

from .short_list import append_line, json_lines, read_once

__all__ = ["TWICE_LIST", "record_twice", "read_twice", "twice_line", "counted_there", "there_key"]

TWICE_LIST = "twice.list"
_lock = threading.Lock()
#: root -> (the list's stat key when read, later session -> {repeated record id: the earlier session}).
_THERE: dict[str, tuple[tuple, dict[str, dict[str, str]]]] = {}


def read_twice(root: str | os.PathLike) -> list[dict]:
    """The pairs of ``root``'s list (``[]`` when there is none), the last line of each pair, in the order first
    listed; lines that do not read are left out."""
    out: dict[tuple[str, str], dict] = {}
    for d in json_lines(root, TWICE_LIST, ("session", "continues")):
        out[(d["session"], d["continues"])] = d
    return list(out.values())


def record_twice(root: str | os.PathLike, d: dict) -> bool:
    """Append ``d`` (the keys of the module docstring) unless the list holds that pair with the same counts; True when
    written. Raises OSError when it cannot be written."""
    with _lock:
        for had in read_twice(root):
            if (had["session"], had["continues"]) == (d["session"], d["continues"]) and \
                    (had.get("repeated"), had.get("calls"), had.get("ids")) == (d.get("repeated"), d.get("calls"), d.get("ids")):
                return False
        append_line(root, d, TWICE_LIST)
        return True


def corrected(d: dict) -> bool:
    """True when the readers count the pair's repeated calls once (its line lists the records' ``ids``)."""
    return isinstance(d.get("ids"), list)


def twice_line(d: dict) -> str:
    """What readers say of one pair: ``S continues E, but its rounds were assembled by …: the N record(s) it repeats,
    M model call(s) … are counted there only`` (what the readers corrected), or, for a line listing no ``ids``
    (:func:`corrected` False), ``… are counted in both here …``."""
    head = (f"{d['session']} continues {d['continues']}, but its rounds were assembled by "
            f"{d.get('instance') or '(no instance id)'}, whose root did not hold it (sent by "
            f"{d.get('other') or '(no instance id)'}): the {d.get('repeated')} record(s) it repeats, {d.get('calls')} "
            "model call(s) and their tokens with them, are counted ")
    if corrected(d):
        return head + (f"in {d['continues']} only, as one root holding both counts them (its rounds still draw "
                       "them: they are its host's evidence; docs/push.md, Known limits, A session continued on another host)")
    return head + ("in both here, so a total over both counts them twice (listed by an older receiver: the next request "
                   "of either session lists it again and then it is counted once; docs/push.md, Known limits, A session "
                   "continued on another host)")


def counted_there(root: str | os.PathLike, session: str) -> dict[str, str]:
    """``{record id: earlier session}`` of ``session``'s records that the list says repeat an earlier session's
    (:func:`corrected` lines only): the readers count a model call all of whose records are here in the earlier
    session only. ``{}`` when there are none or the list cannot be read. Read once per state of the list's file (its
    stat key), kept in memory. Never raises."""
    def build() -> dict[str, dict[str, str]]:
        by: dict[str, dict[str, str]] = {}
        for d in read_twice(root):
            if corrected(d) and isinstance(d["session"], str) and isinstance(d["continues"], str):
                mine = by.setdefault(d["session"], {})
                for i in d["ids"]:
                    if isinstance(i, str) and mine.get(i, d["continues"]) >= d["continues"]:
                        mine[i] = d["continues"]  # the first earlier session by name, as parse's rule names it
        return by

    return (read_once(root, TWICE_LIST, _THERE, build) or {}).get(session, {})


def there_key(root: str | os.PathLike, session: str) -> tuple:
    """What a cached figure of ``session`` depends on in the list: ``()`` when it names none of its records, else one
    key of the earlier sessions and the count and digest of the ids (:func:`~asz_core.view.depends.files_key`)."""
    there = counted_there(root, session)
    if not there:
        return ()
    import hashlib

    h = hashlib.sha256("\n".join(f"{i}\0{e}" for i, e in sorted(there.items())).encode("utf-8", "surrogatepass"))
    return ("", "counted-there", len(there), h.hexdigest()[:32])
