"""What the audit forms (``--audit``, ``--format text``) say of what failed (render 11; trial 37b F5: the text form of
a failed LangGraph trace said ``problems: none`` and printed the failed tool call without its error, while ``asz ls``
said ``verified errors`` and md **Run failed** with the error): a failed tool call's error text and an error step's
line, each bounded at :data:`ERROR_BYTES` with the bytes left out said (docs/reading.md, "The audit form of prose")."""

from __future__ import annotations

from typing import Optional, Sequence

import orjson

from ..view.placing import position, walk
from ..view.secret_forms import found_in, masked_cut
from .export_steps import part_marker
from .prose_times import record_of

__all__ = ["ERROR_BYTES", "ERROR_KINDS", "ERRORS_RENDER", "GONE_ERRORS_RENDER", "CUT_ERRORS_RENDER", "drawing_errors", "late_results_drawn", "LATE_RENDER", "error_kinds", "error_line", "error_text",
           "error_words", "result_error"]

#: The kinds of an error step's line (render 11; trial 37b F5): what failed, as the exports label it
#: (:data:`~asz_core.view.rate_words.ERROR_LABELS`: ``API error``, ``Run failed``), by the document's ``failed``.
ERROR_KINDS = {"request": "api_error", "run": "run_failed"}
#: At most this many bytes (UTF-8) of a failed tool call's error text, or of an error step's, are written (render 11;
#: trial 37b F5: the text form of a failed trace said ``problems: none`` and no error text); the rest is said in bytes.
ERROR_BYTES = 1_000
#: The render from which the audit forms write failures (:func:`~asz_core.reading.export_render.drawn`).
ERRORS_RENDER = 11
#: The render from which an error whose text retention took gives the size of that text (its part's ``bytes``), all
#: of it left out, and the text form says ``N bytes, removed by retention``, where render 35 gave the size of the
#: marker standing for it, ``33 bytes, whole`` (trial 47a F1).
GONE_ERRORS_RENDER = 36
#: The render from which an error whose text was too large to land gives that text's size (its part's ``bytes``), all
#: of it left out, ``"too_large": true``, and the text form says ``N bytes, too large to land``, where render 47 gave
#: the size of the marker standing for it, ``179 bytes, whole`` for a 4,800-byte text (fix48b, fix49b).
CUT_ERRORS_RENDER = 48


#: The render from which a result inside an ``--in-range-only`` window of a call made before it is a line (39a F2).
LATE_RENDER = 14


def late_results_drawn() -> bool:
    """Whether the copy being drawn writes a ``tool_result`` line for a result inside the window of a call made before
    it (render 14 on: :func:`~asz_core.reading.prose_audit._answered_late`; an older copy is made again
    without)."""
    from .export_render import drawn

    return drawn() >= LATE_RENDER


def drawing_errors() -> bool:
    """Whether the copy being drawn writes failures (render 11 on; an older copy is made again without them)."""
    from .export_render import drawn

    return drawn() >= ERRORS_RENDER


def error_text(parts: Sequence[dict], rec: Optional[dict] = None) -> str:
    """The text of an error, from the parts of its result or error record: the text parts joined with a newline (a
    part whose content is not in the root by its marker, :func:`~asz_core.reading.export_steps.part_marker`); else a
    result's data that is a string; else the ``error`` values the data parts hold, a string as it is and any other as
    JSON (Claude Code's ``system/api_error`` line: ``{"status":529,"error":{…}}``); else the data parts as JSON; else
    the markers of parts whose content is not in the root (a Kiro ``displayError`` line after ``asz prune``). ``rec``,
    the record of ``parts`` when given, lets a marker name the runtime's structured copy taken out (trial 47d F7)."""
    texts = [t for p in parts if p.get("k") in ("text", "result")
             and (t := (p["text"] if isinstance(p.get("text"), str) else "") or part_marker(p, rec))]
    if not texts:
        texts = [p["data"] for p in parts if p.get("k") == "result" and isinstance(p.get("data"), str) and p["data"]]
    if not texts:
        data = [p.get("data") for p in parts if p.get("k") in ("data", "result") and p.get("data") is not None]
        texts = [e if isinstance(e, str) else orjson.dumps(e, default=str).decode("utf-8")
                 for d in data if isinstance(d, dict) and (e := d.get("error")) not in (None, "", {}, [])] \
            or [orjson.dumps(d, default=str).decode("utf-8") for d in data]
    if not texts:  # parts whose content retention took (or that were too large to land): their markers
        texts = [m for p in parts if (m := part_marker(p))]
    return "\n".join(texts)


def _excerpt(text: str, mask: bool) -> tuple[dict, list[str], list[str]]:
    """``({"text", "bytes", "left_out"}, written, away)``: ``text`` (an error's) masked with ``mask`` and only then cut
    to its first :data:`ERROR_BYTES` bytes at a character's end (:func:`~asz_core.view.secret_forms.masked_cut`),
    ``bytes`` its size as written whole (UTF-8, masked), ``left_out`` the bytes the cut took away (0: whole);
    ``written`` and ``away`` the fingerprints of the credentials the excerpt shows and those the cut took away."""
    sizes = [0]

    def cutter(whole: str) -> str:
        raw = whole.encode("utf-8")
        sizes[0] = len(raw)
        return raw[:ERROR_BYTES].decode("utf-8", "ignore")

    got, written, away = masked_cut(text, cutter, mask)
    return {"text": got, "bytes": sizes[0], "left_out": sizes[0] - len(got.encode("utf-8"))}, written, away


