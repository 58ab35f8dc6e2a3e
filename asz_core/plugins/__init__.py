"""Adapters: the contract (:mod:`.adapter`), hook specs and the plugin manager.

The names are imported on first use (PEP 562), so a reader that needs only :mod:`.packages` (the summary cache's
fingerprint) loads neither pluggy nor the contract.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    **dict.fromkeys(("VOCABULARY", "Adapter", "Capabilities", "Discovery", "FlagRule", "Source", "Term"), "adapter"),
    **dict.fromkeys(("ENTRY_POINT_GROUP", "AdapterEntry", "DuplicateAdapterError", "Registry", "get_plugin_manager",
                     "adapter_for_dialect", "raised_at"), "manager"),
}

__all__ = [
    "VOCABULARY",
    "Adapter",
    "Capabilities",
    "Discovery",
    "FlagRule",
    "Source",
    "Term",
    "ENTRY_POINT_GROUP",
    "AdapterEntry",
    "DuplicateAdapterError",
    "Registry",
    "get_plugin_manager",
    "adapter_for_dialect",
    "raised_at",
]


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value
    return value
