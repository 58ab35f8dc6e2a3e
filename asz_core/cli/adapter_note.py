"""The note ``asz collect`` and ``asz server`` print when the default adapter list is in force and an installed adapter
it leaves out sees sessions at its default source (origin-digest §8.2 keeps the default list: claude-code-local only)."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from ..config import Config
from ..plugins.adapter import Adapter
from .root_overlap import read_folders, root_overlap
from ..termsafe import shell_word

__all__ = ["present_adapters", "present_note", "unlisted_sessions_notes", "source_hint", "landed_by", "source_left_notes"]


def _where(adapter: Adapter, source_root: Path) -> str:
    """The folders of ``adapter``'s :func:`~asz_core.cli.root_overlap.read_folders` under ``source_root`` that exist,
    joined by " and " (``/home/me/.kiro``); the source root itself when none does. Never raises."""
    try:
        found = [str(f) for f in read_folders(adapter, source_root) if f.exists()]
    except OSError:
        found = []
    return " and ".join(found) or str(source_root)


def _seen(adapter: Adapter, env: Mapping[str, str] | None) -> Path | None:
    """``adapter``'s default source root when it has sessions there (:meth:`~asz_core.plugins.adapter.Adapter.has_default_sessions`),
    else None. Never raises (an adapter's answer never stops a collect)."""
    try:
        return Path(adapter.default_source_root(env)) if adapter.has_default_sessions(env) is True else None
    except Exception:
        return None


def _staged(adapter: Adapter, cfg: Config, storage: Path, env: Mapping[str, str] | None) -> bool:
    """Whether ``adapter``, whose source lies in the storage root (``source_in_storage``), has something staged under
    the source root a command with ``storage`` reads for it (:func:`~asz_core.cli.jobs.storage_source_root`;
    :meth:`~asz_core.plugins.adapter.Adapter.has_staged`). Never raises."""
    from .jobs import storage_source_root

    try:
        return adapter.has_staged(storage_source_root(adapter, cfg, storage, env)) is True
    except Exception:  # an adapter's answer never stops a collect
        return False


def present_adapters(cfg: Config, adapters: Mapping[str, Adapter], env: Mapping[str, str] | None = None, *,
                     storage: Path | None = None) -> list[str]:
    """The installed adapters (``adapters``, by name) that a command with no ``--adapter``, no ``--source`` and no
    ``adapters`` list in its configuration collects beside the default list (``claude-code-local``): each one the
    default list leaves out whose sessions are at its default source (trial 34a F6: a Kiro-only user's plain ``asz
    collect --once`` failed on a ``~/.claude/projects`` it never had, landing nothing), and each whose source lies in
    the storage root with something staged there (:func:`_staged`: requests ``asz ingest langsmith`` staged; trial
    40a F2). One whose folders the storage root overlaps is left out (its note says so,
    :func:`unlisted_sessions_notes`). [] when the configuration lists adapters: the user chose. In name order."""
    if cfg.adapters_listed:
        return []
    enabled = {a.name for a in cfg.enabled()}
    root = storage if storage is not None else Path(cfg.root)
    out = []
    for name, adapter in sorted(adapters.items()):
        if name in enabled:
            continue
        if adapter.source_in_storage:
            if _staged(adapter, cfg, root, env):
                out.append(name)
            continue
        src = _seen(adapter, env)
        if src is not None and not root_overlap(root, adapter, src):
            out.append(name)
    return out


def _found(name: str, adapter: Adapter, cfg: Config, storage: Path, env: Mapping[str, str] | None) -> str:
    """Where a command finds ``adapter``'s sessions (:func:`present_adapters`), in words: ``kiro sessions are in
    /home/me/.kiro``, or for an adapter whose source lies in the storage root ``langsmith-ingest has 2 request file(s)
    staged in data/_ingest/langsmith/inbox`` (its :meth:`~asz_core.plugins.adapter.Adapter.staged_folders`); with
    none staged, ``… has no request file staged in …, but REASON`` (its
    :meth:`~asz_core.plugins.adapter.Adapter.staged_reason`), ``''`` when no reason holds (trial 40d F4)."""
    if not adapter.source_in_storage:
        return f"{name} sessions are in {_where(adapter, Path(adapter.default_source_root(env)))}"
    from ..plugins.staged import staged_names
    from .jobs import storage_source_root

    src, folders = None, []
    try:
        src = storage_source_root(adapter, cfg, storage, env)
        folders = [str(f) for f in adapter.staged_folders(src)]
    except Exception:  # an adapter's answer never stops a collect
        pass
    n = len(staged_names(folders))
    staged = f"{name} has {n:,} request file(s) staged in {' and '.join(folders) or storage}"
    if n:
        return staged
    try:  # none staged: the reason that holds, never "0 request file(s)" alone (trial 40d F4)
        why = adapter.staged_reason(src) if src is not None else ""
    except Exception:  # an adapter's answer never stops a collect
        why = ""
    return f"{name} has no request file staged in {' and '.join(folders) or storage}, but {why}" if why else ""


def present_note(adapters: Mapping[str, Adapter], names: list[str], cfg: Config, env: Mapping[str, str] | None = None,
                 cmd: str = "collect", storage: Path | None = None) -> str:
    """The note a command says when it collects ``names`` (:func:`present_adapters`) beside the default list: where
    their sessions are (:func:`_found`; ``storage``: the command's storage root, default ``cfg.root``), and how to
    choose (``--adapter``, or asz.yaml's ``adapters``); ``''`` when :func:`_found` has nothing to say of any."""
    root = storage if storage is not None else Path(cfg.root)
    where = "; ".join(x for x in (_found(n, adapters[n], cfg, root, env) for n in names) if x)
    if not where:  # nothing left to say: what was staged was landed meanwhile
        return ""
    staged = " or whose receiver stages requests in the storage root" if any(adapters[n].source_in_storage for n in names) else ""
    return (f"note: {where}: collected beside the default adapter list ({', '.join(a.name for a in cfg.enabled())}), "
            f"as every installed adapter whose sessions are at its default folder{staged} is; to choose, asz {cmd} "
            "--adapter NAME, or list the adapters in asz.yaml")


def source_left_notes(cfg: Config, adapters: Mapping[str, Adapter], collected: list[str], root: Path | None,
                      storage: Path, env: Mapping[str, str] | None = None, cmd: str = "collect") -> list[str]:
    """One ``note:`` per installed adapter a plain ``asz <cmd>`` collects beside the default list
    (:func:`present_adapters`: sessions at its default folder) that ``--source`` (the folders of ``collected``, one
    adapter) leaves out, naming where its sessions are and the command that collects them: ``note: kiro sessions are
    in /home/me/.kiro, not collected by this pass: --source reads claude-code-local's folders only; collect them with
    asz collect --adapter kiro --root ./data (--once for one pass)`` (trial 37a F7: a two-host ``--source A --source B`` left the
    team's Kiro user out without a word). ``root``: the ``--root`` given (named in the command), ``storage``: the
    storage root resolved. [] when the configuration lists adapters (the user chose)."""
    rooted = f" --root {shell_word(root)}" if root is not None else ""
    found = ((n, _found(n, adapters[n], cfg, storage, env)) for n in present_adapters(cfg, adapters, env, storage=storage)
             if n not in collected)
    return [f"note: {where}, not collected by this pass: --source reads {', '.join(collected)}'s folders only; collect "
            f"them with asz {cmd} --adapter {n}{rooted}" + (" (--once for one pass)" if cmd == "collect" else "")
            for n, where in found if where]


def unlisted_sessions_notes(cfg: Config, adapters: Mapping[str, Adapter], env: Mapping[str, str] | None = None, *,
                            storage: Path | None = None, cmd: str = "collect") -> list[str]:
    """One note per adapter of ``adapters`` (the installed ones, by name) that ``cfg`` does not enable, that has
    sessions at its default source root and that :func:`present_adapters` leaves out because the storage root overlaps
    a folder it reads (the others are collected beside the default list: trial 34a F6) (:meth:`~asz_core.plugins.adapter.Adapter.has_default_sessions`), naming the
    folders it reads there that exist (``~/.kiro``, not the home), what they are (the adapter's ``description``, so
    ``changes`` reads as the hook's records) and the two ways to collect it (``asz <cmd>
    --adapter NAME``, or the adapters listed in asz.yaml); [] when the configuration lists adapters (the user chose).
    When the storage root already holds sessions that adapter landed (:func:`landed_by`: an earlier ``--adapter``),
    the note says this pass does not read them and how many are there, never ``not collected`` (trial 33a F6).

    ``storage`` is the storage root of the command (default ``cfg.root``): when it overlaps a folder the adapter reads
    (:func:`~asz_core.cli.root_overlap.root_overlap`), the note says so and that ``--root`` must be moved, since either
    way of collecting would then be refused. ``cmd`` is the command named in the note."""
    if cfg.adapters_listed:
        return []
    enabled = [a.name for a in cfg.enabled()]
    notes = []
    for name, adapter in sorted(adapters.items()):
        if name in enabled:
            continue
        src = _seen(adapter, env)
        root = storage if storage is not None else Path(cfg.root)
        hit = None if src is None else root_overlap(root, adapter, src)
        if not hit:  # none there, or collected beside the default list (present_adapters; trial 34a F6)
            continue
        listed = "".join(f"\n    - name: {n}" for n in (*enabled, name))
        what = f" ({adapter.description})" if getattr(adapter, "description", "") else ""  # what they are, in words
        held = landed_by(root, name)
        if held:  # collected before with --adapter: not lost, only not read by this pass (trial 33a F6)
            said = (f"note: {name} sessions are in {_where(adapter, src)}{what}; this pass does not read them ({held} "
                    f"{name} session(s) already in the storage root, from an earlier asz {cmd} --adapter {name}): the "
                    f"default adapter list is {', '.join(enabled)} only. Include them with asz {cmd} --adapter {name}")
        else:
            said = (f"note: {name} sessions are in {_where(adapter, src)}, not collected{what}: the default adapter list "
                    f"is {', '.join(enabled)} only. Collect them with asz {cmd} --adapter {name}")
        notes.append(f"{said}, or list the adapters in asz.yaml:\n  adapters:{listed}"
                     f"\n  and give --root a folder apart from {hit[1]}: the storage root {hit[0]} it, and {name} "
                     "would be refused")
    return notes


def landed_by(root: Path, adapter: str) -> int:
    """How many sessions the root's ``_sessions.list`` says adapter ``adapter`` (by name) first landed, whose
    directory is still there; 0 when there is no list or it does not read. Never raises."""
    from ..storage.session_list import read_list

    try:
        got = read_list(root)
    except OSError:
        return 0
    if got is None:
        return 0
    return sum(1 for n, e in got.sessions.items() if e.adapter.split("/", 1)[0] == adapter and (root / n).is_dir())


def source_hint(jobs: list, env: Mapping[str, str] | None = None) -> str:
    """The end of the "no session found" line: ``; did you mean --source P?`` for the folder an adapter says a source
    root one level off meant (:meth:`~asz_core.plugins.adapter.Adapter.suggest_source`: Claude Code's project folder
    or configuration folder for its ``projects`` folder; trial 16 F8; the source root's parent said to be ``the folder
    above`` with the reader's ``--project`` filter, trial 38a F2), ``; did you mean --adapter NAME --source S?``
    when the source root is a folder another installed adapter reads at its default source root and that adapter has
    sessions there (``--source ~/.kiro`` given to Claude Code: trial 38a F1), else the question whether ``--source``
    is the runtime's projects directory. Every "did you mean" begins with :data:`MEANT`. Never raises."""
    meant = []
    for j in jobs:
        try:
            p = j.adapter.suggest_source(Path(j.source_root))
        except Exception:  # an adapter's answer never stops a collect
            p = None
        if p is not None:  # one folder too deep (a Claude Code project folder): the readers pick a project (trial 38a F2)
            below = Path(p) == Path(j.source_root).parent
            meant.append(f"--source {shell_word(p)}" + (" (the folder above: asz collects every project; asz ls "
                                                         "--project NAME then lists one)" if below else ""))
        else:
            meant.extend(f"--adapter {n} --source {shell_word(j.source_root)}" for n in _reader_of(j, env))
    if meant:
        return f"{MEANT}{' or '.join(meant)}?"
    return "; is --source the runtime's projects directory?"


#: How :func:`source_hint` begins when it names the folder or adapter a source root one level off meant.
MEANT = "; did you mean "


def _reader_of(job, env: Mapping[str, str] | None) -> list[str]:
    """The installed adapters other than ``job``'s that read ``job``'s source root itself at their default source
    root (it is that root, or one of its :meth:`~asz_core.plugins.adapter.Adapter.read_folders` that exists) and have
    sessions there (:meth:`~asz_core.plugins.adapter.Adapter.has_default_sessions`), by name. Never raises."""
    from ..plugins.manager import get_plugin_manager

    out = []
    try:
        here = Path(job.source_root).resolve()
        adapters = get_plugin_manager().adapters()
    except Exception:
        return out
    for name, a in sorted(adapters.items()):
        if name == job.adapter.name:
            continue
        try:
            if _seen(a, env) is None:
                continue
            home = Path(a.default_source_root(env))
            if here in {f.resolve() for f in (home, *a.read_folders(home)) if f.exists()}:
                out.append(name)
        except Exception:  # an adapter's answer never stops a collect
            continue
    return out
