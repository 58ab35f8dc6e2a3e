"""What the md and html exports say of the model calls and thinking a conversation holds (render 16; trial 41c F4, F6,
F8; docs/reading.md, ``asz export``).

- Each model call (an asz.view ``llm.call`` node with ``usage``) is drawn as one line before the first step it holds
  (:func:`call_line`): ``Model call claude-sonnet-4-5 · tokens in 5 · out 159 · cache read 500 · cache write 100 ·
  cost $0.01``, the words and numbers the page's call row draws (app.js ``rowTitle``: the node's ``usage``, read from
  the call's last fragment carrying usage, so a streamed call's final snapshot), its cost priced by the export's table
  where it has a price for the call's model (none said where it has not).
- Thinking blocks left out (no ``--thinking``) are counted in the head and said once on stderr
  (:func:`thinking_left_line`), those retention pruned apart: ``--thinking`` shows only a mark where each was.
- A runtime's notice whose text is its record's JSON (Claude Code's stop hook summary: the adapter's short form of it,
  ``stop hooks: 1 ran, 0 errors``, is on its heading) reads as one line in md, the record folded (:func:`record_folded`:
  its size, keys and where it landed; render 17: the commands it says ran, the hooks', in their place of the keys);
  the record stays whole in the json export and in the html's folded step.
- A call that started a sub-agent links its talk in html, and the talk links back to the call (:func:`spawned_links`).
"""

from __future__ import annotations

import re
from typing import Any, Iterable

import orjson

from ..view.placing import walk
from ..view.prices import PriceTable
from ..view.secret_forms import shown_title
from ..view.step_words import call_price, cost_words, notice_label
from ..view.summary import shorten
from ..view.titles import record_commands, record_line
from .export_blocks import inline_code, literal
from .export_render import NOTICE_LABEL_RENDER, drawn
from .md_active import inert
from .termtext import md_line, plain

#: What a step's record holds besides its text (a LangGraph chain run's envelope beside the person's prompt) is drawn
#: under this line: in a fenced block in Markdown, folded in HTML (trial 20, F11).
RECORD_DATA = "The record's other parts (context beside the text above, not part of it)"

__all__ = ["NOTICE_LINE", "ORPHAN_SIDECHAIN", "sidechain_said", "RECORD_DATA", "call_line", "call_cost", "UNPRICED_RENDER", "SHORT_LIMIT", "record_said", "calls_at", "calls_html", "calls_md", "framed", "one_line_notice", "ran_said", "record_folded",
           "spawned_links", "spawned_talks", "thinking_gone", "thinking_left", "thinking_left_line", "thinking_removed",
           "thinking_said", "THINKING_REMOVED", "tokens_said"]


def _num(v: Any) -> str:
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else "0" if v is None else str(v)


def tokens_said(u: dict) -> str:
    """``tokens in 5 · out 159 · cache read 500 · cache write 100`` (and `` (1-hour N)`` after the cache writes when
    the record names a 1-hour part), the page's words for a call's ``usage`` (app.js ``rowTitle``, ``writes``)."""
    hour = f" (1-hour {_num(u['cache_write_1h'])})" if u.get("cache_write_1h") else ""
    return (f"tokens in {_num(u.get('in'))} · out {_num(u.get('out'))} · cache read {_num(u.get('cache_read'))} · "
            f"cache write {_num(u.get('cache_write'))}{hour}")


def call_cost(n: dict, table: PriceTable | None) -> str:
    """The cost of ``llm.call`` node ``n`` as every reader prints one (:func:`~asz_core.view.step_words.call_price`,
    :func:`~asz_core.view.step_words.cost_words`: ``$0.01``, ``<$0.01``), each of its provider calls priced at its
    model's rates by ``table`` (None: the shipped table), at the long-context rates where it was one; from render 21
    (:data:`UNPRICED_RENDER`) ``unpriced (no price for MODEL)`` when a model of it has no price, where render 20 and
    before said no cost ('')."""
    exact, unpriced = call_price(n, table)
    if unpriced and drawn() < UNPRICED_RENDER:
        return ""
    return cost_words(exact, unpriced)


