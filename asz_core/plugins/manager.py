"""Plugin discovery through pluggy and the ``asz`` entry-point group.

pluggy project ``asz``, hooks prefixed ``asz_`` (:mod:`.hookspecs`): a plugin
adds adapters, commands and the ``asz.yaml`` keys of its adapters. Built-in
plugins are declared in asz's own ``pyproject.toml`` exactly like a third
party's. Each entry point is loaded in isolation, and each of these is a
``failed`` row of ``asz adapters list`` that never stops another plugin or
command: a plugin that raises on import; one with a ``@hookimpl`` whose name is
no hook (a misspelling); one whose hook raises or returns something that is
not an ``Adapter`` subclass; an adapter class that cannot be instantiated (an
abstract method left out); a second adapter with a name already registered
(the first keeps it; the row names both); an adapter declaring a dialect a loaded one speaks already (the first
keeps it: asz's own adapters load first, then the others by distribution and entry-point name).
``ASZ_DISABLE_ADAPTERS=a,b`` blocks
by entry-point or adapter name.

Nothing is loaded at import time: :func:`get_plugin_manager` builds a fresh
manager each call.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any, Iterable, Mapping

import attrs
import pluggy

try:  # Python 3.11 stdlib metadata lacks some conveniences; the backport is a dependency.
    import importlib_metadata as metadata
except ImportError:  # pragma: no cover
    from importlib import metadata  # type: ignore[no-redef]

from . import hookspecs
from .adapter import Adapter, Setting

__all__ = ["ENTRY_POINT_GROUP", "AdapterEntry", "Registry", "get_plugin_manager", "DuplicateAdapterError", "adapter_for_dialect", "blocked_names",
           "adapter_overriding", "load_adapters", "raised_at"]

ENTRY_POINT_GROUP = "asz"
PROJECT = "asz"


class DuplicateAdapterError(RuntimeError):
    """Kept for code that caught it: duplicates are ``failed`` rows now and nothing raises it."""


@attrs.define
class AdapterEntry:
    """One row of ``asz adapters list``: an adapter, where it came from and its status.

    ``status`` is ``ok``, ``blocked`` or ``failed``; ``reason`` says why for
    the last two. ``adapter`` is an instance when status is ok.
    """

    name: str
    distribution: str = ""
    version: str = ""
    module: str = ""
    source: str = "entry-point"
    status: str = "ok"
    reason: str = ""
    adapter: Adapter | None = None

    @property
    def dialects(self) -> tuple[str, ...]:
        """Dialects the adapter speaks (empty unless loaded)."""
        return tuple(self.adapter.dialects) if self.adapter else ()

    @property
    def kinds(self) -> tuple[str, ...]:
        """File kinds the adapter lands (empty unless loaded)."""
        return tuple(self.adapter.kinds) if self.adapter else ()

    def as_dict(self) -> dict:
        """The JSON row of ``asz adapters list --json``."""
        status = self.status if not self.reason else f"{self.status}: {self.reason}"
        return {
            "name": self.name,
            "distribution": self.distribution,
            "version": self.version,
            "module": self.module,
            "source": self.source,
            "dialects": list(self.dialects),
            "kinds": list(self.kinds),
            "writes": self.adapter.identity if self.adapter else "",
            "status": status,
        }


@attrs.define
class Registry:
    """The loaded adapters and the failures, by name. Built by :func:`get_plugin_manager`."""

    pm: pluggy.PluginManager
    entries: list[AdapterEntry] = attrs.Factory(list)
    #: The plugins loaded without failure, each with the row fields of where it came from.
    plugins: list[tuple[object, AdapterEntry]] = attrs.Factory(list)
    #: Per adapter name, the ``asz.yaml`` keys its plugin declares (``asz_register_settings``).
    settings: dict[str, tuple[Setting, ...]] = attrs.Factory(dict)

    def register_commands(self, cli: Any) -> list[str]:
        """Call every loaded plugin's ``asz_register_commands(cli)``; returns the names of the plugins that added some.

        A hook that raises becomes a ``failed`` row (the commands it added
        before raising stay); the other plugins still add theirs. Never raises.
        """
        added = []
        for plugin, where in self.plugins:
            impl = getattr(plugin, "asz_register_commands", None)
            if impl is None:
                continue
            try:
                impl(cli=cli)
            except Exception as exc:  # a bad plugin is listed, never fatal
                self.entries.append(attrs.evolve(where, status="failed", reason=f"asz_register_commands: {type(exc).__name__}: {exc}"))
                continue
            added.append(where.name)
        return added

    def adapters(self) -> dict[str, Adapter]:
        """Adapters whose status is ok, by name."""
        return {e.name: e.adapter for e in self.entries if e.status == "ok" and e.adapter is not None}

    def declared_settings(self) -> dict[str, tuple[Setting, ...]]:
        """Per loaded adapter name (status ok), the ``asz.yaml`` keys its plugin declares (``()`` for none), plus the
        keys declared for adapter names not loaded by a loaded plugin: what :func:`asz_core.config.check_adapter_keys`
        checks an entry against. A blocked, failed or uninstalled adapter is absent (its entry's keys stay unchecked)."""
        return {**{name: () for name in self.adapters()}, **self.settings}

    def get(self, name: str) -> Adapter:
        """The adapter called ``name``. Raises KeyError naming the status when it is blocked, failed or unknown."""
        for e in self.entries:
            if e.name == name:
                if e.status == "ok" and e.adapter is not None:
                    return e.adapter
                raise KeyError(f"adapter {name!r} is {e.status}{': ' + e.reason if e.reason else ''}")
        raise KeyError(f"no adapter named {name!r} is installed")

    def by_dialect(self, dialect: str) -> Adapter:
        """The adapter that speaks ``dialect``. Raises KeyError when none does."""
        for a in self.adapters().values():
            if dialect in a.dialects:
                return a
        raise KeyError(f"no installed adapter speaks dialect {dialect!r}")

    def dialects(self) -> list[str]:
        """Every dialect spoken by a loaded adapter, sorted."""
        return sorted({d for a in self.adapters().values() for d in a.dialects})

    def default_dialect(self) -> str:
        """The dialect a glossary shows when none is asked (``asz glossary``, ``/api/glossary``): ``claude-code/1``
        (the default adapter's) when installed, else the first of :meth:`dialects`, else ''."""
        dialects = self.dialects()
        return "claude-code/1" if "claude-code/1" in dialects else (dialects[0] if dialects else "")


def _impl_names(plugin: object) -> list[str]:
    """The names of ``plugin``'s hook implementations: attributes marked ``@asz_core.hookimpl``, and functions
    whose name starts with ``asz_`` (a plain ``def asz_register_adapters()`` is taken as its hook, as it always was)."""
    import inspect

    marker = f"{PROJECT}_impl"
    out = []
    for name in dir(plugin):
        try:
            value = getattr(plugin, name)
        except Exception:  # a property that raises is no hook
            continue
        if hasattr(value, marker) or (name.startswith(f"{PROJECT}_") and inspect.isfunction(value)):
            out.append(name)
    return out


def _as_classes(out: object) -> list:
    if out is None:
        return []
    if isinstance(out, type):
        return [out]
    return list(out)  # type: ignore[call-overload]


def _as_settings(out: object) -> dict[str, tuple[Setting, ...]]:
    if out is None:
        return {}
    if not isinstance(out, Mapping):
        raise TypeError(f"asz_register_settings must return a mapping of adapter name to settings, got {type(out).__name__}")
    got: dict[str, tuple[Setting, ...]] = {}
    for name, keys in out.items():
        keys = tuple(keys)
        bad = [k for k in keys if not isinstance(k, Setting)]
        if bad:
            raise TypeError(f"asz_register_settings: {name!r}: {bad[0]!r} is not an asz_core.Setting")
        got[str(name)] = keys
    return got


def blocked_names(block: Iterable[str] | None = None) -> set[str]:
    """The adapter names blocked: ``ASZ_DISABLE_ADAPTERS`` (comma-separated, spaces trimmed) and ``block``."""
    names = {n.strip() for n in os.environ.get("ASZ_DISABLE_ADAPTERS", "").split(",") if n.strip()}
    if block:
        names |= set(block)
    return names


class _Loader:
    """Loads plugins one by one into a :class:`Registry`; every problem becomes a row, nothing raises."""

    def __init__(self, reg: Registry, blocked: set[str]):
        self.reg = reg
        self.blocked = blocked
        self.owners: dict[str, AdapterEntry] = {}
        #: Per dialect, the loaded adapter that speaks it: the first loaded keeps it (asz's own adapters load first).
        self.speakers: dict[str, AdapterEntry] = {}

    def row(self, where: AdapterEntry, status: str, reason: str, name: str = "") -> None:
        self.reg.entries.append(attrs.evolve(where, name=name or where.name, status=status, reason=reason))

    def add(self, plugin: object, where: AdapterEntry) -> None:
        """Register ``plugin`` (whose entry point ``where`` describes) and the adapters and settings it provides."""
        if where.name in self.blocked:
            return self.row(where, "blocked", "ASZ_DISABLE_ADAPTERS")
        impls = _impl_names(plugin)
        unknown = [n for n in impls if n not in hookspecs.HOOK_NAMES]
        if unknown:
            return self.row(where, "failed", f"{', '.join(unknown)} is no asz hook (hooks: {', '.join(hookspecs.HOOK_NAMES)})")
        if not impls:
            return self.row(where, "failed", f"implements no asz hook (hooks: {', '.join(hookspecs.HOOK_NAMES)})")
        try:
            self.reg.pm.register(plugin, name=f"{where.distribution}:{where.name}" if where.distribution else where.name)
            classes = _as_classes(plugin.asz_register_adapters()) if "asz_register_adapters" in impls else []
            settings = _as_settings(plugin.asz_register_settings()) if "asz_register_settings" in impls else {}
        except Exception as exc:  # a bad plugin is listed, never fatal
            return self.row(where, "failed", f"{type(exc).__name__}: {exc}")
        if "asz_register_adapters" in impls and not classes:
            return self.row(where, "failed", "registers no adapter")
        self.reg.plugins.append((plugin, where))
        for name, keys in settings.items():
            self.reg.settings.setdefault(name, keys)
        for cls in classes:
            self.adapter(cls, where)

    def adapter(self, cls: object, where: AdapterEntry) -> None:
        name = getattr(cls, "name", "") or where.name
        if name in self.blocked:
            return self.row(where, "blocked", "ASZ_DISABLE_ADAPTERS", name)
        if name in self.owners:
            first = self.owners[name]
            return self.row(where, "failed", f"adapter name {name!r} is registered twice: by {first.distribution or first.module} "
                                             f"(kept) and by {where.distribution or where.module}", name)
        try:
            if not (isinstance(cls, type) and issubclass(cls, Adapter)):
                raise TypeError(f"{cls!r} is not an asz_core.Adapter subclass")
            entry = attrs.evolve(where, name=name, status="ok", reason="", adapter=cls())
        except Exception as exc:
            entry = attrs.evolve(where, name=name, status="failed", reason=f"{type(exc).__name__}: {exc}")
        spoken = [d for d in entry.dialects if d in self.speakers]
        if spoken:  # trial 20: a plugin declaring claude-code/1 was an ok row beside the built-in adapter
            first = self.speakers[spoken[0]]
            entry = attrs.evolve(entry, status="failed", adapter=None,
                                 reason=f"dialect {spoken[0]!r} is spoken already by {first.name} of "
                                        f"{first.distribution or first.module} (kept)")
        self.owners[name] = entry
        self.reg.entries.append(entry)
        for d in entry.dialects:
            self.speakers[d] = entry


def get_plugin_manager(*, entrypoints: bool = True, block: Iterable[str] | None = None, extra: Iterable[object] = ()) -> Registry:
    """Build a fresh plugin manager and registry.

    ``entrypoints`` loads the ``asz`` entry-point group; ``block`` adds names to
    ``ASZ_DISABLE_ADAPTERS``; ``extra`` registers plugin objects directly
    (tests, development, ``--adapter-file``). Every problem of a plugin (import
    error, misspelled hook, bad registration, duplicate adapter name, an
    adapter that cannot be instantiated) becomes a row with status
    ``failed`` and its reason; blocked names become ``blocked`` rows. Never
    raises for a plugin.
    """
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(hookspecs)
    reg = Registry(pm)
    loader = _Loader(reg, blocked_names(block))
    if entrypoints:
        # In a fixed order (distribution, then entry-point name), so which of two same-named adapters keeps the name
        # does not depend on the order of sys.path's directory listings.
        for entry in _entry_points():
            _load(loader, entry)
    for plugin in extra:
        mod = getattr(plugin, "__name__", type(plugin).__name__)
        loader.add(plugin, AdapterEntry(mod, "", "", mod, "extra"))
    return reg


#: :func:`adapter_for_dialect`'s answers, by (``ASZ_DISABLE_ADAPTERS``, dialect).
_BY_DIALECT: dict[tuple[str, str], Adapter | None] = {}
#: Per value of ``ASZ_DISABLE_ADAPTERS``: the loader, and the entry points it has not loaded yet (in load order).
_LOADING: dict[str, tuple[_Loader, list]] = {}
_LOADING_LOCK = threading.Lock()


def _entry_points() -> list[tuple[Any, str, str]]:
    """The ``asz`` entry points in the order :func:`get_plugin_manager` loads them (asz's own, then by distribution,
    then name), each as
    ``(entry point, its distribution's name, its version)`` ('' and '' without one). A distribution's name and version
    are read once, not once an entry point and a use: each read parses its whole ``METADATA`` (issue 22, session 19:
    15 parses of asz's own for its 5 entry points at every start of a command that loads the plugins, now 2)."""
    about: dict[int, tuple[str, str]] = {}

    def dist_of(ep) -> tuple[str, str]:
        d = ep.dist
        if d is None:
            return "", ""
        if id(d) not in about:
            about[id(d)] = (d.name, d.version)
        return about[id(d)]

    eps = [(ep, *dist_of(ep)) for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)]
    return sorted(eps, key=lambda e: (e[1] != PROJECT, e[1], e[0].name))  # asz's own first: they keep their names and dialects


