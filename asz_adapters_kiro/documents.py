"""Kiro one-document sources into records: conversation states, session metadata, Kiro IDE files (docs/adapters/kiro.md).

A document lands as one record at ord 1, off 0 (seed 000, File kinds). A 1.x
conversation state (``history`` of ``user``/``assistant`` entries) is broken
into parts per entry; 2.x/3.x session metadata land whole as data with their
title, model and parent lifted; Kiro IDE files are read by :mod:`asz_adapters_kiro.ide`.
"""

from __future__ import annotations

from asz_core import Part, Record

from .build import ENV_WHY, Build, call_part, failed_from_status, result_content, shown, v1_text, workspace_path, node_time
from .ide import ide_document
from .spans import Node

__all__ = ["document_record"]

# --------------------------------------------------------------------------- conversation state (1.x rows, /chat save)


def _result_items(b: Build, results: Node) -> None:
    """1.x ``tool_use_results``: ``[{"tool_use_id", "content": [{"Text"}|{"Json"}], "status"}]``."""
    for item in results.elements():
        if not isinstance(item.value, dict):
            b.unknown(item, "a tool use result that is not an object")
            continue
        part = Part(k="result", of=item.s("tool_use_id"), failed=failed_from_status(item.get("status")))
        result_content(part, item.member("content"), v1_text)
        b.add(part)


def _user_content(b: Build, content: Node) -> None:
    v = content.value
    if isinstance(v, str):
        b.text(v)
        return
    if not isinstance(v, dict) or len(v) != 1:
        b.unknown(content, "user content that is not one of Prompt, ToolUseResults, CancelledToolUses")
        return
    (tag, inner), = v.items()
    node = content.member(tag)
    if tag == "Prompt" and isinstance(inner, dict) and isinstance(inner.get("prompt"), str):
        b.text(inner["prompt"])
    elif tag in ("ToolUseResults", "CancelledToolUses") and isinstance(inner, dict) and isinstance(inner.get("tool_use_results"), list):
        if tag == "CancelledToolUses" and isinstance(inner.get("prompt"), str):
            p = node.member("prompt")
            b.text(p.value)
        _result_items(b, node.member("tool_use_results"))
    else:
        b.unknown(content, f'user content "{shown(tag)}" is not one this dialect describes')


def _assistant(b: Build, assistant: Node) -> None:
    v = assistant.value
    if not isinstance(v, dict) or len(v) != 1:
        b.unknown(assistant, "an assistant message that is not one of Response, ToolUse")
        return
    (tag, inner), = v.items()
    node = assistant.member(tag)
    if tag not in ("Response", "ToolUse") or not isinstance(inner, dict):
        b.unknown(assistant, f'assistant message "{shown(tag)}" is not one this dialect describes')
        return
    thinking = node.member("thinking")
    if thinking is not None and thinking.value is not None:
        b.data(thinking)
    content = node.member("content")
    if content is not None and isinstance(content.value, str) and (content.value or tag == "Response"):
        b.text(content.value)
    uses = node.member("tool_uses")
    if uses is not None and isinstance(uses.value, list):
        for use in uses.elements():
            if not isinstance(use.value, dict):
                b.unknown(use, "a tool use that is not an object")
                continue
            b.add(call_part(use.s("id"), use.s("name"), use.member("args")))
            extra = sum(c.size for k, c in use.members() if k in ("orig_name", "orig_args"))
            if extra:
                b.drop("tool use orig_name and orig_args", extra, "the name and input before the CLI rewrote them; the call keeps the ones sent")
    b.leftovers(node, {"message_id", "content", "tool_uses", "thinking"}, f"assistant {tag}", in_place=True)


def _history_entry(b: Build, entry: Node) -> None:
    if not isinstance(entry.value, dict):
        b.unknown(entry, "a history entry that is not an object")
        return
    for key, child in entry.members():
        if key == "user" and isinstance(child.value, dict):
            for ukey, u in child.members():
                if ukey == "content":
                    _user_content(b, u)
                elif ukey == "additional_context":
                    if isinstance(u.value, str) and u.value:
                        b.data(u)
                elif ukey in ("env_context", "timestamp"):
                    if u.value is not None:
                        b.drop("user env_context and timestamp", u.size, ENV_WHY)
                elif u.value is not None:
                    b.data(u)
        elif key == "assistant":
            _assistant(b, child)
        elif child.value is not None:
            b.data(child)


