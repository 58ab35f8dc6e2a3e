"""The note ``asz collect`` prints when the default adapter list is in force and an installed adapter it leaves out
sees sessions at its default source (origin-digest §8.2 keeps the default list: claude-code-local only)."""

from __future__ import annotations

from typing import Mapping

from ..config import Config
from ..plugins.adapter import Adapter

__all__ = ["unlisted_sessions_notes"]


def unlisted_sessions_notes(cfg: Config, adapters: Mapping[str, Adapter], env: Mapping[str, str] | None = None) -> list[str]:
    """One note per adapter of ``adapters`` (the installed ones, by name) that ``cfg`` does not enable and that has
    sessions at its default source root (:meth:`~asz_core.plugins.adapter.Adapter.has_default_sessions`), naming it
    and the two ways to collect it; [] when the configuration lists adapters (the user chose)."""
    if cfg.adapters_listed:
        return []
    enabled = [a.name for a in cfg.enabled()]
    notes = []
    for name, adapter in sorted(adapters.items()):
        if name in enabled:
            continue
        try:
            seen = adapter.has_default_sessions(env) is True
            where = adapter.default_source_root(env) if seen else None
        except Exception:  # an adapter's answer never stops a collect
            seen = False
        if seen:
            listed = "".join(f"\n    - name: {n}" for n in (*enabled, name))
            notes.append(f"note: {name} sessions are at {where}, not collected: the default "
                         f"adapter list is {', '.join(enabled)} only. Collect them with --adapter {name}, or list "
                         f"the adapters in asz.yaml:\n  adapters:{listed}")
    return notes
