"""``asz export``: a conversation as Markdown, one self-contained HTML file, asz.view JSON or prose (issue 20).

Markdown and HTML are rendered from the asz.view document built with the
withheld names, so they withhold exactly what the page withholds: a step whose
record carries a withheld flag shows as ``(withheld: N bytes)`` and no text.
Texts are taken whole from the landed records the steps cite (the document
clips them at 2,000 bytes); a part whose content is not in the root says so
in its place (:func:`part_marker`): ``[too large to land: 30,000,005 bytes, sha256 3a55…]``,
``[removed by retention: 1,234 bytes]``. Talks come in order; in each, the person's prompt,
the replies, tool calls with their input and result, injected context and
runtime notices, in the document's order; thinking only with ``thinking``. The document's ``loose`` nodes (a
compaction's boundary and summary, context injected before a talk) are drawn in place, in record order
(:func:`.export_steps.steps`), the boundary labelled with the adapter's short form (``Context compacted (auto, 167,731
tokens before)``).

HTML: one file, its style inline, no script, no external reference, and a
Content-Security-Policy that allows none; every transcript text is rendered
through markdown-it-py with raw HTML disabled (CommonMark plus tables), whose
output escapes ``<`` and refuses ``javascript:`` links, or shown escaped in
``<pre>`` (tool input and results). Control characters, C1 and bidi overrides in any transcript text of the page
are written as the terminal's escapes first (:func:`shown`), after terminal formatting (CSI sequences such as
``\x1b[1m``: :func:`~asz_core.reading.termtext.plain`) is removed; Markdown does the same
(:func:`~asz_core.reading.termtext.md_visible`: a CR before its LF kept, trial 27c F3); JSON keeps everything. A talk's heading reads its label as a title does
(:func:`talk_heading`: ``/context``, not the command's markup). A person's or injected text holding a runtime's
command markup is drawn as :mod:`.export_blocks` reads it: the command as typed, its output preformatted.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Sequence

import orjson

from ..view.document import build_view
from ..sessiondata.nolink import open_nofollow
from ..view.summary import shorten
from ..view.titles import dialect_of
from .export_cut import cut_summary
from .export_blocks import fence, html_blocks, literal, nested, said_html, tool_gist, tool_html
from .export_refusals import tool_mark
from .export_calls import NOTICE_LINE, RECORD_DATA, calls_html, spawned_links, thinking_said
from .export_render import ARCHIVE_RENDER, CUT_SAID_RENDER, LINKS_RENDER, ORPHAN_RENDER, PRINT_CSS, TOOLS_CSS, drawn, drawn_style
from .export_steps import LOST, media_line, Step, part_marker, steps, talk_heading, unverified_files, unverified_marker
from .export_talk import talk_markdown
from .head_said import when_slot
from ..view.zone import local_text, zone_name
from .export_nav import navigated
from .export_links import html_linked, md_linked
from .listing import link_lines
from .termtext import md_line, md_visible, visible

__all__ = ["Step", "steps", "part_marker", "unverified_files", "unverified_marker", "problems_of", "notes_of", "sent_by", "markdown_head", "loose_executions", "unresolved_said", "to_markdown", "to_html", "when_text", "step_when", "page", "isolated", "CSS", "SIDECHAIN_SAID",
           "ORPHAN_SAID", "sidechain_talk_said"]

#: What the Unresolved section at an export's end holds (:func:`unresolved_said`; trial 27a F4).
UNRESOLVED_ABOUT = ("The document's unresolved entries, as the page's Unresolved tab lists them: each id, its kind and "
                    "state, and why (a call whose result did not land reads (no result recorded) where it is drawn).")
#: The line over a landed result no step draws, its call never landed (:func:`unresolved_said`).
UNRESOLVED_RESULT = "The result as landed, which no step draws:"
#: What the md and html exports add under the heading of a talk a sub-agent's lines opened in its parent's stream (the
#: document's talk ``sidechain``: Claude Code 1.0.x; trial 31b F5), as a child stream's talk says its stream.
SIDECHAIN_SAID = " · a sub-agent's lines, written in its parent's transcript"
#: What they add after :data:`SIDECHAIN_SAID` from render 25 for such a talk no call and no prompt of its own opened
#: (the document's talk ``orphan``: field report 34), a sub-agent group whose parent call was not found.
ORPHAN_SAID = " · parent call not found"


def sidechain_talk_said(talk: dict) -> str:
    """What md and html add after a talk's start and id: :data:`SIDECHAIN_SAID` for a talk the document marks
    ``sidechain``, and :data:`ORPHAN_SAID` after it from render 25 for one it marks ``orphan`` too; else ''."""
    if not talk.get("sidechain"):
        return ""
    return SIDECHAIN_SAID + (ORPHAN_SAID if talk.get("orphan") is True and drawn() >= ORPHAN_RENDER else "")


def html_media(st: dict, e) -> str:
    """The HTML of a step's media: each as its placeholder (:func:`~.export_steps.media_line`), and an image whose
    data the step carries (kept, a raster type, base64: :data:`~.export_steps.EMBEDDED`) drawn from a ``data:`` URI
    above it, so the file still fetches nothing; '' for a step with none. ``e`` escapes text."""
    out = []
    for m in st.get("media") or ():
        line = e(media_line(m))
        img = f"<img src=\"data:{m['mime']};base64,{m['data']}\" alt=\"{line}\">" if m.get("data") else ""
        out.append(f"<figure class=\"media\">{img}<figcaption class=\"meta\">{line}</figcaption></figure>")
    return "".join(out)


def same_as(st: dict, code=lambda sid: sid) -> str:
    """The line an ``agent.output`` step that repeats the sub-agent's last message is drawn as (its text is there),
    each id of the steps it repeats through ``code``."""
    return f"(the same text as {', '.join(map(code, st['same_as']))} above: the subagent's last message, which its output repeats)"


def when_text(ms: int | None) -> str:
    """Unix ms as ``YYYY-MM-DD HH:MM:SS`` in the reader's zone (``--tz``, else this machine's); '' for none."""
    return local_text(ms, "%Y-%m-%d %H:%M:%S") if ms else ""  # in --tz, else this machine's zone


def step_when(st: dict) -> str:
    """A step's time as its line draws it (:func:`when_text` of its ``at``), or, for one whose record's time does not
    read, what says so in that place (the step's ``untimed``: ``time does not read ('yesterday', S/…/x.sd line 3)``,
    trial 30a F8); '' for a step with no time."""
    return when_text(st["at"]) if st.get("at") else st.get("untimed", "")


def talk_start(talk: dict) -> int | None:
    """When a talk of the asz.view document started (unix ms): its own ``at``, the time of what started it (seed
    004), as the page draws it; its ``from`` only when it has no ``at``. ``from`` is the earliest of its steps, and a
    step injected into the talk can be older than the talk (trial 17b, F5: the ``Caveat: …`` record Claude Code wrote
    at 19:36:37 for a later command folds into the talk a person started at 19:51:36)."""
    return talk.get("at") or talk.get("from")


def _landed_at(root: Path, doc: dict) -> list[int]:
    """Unix ms at which each landed Session Data file of ``doc`` was written (its header's ``at``), sorted; files
    whose header does not read are left out."""
    from ..sessiondata.times import parse_instant

    out = []
    for f in doc.get("files") or ():
        if f.get("format") != "sd":
            continue
        try:
            with open_nofollow(Path(root) / f["file"]) as fh:
                ns = parse_instant(orjson.loads(fh.readline()).get("at"))
        except (OSError, ValueError, AttributeError):
            continue
        if ns is not None:
            out.append(ns // 1_000_000)
    return sorted(out)


def span(root: str | os.PathLike, doc: dict) -> str:
    """When the conversation ran: ``from A to B (times in ZONE)`` (the reader's zone, named once: every time of the
    export is in it) from its records' times; when no record carries a time (none of them could be decoded), says so
    and gives when its landed files were written instead (``landed A, ZONE``)."""
    s = doc.get("summary") or {}
    a, b = s.get("from"), s.get("to")
    if a or b:
        return f"from {when_text(a) or 'an unknown time'} to {when_text(b) or 'an unknown time'} (times in {zone_name()})"
    landed = _landed_at(Path(root), doc)
    if not landed:
        return "times unknown (no record carries one)"
    when = when_text(landed[0]) + (f" to {when_text(landed[-1])}" if when_text(landed[-1]) != when_text(landed[0]) else "")
    return f"times unknown (no record carries one; landed {when}, {zone_name()})"


def _title(doc: dict) -> str:
    return (doc.get("summary") or {}).get("title") or "(untitled)"


#: What an injected text opening with ``Base directory for this skill: PATH`` is (Claude Code's Skill tool body).
_SKILL_HEAD = "Base directory for this skill:"


def context_label(text: str, limit: int = 60) -> str:
    """A short name for an injected or runtime text, for the one line a folded step shows (trial 4, F11): ``skill
    NAME`` for a skill's body, the ``type`` (and ``subtype``) of a JSON object (``deferred tools delta``), the tag of
    a text opening with one (``system reminder: PostToolUse:Edit hook …``), else the text's first words; at most
    ``limit`` characters, cut with ``…``; terminal formatting removed first (:func:`~asz_core.reading.termtext.plain`)."""
    text = md_visible(text).strip()
    if text.startswith(_SKILL_HEAD):
        path = text[len(_SKILL_HEAD):].split("\n", 1)[0].strip().rstrip("/")
        return "skill " + (path.rsplit("/", 1)[-1] or path)
    if text.startswith("{"):
        try:
            obj = orjson.loads(text)
        except orjson.JSONDecodeError:
            obj = None
        if isinstance(obj, dict) and isinstance(obj.get("type"), str):
            sub = obj.get("subtype") if isinstance(obj.get("subtype"), str) else ""
            return " ".join((obj["type"] + (" " + sub if sub else "")).replace("_", " ").split())[:limit]
    head = ""
    if text.startswith("<") and ">" in text[:60]:
        tag = text[1:text.index(">")]
        if tag and all(c.isalnum() or c in "-_" for c in tag):
            head, text = tag.replace("-", " ").replace("_", " "), text[text.index(">") + 1:]
            text = text.replace(f"</{tag}>", " ")
    words = " ".join(text.split())
    return shorten(f"{head}: {words}" if head and words else head or words, limit)


def doc_dialect(root: str | os.PathLike, doc: dict) -> str:
    """The dialect of the document's first session (its first landed file's header), '' when none reads."""
    sessions = doc.get("sessions") or ()
    return dialect_of(root, sessions[0]) if sessions and isinstance(sessions[0], str) else ""


def sent_by(root: str | os.PathLike, doc: dict) -> str:
    """``sent by dev@hostA (credential alice): N landed file(s), received …`` in a root ``asz receive`` landed (who sent
    the document's first session: :func:`~asz_core.storage.senders.senders_line`, as ``asz conversation`` says it;
    trial 19, F3/F17: a conversation shared from the team root named no sender); '' otherwise."""
    from ..storage.senders import RECEIVED, senders_line, session_senders

    sessions = doc.get("sessions") or ()
    if not sessions or not isinstance(sessions[0], str) or not (Path(root) / RECEIVED).is_dir():
        return ""
    return senders_line(session_senders(root, sessions[0]))


def markdown_head(root: str | os.PathLike, doc: dict) -> list[str]:
    """The lines a Markdown export opens with: ``# title``, the conversation's id, when it ran, its talks and state,
    a retention removal, its problems, then the figures ``asz conversation`` prints (the full and the brief form's);
    each one line through :func:`~asz_core.reading.termtext.md_line`, the body's escaping, so no project, branch,
    model or price table name steers a terminal that ``cat``s the file (trial 34c F4), the backslashes a viewer would read as escapes escaped outside
    code (:func:`~.export_blocks.literal`: a Markdown viewer shows ``\\\\wsl.localhost\\…`` as written; trial 36c F1)."""
    from .removed import removal_line, shown_removed

    removal = shown_removed(doc)  # placed as asz ls shows a pruned conversation (trial 15, F5)
    s = doc.get("summary") or {}
    lines = [f"# {_title(doc)}", "", f"- conversation: `{doc['conversation']}`",
             f"- {span(root, doc)}, {s.get('talks', 0)} talks, state {s.get('state', '')}"]
    if said := sent_by(root, doc):
        lines.append(f"- {said}")
    if removal is not None:
        lines.append(f"- {removal_line(removal)}")
    out = [literal(md_line(x)) for x in lines]
    # continues / continued in, as asz conversation says (trial 30a F7), linked in a folder (trial 45b F6)
    out += [md_linked(literal(md_line(f"- {line}"))) for line in link_lines(s)]
    lines = [f"- **{s.get('state', '')}:** {p}" for p in problems_of(doc)] + [f"- **problem:** {p}" for p in notes_of(doc)]
    return out + [literal(md_line(x)) for x in lines + [f"- {line}" for line in _figures(s, root)]]


def drawn_steps(root: str | os.PathLike, doc: dict, thinking: bool, dialect: str, mask=None) -> list[dict]:
    """:func:`~.export_steps.steps` to draw, each text masked first by ``mask`` when given (a
    :class:`~asz_core.view.secret_forms.Masker`, ``asz export --redact``; it counts those it leaves whole):
    :func:`~.export_steps.masked_steps`."""
    from .export_steps import masked_steps
    from .prose_replays import replay_talks

    talks = steps(root, doc, thinking=thinking, dialect=dialect)
    replay_talks(doc, talks)  # a talk of copies alone says what it is (trial 45d F5)
    return masked_steps(talks, mask) if mask is not None else talks


def _each(lines, mask) -> list[str]:
    """``lines`` (texts asz writes of the document: an execution with no step, an undescribed record) each masked by
    ``mask`` before it is placed, when given (:func:`drawn_steps`)."""
    return [mask.text(x) for x in lines] if mask is not None else list(lines)


def to_markdown(root: str | os.PathLike, doc: dict, *, thinking: bool = False, index: str = "", mask=None, prices=None) -> str:
    """The conversation as Markdown: a header with its summary, then each talk's steps (module docstring), each text
    masked by ``mask`` first (:func:`drawn_steps`); a folder's copy (``index``) finds its way (:func:`navigated`); each
    model call's tokens and cost (priced by ``prices``, a :class:`~asz_core.view.prices.PriceTable`) at its step
    (:func:`~.export_calls.calls_md`)."""
    lines = markdown_head(root, doc)
    if not thinking and (left := thinking_said(doc) if drawn() >= 16 else ""):
        lines.append(f"- {left}")  # trial 41c F6
    und = doc.get("undescribed") or []
    if unres := unresolved_said(root, doc):
        lines.append(f"- unresolved: {len(unres)} (listed at the end)")
    if und:
        lines.append(f"- undescribed records: {len(und)} (bytes the dialect could not describe; listed at the end)")
    dialect = doc_dialect(root, doc)
    headings = navigated(lines, index, talks := drawn_steps(root, doc, thinking, dialect, mask))  # render 13
    for i, t in enumerate(talks, 1):
        lines += talk_markdown(t, headings[i - 1], prices)
    if loose := _each(loose_executions(doc), mask):
        lines += ["", "## Tool executions with no step", ""] + [f"- {md_line(x)}" for x in loose]
    if unres:
        lines += ["", "## Unresolved", "", UNRESOLVED_ABOUT, ""]
        for line, results in unres:
            lines.append(f"- {md_visible(line)}")
            for where, text in results:
                lines += ["", f"*{UNRESOLVED_RESULT} {md_visible(where)}:*", "", fence(md_visible(_each([text], mask)[0]))]
    if und:
        lines += ["", "## Undescribed records", ""]
        lines += [f"- {md_line(x)}" for x in _each(map(_undescribed_line, und), mask)]
    from .md_active import warned

    return warned("\n".join(lines) + "\n")  # raw HTML, script links, remote images said at the top (trial 34c F10)


def unresolved_said(root: str | os.PathLike, doc: dict) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each of the document's ``unresolved`` entries in the words of the page's Unresolved tab (trial 27a F4: the
    exports left out a tool result whose call is not in the transcript, without a word): ``(line, results)``, the line
    ``unres/tool_use/toolu_x (tool_use, open): a result arrived for a request that was never landed``, and ``results``
    the landed results of such an entry that no step draws (``not_drawn`` entries ``why: unresolved`` naming it, docs/view.md),
    each ``(where, text)``: ``record u-0006-… (seq 1, row 7)`` and its result's text whole from the landed record (the
    document's clipped text when the record gives none; a result the document carries no text of, withheld or empty, is
    said with ``(no text)``; from render 35 one made smaller to land or removed by retention is drawn as a tool step's
    result is, ``[too large to land: 3,000,000 bytes, sha256 548b…]``, from the landed record: trial 47c F1). A compaction agent's ``spawn_of_child`` entry is left out, as the page places it (drawn
    as the compaction's talk: :func:`~asz_core.view.placing.unresolved_split`). [] when nothing else is unresolved."""
    from ..view.placing import unresolved_split

    placed = set(unresolved_split(doc)["placed"])  # a compaction agent's stream: drawn as its talk, the page's rule
    entries = [u for u in doc.get("unresolved") or () if u.get("id") not in placed]
    orphans: dict[str, list[dict]] = {}
    for nd in doc.get("not_drawn") or ():
        if nd.get("why") == "unresolved" and nd.get("unresolved"):
            orphans.setdefault(nd["unresolved"], []).append(nd)
    from ..view.kinds import taken_after
    from .export_steps import record_texts

    cut = drawn() >= CUT_SAID_RENDER  # a result too large to land or removed: its record's marker (47c F1)
    refs = [nd.get("ref") or {} for nds in orphans.values() for nd in nds if nd.get("text") or cut and nd.get("result_state")]
    whole = dict(zip(map(repr, refs), record_texts(root, doc, refs)))  # read only when some result has a text
    out = []
    for u in entries:
        results = []
        for nd in orphans.get(u.get("id"), ()):
            ref = nd.get("ref") or {}
            text = nd.get("text") or ""
            if text or cut and nd.get("result_state"):  # whole from the record, as a step's result is drawn (the document clips it)
                text = (whole.get(repr(ref)) or text) + (taken_after(nd) if cut else "")
            results.append((f"record {nd.get('id')} (seq {ref.get('seq')}, row {ref.get('row')})", text or "(no text)"))
        out.append((f"{u.get('id')} ({u.get('kind')}, {u.get('state')}): {u.get('reason') or 'no reason given'}", results))
    return out


def loose_executions(doc: dict) -> list[str]:
    """One line for each ``tool_executions`` entry joined to no tool step (hook records whose transcript has not
    landed, or never will), which no step draws: ``toolu_probe_7_0 mcp__probe__crash: MCP server probe (dynamic):
    failed (transport: …) in 1 ms, observed by asz-plugin (…)`` (:func:`~.export_blocks.execution_line`; trial 25a, F1)."""
    from .export_blocks import call_named, execution_line

    return [f"{call_named(e)}: {execution_line(e)}" for e in doc.get("tool_executions") or () if not e.get("step")]


def _figures(s: dict, root: str | os.PathLike) -> list[str]:
    """The summary's project, models, tokens and cost lines, as ``asz conversation`` prints them
    (:func:`~asz_core.reading.listing.usage_lines`), the cost followed by ``cost by kind: …`` (its
    ``cost_by_kind_line``: each kind's share of the exact cost, trial 27a F3); [] for a summary without figures.
    From render 33 a copy whose calls are counted in the conversation it continues (in ``root``) says so
    (:func:`~asz_core.view.counted_in.summary_counted_in`; trial 46a F5). From render 35 the last line says a
    conversation landed without some of its text as ``asz conversation`` says it (``landed without its text: 1 part
    too large to land (3,000,000 bytes as written)``: :func:`~asz_core.reading.listing.cut_text`; trial 47c F1)."""
    from .export_later import counted_as_drawn
    from .listing import cut_text, usage_lines

    s = counted_as_drawn(root, s, drawn())
    cut = [said] if drawn() >= CUT_SAID_RENDER and (said := cut_text(s.get("cut"))) else []
    try:
        lines = usage_lines(s)
    except (KeyError, TypeError):
        return cut
    if s.get("cost_by_kind_line"):
        at = next((i + 1 for i, line in enumerate(lines) if line.startswith("cost ")), len(lines))  # cost $…, <$0.01, unpriced (32a F8)
        lines[at:at] = [f"cost by kind: {s['cost_by_kind_line']}"]
    return lines + cut


def problems_of(doc: dict) -> list[str]:
    """``summary.problems`` of a document whose state is not verified (each names the file or round and what is
    wrong), else []."""
    s = doc.get("summary") or {}
    return list(s.get("problems") or ()) if s.get("state", "verified") != "verified" else []


def notes_of(doc: dict) -> list[str]:
    """``summary.problems`` of a document that verifies all the same (a companion file that did not land: the result
    holds only a preview), which ``asz conversation`` and the page show too (trial 3, F8); else []."""
    s = doc.get("summary") or {}
    return list(s.get("problems") or ()) if s.get("state", "verified") == "verified" else []


def _undescribed_line(u: dict) -> str:
    """One ``undescribed`` entry in words: where (seq, row, block, stream), why, how many bytes, the node citing it."""
    r = u.get("ref") or {}
    where = f"seq {r.get('seq')} row {r.get('row')} block {r.get('block')}" + (f" ({u['stream']})" if u.get("stream") else "")
    node = f", cited by {u['node']}" if u.get("node") else ""
    return f"{where}: {u.get('reason') or 'no reason given'}, {u.get('bytes', 0):,} bytes{node}"


CSS = """
body{font:15px/1.5 system-ui,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;color:#1d1d1f;background:#fff}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #ddd}
.meta,.when,.id{color:#666;font-size:.85em}.id{font-family:ui-monospace,monospace}code.gist{font-size:.9em}
.step{margin:.8em 0;padding:.5em .8em;border-left:3px solid #ccc}
.step.person{border-color:#2a7ae2;background:#f4f8fe}.step.assistant{border-color:#2f9e44}
.step.thinking{border-color:#aaa;color:#555;font-style:italic}.step.summary{border-color:#e8590c}.step.withheld{color:#666}
.said{white-space:pre-wrap;overflow-wrap:anywhere}pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:.5em;max-height:30em;overflow:auto}
code{font-family:ui-monospace,monospace;font-size:.92em;overflow-wrap:anywhere}table{border-collapse:collapse;display:block;max-width:100%;overflow-x:auto}td,th{border:1px solid #ccc;padding:.2em .5em}
figure.media img{max-width:100%}details>summary{cursor:pointer;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}@media (max-width:480px){details>summary{white-space:normal;overflow-wrap:anywhere}}.failed{color:#c92a2a}
@media (prefers-color-scheme:dark){body{background:#111;color:#ddd}.step.person{background:#16202e}pre{background:#1b1b1b}
a{color:#8ab4f8}a:visited{color:#c58af9}.meta,.when,.id{color:#a8a8a8}.failed{color:#ff8787}.step.thinking{color:#b0b0b0}.step.withheld{color:#a0a0a0}}
""" + TOOLS_CSS + PRINT_CSS  # render 20's and 28's, taken off for an older copy (export_render.drawn_style)
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"


def _md():
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    md.add_render_rule("image", _image)
    if drawn() >= LINKS_RENDER:  # the model's links to its project's files drawn as text (trial 47b F4)
        from .html_links import unlinked

        unlinked(md)
    return md


def _image(self, tokens, idx, options, env) -> str:
    """A Markdown image: drawn only from a ``data:`` URI (in the file itself); any other source becomes a link reading
    ``[image: ALT]``, so that a shared page fetches nothing when opened, even where the CSP is ignored (trial 3, F20)."""
    token = tokens[idx]
    src = token.attrGet("src") or ""
    alt = self.renderInlineAsText(token.children or [], options, env)
    if "unlinked" in token.meta:  # a file of the model's project (render 37: asz_core.reading.html_links)
        from .html_links import unlinked_image

        return unlinked_image(token.meta["unlinked"], alt)
    if src.lower().startswith("data:image/"):
        return f"<img src=\"{html.escape(src)}\" alt=\"{html.escape(alt)}\">"
    return f"<a class=\"image\" href=\"{html.escape(src)}\">[image: {html.escape(alt)}]</a>"


def shown(text: str) -> str:
    """Transcript ``text`` for HTML, before it is escaped or rendered as Markdown: C0 controls but tab, newline and
    CR, DEL, C1 and the bidi overrides/isolates written as the terminal's escapes (``\\x1b``, ``\\x9b``,
    ``\\u202e``; :func:`~asz_core.reading.termtext.visible`), so that a browser neither drops nor hides them and
    nothing reorders the text around them (trial 3, F4/F19). Markdown reads ``\\x`` and ``\\u`` as text."""
    return visible(text, keep_cr=True)


def isolated(text: str) -> str:
    """Transcript ``text`` for a heading or cell: :func:`~asz_core.reading.termtext.html_line`, escaped, and wrapped in
    ``<bdi>`` so that its own right-to-left text (Hebrew, Arabic) orders nothing outside it."""
    from .termtext import html_line

    return f"<bdi>{html.escape(html_line(text))}</bdi>"


def page(title: str, body: str, css: str = "") -> str:
    """A whole HTML page: ``title`` escaped here (controls and bidi overrides written as ``\\x00`` / ``\\u202e``:
    a ``<title>`` holds no markup to isolate them), ``body`` already safe HTML; style inline, no script, a CSP
    allowing none; ``css`` (trusted, asz's own) follows :data:`CSS`. The title is one line (render 9)."""
    from .termtext import html_line

    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{_CSP}\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            f"<title>{html.escape(html_line(title, keep_cr=False))}</title><style>{drawn_style(CSS)}{css}</style></head>\n<body>\n<main>\n{body}\n</main>\n</body></html>\n")


