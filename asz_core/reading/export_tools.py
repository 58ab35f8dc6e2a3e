"""A todo list, an edit and a file written as ``asz export``'s md and html draw them (render 20; trial 43c F4, F7):
the readings of :mod:`~asz_core.view.tool_drawn`, the page's too (docs/reading.md, "Tool inputs").

- md: a todo list as a task list, ``- [x] content``, ``- [ ] content *(in progress; shown as: Running the tests)*``
  (``[ ]`` and words for a status other than completed), each todo's other keys after it; an edit as a fenced
  ``diff`` block (``--- PATH``/``+++ PATH``, then the lines), a MultiEdit edit's note in italics before its block; a
  file written as its content fenced with its language. The facts (every other key) as a list before them, as the
  fields are.
- html: a todo list as ``<ul class="todos">`` of ``<li class="todo STATUS">`` (``☑`` done, ``◐`` under way, ``☐`` not
  begun, ``?`` another status, its word said), an edit as ``<pre class="diff">`` whose each line is a ``<span>`` of
  class ``add``, ``del``, ``hunk``, ``head`` or ``ctx``, a file written as ``<pre class="write"><code
  class="language-LANG">``. Every text is escaped by the caller's ``e``; a long block scrolls as every ``<pre>`` of
  the copy does (``max-height:30em``).
"""

from __future__ import annotations

from typing import Callable

from ..view.placing import PAIRS
from .export_render import GISTS_RENDER, PAIRS_RENDER, drawn
from .termtext import md_line, md_visible

__all__ = ["HTML_MARKS", "STATUS_WORDS", "drawn_html", "drawn_markdown", "drawn_pairs", "gist_pairs", "todo_said"]

#: What a todo's status reads as, in words, where the mark alone does not say it.
STATUS_WORDS = {"in_progress": "in progress", "pending": "pending", "completed": "completed"}
#: The html marks of a todo's status (:data:`~asz_core.view.tool_drawn.TODO_STATES`' ``x``, ``~``, `` ``, ``?``).
HTML_MARKS = {"x": "\u2611", "~": "\u25d0", " ": "\u2610", "?": "?"}


def drawn_pairs() -> tuple[tuple[str, str], ...]:
    """The text pairs an edit's input is read by (:func:`~asz_core.view.tool_drawn.edit_diff`) in the copy being drawn
    (:func:`~.export_render.drawn`): every pair of :data:`~asz_core.view.placing.PAIRS` (Kiro's too) from render 22,
    ``old_string``/``new_string`` only before."""
    return PAIRS if drawn() >= PAIRS_RENDER else PAIRS[:1]


def gist_pairs() -> tuple[tuple[str, str], ...] | None:
    """The ``pairs`` a folded call's line reads a todo list's or an edit's one line by
    (:func:`~asz_core.view.placing.call_summary`) in the copy being drawn: :func:`drawn_pairs` from render 23, None
    (the input's first field or JSON) before."""
    return drawn_pairs() if drawn() >= GISTS_RENDER else None


def todo_said(t: dict) -> str:
    """What follows a todo's content, in words ('' for none): ``in progress`` for one under way, the status for one
    not listed (``status: blocked``), ``shown as: ACTIVE FORM`` where the active form differs, each other key ``key:
    value``, joined by ``; ``."""
    bits = ["in progress"] if t["status"] == "in_progress" else [] if t["mark"] != "?" else [f"status: {t['status']}"]
    bits += ([f"shown as: {t['active_form']}"] if "active_form" in t else []) + [f"{k}: {v}" for k, v in t["other"]]
    return "; ".join(bits)


def _diff_text(d: dict, edit: dict) -> str:
    return "\n".join(edit["lines"]) if edit["lines"] else f"--- {d['path']}\n+++ {d['path']}\n{edit['same']}"


def drawn_markdown(kind: str, d: dict, fence: Callable[[str, str], str], facts: Callable[[list], list[str]]) -> list[str]:
    """Markdown lines of a drawn input (``kind`` ``todos``, ``diff`` or ``write``, ``d`` its reading), each block after
    a blank line; ``fence(text, lang)`` and ``facts(pairs)`` the export's own (:mod:`~.export_blocks`)."""
    out = facts([tuple(f) for f in d["facts"]])
    if kind == "todos":
        out.append("")
        for t in d["todos"]:
            said = todo_said(t)
            mark = "x" if t["mark"] == "x" else " "
            out.append(f"- [{mark}] {md_line(t['content'])}" + (f" *({md_line(said)})*" if said else ""))
    elif kind == "diff":
        for edit in d["edits"]:
            out += (["", f"*{md_line(edit['note'])}*"] if edit["note"] else []) + ["", fence(md_visible(_diff_text(d, edit)), "diff")]
    else:
        out += ["", fence(md_visible(d["content"]), d["language"])]
    return out


def _line_class(line: str, i: int) -> str:
    if i < 2 and line.startswith(("--- ", "+++ ")):
        return "head"
    return {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "ctx")


def drawn_html(kind: str, d: dict, e: Callable[[str], str], facts: Callable[[list, Callable], str]) -> str:
    """HTML of a drawn input (:func:`drawn_markdown`'s), every text escaped by ``e``; ``facts(pairs, e)`` the export's
    list of facts."""
    out = facts([tuple(f) for f in d["facts"]], e)
    if kind == "todos":
        items = []
        for t in d["todos"]:
            said = todo_said(t)
            items.append(f"<li class=\"todo {e(t['status'])}\"><span class=\"mark\" title=\"{e(t['status'])}\">"
                         f"{HTML_MARKS[t['mark']]}</span> <span class=\"what\">{e(t['content'])}</span>"
                         + (f" <i>({e(said)})</i>" if said else "") + "</li>")
        return out + "<ul class=\"todos\">" + "".join(items) + "</ul>"
    if kind == "diff":
        for edit in d["edits"]:
            lines = _diff_text(d, edit).split("\n")
            out += (f"<p class=\"meta\">{e(edit['note'])}</p>" if edit["note"] else "") + "<pre class=\"diff\">" + "\n".join(
                f"<span class=\"{_line_class(x, i)}\">{e(x)}</span>" for i, x in enumerate(lines)) + "</pre>"
        return out
    lang = f" class=\"language-{e(d['language'])}\"" if d["language"] else ""
    return out + f"<pre class=\"write\"><code{lang}>{e(d['content'])}</code></pre>"
