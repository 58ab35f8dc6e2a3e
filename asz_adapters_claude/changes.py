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

from typing import Any

from asz_core import (MAX_DIFF_LINES, changes_record, compute_hunks, count_lines, endpoint, file_change, relative_path,
                      split_lines)

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
_MISSING = object()


# -- content -----------------------------------------------------------------------------


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

    change = file_change(relative_path(path, cwd or ""), before, before_present, after, patch)
    return changes_record(tool_use_id, CAPTURED_BY, session, stream, tool_name, time, cwd, [change], BASIS)


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
