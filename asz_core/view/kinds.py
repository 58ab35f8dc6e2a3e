"""Constants and small helpers the asz.view modules share (seed 004): node kinds, text clipping, positions."""

from __future__ import annotations

from typing import Any

import orjson

from ..flow.model import Ref
from ..sessiondata.jsonbytes import NumberText, RawJSON
from ..sessiondata.model import WITHHOLDABLE, cut_data_bytes
from ..sessiondata.vocabulary import STEP_KINDS, STRUCTURAL_KINDS

__all__ = [
    "FORMAT", "VERSION", "TEXT_LIMIT", "SHORT_TEXT", "STRUCTURAL", "STEP_KINDS", "NO_TEXT", "TOOL_KINDS", "STRUCTURAL_SET", "STEP_KIND_SET",
    "NOT_CHILDREN", "WITHHOLDABLE_SET", "CONTENT_KINDS", "NO_RECORD", "WHITESPACE", "CUT_STATES", "DATA_DUMPS", "RESULT_FROM_DATA", "clip_text", "copy_pair", "copy_taken", "cut_digest", "data_text", "taken_after", "taken_keys", "taken_said", "text_kept", "TAKEN_KEYS",
    "position",
]

FORMAT = "asz.view"
VERSION = "1.0"
#: A node's text is clipped to this many bytes at a character boundary.
TEXT_LIMIT = 2000
#: A text of at most this many characters is never clipped (:func:`clip_text`: no character takes more than 4 bytes).
SHORT_TEXT = TEXT_LIMIT // 4
STRUCTURAL = STRUCTURAL_KINDS  # the vocabularies are defined once, in asz_core.sessiondata.vocabulary
NO_TEXT = frozenset(("llm.call", "talk", "run", "segment", "epoch", "stream", "session", "conversation"))
TOOL_KINDS = frozenset(("tool", "agent.call"))
STRUCTURAL_SET = frozenset(STRUCTURAL)
STEP_KIND_SET = frozenset(STEP_KINDS)
#: Structural kinds listed elsewhere in the document, never as a node's children.
NOT_CHILDREN = frozenset(("epoch", "stream", "segment", "session"))
WITHHOLDABLE_SET = frozenset(WITHHOLDABLE)
NO_RECORD: dict = {}
#: Part kinds that make a record something a reader should see (coverage, issue 18).
CONTENT_KINDS = frozenset(("text", "reasoning", "call", "result", "media"))
WHITESPACE = "".join(chr(c) for c in (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000)) + "".join(chr(c) for c in range(0x2000, 0x200B))


