"""Hook specifications of the ``asz`` pluggy project (all hooks are prefixed ``asz_``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:  # pragma: no cover
    from .adapter import Adapter

hookspec = pluggy.HookspecMarker("asz")


@hookspec
def asz_register_adapters() -> "list[type[Adapter]] | type[Adapter]":
    """Return the adapter class (or a list of them) this plugin provides.

    Each class subclasses :class:`asz_core.Adapter` and carries its name,
    dialects, kinds, glossary and flag mapping.
    """
