"""``asz export --format md --brief``: a conversation as short Markdown to hand a model or a colleague (trial 21).

The full Markdown (:func:`~asz_core.reading.export.to_markdown`) draws every step whole: a two-hour Claude Code
conversation is ~280 KB, most of it tool results and context the runtime injected. The brief form keeps what was
said and what was done, and counts what it leaves out:

- the person's words (a prompt, a talk's prompt: what a subagent was asked) and the agent's replies, whole, as the
  full form draws them (Markdown stays Markdown, headings moved down, a code fence a text leaves open closed after it:
  :func:`~asz_core.reading.export_blocks.said_md`);
  a command the person typed as typed, in code; its output left out;
- each tool call as one line: its name, what it acts on (:func:`~asz_core.reading.export_blocks.tool_gist`, the
  audit prose's and the HTML line's rule: :func:`~asz_core.view.placing.call_summary`), ``failed`` when its result is
  flagged so (``refused`` when the person refused it: render 15), and the size of the result it leaves out (a subagent's report names the talk that draws it);
- a compaction's boundary, a runtime notice, an interrupt or an API error as its one-line label (the adapter's short
  form, as the full form heads them); the record itself left out;
- left out and counted, in bytes of UTF-8: tool results, tool inputs beyond their line, injected context (hooks,
  skills, system reminders), a compaction's summary, runtime records, command output, a record's other data; each
  talk ends with a line of what it left out, and the header says it for the whole conversation
  (:func:`left_out_line`). Thinking is left out unless ``--thinking`` (then drawn whole).

Nothing is added that the full form does not say: every line is a text of the records, a label the full form draws,
or a count of bytes it leaves out. Ids are left out (``asz export ID --format md`` has them).
"""

from __future__ import annotations

import os

from ..view.zone import local_text
from .export import doc_dialect, markdown_head, talk_start
from .export_blocks import GIST_CHARS, inline_code, nested, said_md, tool_gist
from .export_refusals import tool_mark
from .export_steps import media_line, steps
from .termtext import md_line, md_visible

__all__ = ["KINDS", "SEALED_RENDER", "SIZES_RENDER", "LANDED_SIZES_RENDER", "left_out_line", "to_brief"]

#: What the brief form leaves out, in the order its lines name them.
KINDS = ("tool results", "tool inputs", "injected context texts", "compaction summaries", "runtime records",
         "command output", "record data")
#: The step kinds drawn as their label alone (their record left out, counted as a runtime record).
_LABELLED = frozenset({"epoch.boundary", "control.notice", "runtime.notification", "error.api", "control.interrupt",
                       "control.permission", "control.command", "message.synthetic"})


#: The render from which a result retention took is said by its original size (:func:`_result_size`).
SIZES_RENDER = 43
#: The render from which every result is said by the size its landed part has, which a skeleton keeps
#: (:func:`_result_size`; fix48l, fix49b).
LANDED_SIZES_RENDER = 48


#: The render from which the brief form draws a person's or the agent's text as the full md does, a code fence it
#: leaves open closed after it (:func:`_said`; trial 49b F1).
SEALED_RENDER = 46


def _said(text: str) -> str:
    """A person's or the agent's text as the brief form draws it: as the full md draws it
    (:func:`~asz_core.reading.export_blocks.said_md`: headings moved down, a code fence it leaves open closed), from
    render 46 (:data:`SEALED_RENDER`; trial 49b F1: a reply cut short inside ```` ```python ```` turned the rest of the
    copy, its later talks too, into one code block in a CommonMark reader); before it, its headings moved down only."""
    from .export_render import drawn

    return said_md(text) if drawn() >= SEALED_RENDER else nested(md_visible(text))


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


class LeftOut(dict):
    """``kind -> [texts, bytes]`` of what the brief form left out (:data:`KINDS`)."""

    def add(self, kind: str, text: str | int) -> None:
        n = text if isinstance(text, int) else _size(text)
        if n:
            got = self.setdefault(kind, [0, 0])
            got[0], got[1] = got[0] + 1, got[1] + n

    def merge(self, other: "LeftOut") -> None:
        for kind, (n, b) in other.items():
            got = self.setdefault(kind, [0, 0])
            got[0], got[1] = got[0] + n, got[1] + b


