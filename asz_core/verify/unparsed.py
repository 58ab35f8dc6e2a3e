"""Landed sessions with no conversation chain, as ``asz verify`` and ``asz ls`` say them (trial finding 10).

A session ``asz parse`` read has a session index (``<session>/index/``) and, for every landed file, rounds under
``<root>/_conversations/<session>/rounds`` (a Claude Code session's conversation id is its session id). A session
landed but never parsed (``asz collect --no-parse``) has neither: that is normal, and is said as a note. A session
with a session index but no round was parsed once and its rounds were removed since: that is a problem, since its
conversation disappeared from every reader; ``asz parse`` builds the chain again from the landed files. A parse
indexes the sessions before it writes their rounds, and marks them while it has not (:mod:`asz_core.flow.pending`):
a session with that mark is not parsed yet, a parse was interrupted (Ctrl-C, trial 3 F5), and is said as a note too.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..flow.index import index_dir
from ..flow.pending import has_chain, pending_why
from ..storage.layout import CONVERSATIONS, highest_landed_seq, session_dirs
from ..storage.root import COLLECTOR_LOCK, SESSION_LOCK, SESSION_STATE, lock_taken
from .report import Problem, Section

__all__ = ["unchained_sessions", "unchained_note", "unchained_section", "has_chain", "shown_ids", "NEVER_PARSED_LINE", "INTERRUPTED_LINE"]


def unchained_sessions(root: str | os.PathLike, session: str | None = None) -> tuple[list[str], list[str], list[str]]:
    """``(never parsed, parsed but chain gone, parse interrupted)``: session ids of ``root`` (or only ``session``) that
    hold landed files and no round, split by whether their session index is there (a parse read them) and whether
    a parse marked them as still to be parsed (:func:`asz_core.flow.pending.pending_why`: interrupted, or indexed only
    for the id table, which counts as never parsed). While a collector holds the root's lock, or a writer the
    session's, such a session counts as not parsed yet (its parse may not have reached it). Each list sorted."""
    root = Path(root)
    dirs = [root / session] if session is not None else session_dirs(root)
    never: list[str] = []
    gone: list[str] = []
    interrupted: list[str] = []
    # A collector at work (asz collect, asz server) indexes every session of its pass before it writes their rounds:
    # a session index with no round is then one not parsed yet, not one whose rounds were removed. Asked (of
    # /proc/locks) only once a session has no chain: one session's verify of a chained session never reads it.
    working: bool | None = None
    for sdir in dirs:
        if has_chain(root, sdir.name) or not highest_landed_seq(sdir):  # no landed file (nor skeleton): nothing to chain
            continue
        if working is None:
            working = lock_taken(root / COLLECTOR_LOCK)
        parsed = (not working and not lock_taken(sdir / SESSION_LOCK) and (index_dir(sdir) / "entries.jsonl").is_file()
                  and (sdir / SESSION_STATE).is_file())
        why = pending_why(sdir) if parsed else ""
        (interrupted if why == "interrupted" else never if why or not parsed else gone).append(sdir.name)
        # a received session (no session.state) waits for its rounds
    return never, gone, interrupted


def unchained_note(root: str | os.PathLike, listed: set[str], left_out: str = "listed") -> tuple[str, list[str]]:
    """``(N landed session(s) have no conversation chain … : ID, ID and N more; asz parse … builds them, their ids)``
    for the sessions landed in ``root`` that have no round (never parsed, a parse interrupted, or their rounds
    removed) and are not among the ``listed`` conversation ids (a chain directory left with no round is listed, as
    unreadable): they are in no list until asz parse builds their chains; ``('', [])`` when there are none.
    ``left_out`` says what they are not (``listed`` by asz ls and the page, ``counted`` by asz usage)."""
    never, gone, interrupted = ([s for s in ids if s not in listed] for ids in unchained_sessions(root))
    ids = sorted(never + gone + interrupted)
    if not ids:
        return "", []
    why = ([f"{len(interrupted)} not parsed yet: a parse was interrupted"] if interrupted else []) \
        + ([f"{len(gone)} parsed before: their rounds are gone"] if gone else [])
    return (f"{len(ids)} landed session(s) have no conversation chain and are not {left_out}"
            + (f" ({'; '.join(why)})" if why else "")
            + f": {shown_ids(ids)}; asz parse --root {root} builds them (asz verify names them)"), ids


def shown_ids(ids: list[str], n: int = 5) -> str:
    """The first ``n`` ids, comma-separated, then ``and N more``."""
    return ", ".join(ids[:n]) + (f" and {len(ids) - n} more" if len(ids) > n else "")


def unchained_section(root: str | os.PathLike, shown_root: str, session: str | None, section: Section) -> None:
    """Add to ``section`` (the chains' section of ``asz verify``) a note for landed sessions never parsed and a
    ``missing chain`` problem for each session parsed once whose rounds are gone, and a note for those a parse was
    interrupted before (the root is whole, only the chain is not built yet); counts ``unparsed``, ``interrupted``
    and ``unchained`` only when not zero (a clean report keeps its shape)."""
    never, gone, interrupted = unchained_sessions(root, session)
    if never:
        section.counts["unparsed"] = len(never)
        section.notes.append(NEVER_PARSED_LINE.format(n=len(never), ids=shown_ids(never)))
    if interrupted:
        section.counts["interrupted"] = len(interrupted)
        section.notes.append(INTERRUPTED_LINE.format(n=len(interrupted), ids=shown_ids(interrupted)))
    if gone:
        section.counts["unchained"] = len(gone)
    for sid in gone:
        section.problems.append(Problem(os.path.join(shown_root, CONVERSATIONS, sid), 0, "", "missing chain",
                                        f"session {sid} was parsed (its session index is there) but has no round: its "
                                        "rounds were removed or its parse failed; asz parse builds the chain again "
                                        "from the landed files"))


#: The note counting landed sessions never parsed; ``{n}`` the count, ``{ids}`` the first of them.
NEVER_PARSED_LINE = ("{n} landed session(s) not parsed yet, so no conversation chain (normal after "
                     "asz collect --no-parse; asz parse builds them): {ids}")
#: The note counting landed sessions whose parse was interrupted after it indexed them; ``{n}`` and ``{ids}`` as above.
INTERRUPTED_LINE = ("{n} landed session(s) not parsed yet: a parse was interrupted (their session index is there, "
                    "their rounds are not written yet); asz parse or the next collect finishes it: {ids}")
