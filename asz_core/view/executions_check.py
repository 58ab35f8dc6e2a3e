"""``asz verify``'s warning for an execution record whose arguments differ from the transcript's input (trial 23a, F8).

``asz hook`` keeps the digest of the arguments an MCP server was sent; the transcript keeps the model's own input of
the same call. The document holds the two against each other per ``tool_executions`` entry (``arguments_check``:
:mod:`asz_core.view.arguments_check`; docs/claude-code-hooks.md, Held against the transcript). Both sides landed
whole, so a difference is no damage (the exit code stays 0), but what the server ran is not what the transcript
shows: a hook before the call rewrote it (seed 000, Execution records). ``asz verify`` says so, one ``warning:`` per
entry that differs, naming the session, the execution record (its file and line) and the tool call.

Only sessions holding landed ``execution`` files are read (a root of transcripts alone costs one listing per
session); each such conversation's document is prepared, not drawn (:func:`~asz_core.view.document.conversation_executions`).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..storage.layout import landed_files, session_dirs
from ..verify.report import Problem, Section

__all__ = ["ARGUMENTS_DIFFER", "arguments_section"]

#: The warning's name (:class:`~asz_core.verify.report.Problem` ``problem``).
ARGUMENTS_DIFFER = "arguments differ"


def _holding_executions(root: Path) -> set[str]:
    """The names of the session folders of ``root`` that hold a landed ``execution`` file (one listing each; a folder
    that cannot be listed holds none here: the landed check names it)."""
    out = set()
    for sdir in session_dirs(root):
        try:
            if any(name.kind == "execution" for name, _ in landed_files(sdir)):
                out.add(sdir.name)
        except (OSError, ValueError):
            continue
    return out


def arguments_section(root: str | os.PathLike, only: str | None = None) -> Section | None:
    """The ``arguments`` section: ``checked N tool execution record(s) against the transcript's input: agree A,
    differ D, not compared C`` and one warning per entry whose ``arguments_check`` is ``differ``:
    ``<file>:<line>: arguments differ [arguments]: session S, execution record row R, tool call T NAME: the server
    was sent N bytes (sha256 …), the transcript's input is M bytes (sha256 …); a hook before the call may have
    rewritten it (asz conversation S says which)``. ``only``: one session (or conversation) id. None when no
    conversation in scope has an execution record. Never fails the run; a conversation that does not read is left
    to the chain checks, which name it."""
    from .chain import ViewError
    from .document import conversation_executions, list_conversations
    from .rows import read_head

    root = Path(root)
    counts = {"agree": 0, "differ": 0, "cannot_compare": 0}
    warnings: list[Problem] = []
    holding = _holding_executions(root)
    if not holding:  # a root of transcripts alone: no conversation's head is read (one listing per session)
        return None
    for cid in list_conversations(root):
        head = read_head(root, cid)
        session = (head.header or {}).get("session") if head else None
        session = session if isinstance(session, str) and session else cid
        if only is not None and only not in (session, cid):
            continue
        if session not in holding:
            continue
        try:
            session, entries, files = conversation_executions(root, cid)
        except (ViewError, OSError):
            continue
        for e in entries:
            check = e.get("arguments_check") if isinstance(e.get("arguments_check"), dict) else {}
            result = check.get("result")
            if result in counts:
                counts[result] += 1
            if result == "differ":
                warnings.append(_warning(root, session, e, check, files))
    if not sum(counts.values()):
        return None
    return Section("arguments", f"checked {sum(counts.values())} tool execution record(s) against the transcript's "
                   f"input: agree {counts['agree']}, differ {counts['differ']}, not compared {counts['cannot_compare']}",
                   counts={"executions_agree": counts["agree"], "executions_differ": counts["differ"],
                           "executions_not_compared": counts["cannot_compare"]}, warnings=warnings)


def _warning(root: Path, session: str, e: dict, check: dict, files: dict[int, str]) -> Problem:
    """The warning of one entry ``e`` whose arguments differ (:func:`arguments_section`)."""
    ref = e.get("ref") or {}
    seq, row = ref.get("seq"), ref.get("row")
    rel = files.get(seq, "") if isinstance(seq, int) else ""
    a, t = e.get("arguments") or {}, check.get("transcript") or {}
    call = " ".join(str(x) for x in (e.get("tool"), e.get("tool_name")) if x) or "(no tool call id)"
    detail = (f"session {session}, execution record row {row}, tool call {call}: the server was sent "
              f"{_size(a)} (sha256 {str(a.get('sha256', ''))[:12]}…), the transcript's input is {_size(t)} (sha256 "
              f"{str(t.get('sha256', ''))[:12]}…); a hook before the call may have rewritten it (asz conversation "
              f"{session} says which)")
    return Problem(str(root / rel) if rel else str(root / session), row + 1 if isinstance(row, int) else 0, "arguments",
                   ARGUMENTS_DIFFER, detail)


def _size(d: dict) -> str:
    """``N bytes`` of a digest's ``bytes``, ``? bytes`` when it holds none."""
    n = d.get("bytes")
    return f"{n:,} bytes" if isinstance(n, int) and not isinstance(n, bool) else "? bytes"
