"""A folder export's copies link the sessions they continue or are continued in (render 28; trial 45b F6: ``continued
in ID`` and ``continues ID`` were plain text though both files were in the folder, where the page links ``/c/ID``).

The export names the conversations its folder is made of (:func:`linking`, ``asz export --out DIR/``'s rows); each id
of a head's link line (:func:`~asz_core.reading.listing.link_lines`) that is one of them becomes a relative link to
its file there, ``[ID](ID.md)`` in md, ``<a href="ID.html">ID</a>`` in html; any other id stays text. The ids a copy
linked are its manifest's ``made.linked`` (:func:`linked`), so ``asz verify --export --root`` makes it again with
the same links whatever the folder holds now. A single file's copy links none.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterable, Iterator

__all__ = ["linking", "linked", "md_linked", "html_linked"]

#: ``(the ids the folder is made of, the ids linked so far)`` while a copy is drawn (:func:`linking`).
_LINKED: ContextVar[tuple[frozenset, set]] = ContextVar("asz_export_linked", default=(frozenset(), set()))


@contextmanager
def linking(ids: Iterable[str]) -> Iterator[set]:
    """Draw within as a copy of a folder made of the conversations ``ids``; yields the set of the ids it linked."""
    used: set = set()
    token = _LINKED.set((frozenset(ids), used))
    try:
        yield used
    finally:
        _LINKED.reset(token)


def linked(used: Iterable[str]) -> dict:
    """A manifest's ``made`` key of the ids a copy linked (:func:`linking`'s set): ``{"linked": [sorted ids]}``, {} for none."""
    return {"linked": sorted(used)} if used else {}


def _linked(line: str, link) -> str:
    """``line`` with each id of the folder it holds (whole, not part of a longer name) made ``link(id)`` (render 28)."""
    from .export_render import ARCHIVE_RENDER, drawn

    ids, used = _LINKED.get()
    if not ids or drawn() < ARCHIVE_RENDER:
        return line
    here = [i for i in ids if i in line]
    if not here:
        return line
    used.update(here)
    pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, sorted(here, key=len, reverse=True))) + r")(?![\w-])")
    return pattern.sub(lambda m: link(m.group(1)), line)


def md_linked(line: str) -> str:
    """An md head's link line (written, escaped) with each id of the folder linked: ``[ID](ID.md)``."""
    return _linked(line, lambda i: f"[{i}]({i}.md)")


def html_linked(line: str) -> str:
    """An html head's link line (escaped) with each id of the folder linked: ``<a href="ID.html">ID</a>``."""
    return _linked(line, lambda i: f"<a href=\"{i}.html\">{i}</a>")
