"""Keeping the list rows after a parse (``asz collect``, ``asz parse``, ``asz server``'s passes): docs/reading.md, After
a collect.

A module of its own, importing nothing of the reading code until called, so a collect pass with nothing new pays
nothing for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import typer

__all__ = ["keep_list_rows", "not_kept", "stopped_keeping"]


def keep_list_rows(storage: Path, cfg, conversations: list[str], jobs_n: int, *, stop: bool = False,
                   bar: bool = False, told: Callable[[int, int], None] | None = None) -> list[str]:
    """Count and keep the ``asz ls`` rows and ``asz usage`` summaries of ``conversations`` (and, from the same build,
    the server's found records and ``asz usage tools``' entries: :mod:`asz_core.reading.kept_whole`), and of those a label in their
    sessions' files titles (:meth:`~asz_core.view.named_titles.NamedIn.titled_by`) (withholding ``view.hide``,
    with asz.yaml's prices), so the first reader after ``asz collect`` (``--once`` or watching), ``asz parse`` or a
    pass of ``asz server`` reads them from ``_index/summaries.sqlite`` (:func:`asz_core.reading.listing.keep_rows`;
    docs/reading.md, After a collect). Derived data: a failure, or Ctrl-C while it counts, is said on stderr in one
    line and changes nothing else (the exit status stays the command's: its parse is done); with ``stop`` (a watching
    collector, whose Ctrl-C ends the command) the KeyboardInterrupt is raised again after that line.
    The landed files' digests the pass's landing handed (:mod:`asz_core.storage.handed`) are read, then let go of.
    ``cfg``: the loaded :class:`~asz_core.config.Config`. ``bar``: its progress as
    :class:`~asz_core.reading.progress.Bar` shows it (``rows: N of M conversation(s), T s`` once it runs long, piped).
    ``told(done, of)``: called as runs of conversations are kept (``asz server``'s ``/api/status``, trial 46c F4).
    Returns the conversations it was to keep (``conversations`` and those titled by them), kept or not: what
    ``asz collect --once`` then indexes (:mod:`asz_core.cli.index_kept`)."""
    from ..config import ConfigError

    try:  # the imports too: a Ctrl-C just after the pass line lands here
        from ..reading.listing import keep_rows
        from ..storage.layout import CONVERSATIONS
        from ..view.named_titles import named_in
        from ..view.prices import price_table

        from ..reading.progress import Bar

        # and those a summary landed in their files titles (trial 41c F2): their kept rows' keys changed with it
        named = named_in(storage, again=True).titled_by(conversations) if conversations else set()
        conversations = list(conversations) + sorted(s for s in named if (storage / CONVERSATIONS / s).is_dir())

        with Bar("rows", len(conversations), unit="conversation(s)", enabled=None if bar else False) as shown:
            def step(n: int) -> None:
                if bar:
                    shown.advance("", n)
                else:
                    shown.done += n  # counted, not said: the caller tells it
                if told is not None:
                    told(min(shown.done, len(conversations)), len(conversations))

            # each row from one whole build that keeps what /api/usage and asz usage tools read too (trial 46c F3,
            # 46d F3/F8), keyed as asz server keys its records: its view.hide and None for the shipped prices
            table = price_table(cfg.prices)  # once: it warns of each dropped long-context tier as it is read
            keep_rows(storage, list(cfg.view_hide), table, conversations, jobs=jobs_n,
                      step=step if bar or told is not None else None,
                      whole=(list(cfg.view_hide), table if cfg.prices else None))
    except (OSError, ConfigError) as exc:
        not_kept(storage, exc)
    except KeyboardInterrupt:  # after the pass line the command keeps the pass's status (trial 7)
        stopped_keeping(storage)
        if stop:
            raise
    finally:
        from ..storage.handed import forget

        forget()  # the digests the pass's landing handed to these rows (asz_core/storage/handed.py)
    return list(conversations)


def stopped_keeping(storage: Path) -> None:
    """Say on stderr that a Ctrl-C stopped the keeping (the rows not kept are counted by the next reader)."""
    typer.echo(f"note: {storage}: stopped keeping the list rows; asz ls counts those not kept", err=True)


def not_kept(storage: Path | str, why: Exception) -> None:
    """Say on stderr that the list rows were not kept, and why (the next reader counts them)."""
    typer.echo(f"note: {storage}: the list rows were not kept ({why}); asz ls counts them", err=True)
