"""One talk of a conversation as the Markdown export draws it (:func:`talk_markdown`), split from
:mod:`asz_core.reading.export`, whose ``to_markdown`` draws every talk so; ``asz conversation ID --step STEP`` draws the
one talk holding a step so, with that step marked (:data:`MARK`; docs/reading.md, Reading a hit in its talk).
"""

from __future__ import annotations

from .export_blocks import fence, markdown_blocks, said_md, tool_markdown
from .export_calls import RECORD_DATA, calls_md, one_line_notice, record_folded
from .export_refusals import tool_mark
from .export_steps import media_line
from .head_said import when_slot
from .termtext import md_line, md_visible

__all__ = ["MARK", "talk_markdown"]

#: What begins the head line (who, when, id) of the step ``--step`` names, so that it is found at a glance and by
#: ``grep -n '^▶ '``: a head line of asz's own begins ``**`` or ``*``, so only a text whose own line begins so shares it.
MARK = "▶ "


def talk_markdown(t: dict, heading: str, prices=None, mark: str = "") -> list[str]:
    """The md lines of one talk of :func:`~asz_core.reading.export_steps.steps` (``t``: ``{"talk", "heading", "steps",
    "prompt"}``) under ``## heading``: its start and id, what a sub-agent was asked, then each step (each model call's
    tokens and cost, priced by ``prices``, at its step), as the md export writes them. The head line of the step, the
    prompt or the model call whose id is ``mark`` begins with :data:`MARK` ('' marks none)."""
    from .export import same_as, sidechain_talk_said, step_when, talk_start, when_text

    def marked(line: str, sid: str) -> str:
        return MARK + line if mark and sid == mark else line

    talk, lines = t["talk"], ["", f"## {heading}"]  # loose nodes of a stream with no talk: their label alone
    if talk is not None:
        lines += ["", f"*{when_text(talk_start(talk))}* · `{talk['id']}`{sidechain_talk_said(talk)}{t.get('replay_said', '')}"]
    if t["prompt"]:  # what a sub-agent was asked (trial 16b, F15)
        st = t["prompt"]
        lines += ["", marked(f"**{md_visible(st['who'])}**{when_slot(st, md_visible)} · `{st['id']}`", st["id"]), "",
                  said_md(st["text"])]
    for st in t["steps"]:
        # each model call's tokens (trial 41c F4), a line ending in its id's code span, and a blank line
        lines += [""] + [MARK + x if mark and x.endswith(f"`{md_line(mark)}`") else x for x in calls_md(st, prices)]
        if st["kind"] in ("tool", "agent.call"):
            refused = f" ({said})" if (said := tool_mark(st)) else ""  # refused: render 15
            when = f" · {md_visible(step_when(st))}" if step_when(st) else ""  # the call's time (trial 30a F3)
            lines.append(marked(f"**Tool {md_line(st.get('name') or '?')}**{refused}{when} · `{md_line(st['id'])}`", st["id"]))
            lines += tool_markdown(st)
            lines += [x for m in st.get("media") or () for x in ("", media_line(m))]
            continue
        lines.append(marked(f"**{md_visible(st['who'])}**{when_slot(st, md_visible)} · `{st['id']}`", st["id"]))
        lines.append("")
        if folded := record_folded(st):  # its record's JSON, one line (trial 41c F8)
            lines.append(folded)
            continue
        if folds := one_line_notice(st):  # a runtime's notice reads as one line, its record's JSON folded (36b F4)
            lines.append(md_line(st["text"].strip()))  # its own line, unfenced (a pruned one: the removed marker)
            lines += ["", folds] if st.get("record_data") else []
            continue
        if st["withheld"]:
            lines.append(f"*(withheld: {st['withheld']} bytes)*")
        elif st.get("same_as"):
            lines.append(f"*{same_as(st, lambda sid: f'`{sid}`')}*")
        elif st.get("blocks"):
            lines += markdown_blocks(st["blocks"])
        elif not st["text"] or st.get("line"):
            lines.pop()  # a step with only media (its placeholders below), or a boundary its label says in words
        elif st["kind"] in ("message.external", "message.assistant", "agent.output", "epoch.summary") or st.get("asked"):
            lines.append(said_md(st["text"]))
        else:
            lines.append(fence(md_visible(st["text"])))
        lines += [x for m in st.get("media") or () for x in ("", media_line(m))]  # trial 16b, F2
        lines += ["", f"*{RECORD_DATA}*", "", fence(md_visible(st["record_data"]), "json")] if st.get("record_data") else []
    return lines
