"""An execution record's arguments held against the transcript's input of the call it joins (trial 23a, F8).

``asz hook`` keeps the arguments of an MCP call as ``{state: "size_only", bytes, sha256}`` over the value the server
was sent, re-encoded as canonical JSON (origin-digest §3.8; docs/claude-code-hooks.md); the transcript's call part
keeps the model's own input (``tool_use.input``) as the source wrote it, compacted (seed 000, What data holds). A hook
before the call that rewrote the input makes the two differ (seed 000, Execution records). :func:`arguments_check`
measures the call part's input by the same rule and says which way it went, per execution entry of the document's
``tool_executions``; :func:`differences` counts the ones that differ (``summary.arguments_differ``, docs/view.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..sessiondata.execution_digest import measure_value, strict_loads  # the one definition of the digest (§3.8)

__all__ = ["AGREE", "DIFFER", "CANNOT_COMPARE", "arguments_check", "differences", "transcript_input"]

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
