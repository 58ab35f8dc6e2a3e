"""The ``changes/1`` record Claude Code's own editing tools report (origin-digest §3.6, §5.1; seed 004, Workspace changes).

An Edit, MultiEdit, Write or NotebookEdit result carries, in its
``toolUseResult``, the file it wrote, the content before and often a unified
diff as JSON (``structuredPatch``; a MultiEdit names its content before
``originalFileContents`` and lists its ``edits``). :func:`derive_changes` turns that into one
``changes/1`` record (``captured_by: claude-code``, ``basis:
runtime_reported``) which the transcript converter lands as a second ``data``
part beside the result. Nothing is inferred: paths, patch and contents are the
runtime's own claims, copied into the model's shape and hashed; what the
result does not say stays unknown (``bytes: null``, no ``sha256``).

Pure functions, standard library only: no file is read.
"""

from __future__ import annotations

import difflib
import hashlib
import posixpath
import re
from typing import Any

__all__ = [
    "SCHEMA",
    "CAPTURED_BY",
    "BASIS",
    "EDITING_TOOLS",
    "MAX_DIFF_LINES",
    "derive_changes",
    "relative_path",
    "endpoint",
    "split_lines",
    "compute_hunks",
    "apply_hunks",
    "count_lines",
]

SCHEMA = "changes/1"
CAPTURED_BY = "claude-code"
BASIS = "runtime_reported"
#: Tools whose result carries what they wrote.
EDITING_TOOLS = ("Edit", "MultiEdit", "Write", "NotebookEdit")
#: A side longer than this many lines is not diffed here: its diff says ``too_large``.
MAX_DIFF_LINES = 50_000
_CONTEXT = 3
_WINDOWS = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")
_MISSING = object()


# -- paths -------------------------------------------------------------------------------


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


# -- content -----------------------------------------------------------------------------


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
    return _endpoint_of(_utf8(text))


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _endpoint_of(data: bytes) -> dict:
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


def apply_hunks(before: str, hunks: list[dict]) -> str | None:
    """``before`` with ``hunks`` applied, or None when a context or removed line does not match.

    Understands ``\\ No newline at end of file`` lines, so a patch that adds
    or removes the final newline gives the right text.
    """
    # Only the lines a hunk can reach are split (a hunk reads at most one line a line of it from its start, so no
    # index read is past ``reach``); the rest rides along as one piece and is joined back as it was: the same text as
    # splitting every line, for less (a file is often far longer than its patch). A final newline leaves a trailing
    # "" that rides along untouched.
    reach = max((h["old_start"] + len(h["lines"]) for h in hunks), default=0)
    lines = before.split("\n", min(reach, len(before)) + 1)
    out: list[str] = []
    pos = 0
    old_marker = new_marker = False
    for h in hunks:
        old_start, old_lines = h["old_start"], h["old_lines"]
        start = old_start - 1 if old_lines else old_start
        if start < pos or start > len(lines):
            return None
        out.extend(lines[pos:start])
        pos = start
        last = ""
        old_marker = new_marker = False
        for line in h["lines"]:
            tag, body = line[:1], line[1:]
            if tag in (" ", "-"):
                if pos >= len(lines) or lines[pos] != body:
                    return None
                pos += 1
                if tag == " ":
                    out.append(body)
            elif tag == "+":
                out.append(body)
            elif tag == "\\":
                old_marker = old_marker or last in (" ", "-")
                new_marker = new_marker or last in (" ", "+")
                continue
            else:
                return None
            last = tag
    out.extend(lines[pos:])
    text = "\n".join(out)
    if new_marker and not old_marker and text.endswith("\n"):
        text = text[:-1]
    elif old_marker and not new_marker:
        text += "\n"
    return text


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