#: The render from which a call whose model has no price says so on its line (:func:`call_cost`; close43 "Not done").
UNPRICED_RENDER = 21


#: Said after a step's label when its record is a sub-agent's line in its parent's file drawn among the parent's
#: steps (the document's step ``sidechain``: no call started it, no prompt opened a talk for it; field report 34,
#: trial 43c F6): the head counts its call under subagents (render 19).
ORPHAN_SIDECHAIN = " (a sub-agent's line, isSidechain: no call that started it)"


def sidechain_said(n: dict) -> str:
    """:data:`ORPHAN_SIDECHAIN` for a step node the document marks ``sidechain``, drawn from render 19; else ''."""
    return ORPHAN_SIDECHAIN if n.get("sidechain") is True and drawn() >= 19 else ""


#: At most this many characters of a short form in a label (the record itself is drawn whole).
SHORT_LIMIT = 100


def record_said(s: dict, n: dict, rec: dict | None, dialect: str) -> None:
    """Step ``s`` of node ``n`` standing for a runtime's own record ``rec`` (a
    :data:`~asz_core.view.titles.SHORT_FORM_KINDS` kind), in place: from render 21 a notice the adapter of ``dialect``
    reads as an interrupt (its ``fixed_notice``) is labelled what it is, ``Interrupted by the person``
    (:func:`~asz_core.view.step_words.notice_label`), else its ``who`` takes the short form the adapter gives the record
    (masked before it is cut, as a title is), ``line`` when md draws that label alone (a compaction boundary: the record
    is JSON), and ``ran``, the commands it says ran, masked as the short form is
    (:func:`~asz_core.view.titles.record_commands`; md's folded line shows them, render 17)."""
    kind = n["kind"]
    if kind == "control.notice" and drawn() >= NOTICE_LABEL_RENDER and (label := notice_label(s["text"], dialect)):
        s["who"] = label + sidechain_said(n)
        return
    short = shorten(shown_title(plain(record_line(rec, dialect))), SHORT_LIMIT)
    s["ran"] = [(shown_title(plain(c)), ms) for c, ms in record_commands(rec, dialect)]
    s["who"] += f" ({short})" if short else ""
    s["line"] = bool(short) and kind == "epoch.boundary"


def call_line(n: dict, table: PriceTable | None) -> str:
    """The line a model call is drawn as (module docstring): ``Model call MODEL · tokens … · cost $…``; its
    ``usage_state`` ``last_seen`` (no end recorded) said after the tokens as ``(last snapshot, no end recorded)``."""
    bits = [f"Model call {n.get('model') or '(model not named)'}", tokens_said(n["usage"])]
    if n.get("usage_state") == "last_seen":
        bits[-1] += " (last snapshot, no end recorded)"
    if cost := call_cost(n, table):
        bits.append(f"cost {cost}")
    if n.get("replayed_in") and drawn() >= 19:  # its copy in another stream's file, drawn once (trial 43c F2)
        bits.append(f"replayed in {', '.join(n['replayed_in'])} (drawn once, here)")
    return " · ".join(bits)


#: The keys of an ``llm.call`` node a step's ``calls`` keeps (not its ``children``: the masker masks what a step holds).
_CALL_KEYS = ("id", "model", "usage", "usage_state", "requests", "long_context")


def calls_at(nodes: Iterable[dict], drawn: set[str]) -> dict[str, list[dict]]:
    """``{step id: [llm.call nodes' figures]}``: each call with usage under ``nodes`` (a talk's children), placed at the first
    step drawn after it in document order (its own first drawn step; a call none of whose steps is drawn, such as
    one of thinking alone without ``--thinking``, at the next step drawn), ids of drawn steps in ``drawn``."""
    out: dict[str, list[dict]] = {}
    waiting: list[dict] = []
    for n in walk(nodes):
        if n.get("kind") == "llm.call" and isinstance(n.get("usage"), dict):  # its figures, not its steps' texts
            waiting.append({k: n[k] for k in _CALL_KEYS if k in n})
            if isinstance(again := (n.get("attrs") or {}).get("replayed_in"), list):
                waiting[-1]["replayed_in"] = [str(x) for x in again]  # the streams whose copy no step draws
        elif waiting and n.get("id") in drawn:
            out[n["id"]], waiting = waiting, []
    return out


