"""One file's change in the ``changes/1`` record (origin-digest §3.6; seed 000, Parts; seed 004, Workspace changes),
built from what a runtime reported it wrote: the content before, the content after, or the runtime's own patch.

Shared by every adapter that derives a ``changes/1`` record beside a tool's record (Claude Code's editing tools,
``asz_adapters_claude.changes``; Kiro's file writes, ``asz_adapters_kiro.changes``), so the diff, the counts and the
endpoints are one piece of code: nothing here is any dialect's, only the record's shape. Nothing is inferred: a side
the runtime did not report stays unknown (``bytes: null``, no ``sha256``; the diff ``unavailable``, no counts).
Pure functions, standard library only: no file is read.
"""

from __future__ import annotations

import difflib
import hashlib
import posixpath
import re

__all__ = ["MAX_DIFF_LINES", "changes_record", "compute_hunks", "count_lines", "endpoint", "endpoint_of", "file_change",
           "relative_path", "split_lines"]

#: A side longer than this many lines is not diffed: its diff says ``too_large``.
MAX_DIFF_LINES = 50_000
_CONTEXT = 3
_WINDOWS = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")


def relative_path(path: str, cwd: str) -> str:
    """``path`` relative to ``cwd`` with forward slashes, when it lies below ``cwd``; else ``path`` with forward slashes.

    A path or cwd with a drive letter (``C:\\``) or a UNC prefix is compared as
    Windows does: ``\\`` and ``/`` alike, case-insensitively. ``.`` and ``..``
    segments are normalised first. An empty ``cwd`` leaves the path whole.
    Never raises.
    """
    windows = bool(_WINDOWS.match(path) or _WINDOWS.match(cwd or ""))
    p = path.replace("\\", "/") if windows else path
    if not cwd:
        return p
    c = cwd.replace("\\", "/") if windows else cwd
    np_, nc = posixpath.normpath(p), posixpath.normpath(c)
    key_p, key_c = (np_.casefold(), nc.casefold()) if windows else (np_, nc)
    prefix = key_c if key_c.endswith("/") else key_c + "/"
    if key_p.startswith(prefix) and len(key_p) > len(prefix):
        return np_[len(prefix):]
    return p