def raised_at(exc: BaseException, module: str) -> str:
    """Where ``exc`` was raised in the plugin's own files: `` (raised at FILE:LINE)`` for the last frame of its
    traceback whose module is ``module`` or below it (a plugin's package), '' when none is (trial 20: an import
    error row said only ``failed: KeyError: 'b'``). A SyntaxError names its file and line itself."""
    top = module.split(":", 1)[0].split(".", 1)[0]
    at, tb = "", exc.__traceback__
    while tb is not None:
        name = str(tb.tb_frame.f_globals.get("__name__", ""))
        if name == top or name.startswith(top + "."):
            at = f" (raised at {tb.tb_frame.f_code.co_filename}:{tb.tb_lineno})"
        tb = tb.tb_next
    return at


def _load(loader: _Loader, entry: tuple[Any, str, str]) -> None:
    """Load the entry point of ``entry`` (an item of :func:`_entry_points`) into ``loader``'s registry as
    :func:`get_plugin_manager` does (a failure is a row)."""
    ep, dist, version = entry
    where = AdapterEntry(ep.name, dist, version, ep.value, "entry-point")
    if ep.name in loader.blocked:
        return loader.row(where, "blocked", "ASZ_DISABLE_ADAPTERS")
    began = time.monotonic()
    try:
        plugin = ep.load()
    except BaseException as exc:  # SystemExit or KeyboardInterrupt from a plugin's import is its failure too
        if isinstance(exc, KeyboardInterrupt):
            raise
        loader.row(where, "failed", f"{type(exc).__name__}: {exc}{raised_at(exc, ep.value)}")
    else:
        loader.add(plugin, where)
    _say_if_slow(where, time.monotonic() - began)


