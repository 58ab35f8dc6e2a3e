"""The ``example-codex/1`` dialect: Codex CLI rollout files as Session Data.

A rollout file (``sessions/YYYY/MM/DD/rollout-<stamp>-<session id>.jsonl``) holds
one JSON object per line: ``{"timestamp", "type", "payload"}``. Each line
becomes exactly one record (seed 000, One record per line); a message's
content items become one part each, in source order (text, media for an
image, unknown for an item this dialect does not know). See README.md for the
line-to-record table, the flag rules and the known gaps.

Only the public API of ``asz_core`` is imported.
"""

from __future__ import annotations

from asz_core import (
    Dropped,
    JSONSpanError,
    Part,
    RawJSON,
    Record,
    Source,
    Usage,
    array_elements,
    compact,
    json_loads,
    loads_source,
    object_members,
    past_bom,
    settle_surrogates,
    source_sha,
    unknown_part,
)

from .turn import TURNS, Turn, turn_of

__all__ = ["convert_line", "DIALECT", "RESPONSE_TYPES", "RUNTIME_ITEMS"]

#: The dialect: ``example-`` so that publishing the template unchanged cannot collide with a real Codex adapter.
DIALECT = "example-codex/1"
#: response_item payload types this dialect describes; any other lands as unknown.
RESPONSE_TYPES = (
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
    "ghost_snapshot",
)
#: response_item types that are the runtime's own bookkeeping: ``from: runtime``, the payload as a data part.
RUNTIME_ITEMS = ("ghost_snapshot",)
#: Content item types of a message that hold text.
_TEXT_ITEMS = ("input_text", "output_text", "text")
_LINE_TYPES = ("session_meta", "turn_context", "response_item", "event_msg", "compacted")


def _members(buf: bytes, b: int) -> dict[str, tuple[int, int]]:
    return {k: (s, e) for k, s, e in object_members(buf, b)}


def _raw(buf: bytes, span: tuple[int, int]) -> RawJSON:
    return RawJSON(compact(buf[span[0]:span[1]]))


def _texts(content) -> list[str]:
    if isinstance(content, str):
        return [content]
    out = []
    for item in content or []:
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            out.append(item["text"])
    return out


def _text(value) -> str:
    """``value`` when it is a string, else ''."""
    return value if isinstance(value, str) else ""