def left_out_line(left: dict) -> str:
    """``12 tool results (45,678 bytes), 3 injected context texts (2,345 bytes)`` in :data:`KINDS`' order; '' for none."""
    return ", ".join(f"{left[k][0]:,} {k} ({left[k][1]:,} bytes)" for k in KINDS if k in left)


def _gist(st: dict, dialect: str, mask) -> str:
    """A tool step's gist (:func:`~.export_blocks.tool_gist`), its input's credentials masked before it is cut with
    ``mask`` masking (trial 25b F2), else cut as it is; those it shows counted in ``mask.gone``, a key the cut goes
    through once, by its whole value (small26: a piece of it counted as another)."""
    from ..view.placing import folded_at, one_line
    from ..view.secret_forms import masked_cut

    shown, written, _ = masked_cut(tool_gist(st, dialect, 1 << 62), lambda text: one_line(text, GIST_CHARS)[0],
                                   mask.mask, folded_at)
    mask.gone += written
    return shown


def _result_size(st: dict) -> int:
    """A tool result's size in bytes. From render 48 (:data:`LANDED_SIZES_RENDER`) the size of its landed part, the
    document's ``result_bytes``, whatever its state: the one figure a copy made before ``asz prune`` and the root after
    it both give (a skeleton keeps it), so ``asz verify --export`` holds it to the root, and a result too large to land
    or made smaller is said by its own size, not its marker's (fix49b: render 47 said the drawn text's, 107 bytes for
    an 86-byte runtime's structured result drawn as key: value lines, and a marker's 60 for a 3 MB result). Render 43
    to 47: the original's the skeleton keeps (``result_bytes``) when retention took its text (fix48l: render 42 and
    before said the marker's, 33 bytes for a 103-byte result, :data:`SIZES_RENDER`), else the drawn text's."""
    from .export_render import drawn

    n = st.get("result_bytes")
    kept = isinstance(n, int) and not isinstance(n, bool)
    if kept and (drawn() >= LANDED_SIZES_RENDER or st.get("result_state") == "removed" and drawn() >= SIZES_RENDER):
        return n
    return _size(st["result"])


def _tool_line(st: dict, dialect: str, left: LeftOut, mask) -> str:
    """One tool call's line: ``- Tool **Bash** `ls -la` · failed · result 1,234 bytes left out``."""
    gist = _gist(st, dialect, mask)
    left.add("tool inputs", max(_size(st.get("input") or "") - _size(gist), 0))
    bits = [f"- Tool **{md_visible(st.get('name') or '?')}**" + (f" {inline_code(md_visible(gist))}" if gist else "")]
    if said := tool_mark(st):  # refused or failed (render 15)
        bits.append(said)
    if st.get("withheld"):
        bits.append(f"input withheld ({st['withheld']:,} bytes)")
    if st.get("report"):  # the subagent's report: its talk draws it
        bits.append(f"its report: the same text as its last message, in Talk {st['report']['talk']}")
        left.add("tool results", st["report"].get("rest") or "")
    elif st.get("result_withheld"):
        bits.append(f"result withheld ({st['result_withheld']:,} bytes)")
    elif st.get("result") and (n := _result_size(st)):  # a result of no bytes retention took: none, as before it
        bits.append(f"result {n:,} bytes left out")
        left.add("tool results", n)
    else:
        bits.append("no result")
    return " · ".join(bits)


def _blocks(blocks: list[tuple[str, str]], left: LeftOut, m) -> list[str]:
    """A person's or injected text read in blocks: its prose and the commands as typed (each masked by ``m``);
    output left out."""
    out: list[str] = []
    for kind, text in blocks:
        if kind == "text" and md_visible(text).strip():
            out += ["", _said(m(text))]
        elif kind == "command":
            out += ["", inline_code(md_visible(m(text)))]
        elif kind != "text":
            left.add("command output", text)
    return out