def clip_text(text: str, limit: int = TEXT_LIMIT) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes at a character boundary."""
    if len(text) * 4 <= limit:  # no character takes more than 4 bytes: short text is never cut
        return text
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    return raw[:limit].decode("utf-8", "ignore")


#: A tool node's ``result_from`` when its ``result`` is the result part's data, not its text (seed 004, "A call's
#: result": the part's text, or its data when it has no text): the runtime's structured copy of the result (Claude
#: Code's ``toolUseResult``, ``{"stdout":"","stderr":"",…}`` when Bash printed nothing), while the model was given no
#: text (the ``tool_result``'s content ``""``). Absent when ``result`` is the text (trial 31b F4).
RESULT_FROM_DATA = "data"


def data_text(data: Any) -> str:
    """A part's data as the text a node shows: a :class:`RawJSON`'s bytes, a str itself, anything else written by
    :data:`DATA_DUMPS` (``orjson.dumps`` with these arguments, decoded as UTF-8)."""
    if isinstance(data, RawJSON):
        return data.raw.decode("utf-8", "replace")
    if isinstance(data, str):
        return data
    # A NumberText (a number no reader type holds) is written back as the number its source wrote.
    dumps, default, option = DATA_DUMPS
    return dumps(data, default=default, option=option).decode("utf-8")


def _number_fragment(value: Any) -> Any:
    if isinstance(value, NumberText):
        return orjson.Fragment(str(value).encode("utf-8"))
    if isinstance(value, str):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


#: ``(orjson.dumps, default, option)``: how :func:`data_text` writes a dict or list, which the compiled node drawing
#: (``bytescan.draw_node``) calls the same way.
DATA_DUMPS = (orjson.dumps, _number_fragment, orjson.OPT_PASSTHROUGH_SUBCLASS)


def position(ref: Ref | None) -> tuple:
    """A sort key for a ref: (seq, row, block), block -1 for a whole record; no ref sorts last."""
    if ref is None:
        return (1 << 62, 0, 0)
    return (ref.seq, ref.row, -1 if ref.block is None else ref.block)


#: The states of a part made smaller to land (seed 000, Too large to land): each keeps the SHA-256 of what was taken out.
CUT_STATES = frozenset({"too_large", "truncated"})


#: The keys :func:`taken_keys` adds to a tool node, in order.
TAKEN_KEYS = ("result_taken", "result_taken_bytes", "result_text_sha256", "result_taken_said")


def text_kept(p: dict) -> bool:
    """True for a result part made smaller to land that kept its text whole: ``state`` truncated, text, no data (seed 000, Too
    large to land: data goes before text, so its ``sha256`` is its data's, the runtime's structured copy of a tool
    result, never its text's; trial 40c F1). A ``changes/1`` part cut in its own format keeps its data, not this."""
    return p.get("state") == "truncated" and p.get("k") == "result" and bool(p.get("text")) and p.get("data") is None


def copy_taken(rec: dict, block: int, p: dict) -> int | None:
    """The size in bytes of the runtime's structured copy taken out of part ``p`` (block ``block`` of record ``rec``)
    to land, when its text stayed (:func:`text_kept`) or went after it (``state`` too_large and the record's
    ``dropped`` saying the copy's size: data goes before text, so the part's ``bytes`` is its text's and its
    ``sha256`` the copy's; trial 47d F7), from the record's ``dropped``; -1 for a text kept whole whose record does
    not say the size (a root collected before asz said it); None for any other part."""
    size = cut_data_bytes(rec.get("dropped"), block) if p.get("state") in CUT_STATES else None
    if text_kept(p):
        return -1 if size is None else size
    return size if p.get("state") == "too_large" and p.get("data") is None else None


def copy_pair(text_bytes, text_sha, copy_bytes, copy_sha) -> str:
    """Each size beside its own object's digest, for a part whose text and the runtime's structured copy both went to
    land (trial 47d F7: ``[too large to land: 3,228,902 bytes, sha256 8f59…]`` gave the text's size and the copy's
    digest): ``text 3,228,902 bytes (its sha256 not recorded); the runtime's structured copy 3,273,970 bytes, sha256
    8f59…`` (the record keeps one sha256, of what was taken out first: the copy's; seed 000, Too large to land)."""
    text = (f"text {text_bytes:,} bytes" if isinstance(text_bytes, int) else "text")
    text += f", sha256 {text_sha}" if text_sha else " (its sha256 not recorded)"
    copy = "the runtime's structured copy" + (f" {copy_bytes:,} bytes" if isinstance(copy_bytes, int) else "")
    return f"{text}; {copy}" + (f", sha256 {copy_sha}" if copy_sha else "")


def taken_keys(rec: dict, block: int, p: dict, d: dict, key: str = "result") -> None:
    """Add to a node's keys ``d``, for part ``p`` (block ``block`` of record ``rec``) that lost the runtime's
    structured copy to land (:func:`copy_taken`): ``{key}_taken`` ``"data"`` (what was taken out: the runtime's
    structured copy; ``{key}_state`` says whether the text stayed, truncated, or went too, too_large),
    ``{key}_taken_bytes`` (its size in bytes, compact JSON as landed, from the record's ``dropped``: absent in a root
    collected before asz said it), ``{key}_text_sha256`` (the SHA-256 of a text kept, as UTF-8; absent for a text
    holding a lone surrogate or not kept, whose digest the record does not hold) and ``{key}_taken_said``
    (:func:`taken_said` of them), after ``{key}_sha256``: the SHA-256 of what was taken out first (the copy's for such
    a part; set for any part that carries one). Nothing more for any other part."""
    if p.get("sha256"):
        d[f"{key}_sha256"] = p["sha256"]
    size = copy_taken(rec, block, p)
    if size is None:
        return
    d[f"{key}_taken"] = RESULT_FROM_DATA
    if size >= 0:
        d[f"{key}_taken_bytes"] = size
    if text_kept(p):
        from ..sessiondata.writer import text_sha256  # the writer is not loaded by every reader

        try:
            d[f"{key}_text_sha256"] = text_sha256(p["text"])
        except UnicodeEncodeError:  # a lone surrogate the source escaped: no UTF-8 to hash
            pass
    d[f"{key}_taken_said"] = taken_said(d, key)  # the words, so the page prints them as they are (fix41b)


def taken_said(n: dict, key: str = "result") -> str:
    """What a node ``n`` whose ``key`` part lost the runtime's structured copy to land says (``{key}_taken``,
    :func:`taken_keys`; trial 40c F1): ``result text kept whole (4 bytes, sha256 a4c3…); not kept: the runtime's
    structured copy (15,728,654 bytes, sha256 a623…), too large to land``; a size the record does not say is said so;
    when the text went too (``{key}_state`` too_large), each size with its own object's digest (:func:`copy_pair`;
    trial 47d F7): ``result too large to land: text 3,228,902 bytes (its sha256 not recorded); the runtime's
    structured copy 3,273,970 bytes, sha256 8f59…``. The one wording: the node's ``{key}_taken_said`` (the page prints
    it as it is), ``asz conversation``'s cut steps and the exports' marker (:mod:`asz_core.reading.export_steps`)."""
    size = n.get(f"{key}_taken_bytes")
    if n.get(f"{key}_state") == "too_large":
        return (f"{key} too large to land: "
                + copy_pair(n.get(f"{key}_bytes"), n.get(f"{key}_text_sha256"), size, n.get(f"{key}_sha256")))
    text = [f"{n[f'{key}_bytes']:,} bytes"] if isinstance(n.get(f"{key}_bytes"), int) else []
    text += [f"sha256 {n[f'{key}_text_sha256']}"] if n.get(f"{key}_text_sha256") else []
    data = [f"{size:,} bytes" if isinstance(size, int) else "its size not recorded by the asz that collected it"]
    data += [f"sha256 {n[f'{key}_sha256']}"] if n.get(f"{key}_sha256") else []
    return (f"{key} text kept whole ({', '.join(text)}); not kept: the runtime's structured copy ({', '.join(data)}),"
            " too large to land")


def taken_after(n: dict) -> str:
    """What md, html and the text form draw after a tool result's text kept whole when the runtime's structured copy
    was taken out to land (``result_taken``, ``result_state`` truncated; trial 40c F1): a new line and
    :func:`taken_said` in brackets; '' for any other node (a text that went too says both in its marker:
    :func:`~asz_core.reading.export_steps.part_marker`). One rule for a step's result and a result whose call never
    landed (:func:`~asz_core.reading.export.unresolved_said`)."""
    return f"\n[{taken_said(n)}]" if n.get("result_taken") and n.get("result_state") == "truncated" else ""


def cut_digest(p: dict, d: dict) -> None:
    """Add ``sha256`` (64 hex) to a node's keys ``d`` when part ``p`` was made smaller to land (``state`` in
    :data:`CUT_STATES`): the SHA-256 of what was taken out, so a reader can match the payload against another copy of
    it (seed 000, Too large to land; trial 24b F1). A part in any other state carries none."""
    if p.get("state") in CUT_STATES and isinstance(p.get("sha256"), str) and p["sha256"]:
        d["sha256"] = p["sha256"]