def _utf8(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _content_parts(line: bytes, content, span: tuple[int, int] | None) -> list[Part]:
    """One part per content item, in source order: text items as text, an ``input_image`` whose ``image_url`` is a
    ``data:<type>;base64,`` URL as media (its base64 text kept), anything else as unknown with the item's bytes."""
    if isinstance(content, str):
        return [Part(k="text", text=content, bytes=_utf8(content))]
    if not isinstance(content, list) or span is None:
        return []
    out = []
    for item, (b, e) in zip(content, array_elements(line, span[0])):
        if isinstance(item, dict) and item.get("type") in _TEXT_ITEMS and isinstance(item.get("text"), str):
            out.append(Part(k="text", text=item["text"], bytes=_utf8(item["text"])))
            continue
        url = item.get("image_url") if isinstance(item, dict) and item.get("type") == "input_image" else None
        if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
            head, _, b64 = url.partition(",")
            out.append(Part(k="media", media=head[len("data:"):].split(";")[0], data=b64, bytes=len(b64)))
            continue
        out.append(unknown_part(line[b:e], f"content item {item.get('type') if isinstance(item, dict) else type(item).__name__!r} "
                                           "is not one this dialect describes"))
    return out


def convert_line(source: Source, line: bytes, ord: int, off: int) -> Record:
    """Convert one rollout line (no newline) into one record; never raises.

    ``ord`` is the 1-based line number, ``off`` the byte offset of the line.
    Lines that are not JSON, not objects, or of a type this dialect does not
    describe become one ``unknown`` part holding the bytes.
    """
    # Codex writes no record ids, so ``rec.id`` and ``rec.parent`` stay empty. An id must be unique across the storage
    # root (docs/adapters.md, A Record's fields): a runtime numbering records per session sets
    # ``rec.id = f"{source.session}:{native}"`` (and ``parent`` the same way).
    rec = Record(ord=ord, off=off, bytes=len(line), sha=source_sha(line))
    turn = TURNS.before(source.path, off)  # the model of the turn this line sits in (turn.py)
    whole, (line, mark) = line, past_bom(line, off)  # a UTF-8 byte order mark is read past and listed (adapters.md)
    try:
        obj = loads_source(line)  # a lone surrogate escape stays a code point until settle_surrogates
    except (ValueError, UnicodeDecodeError, RecursionError):
        obj = None
    TURNS.after(source.path, off + len(whole) + 1, turn_of(obj) or turn)  # the next line's offset: its mark counted
    if obj is None:  # a line with a byte that is not UTF-8 too: docs/adapters.md says how to keep its text readable
        rec.parts = [unknown_part(whole, "the record is not valid JSON")]
        return rec
    if not isinstance(obj, dict):
        rec.parts = [unknown_part(whole, "the record is JSON but not an object")]
        return rec
    try:
        _fill(rec, obj, line)
        _turn_model(rec, turn)
        settle_surrogates(rec)  # the one surrogate rule asz documents (docs/session-data.md)
    except (JSONSpanError, ValueError, TypeError, KeyError, AttributeError) as exc:
        rec.parts = [unknown_part(whole, f"the record could not be described: {exc}")]
        rec.flags, rec.usage, rec.dropped, rec.replaced, rec.model, rec.cwd = [], None, [], 0, "", ""
    if mark is not None:  # the mark's 3 bytes, listed: or, when the line lands whole, kept in its unknown part
        if [p.k for p in rec.parts] == ["unknown"] and rec.parts[0].bytes == len(line):  # the line, not described
            rec.parts = [unknown_part(whole, rec.parts[0].text)]
        else:
            rec.dropped.insert(0, mark)
    return rec


def _turn_model(rec: Record, turn: Turn) -> None:
    """The model of the turn on a call's records: the ``token_count`` line that is the call (``call`` set) and the
    model's own records of the turn (``from: agent``). Codex names the model on the turn's ``turn_context`` line only;
    the readers price and list a call by the ``model`` its records name (trial 46b F5: ``models not recorded by the
    runtime``, ``cost unpriced (no price for (no model))`` while ``turn_context`` said ``gpt-5-codex``)."""
    if turn[0] and not rec.model and (rec.call or rec.from_ == "agent"):
        rec.model = turn[0]


def _fill(rec: Record, obj: dict, line: bytes) -> None:
    kind = obj.get("type")
    payload = obj.get("payload")
    if isinstance(obj.get("timestamp"), str):
        rec.time = obj["timestamp"]
    if kind not in _LINE_TYPES or not isinstance(payload, dict):
        rec.parts = [unknown_part(line, f"record type {kind!r} is not one this dialect describes")]
        return
    top = _members(line, 0)
    pspan = top["payload"]
    pm = _members(line, pspan[0])
    if kind == "session_meta":
        rec.from_ = "runtime"
        rec.cwd = _text(payload.get("cwd"))  # where Codex worked: the first cwd is the conversation's project
        if isinstance(payload.get("base_instructions"), str) and payload["base_instructions"]:
            rec.flags = ["injected", "system_prompt"]  # the system prompt Codex sends the model
        elif isinstance(payload.get("instructions"), str) and payload["instructions"]:
            rec.flags = ["injected"]  # the user's instructions (AGENTS.md) Codex adds to the context
        rec.parts = [Part(k="data", data=_raw(line, pspan), bytes=pspan[1] - pspan[0])]
        return
    if kind == "turn_context":
        rec.from_ = "runtime"
        rec.model, rec.cwd = _text(payload.get("model")), _text(payload.get("cwd"))
        rec.parts = [Part(k="data", data=_raw(line, pspan), bytes=pspan[1] - pspan[0])]
        return
    if kind == "compacted":
        rec.from_ = "runtime"
        rec.flags = ["context_reset", "reset_summary"]
        msg = payload.get("message")
        if isinstance(msg, str):
            rec.parts = [Part(k="text", text=msg, bytes=_utf8(msg))]
        else:
            rec.parts = [Part(k="data", data=_raw(line, pspan), bytes=pspan[1] - pspan[0])]
        return
    if kind == "event_msg":
        rec.from_ = "runtime"
        if payload.get("type") == "token_count" and isinstance(payload.get("info"), dict):
            last = payload["info"].get("last_token_usage") or {}
            if isinstance(last, dict):
                cached = int(last.get("cached_input_tokens") or 0)
                rec.usage = Usage(in_=int(last.get("input_tokens") or 0) - cached, out=int(last.get("output_tokens") or 0), cache_read=cached)
                # Usage on a line of its own: a record's usage counts only for the model call its ``call`` names
                # (docs/adapters.md, "Which records make a model call"); one carrying usage and no ``call`` is in no
                # figure. A runtime that names its requests gives the request id here, the id its agent records of
                # that call carry too (then the call's usage is its last record carrying usage, never a sum). Codex
                # names none, and each token_count reports the one request that just finished (last_token_usage):
                # the line is that request's call, its id made from the line's own bytes (its time and running
                # totals), so a resumed session's copy of the line names the same call and is counted once.
                rec.call = f"token_count:{source_sha(line)}"
        rec.parts = [Part(k="data", data=_raw(line, pspan), bytes=pspan[1] - pspan[0])]
        return
    _response_item(rec, payload, line, pm, pspan)


def _response_item(rec: Record, p: dict, line: bytes, pm: dict, pspan: tuple[int, int]) -> None:
    t = p.get("type")
    if t not in RESPONSE_TYPES:
        rec.parts = [unknown_part(line, f"response item type {t!r} is not one this dialect describes")]
        return
    if t in RUNTIME_ITEMS:
        rec.from_ = "runtime"
        rec.parts = [Part(k="data", data=_raw(line, pspan), bytes=pspan[1] - pspan[0])]
        return
    if t == "web_search_call":
        rec.from_ = "agent"
        action = pm.get("action")
        rec.parts = [Part(k="call", id=str(p.get("id") or ""), name="web_search", data=_raw(line, action) if action else None,
                          bytes=(action[1] - action[0]) if action else 0)]
        return
    if t == "message":
        role = p.get("role")
        texts = _texts(p.get("content"))
        rec.parts = _content_parts(line, p.get("content"), pm.get("content"))
        if role == "assistant":
            rec.from_ = "agent"
        elif role in ("developer", "system"):
            rec.from_ = "runtime"
            rec.flags = ["injected", "system_prompt"]
        else:
            rec.from_ = "external"
            # Codex places its own context into user-role messages wrapped in tags.
            injected = bool(texts) and all(x.lstrip().startswith(("<environment_context>", "<user_instructions>")) for x in texts)
            rec.flags = ["injected"] if injected else ["external_input"]
            rec.trigger = "" if injected else "external"
        return
    if t == "reasoning":
        rec.from_ = "agent"
        summary = "\n\n".join(_texts(p.get("summary")))
        rec.parts = [Part(k="reasoning", text=summary, state="available" if summary else "unavailable", bytes=_utf8(summary))]
        enc = p.get("encrypted_content")
        if isinstance(enc, str) and enc:
            rec.dropped = [Dropped(what="encrypted reasoning", bytes=len(enc), why="only the provider can decrypt it; a reader cannot read it")]
        return
    if t in ("function_call", "custom_tool_call", "local_shell_call"):
        rec.from_ = "agent"
        key = {"function_call": "arguments", "custom_tool_call": "input", "local_shell_call": "action"}[t]
        name = str(p.get("name") or ("local_shell" if t == "local_shell_call" else ""))
        span = pm.get(key)
        data = _raw(line, span) if span else None
        rec.parts = [Part(k="call", id=str(p.get("call_id") or ""), name=name, data=data, bytes=(span[1] - span[0]) if span else 0)]
        return
    # function_call_output / custom_tool_call_output
    rec.from_ = "external"
    out = p.get("output")
    span = pm.get("output")
    part = Part(k="result", of=str(p.get("call_id") or ""), bytes=(span[1] - span[0]) if span else 0)
    if isinstance(out, str):
        try:
            inner = json_loads(out)
        except ValueError:
            inner = None
        if isinstance(inner, dict) and isinstance(inner.get("output"), str):
            part.text = inner["output"]
            meta = inner.get("metadata")
            if isinstance(meta, dict) and isinstance(meta.get("exit_code"), int):
                part.failed = meta["exit_code"] != 0
        else:
            part.text = out
        part.data = _raw(line, span)
    elif span:
        part.data = _raw(line, span)
    rec.parts = [part]