#: A third-party plugin whose loading takes longer than this (seconds) is told on stderr (:func:`_say_if_slow`).
SLOW_PLUGIN_SECONDS = 1.0
#: The entry points told slow in this process (each is told once).
_SLOW_SAID: set[str] = set()


def _say_if_slow(where: AdapterEntry, seconds: float) -> None:
    """A ``note:`` on stderr, once a process, naming a plugin not of asz whose loading (import and registration) took
    over :data:`SLOW_PLUGIN_SECONDS`: every command that loads the adapters waits for it (trial 20: a plugin sleeping
    4 s at import added 4.4 s to ``asz ls``, ``conversation``, ``export``, ``sources`` and ``glossary``, silently)."""
    if seconds <= SLOW_PLUGIN_SECONDS or where.distribution == PROJECT or where.name in _SLOW_SAID:
        return
    _SLOW_SAID.add(where.name)
    print(f"note: loading adapter plugin {where.name} ({where.distribution or where.module}) took {seconds:.1f} s; "
          f"commands that load the adapters wait for it (ASZ_DISABLE_ADAPTERS={where.name} skips it)", file=sys.stderr)


def _loading(blocked: str) -> tuple[_Loader, list]:
    """The loader of :func:`adapter_for_dialect` for this value of ``ASZ_DISABLE_ADAPTERS`` (hold the lock)."""
    if blocked not in _LOADING:
        reg = Registry(pluggy.PluginManager(PROJECT))
        reg.pm.add_hookspecs(hookspecs)
        _LOADING[blocked] = (_Loader(reg, blocked_names(None)), _entry_points())
    return _LOADING[blocked]


