"""The steps ``asz export`` draws (Markdown and HTML, :mod:`.export`): the talks of an asz.view document with whole
texts read from the landed records the steps cite, and the document's ``loose`` nodes put in place in record order
(docs/reading.md, ``asz export``)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Mapping

import orjson

from ..flow.model import Ref
from ..sessiondata import SDError, SDReader
from ..sessiondata.untimed import untimed, untimed_at
from ..storage.layout import landed_files
from ..view.kinds import copy_pair, copy_taken, taken_after, taken_said
from ..view.rate_words import ERROR_LABELS, LOST, kept_text
from ..view.placing import asked_steps, asks, call_prompts, loose_talks, position, repeats, reports, walk
from ..view.summary import HEADING_LIMIT, short_title
from ..view.secret_forms import Masker, masked_cut
from ..view.titles import SHORT_FORM_KINDS, talk_headings
from ..view.tool_tallies import refusal
from .export_blocks import BLOCK_STEPS, read_blocks
from .export_calls import calls_at, record_said, sidechain_said
from .export_render import PAIRED_RENDER, SUBAGENT_RENDER, drawn
from .termtext import md_line, plain

__all__ = ["ASKED", "EMBEDDED", "LOST", "UNREAD_THINKING", "clipped", "cut_steps", "taken_said", "record_texts", "whole_texts", "masked_steps", "masked_document", "media_line", "Step", "part_marker", "steps",
           "talk_heading", "child_label", "thinking_note", "unread_thinking", "redacted_thinking", "UNREAD_MARK", "unverified_files", "unverified_marker"]


#: The label of a talk's prompt (what a sub-agent was asked), drawn at the head of its talk.
ASKED = "Asked (the prompt this talk was given)"

_SHOWN = ("message.external", "message.assistant", "thinking", "tool", "agent.call", "context.injection", "agent.output",
          "runtime.notification", "error.api", "control.interrupt", "control.permission", "control.command", "control.notice",
          "epoch.boundary", "epoch.summary", "message.synthetic")
_WHO = {"message.external": "Person", "message.assistant": "Assistant", "agent.output": "Agent output",
        "message.synthetic": "Runtime", "thinking": "Thinking", "context.injection": "Context",
        "epoch.boundary": "Context compacted", "epoch.summary": "Summary the model continued from",
        "control.notice": "Runtime notice", "runtime.notification": "Runtime notification", "error.api": "API error",
        "control.interrupt": "Interrupt", "control.permission": "Permission", "control.command": "Command"}
#: The kinds whose label carries the adapter's short form of their record (:func:`~asz_core.view.titles.record_line`).
_SHORT = SHORT_FORM_KINDS


class Step(dict):
    """One step to render: ``id``, ``kind``, ``at`` (unix ms), ``who``, ``text`` (whole), ``withheld`` (bytes or 0),
    ``line`` (True) on a compaction boundary its label reads in words, ``untimed`` on one whose record's time does not
    read (:func:`untimed_step`, drawn in its time's place: :func:`~asz_core.reading.export.step_when`), and for a tool ``name``, ``input``, ``result``, ``result_withheld``,
    ``result_state`` and ``result_bytes`` (the node's; no state: no result landed), ``failed``, ``refused``, and ``report`` when its result is its
    subagent's report (:func:`~asz_core.view.placing.reports`: ``{"said": [ids of the steps that draw it], "talk": the
    number of that subagent's talk, "rest": what the result holds after it}``), ``ask`` when its input holds its
    subagent's prompt, which that talk draws at its head (:func:`~asz_core.view.placing.asks`: ``{"key": the input's
    key, "talk": the talk's number}``); ``asked`` (True) on an injection that is what its talk was asked
    (:func:`~asz_core.view.placing.asked_steps`), drawn as a prompt; ``record_data`` (the JSON of the data parts of a
    record whose text parts are the step's text) and ``record_at`` (``FILE:ROW``, that record's landed file and row)."""


def _records(root: Path, session: str) -> dict[tuple[int, int], dict]:
    """Records of the session's landed files by (seq, row); a file that does not verify gives none (its text is not
    evidence: the document says so and :func:`steps` puts :func:`unverified_marker` in its place)."""
    out: dict[tuple[int, int], dict] = {}
    for ln, path in landed_files(root / session, skeletons=True) if (root / session).is_dir() else []:
        got: dict[tuple[int, int], dict] = {}
        try:  # a skeleton's parts say removed (part_marker)
            for row, rec in SDReader(path, decode="dict"):
                got[(ln.seq, row)] = rec
        except (SDError, OSError):
            continue  # the document says the file does not verify
        out.update(got)
    return out


def unverified_files(doc: dict) -> dict[int, dict]:
    """seq -> ``files`` entry of each landed file of ``doc`` that does not verify (the entry's ``problem``)."""
    return {f["seq"]: f for f in doc.get("files", ()) if f.get("problem") and isinstance(f.get("seq"), int)}


def unverified_marker(f: dict) -> str:
    """What stands in place of text read from a landed file that does not verify: ``[not shown: landed file … does not
    verify: digest mismatch: … (line 951)]``."""
    return f"[not shown: landed file {f['file']} does not verify: {f['problem']}]"


# LOST: what stands in place of a part whose content is not in the root, by its ``state`` (seed 000: a part too large
# to land holds nothing, a skeleton's part was removed by retention): the page's words, from their one place
# (asz_core.view.rate_words).


def part_marker(p: dict, rec: dict | None = None) -> str:
    """``[too large to land: 30,000,005 bytes, sha256 3a55…]`` / ``[removed by retention: N bytes]`` for a part whose
    content is not in the root (``state`` too_large or removed, :data:`LOST`; ``bytes`` is the original's size, and a
    part too large to land gives the SHA-256 of what was taken out, 64 hex, to match another copy against: seed 000,
    Too large to land; trial 24b F1), else ''. A part of record ``rec`` (given) whose text went after the runtime's
    structured copy (:func:`~asz_core.view.kinds.copy_taken`) says each size beside its own object's digest from
    render 39 (:data:`~asz_core.reading.export_render.PAIRED_RENDER`; trial 47d F7: the text's size beside the copy's
    digest): ``[too large to land: text 3,228,902 bytes (its sha256 not recorded); the runtime's structured copy
    3,273,970 bytes, sha256 8f59…]``."""
    why = LOST.get(p.get("state", ""))
    if why is None:
        return ""
    n, sha = p.get("bytes"), p.get("sha256")
    if rec is not None and p.get("state") == "too_large" and drawn() >= PAIRED_RENDER:
        block = next((i for i, q in enumerate(rec.get("parts") or ()) if q is p), None)
        if block is not None and (size := copy_taken(rec, block, p)) is not None:
            return f"[{why}: {copy_pair(n, None, size, sha)}]"
    said = [f"{n:,} bytes"] if isinstance(n, int) and not isinstance(n, bool) else []
    said += [f"sha256 {sha}"] if p.get("state") == "too_large" and isinstance(sha, str) and sha else []
    return f"[{why}: {', '.join(said)}]" if said else f"[{why}]"


def cut_steps(doc: dict, called: dict[str, str] | None = None) -> list[str]:
    """One line for each step of the asz.view document ``doc`` (its talks and ``loose``) whose text, or whose tool's
    result, was made smaller to land (seed 000, Too large to land; trial 24b F1): ``input/2/1 (message.external): text
    too large to land: 6,210,045 bytes, sha256 3a55…`` (``truncated to land`` when it kept some of its text), by the
    node id ``asz show`` takes; then each result no step draws, its call never landed (``not_drawn``, trial 47c F1),
    by its record id: ``record ID (seq 2, row 1; its call never landed): result too large to land: …`` (``called``: record
    id -> where its call is instead, :func:`~asz_core.reading.repeated_call.repeated_calls`); [] when none was."""
    said = {"too_large": LOST["too_large"], "truncated": "truncated to land"}
    out = []
    orphans = [{**nd, "kind": f"seq {(nd.get('ref') or {}).get('seq')}, row {(nd.get('ref') or {}).get('row')}; " + (called or {}).get(
                nd.get("id"), "its call never landed"), "id": f"record {nd.get('id')}"} for nd in doc.get("not_drawn") or ()
               if nd.get("why") == "unresolved" and nd.get("result_state") in said]
    for n in [*walk([*(doc.get("talks") or ()), *(doc.get("loose") or ())]), *orphans]:
        for what, state, size, sha in (("text", "state", "bytes", "sha256"),
                                       ("result", "result_state", "result_bytes", "result_sha256")):
            if what == "result" and n.get("result_taken"):
                out.append(f"{n.get('id')} ({n.get('kind')}): {taken_said(n)}")
            elif n.get(state) in said:
                bits = [f"{n[size]:,} bytes"] if isinstance(n.get(size), int) else []
                bits += [f"sha256 {n[sha]}"] if n.get(sha) else []
                out.append(f"{n.get('id')} ({n.get('kind')}): {what} {said[n[state]]}: {', '.join(bits)}")
    return out


#: The states of a reasoning part (a ``thinking`` node) the runtime wrote without its text (origin-digest §5.1: an
#: empty Claude Code ``thinking`` block, signature only, is ``unavailable``; a ``redacted_thinking`` block
#: ``redacted``): ``--thinking`` has nothing to show of it (trial 21: Claude Code 2.1 writes every one so).
UNREAD_THINKING = frozenset({"unavailable", "redacted"})


def unread_thinking(doc: dict) -> int:
    """How many ``thinking`` nodes of the asz.view document ``doc`` (its talks and ``loose``) hold no text because the
    runtime wrote them without it (state in :data:`UNREAD_THINKING`)."""
    return sum(n.get("kind") == "thinking" and n.get("state") in UNREAD_THINKING
               for n in walk([*(doc.get("talks") or ()), *(doc.get("loose") or ())]))


def redacted_thinking(doc: dict) -> int:
    """How many of :func:`unread_thinking`'s nodes are redacted (state ``redacted``: a ``redacted_thinking`` block,
    its reasoning encrypted by the provider), not written empty (state ``unavailable``)."""
    return sum(n.get("kind") == "thinking" and n.get("state") == "redacted"
               for n in walk([*(doc.get("talks") or ()), *(doc.get("loose") or ())]))


def thinking_note(n: int, redacted: int = 0) -> str:
    """What ``asz export --thinking`` says, once, where the first of ``n`` thinking blocks with no text would be drawn
    (and on stderr), ``redacted`` of them redacted (encrypted by the provider: a ``redacted_thinking`` block), the rest
    written empty by the runtime (Claude Code 2.1's ``thinking: ""`` beside a signature), each count said only when not
    0 (trial 31b F9: the two were said in the same words): ``[14 thinking block(s) hold no text: 14 written empty by
    the runtime; --thinking cannot show them]``, ``[3 thinking block(s) hold no text: 2 written empty by the runtime, 1
    redacted (encrypted by the provider); --thinking cannot show them]``."""
    why = [f"{n - redacted:,} written empty by the runtime"] if n - redacted else []
    why += [f"{redacted:,} redacted (encrypted by the provider)"] if redacted else []
    return f"[{n:,} thinking block(s) hold no text: {', '.join(why)}; --thinking cannot show them]"


#: Where the note on thinking with no text goes until the conversation's counts are known (a character no record
#: holds as text: U+FDD0 is a noncharacter); a turn whose text is this alone is the audit form's kind ``thinking_note``.
UNREAD_MARK = "\ufdd0thinking\ufdd0"


def _part_text(p: dict, rec: dict | None = None) -> str:
    text = kept_text(p)  # a refusal's fixed answer a skeleton kept, the reason's marker after it
    if not text and p.get("data") is not None:
        text = orjson.dumps(p["data"], default=str, option=orjson.OPT_INDENT_2).decode("utf-8")
    return text or part_marker(p, rec)


def _ref_text(recs: dict, ref: dict | None, kinds: tuple[str, ...] = ("text", "reasoning", "result", "call", "data")) -> str:
    if not ref:
        return ""
    r = Ref.from_dict(ref)
    rec = recs.get((r.seq, r.row))
    if rec is None:
        return ""
    parts = rec.get("parts", ())
    if r.block is not None:
        parts = [parts[r.block]] if 0 <= r.block < len(parts) else []
    return "\n".join(t for t in (_part_text(p, rec) for p in parts if p.get("k") in kinds) if t)


def _text_apart(recs: dict, ref: dict | None, s: dict, files: dict[int, str] | None = None) -> str:
    """The text of a step whose ``ref`` names a whole record (no block): when that record holds text parts and data
    parts, its text parts joined, as the document's ``text`` reads it (``nodes._content``), and the data parts' JSON
    kept apart in ``s["record_data"]`` (trial 20, F11: a LangGraph chain run's envelope was drawn after the person's
    prompt as if part of it), with ``s["record_at"]``, ``FILE:ROW`` (``files``: each landed file by seq), where the
    record is for a reader that folds them (trial 36b F4; on every step from render 16, trial 41c F8); otherwise
    :func:`_ref_text`, every part, as before."""
    rec = recs.get((ref.get("seq"), ref.get("row"))) if ref and ref.get("block") is None else None
    parts = rec.get("parts", ()) if rec else ()
    texts = [p["text"] for p in parts if p.get("k") in ("text", "reasoning", "result") and p.get("text")]
    data = [_part_text(p) for p in parts if p.get("k") == "data"]
    s["record_at"] = _landed_at(ref, files or {})  # where the record is, for a reader that folds it (trial 41c F8)
    if not texts or not data:
        return _ref_text(recs, ref)
    s["record_data"] = "\n".join(t for t in data if t)
    return "\n".join(texts)


def steps(root: str | os.PathLike, doc: dict, *, thinking: bool = False, dialect: str = "") -> list[dict]:
    """The talks of ``doc`` as ``[{"talk": talk node, "heading": its heading (:func:`talk_heading`), "steps": [Step…],
    "prompt": Step or None}]`` (``prompt``: what a sub-agent was asked, whole from the record its ``ref`` cites, ``who``
    :data:`ASKED`) with whole texts from the landed records; a person's or injected step whose text the adapter of
    ``dialect`` reads in blocks (a command as typed, its output: :func:`~asz_core.view.titles.prompt_blocks`) carries
    them as ``blocks``, a step a model call is drawn at its ``calls`` (:func:`_with_calls`)."""
    root = Path(root)
    recs = _records(root, doc["sessions"][0]) if doc.get("sessions") else {}
    bad, executed = unverified_files(doc), {e.get("id"): e for e in doc.get("tool_executions") or () if e.get("step")}

    def held(ref: dict | None) -> str:  # the marker for text a file that does not verify would have given, else ''
        return unverified_marker(bad[ref["seq"]]) if ref and ref.get("seq") in bad else ""

    if bad:  # what such a file holds is not read as evidence, even when it reads (rewritten whole, closing line too)
        recs = {k: v for k, v in recs.items() if k[0] not in bad}

    files = {f["seq"]: f["file"] for f in doc.get("files") or () if isinstance(f, dict) and isinstance(f.get("file"), str)}
    heads = talk_headings(doc, dialect, HEADING_LIMIT, record=lambda ref: recs.get((ref.get("seq"), ref.get("row"))), clean=plain, subagents=(new := drawn() >= SUBAGENT_RENDER))
    asked_by = set(asked_steps(doc, ordered=new).values())  # an old sidechain's opening prompt (render 27: before its first reply)
    unread = [unread_thinking(doc) if thinking else 0]  # said once, in the first one's place, then 0
    redacted, said_no = redacted_thinking(doc) if unread[0] else 0, refusal(dialect)  # refusal: its adapter asked once

    def step(n: dict) -> Step | None:  # one node as a step to draw, None when it is not drawn
        kind = n["kind"]
        if kind not in _SHOWN or (kind == "thinking" and not thinking):
            return None
        who = (ERROR_LABELS.get(n.get("failed", ""), _WHO["error.api"]) if kind == "error.api" else _WHO.get(kind, kind)) + sidechain_said(n)
        s = Step(id=n["id"], kind=kind, at=n.get("at") or 0, who=who, text="", withheld=0)  # an error: what failed (32a F7)
        first = _first_ref(n)
        if kind in ("tool", "agent.call"):
            _tool_step(s, n, recs, held, said_no)
            s["executions"] = [executed[x] for x in n.get("executions") or () if x in executed]  # server, time, outcome
        elif n.get("state") == "omitted":
            s["withheld"] = n.get("bytes", 0) or 1
        else:
            s["text"] = _text_apart(recs, first, s, files) or n.get("text", "") or held(first)
            if not s["text"].strip() and kind == "thinking" and n.get("state") in UNREAD_THINKING and unread[0]:
                s["text"], unread[0] = thinking_note(unread[0], redacted), 0
            if not s["text"].strip():
                if not n.get("media"):
                    return None  # an empty fragment is not drawn; one that carries an image is (its placeholder)
                s["text"] = ""
            s["blocks"] = read_blocks(s["text"], dialect) if kind in BLOCK_STEPS else None
            if n["id"] in asked_by:  # drawn as a talk's prompt is: what the talk was asked, as Markdown
                s["who"], s["asked"] = ASKED, True
        if kind in _SHORT and not s["withheld"]:
            record_said(s, n, recs.get((first["seq"], first["row"])) if first else None, dialect)
        s["media"] = [_with_data(m, recs) for m in n.get("media") or () if isinstance(m, dict)]
        if not s["at"] and first and (said := untimed_step(recs.get((first["seq"], first["row"])), files.get(first["seq"]), first["row"])):
            s["untimed"] = said  # its record's time does not read: said where the time would be (trial 30a F8)
        return s

    given = call_prompts(doc, dialect, lambda ref: recs.get((ref.get("seq"), ref.get("row"))))

    def asked(talk: dict) -> Step | None:  # a talk's prompt (what a sub-agent was asked), whole from its record
        if not talk.get("prompt"):  # else what the call that started it asked (an agent file with no prompt line)
            got = given.get(talk["id"])
            return Step(id=f"prompt/{got['from']}", kind="prompt", at=talk.get("at") or 0, who=ASKED, text=got["text"],
                        withheld=0) if got else None
        ref = talk.get("ref")
        text = _ref_text(recs, ref, ("text",)) or talk["prompt"] or held(ref)
        return Step(id=f"prompt/{ref['seq']}/{ref['row']}" if ref else f"prompt/{talk['id']}", kind="prompt",
                    at=talk.get("at") or 0, who=ASKED, text=text, withheld=0)

    out = []
    for talk in doc.get("talks", ()):
        shown = _once([(position(n), s) for n in walk(talk.get("children", ())) if (s := step(n)) is not None])
        out.append({"talk": talk, "heading": talk_heading(doc, talk, heads), "steps": shown, "prompt": asked(talk)})
    outside = _once(_place_loose(doc, out, step))
    placed, loose = (loose_talks(doc), [n for n in doc.get("loose") or () if isinstance(n, dict)]) if drawn() >= 18 else ({}, [])
    for t in out:  # a model call's line on its first drawn step, in a talk or a loose node drawn there
        _with_calls([*t["talk"].get("children", ()), *(n for n in loose if placed.get(n.get("id")) == t["talk"]["id"])], t["steps"])
    _with_calls([n for n in loose if n.get("id") not in placed], outside)
    _said_once(out, reports(doc, lambda ref: recs.get((ref.get("seq"), ref.get("row")))))
    _asked_once(out, asks(doc, dialect, lambda ref: recs.get((ref.get("seq"), ref.get("row"))), given))
    for t in out:
        t["steps"] = [s for _, s in t["steps"]]
    if outside:
        out.append({"talk": None, "heading": "Outside any talk", "steps": [s for _, s in outside], "prompt": None})
    return out


def _with_calls(nodes: list[dict], shown: list[tuple[tuple, Step]]) -> None:
    """Each model call under ``nodes`` (a talk's children and the loose nodes drawn in it, or the loose nodes drawn
    outside any talk) put on the step of ``shown`` it is drawn at (:func:`~.export_calls.calls_at`), as that step's
    ``calls`` (trial 41c F4, 43b F1)."""
    placed = calls_at(nodes, {s["id"] for _, s in shown})
    for _, s in shown:
        if s["id"] in placed:
            s["calls"] = placed[s["id"]]


def _landed_at(ref: dict | None, files: dict[int, str]) -> str:
    """``FILE:ROW`` of the record ``ref`` names (``files``: each landed file by seq), '' for none."""
    if not ref or not isinstance(ref.get("seq"), int):
        return ""
    return f"{files.get(ref['seq'], 'seq ' + str(ref['seq']))}:{ref.get('row')}"


#: The image types the HTML export draws from their data (raster formats a browser shows inert in ``<img>``).
EMBEDDED = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def untimed_step(rec: dict | None, file: str | None, row: int) -> str:
    """What a step's line says in its time's place when its record ``rec`` (row ``row`` of the landed ``file`` under
    the root) gives a time that does not read (:func:`~asz_core.sessiondata.untimed.untimed_at`: ``time does not read
    ('yesterday', S/streams/main/transcript-….sd line 3)``); '' for any other record."""
    if rec is None or not untimed(t := rec.get("time")):
        return ""
    return untimed_at(t, f"{file} line {row + 1}" if file else f"line {row + 1}")


def _with_data(m: dict, recs: dict) -> dict:
    """A node's ``media`` entry (docs/view.md: ``ref``, ``mime``, ``bytes``, ``state``, ``digest``, ``kept``) with
    ``data``, the base64 text of the part it cites, when it is kept, of an :data:`EMBEDDED` type and plain base64."""
    m = dict(m)
    r = m.get("ref") or {}
    rec = recs.get((r.get("seq"), r.get("row")))
    parts = rec.get("parts") or () if rec else ()
    b = r.get("block")
    part = parts[b] if isinstance(b, int) and 0 <= b < len(parts) else None
    data = part.get("data") if isinstance(part, dict) and part.get("k") == "media" else None
    if m.get("kept") and m.get("mime") in EMBEDDED and isinstance(data, str) and data and _BASE64.fullmatch(data):
        m["data"] = data
    return m


def media_line(m: dict) -> str:
    """The placeholder a media part is drawn as: ``[image: image/png, 1,046,384 bytes, sha256 1f77…; decoded: 784,786
    bytes, sha256 668f…]`` (``bytes`` the base64 text's length, the whole SHA-256 of it as a JSON string; then, where
    the document gives them, the size and SHA-256 of the decoded bytes, the image file itself; ``too large to land``
    when it did not land; ``media`` for a type that is not an image). The type is the transcript's own word, drawn
    through :func:`~asz_core.reading.termtext.md_line` as every head line is (review34, after trial 34c F4: an image's
    ``media_type`` holding an OSC reached the md export raw)."""
    mime = md_line(str(m.get("mime") or "unknown type"))
    what = "image" if mime.startswith("image/") else "media"
    n = m.get("bytes")
    bits = [mime] + ([f"{n:,} bytes"] if isinstance(n, int) and not isinstance(n, bool) else [])
    if m.get("state") in LOST:
        bits.append(LOST[m["state"]])
    if m.get("digest"):
        bits.append(f"sha256 {m['digest']}")
    decoded = m.get("decoded_bytes")
    if m.get("decoded_sha256") and isinstance(decoded, int):  # the image file's own bytes (trial 31b F8)
        return f"[{what}: {', '.join(bits)}; decoded: {decoded:,} bytes, sha256 {m['decoded_sha256']}]"
    return f"[{what}: {', '.join(bits)}]"


def _once(shown: list[tuple[tuple, Step]]) -> list[tuple[tuple, Step]]:
    """``shown`` with each ``agent.output`` step that repeats the talk's last message (:func:`~asz_core.view.placing.repeats`,
    trial 16b, F5) marked ``same_as`` (the ids of the message steps), so that it is drawn as one line naming them."""
    same = repeats([(at, s["kind"], s["id"], None if s["withheld"] else s["text"]) for at, s in shown])
    for _, s in shown:
        if s["id"] in same:
            s["same_as"] = same[s["id"]]
    return shown


def _said_once(talks: list[dict], given_back: dict[str, dict]) -> None:
    """Mark each tool step of ``talks`` whose result is its subagent's report (``given_back``,
    :func:`~asz_core.view.placing.reports`) with ``report``: the ids of the steps that draw the report (the output's
    ``same_as``, else the output), its talk's number, and the rest of the result, so that the report is drawn once."""
    steps = {s["id"]: s for t in talks for _, s in t["steps"]}
    number = {t["talk"]["id"]: i for i, t in enumerate(talks, 1) if t["talk"] is not None}
    for sid, r in given_back.items():
        st, output = steps.get(sid), steps.get(r["output"])
        if st is not None and output is not None and not st["result_withheld"] and r["talk"] in number:
            st["report"] = {"said": output.get("same_as") or [r["output"]], "talk": number[r["talk"]], "rest": r["rest"]}


def _asked_once(talks: list[dict], prompts_in: dict[str, dict]) -> None:
    """Mark each tool step of ``talks`` whose input holds its subagent's prompt (``prompts_in``,
    :func:`~asz_core.view.placing.asks`) with ``ask``: the input's key and the number of the talk that draws the prompt
    at its head, so that the prompt is drawn once, there, as the page draws it (session 20)."""
    steps = {s["id"]: s for t in talks for _, s in t["steps"]}
    number = {t["talk"]["id"]: i for i, t in enumerate(talks, 1) if t["talk"] is not None}
    for sid, a in prompts_in.items():
        st = steps.get(sid)
        if st is not None and not st["withheld"] and a["talk"] in number:
            st["ask"] = {"key": a["key"], "talk": number[a["talk"]]}


def _tool_step(s: Step, n: dict, recs: dict, held, said_no=lambda result: False) -> None:
    """Fill a tool or agent call's step ``s`` from its node ``n``: ``name``, ``failed``, ``input`` and ``result`` whole
    from the records ``recs`` its ``refs`` cite (``held(ref)``, the marker of a file that does not verify, when they
    give none), ``withheld`` / ``result_withheld`` (bytes) when the document withholds them, ``refused`` (True when
    the result is its runtime's fixed answer to a call the person refused, as ``said_no(result)`` reads it: the
    conversation's dialect's :func:`~asz_core.view.tool_tallies.refusal`, trial 38a F4)."""
    s["name"], s["failed"] = n.get("name", ""), bool(n.get("failed"))
    refs = n.get("refs") or ([n["ref"]] if n.get("ref") else [])
    s["withheld"] = n.get("bytes", 0) if n.get("state") == "omitted" else 0
    s["input"] = "" if s["withheld"] else _ref_text(recs, refs[0] if refs else None, ("call", "text"))
    s["result_withheld"] = n.get("result_bytes", 0) if n.get("result_state") == "omitted" else 0
    s["result_state"], s["result_bytes"] = n.get("result_state"), n.get("result_bytes")
    s["result"] = "" if s["result_withheld"] or len(refs) < 2 else _ref_text(recs, refs[1], ("result", "text"))
    if not s["result"] and not s["result_withheld"]:
        s["result"] = n.get("result", "") or held(refs[1] if len(refs) > 1 else None)
    if not s["result"] and s["result_state"] == "removed":  # a relayed call's result, its copy a skeleton's (fix50i):
        s["result"] = part_marker({"state": "removed", "bytes": s["result_bytes"]})  # no result part to read it from
    if not s["input"] and not s["withheld"]:
        s["input"] = held(refs[0] if refs else None)
    s["refused"] = said_no(s["result"])
    if s["result"]:  # the structured copy taken out, said after the text kept whole (40c F1)
        s["result"] += taken_after(n)



def record_texts(root: str | os.PathLike, doc: dict, refs: list[dict], kinds: tuple[str, ...] = ("result", "text")) -> list[str]:
    """The whole text of the parts of ``kinds`` of each landed record ``refs`` cite (``{"seq", "row"}``) in the first
    session of the asz.view document ``doc``, as a step's is read; '' for one in a file that does not verify (the
    document says so) or holding none."""
    if not refs or not doc.get("sessions"):
        return ["" for _ in refs]
    bad = unverified_files(doc)
    recs = {k: v for k, v in _records(Path(root), doc["sessions"][0]).items() if k[0] not in bad}
    return [_ref_text(recs, ref, kinds) for ref in refs]


def _first_ref(n: dict) -> dict | None:
    return n.get("ref") or ((n.get("refs") or [None])[0])


def _place_loose(doc: dict, talks: list[dict], step) -> list[Step]:
    """Put each drawn ``loose`` node of ``doc`` (a compaction's boundary and summary, injected context: nodes under
    no talk, docs/view.md) among ``talks``' ``(position, Step)`` pairs in record order: in the talk of its stream
    that opened last at or before it (:func:`~asz_core.view.placing.loose_talks`, the page's rule too), after that
    talk's steps from before it; one before every talk of its stream at the head of the stream's first talk. A node not
    drawn itself (a model call in no talk) draws those under it, from render 18 (trial 43b F1). Returns the
    ``(position, Step)`` pairs of nodes whose stream has no talk (drawn apart, ``Outside any talk``)."""
    outside: list[tuple[tuple, Step]] = []
    placed, by_id = loose_talks(doc), {t["talk"]["id"]: t for t in talks}
    for top in doc.get("loose") or ():
        t = by_id.get(placed.get(top.get("id"), "")) if isinstance(top, dict) else None
        for n in walk([top]) if drawn() >= 18 else [top]:  # a model call in no talk draws its steps (43b F1)
            s = step(n)
            if s is None:
                continue
            at = position(n)
            if t is None:
                outside.append((at, s))
                continue
            i = 0
            while i < len(t["steps"]) and not (t["steps"][i][0][0] == at[0] and t["steps"][i][0] > at):
                i += 1
            t["steps"].insert(i, (at, s))
    return outside


def talk_heading(doc: dict, talk: dict, heads: Mapping[str, str]) -> str:
    """A talk's heading, on one line and at most :data:`HEADING_LIMIT` characters: ``heads``' (its label read as a
    title is: :func:`~asz_core.view.titles.talk_headings`, terminal formatting removed; Claude Code's command markup
    reads ``/context``, a bash-mode command's output alone the command, ``! ls``); a child's talk with none is named as
    the page names it, ``Subagent: `` and its stream's label (what its parent asked it to do), else the talk's id. The
    document's label itself stays as the record holds it."""
    if heads.get(talk["id"]):
        return heads[talk["id"]]
    return short_title(child_label(doc, talk), "", HEADING_LIMIT) or talk["id"]


def child_label(doc: dict, talk: dict) -> str:
    """What a child's talk (``talk["child"]`` true: a sub-agent's stream) with no label of its own is named by, as
    the page names it: ``Subagent: `` and the label of its stream among ``doc["streams"]`` (what its parent asked it
    to do: ``Subagent: Explore Tmux module and test setup``), else the stream's name; '' for a talk that is no
    child's or whose stream the document does not list. Raw text: each reader masks and cuts it as it does a label
    (an export's heading, ``asz conversation``'s costliest talks)."""
    if not talk.get("child"):
        return ""
    stream = next((st for st in doc.get("streams") or () if st.get("name") == talk.get("stream")), None)
    return "" if stream is None else "Subagent: " + str(stream.get("label") or stream.get("name") or "")


def clipped(doc: dict) -> int:
    """How many texts of the asz.view document ``doc`` reach its clip (:data:`~asz_core.view.kinds.TEXT_LIMIT`, 2,000
    UTF-8 bytes, cut at a character boundary, so at most 3 bytes short): a node's ``text`` or ``result`` whose
    ``bytes`` / ``result_bytes`` is larger, and a talk's ``label``, ``reply`` or ``prompt`` that long (they carry no
    size). What ``asz export --format json`` says on stderr (trial 16b, F10); the document is not changed."""
    from ..view.kinds import TEXT_LIMIT

    def long(text) -> int:
        return len(text.encode("utf-8")) if isinstance(text, str) and len(text) * 4 > TEXT_LIMIT - 3 else 0

    n = 0
    todo = [*(doc.get("talks") or ()), *(doc.get("loose") or ())]
    while todo:
        node = todo.pop()
        if not isinstance(node, dict):
            continue
        for key, size in (("text", "bytes"), ("result", "result_bytes")):
            got = long(node.get(key))
            n += bool(got >= TEXT_LIMIT - 3 and isinstance(node.get(size), int) and node[size] > got)
        if node.get("kind") == "talk":
            n += sum(long(node.get(k)) >= TEXT_LIMIT - 3 for k in ("label", "reply", "prompt"))
        todo.extend(node.get("children") or ())
    return n


def whole_texts(root: str | os.PathLike, doc: dict) -> tuple[int, int]:
    """Put back, in the asz.view document ``doc`` (changed in place), each node's ``text`` and ``result`` the document
    clipped at 2,000 bytes whole from the landed records, as md and html read them (:func:`steps`, thinking
    included): only where the whole text is exactly what was clipped, its UTF-8 size the node's ``bytes`` /
    ``result_bytes`` and the clipped text its beginning; ``asz export --format json --whole`` (trial 21).
    Returns ``(texts put back whole, texts still clipped)``: a talk's ``label``, ``reply`` and ``prompt`` carry no
    size and stay as they are, counted among the second."""
    whole = 0
    for n, key, got in _whole_of(root, doc):
        n[key] = got
        whole += 1
    return whole, clipped(doc)


def _whole_of(root: str | os.PathLike, doc: dict):
    """``(node, key, whole text)`` of each node ``text`` / ``result`` the asz.view document ``doc`` clipped whose whole
    text the landed records give exactly (:func:`whole_texts`' rule); the records are read only when one is clipped."""
    nodes = [n for n in walk([*(doc.get("talks") or ()), *(doc.get("loose") or ())])
             if any(isinstance(n.get(k), str) and isinstance(n.get(size), int) and n[size] > len(n[k])
                    for k, size in (("text", "bytes"), ("result", "result_bytes")))]
    if not nodes:
        return
    drawn = {s["id"]: s for t in steps(root, doc, thinking=True) for s in t["steps"]}
    for n in nodes:
        st = drawn.get(n.get("id"))
        if st is None:
            continue
        tool = n.get("kind") in ("tool", "agent.call")
        for key, size, got in (("text", "bytes", _compact(st.get("input")) if tool else st.get("text")),
                               ("result", "result_bytes", st.get("result") if tool else None)):
            cut, n_bytes = n.get(key), n.get(size)
            if (isinstance(cut, str) and isinstance(got, str) and isinstance(n_bytes, int) and len(got) > len(cut)
                    and got.startswith(cut) and len(got.encode("utf-8")) == n_bytes):
                yield n, key, got


#: What of a step :func:`masked_steps` leaves as it is: the document's talk node a step only points to, and a
#: step's media (an image's base64 is no text; its placeholder holds no credential).
_NOT_TEXT = frozenset({"talk", "media"})


def masked_steps(talks: list[dict], mask: Masker) -> list[dict]:
    """The talks of :func:`steps` with each text of each step (its text, blocks, a tool's input and result, what its
    record holds besides, its label) masked by ``mask`` (or only counted, ``mask.mask`` False), in place, before
    Markdown or HTML places them (trial 25b F1: masking the rendered file ran a key cut before its end on over the
    markup after it; a cut made later, a tool's one-line gist, cuts the masked text: F2)."""
    return mask.tree(talks, _NOT_TEXT)


def masked_document(root: str | os.PathLike, doc: dict, mask: Masker) -> None:
    """Mask (or only count, ``mask.mask`` False) each string of the asz.view document ``doc`` before it is written
    as JSON, in place: each text the document clipped at 2,000 bytes whose whole text the landed records give
    masked whole first, then clipped again (:func:`~asz_core.view.secret_forms.masked_cut`: a key the clip cut is
    neither left with its head whole nor run on into the JSON after it; trial 25b F1, F2), and so is a talk's
    ``label``, ``reply`` or ``prompt`` that is such a text as clipped (the talk's first prompt or last reply: a
    token its clip cut left ``ghp_`` and as many of its characters as fit); such a text's credentials are counted
    over its whole text, masked or only counted, so the count is the conversation's, not the clip's (trial 44c:
    json counted 113 places where ``--redact`` counted 164, a masked value being shorter, more of them fit the
    clip); every other string as it stands (a
    ``label``, ``reply``, ``prompt`` clipped from no such text: a key cut there masked to the end of its text). A
    talk's ``label``, ``reply`` or ``prompt`` that is a step's text again (or such a clipped one) is masked and not
    counted: one place of the conversation, counted at its step, as md and html count it (small26)."""
    from ..view.kinds import clip_text
    from ..view.page_secrets import talk_copies

    held, whole = [], {}  # whole: a text as the document clipped it -> (masked whole, then clipped; its fingerprints)
    copies = talk_copies(doc)  # the one rule of what a copy is, the page's too (a label --whole left clipped: trial 44c)
    for n, key, got in list(_whole_of(root, doc)):  # counted over the whole text, masked or not (trial 44c)
        shown, written, away = masked_cut(got, clip_text)
        whole[n[key]] = shown if mask.mask else n[key], written
        held.append((n, key, whole[n[key]][0]))
        mask.gone += written + away
        n[key] = None  # kept out of the walk below (its place in the node kept)
    for n, key in copies:  # a talk's copy of a step's text: masked as it is, counted there only
        held.append((n, key, whole[n[key]][0] if n[key] in whole else Masker(mask.mask).text(n[key])))
        n[key] = None
    mask.tree(doc)
    for n, key, shown in held:
        n[key] = shown


def _compact(text):
    """A tool input as the document writes it: JSON drawn indented by :func:`steps` encoded compact again (orjson's
    form, the document's), any other text as it is."""
    if not isinstance(text, str) or not text.startswith(("{", "[")):
        return text
    try:
        return orjson.dumps(orjson.loads(text)).decode("utf-8")
    except orjson.JSONDecodeError:
        return text
