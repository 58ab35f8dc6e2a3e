"""An execution record's arguments held against the transcript's input of the call it joins (trial 23a, F8).

``asz hook`` keeps the arguments of an MCP call as ``{state: "size_only", bytes, sha256}`` over the value the server
was sent, re-encoded as canonical JSON (origin-digest §3.8; docs/claude-code-hooks.md); the transcript's call part
keeps the model's own input (``tool_use.input``) as the source wrote it, compacted (seed 000, What data holds). A hook
before the call that rewrote the input makes the two differ (seed 000, Execution records). :func:`arguments_check`
measures the call part's input by the same rule and says which way it went, per execution entry of the document's
``tool_executions``; :func:`differences` counts the ones that differ (``summary.arguments_differ``, docs/view.md).

The one matching rule, which the document (:class:`~asz_core.view.view_base.ViewBase`) and ``asz verify``
(:mod:`asz_core.view.executions_check`) both call: an entry joins the first call part (``k: "call"``) whose ``id`` is
the entry's ``tool``, in landed order (seq, then row, then block: :func:`calls_named`); :func:`held_against` says why
the transcript's side is not there to read (no such call, its file removed, not verifying, its record withheld) or
measures it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Collection, Iterable

from ..sessiondata.execution_digest import measure_value, strict_loads  # the one definition of the digest (§3.8)
from ..sessiondata.times import parse_instant

__all__ = ["AGREE", "DIFFER", "CANNOT_COMPARE", "arguments_check", "calls_named", "differences", "held_against",
           "observation_entries", "once_each", "transcript_input"]

AGREE, DIFFER, CANNOT_COMPARE = "agree", "differ", "cannot_compare"


def _digest(v) -> tuple[int, str] | None:
    """``(bytes, sha256)`` of an execution record's ``arguments``, or None when it holds no digest of them."""
    if not isinstance(v, dict):
        return None
    n, sha = v.get("bytes"), v.get("sha256")
    if isinstance(n, int) and not isinstance(n, bool) and isinstance(sha, str) and len(sha) == 64:
        return n, sha
    return None