def load_adapters() -> None:
    """Load now every plugin :func:`adapter_for_dialect` may need (the page server's warm-up, so no reader waits
    for the load). Never raises for a plugin."""
    with _LOADING_LOCK:
        loader, todo = _loading(os.environ.get("ASZ_DISABLE_ADAPTERS", ""))
        while todo:
            _load(loader, todo.pop(0))


def adapter_for_dialect(dialect: str) -> Adapter | None:
    """The installed adapter that speaks ``dialect`` (the one :meth:`Registry.by_dialect` of
    :func:`get_plugin_manager` gives), or None when none does; for readers that ask an adapter about its own records
    (:meth:`Adapter.label_target`, :meth:`Adapter.prompt_title`) record by record.

    The entry points are loaded once per process (per value of ``ASZ_DISABLE_ADAPTERS``), in
    :func:`get_plugin_manager`'s order, and only as far as the first that speaks ``dialect``; each dialect's answer
    is kept. A reader pays the load once, on its first question, and only for the plugins before the one it needs.
    Never raises for a plugin.
    """
    blocked = os.environ.get("ASZ_DISABLE_ADAPTERS", "")
    key = (blocked, dialect)
    if key in _BY_DIALECT:
        return _BY_DIALECT[key]
    with _LOADING_LOCK:  # the page server's threads ask at once
        loader, todo = _loading(blocked)
        while True:
            try:
                got: Adapter | None = loader.reg.by_dialect(dialect)
                break
            except KeyError:
                if not todo:
                    got = None
                    break
                _load(loader, todo.pop(0))
        _BY_DIALECT[key] = got
    return got


def adapter_overriding(dialect: str, method: str) -> Adapter | None:
    """The installed adapter that speaks ``dialect`` (:func:`adapter_for_dialect`) when it overrides the
    :class:`Adapter` method ``method`` (a reading hook whose default says nothing: ``metered_data``, ``turns``,
    ``tool_run_ms``), else None: no dialect, no adapter speaks it, or it keeps the default."""
    a = adapter_for_dialect(dialect) if dialect else None
    if a is None or getattr(type(a), method, None) is getattr(Adapter, method):
        return None
    return a