def thinking_left(doc: dict) -> int:
    """How many ``thinking`` nodes of ``doc`` (talks and ``loose``) hold a text ``--thinking`` would show (not one whose
    text retention removed: :func:`thinking_removed`)."""
    from .export_steps import UNREAD_THINKING

    return sum(n.get("kind") == "thinking" and n.get("state") not in UNREAD_THINKING and n.get("state") != "removed"
               for n in _nodes(doc))


def thinking_removed(doc: dict) -> int:
    """How many ``thinking`` nodes of ``doc`` retention pruned (state ``removed``: ``asz prune`` took the text and the
    state that said whether the runtime wrote one), of which ``--thinking`` shows only the removal mark."""
    return sum(n.get("kind") == "thinking" and n.get("state") == "removed" for n in _nodes(doc))


def _nodes(doc: dict) -> Iterable[dict]:
    return walk([*(doc.get("talks") or ()), *(doc.get("loose") or ())])


#: What :func:`thinking_left_line` says of thinking blocks retention pruned (close41: it said ``--thinking shows them``).
THINKING_REMOVED = "removed by retention (--thinking shows only a mark where each was)"


def thinking_left_line(n: int, removed: int = 0) -> str:
    """``3 thinking block(s) left out (--thinking shows them)`` for ``n`` blocks with a text; of a pruned root's
    ``removed`` blocks (:func:`thinking_removed`), ``19 thinking block(s) left out, removed by retention (--thinking
    shows only a mark where each was)``, after the first as ``; 19 more, removed …``; '' for none."""
    said = [f"{n:,} thinking block(s) left out (--thinking shows them)"] if n else []
    if removed:
        said.append(f"{removed:,} more, {THINKING_REMOVED}" if n else f"{removed:,} thinking block(s) left out, {THINKING_REMOVED}")
    return "; ".join(said)


def thinking_said(doc: dict) -> str:
    """:func:`thinking_left_line` of ``doc``: what an md or html head (render 16) and the stderr note say."""
    return thinking_left_line(thinking_left(doc), thinking_removed(doc))


_REMOVED = re.escape(THINKING_REMOVED.encode())
#: The head's line of :func:`thinking_left_line` in an md (``- N thinking …``) or html (``<p class="meta">N thinking …</p>``)
#: copy, the whole line with its newline.
_LEFT_LINE = re.compile(rb'^(?:- |<p class="meta">)[0-9,]+ thinking block\(s\) left out(?: \(--thinking shows them\)(?:; [0-9,]+ '
                        rb'more, ' + _REMOVED + rb')?|, ' + _REMOVED + rb')(?:</p>)?\n', re.M)


def thinking_gone(copy: bytes, again: bytes) -> tuple[bytes, set[int]]:
    """``again`` (an md or html copy made again from a root retention pruned) with its head's thinking line
    (:func:`thinking_left_line`) laid as the copy's head has it (the copy's line, or none), and that line of the copy
    (from 1) as not checkable: retention took each thinking block's text and the state that said whether the runtime
    wrote one (``unavailable``, ``complete`` -> ``removed``), so the pruned root cannot count them (render 16). Where
    ``again`` has no such line it is left as it was: the copy's line, if any, stays a difference."""
    theirs = _LEFT_LINE.search(again, 0, _head_end(again))
    if theirs is None:
        return again, set()
    mine = _LEFT_LINE.search(copy, 0, _head_end(copy))
    laid = again[:theirs.start()] + (mine.group(0) if mine else b"") + again[theirs.end():]
    return laid, {copy.count(b"\n", 0, mine.start()) + 1} if mine else set()


def _head_end(data: bytes) -> int:
    """Where an md or html copy's head ends: its first talk's heading (``## `` or ``<h2``), else its end."""
    ends = [i for i in (data.find(b"\n## "), data.find(b"<h2")) if i >= 0]
    return min(ends, default=len(data))


#: The longest notice text :func:`one_line_notice` draws on its heading's line.
NOTICE_LINE = 240