def _html_head(root: str | os.PathLike, doc: dict, index: str, unresolved: int = 0) -> list[str]:
    """The HTML a conversation's page opens with: a link back to ``index`` (a folder export's index page) when given,
    the title, when it ran, its talks and state, who sent it, a removal, its problems and figures, and how many
    ``unresolved`` entries (:func:`unresolved_said`) and undescribed records are listed at the end, as the Markdown
    head says them; each value one line (:func:`~asz_core.reading.termtext.html_line`)."""
    from .removed import removal_line, shown_removed
    from .termtext import html_line

    def e(text: str) -> str:
        return html.escape(html_line(text))

    removal = shown_removed(doc)  # placed as asz ls shows a pruned conversation (trial 15, F5)
    s = doc.get("summary") or {}
    out = [f"<p class=\"meta\"><a href=\"{html.escape(index)}\">← all conversations (the index)</a></p>"] if index else []
    out += [f"<h1 dir=\"auto\">{isolated(_title(doc))}</h1>",
           f"<p class=\"meta\">conversation <span class=\"id\">{e(doc['conversation'])}</span> · {e(span(root, doc))} · "
           f"{s.get('talks', 0)} talks · state {e(str(s.get('state', '')))}</p>"]
    if said := sent_by(root, doc):
        out.append(f"<p class=\"meta\">{e(said)}</p>")
    if removal is not None:
        out.append(f"<p class=\"meta\">{e(removal_line(removal))}</p>")
    out += [f"<p class=\"meta\">{html_linked(e(line))}</p>" for line in link_lines(s)]  # trial 30a F7; 45b F6
    probs = problems_of(doc)
    if probs:
        out.append(f"<div class=\"failed\"><b>This conversation does not verify ({e(str(s.get('state', '')))}):</b><ul>"
                   + "".join(f"<li>{e(p)}</li>" for p in probs) + "</ul></div>")
    notes = notes_of(doc)
    if notes:  # as the page says it
        out.append("<div class=\"failed\"><b>Its rounds verify, but asz found problems:</b><ul>"
                   + "".join(f"<li>{e(p)}</li>" for p in notes) + "</ul></div>")
    figures = _figures(s, root)
    if figures:
        out.append("<p class=\"meta\">" + "<br>".join(isolated(line) for line in figures) + "</p>")
    if unresolved:  # trial 27a F4: said at the top, as the Markdown head says it
        out.append(f"<p class=\"meta\">unresolved: {unresolved} (listed at the end)</p>")
    und = doc.get("undescribed") or []
    if und:
        out.append(f"<p class=\"meta\">undescribed records: {len(und)} (bytes the dialect could not describe; listed at the end)</p>")
    return out