def _step(st: dict, when: str, left: LeftOut, m) -> list[str]:
    """The lines of one step that is not a tool call ([] when the brief form leaves it out, counted in ``left``);
    ``when`` is `` · HH:MM:SS`` or '' for a step with no time; each text placed masked by ``m`` first."""
    kind = st["kind"]
    if st.get("record_data"):
        left.add("record data", st["record_data"])
    if st["withheld"]:
        return ["", f"**{md_visible(st['who'])}**{when}", "", f"*(withheld: {st['withheld']:,} bytes)*"]
    if st.get("same_as"):  # the subagent's last message, drawn above
        return []
    person = kind == "message.external" or st.get("asked")
    if kind in _LABELLED:
        left.add("runtime records", st["text"])
        return ["", f"*{md_visible(st['who'])}*{when}"]
    if kind == "epoch.summary":
        left.add("compaction summaries", st["text"])
        return []
    if kind == "context.injection" and not person:
        left.add("injected context texts", st["text"])
        return []
    head = ["", f"**{md_visible(st['who'])}**{when}"]
    if st.get("blocks"):
        body = _blocks(st["blocks"], left, m)
        return head + body if body else []
    return head + (["", _said(m(st["text"]))] if st["text"].strip() else [])


def _talk(i: int, t: dict, dialect: str, total: LeftOut, mask) -> list[str]:
    """The lines of one talk: its heading, its prompt, its steps, and what it left out; each text placed masked
    first (``mask``: :class:`~asz_core.view.secret_forms.Masker`)."""
    talk, left = t["talk"], LeftOut()
    if talk is None:
        lines = ["", f"## {md_line(t['heading'])}"]
    else:
        start = talk_start(talk)
        lines = ["", f"## Talk {i}: {md_line(t['heading'])}"] + (["", f"*{local_text(start, '%Y-%m-%d %H:%M:%S')}*"] if start else [])
    if t["prompt"]:
        st = t["prompt"]
        lines += ["", f"**{md_visible(st['who'])}**", "", _said(mask.text(st["text"]))]
    tools = False
    for st in t["steps"]:
        when = f" · {local_text(st['at'], '%H:%M:%S')}" if st["at"] else (f" · {st['untimed']}" if st.get("untimed") else "")
        if st["kind"] in ("tool", "agent.call"):
            lines += ([] if tools else [""]) + [_tool_line(st, dialect, left, mask)]
            tools = True
        else:
            got = _step(st, when, left, mask.text)
            lines += got
            tools = tools and not got
        lines += [x for m in st.get("media") or () for x in ("", media_line(m))]
        tools = tools and not st.get("media")
    if left:
        lines += ["", f"*Left out of this talk: {left_out_line(left)}.*"]
    total.merge(left)
    return lines


def to_brief(root: str | os.PathLike, doc: dict, *, thinking: bool = False, mask=None) -> str:
    """The conversation in the brief form (module docstring): the header of the full Markdown, a line of what the
    form leaves out over the whole conversation, then each talk; each text it places masked first by ``mask`` (a
    :class:`~asz_core.view.secret_forms.Masker`: ``--redact``; counted only when it does not mask), the texts it
    leaves out neither masked nor counted (their sizes are the records')."""
    from ..view.secret_forms import Masker

    dialect, total, body, mask = doc_dialect(root, doc), LeftOut(), [], mask or Masker(False)
    for i, t in enumerate(steps(root, doc, thinking=thinking, dialect=dialect), 1):
        body += _talk(i, t, dialect, total, mask)
    said = left_out_line(total)
    head = markdown_head(root, doc) + [
        "- brief form: the person's words and the agent's replies whole, each tool call on one line"
        + ("" if thinking else ", thinking left out (--thinking adds it)")
        + (f"; left out: {said}" if said else "; nothing else left out")
        + " (`asz export ID --format md` draws everything)"]
    from .md_active import warned

    return warned("\n".join(head + body) + "\n")  # raw HTML, script links, remote images said at the top (34c F10)