def _patch(raw: Any) -> list[dict] | None:
    """The runtime's ``structuredPatch`` in §3.6 keys, or None when it is not a list of well-formed hunks."""
    if not isinstance(raw, list):
        return None
    out = []
    for h in raw:
        if not isinstance(h, dict):
            return None
        nums = [h.get(k) for k in ("oldStart", "oldLines", "newStart", "newLines")]
        lines = h.get("lines")
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in nums):
            return None
        if not isinstance(lines, list) or not all(isinstance(s, str) for s in lines):
            return None
        out.append({"old_start": nums[0], "old_lines": nums[1], "new_start": nums[2], "new_lines": nums[3], "lines": list(lines)})
    return out


def _text_or(value: Any, default=_MISSING):
    return value if isinstance(value, str) else default


# -- the record --------------------------------------------------------------------------


def editing_tool_of(tool_use_result: Any) -> str:
    """The editing tool a ``toolUseResult`` object answers, told by its keys alone; '' for any other result.

    A result line does not name its tool (the name is on the call's line), so
    the shape decides, by rule over source fields: ``notebook_path`` with
    ``new_source`` → NotebookEdit; ``filePath`` with ``oldString`` and
    ``newString`` → Edit; ``filePath`` with ``edits`` and
    ``originalFileContents`` → MultiEdit; ``filePath`` with ``content`` and
    ``type`` create or update → Write.
    """
    tur = tool_use_result
    if not isinstance(tur, dict):
        return ""
    if "notebook_path" in tur and "new_source" in tur:
        return "NotebookEdit"
    if isinstance(tur.get("filePath"), str):
        if "oldString" in tur and "newString" in tur:
            return "Edit"
        if "edits" in tur and "originalFileContents" in tur:
            return "MultiEdit"
        if "content" in tur and tur.get("type") in ("create", "update"):
            return "Write"
    return ""


def derive_changes(
    tool_name: str,
    tool_use_id: str,
    tool_input: Any,
    tool_use_result: Any,
    cwd: str,
    session: str,
    stream: str,
    time: str,
) -> dict | None:
    """The ``changes/1`` record Claude Code reported for one Edit, MultiEdit, Write or NotebookEdit result, or None (§3.6, §5.1).

    Arguments: ``tool_name`` the tool_use's name; ``tool_use_id`` the id the
    result answers (the record's ``id`` and ``tool``); ``tool_input`` the
    tool_use's ``input`` (dict, used for the path when the result has none);
    ``tool_use_result`` the line's decoded ``toolUseResult``; ``cwd`` the
    line's ``cwd`` (``root.path``, and what paths are made relative to);
    ``session`` and ``stream`` (``main`` or the agent id) of the transcript;
    ``time`` the line's ``timestamp`` as written.

    Returns a dict whose keys are in §3.6 order: ``schema``, ``id``,
    ``captured_by`` (``claude-code``), ``session``, ``stream``, ``tool``,
    ``tool_name``, ``time``, ``basis`` (``runtime_reported``), ``root``
    ``{path}`` (when ``cwd`` is set), ``changed_files`` (1) and ``changes``:
    one file with ``path``, ``operation`` (``create`` when the result says
    there was no file before, else ``modify``), ``before``/``after``
    endpoints, ``diff``, ``additions``, ``deletions`` (null unless the diff is
    available) and ``hunks`` (copied from ``structuredPatch``, else computed
    with difflib from the before and after text). Text with a NUL character
    makes the diff ``binary``; a side over :data:`MAX_DIFF_LINES` lines makes
    it ``too_large``.

    Returns None for another tool, a result that is not an object (an error
    string, a missing result), no tool_use_id, no file path, or a result that
    says neither a patch nor what the file became. Never raises.
    """
    try:
        return _derive(tool_name, tool_use_id, tool_input, tool_use_result, cwd, session, stream, time)
    except (TypeError, ValueError, KeyError, AttributeError, RecursionError):
        return None


