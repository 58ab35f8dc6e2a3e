"""Sessions whose source the collector no longer reads leave the lines it holds past what landed out of every figure
(trial 46a F1; docs/reading.md, "A source no longer read").

A source found emptied, cut shorter or rewritten after it landed is a sticky conflict
(:mod:`asz_core.view.conflicts`): what landed is kept and counted, nothing more of it lands until ``asz sources
--reset-conflict SESSION`` resolves it. In trial 46a a session emptied and then written back longer (53 lines, 50
landed) left ``asz usage`` 2 calls short in every view with no word and exit 0, while ccusage, reading the file as it
is now, counted them. Such an answer is incomplete as one leaving out sessions a stopped pass left unparsed is
(:mod:`asz_core.reading.stopped_pass`): ``asz usage`` and ``asz ls`` say each source under the table (``stopped:``
lines; ``--json``: ``stopped``, or ``asz ls``'s rows' ``conflicts``), say it on stderr and exit 1; ``/api/usage``
gives ``stopped`` and ``stopped_said`` for the page's Usage tab. A collector at work changes nothing here: its passes
do not read such a source either.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable

__all__ = ["stopped_sources", "stopped_lines", "STOPPED_SAID", "stopped_said"]

#: The line ``asz usage`` and ``asz ls`` print on stderr (after ``asz CMD: ``) before they exit 1.
STOPPED_SAID = ("the answer is incomplete (exit 1): {n} conversation(s) have a source the collector no longer reads "
                "(found emptied, cut shorter or rewritten after it landed: a conflict), so the lines it holds past what "
                "landed are in no figure: {ids}; asz sources --reset-conflict SESSION reads it again (the stopped: "
                "line of each names its command)")

#: What a ``stopped:`` line under a table adds to :func:`~asz_core.view.conflicts.conflict_line`'s words.
PAST = "lines it holds past those are in no figure"


def stopped_sources(root: str | os.PathLike, keep: Iterable[str] | None = None) -> list[dict]:
    """Every source of ``root`` in conflict (:func:`~asz_core.view.conflicts.session_conflicts`), as
    ``{"conversation": session id, "file", "why", "since", "kept_lines", "kept_bytes", "cursor", "next", "adapter"}``,
    by session then cursor; only the sessions among ``keep`` when given (the conversations a filter keeps). Never
    raises."""
    from ..storage.layout import session_dirs
    from ..view.conflicts import session_conflicts

    wanted = None if keep is None else set(keep)
    out: list[dict] = []
    for sdir in session_dirs(Path(root)):
        if wanted is None or sdir.name in wanted:
            out.extend({"conversation": sdir.name, **c} for c in session_conflicts(root, sdir.name))
    return out


def stopped_lines(stopped: list[dict], shown: Callable[[str], str], where: str = " above") -> list[str]:
    """``stopped: ID8: its source FILE is no longer read since …; what landed is kept (…); lines it holds past those
    are in no figure above; asz sources --reset-conflict …`` per entry of :func:`stopped_sources`."""
    from ..view.conflicts import conflict_line

    return [f"stopped: {shown(s['conversation'])}: " + conflict_line({**s, "next": f"{PAST}{where}; {s['next']}"})
            for s in stopped]


def stopped_said(ids: list[str], shown: Callable[[str], str]) -> str:
    """:data:`STOPPED_SAID` of the conversations ``ids`` (each once, in order), '' for none."""
    ids = list(dict.fromkeys(ids))
    if not ids:
        return ""
    from ..verify.unparsed import shown_ids

    return STOPPED_SAID.format(n=len(ids), ids=shown_ids([shown(c) for c in ids], 10))
