"""A brief md copy (``asz export ID --format md --brief``) made before ``asz prune``, laid line by line over the copy
made again from the pruned root (fix48l, fix48a's finding: such a copy said 11 problems, from a ``## Talk 4:
Subagent`` line on, where every other form's copy checks). Besides what :func:`~.export_retention.removed_blocks`
lays for the full md, the brief form draws lines read from texts retention takes:

- the left-out figures of the header and of each talk (``left out: 89 tool results (147,379 bytes), 90 tool inputs
  …``, ``*Left out of this talk: …*``): the inputs' sizes beyond their line and whether a result is a subagent's
  report are read from the texts (a skeleton keeps a result's size, and render 43 says it: ``export_brief``);
- a tool call's ``its report: the same text as its last message, in Talk 4``, which the pruned root says
  ``result N bytes left out`` (the report is known by comparing the two texts, both gone), and the size of a result
  of a call whose input went (render 42 and before said the marker's size; a result whose parts went one by one);
- a step drawn as its label, the label's words read from its text (``*Command (/model)*``, a notice's label);
- a step of blank text, which the copy's reader drew nothing for (the pruned root: its heading and a marker);
- a talk's "Asked" prompt, which the pruned root cannot draw, and a talk's heading read from it.

Each of the root's lines is found in the copy's run in order: the same line, a talk heading or a left-out line with
the same words before what was read from the text, a report line for a result line, or a line whose markers the copy's
is laid over (:func:`~.export_retention.retention_spans`); the copy holds more only after a marker (the rest of a
text retention took) or from an "Asked" heading on (its prompt), and never one of the form's own lines there
(:data:`_OWN`: a tool call's line, a step's or talk's heading), so a kept value changed (a tool's name, a result's
size the skeleton keeps) is still a problem. From render 48 a brief copy says each result by its landed part's size,
the one the skeleton keeps (:data:`~.export_brief.LANDED_SIZES_RENDER`), so a result line beside a call whose input
went is held to the root's figure (fix49b: a hand-changed ``result 309 bytes left out`` checked); a copy of render 47
or before said the drawn text's size, which a skeleton cannot tell (a structured result drawn as ``key: value``
lines), and is laid over as before."""

from __future__ import annotations

import re
from functools import partial
from typing import Callable

from ..view.step_words import NOTICE_LABELS
from .export_retention import MARKER, REMOVED_MARK, TALK_HEADING, blank_marker, retention_spans, said_gone

__all__ = ["brief_laid", "laid"]

#: A left-out line of the header (``…; left out: 89 tool results …``) or a talk's (``*Left out of this talk: …*``).
_LEFT = re.compile(rb"(.*?[Ll]eft out(?: of this talk)?: )(.*)")
_NONE = re.compile(rb"(- Tool .*) \xc2\xb7 no result")
#: A talk's left-out line, which the pruned root may not draw (all it left out was a text that went, now drawn).
_TALK_LEFT = re.compile(rb"\*Left out of this talk: .*\*")
#: A tool call's line ending in its report (the copy) or its result's size (the pruned root).
_REPORT = re.compile(rb"(- Tool .*) \xc2\xb7 its report: the same text as its last message, in Talk \d+")
_RESULT = re.compile(rb"(- Tool .*) \xc2\xb7 result [0-9,]+ bytes left out")
#: A tool call's line whose input went: the size of its result may be read from its text too (render 42 and before
#: said a marker's size; a result whose parts retention took one by one), so it is not held to the root's.
_SIZED = re.compile(rb"(- Tool .*\[removed by retention: [0-9,]+ bytes\].*) \xc2\xb7 result [0-9,]+ bytes left out")
#: A step drawn as its label (``*Command (/model)* · 21:16:12``): the words in brackets, or a notice's label, are read
#: from its text (the pruned root's ``*Command* · 21:16:12``, ``*Runtime notice* · …``).
_STEP = re.compile(rb"\*([^*]+)\*((?: \xc2\xb7 .*)?)")
_NOTICES = frozenset(x.encode() for x in NOTICE_LABELS.values())
#: A step's heading (``**Assistant** · 21:11:59``).
_HEAD = re.compile(rb"\*\*[^*]+\*\*(?: \xc2\xb7 .*)?")
#: The form's own lines, never the rest of a text retention took: a tool call's, a step's heading with its time, a
#: talk's heading, a left-out line.
_OWN = re.compile(rb"- Tool \*\*|\*\*?[^*]+\*\*? \xc2\xb7 |## |\*Left out of this talk: ")
#: A talk's prompt heading: the lines after it, to the next the root holds, are the prompt the root cannot draw.
#: (``**Context** · TS`` once :func:`~.export_retention._label` took the words in brackets of one with a time).
_ASKED = re.compile(rb"\*\*(?:Asked \(the prompt this talk was given\)|Context)\*\*(?: \xc2\xb7 .*)?")


