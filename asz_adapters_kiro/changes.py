"""The ``changes/1`` record Kiro's own file writes report (origin-digest §3.6; seed 000, Parts; seed 004, Workspace
changes; docs/adapters/kiro.md, Changes and shell runs).

Three Kiro records say what a call did to a file, and each gets a derived ``changes/1`` record (``captured_by:
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
  The line has no time, and neither has the record (``time: ""``);
- a Kiro IDE ``tool_call`` line Kiro itself classifies as a file change (payload ``kind`` ``edit`` or ``delete``; the
  real Kiro IDE 1.0.411 session writes ``fs_write``, ``str_replace`` and ``delete_file`` so) naming its file
  (payload ``filePath``, else ``args.path`` / ``args.targetFile``): ``kind: delete`` removed a file that was there
  (``operation delete``, before present, after absent); an ``edit`` whose ``args.text`` holds the whole new content
  (``fs_write``) made the file that content, ``actionType: create`` read as Kiro says it (``operation create``, the
  before side not recorded, as a 2.x ``create``), any other as ``modify``; any other ``edit`` (``str_replace``'s
  ``oldStr``/``newStr`` name a piece, not the file) changed a file that was there, its contents before and after
  not recorded. A side not recorded has ``bytes: null`` and the diff is ``unavailable``: the file counts as
  changed, its lines as not known. A path is written with forward slashes (``c:/Users/dev/…``).

Nothing is inferred: paths and contents are the runtime's own, copied and hashed. Pure functions, no file read.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

from asz_core import changes_record, file_change, relative_path

__all__ = ["BEFORE_NOT_RECORDED", "CAPTURED_BY", "v2_writes", "v3_write", "records"]

#: Who reported the change: the runtime (seed 004: a runtime's record is listed before an observer's).
CAPTURED_BY = "kiro"
#: A write a line reports: ``(tool id, tool name, time, the file's changes[] entry)``.
Write = tuple[str, str, str, dict]
#: The before side of a write whose runtime does not record whether a file was there (§3.6 endpoint, ``present`` null).
BEFORE_NOT_RECORDED = {"present": None, "bytes": None}


def _local_path(url: Any) -> str:
    """The path of a ``file://`` URL, percent-decoded; '' for anything else."""
    if not isinstance(url, str) or not url.startswith("file://"):
        return ""
    return unquote(urlsplit(url).path)


def _text(v: Any) -> str:
    return v if isinstance(v, str) else ""


def v3_write(tool_id: str, name: str, args: Any, time: str, payload: Any = None) -> Write | None:
    """The write a 3.x or IDE ``tool_call`` reports (its ``toolCallId``, ``toolName``, decoded ``args``, the line's
    ``timestamp`` and its decoded ``payload``, for Kiro's own ``kind``, ``actionType`` and ``filePath``), or None when
    the line holds neither both contents as strings with a file, nor a ``kind`` ``edit``/``delete`` with a file
    (module docstring)."""
    if not tool_id or not isinstance(args, dict):
        return None
    before, after = args.get("originalContent"), args.get("modifiedContent")
    if isinstance(before, str) and isinstance(after, str):
        path = args.get("file") if isinstance(args.get("file"), str) and args["file"] else _local_path(args.get("local"))
        if not path:
            return None
        created = name == "create" and before == ""
        return tool_id, name, time, file_change(path, before, not created, after)
    p = payload if isinstance(payload, dict) else {}
    kind = p.get("kind")
    path = _text(p.get("filePath")) or _text(args.get("path")) or _text(args.get("targetFile"))
    if kind not in ("edit", "delete") or not path:
        return None
    path = relative_path(path, "")  # forward slashes, the path as written
    if kind == "delete":
        return tool_id, name, time, _deleted(path)
    text = args.get("text") if isinstance(args.get("text"), str) else None
    if text is not None and p.get("actionType") == "create":
        return tool_id, name, time, _change(path, None, None, text)
    return tool_id, name, time, file_change(path, None, True, text)


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
            out.append((tool_id, "write", "", _change(path, None, None, content)))
    return out


def records(writes: list[Write], session: str, stream: str) -> list[dict]:
    """One ``changes/1`` record per write, for the transcript ``session``'s ``stream`` (§3.6 key order)."""
    return [changes_record(tool_id, CAPTURED_BY, session, stream, name, time, "", [change])
            for tool_id, name, time, change in writes]


def _change(path: str, before: str | None, present: bool | None, after: str) -> dict:
    """One file's entry (:func:`asz_core.file_change`); ``present`` None: a ``create`` whose before side Kiro does not
    record (operation ``create``, as Kiro says, before :data:`BEFORE_NOT_RECORDED`)."""
    if present is not None:
        return file_change(path, before, present, after)
    change = file_change(path, None, True, after)  # the before side unknown: diff unavailable, lines not known
    change["operation"], change["before"] = "create", dict(BEFORE_NOT_RECORDED)
    return change


def _deleted(path: str) -> dict:
    """The entry of a file a call removed (§3.6 ``operation delete``): before present (its content not recorded), after
    absent, no diff."""
    change = file_change(path, None, True, None)
    change["operation"], change["after"] = "delete", {"present": False, "bytes": None}
    return change
