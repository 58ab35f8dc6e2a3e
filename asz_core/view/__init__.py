"""The asz.view document (seed 004) and its renderings.

The names are imported on first use (PEP 562): ``asz view`` imports a few of
this package's modules before it answers, and the document builder only when a
document is built.
"""

from __future__ import annotations

from ..lazyload import lazy_getattr

_LAZY = {
    **dict.fromkeys(("FORMAT", "TEXT_LIMIT", "VERSION", "ViewError", "build_view", "list_conversations"), "document"),
    **dict.fromkeys(("to_json", "to_yaml"), "render"),
}

__all__ = ["FORMAT", "TEXT_LIMIT", "VERSION", "ViewError", "build_view", "list_conversations", "to_json", "to_yaml"]


__getattr__ = lazy_getattr(__name__, _LAZY)
