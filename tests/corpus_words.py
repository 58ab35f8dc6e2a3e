"""The words of each message text of Claude Code transcripts, read straight from their JSONL (what search tests count
their expected hits from, never from asz's own output)."""

from __future__ import annotations

import json
import re
from pathlib import Path


def _strings(value) -> list[str]:
    """A tool's input or result as the search index reads data: each string's text, a line break the character."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [json.dumps(value)]


def records(projects: Path):
    """``(path, record)`` of each line of the transcripts under ``projects`` that reads as JSON, in file order."""
    for path in sorted(projects.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                yield path, json.loads(line)
            except ValueError:
                continue


def message_words(projects: Path, meta: bool = True) -> list[set[str]]:
    """The words (lower case; letters, digits and _, as the index's tokenizer reads them) of each text of the messages
    of the transcripts under ``projects``: a prompt or reply text, a thinking, a tool's name and input, a tool
    result. A runtime notice or an attachment (records of other kinds) is not read; nor, when not ``meta``, a line
    with ``isMeta`` true (the runtime's, such as a skill's text: the index's kind ``context``, with attachments)."""
    out: list[set[str]] = []
    for _, rec in records(projects):
        if not meta and isinstance(rec, dict) and rec.get("isMeta") is True:
            continue
        msg = rec.get("message") if isinstance(rec, dict) else None
        content = msg.get("content") if isinstance(msg, dict) else None
        found = [[content]] if isinstance(content, str) else []
        for b in content if isinstance(content, list) else ():
            t = b.get("type") if isinstance(b, dict) else None
            if t == "text":
                found.append([b.get("text", "")])
            elif t == "thinking":
                found.append([b.get("thinking", "")])
            elif t == "tool_use":
                found.append([b.get("name", ""), *_strings(b.get("input"))])
            elif t == "tool_result":
                found.append(_strings(b.get("content")))
        out.extend({w.lower() for s in f for w in re.findall(r"\w+", s)} for f in found)
    return out
