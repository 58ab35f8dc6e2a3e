"""A count this process moves each time it lands, removes or replaces landed files (a collect pass, ``asz prune``).

What a reader's memo of the whole root's landed files (:mod:`asz_core.view.named_titles`) compares with the count it
was made at, so a command that lands files and then reads in the same process (``asz collect`` keeping its list rows,
a test) never reads the root as it was before. Another process's landing is seen when the memo ages out.

A watcher (:func:`watch_landed`: ``asz receive``'s list-row keeper, :mod:`asz_core.cli.receive_rows`) is also told
which files a change touched, when the caller names them (a received request: its files' paths under the root), or
None (a collect pass, ``asz prune``: anything may have changed).
"""

from __future__ import annotations

from typing import Callable, Iterable, Optional

__all__ = ["landed_changed", "landed_count", "watch_landed"]

_COUNT = [0]
_WATCHERS: list[Callable[[Optional[list[str]]], None]] = []


def landed_changed(files: Optional[Iterable[str]] = None) -> None:
    """Say that this process changed the root's landed files (each memo made before is read again); ``files``: the
    paths under the root it landed or may have (None: not said, anything may have changed), told to each watcher."""
    _COUNT[0] += 1
    told = None if files is None else list(files)
    for fn in list(_WATCHERS):
        fn(told)


def watch_landed(fn: Callable[[Optional[list[str]]], None]) -> Callable[[], None]:
    """Call ``fn(files)`` at each :func:`landed_changed` of this process from now on (``files`` as it was given, a list,
    or None); returns what stops it."""
    _WATCHERS.append(fn)
    return lambda: _WATCHERS.remove(fn) if fn in _WATCHERS else None


def landed_count() -> int:
    """How many times :func:`landed_changed` was called in this process."""
    return _COUNT[0]