def _derive(tool_name, tool_use_id, tool_input, tur, cwd, session, stream, time) -> dict | None:
    if tool_name not in EDITING_TOOLS or not isinstance(tur, dict) or not tool_use_id:
        return None
    inp = tool_input if isinstance(tool_input, dict) else {}
    if tool_name == "NotebookEdit":
        path = _text_or(tur.get("notebook_path"), "") or _text_or(inp.get("notebook_path"), "")
        before_raw, after_raw = tur.get("original_file", _MISSING), tur.get("updated_file", _MISSING)
    else:
        path = _text_or(tur.get("filePath"), "") or _text_or(inp.get("file_path"), "")
        before_raw = tur.get("originalFileContents" if tool_name == "MultiEdit" else "originalFile", _MISSING)
        after_raw = tur.get("content", _MISSING) if tool_name == "Write" else _MISSING
    if not path:
        return None

    # Before: a string is the content; null says there was no file. A missing key says nothing,
    # except on a Write whose type is "create" (Claude Code 1.0.x wrote no originalFile then).
    if isinstance(before_raw, str):
        before_present, before = True, before_raw
    elif before_raw is None or (before_raw is _MISSING and tool_name == "Write" and tur.get("type") == "create"):
        before_present, before = False, ""
    else:
        before_present, before = True, None
    after = _text_or(after_raw, None)

    patch = _patch(tur.get("structuredPatch"))
    if after is None and before is not None:
        if patch:
            after = apply_hunks(before, patch)
        if after is None and tool_name == "Edit":
            after = _edit_after(before, tur, inp)
        if after is None and tool_name == "MultiEdit":
            after = _multi_edit_after(before, tur, inp)
    if not patch and after is None:
        return None

    # each text encoded once, for its endpoint and the NUL check (a NUL character is exactly a 0 byte of its UTF-8)
    before_data, after_data = _utf8(before or ""), _utf8(after or "")
    change: dict = {
        "path": relative_path(path, cwd or ""),
        "operation": "modify" if before_present else "create",
        "before": _endpoint_of(before_data) if before_present and before is not None else endpoint(before, before_present),
        "after": _endpoint_of(after_data) if after is not None else endpoint(after, True),
    }
    hunks: list[dict] = []
    if b"\x00" in before_data or b"\x00" in after_data or (patch and any("\x00" in l for h in patch for l in h["lines"])):
        diff = "binary"
    elif patch:
        diff, hunks = "available", patch
    elif before is None:
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

    rec: dict = {
        "schema": SCHEMA,
        "id": tool_use_id,
        "captured_by": CAPTURED_BY,
        "session": session,
        "stream": stream or "main",
        "tool": tool_use_id,
        "tool_name": tool_name,
        "time": time,
        "basis": BASIS,
    }
    if cwd:
        rec["root"] = {"path": cwd}
    rec["changed_files"] = 1
    rec["changes"] = [change]
    return rec


def _edit_after(before: str, tur: dict, inp: dict) -> str | None:
    """An Edit's new content from its old and new strings, when the old string is in ``before``."""
    old = _text_or(tur.get("oldString"), None)
    new = _text_or(tur.get("newString"), None)
    if old is None or new is None:
        old, new = _text_or(inp.get("old_string"), None), _text_or(inp.get("new_string"), None)
    if not old or new is None or old not in before:
        return None
    replace_all = tur.get("replaceAll", inp.get("replace_all")) is True
    return before.replace(old, new) if replace_all else before.replace(old, new, 1)


def _multi_edit_after(before: str, tur: dict, inp: dict) -> str | None:
    """A MultiEdit's new content: its ``edits`` (``old_string``, ``new_string``, ``replace_all``) applied in order,
    when every old string is found; the result's ``edits`` first, else the call's."""
    edits = tur.get("edits")
    if not isinstance(edits, list):
        edits = inp.get("edits")
    if not isinstance(edits, list) or not edits:
        return None
    text = before
    for e in edits:
        if not isinstance(e, dict):
            return None
        old, new = _text_or(e.get("old_string"), None), _text_or(e.get("new_string"), None)
        if new is None or old is None or (old and old not in text):
            return None
        if not old:  # an empty old string writes a new file's content
            if text:
                return None
            text = new
            continue
        text = text.replace(old, new) if e.get("replace_all") is True else text.replace(old, new, 1)
    return text
