"""Entry points read straight from the ``entry_points.txt`` files on ``sys.path``, and where the installed adapters'
code is, without importing any of it (not even :mod:`importlib.metadata`, whose import and scan cost tens of
milliseconds): for ``asz``'s fast commands (:mod:`asz_core.cli.entry`) and the summary cache's fingerprint
(:func:`asz_core.view.summary_cache.code_mark`)."""

from __future__ import annotations

import os
from typing import Any, Iterator

__all__ = ["declared", "adapter_sources", "hash_adapter_sources"]


def _section(text: str, group: str) -> Iterator[tuple[str, str]]:
    """``(name, value)`` of the ``name = value`` lines of the ``[group]`` section of an ``entry_points.txt`` text."""
    inside = False
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            inside = line == f"[{group}]"
        elif inside and "=" in line and not line.startswith(("#", ";")):
            name, _, value = line.partition("=")
            yield name.strip(), value.strip()


def declared(group: str, paths: list[str] | None = None) -> Iterator[tuple[str, str]]:
    """``(name, value)`` of each entry point of ``group``, in the order :mod:`importlib.metadata` finds them.

    Scans each directory of ``paths`` (default ``sys.path``) in order for ``*.dist-info/entry_points.txt`` and
    ``*.egg-info/entry_points.txt``; of two declarations of one name, the first counts. Lazy: a caller that stops
    at the first it wants reads no more files. Never raises.
    """
    import sys

    for base in sys.path if paths is None else paths:
        try:
            names = os.listdir(base or ".")
        except OSError:
            continue
        for d in names:
            if not d.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(base or ".", d, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                continue
            if group in text:
                yield from _section(text, group)


def adapter_sources(group: str = "asz") -> list[str]:
    """The Python files of every package an entry point of ``group`` (the adapters' group,
    :data:`asz_core.plugins.manager.ENTRY_POINT_GROUP`) names: the top-level package of its module, so all of an
    adapter's code, whatever module its methods live in; sorted. Found without importing them, so the summary
    cache can key entries an adapter's answers shaped (:meth:`asz_core.plugins.adapter.Adapter.label_target`)
    without loading the plugins. Never raises."""
    import importlib.util

    tops = {value.split(":", 1)[0].strip().split(".", 1)[0] for _, value in declared(group)}
    files: set[str] = set()
    for top in tops:
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            continue
        if spec is None:
            continue
        for place in spec.submodule_search_locations or ():
            try:
                files.update(os.path.join(place, n) for n in os.listdir(place) if n.endswith(".py"))
            except OSError:
                continue
        if not spec.submodule_search_locations and spec.origin and spec.origin.endswith(".py"):
            files.add(spec.origin)
    return sorted(files)


def hash_adapter_sources(h: Any) -> None:
    """Update the hash ``h`` (a :mod:`hashlib` object) with each file of :func:`adapter_sources`: its name under its
    package's folder (``asz_adapters_claude/plugin.py``) and its bytes, a file not readable as its name alone: what
    the marks of code an adapter's answers shape hash (the summary cache's
    :func:`~asz_core.view.summary_cache.code_mark`, the chain's :func:`~asz_core.flow.chain.assembly_mark`). The
    bytes, not the file's mtime or where it is installed: a ``touch``, a ``git checkout`` or a second install of the
    same code in another venv is the same mark (each other mark assembles every chain again and counts every list
    row again). About 0.5 MB read once per process. Never raises."""
    for path in adapter_sources():
        name = os.path.join(os.path.basename(os.path.dirname(path)), os.path.basename(path))
        try:
            with open(path, "rb") as f:
                data = f.read()
            h.update(f"{name}\0{len(data)}\0".encode() + data + b"\0")
        except OSError:
            h.update(f"{name}\0-\0".encode())
