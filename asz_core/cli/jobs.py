"""The adapters a command collects, and the source folders each reads (``--adapter``, ``--source``, asz.yaml).

Used by ``asz collect``, ``asz sources`` and ``asz server`` (:func:`resolve_jobs`). Spec: origin-digest §8.2
(a file listing ``adapters`` replaces the default list); several source folders of one adapter into one storage root:
:mod:`asz_core.collect.folders` (docs/storage-root.md, Several source folders).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Optional

import attrs
import typer

from ..config import MIN_DELTA_BYTES, MIN_INTERVAL, Config, ConfigError, check_adapter_keys, parse_duration
from ..plugins import Adapter, get_plugin_manager, raised_at
from ..termsafe import shell_word

__all__ = ["Job", "adapter_default_folders", "missing_is_note", "adapter_file_module", "load_adapter_file", "resolve_jobs", "storage_root",
           "storage_source_root", "usage_error"]


def usage_error(cmd: str, message: str) -> typer.Exit:
    """Say ``asz CMD: MESSAGE`` on stderr; the exit (2, a usage error) to raise."""
    typer.echo(f"asz {cmd}: {message}", err=True)
    return typer.Exit(2)


@attrs.define
class Job:
    """One adapter to collect: the adapter, its source root, filters, budget (bytes), mode and interval (s), and the
    further source folders it reads into the same storage root (:mod:`asz_core.collect.folders`)."""

    adapter: Adapter
    source_root: Path
    include: list[str]
    exclude: list[str]
    max_delta_bytes: int
    mode: str
    interval: float
    more_roots: list[Path] = attrs.Factory(list)
    #: The folders are the adapter's defaults (no --source, no source_root): a pass adds one that appears later.
    default_folders: bool = False

    def named(self) -> str:
        """The job's source folders as a pass line names them: ``A``, or ``A and B``, …"""
        return " and ".join(str(r) for r in self.source_roots)

    @property
    def source_roots(self) -> list[Path]:
        """Every source folder of the job, the storage root's own (``source_root``) first."""
        return [self.source_root, *self.more_roots]