def one_line_notice(st: dict) -> str:
    """For a runtime's notice step (``control.notice``: Kiro's context usage, a tool approval asked or answered)
    whose text is one line of at most :data:`NOTICE_LINE` characters, with no media, the md line that stands for its
    record's other parts, folded (they stay in the landed record, which is evidence: ``RECORD_DATA: N bytes of JSON
    (keys a, b, …), folded: in FILE:ROW``), or ``folded`` when it has none; '' for any other step, drawn whole (trial
    36b F4: a 52-second Kiro IDE session exported to 700 lines of md, 240 of them these parts pretty-printed)."""
    text = st.get("text") or ""
    if (st.get("kind") != "control.notice" or st.get("withheld") or st.get("same_as") or st.get("blocks")
            or st.get("media") or not text.strip() or "\n" in text.strip() or len(text.strip()) > NOTICE_LINE):
        return ""
    data = st.get("record_data")
    if not data:
        return "folded"
    try:
        keys = list(orjson.loads(data)) if data.lstrip().startswith("{") else []
    except orjson.JSONDecodeError:
        keys = []
    what = f" (keys {', '.join(keys)})" if keys else ""
    where = f": in {st['record_at']}" if st.get("record_at") else ""
    return md_line(f"*{RECORD_DATA}: {len(data.encode('utf-8')):,} bytes of JSON{what}, folded{where}*")


def record_folded(st: dict) -> str:
    """For a runtime's notice step (``control.notice``) whose text is its record's JSON object of short fields (a
    Claude Code stop hook summary, ~28 lines of JSON; a record holding a longer text, a recap's, is drawn whole: its
    label cuts it), drawn by render 16 and later, the one md line standing for it: ``*The runtime's
    record: 612 bytes of JSON (keys type, subtype, hookCount, …), folded: in FILE:ROW; whole in the json export*``
    (trial 41c F8); '' for any other step."""
    text = (st.get("text") or "").strip()
    if drawn() < 16 or st.get("kind") != "control.notice" or st.get("withheld") or st.get("blocks") or not text.startswith("{"):
        return ""
    try:
        obj = orjson.loads(text)
    except orjson.JSONDecodeError:
        return ""
    if not isinstance(obj, dict) or _long_text(obj):
        return ""
    keys = list(obj)
    what = f" (keys {', '.join(keys[:6])}{', …' if len(keys) > 6 else ''})" if keys else ""
    where = f": in {st['record_at']}" if st.get("record_at") else ""
    if drawn() >= 17 and st.get("ran"):  # the commands it says ran, as claude-code-log draws a hook summary
        what, ran = "", f"Ran {', '.join(ran_said(c, ms) for c, ms in st['ran'])}. "
    else:
        ran = ""
    said = f"The runtime's record: {len(text.encode('utf-8')):,} bytes of JSON{what}, folded{where}; whole in the json export"
    return f"*{ran}{framed(said)}*"


#: The longest command :func:`ran_said` shows whole (characters); a longer one is cut there and its length said.
COMMAND_SHOWN = 200


def ran_said(command: str, ms: int | None) -> str:
    """One command a runtime's record says ran (:func:`record_folded`, render 17): on one line as every line asz frames
    (:func:`~asz_core.reading.termtext.md_line`: controls and line breaks shown as escapes), cut at
    :data:`COMMAND_SHOWN` characters with ``…`` and ``(N characters)`` after it, in a code span whose backticks outrun
    any it holds (:func:`~.export_blocks.inline_code`: a viewer shows it as written, runs no markup in it, so it takes
    no backslash escape), then its run time, `` (102 ms)``."""
    shown = md_line(command)
    cut = f"{shown[:COMMAND_SHOWN]}…" if len(shown) > COMMAND_SHOWN else shown
    size = f" ({len(shown):,} characters)" if cut is not shown else ""
    return inline_code(cut) + size + (f" ({ms:,} ms)" if ms is not None else "")


#: A record holding a string longer than this is drawn whole, not folded (:func:`record_folded`): a text to read.
FOLD_TEXT = 100


