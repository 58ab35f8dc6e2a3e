"""The shortened labels a reader shows for project paths: one rule for ``asz ls`` (PROJECT), ``asz usage project`` and
the page's Project dropdown and list (``/api/conversations``' ``project_label``; trial 31c F3).

A path is cut at ``/`` and at ``\\`` alike (``C:\\Users\\Zoë\\workspace\\site`` is a path as much as
``/Users/zoe/workspace/site``), keeping its last folders after ``…``: ``…/workspace/site``. Where two different
projects would read alike, each of them keeps as many of its first folders as tell them apart:
``/mnt/…/workspace/site``, ``/Users/alex/…/workspace/site``, ``C:\\…\\workspace\\site`` (separators count as one
character there, so ``…\\a\\b`` and ``…/a/b`` are told apart too). Two spellings of one path (NFC and macOS's NFD,
:func:`~asz_core.sessiondata.spelling.nfc`) are one project and get one label; so are the names of one Windows folder
(``C:\\…\\my app``, ``c:\\…\\My App``, WSL's ``/mnt/c/…/my app``: :func:`~asz_core.sessiondata.spelling.project_key`,
trial 36c F2), labelled from the form given most often. The full path stays where it was:
``--json``'s ``project`` and the page's ``title``.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Mapping

from ..sessiondata.spelling import nfc, project_forms, project_key

__all__ = ["TAIL", "project_labels", "cut_path"]

#: The trailing folders a label keeps when no width is given (the page): ``…/workspace/claude-code-log``.
TAIL = 2
#: The fewest cells of the tail a label of a given width keeps after the first folders it shows.
MIN_TAIL = 6
_PART = re.compile(r"[^/\\]+")


def _cells(text: str) -> int:
    """Terminal cells of ``text`` (a CJK character takes two: rich's widths)."""
    from rich.cells import cell_len

    return cell_len(text)


def _tail_fitting(text: str, room: int, cells: Callable[[str], int]) -> str:
    """The end of ``text`` in at most ``room`` cells: its most whole last folders with the separator before them
    (``/workspace/site``), else its last characters."""
    spans = [m.span() for m in _PART.finditer(text)]
    for n in range(len(spans), 0, -1):
        start = spans[-n][0]
        tail = text[max(start - 1, 0):] if start else text
        if cells(tail) <= room:
            return tail
    kept, used = "", 0
    for ch in reversed(text):
        if used + cells(ch) > room:
            break
        kept, used = ch + kept, used + cells(ch)
    return kept


def cut_path(path: str, front: int = 0, width: int | None = None, tail: int = TAIL) -> str | None:
    """``path`` shortened, keeping its first ``front`` folders: with no ``width``, ``…`` and its last ``tail``
    folders (the whole path when that leaves nothing out); with ``width``, the whole path when it fits in ``width``
    cells, else ``…`` and the most whole last folders that fit (else the last characters). None when ``front``
    folders leave no room for a tail (the label cannot keep more of the front)."""
    spans = [m.span() for m in _PART.finditer(path)]
    seps = [path[s - 1] for s, _ in spans if s and path[s - 1] in "/\\"]
    sep = seps[-1] if seps else "/"
    if width is None:
        if front + tail >= len(spans):
            return path
        start = spans[-tail][0]
        head = path[:spans[front - 1][1]] + sep if front else ""
        return head + "…" + path[start - 1:]
    if _cells(path) <= width:
        return path
    head = path[:spans[front - 1][1]] + sep if front else ""
    if front and front >= len(spans) - 1:
        return None
    room = width - _cells(head) - 1
    if front and room < MIN_TAIL:
        return None
    rest = path[spans[front][0] - 1:] if front else path
    return head + "…" + _tail_fitting(rest, room, _cells)


def _alike(label: str) -> str:
    """What two labels are compared by: separators as one character (``…\\a\\b`` reads as ``…/a/b``)."""
    return label.replace("\\", "/")


def project_labels(paths: Iterable[object], width: int | Mapping[str, int] | None = None,
                   tail: int = TAIL) -> dict[str, str]:
    """``{path: label}`` for each project path of ``paths`` (non-strings and '' left out): :func:`cut_path` of its
    NFC spelling (two spellings, one label; a Windows folder's names, one label from the form given most often:
    :func:`~asz_core.sessiondata.spelling.project_key`), and where labels of different projects read alike (:func:`_alike`),
    each of those keeps one more first folder, again until they differ or cannot keep more. ``width``: the cells a
    label may take (a mapping: per NFC path), None for the page's ``tail`` folders."""
    named = [p for p in paths if isinstance(p, str) and p]
    keys = {p: project_key(p) for p in named}
    forms: dict[str, list[str]] = {}
    for p in named:
        forms.setdefault(keys[p], []).append(nfc(p))
    shown = {k: project_forms(f)[0] for k, f in forms.items()}  # one Windows folder's names, one label (36c F2)
    distinct = sorted(shown)
    room = (lambda k: width.get(shown[k])) if isinstance(width, Mapping) else (lambda k: width)
    front = dict.fromkeys(distinct, 0)
    label = {k: cut_path(shown[k], 0, room(k), tail) or shown[k] for k in distinct}
    while True:
        groups: dict[str, list[str]] = {}
        for k in distinct:
            groups.setdefault(_alike(label[k]), []).append(k)
        grew = False
        for alike in groups.values():
            for k in alike if len(alike) > 1 else ():
                more = cut_path(shown[k], front[k] + 1, room(k), tail) if label[k] != shown[k] else None
                if more is not None:
                    front[k], label[k], grew = front[k] + 1, more, True
        if not grew:
            return {p: label[k] for p, k in keys.items()}
