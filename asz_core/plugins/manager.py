"""Adapter discovery through pluggy and the ``asz`` entry-point group.

pluggy project ``asz``, hooks prefixed ``asz_``. Built-in adapters are declared
in asz's own ``pyproject.toml`` exactly like a third party's. Each entry point
is loaded in isolation: one that fails to import is listed with its error and
never breaks another command. ``ASZ_DISABLE_ADAPTERS=a,b`` blocks by name. Two
adapters with one name is an error naming both distributions.
``check_pending()`` runs after loading so a misspelled hook fails loudly.

Nothing is loaded at import time: :func:`get_plugin_manager` builds a fresh
manager each call.
"""

from __future__ import annotations

import os
from typing import Iterable

import attrs
import pluggy

try:  # Python 3.11 stdlib metadata lacks some conveniences; the backport is a dependency.
    import importlib_metadata as metadata
except ImportError:  # pragma: no cover
    from importlib import metadata  # type: ignore[no-redef]

from . import hookspecs
from .adapter import Adapter

__all__ = ["ENTRY_POINT_GROUP", "AdapterEntry", "Registry", "get_plugin_manager", "DuplicateAdapterError"]

ENTRY_POINT_GROUP = "asz"
PROJECT = "asz"


class DuplicateAdapterError(RuntimeError):
    """Two plugins register adapters with one name; the message names both distributions."""


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
            "status": status,
        }


@attrs.define
class Registry:
    """The loaded adapters and the failures, by name. Built by :func:`get_plugin_manager`."""

    pm: pluggy.PluginManager
    entries: list[AdapterEntry] = attrs.Factory(list)

    def adapters(self) -> dict[str, Adapter]:
        """Adapters whose status is ok, by name."""
        return {e.name: e.adapter for e in self.entries if e.status == "ok" and e.adapter is not None}

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


class _Hooks:
    """Typed facade over ``pm.hook`` (pluggy's hook relay is untyped): the only way core calls hooks."""

    def __init__(self, pm: pluggy.PluginManager):
        self._pm = pm

    def register_adapters_from(self, plugin: object) -> list[type[Adapter]]:
        impl = getattr(plugin, "asz_register_adapters", None)
        if impl is None:
            return []
        out = impl()
        if out is None:
            return []
        if isinstance(out, type):
            return [out]
        return list(out)


def _blocked_names(block: Iterable[str] | None) -> set[str]:
    names = {n.strip() for n in os.environ.get("ASZ_DISABLE_ADAPTERS", "").split(",") if n.strip()}
    if block:
        names |= set(block)
    return names


def get_plugin_manager(*, entrypoints: bool = True, block: Iterable[str] | None = None, extra: Iterable[object] = ()) -> Registry:
    """Build a fresh plugin manager and registry.

    ``entrypoints`` loads the ``asz`` entry-point group; ``block`` adds names to
    ``ASZ_DISABLE_ADAPTERS``; ``extra`` registers plugin objects directly
    (tests, development). Import failures, bad registrations and blocked names
    become rows with status failed / blocked. Raises DuplicateAdapterError
    when two plugins register one adapter name, naming both distributions.
    Raises pluggy.PluginValidationError (via ``check_pending``) for a hook
    implementation whose name matches no hook.
    """
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(hookspecs)
    reg = Registry(pm)
    blocked = _blocked_names(block)
    facade = _Hooks(pm)
    owners: dict[str, AdapterEntry] = {}

    def add_plugin(plugin: object, *, ep_name: str, dist: str, version: str, module: str, source: str) -> None:
        if ep_name in blocked:
            reg.entries.append(AdapterEntry(ep_name, dist, version, module, source, "blocked", "ASZ_DISABLE_ADAPTERS"))
            return
        try:
            pm.register(plugin, name=f"{dist}:{ep_name}" if dist else ep_name)
            classes = facade.register_adapters_from(plugin)
        except Exception as exc:  # a bad plugin is listed, never fatal
            reg.entries.append(AdapterEntry(ep_name, dist, version, module, source, "failed", f"{type(exc).__name__}: {exc}"))
            return
        if not classes:
            reg.entries.append(AdapterEntry(ep_name, dist, version, module, source, "failed", "registers no adapter"))
            return
        for cls in classes:
            name = getattr(cls, "name", "") or ep_name
            if name in blocked:
                reg.entries.append(AdapterEntry(name, dist, version, module, source, "blocked", "ASZ_DISABLE_ADAPTERS"))
                continue
            if name in owners:
                first = owners[name]
                raise DuplicateAdapterError(
                    f"adapter name {name!r} is registered twice: by {first.distribution or first.module} and by {dist or module}"
                )
            try:
                if not (isinstance(cls, type) and issubclass(cls, Adapter)):
                    raise TypeError(f"{cls!r} is not an asz_core.Adapter subclass")
                adapter = cls()
                entry = AdapterEntry(name, dist, version, module, source, "ok", "", adapter)
            except Exception as exc:
                entry = AdapterEntry(name, dist, version, module, source, "failed", f"{type(exc).__name__}: {exc}")
            owners[name] = entry
            reg.entries.append(entry)

    if entrypoints:
        for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
            dist = ep.dist.name if ep.dist is not None else ""
            version = ep.dist.version if ep.dist is not None else ""
            if ep.name in blocked:
                reg.entries.append(AdapterEntry(ep.name, dist, version, ep.value, "entry-point", "blocked", "ASZ_DISABLE_ADAPTERS"))
                continue
            try:
                plugin = ep.load()
            except Exception as exc:
                reg.entries.append(AdapterEntry(ep.name, dist, version, ep.value, "entry-point", "failed", f"{type(exc).__name__}: {exc}"))
                continue
            add_plugin(plugin, ep_name=ep.name, dist=dist, version=version, module=ep.value, source="entry-point")
    for plugin in extra:
        mod = getattr(plugin, "__name__", type(plugin).__name__)
        add_plugin(plugin, ep_name=mod, dist="", version="", module=mod, source="extra")
    pm.check_pending()
    return reg