def _conversation(rec: Record, root: Node) -> None:
    """A Kiro CLI 1.x conversation state (a SQLite row value or a ``/chat save`` export)."""
    b = Build(rec)
    rec.from_ = "runtime"
    for key, child in root.members():
        if key == "history" and isinstance(child.value, list):
            for entry in child.elements():
                _history_entry(b, entry)
        elif key == "latest_summary" and isinstance(child.value, list) and child.value and isinstance(child.value[0], str):
            b.flags.add("reset_summary")
            elems = child.elements()
            b.text(elems[0].value)
            for rest in elems[1:]:
                if rest.value is not None:
                    b.data(rest)
        elif child.value is None:
            continue
        else:
            b.data(child)
            if key == "tools" and isinstance(child.value, (dict, list)) and child.value:
                b.flags.add("tool_schemas")
    info = root.get("model_info")
    rec.model = (info.get("model_id") if isinstance(info, dict) and isinstance(info.get("model_id"), str) else "") or root.s("model")
    b.finish()


# --------------------------------------------------------------------------- metadata documents


def _v2_session(rec: Record, root: Node) -> None:
    """2.x ``<id>.json``: the whole document as data; title, model, parent, an absolute ``cwd`` and ``updated_at`` (as
    ``time``) lifted."""
    rec.from_ = "runtime"
    rec.label = root.s("title")
    rec.cwd = workspace_path(root.s("cwd"))  # the working directory the runtime recorded (issue 17), when absolute
    rec.time = node_time(root.member("updated_at"))  # when the runtime last wrote this document, as written
    state = root.get("session_state")
    rts = state.get("rts_model_state") if isinstance(state, dict) else None
    info = rts.get("model_info") if isinstance(rts, dict) else None
    if isinstance(info, dict) and isinstance(info.get("model_id"), str):
        rec.model = info["model_id"]
    if root.s("parent_session_id"):
        rec.child = root.s("session_id")
    rec.parts = [Part(k="data", data=root.raw())]


def _v3_session(rec: Record, root: Node) -> None:
    """3.x ``session.json``: the whole document as data; title, model, parent and an absolute first workspace path
    lifted. No ``time``: every line of its ``messages.jsonl`` carries its own, so the conversation's range is its
    lines'; ``lastModifiedAt`` (kept in the data part) moves on whenever Kiro rewrites the document, a retitle or a
    reopen days later included (trial 29c, F10: a 5 s conversation read 1d04h)."""
    rec.from_ = "runtime"
    rec.label = root.s("title")
    rec.model = root.s("modelId")
    paths = root.get("workspacePaths")
    if isinstance(paths, list) and paths and isinstance(paths[0], str):
        rec.cwd = workspace_path(paths[0])  # the workspace the session was opened on (issue 17), when absolute
    if root.s("parentSessionId"):
        sid = root.s("id")
        rec.child = sid[5:] if sid.startswith("sess_") else sid
        # parentExecutionId (kept in the data part) names an execution inside the parent's turn, not a run of
        # the child's stream, and the parent's records state their turn's prompt as run (turns.py): no run here.
    rec.parts = [Part(k="data", data=root.raw())]


def _other_document(rec: Record, root: Node) -> None:
    """Any other one-document source (Kiro IDE files): the whole document as data, ``title`` as label."""
    rec.from_ = "runtime"
    rec.label = root.s("title")
    rec.parts = [Part(k="data", data=root.raw())]


def document_record(rec: Record, root: Node) -> None:
    v = root.value
    if ide_document(rec, root):
        return
    if isinstance(v.get("history"), list):
        _conversation(rec, root)
    elif "session_state" in v or ("session_id" in v and "created_at" in v):
        _v2_session(rec, root)
    elif "schemaVersion" in v and isinstance(v.get("id"), str):
        _v3_session(rec, root)
    else:
        _other_document(rec, root)
