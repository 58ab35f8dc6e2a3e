"""What each adapter's staging knows of a storage root beside its landed files (trial 28c F3), for ``asz ls`` and
``asz verify``: :func:`staged_notes`."""

from __future__ import annotations

from pathlib import Path

__all__ = ["staged_notes"]


def staged_notes(storage: Path) -> list[str]:
    """What each adapter knows of the root beside its landed files (:meth:`~asz_core.plugins.adapter.Adapter.
    root_notes`: LangSmith's times no receiver listened, so traces sent then left no record), one sentence each, by
    adapter name. An adapter that fails says nothing."""
    from .manager import get_plugin_manager

    out: list[str] = []
    for _, adapter in sorted(get_plugin_manager().adapters().items()):
        try:
            got = adapter.root_notes(Path(storage))
        except Exception:  # an adapter's bug takes nothing from the reader
            continue
        out += [x for x in got if isinstance(x, str) and x] if isinstance(got, list) else []
    return out
