"""``_received/twice.list``: conversations a receiving root counts twice, as its receiver found them (trial 28a F1).

A session resumed on another host (Claude Code writes a new session whose file repeats the earlier one's records,
with their ids, then goes on) continues the earlier session. In one root, parse finds that from the ids
(:mod:`asz_core.flow.shared_ids`) and draws the repeated records in the earlier session only, so they are counted
once. In a receiving root the two sessions come from two hosts: the later one's rounds were assembled on a host that
did not hold the earlier session, so they draw and count the repeated records as well, and the team's figures count
them twice. Those rounds are the sending host's evidence (its receipts name them byte for byte); the receiver does not
rewrite them. It says it instead: after each request it adds the landed sessions' ids to the root's id table and, for
each pair where one session continues the other and no instance sent files of both (so no sending root held both),
appends one JSON line::

    {"session":"<later session dir>","continues":"<earlier session dir>","repeated":11,"calls":11,
     "instance":"bob@hostB","other":"carol@hostC","at":"2026-12-05T06:30:00.000000000Z"}

(``repeated``: the later session's records repeated from the earlier one; ``calls``: the distinct model calls among
them, the ``call`` ids of those with usage). ``asz verify`` (a ``counted twice`` warning), ``asz ls``, ``asz usage`` and
the page (a note) say each pair. The list is derived from the landed files and the sender record, never evidence; a
line that does not read is skipped; a pair is listed once (the later line for a pair that grew replaces it).
"""

from __future__ import annotations

import os
import threading

from .short_list import append_line, json_lines

__all__ = ["TWICE_LIST", "record_twice", "read_twice", "twice_line"]

TWICE_LIST = "twice.list"
_lock = threading.Lock()


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
                    (had.get("repeated"), had.get("calls")) == (d.get("repeated"), d.get("calls")):
                return False
        append_line(root, d, TWICE_LIST)
        return True


def twice_line(d: dict) -> str:
    """What readers say of one pair: ``S continues E: its N repeated record(s) (M model call(s)) are counted in both
    here …``."""
    return (f"{d['session']} continues {d['continues']}, but its rounds were assembled by {d.get('instance') or '(no instance id)'}, "
            f"whose root did not hold {d['continues'][:8]} (sent by {d.get('other') or '(no instance id)'}): the "
            f"{d.get('repeated')} record(s) it repeats, {d.get('calls')} model call(s) and their tokens with them, are "
            "counted in both here, so a total over both counts them twice (one root holding both counts them once; "
            "docs/push.md, Known limits, A session continued on another host)")