def transcript_input(line: bytes, block: int) -> dict | str:
    """``{state: "size_only", bytes, sha256}`` of the input the call part ``block`` of the landed record ``line`` (its
    JSON line, as the file holds it) keeps, measured as ``asz hook`` measures ``tool_input`` (§3.8: compact, keys
    sorted, numbers as their literal text, Go's string escapes); else why it cannot be measured (a str). The line is
    decoded again with numbers kept as written, since the view's records hold them as floats (``1.50`` is ``1.5``)."""
    try:
        rec = strict_loads(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return "the transcript's record line does not read as JSON"
    parts = rec.get("parts") if isinstance(rec, dict) else None
    p = parts[block] if isinstance(parts, list) and 0 <= block < len(parts) else None
    if not isinstance(p, dict) or p.get("k") != "call":
        return "the tool step names no call part in the transcript"
    state = p.get("state") or "available"
    if state != "available":  # a part made smaller to land (seed 000, Too large to land): not the input the model sent
        return f"the transcript's input did not land whole (state {state})"
    if "data" not in p:
        return "the transcript's call part holds no input"
    try:
        return measure_value(p["data"])
    except (TypeError, ValueError, RecursionError):
        return "the transcript's input does not encode as JSON"


def arguments_check(entry: dict, why_not: str | None, measured: Callable[[], dict | str] | None) -> dict:
    """The ``arguments_check`` of one ``tool_executions`` entry: ``{"result": "agree"}``; ``{"result": "differ",
    "transcript": {bytes, sha256}}`` (the record's own ``arguments`` beside it); or ``{"result": "cannot_compare",
    "why": "..."}``. ``why_not``: why the transcript's side is not there to read (the entry joins no step, the call's
    record is withheld, does not verify or was removed), else None; ``measured``: :func:`transcript_input` of the
    call, called only when both sides are there. Never raises."""
    ours = _digest(entry.get("arguments"))
    if why_not is None and ours is None:
        why_not = "the execution record holds no digest of the arguments"
    if why_not is None and measured is not None:
        got = measured()
        if isinstance(got, str):
            why_not = got
        else:
            if (got["bytes"], got["sha256"]) == ours:
                return {"result": AGREE}
            return {"result": DIFFER, "transcript": {"bytes": got["bytes"], "sha256": got["sha256"]}}
    return {"result": CANNOT_COMPARE, "why": why_not or "the transcript's call is not there to read"}


def observation_entries(parts: Iterable[tuple[int, int, int, dict]]) -> tuple[list[dict], list[dict]]:
    """``(changes, executions)``: an entry per ``changes/1`` and per ``execution/1`` data part of ``parts`` (``(seq,
    row, block, part)`` as :meth:`~asz_core.view.session_records.LandedSession.listed_parts` gives them), its data's
    keys after ``step: ""`` and ``ref: {seq, row, block}``; each list in time order (no time last; at one time the
    runtime's record before the plugin's, then landed order), each execution record's id once (:func:`once_each`).
    The document's ``tool_changes`` and ``tool_executions`` before they are joined to their steps."""
    changes: list[tuple] = []
    executions: list[tuple] = []
    for seq, row, block, p in parts:
        if p["k"] != "data":
            continue
        v = p.get("data")
        if not isinstance(v, dict):
            continue
        schema = v.get("schema")
        if schema not in ("changes/1", "execution/1"):
            continue
        t = parse_instant(v.get("time"))
        runtime_first = 1 if v.get("captured_by") == "asz-plugin" else 0  # the runtime's record (claude-code, kiro) first
        key = (0 if t is not None else 1, t or 0, runtime_first, seq, row, block)
        entry = {"step": "", "ref": {"seq": seq, "row": row, "block": block}, **v}
        (changes if schema == "changes/1" else executions).append((key, entry))
    changes.sort(key=lambda x: x[0])
    executions.sort(key=lambda x: x[0])
    return [e for _, e in changes], [e for _, e in once_each(executions)]


def once_each(executions: list[tuple]) -> list[tuple]:
    """``executions`` (``(sort key, entry)``, sorted) with each execution record's id once: the first kept (docs/
    claude-code-hooks.md: the id is ``<tool_use_id>/client_hook``, and the same event delivered twice is one
    observation; trial 20, F6: a payload fed twice to ``asz hook`` was listed twice under one id). An entry with no
    id is kept."""
    seen: set[str] = set()
    out = []
    for key, e in executions:
        eid = e.get("id")
        if isinstance(eid, str) and eid:
            if eid in seen:
                continue
            seen.add(eid)
        out.append((key, e))
    return out


def calls_named(records: Iterable[tuple[int, int, object]], ids: Collection[str]) -> dict[str, tuple[int, int, int]]:
    """``{id: (seq, row, block)}``: for each call id of ``ids``, the first call part (``k: "call"``) whose ``id`` it is,
    among ``records`` (``(seq, row, record)``, a record as decoded from its landed line, in landed order: seq, then
    row). An id no call part carries is no key. Stops once every id is found."""
    want = {i for i in ids if isinstance(i, str) and i}
    out: dict[str, tuple[int, int, int]] = {}
    if not want:
        return out
    for seq, row, rec in records:
        parts = rec.get("parts") if isinstance(rec, dict) else None
        if not isinstance(parts, list):
            continue
        for block, p in enumerate(parts):
            if isinstance(p, dict) and p.get("k") == "call":
                i = p.get("id")
                if i in want and i not in out:
                    out[i] = (seq, row, block)
        if len(out) == len(want):
            break
    return out


def held_against(entry: dict, call: tuple[int, int, int] | None, *, removed: Callable[[int], bool],
                 unverified: Callable[[int], bool], withheld: Callable[[int, int], bool],
                 line: Callable[[int, int], bytes | None]) -> dict:
    """The ``arguments_check`` of one ``tool_executions`` entry (:func:`arguments_check`), ``call`` being what
    :func:`calls_named` found for its ``tool`` (None: none). ``removed(seq)``: retention replaced the call's file by
    its skeleton; ``unverified(seq)``: the file does not verify; ``withheld(seq, row)``: the call's record is withheld
    (``--hide``); ``line(seq, row)``: the record's JSON line as landed (None when it is not there), read only when
    both sides are there. Never raises."""
    if call is None:
        why = "no tool call of the transcript has this id" if entry.get("tool") else "the execution record names no tool call"
    elif removed(call[0]):
        why = "retention removed the transcript's record of the call (its skeleton keeps no input)"
    elif unverified(call[0]):
        why = "the transcript's record of the call does not verify"
    elif withheld(call[0], call[1]):
        why = "the transcript's record of the call is withheld"
    else:
        why = None
    if why is not None or call is None:
        return arguments_check(entry, why, None)
    seq, row, block = call

    def measured() -> dict | str:
        got = line(seq, row)
        return "the transcript's record line is not there to read" if got is None else transcript_input(got, block)

    return arguments_check(entry, None, measured)


def differences(executions: list[dict]) -> int:
    """How many ``tool_executions`` entries' arguments differ from the transcript's input (``summary.arguments_differ``)."""
    return sum(1 for e in executions if (e.get("arguments_check") or {}).get("result") == DIFFER)


def record_line(files: dict[int, dict], bound: dict[int, tuple], root: Path, seq: int, row: int) -> bytes | None:
    """The JSON line of landed record ``row`` (1-based) of file ``seq``: from the bytes a round binds (``bound``,
    :attr:`~asz_core.view.session_records.LandedSession.bound_lines`) where it holds them, else read from the file
    (its header is line 1); None when the file or the line is not there."""
    got = bound.get(seq)
    if got is not None:
        lines = got[2]
        return lines[row - 1] if 0 < row <= len(lines) else None
    f = files.get(seq)
    if f is None:
        return None
    try:
        lines = (root / f["file"]).read_bytes().split(b"\n")
    except OSError:
        return None
    return lines[row] if 0 < row < len(lines) else None
