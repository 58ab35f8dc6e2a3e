"""Sources that appear while ``asz server`` or a watching ``asz collect`` runs (trial 42c F1).

Both commands resolve their adapters and folders at start (:func:`~asz_core.cli.jobs.resolve_jobs`): with no
``--adapter``, no ``--source`` and no ``adapters`` list, every installed adapter with sessions at its default
folder is collected beside the default list (:func:`~asz_core.cli.adapter_note.present_adapters`). An adapter whose
folder holds nothing yet at start (the Claude Code observers' ``plugins/data`` before ``asz hooks install`` and the
first hook event; a Kiro installed later), or a default folder of a collected adapter made later
(``~/.config/claude/projects``), was collected by a restart only: trial 42c F1, nine hook records for eight sessions
waited under a server following twelve folders. :class:`LateSources` resolves the jobs again (quietly, the same
function) and gives what was not collected yet, each adapter and folder once, so that the command collects it from
then on, follows it as it follows the others, and says once ``now collecting: ADAPTER from FOLDER``.

Resolving again can say things (an adapter the configuration lists that does not load, an option that no longer
resolves), so it runs only when a cheap, silent look (:func:`sources_now`: the adapters present beside the default
list, each default-folder job's folders now) differs from the last one: once per change, not at every look.

Never raises: options that no longer resolve (the configuration file changed) give nothing new; the pass itself says
what is wrong.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Callable

import typer

from ..logstamp import log_stamp

__all__ = ["LateSources", "late_jobs", "said_news", "now_collecting", "present_now", "sources_now", "installed_adapters"]


@functools.cache
def installed_adapters() -> dict:
    """The installed adapters, by name (the plugin registry read once a process, not at every look)."""
    from ..plugins import get_plugin_manager

    return dict(get_plugin_manager().adapters())


def present_now(cfg, storage: Path, chosen: bool) -> tuple[str, ...]:
    """The adapters collected beside the default list now (:func:`~asz_core.cli.adapter_note.present_adapters` of
    every installed adapter: sessions at its default folder, or requests staged in the storage root); () when the
    command line ``chosen`` its adapters or folders (``--adapter``, ``--source``). Never raises."""
    if chosen:
        return ()
    try:
        from .adapter_note import present_adapters

        return tuple(present_adapters(cfg, installed_adapters(), storage=Path(storage)))
    except Exception:  # an adapter's answer never stops a pass
        return ()


def sources_now(cfg, storage: Path, chosen: bool, jobs: list) -> tuple:
    """What a look at the sources gives (compared from look to look, never shown): :func:`present_now` and each
    folder every job reads now (:func:`_folders`). No file is read; nothing is said."""
    return present_now(cfg, storage, chosen), tuple((j.adapter.name, str(f)) for j in jobs for f in _folders(j))


def _key(name: str, folder: Path) -> tuple[str, str]:
    return name, os.path.realpath(folder)


def _folders(job) -> list[Path]:
    """Every folder ``job`` reads: its source roots, and for an adapter's default folders those its adapter names now
    (:func:`~asz_core.cli.jobs.adapter_default_folders`: one made since the job was)."""
    from .jobs import adapter_default_folders

    out = list(job.source_roots)
    if getattr(job, "default_folders", False):
        out += [f for f in adapter_default_folders(job.adapter) if f not in out]
    return out


def now_collecting(name: str, folder: Path) -> str:
    """The line a command says once when it starts collecting ``folder`` with the adapter ``name`` after its start:
    ``[HH:MM:SS] now collecting: changes from /home/me/.claude/plugins/data (appeared since the start)``."""
    return f"{log_stamp()} now collecting: {name} from {folder} (appeared since the start)"


class LateSources:
    """The adapters and folders a command collects, and those that appear later.

    ``resolve()`` gives the command's jobs now (:class:`~asz_core.cli.jobs.Job` list; it may raise: taken as no
    news); ``jobs``: the ones resolved at start; ``look(jobs)`` the silent look (:func:`sources_now` with the
    command's configuration, storage root and choice) whose change makes :meth:`news` resolve again. :meth:`news`
    gives ``[(job, [folder, …])]`` for each job with a folder not given before (an adapter new to the command: all
    its folders), each folder once in the command's life."""

    def __init__(self, resolve: Callable[[], list], jobs: list, look: Callable[[list], tuple]):
        self.resolve, self.look, self.jobs = resolve, look, list(jobs)
        self.known = {_key(j.adapter.name, f) for j in jobs for f in _folders(j)}
        self.names = {j.adapter.name for j in jobs}
        self.seen = look(self.jobs)

    @classmethod
    def of(cls, cfg, storage: Path, chosen: bool, jobs: list, resolve: Callable[[], list]) -> "LateSources":
        """The late sources of a command with configuration ``cfg``, storage root ``storage``, its adapters or folders
        ``chosen`` on its command line or not, that resolved ``jobs`` at start and resolves them again with ``resolve``."""
        return cls(resolve, jobs, lambda now: sources_now(cfg, storage, chosen, now))

    def news(self) -> list[tuple[object, list[Path]]]:
        """The jobs with folders not collected before, each with those folders; [] when none, when the look is what
        it was, or when the options no longer resolve. Never raises."""
        seen = self.look(self.jobs)
        if seen == self.seen:
            return []
        self.seen = seen
        try:
            jobs = self.resolve()
        except (Exception, SystemExit):  # typer.Exit or a ConfigError: the pass says what is wrong
            return []
        self.jobs += [j for j in jobs if j.adapter.name not in {k.adapter.name for k in self.jobs}]
        self.seen = self.look(self.jobs)
        out = []
        for j in jobs:
            new = [f for f in _folders(j) if _key(j.adapter.name, f) not in self.known]
            if new:
                self.known |= {_key(j.adapter.name, f) for f in new}
                out.append((j, new))
        return out

    def new_adapters(self, news: list) -> list:
        """The jobs of ``news`` (:meth:`news`) whose adapter the command did not collect before, now noted as collected."""
        out = [j for j, _ in news if j.adapter.name not in self.names]
        self.names |= {j.adapter.name for j in out}
        return out


def said_news(late: LateSources | None, err: bool) -> list:
    """:meth:`LateSources.news` of ``late`` (none when None), each new folder said once (:func:`now_collecting`), on
    stderr with ``err`` (``asz collect``, whose ``collecting …`` line is there), else stdout (``asz server``'s banner)."""
    news = late.news() if late is not None else []
    for job, folders in news:
        for f in folders:
            typer.echo(now_collecting(job.adapter.name, f), err=err)
    return news


def late_jobs(late: LateSources | None, jobs: list) -> list:
    """The jobs of adapters a watching ``asz collect`` collects from now on (:func:`said_news`; a new folder of an
    adapter collected already is read by its collector: :func:`asz_core.collect.folders.current_roots`); added to
    ``jobs``."""
    new = late.new_adapters(said_news(late, True)) if late is not None else []
    jobs += new
    return new