def _long_text(v: Any) -> bool:
    """Whether JSON value ``v`` holds, at any depth, a string longer than :data:`FOLD_TEXT` characters (a recap's
    ``content``, which its label cuts)."""
    if isinstance(v, str):
        return len(v) > FOLD_TEXT
    if isinstance(v, dict):
        return any(map(_long_text, v.values()))
    return isinstance(v, list) and any(map(_long_text, v))


def calls_md(st: dict, table: PriceTable | None) -> list[str]:
    """The md lines of the model calls placed at step ``st`` (its ``calls``: :func:`calls_at`), each
    ``*Model call … · tokens … · cost $…* · `call/ID``` and a blank line; [] before render 16."""
    if drawn() < 16:
        return []
    return [x for n in st.get("calls") or () for x in (f"*{framed(call_line(n, table))}* · `{md_line(n['id'])}`", "")]


def framed(text: str) -> str:
    """``text`` (a line asz frames in md whose values a transcript gave: a call's model, a record's keys) as the md
    head's lines and the index's cells are drawn: one line (:func:`~asz_core.reading.termtext.md_line`), backslashes a
    viewer reads as escapes escaped (:func:`~.export_blocks.literal`), and each ``<`` and ``[`` escaped
    (:func:`~.md_active.inert`, render 9), so a viewer runs nothing it holds and the file's active-content warning
    counts only the texts' (fix41j: a model named ``claude-<script>…`` ran raw in render 16's call line). str in."""
    return inert(literal(md_line(text)))


def calls_html(st: dict, table: PriceTable | None, e) -> str:
    """The html of the model calls placed at step ``st``, one ``<p class="meta call">`` each (``e`` escapes text);
    '' before render 16."""
    if drawn() < 16:
        return ""
    return "".join(f"<p class=\"meta call\" id=\"{e(n['id'])}\">{e(call_line(n, table))} <span class=\"id\">{e(n['id'])}</span></p>"
                   for n in st.get("calls") or ())


def spawned_talks(doc: dict) -> dict[str, str]:
    """``{call step id: talk id}``: the first talk of each stream of ``doc`` one call started (its one
    ``exact_unique`` ``opened_by`` step), as the page and :func:`~asz_core.view.placing.asks` tie them."""
    out: dict[str, str] = {}
    for st in doc.get("streams") or ():
        exact = [o for o in st.get("opened_by") or () if isinstance(o, dict) and o.get("quality") == "exact_unique"]
        if len(exact) == 1 and isinstance(st.get("talk"), str) and isinstance(exact[0].get("step"), str):
            out[exact[0]["step"]] = st["talk"]
    return out


def spawned_links(doc: dict, talks: list[dict], e) -> tuple[dict[str, str], dict[str, str]]:
    """``(to_talk, back)`` for the html export (render 16; trial 41c F7), ``talks`` the drawn talks
    (:func:`~asz_core.reading.export_steps.steps`): ``to_talk`` maps a drawn call step's id to the line under it,
    ``sub-agent: <a href="#TALK">Talk 2: heading</a>``, and ``back`` a talk's id to the line under its heading,
    ``called by <a href="#STEP">Task, in Talk 1</a>``; both empty before render 16 (``e`` escapes text)."""
    from .export import isolated

    if drawn() < 16:
        return {}, {}
    number = {t["talk"]["id"]: i for i, t in enumerate(talks, 1) if t["talk"] is not None}
    heads = {t["talk"]["id"]: t["heading"] for t in talks if t["talk"] is not None}
    where = {s["id"]: (i, s) for i, t in enumerate(talks, 1) for s in t["steps"]}
    to_talk, back = {}, {}
    for sid, tid in spawned_talks(doc).items():
        if sid not in where or tid not in number:
            continue
        i, s = where[sid]
        to_talk[sid] = f"<p class=\"meta sub\">sub-agent: <a href=\"#{e(tid)}\">Talk {number[tid]}: {isolated(heads[tid])}</a></p>"
        back[tid] = f"<p class=\"meta\">called by <a href=\"#{e(sid)}\">{e(s.get('name') or s['kind'])}, in Talk {i}</a></p>"
    return to_talk, back