def talk_nav(talks: list[dict], e) -> str:
    """The page's list of talks (trial 21: a 321-step page had no in-page link): each talk's number and heading
    linking its ``<h2>`` (its id; ``outside`` for the steps under no talk) and when it started; '' for one talk."""
    if len(talks) < 2:
        return ""
    items = []
    for i, t in enumerate(talks, 1):
        talk = t["talk"]
        if talk is None:
            items.append(f"<li><a href=\"#outside\">{e(t['heading'])}</a></li>")
            continue
        items.append(f"<li><a href=\"#{e(talk['id'])}\">Talk {i}: {isolated(t['heading'])}</a> "
                     f"<span class=\"when\">{e(when_text(talk_start(talk)))}</span></li>")
    return f"<nav class=\"talks\"><p class=\"meta\">Talks</p><ol>{''.join(items)}</ol></nav>"


def to_html(root: str | os.PathLike, doc: dict, *, thinking: bool = False, index: str = "", mask=None, prices=None) -> str:
    """The conversation as one self-contained HTML page (module docstring): its head (:func:`_html_head`, a link back
    to ``index`` when it is one of a folder export's pages), the list of its talks (:func:`talk_nav`), the talks;
    each text masked by ``mask`` before it is escaped and placed (:func:`drawn_steps`); each model call's tokens and
    cost (``prices``) at its step (:func:`~.export_calls.calls_html`), a sub-agent's call and talk linked both ways
    (:func:`~.export_calls.spawned_links`)."""
    md = _md()

    def e(text: str) -> str:
        return html.escape(shown(text))

    def rendered(text: str) -> str:  # Markdown: the agent's replies, what a subagent was asked
        return md.render(nested(shown(text)))

    def said(text: str) -> str:  # as written: escaped, its line breaks kept (.said)
        return f"<div class=\"said\">{e(text)}</div>"

    unres = unresolved_said(root, doc)
    out = _html_head(root, doc, index, len(unres))
    if not thinking and (left := thinking_said(doc) if drawn() >= 16 else ""):
        out.append(f"<p class=\"meta\">{e(left)}</p>")  # trial 41c F6
    und, dialect = doc.get("undescribed") or [], doc_dialect(root, doc)
    talks = drawn_steps(root, doc, thinking, dialect, mask)
    out += [talk_nav(talks, e)] if len(talks) > 1 else []
    to_talk, back = spawned_links(doc, talks, e)
    for i, t in enumerate(talks, 1):
        talk = t["talk"]
        label = t["heading"]
        if talk is None:  # loose nodes of a stream with no talk
            out.append(f"<h2 id=\"outside\">{e(label)}</h2>")
        else:
            side = e(sidechain_talk_said(talk) + t.get("replay_said", ""))
            out.append(f"<h2 id=\"{e(talk['id'])}\">Talk {i}: {isolated(label)}</h2><p class=\"when\">{e(when_text(talk_start(talk)))}{side}</p>"
                       + back.get(talk["id"], ""))
        if t["prompt"]:  # what a sub-agent was asked (trial 16b, F15)
            st = t["prompt"]
            out.append(f"<div class=\"step person\" id=\"{e(st['id'])}\"><div class=\"meta\"><b>{e(st['who'])}</b>"
                       f"{when_slot(st, e)} · <span class=\"id\">{e(st['id'])}</span></div>{rendered(st['text'])}</div>")
        for st in t["steps"]:
            sid = e(st["id"])
            out += [made] if (made := calls_html(st, prices, e)) else []  # trial 41c F4
            if st["kind"] in ("tool", "agent.call"):
                failed = f" <span class=\"{how}\">{how}</span>" if (how := tool_mark(st)) else ""  # refused: render 15
                inner = tool_html(st, e)
                gist = tool_gist(st, dialect)
                gist = f" <code class=\"gist\">{isolated(gist)}</code>" if gist else ""
                when = f" <span class=\"when\">{e(step_when(st))}</span>" if step_when(st) else ""  # trial 30a F3
                out.append(f"<details class=\"step tool\" id=\"{sid}\"><summary>Tool <b>{e(st.get('name') or '?')}</b>{failed}"
                           f"{gist}{cut_summary(st)}{when} <span class=\"id\">{sid}</span></summary>{inner}</details>" + to_talk.get(st["id"], ""))
                out += [html_media(st, e)] if st.get("media") else []
                continue
            cls = "person" if st.get("asked") else {"message.external": "person", "message.assistant": "assistant",
                                                    "thinking": "thinking", "epoch.summary": "summary"}.get(st["kind"], "other")
            head = f"<div class=\"meta\"><b>{e(st['who'])}</b>{when_slot(st, e)} · <span class=\"id\">{sid}</span></div>"
            if st["withheld"]:
                out.append(f"<div class=\"step withheld\" id=\"{sid}\">{head}<p>(withheld: {st['withheld']} bytes)</p></div>")
            elif st.get("same_as"):
                out.append(f"<div class=\"step other\" id=\"{sid}\">{head}<p><i>{e(same_as(st))}</i></p></div>")
            elif cls in ("person", "assistant", "thinking", "summary") or st["kind"] == "agent.output" or st.get("asked"):
                prose = said if said_html(st) else rendered  # a person's words as written (trial 36c F1)
                body = html_blocks(st["blocks"], prose, e) if st.get("blocks") else prose(st["text"])
                out.append(f"<div class=\"step {cls}\" id=\"{sid}\">{head}{body}</div>")
            else:
                out.append(_other_html(st, sid, head, e, said if said_html(st) else rendered))
            out += [html_media(st, e)] if st.get("media") else []  # trial 16b, F2
            out += [f"<details class=\"step other data\"><summary>{RECORD_DATA}</summary><pre>{e(st['record_data'])}</pre>"
                    "</details>"] if st.get("record_data") else []
    if loose := _each(loose_executions(doc), mask):
        out.append("<h2 id=\"executions\">Tool executions with no step</h2><ul>" + "".join(f"<li>{e(x)}</li>" for x in loose) + "</ul>")
    if unres:
        out.append(f"<h2 id=\"unresolved\">Unresolved</h2><p class=\"meta\">{e(UNRESOLVED_ABOUT)}</p><ul>" + "".join(
            f"<li>{e(line)}" + "".join(f"<p class=\"meta\">{e(UNRESOLVED_RESULT)} {e(where)}:</p><pre>{e(_each([text], mask)[0])}</pre>"
                                       for where, text in results) + "</li>" for line, results in unres) + "</ul>")
    if und:
        out.append("<h2 id=\"undescribed\">Undescribed records</h2><ul>"
                   + "".join(f"<li>{e(x)}</li>" for x in _each(map(_undescribed_line, und), mask)) + "</ul>")
    return page(_title(doc), "\n".join(out))


