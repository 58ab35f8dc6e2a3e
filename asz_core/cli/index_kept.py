"""Keeping the search index after ``asz collect --once``'s list rows, so the first ``asz search`` only tops it up.

Trial 49d F2: a new user's first ``asz search`` over a 200 MB history (271 conversations) indexed every conversation
for 25-27 s before it answered, where agentsview's first search answers at once (it indexes as it syncs). A watching
``asz collect``, ``asz parse`` and each pass of ``asz server`` already brought the index up to date after their pass;
``asz collect --once`` now does too, for the conversations its parse wrote rounds for (and those a label in their
sessions' files titles, as the list rows), in one forked worker per ``--jobs`` while this process writes SQLite
(:func:`~asz_core.reading.search.update_index`), under its progress (``index: N of M conversation(s), T s``).

Derived data, kept as the list rows are: each conversation's rows are written whole with its head (a savepoint), so a
kill at any point repeats work and loses none (the next reader indexes what was not committed); a failure, or Ctrl-C
while it indexes, is one ``note:`` line and changes nothing else (the exit status stays the pass's). A pass that
wrote no round does nothing here (a pass with nothing new stays as cheap as it was). A module of its own, importing
nothing of the reading code until called.
"""

from __future__ import annotations

import time
from pathlib import Path

import typer

__all__ = ["keep_search_index"]


def keep_search_index(storage: Path, conversations: list[str], jobs_n: int, *, stop: bool = False) -> tuple[int, float] | None:
    """Bring ``storage``'s search index up to date for ``conversations`` (sorted, as every update lists them, so the
    index's rows stand in the order a whole update writes them); ``(conversations indexed again, seconds)``, or None
    when there were none or it failed (said in one ``note:`` line: the next ``asz search`` indexes them). Ctrl-C says
    how many the index keeps; with ``stop`` (a caller whose Ctrl-C ends the command) it is raised again after that."""
    ids = sorted(set(conversations))
    if not ids:
        return None
    began = time.monotonic()
    try:
        import sqlite3

        from ..reading.progress import Bar
        from ..reading.search import IndexInterrupted, SearchError, replaced_note, update_index

        try:
            with Bar("index", len(ids), unit="conversation(s)") as bar:
                rep = update_index(storage, conversations=ids, step=bar.advance, jobs=jobs_n)
        except IndexInterrupted as exc:
            typer.echo(f"note: {storage}: stopped keeping the search index: {exc.indexed} of {exc.total} conversation(s) "
                       "indexed; the next asz search indexes the rest", err=True)
            if stop:
                raise
            return None
        except (SearchError, sqlite3.Error, OSError) as exc:
            typer.echo(f"note: {storage}: the search index was not updated ({exc}); the next asz search updates it", err=True)
            return None
    except KeyboardInterrupt:  # before the update held the index (its imports, its wait): nothing of it written
        typer.echo(f"note: {storage}: stopped before the search index was updated; the next asz search updates it", err=True)
        if stop:
            raise
        return None
    if note := replaced_note("collect", rep):  # the older schemas' index files went with this first build: said once
        typer.echo(note, err=True)
    return rep.indexed, time.monotonic() - began