def load_adapter_file(path: Path) -> object:
    """Import a Python file that defines ``asz_register_adapters()`` and return the module (a plugin object).

    For one-off development adapters and tests (house style lesson 6). Raises
    ImportError or any error the file raises while it is imported.
    """
    path = Path(path).resolve()
    name = adapter_file_module(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def adapter_file_module(path: Path) -> str:
    """The module name :func:`load_adapter_file` imports ``path`` as (one per file, within a process)."""
    return f"asz_adapter_file_{abs(hash(str(Path(path).resolve()))):x}"


def resolve_jobs(
    cmd: str,
    cfg: Config,
    *,
    adapter: str | list[str] = "",
    source: Optional[Path] | list[Path] = None,
    interval: str = "",
    max_delta_bytes: Optional[int] = None,
    adapter_files: list[Path] | None = None,
    root: Optional[Path] = None,
    say_unlisted: bool = False,
    unusable: list[str] | None = None,
) -> list[Job]:
    """Turn configuration and flags into jobs. Raises typer.Exit(2) with a message for a usage problem.

    ``--adapter`` picks an adapter (listed or not); given several times (a list), each one named, in that order, a
    name given twice once (trial 20: only the last one was collected, silently); otherwise every enabled entry, and,
    with no ``--source`` and no ``adapters`` list in the file, every installed adapter with sessions at its default
    folder (:func:`~asz_core.cli.adapter_note.present_adapters`: Kiro's ``~/.kiro``; trial 34a F6). ``--source`` needs exactly one adapter; given several times (a list), the adapter reads each folder into
    the storage root, the first the root's own (:mod:`asz_core.collect.folders`), as a ``source_root`` list does in
    the file. With neither, the adapter's :meth:`~asz_core.plugins.adapter.Adapter.default_source_roots` (Claude Code:
    its default folder and every other of its folders holding sessions). A flag beats the file.
    ``root`` is the ``--root`` given: an adapter whose source is the storage root itself
    (:attr:`~asz_core.plugins.adapter.Adapter.source_in_storage`: ``langsmith-ingest`` reads the inbox inside it)
    reads the storage root this command resolved (:func:`storage_source_root`). ``say_unlisted`` prints on stderr which
    adapters are collected beside the default list (:func:`~asz_core.cli.adapter_note.present_note`) and a note per
    installed adapter left out that has sessions at its default source (:func:`~asz_core.cli.adapter_note.unlisted_sessions_notes`).
    """
    names = [adapter] if isinstance(adapter, str) else list(dict.fromkeys(adapter))
    entries = _entries(cmd, cfg, [n for n in names if n])
    files = adapter_files or []
    reg = get_plugin_manager(extra=_adapter_files(cmd, files))
    _refuse_failed_files(cmd, reg, files)
    sources = _folders(source)
    if sources and len(entries) > 1 and any(names):
        raise usage_error(cmd, f"--source is one adapter's folder: give it with one --adapter, not {len(entries)} "
                               f"({', '.join(e.name for e in entries)})")
    if sources and len(entries) > 1:
        raise usage_error(cmd, f"--source needs --adapter when several adapters are enabled ({', '.join(e.name for e in entries)})")
    if not any(names):  # beside the default list, each adapter with sessions at its default folder (--source: said)
        entries = [*entries, *_present(cmd, cfg, reg, root, say_unlisted, [e.name for e in entries] if sources else None)]
    seconds: float | None = None
    if interval:
        try:
            seconds = parse_duration(interval)
        except ValueError as exc:
            raise usage_error(cmd, f"--interval: {exc}") from None
        if seconds < MIN_INTERVAL:
            raise usage_error(cmd, f"--interval must be at least 100ms (a shorter one spins), got {interval}")
    if max_delta_bytes is not None and max_delta_bytes < MIN_DELTA_BYTES:
        raise usage_error(cmd, f"--max-delta-bytes must be at least {MIN_DELTA_BYTES}, got {max_delta_bytes}")
    jobs = []
    entries = _loaded_entries(cmd, cfg, reg, entries, names, unusable)
    for e in entries:
        a = _configured(cmd, reg, e)
        follow = False
        if sources:
            src, *more = sources  # ~ expanded as every Path option is (asz_core.cli.quick.with_user_paths)
        elif e.source_root:
            src, more = Path(e.source_root), [Path(p) for p in e.more_source_roots]  # ~ expanded by load_config
        elif a.source_in_storage:
            src, more = storage_source_root(a, cfg, root), []
        else:
            src, *more = adapter_default_folders(a)
            follow = src == Path(a.default_source_root())
        if a.source_in_storage:
            _refuse_other_root(cmd, a, src, storage_root(cfg, root))
        jobs.append(
            Job(
                a,
                src,
                list(e.include), list(e.exclude),
                max_delta_bytes if max_delta_bytes is not None else e.collector.max_delta_bytes,
                e.collector.mode,
                seconds if seconds is not None else e.collector.interval,
                _distinct(src, more),
                follow,
            )
        )
    return jobs


def _loaded_entries(cmd: str, cfg: Config, reg, entries: list, names: list[str], unusable: list[str] | None) -> list:
    """``entries`` but those the configuration lists, no ``--adapter`` names, and that are not loaded (the plugin failed
    to import or register, is blocked, or is not installed): each said on stderr (``error: adapter 'x' of <file> is
    not collected: <why>; the other adapters are (see asz adapters list)``) and added to ``unusable`` when given
    (``asz collect --once`` then exits 1 after its pass), the others collected (trial 35a F2; docs/adapters.md,
    Loading). Raises typer.Exit(2) when none is left (nothing could run); one named with ``--adapter`` is exit 2 too
    (:func:`_configured`)."""
    kept, broken = [], []
    for e in entries:
        if e.name not in names and (why := _not_loaded(reg, e.name)):
            broken.append(f"error: adapter {e.name!r} of {cfg.path or 'the configuration'} is not collected: {why}; "
                          "the other adapters are (see asz adapters list)")
        else:
            kept.append(e)
    if broken and not kept:
        raise usage_error(cmd, "; ".join(b.removeprefix("error: ") for b in broken))
    for b in broken:
        typer.echo(b, err=True)
    if unusable is not None:
        unusable.extend(broken)
    return kept


def _not_loaded(reg, name: str) -> str:
    """Why the adapter ``name`` cannot run (:meth:`~asz_core.plugins.manager.PluginManager.get`'s words: failed,
    blocked, not installed), '' when it is loaded."""
    try:
        reg.get(name)
    except KeyError as exc:
        return str(exc.args[0])
    return ""


def _present(cmd: str, cfg: Config, reg, root: Optional[Path], say: bool, given: list[str] | None = None) -> list:
    """The entries of the installed adapters collected beside the default list
    (:func:`~asz_core.cli.adapter_note.present_adapters`; trial 34a F6); with ``say``, their note and the notes of the
    ones left out (:func:`~asz_core.cli.adapter_note.unlisted_sessions_notes`) on stderr. With ``given`` (the
    adapters whose folders ``--source`` names) none: with ``say``, a note on each such adapter it leaves out
    (:func:`~asz_core.cli.adapter_note.source_left_notes`; trial 37a F7)."""
    from .adapter_note import present_adapters, present_note, source_left_notes, unlisted_sessions_notes

    if given is not None:
        for note in source_left_notes(cfg, reg.adapters(), given, root, storage_root(cfg, root), cmd=cmd) if say else ():
            typer.echo(note, err=True)
        return []

    present = present_adapters(cfg, reg.adapters(), storage=storage_root(cfg, root))
    if say:
        said = [present_note(reg.adapters(), present, cfg, cmd=cmd, storage=storage_root(cfg, root))] if present else []
        for note in said + unlisted_sessions_notes(cfg, reg.adapters(), storage=root, cmd=cmd):
            if note:  # '' when nothing holds any more (trial 40d F4)
                typer.echo(note, err=True)
    return [cfg.adapter(n) for n in present]


def missing_is_note(job: Job, jobs: list[Job]) -> bool:
    """Whether ``job``'s source folders all missing is a ``note:``, not an ``error:`` (trial 29c F5: a Kiro-only
    machine collecting the default list or an asz.yaml listing claude-code-local and kiro got ``errors=1`` and exit 1
    on every pass, for a ``~/.claude/projects`` nobody asked for): its folders are its adapter's defaults (no
    ``--source``, no ``source_root``: :attr:`Job.default_folders`) and another adapter of ``jobs`` (the command's)
    collects sessions beside it (a provider-body adapter, ``body_suffixes``, is no such one). A folder the user named,
    or the only adapter's, stays an error (:data:`~asz_core.collect.folders.NO_ROOT`)."""
    return job.default_folders and any(j.adapter.name != job.adapter.name and not j.adapter.body_suffixes for j in jobs)


def storage_root(cfg: Config, root: Optional[Path] = None) -> Path:
    """The storage root a command resolved: ``--root`` (``root``), else ``storage.root`` of the configuration it read
    (``cfg``: the ``--config`` FILE when given, else ./asz.yaml), else ``./data`` (the default of ``storage.root``)."""
    return Path(root) if root is not None else Path(cfg.root)


def storage_source_root(a: Adapter, cfg: Config, root: Optional[Path] = None,
                        env: Optional[dict[str, str]] = None) -> Path:
    """The source root of an adapter whose source lies in the storage root (:attr:`Adapter.source_in_storage`,
    ``langsmith-ingest``: ``<root>/_ingest/langsmith``) when neither ``--source`` nor ``source_root`` names one: one
    of its :attr:`~asz_core.plugins.adapter.Adapter.source_env` variables when set (``$ASZ_LANGSMITH_ROOT``), else
    the storage root the command resolved (:func:`storage_root`). The one rule of ``asz collect``, ``asz sources`` and
    ``asz server`` (trial 27a F1: with ``--config FILE`` it was ./asz.yaml's root or ./data, so a pass landed another
    root's conversations, or none)."""
    env = os.environ if env is None else env
    if any(env.get(k) for k in getattr(a, "source_env", ())):
        return Path(a.default_source_root(env))
    return storage_root(cfg, root)


def _refuse_other_root(cmd: str, a: Adapter, src: Path, storage: Path) -> None:
    """Raise typer.Exit(2) when ``a`` (:attr:`Adapter.source_in_storage`) would read ``src``, a storage root other than
    ``storage`` that holds landed conversations of its own: its staged arrivals are that root's evidence, which its
    own passes land (and materialise under its lock). Landing them into ``storage`` too gives ``storage`` another
    root's conversations under the ids of its own, which stop in conflict when its own arrivals land (trial 27a F1:
    ``conflicts=7``). A source folder inside ``storage``, or one holding no conversation (a receiver's staging
    root, ``$ASZ_LANGSMITH_ROOT``), is read."""
    from ..storage.layout import session_dirs

    mine, theirs = os.path.realpath(storage), os.path.realpath(src)
    if theirs == mine or theirs.startswith(mine.rstrip(os.sep) + os.sep):
        return
    held = session_dirs(Path(src))
    if held:
        raise usage_error(cmd, f"{a.name} would read {src}, another storage root ({len(held)} landed conversation(s)), "
                               f"into {storage}: its arrivals are that root's; collect them with --root {shell_word(src)}, and "
                               f"this root's own with --root {shell_word(storage)} (no --source; docs/adapters/langchain.md, Collecting)")


def _adapter_files(cmd: str, paths: list[Path]) -> list[object]:
    """The plugins of ``--adapter-file`` (:func:`load_adapter_file`). Raises typer.Exit(2) for one that fails to
    import, naming the file and line where it raised (trial 20: ``--adapter-file: ValueError: bad config`` alone)."""
    out = []
    for p in paths:
        try:
            out.append(load_adapter_file(p))
        except Exception as exc:
            raise usage_error(cmd, f"--adapter-file {p}: {type(exc).__name__}: {exc}{raised_at(exc, adapter_file_module(p))}") from None
    return out


def _refuse_failed_files(cmd: str, reg, paths: list[Path]) -> None:
    """Raise typer.Exit(2) for an ``--adapter-file`` that loaded nothing: every problem its plugin has (a misspelt
    hook, no hook, a hook that registers no adapter, an adapter that cannot be instantiated, a name or dialect an
    installed adapter has already) is a ``failed`` row for an installed plugin (docs/adapters.md, Loading), but the file
    was given to be run, and with it ignored an installed adapter of the same name did the work (trial 25a F5). The
    message names the file and says the row's reason, the file's path in place of its module name."""
    modules = {adapter_file_module(Path(p)): p for p in paths}
    for e in reg.entries:
        path = modules.get(e.module)
        if path is not None and e.status != "ok":
            reason = e.reason.replace(e.module, str(path))
            if e.name != e.module:  # an adapter of the file: its name
                reason = f"adapter {e.name!r}: {reason}" if not reason.startswith("adapter name") else reason
            raise usage_error(cmd, f"--adapter-file {path}: {reason}")


def _entries(cmd: str, cfg: Config, names: list[str]) -> list:
    """The entries of the adapters named (``--adapter``, each time given), else every enabled one. Raises typer.Exit(2)
    when there is none."""
    entries = [cfg.adapter(n) for n in names] or cfg.enabled()
    if not entries:
        raise usage_error(cmd, f"no adapter is enabled in {cfg.path or 'the configuration'}; name one with --adapter")
    return entries


def _configured(cmd: str, reg, entry) -> Adapter:
    """The loaded adapter of ``entry``, configured with it (:meth:`Adapter.configure`: --config reaches the adapter's
    own keys). Raises typer.Exit(2) naming its status when it is not loaded, or a key of the entry it does not declare
    (an ``--adapter-file`` adapter's keys are unchecked until here)."""
    try:
        a = reg.get(entry.name)
    except KeyError as exc:
        raise usage_error(cmd, f"{exc.args[0]} (see asz adapters list)") from None
    try:
        check_adapter_keys(entry, reg.declared_settings())
    except ConfigError as exc:
        raise usage_error(cmd, str(exc)) from None
    a.configure(entry)
    return a


def _folders(source: Optional[Path] | list[Path]) -> list[Path]:
    """``--source`` as a list of folders (none, one, or each time it was given)."""
    if source is None:
        return []
    return [Path(p) for p in source] if isinstance(source, (list, tuple)) else [Path(source)]


def adapter_default_folders(a: Adapter) -> list[Path]:
    """The adapter's :meth:`~asz_core.plugins.adapter.Adapter.default_source_roots`, its default source root alone
    when the answer is empty or the adapter fails (an adapter's answer never stops a collect)."""
    try:
        got = [Path(p) for p in a.default_source_roots()]
    except Exception:
        got = []
    return got or [Path(a.default_source_root())]


def _distinct(first: Path, more: list[Path]) -> list[Path]:
    """``more`` without the folders that are ``first`` or an earlier one of them (paths compared with symbolic links
    resolved: a link to a folder read already is not read twice)."""
    seen, out = {os.path.realpath(first)}, []
    for p in more:
        real = os.path.realpath(p)
        if real not in seen:
            seen.add(real)
            out.append(p)
    return out
