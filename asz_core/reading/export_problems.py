"""The problem boxes of a copy's conversation heads that appeared or went since the copy was made (trial 45b F1).

A conversation's ``summary.problems`` is not all landed text: a torn tail (:mod:`~asz_core.storage.torn`) is said
once its source's unfinished last line has not changed for 10 minutes, judged by the collect pass that finds it so,
which writes it in the append cursor, not in a landed file or a round; a receiving root short of its records, or
files from two credentials, are said from the root's state likewise. So an honest copy made while such a line was a
write in progress, checked once it aged, would read as a copy missing landed text. ``asz verify --export --root``
holds every other line of the copy to the landed text byte for byte and says each box line that differs as what it
is: a problem the conversation gained, or one that went, since the copy was made (docs/verify.md, "A masked export").

The boxes (:func:`~asz_core.reading.export.markdown_head`, ``_html_head``): in md, a head line ``- **STATE:** P`` or
``- **problem:** P``; in html, one ``<div class="failed"><b>…</b><ul><li>P</li>…</ul></div>`` line per box. Each is
looked for only in the head that follows the conversation's id line, up to its first talk, so no text of a step is
read as a box.
"""

from __future__ import annotations

import html
import re
from typing import Optional

__all__ = ["problems_then"]

#: The conversation's id line of a head, by format (its id follows).
_ID = {"md": re.compile(r"^- conversation: `([^`]+)`$"),
       "html": re.compile(r'^<p class="meta">conversation <span class="id">([^<]+)</span>')}
#: A problem box line of a head, by format.
_BOX = {"md": re.compile(r"^- \*\*[a-z_ ]+:\*\* (.*)$"), "html": re.compile(r'^<div class="failed"><b>[^<]*</b><ul>(.*)</ul></div>$')}
#: Where a head ends: its first talk (or the list of talks, or a step outside any talk).
_END = {"md": ("## ", "# "), "html": ("<h2", "<nav", "<div class=\"step", "<h1")}


def _boxes(lines: list[bytes], fmt: str) -> dict[str, tuple[int, list[tuple[int, list[str]]]]]:
    """Per conversation id, ``(its id line's index, [(line index, its problems)] of each box line of its head)``."""
    out: dict[str, tuple[int, list[tuple[int, list[str]]]]] = {}
    cid: Optional[str] = None
    for i, raw in enumerate(lines):
        line = raw.decode("utf-8", "surrogateescape")
        if m := _ID[fmt].match(line):
            cid = m.group(1)
            out[cid] = (i, [])
        elif cid is not None and line.startswith(_END[fmt]):
            cid = None
        elif cid is not None and (m := _BOX[fmt].match(line)):
            items = [m.group(1)] if fmt == "md" else [html.unescape(x) for x in re.findall(r"<li>(.*?)</li>", m.group(1))]
            out[cid][1].append((i, items))
    return out


def problems_then(copy: bytes, again: bytes, fmt: Optional[str]) -> tuple[bytes, list[str]]:
    """``(again with each conversation head's box lines the copy's, the lines saying what differs)`` for an md or html
    copy (else ``(again, [])``): where a conversation's boxes in ``again`` (made again from the root now) are not the
    copy's, ``again`` takes the copy's box lines at the copy's places after its id line, the rest of it kept, and each
    problem is said: ``ID: the conversation gained a problem since the copy was made: P`` or ``ID: a problem the copy
    says went since it was made: P``. Every other line is left to the byte-for-byte check, which names it."""
    if fmt not in _ID:
        return again, []
    mine, out = copy.split(b"\n"), again.split(b"\n")
    was, said = _boxes(mine, fmt), []
    for cid, (at, boxes) in sorted(_boxes(out, fmt).items(), key=lambda kv: -kv[1][0]):  # the last head first
        held = was.get(cid)
        if held is None or [x for _, x in held[1]] == [x for _, x in boxes]:
            continue
        old, new = [p for _, x in held[1] for p in x], [p for _, x in boxes for p in x]
        said += [f"{cid}: the conversation gained a problem since the copy was made: {p}" for p in new if p not in old]
        said += [f"{cid}: a problem the copy says went since it was made: {p}" for p in old if p not in new]
        for i, _ in reversed(boxes):
            del out[i]
        for i, _ in held[1]:
            out.insert(at + i - held[0], mine[i])
    return b"\n".join(out), said