def endpoint(text: str | None, present: bool) -> dict:
    """One side of a file change: ``{present, bytes, sha256[, no_newline_at_end]}`` (§3.6).

    ``present`` False gives ``{"present": false, "bytes": null}``; a present
    file whose content is unknown (``text`` None) gives ``{"present": true,
    "bytes": null}``. ``bytes`` counts the UTF-8 encoding of ``text`` and
    ``sha256`` hashes it; ``no_newline_at_end`` appears (true) only for a
    non-empty text not ending in ``\\n``.
    """
    if not present:
        return {"present": False, "bytes": None}
    if text is None:
        return {"present": True, "bytes": None}
    return endpoint_of(_utf8(text))


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def endpoint_of(data: bytes) -> dict:
    """:func:`endpoint` of a present file whose content is the UTF-8 ``data``."""
    out: dict = {"present": True, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    if data and not data.endswith(b"\n"):
        out["no_newline_at_end"] = True
    return out


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` split on ``\\n`` only, without their newline; a final newline adds no empty line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def compute_hunks(before: str, after: str, context: int = _CONTEXT) -> list[dict]:
    """Unified-diff hunks from ``before`` to ``after`` (§3.6 hunk shape, keys in order).

    Each hunk is ``{old_start, old_lines, new_start, new_lines, lines}`` with
    lines prefixed ``-``, ``+`` or a space and ``context`` lines of context; an
    empty side starts at 0 as in ``diff -u``. No ``\\ No newline`` lines are
    written: an endpoint's ``no_newline_at_end`` says it.
    """
    a, b = split_lines(before), split_lines(after)
    hunks = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        lines: list[str] = []
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                lines.extend(" " + s for s in a[x1:x2])
                continue
            if tag in ("replace", "delete"):
                lines.extend("-" + s for s in a[x1:x2])
            if tag in ("replace", "insert"):
                lines.extend("+" + s for s in b[y1:y2])
        old_n, new_n = i2 - i1, j2 - j1
        hunks.append({
            "old_start": i1 + 1 if old_n else i1,
            "old_lines": old_n,
            "new_start": j1 + 1 if new_n else j1,
            "new_lines": new_n,
            "lines": lines,
        })
    return hunks


def count_lines(hunks: list[dict]) -> tuple[int, int]:
    """``(additions, deletions)``: lines starting with ``+`` and with ``-`` across ``hunks``."""
    add = dele = 0
    for h in hunks:
        for line in h["lines"]:
            if line.startswith("+"):
                add += 1
            elif line.startswith("-"):
                dele += 1
    return add, dele


def file_change(path: str, before: str | None, before_present: bool, after: str | None,
                patch: list[dict] | None = None) -> dict:
    """One ``changes[]`` entry of a ``changes/1`` record (§3.6, keys in order): ``path`` (as given: the caller makes it
    relative), ``operation`` (``modify`` when ``before_present``, else ``create``), ``before``/``after`` endpoints,
    ``diff``, ``additions``, ``deletions`` and, when there are some, ``hunks``.

    ``before`` None with ``before_present`` True: a file was there, its content unknown; ``after`` None: what the file
    became is unknown. ``patch`` (hunks in §3.6 keys, the runtime's own) is taken as the diff when given; else the
    hunks are computed from ``before`` and ``after`` (difflib, 3 lines of context). The diff is ``binary`` when a text
    or a patch line holds a NUL character, ``unavailable`` when neither a patch nor ``before`` is known, ``too_large``
    when a side has more than :data:`MAX_DIFF_LINES` lines; ``additions``/``deletions`` are the ``+``/``-`` lines of
    an available diff, else null. Never raises for str/None arguments.
    """
    # each text encoded once, for its endpoint and the NUL check (a NUL character is exactly a 0 byte of its UTF-8)
    before_data, after_data = _utf8(before or ""), _utf8(after or "")
    change: dict = {
        "path": path,
        "operation": "modify" if before_present else "create",
        "before": endpoint_of(before_data) if before_present and before is not None else endpoint(before, before_present),
        "after": endpoint_of(after_data) if after is not None else endpoint(after, True),
    }
    hunks: list[dict] = []
    if b"\x00" in before_data or b"\x00" in after_data or (patch and any("\x00" in l for h in patch for l in h["lines"])):
        diff = "binary"
    elif patch:
        diff, hunks = "available", patch
    elif before is None or after is None:
        diff = "unavailable"
    elif max(before.count("\n"), after.count("\n")) > MAX_DIFF_LINES:
        diff = "too_large"
    else:
        diff, hunks = "available", compute_hunks(before, after)
    change["diff"] = diff
    if diff == "available":
        change["additions"], change["deletions"] = count_lines(hunks)
    else:
        change["additions"] = change["deletions"] = None
    if hunks:
        change["hunks"] = hunks
    return change


def changes_record(tool_id: str, captured_by: str, session: str, stream: str, tool_name: str, time: str, cwd: str,
                   changes: list[dict], basis: str = "runtime_reported") -> dict:
    """A ``changes/1`` record (§3.6, keys in order) a runtime reported for the tool call ``tool_id`` (its ``id`` and
    ``tool``): ``schema``, ``id``, ``captured_by`` (the runtime, e.g. ``claude-code``, ``kiro``), ``session``,
    ``stream`` (``main`` when empty), ``tool``, ``tool_name``, ``time`` (as the record wrote it), ``basis``, ``root``
    ``{path}`` (only when ``cwd`` is set), ``changed_files`` (``len(changes)``) and ``changes`` (:func:`file_change`
    entries)."""
    rec: dict = {
        "schema": "changes/1",
        "id": tool_id,
        "captured_by": captured_by,
        "session": session,
        "stream": stream or "main",
        "tool": tool_id,
        "tool_name": tool_name,
        "time": time,
        "basis": basis,
    }
    if cwd:
        rec["root"] = {"path": cwd}
    rec["changed_files"] = len(changes)
    rec["changes"] = changes
    return rec