def _same(x: bytes, y: bytes, sized: bool = False) -> bool:
    """Whether the copy's line ``y`` stands for the root's line ``x`` (see the module's words); ``sized``: the copy
    says its results' landed sizes (render 48 on), so a result line is held to the root's figure."""
    if x == y:
        return True
    for rx, ry in ((TALK_HEADING, TALK_HEADING), (_LEFT, _LEFT), (_RESULT, _REPORT), (_SIZED, _RESULT), (_SIZED, _NONE)):
        h, g = rx.fullmatch(x), ry.fullmatch(y)
        if h and g:
            if sized and ry in (_RESULT, _NONE) and x[x.rindex(b" \xc2\xb7 "):] != y[y.rindex(b" \xc2\xb7 "):]:
                return False  # the result's size, which the skeleton keeps, is not the root's
            return h.group(1) == g.group(1) or (MARKER.search(h.group(1)) is not None
                                                and retention_spans(g.group(1), h.group(1)) is not None)
    h, g = _STEP.fullmatch(x), _STEP.fullmatch(y)
    if h and g and h.group(2) == g.group(2):
        return g.group(1).startswith(h.group(1) + b" (") or (h.group(1) == b"Runtime notice" and g.group(1) in _NOTICES)
    return MARKER.search(x) is not None and retention_spans(y, x) is not None


def _blank_head(root: list[bytes], i: int) -> bool:
    """Whether the root's line ``i`` heads a step whose only text is a marker of a blank text (at most
    :data:`~.export_retention.BLANK_MAX` bytes), which the copy's reader drew nothing for (``**Assistant** · TS``)."""
    return _HEAD.fullmatch(root[i]) is not None and root[i + 1:i + 2] == [b""] and i + 2 < len(root) and blank_marker(root[i + 2])


def brief_laid(render: int) -> Callable[[list[bytes], list[bytes]], bool]:
    """:func:`laid` for a brief copy of render ``render`` (its results' sizes held to the root's from render 48)."""
    from .export_brief import LANDED_SIZES_RENDER

    return partial(laid, sized=render >= LANDED_SIZES_RENDER)


def laid(root: list[bytes], mine: list[bytes], sized: bool = False) -> bool:
    """Whether the copy's run of lines ``mine`` differs from the root's ``root`` only where retention took a text
    (the module's words): each state is (root line, copy line, whether the copy may hold more here); ``sized`` as
    :func:`_same` takes it."""
    todo, seen = [(0, 0, False)], set()
    while todo:
        i, j, more = state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        if i == len(root) and (j == len(mine) or more):
            return True
        if i < len(root) and j < len(mine) and _same(root[i], mine[j], sized):
            todo.append((i + 1, j + 1, MARKER.search(root[i]) is not None))
        if j < len(mine) and (_ASKED.fullmatch(mine[j]) or more and not _OWN.match(mine[j]) or _TALK_LEFT.fullmatch(mine[j])):
            todo.append((i, j + 1, True))
        if i < len(root) and (said_gone(root[i]) and not _OWN.match(root[i]) or _blank_head(root, i)):
            todo.append((i + 1, j, more or REMOVED_MARK.encode() in root[i]))
    return False
