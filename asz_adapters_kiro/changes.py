"""The ``changes/1`` record Kiro's own file writes report (origin-digest §3.6; seed 000, Parts; seed 004, Workspace
changes; docs/adapters/kiro.md, Changes and shell runs).

Two Kiro records carry what a write put in a file, and each gets a derived ``changes/1`` record (``captured_by:
kiro``, ``basis: runtime_reported``) as an added ``data`` part after its source parts, as Claude Code's editing
results do (``asz_core.file_change`` builds the file's entry for both):

- a CLI 3.x / IDE ``tool_call`` line whose ``args`` hold ``originalContent`` and ``modifiedContent`` (strings): the
  content before and after, so the diff and its lines are derived. The file is ``args.file`` (as written, relative to
  the workspace), else the path of a ``file://`` ``args.local``. A ``create`` call whose ``originalContent`` is empty
  made the file (before absent: ``operation create``); any other, before present. The record sits on the call's line,
  the only line that holds the contents (the result line names the file alone), with the line's time;
- a CLI 2.x ``ToolResults`` line whose ``results[<toolUseId>]`` is a ``FileWrite`` ``create`` (``{"command":
  "create", "path", "content"}``) answered ``Success``: what the file became. Kiro recorded a ``create`` (its result
  says ``Successfully created …``), so the operation is ``create``, as Kiro says it (trial 23a, F18; ``kiro/0.3.0``
  and before read ``modify``); whether a file was there before is not recorded (Kiro's ``create`` writes the file
  whether or not one was there), so the before side says so: ``{"present": null, "bytes": null}`` (not recorded,
  neither absent nor present), and the diff is ``unavailable``: the file counts as changed, its lines are not known.
  The line has no time, and neither has the record (``time: ""``).

Nothing is inferred: paths and contents are the runtime's own, copied and hashed. Pure functions, no file read.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

from asz_core import changes_record, file_change

__all__ = ["BEFORE_NOT_RECORDED", "CAPTURED_BY", "v2_writes", "v3_write", "records"]

#: Who reported the change: the runtime (seed 004: a runtime's record is listed before an observer's).
CAPTURED_BY = "kiro"
#: A write a line reports: ``(tool id, tool name, time, path, before, before present, after)``; before present None:
#: whether a file was there is not recorded (a 2.x ``create``).
Write = tuple[str, str, str, str, "str | None", "bool | None", str]
#: The before side of a write whose runtime does not record whether a file was there (§3.6 endpoint, ``present`` null).
BEFORE_NOT_RECORDED = {"present": None, "bytes": None}


def _local_path(url: Any) -> str:
    """The path of a ``file://`` URL, percent-decoded; '' for anything else."""
    if not isinstance(url, str) or not url.startswith("file://"):
        return ""
    return unquote(urlsplit(url).path)


def v3_write(tool_id: str, name: str, args: Any, time: str) -> Write | None:
    """The write a 3.x ``tool_call`` reports (its ``toolCallId``, ``toolName``, decoded ``args`` and the line's
    ``timestamp``), or None when ``args`` does not hold both contents as strings, or names no file."""
    if not tool_id or not isinstance(args, dict):
        return None
    before, after = args.get("originalContent"), args.get("modifiedContent")
    if not isinstance(before, str) or not isinstance(after, str):
        return None
    path = args.get("file") if isinstance(args.get("file"), str) and args["file"] else _local_path(args.get("local"))
    if not path:
        return None
    created = name == "create" and before == ""
    return tool_id, name, time, path, before, not created, after


def v2_writes(results: Any) -> list[Write]:
    """The writes a 2.x ``ToolResults`` line's ``results`` (decoded) report: each ``FileWrite`` ``create`` whose
    ``result`` is ``Success``, in the object's order; [] for any other shape."""
    if not isinstance(results, dict):
        return []
    out: list[Write] = []
    for tool_id, entry in results.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("result"), dict) or "Success" not in entry["result"]:
            continue
        kind = (entry.get("tool") or {}).get("kind") if isinstance(entry.get("tool"), dict) else None
        fw = ((kind or {}).get("BuiltIn") or {}).get("FileWrite") if isinstance(kind, dict) else None
        if not isinstance(fw, dict) or fw.get("command") != "create":
            continue
        path, content = fw.get("path"), fw.get("content")
        if isinstance(tool_id, str) and tool_id and isinstance(path, str) and path and isinstance(content, str):
            out.append((tool_id, "write", "", path, None, None, content))
    return out


def records(writes: list[Write], session: str, stream: str) -> list[dict]:
    """One ``changes/1`` record per write, for the transcript ``session``'s ``stream`` (§3.6 key order)."""
    return [changes_record(tool_id, CAPTURED_BY, session, stream, name, time, "", [_change(path, before, present, after)])
            for tool_id, name, time, path, before, present, after in writes]


def _change(path: str, before: str | None, present: bool | None, after: str) -> dict:
    """One file's entry (:func:`asz_core.file_change`); ``present`` None: a ``create`` whose before side Kiro does not
    record (operation ``create``, as Kiro says, before :data:`BEFORE_NOT_RECORDED`)."""
    if present is not None:
        return file_change(path, before, present, after)
    change = file_change(path, None, True, after)  # the before side unknown: diff unavailable, lines not known
    change["operation"], change["before"] = "create", dict(BEFORE_NOT_RECORDED)
    return change
