"""The search index of a root brought up to date for a reading command (``asz search``, ``asz secrets``; issue 20).

Split from :mod:`asz_core.cli.search_cmd`. Under a progress bar, in one forked worker per CPU; Ctrl-C says how many
conversations the index keeps (exit 130); an index SQLite finds damaged, as it is brought up to date or as it is read
(:func:`asked`), is said as a warning, deleted and built again, once (derived data: docs/reading.md).
"""

from __future__ import annotations

from pathlib import Path

import typer

__all__ = ["index_up_to_date", "indexed_said", "asked", "WAITING", "WAITED"]


#: What ``asz search`` says when another process updates the index, then the holder's note in parentheses (its pid,
#: since when, the asz command it runs: :func:`~asz_core.reading.search_store.lock_holder`; trial 42b F4).
WAITING = "another process is updating the search index"
#: What it says once that update is over; the progress line and ``indexed … in N s`` count from there.
WAITED = "waited {seconds:.1f} s for it; the indexing below is timed from here"


def index_up_to_date(r: Path, reindex: bool, cmd: str = "search"):
    """The index of root ``r`` brought up to date under a progress bar (deleted first with ``reindex``): the
    :class:`~asz_core.reading.search.IndexReport`. Ctrl-C says how many conversations the index keeps, exit 130;
    a :class:`~asz_core.reading.search.SearchError` is said, exit 1, except that an index SQLite finds damaged
    (malformed, not a database) is said as a warning, deleted and built again, once."""
    from ..collect.workers import default_jobs
    from ..reading.progress import Bar
    from ..reading.search import IndexInterrupted, SearchError, index_path, update_index
    from ..reading.search_place import elsewhere, index_file, rebuilt_line, remove_index, unwritable
    from ..view.rows import list_conversations

    ids: list[str] = []
    try:
        if reindex:
            try:
                remove_index(r)  # its log too: an old -wal is never replayed into the new file
            except OSError as exc:
                if not unwritable(exc):
                    raise SearchError(f"cannot delete the search index {index_path(r)}: {exc}") from None
                elsewhere(r, index_path(r), copy=False)  # a read-only root: a new index outside it, built whole
        ids = list_conversations(r)
        with Bar("index", len(ids), unit="conversation(s)") as bar:
            # Rows read in one forked worker per CPU, as collect and parse do (after asz collect --once: only what is new).
            return update_index(r, step=bar.advance, jobs=default_jobs(), waiting=lambda holder: typer.echo(
                f"asz {cmd}: {WAITING}{f' ({holder})' if holder else ''}: waiting for it", err=True),
                waited=lambda seconds: (bar.restart(), typer.echo(f"asz {cmd}: {WAITED.format(seconds=seconds)}", err=True)))
    except IndexInterrupted as exc:  # said once the bar is gone, so that it stays on the screen
        kept = ("the index keeps them, and the next asz search indexes the rest" if index_file(r, index_path(r)) == index_path(r)
                else f"they were in a temporary index ({r} cannot be written), removed now: the next asz search indexes "
                     "them again (trial 43d F2: it said the index keeps them)")
        typer.echo(f"asz {cmd}: stopped: {exc.indexed} of {exc.total or len(ids)} conversations indexed; {kept}", err=True)
    except KeyboardInterrupt:
        typer.echo(f"asz {cmd}: stopped before any of {len(ids) or 'the'} conversations was indexed"
                   + ("; --reindex had deleted the index, the next asz search builds it again" if reindex else ""), err=True)
    except SearchError as exc:
        if exc.damaged and not reindex:  # derived data: built again from the landed files, and said
            typer.echo(rebuilt_line(cmd, exc), err=True)
            return index_up_to_date(r, True, cmd)
        typer.echo(f"asz {cmd}: {exc}", err=True)
        raise typer.Exit(1)
    raise typer.Exit(130)


def asked(r: Path, cmd: str, ask, again=lambda: True):
    """``ask()``'s answer, the query of ``asz search`` or the scan of ``asz secrets`` over root ``r``'s index. When it
    raises a :class:`~asz_core.reading.search.SearchError` saying the index file is damaged (SQLite's malformed or
    not a database: derived data) and ``again()`` holds (``asz search``: nothing was printed yet), the damage is said
    in one line (:func:`~asz_core.reading.search_place.rebuilt_line`), the index deleted, built again
    (:func:`index_up_to_date` as ``--reindex``) and ``ask()`` asked once more (trial 42b F2; session 43: ``asz secrets``
    said "cannot be read", exit 1). Raises what ``ask()`` raises otherwise, or the second time."""
    from ..reading.search import SearchError
    from ..reading.search_place import rebuilt_line

    try:
        return ask()
    except SearchError as exc:
        if not exc.damaged or not again():
            raise
        typer.echo(rebuilt_line(cmd, exc), err=True)
    index_up_to_date(r, True, cmd)
    return ask()


def indexed_said(r: Path, reindex: bool, quiet: bool, cmd: str) -> None:
    """Bring the index of ``r`` up to date (:func:`index_up_to_date`, its progress on stderr) and say what it did on
    stderr, ``asz search`` and ``asz secrets`` alike (trial 47d F2: ``asz secrets`` spent 64.6 s on a fresh root's
    index and said nothing of it once done): where it was built when the root cannot be written, unless ``quiet``
    (``--json``) how many conversations were indexed again, ``indexed N conversation(s), N text(s) in Xs``, and, once,
    the search index files of other asz versions beside it (:func:`~asz_core.reading.search.other_indexes_note`)."""
    rep = index_up_to_date(r, reindex, cmd)
    if rep.elsewhere:
        typer.echo(f"asz {cmd}: {r} cannot be written: the search index is built in {rep.elsewhere} for this {cmd} "
                   "and removed after it (the root is left as it is)", err=True)
    if rep.indexed and not quiet:
        typer.echo(f"indexed {rep.indexed} conversation(s), {rep.rows} text(s) in {rep.seconds:.1f}s", err=True)
    from ..reading.search import other_indexes_note, replaced_note

    if replaced := replaced_note(cmd, rep):  # once: the older index is gone
        typer.echo(replaced, err=True)
    note = other_indexes_note(r, cmd)  # another asz version's index beside this one's: said once
    if note:
        typer.echo(note, err=True)