def _gone(parts: Sequence[dict], text: str, error: dict, rec: Optional[dict] = None) -> dict:
    """``error`` (an excerpt of ``text``, the error text of ``parts``) as retention or the landing left it: when
    ``text`` is wholly the markers of parts whose text is not in the root, its ``bytes`` the size of those texts, all
    of it ``left_out``: parts retention took from render 36 (:data:`GONE_ERRORS_RENDER`; trial 47a F1: it said the
    marker's 33 bytes, ``whole``), parts too large to land from render 48 (:data:`CUT_ERRORS_RENDER`, with
    ``"too_large": true``; fix48b: 179 bytes, ``whole``, for a 4,800-byte text). ``rec``: the record of ``parts``, as
    :func:`error_text` read the markers with it."""
    from .export_render import drawn

    states = ("removed", "too_large") if drawn() >= CUT_ERRORS_RENDER else ("removed",)
    gone = [p for p in parts if p.get("state") in states and not p.get("text") and p.get("data") is None]
    if not gone or drawn() < GONE_ERRORS_RENDER or text != "\n".join(part_marker(p, rec) for p in gone):
        return error
    size = sum(p["bytes"] for p in gone if isinstance(p.get("bytes"), int) and not isinstance(p.get("bytes"), bool))
    cut = {"too_large": True} if any(p.get("state") == "too_large" for p in gone) else {}
    return {**error, "bytes": size, "left_out": size, **cut}


def error_words(error: dict) -> str:
    """What the text form says of an error's size (``error``: an excerpt of :func:`_excerpt`, its ``bytes`` and
    ``left_out``): ``66 bytes, whole`` or ``4,321 bytes, the first 1,000 written, 3,321 left out``; ``225 bytes, removed
    by retention`` when all of it is left out by retention, ``4,800 bytes, too large to land`` when it did not land
    (:func:`_gone`)."""
    size, away = int(error.get("bytes") or 0), int(error.get("left_out") or 0)
    if size and away == size:  # nothing of it written: the excerpt keeps its first ERROR_BYTES of any other
        return f"{size:,} bytes, " + ("too large to land" if error.get("too_large") else "removed by retention")
    if not away:
        return f"{size:,} bytes, whole"
    return f"{size:,} bytes, the first {size - away:,} written, {away:,} left out"


def result_error(p: dict, status: str, mask: bool, rec: Optional[dict] = None) -> tuple[Optional[dict], list[str]]:
    """``(error, unwritten)`` of a tool call's result part ``p`` whose ``status`` the audit read
    (:func:`~asz_core.reading.prose_audit.Audit`'s): when the call failed (``error``; render 11, trial 37b F5) its error's excerpt (:func:`_excerpt`, the fingerprints it shows as ``_gone``,
    counted where the call's line is written: :meth:`~asz_core.reading.prose_audit.Audit.arrange`) and those the cut took away; else None and every
    credential the result holds (the form leaves it out)."""
    if status == "error" and drawing_errors():
        error, written, away = _excerpt(text := error_text([p], rec), mask)
        return {**_gone([p], text, error, rec), "_gone": written}, away
    return None, found_in(p.get("text") or p.get("data"))


def error_line(base: dict, parts: Sequence[dict], mask: bool, unwritten: list[str]) -> dict:
    """The line of an error step (a record flagged ``error``; render 11): ``base`` (the record's keys) with ``role``
    ``system``, kind ``api_error`` (:func:`error_kinds` makes it ``run_failed`` by the document), ``text`` the
    excerpt of :func:`error_text` of its ``parts``, ``error`` its ``bytes`` and ``left_out``; the credentials the cut
    took away added to ``unwritten``."""
    error, written, away = _excerpt(text := error_text(parts), mask)
    error = _gone(parts, text, error)
    unwritten += away
    return {**base, "role": "system", "text": error.pop("text"), "kind": ERROR_KINDS["request"], "error": error,
            "_gone": written}


def error_kinds(doc: dict, by_stream: dict[str, list[dict]]) -> None:
    """Each error step's line of ``by_stream`` given the kind of what the document ``doc`` says failed (its
    ``error.api`` node's ``failed``: ``run``, a run that ended with an error, ``run_failed``; else a model request,
    ``api_error``), as the exports label the step (``Run failed``, ``API error``) and ``asz ls`` counts it."""
    failed = {(pos[1], pos[2]): n.get("failed") for n in walk([*(doc.get("talks") or ()), *(doc.get("loose") or ())])
              if n.get("kind") == "error.api" and (pos := position(n))}
    for line in (x for lines in by_stream.values() for x in lines if x.get("kind") == ERROR_KINDS["request"]):
        if failed.get(record_of(line)) == "run":
            line["kind"] = ERROR_KINDS["run"]
