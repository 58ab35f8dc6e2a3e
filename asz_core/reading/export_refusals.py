"""How an md or html copy says a tool call the person refused (render 15; trial 38a F4): ``refused``, as the text form,
``asz conversation`` and ``asz usage tools`` say it, no longer ``failed`` (:func:`tool_mark`); and, against a root
retention pruned, where such a call is not checkable (:func:`refusals_gone`)."""

from __future__ import annotations

import re

from .export_render import drawn

__all__ = ["REFUSED_RENDER", "refusals_gone", "tool_mark"]

#: The render from which a tool call the person refused is said ``refused``, not ``failed`` (:func:`tool_mark`).
REFUSED_RENDER = 15


def tool_mark(st: dict) -> str:
    """What a tool call's heading says of how it ended (md ``**Tool Bash** (refused)``, html ``<span
    class="refused">refused</span>``, the brief form's ``· refused``): ``refused`` when the person refused it (its
    step's ``refused``; from render 15, :data:`REFUSED_RENDER`, as the text form, ``asz conversation`` and ``asz usage
    tools`` say it; render 14 and before said ``failed``), ``failed`` when its result is flagged failed, else ''."""
    if st.get("refused") and drawn() >= REFUSED_RENDER:
        return "refused"
    return "failed" if st.get("failed") else ""


#: A tool call's heading that says how it ended (render 15: ``refused`` or ``failed``, :func:`tool_mark`),
#: with its id: md ``**Tool Bash** (refused) · TS · `tool/…```, html ``<details class="step tool" id="tool/…"><summary>Tool
#: <b>Bash</b> <span class="refused">refused</span>``.
_TOOL_MARK = (re.compile(rb"^(\*\*Tool [^\n]*?\*\* )\((failed|refused)\)( \xc2\xb7 [^\n]*`([^`\n]+)`)$", re.M),
              re.compile(rb'(<details class="step tool" id="([^"]+)"><summary>Tool <b>[^<\n]*</b> )'
                         rb'<span class="(failed|refused)">(?:failed|refused)</span>'))


def refusals_gone(copy: bytes, again: bytes) -> tuple[bytes, set[int]]:
    """``again`` (an md or html copy made again from a pruned root) with each tool call the copy says ``refused`` and
    the root ``failed`` said ``refused``, and the copy's lines (from 1) of those calls: a refusal is read from its
    result's text (:func:`~asz_core.view.tool_tallies.refused`), which retention took, so the pruned root says the
    call failed; that line is not checkable, never a changed text (render 15). Every other byte is left as it was."""
    md, html = _TOOL_MARK
    said = {m.group(4): copy.count(b"\n", 0, m.start()) + 1 for m in md.finditer(copy) if m.group(2) == b"refused"}
    said |= {m.group(2): copy.count(b"\n", 0, m.start()) + 1 for m in html.finditer(copy) if m.group(3) == b"refused"}
    lines: set[int] = set()
    if not said:
        return again, lines

    def md_laid(m: re.Match) -> bytes:
        if m.group(2) == b"failed" and m.group(4) in said:
            lines.add(said[m.group(4)])
            return m.group(1) + b"(refused)" + m.group(3)
        return m.group(0)

    def html_laid(m: re.Match) -> bytes:
        if m.group(3) == b"failed" and m.group(2) in said:
            lines.add(said[m.group(2)])
            return m.group(1) + b'<span class="refused">refused</span>'
        return m.group(0)

    return html.sub(html_laid, md.sub(md_laid, again)), lines
