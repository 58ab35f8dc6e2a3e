"""A command and its output as ``asz export`` draws them (docs/view.md, "Commands and their output").

A typed prompt or injected text holding a runtime's command markup (Claude Code's tags around a slash command typed
locally, a bash-mode command and their output: the adapter's to read, docs/adapters.md) is read in blocks by its
adapter (:func:`~asz_core.view.titles.prompt_blocks`): the command as the person typed it
(``/model sonnet``, ``! ls``) as code, each output as a preformatted block with terminal formatting removed
(:func:`~asz_core.reading.termtext.md_visible`: the other controls written as escapes too), a standard error block
under a ``stderr`` line, an empty output as ``(no output)``, the prose around them as the step's text is drawn. The
asz.view document, ``--format json`` and ``asz show`` keep the text as it landed.

A tool call's input and result (:func:`tool_markdown`, :func:`tool_html`): a shell call's input as its description,
its command as code and its other keys (:func:`~asz_core.view.placing.shell_input`), any other input that is a JSON
object as its fields (:func:`~asz_core.view.placing.input_fields`: its facts listed, path first, then each text pair
and long text as a block under its key), its empty result as ``(no
output)`` and the keys its result object holds (:func:`~asz_core.view.placing.quiet_result`), a subagent's report
given back as one line naming where its talk draws it (:func:`report_line`), and the key of a call's input that holds
its subagent's prompt, drawn at the head of the subagent's talk, as one line naming that talk (:func:`ask_line`), any
other input and result as written.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from ..view.placing import call_summary, input_fields, one_line, quiet_result, shell_input
from ..view.titles import BLOCK_STEPS, prompt_blocks
from ..view.execution_words import again_said, call_named, held_said, one_side_said, outcome_said, transcript_said
from ..view.tool_drawn import drawn_input
from .export_cut import cut_html, cut_markdown
from .export_render import TOOLS_RENDER, drawn
from .export_tools import drawn_html, drawn_markdown, drawn_pairs, gist_pairs
from .termtext import md_literal, md_visible

__all__ = ["BLOCK_STEPS", "NO_OUTPUT", "TEXT_TOP", "again_said", "arguments_said", "call_named", "held_said", "one_side_said", "transcript_said", "ask_line", "execution_head", "execution_line", "fence", "html_blocks", "inline_code", "literal", "said_html", "MARKDOWN_STEPS", "markdown_blocks", "nested", "sealed", "said_md", "no_result_text", "outcome_said", "read_blocks", "report_line",
           "tool_html", "tool_markdown", "tool_pieces"]

#: What stands for an output block with no text.
NO_OUTPUT = "(no output)"


#: The shallowest heading level a person's or the model's text keeps in an export: under the export's own ``#`` title
#: and ``##`` talk headings (:func:`nested`).
TEXT_TOP = 3


_BLOCKS: list = []


def blocks_parser():
    """markdown-it-py (CommonMark and tables) reading a text's blocks only, made once: its inline tokens keep their
    text (``content``) and are not read into spans (no ``children``), which :func:`nested` and :func:`sealed` never
    look at (their headings and fences are blocks). Reading the spans was most of their parse (session 47, trial 47b
    F2)."""
    if not _BLOCKS:
        from markdown_it import MarkdownIt

        _BLOCKS.append(MarkdownIt("commonmark").enable("table").disable("inline"))
    return _BLOCKS[0]


def nested(text: str, top: int = TEXT_TOP) -> str:
    """``text`` (Markdown, as written) with its headings moved down together so that the shallowest is level ``top``
    (``###``): a reply's ``## Summary`` no longer stands beside the export's ``## Talk 3: …`` in the document's
    outline, and its own nesting is kept (``##``/``###`` become ``###``/``####``; none deeper than ``######``). Only
    what CommonMark reads as a heading moves (not a ``#`` in a code block); a setext heading (``Title`` over ``===``)
    becomes the ATX heading of its level, its lines joined by spaces. A text whose headings are at ``top`` or deeper
    is returned unchanged (docs/reading.md, ``asz export``)."""
    if "#" not in text and "=" not in text and "-" not in text:
        return text
    tokens = blocks_parser().parse(text)
    heads = [(t, tokens[i + 1]) for i, t in enumerate(tokens) if t.type == "heading_open" and t.map and i + 1 < len(tokens)]
    shift = top - min((int(t.tag[1]) for t, _ in heads), default=top)
    if shift <= 0:
        return text
    lines = text.split("\n")
    for t, inline in reversed(heads):
        marks = "#" * min(6, int(t.tag[1]) + shift)
        start, end = t.map
        if t.markup.startswith("#"):  # ATX: the first '#' of its line opens it (a container's '>', '-' or '1.' come before)
            line = lines[start]
            at = line.index("#")
            lines[start] = line[:at] + marks + line[at + len(t.markup):]
            continue
        first = inline.content.split("\n", 1)[0]  # setext: its text, then the underline (lines start .. end-1)
        at = max(lines[start].find(first), 0)
        lines[start:end] = [lines[start][:at] + marks + " " + " ".join(inline.content.split("\n"))]
    return "\n".join(lines)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def sealed(text: str) -> str:
    """``text`` (Markdown) with the code fence it leaves open at its end closed (render 16; trial 41c F3): an
    interrupted reply ending inside ```` ```python ```` turned the rest of an md export into one code block in a
    CommonMark reader. A fence CommonMark leaves open at the top level runs to the text's end; a line of the fence's own
    marks (its character, as many) is added after the text, so the text stays as written and what follows it in the
    export is read as the export wrote it. A fence in a block quote or list item ends where its container does (the
    blank line after the text), so only a top-level one is closed. Before render 16, ``text`` unchanged."""
    if ("```" not in text and "~~~" not in text) or drawn() < 16:
        return text
    lines = _LINE_BREAK.split(text)
    for t in blocks_parser().parse(text):
        if t.type != "fence" or t.level or not t.map:
            continue
        start, end = t.map
        mark = t.markup
        last = lines[end - 1].strip(" ") if end - 1 < len(lines) else ""
        if end - start < 2 or not (last.startswith(mark) and set(last) == {mark[0]}) or lines[end - 1].startswith("    "):
            return text + ("" if text.endswith(("\n", "\r")) else "\n") + mark
    return text


def said_md(text: str) -> str:
    """A person's or the model's text as the md export draws it: terminal formatting written as escapes
    (:func:`~asz_core.reading.termtext.md_visible`), its headings nested (:func:`nested`), a code fence it leaves open
    closed (:func:`sealed`)."""
    return sealed(nested(md_visible(text)))


def read_blocks(text: str, dialect: str) -> list[tuple[str, str]] | None:
    """:func:`~asz_core.view.titles.prompt_blocks` of ``text`` for ``dialect``, or None when they are the text as
    written (nothing to draw apart)."""
    blocks = prompt_blocks(text, dialect)
    return None if blocks == [("text", text)] else blocks


#: A run of backticks.
_TICK_RUN = re.compile("`+")


def _ticks(text: str) -> int:
    """The longest run of backticks in ``text`` (found by a pattern: a loop over each character was an eighth of an md
    export's CPU, session 47, trial 47b F2)."""
    return max(map(len, _TICK_RUN.findall(text)), default=0) if "`" in text else 0


def fence(text: str, lang: str = "") -> str:
    """``text`` in a fenced code block whose fence is longer than any run of backticks inside it."""
    ticks = "`" * max(3, _ticks(text) + 1)
    return f"{ticks}{lang}\n{text}\n{ticks}"


def inline_code(text: str) -> str:
    """``text`` as Markdown inline code (a fenced block when it spans lines)."""
    if "\n" in text:
        return fence(text)
    ticks = "`" * (_ticks(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def markdown_blocks(blocks: list[tuple[str, str]]) -> list[str]:
    """Markdown lines of ``blocks`` (module docstring), a blank line between two blocks; terminal formatting removed."""
    lines: list[str] = []
    for kind, text in blocks:
        text = md_visible(text) if kind == "text" else md_visible(text).strip("\r\n")
        if lines:
            lines.append("")
        if kind == "text":
            lines.append(sealed(nested(text)))
        elif kind == "command":
            lines.append(inline_code(text))
        else:
            lines += (["*stderr*", ""] if kind == "stderr" else []) + [fence(text or NO_OUTPUT)]
    return lines


def html_blocks(blocks: list[tuple[str, str]], prose: Callable[[str], str], e: Callable[[str], str]) -> str:
    """HTML of ``blocks`` (module docstring): prose through ``prose`` (Markdown rendered, or a person's words as
    written: :func:`said_html`), the rest escaped by ``e`` (controls written as escapes, then HTML-escaped)."""
    out = []
    for kind, text in blocks:
        if kind == "text":
            out.append(prose(text))
        elif kind == "command":
            out.append(f"<p class=\"command\"><code>{e(text)}</code></p>")
        else:
            text = md_visible(text).strip("\r\n")
            label = "<p class=\"meta\">stderr</p>" if kind == "stderr" else ""
            out.append(f"{label}<pre class=\"{kind}\">{e(text) if text.strip() else NO_OUTPUT}</pre>")
    return "".join(out)


def said_html(st: dict) -> bool:
    """Whether the html export draws step ``st``'s text as written (escaped, its line breaks kept) rather than as
    Markdown: a person's prompt, what the runtime put in it or beside it (an IDE selection, an opened file,
    injected context, a command's output around its blocks), which are not Markdown, so ``\\\\wsl.localhost`` or
    ``my app\\_build\\*.obj`` keep every backslash (trial 36c F1; render 8, before which they were Markdown: a copy
    of render 7 is made again as it was, :func:`~.export_render.drawing`). The agent's replies (:data:`MARKDOWN_STEPS`)
    and what a subagent was asked stay Markdown."""
    return st.get("kind") not in MARKDOWN_STEPS and not st.get("asked") and drawn() >= 8


#: The steps whose text is the agent's Markdown, rendered as Markdown by the html export and the page.
MARKDOWN_STEPS = ("message.assistant", "agent.output", "epoch.summary", "thinking")


def literal(line: str) -> str:
    """A head line or index cell of a Markdown export with the backslashes a viewer reads as escapes escaped outside code
    (:func:`~asz_core.reading.termtext.md_literal`; render 8, as written before it)."""
    return md_literal(line) if drawn() >= 8 else line


def report_line(r: dict, code: Callable[[str], str] = lambda sid: sid) -> str:
    """The line a call's result that is its subagent's report reads (``r``: a step's ``report``): ``(the subagent's
    report: the same text as its last message msg/3/56:0, in Talk 4)``; what follows the report is drawn under it."""
    return f"(the subagent's report: the same text as its last message {', '.join(map(code, r['said']))}, in Talk {r['talk']})"


def ask_line(a: dict) -> str:
    """The line a call's input key that holds its subagent's prompt reads (``a``: a step's ``ask``): ``(the subagent's
    prompt, drawn once: what Talk 2 was asked, at its head)``, as the page names it (app.js ``askPointer``)."""
    return f"(the subagent's prompt, drawn once: what Talk {a['talk']} was asked, at its head)"


def _facts_markdown(facts: list[tuple[str, str]]) -> list[str]:
    return ["", *(f"- {md_visible(k)}: {inline_code(md_visible(v))}" for k, v in facts)] if facts else []


def _item_markdown(item: tuple) -> list[str]:
    """Markdown lines of one :func:`~asz_core.view.placing.input_fields` item: its key in italics, its text fenced."""
    if item[0] == "block":
        return ["", f"*{md_visible(item[1])}*", "", fence(md_visible(item[2]))]
    return (["", f"*{item[1]}*"] if item[1] else []) + [x for k, t in item[2:] for x in ("", f"*{md_visible(k)}*", "", fence(md_visible(t)))]


def _item_html(item: tuple, e: Callable[[str], str]) -> str:
    if item[0] == "block":
        return f"<p class=\"meta\">{e(item[1])}</p><pre>{e(item[2])}</pre>"
    return (f"<p class=\"meta\">{e(item[1])}</p>" if item[1] else "") + "".join(
        f"<p class=\"meta\">{e(k)}</p><pre class=\"{cls}\">{e(t)}</pre>" for (k, t), cls in zip(item[2:], ("old", "new")))


def tool_pieces(st: dict) -> list[tuple]:
    """What a tool step ``st`` (an :class:`~asz_core.reading.export_steps.Step`) draws, in order, for
    :func:`tool_markdown` and :func:`tool_html` to render (module docstring): its input as ``("said", description)``,
    ``("command", text)`` and ``("facts", [(key, value)…])`` (a shell call), or ``("facts", …)`` then one ``("item",
    item)`` for each :func:`~asz_core.view.placing.input_fields` item (a JSON object; the key that holds the subagent's
    prompt, a step's ``ask``, as ``("ask", ask)``: :func:`ask_line`), or, from render 20, a todo list, an edit or a
    file written as ``("todos", reading)``, ``("diff", …)``, ``("write", …)`` (:func:`~asz_core.view.tool_drawn.drawn_input`,
    :mod:`~.export_tools`), or ``("input", text)`` /
    ``("input_withheld", bytes)``; then its result as ``("report", report)`` (and ``("rest", text)`` when the report
    is followed by more), each execution record joined to the call as ``("executed", record)`` (:func:`execution_line`),
    ``("quiet", facts)``, ``("result", text)``, ``("result_withheld", bytes)`` or, with none of those,
    ``("no_result", words)`` (:func:`no_result_text`: ``(no result recorded)``, as the page says it)."""
    name = st.get("name") or ""
    shell = shell_input(name, st["input"]) if st["input"] else None
    out: list[tuple] = []
    if shell is None and drawn() >= TOOLS_RENDER and (shown := drawn_input(st["input"], pairs=drawn_pairs())) is not None:
        out.append(next(iter(shown.items())))  # a todo list, an edit, a file written (render 20)
    elif shell is not None:
        command, said, facts = shell
        out += ([("said", said)] if said is not None else []) + [("command", command), ("facts", facts)]
    elif (fields := input_fields(st["input"]) if st["input"] else None) is not None:
        out += _asked_fields(fields, st.get("ask"))
    elif st["input"]:
        out.append(("input", st["input"]))
    elif st["withheld"]:
        out.append(("input_withheld", st["withheld"]))
    out += [("executed", e) for e in st.get("executions") or ()]
    quiet = quiet_result(name, st["result"]) if st["result"] and not st.get("report") else None
    if st.get("report"):  # drawn once, in the subagent's talk
        out += [("report", st["report"])] + ([("rest", st["report"]["rest"])] if st["report"]["rest"] else [])
    elif quiet is not None:
        out.append(("quiet", quiet))
    elif st["result"]:
        out.append(("result", st["result"]))
    elif st["result_withheld"]:
        out.append(("result_withheld", st["result_withheld"]))
    else:  # said as the page says it (trial 27a F4: the exports showed a call with no result as a normal one)
        out.append(("no_result", no_result_text(st.get("result_state"), st.get("result_bytes"))))
    return out


def no_result_text(state: str | None, size: int | None) -> str:
    """What stands in a tool call's result that has no text to draw, in the page's words (app.js ``drawDetails``):
    :data:`~asz_core.view.rate_words.NO_RESULT` when no result landed (no ``result_state``: the document's
    ``unres/tool_result/<id>`` entry), :data:`NO_OUTPUT` for an empty one (``available``, 0 bytes), else the state in
    brackets, ``(unavailable)``."""
    from ..view.rate_words import NO_RESULT

    if not state:
        return NO_RESULT
    return NO_OUTPUT if state == "available" and not size else f"({state})"


def execution_line(e: dict) -> str:
    """The line an execution record joined to a tool step reads (``e``: an entry of the document's
    ``tool_executions``, docs/claude-code-hooks.md): ``MCP server probe (user): returned in 1,234 ms, observed by
    asz-plugin (client_hook, 2026-12-04T05:46:17.769638303Z)``; what the record lacks is left out (trial 20, F5); then
    what its held against the transcript says (:func:`arguments_said`, :func:`transcript_said`) and a later record of
    the same call that differs (:func:`again_said`)."""
    seen = ", ".join(str(x) for x in (e.get("boundary"), e.get("time")) if x)
    by = f", observed by {e['observed_by']}" if e.get("observed_by") else ""
    again = f"; {again_said(e)}" if e.get("observed_again") else ""
    return execution_head(e) + by + (f" ({seen})" if seen else "") + arguments_said(e) + transcript_said(e) + again


def execution_head(e: dict) -> str:
    """The start of :func:`execution_line`: the server, the outcome as :func:`outcome_said` says it and the runtime's
    duration, ``MCP server probe (dynamic): failed (transport: the connection to the server closed; error 19 bytes
    as JSON, not kept) in 1 ms``; ``executed: returned`` for a record that names no server."""
    server = e.get("server") if isinstance(e.get("server"), dict) else {}
    who = f"{str(e.get('protocol') or '').upper()} server {server.get('name')}".strip() if server.get("name") else "executed"
    who += f" ({server['source']})" if server.get("source") else ""
    ms = e.get("duration_ms")
    took = f" in {ms:,} ms" if isinstance(ms, int) and not isinstance(ms, bool) else ""
    return f"{who}: {outcome_said(e)}{took}"


def arguments_said(e: dict) -> str:
    """What an execution entry's ``arguments_check`` says, as :func:`execution_line` ends (trial 23a, F8; '' when the
    entry has none): ``; arguments as the transcript's input``, ``; arguments differ from the transcript's input (16
    bytes, the transcript's 89)`` or ``; arguments not compared with the transcript's input: <why>``."""
    c = e.get("arguments_check") if isinstance(e.get("arguments_check"), dict) else {}
    if c.get("result") == "agree":
        return "; arguments as the transcript's input"
    if c.get("result") == "differ":
        a, t = e.get("arguments") or {}, c.get("transcript") or {}
        sizes = f" ({a['bytes']:,} bytes, the transcript's {t['bytes']:,})" \
            if isinstance(a.get("bytes"), int) and isinstance(t.get("bytes"), int) else ""
        return f"; arguments differ from the transcript's input{sizes}"
    if c.get("result") == "cannot_compare":
        return f"; arguments not compared with the transcript's input: {c.get('why') or 'no reason given'}"
    return ""


def _asked_fields(fields: tuple[list, list], ask: dict | None) -> list[tuple]:
    """``[("facts", …), ("item", item)…]`` of :func:`~asz_core.view.placing.input_fields`' ``fields``; with ``ask`` (a
    step's, :func:`ask_line`) the key that holds the subagent's prompt is ``("ask", ask)`` in its place instead, the
    prompt not drawn again (after the facts when it was one)."""
    facts, items = fields
    if ask is None:
        return [("facts", facts), *(("item", item) for item in items)]
    key = ask["key"]
    kept = [(k, v) for k, v in facts if k != key]
    pieces = [("ask", ask) if item[0] == "block" and item[1] == key else ("item", item) for item in items]
    return [("facts", kept)] + ([("ask", ask)] if len(kept) < len(facts) else []) + pieces


#: How Markdown draws each kind of :func:`tool_pieces` (a list of lines, each block after a blank line).
_MARKDOWN: dict[str, Callable[[Any], list[str]]] = {
    "said": lambda v: ["", md_visible(v)],
    "command": lambda v: ["", fence(md_visible(v), "sh")],
    "facts": lambda v: _facts_markdown(v),
    "item": lambda v: _item_markdown(v),
    "input": lambda v: ["", fence(md_visible(v), "json")],
    "input_withheld": lambda v: ["", f"*(input withheld: {v} bytes)*"],
    "report": lambda v: ["", f"*{report_line(v, lambda sid: f'`{sid}`')}*"],
    "ask": lambda v: ["", f"*{md_visible(v['key'])}*", "", f"*{ask_line(v)}*"],
    "rest": lambda v: ["", fence(md_visible(v))],
    "executed": lambda v: ["", f"*{md_visible(execution_line(v))}*"],
    "quiet": lambda v: ["", f"*{NO_OUTPUT}*", *_facts_markdown(v)],
    "result": lambda v: cut_markdown(v, fence, md_visible),  # a long one cut, its size said (render 52)
    "result_withheld": lambda v: ["", f"*(result withheld: {v} bytes)*"],
    "no_result": lambda v: ["", f"*{v}*"],
    **{k: (lambda k: lambda v: drawn_markdown(k, v, fence, _facts_markdown))(k) for k in ("todos", "diff", "write")},
}


def tool_markdown(st: dict) -> list[str]:
    """Markdown lines of tool step ``st``'s input and result (:func:`tool_pieces`), each block after a blank line."""
    return [line for kind, v in tool_pieces(st) for line in _MARKDOWN[kind](v)]


def _facts_html(facts: list[tuple[str, str]], e: Callable[[str], str]) -> str:
    return "<ul>" + "".join(f"<li>{e(k)}: <code>{e(v)}</code></li>" for k, v in facts) + "</ul>" if facts else ""


#: How HTML draws each kind of :func:`tool_pieces` (``e`` escapes a text).
_HTML: dict[str, Callable[[Any, Callable[[str], str]], str]] = {
    "said": lambda v, e: f"<p>{e(v)}</p>",
    "command": lambda v, e: f"<pre class=\"command\">{e(v)}</pre>",
    "facts": _facts_html,
    "item": _item_html,
    "input": lambda v, e: f"<pre>{e(v)}</pre>",
    "input_withheld": lambda v, e: f"<p class=\"withheld\">(input withheld: {v} bytes)</p>",
    "report": lambda v, e: f"<p><i>{e(report_line(v))}</i></p>",
    "ask": lambda v, e: f"<p class=\"meta\">{e(v['key'])}</p><p><i>{e(ask_line(v))}</i></p>",
    "rest": lambda v, e: f"<pre>{e(v)}</pre>",
    "executed": lambda v, e: f"<p class=\"executed\"><i>{e(execution_line(v))}</i></p>",
    "quiet": lambda v, e: f"<p><i>{NO_OUTPUT}</i></p>" + _facts_html(v, e),
    "result": cut_html,
    "result_withheld": lambda v, e: f"<p class=\"withheld\">(result withheld: {v} bytes)</p>",
    "no_result": lambda v, e: f"<p class=\"noresult\"><i>{e(v)}</i></p>",
    **{k: (lambda k: lambda v, e: drawn_html(k, v, e, _facts_html))(k) for k in ("todos", "diff", "write")},
}


def tool_html(st: dict, e: Callable[[str], str]) -> str:
    """HTML of tool step ``st``'s input and result (:func:`tool_pieces`), every text escaped by ``e``."""
    return "".join(_HTML[kind](v, e) for kind, v in tool_pieces(st))


#: At most this many characters of a tool call's input on its HTML line (:func:`tool_gist`).
GIST_CHARS = 120


def tool_gist(st: dict, dialect: str = "", limit: int = GIST_CHARS) -> str:
    """A tool step's input in one line of at most ``limit`` characters (:data:`GIST_CHARS`), for the line an HTML export shows
    while the call is folded (trial 18: every call read ``Tool Bash`` and its id): what the adapter of ``dialect``
    says the call acts on, else the command, file path, pattern, URL … (:func:`~asz_core.view.placing.call_summary`,
    the audit prose's and the page's rule too), or the input's own text when it is not JSON; '' for none."""
    text = st.get("input")
    if not text:
        return ""
    pairs = gist_pairs()
    if pairs is None and drawn() >= TOOLS_RENDER and (shown := drawn_input(text)) is not None and "todos" in shown:
        return one_line(shown["todos"]["gist"], limit)[0]  # not its JSON (render 20 to 22)
    import orjson

    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:  # clipped, or not JSON: its own text
        data = {"command": text}
    return call_summary(dialect, st.get("name") or "", data, limit, pairs)[0]  # from render 23 a todo list's, an edit's line
