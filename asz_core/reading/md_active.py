"""What a Markdown export's texts hold that a Markdown viewer would run or fetch, said at the file's top (trial 34c
F10: a hostile transcript's ``<script>``, ``<iframe>``, ``[x](javascript:…)`` and ``![](http://tracker)`` are written
as the transcript holds them, and a previewer that renders raw HTML or loads remote images runs the script or the
pixel; nothing in the .md file told its reader).

Code is not counted: a fenced block or an inline code span is shown as code by every viewer (:func:`rendered_text`).
The texts stay as written (the export is the evidence, and ``asz verify --export`` holds it to the landed texts);
the file says, once, under its title, how many such places it holds and of which kinds
(:func:`warned`), and points to the html export, which draws them inert (no script, a CSP, raw HTML escaped).
"""

from __future__ import annotations

import re

__all__ = ["ACTIVE", "WARNING_HEAD", "active_places", "rendered_text", "warned"]

#: Each kind of place a Markdown viewer may run or fetch, and how it is found: a raw HTML element that runs, embeds,
#: fetches or posts (``<script``, ``<iframe``, ``<img``, ``<svg``, ``<object``, ``<embed``, ``<form``, ``<a``, …), a link
#: or reference definition to a ``javascript:``, ``vbscript:``, ``data:`` or ``file:`` URI, an image from elsewhere.
ACTIVE = (
    ("raw HTML", re.compile(r"<\s*(?:script|iframe|frame|img|svg|object|embed|form|a|style|link|meta|base|video|audio"
                            r"|math|input|button)\b", re.I)),
    ("script or data link", re.compile(r"\]\(\s*<?\s*(?:javascript|vbscript|data|file):|^ {0,3}\[[^\]\n]+\]:\s*<?\s*"
                                       r"(?:javascript|vbscript|data|file):", re.I | re.M)),
    ("remote image", re.compile(r"!\[[^\]\n]*\]\(\s*<?\s*(?:https?:)?//", re.I)),
)
#: How the warning line begins (render 4 added it; :mod:`~asz_core.reading.export_render` takes it off again).
WARNING_HEAD = "- **warning: active content:** "


#: A fence's opening or closing line (CommonMark: up to 3 spaces, then 3 or more backticks or tildes).
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
#: An inline code span (its backticks, then anything up to the same run).
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1)[^\n])+?\1")


def rendered_text(md: str) -> str:
    """``md`` without what a viewer shows as code, never as HTML or a link: fenced blocks (the tool inputs and results
    an export fences, a reply's own code) and inline code spans. str in, str out."""
    out, fence = [], ""
    for line in md.split("\n"):
        m = _FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip().strip(fence[0]):
                fence = ""
            continue
        if m:
            fence = m.group(1)
            continue
        out.append(_CODE_SPAN.sub("", line))
    return "\n".join(out)


def active_places(md: str) -> dict[str, int]:
    """How many places of each :data:`ACTIVE` kind ``md`` holds outside code (:func:`rendered_text`: a fenced tool
    input's ``<form`` is shown as code by every viewer), kinds with none left out, in :data:`ACTIVE`'s order."""
    text = rendered_text(md)
    got = {kind: len(pattern.findall(text)) for kind, pattern in ACTIVE}
    return {k: n for k, n in got.items() if n}


def warned(md: str) -> str:
    """``md`` (a whole Markdown export: ``# title``, a blank line, the head's lines) with, when its texts hold any
    :func:`active_places`, one line after the title's blank line: ``- **warning: active content:** this file's texts
    hold raw HTML 3, script or data link 2, remote image 1, written as the transcript holds them: a viewer that
    renders raw HTML or loads remote images runs or fetches them; read it as text, or export it as html (no script,
    nothing fetched)``; else ``md`` as it is. str in, str out."""
    places = active_places(md)
    if not places:
        return md
    title, sep, rest = md.partition("\n\n")
    said = ", ".join(f"{k} {n:,}" for k, n in places.items())
    line = (f"{WARNING_HEAD}this file's texts hold {said}, written as the transcript holds them: a viewer that renders "
            "raw HTML or loads remote images runs or fetches them; read it as text, or export it as html (no script, "
            "nothing fetched)")
    return f"{title}{sep}{line}\n{rest}" if sep else f"{md}{line}\n"
