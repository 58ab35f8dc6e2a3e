"""Adapters: the contract (:mod:`.adapter`), hook specs and the plugin manager."""

from .adapter import VOCABULARY, Adapter, Capabilities, Discovery, FlagRule, Source, Term
from .manager import ENTRY_POINT_GROUP, AdapterEntry, DuplicateAdapterError, Registry, get_plugin_manager

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
]
