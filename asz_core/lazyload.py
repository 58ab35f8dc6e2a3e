"""Package attributes imported on first use (PEP 562), so importing one submodule does not load its siblings.

``asz view`` answers its first request before the document builder or the
Session Data codec is imported (issue 22); the packages that re-export them
(:mod:`asz_core.sessiondata`, :mod:`asz_core.view`) use :func:`lazy_getattr`.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping

__all__ = ["lazy_getattr"]


def lazy_getattr(package: str, table: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``name`` is imported from ``package.<table[name]>`` on first use and kept
    in the package's namespace; any other name raises :class:`AttributeError`."""

    def getattr_(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(importlib.import_module(package), name, value)
        return value

    return getattr_
