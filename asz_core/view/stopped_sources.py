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
from typing import Callable, Container, Iterable

__all__ = ["stopped_sources", "nothing_past", "counted_out", "stopped_lines", "STOPPED_SAID", "stopped_said"]

#: The line ``asz usage`` and ``asz ls`` print on stderr (after ``asz CMD: ``) before they exit 1.
STOPPED_SAID = ("the answer is incomplete (exit 1): {n} conversation(s) have a source the collector no longer reads "
                "(found cut shorter or rewritten after it landed, holding lines other than the landed ones: a "
                "conflict), so the lines it holds past what landed are in no figure: {ids}; asz sources "
                "--reset-conflict SESSION reads it again (the stopped: line of each names its command)")

#: What a ``stopped:`` line under a table adds to :func:`~asz_core.view.conflicts.conflict_line`'s words.
PAST = "lines it holds past those are in no figure"

#: What it says instead of :data:`PAST` when the source holds nothing past what landed (:func:`nothing_past`).
NOTHING_PAST = ("the source holds nothing past that now, so no line of it is left out of a figure: every landed line is "
                "counted (it was emptied, cut shorter to landed lines alone, or put back as it was)")


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
            out.extend({"conversation": sdir.name, **c} for c in session_conflicts(root, sdir.name)
                       if not nothing_past(Path(root) / c["cursor"]))
    return out


def nothing_past(cursor_file: str | os.PathLike) -> bool:
    """True when the append source the conflicted cursor ``cursor_file`` names holds nothing that is not in a
    figure: it is found (under the cursor's ``folder``, else each default source folder of its ``adapter``) and is
    empty, or holds exactly the ``offset`` bytes that landed (its last up to ``TAIL_WINDOW`` bytes hash to the
    cursor's ``tail_sha256``: put back as it was), or is shorter and holds landed lines alone, each at its place
    (:func:`~asz_core.collect.what_changed.only_landed_lines`: cut shorter; trial 50d F2). Such a conflict stays until
    ``asz sources --reset-conflict``, and ``asz ls`` still lists it, but leaves no line out of a figure, so it makes no
    answer incomplete (review46: a source restored byte for byte, or emptied and left so, made every ``asz ls`` exit
    1). False when the source is not found or holds anything else (more bytes, other bytes, fewer whose lines are not
    all landed ones or that end inside a line). Never raises."""
    from ..storage.cursor import AppendCursor, read_cursor

    try:
        cur = read_cursor(cursor_file)  # type: ignore[arg-type]
    except (OSError, ValueError):
        return False
    if not isinstance(cur, AppendCursor) or not cur.source:
        return False
    for path in _source_paths(cur):
        try:
            size = os.stat(path).st_size
        except OSError:
            continue
        if size == 0:
            return True
        if size < cur.offset:  # cut shorter: nothing past when every line it holds is a landed one (trial 50d F2)
            from ..collect.what_changed import only_landed_lines

            return only_landed_lines(path, cursor_file, cur)
        if size != cur.offset or not cur.tail_sha256:
            return False
        from ..collect.reset import holds_landed

        return holds_landed(path, cur)[1] == ""
    return False


def _source_paths(cur) -> list[Path]:
    """Where the source of ``cur`` may be: under its kept ``folder``, else under each default source folder of its
    adapter (none when the adapter is not installed or names none)."""
    if os.path.isabs(cur.source):
        return [Path(cur.source)]
    if cur.folder:
        return [Path(cur.folder) / cur.source]
    try:
        from ..plugins.manager import get_plugin_manager

        adapter = get_plugin_manager().get(cur.adapter)
        return [Path(r) / cur.source for r in adapter.default_source_roots(os.environ)]
    except Exception:  # noqa: BLE001 -- an adapter not installed, or one whose roots raise: the source is not found
        return []


def stopped_lines(stopped: list[dict], shown: Callable[[str], str], where: str = " above",
                  past: Container[str] | None = None) -> list[str]:
    """``stopped: ID8: its source FILE is no longer read since …; what landed is kept (…); lines it holds past those
    are in no figure above; asz sources --reset-conflict …`` per entry of :func:`stopped_sources`. With ``past``
    (``asz ls``, whose rows list every conflict: the cursors :func:`counted_out` keeps), an entry whose cursor is not
    in it holds nothing past what landed and says :data:`NOTHING_PAST` instead."""
    from ..view.conflicts import conflict_line

    def said(s: dict) -> str:
        return NOTHING_PAST if past is not None and s["cursor"] not in past else f"{PAST}{where}"

    return [f"stopped: {shown(s['conversation'])}: " + conflict_line({**s, "next": f"{said(s)}; {s['next']}"})
            for s in stopped]


def counted_out(root: str | os.PathLike, conflicts: Iterable[dict]) -> set[str]:
    """Of ``conflicts`` (rows' ``conflicts``, each with its ``cursor`` relative to ``root``), the cursors whose source
    may hold lines in no figure: every one but those :func:`nothing_past` clears (each looked at once)."""
    return {c["cursor"] for c in conflicts if not nothing_past(Path(root) / c["cursor"])}


def stopped_said(ids: list[str], shown: Callable[[str], str]) -> str:
    """:data:`STOPPED_SAID` of the conversations ``ids`` (each once, in order), '' for none."""
    ids = list(dict.fromkeys(ids))
    if not ids:
        return ""
    from ..verify.unparsed import shown_ids

    return STOPPED_SAID.format(n=len(ids), ids=shown_ids([shown(c) for c in ids], 10))