def _other_html(st: dict, sid: str, head: str, e, prose) -> str:
    """Any other step's html: one line, the triangle, what it is, then when and its id, its text folded under it (trial
    4, F11); from render 28 a compaction boundary whose label says it in words its head alone, as md draws it (trial
    45b F5: render 27 folded the record's JSON under it). ``sid`` its id escaped, ``head`` its meta line, ``e`` the escaper,
    ``prose`` how its blocks' texts are drawn."""
    if st.get("line") and drawn() >= ARCHIVE_RENDER:
        return f"<div class=\"step other\" id=\"{sid}\">{head}</div>"
    return (f"<details class=\"step other\" id=\"{sid}\"><summary><b>{e(st['who'])}</b> "
            f"{isolated(context_label(st['text']))} <span class=\"meta\">· {e(step_when(st))} · "
            f"<span class=\"id\">{sid}</span></span></summary>"
            f"{html_blocks(st['blocks'], prose, e) if st.get('blocks') else '<pre>' + e(st['text']) + '</pre>'}</details>")


def build(root: str | os.PathLike, conversation: str, hide: Sequence[str], prices=None) -> dict:
    """The asz.view document the export renders (withholding ``hide``), its costs priced by ``prices`` (a
    :class:`~asz_core.view.prices.PriceTable`: the configuration's, as ``asz conversation`` prices them; None, the
    shipped table); raises ``ViewError`` as :func:`build_view`. What a check reads of it is kept, before any masking,
    while ``asz verify --export --root`` makes the copy again (:func:`~asz_core.reading.export_docs.keep`)."""
    from .export_docs import keep

    doc = build_view(root, conversation, hide=list(hide), prices=prices)
    keep(conversation, hide, doc)
    return doc
