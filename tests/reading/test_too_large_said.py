"""A record too large to land (over max_delta_bytes, 2 MiB by default) lands without the text of its largest part;
the conversation still verifies. Trial 12: ``asz conversation`` and ``asz ls`` said only ``verified`` and only
``--json``'s ``summary.cut`` told; now both say it as a fact where the reader looks. The corpus's hello session
(de3b8b19) is copied with its Bash result grown to 4,200,000 bytes, and landed by the real collect."""

from __future__ import annotations

import json
import shutil

from reading_helpers import asz
from view_server_helpers import collect_and_parse

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
PROJECT = "-home-user-claude-reliability"
BIG = "Hello world\n" * 350_000  # the Bash result, as the shell printed it 350,000 times


def test_ls_and_conversation_say_the_text_was_not_kept(corpus_source, tmp_path):
    src = tmp_path / "projects" / PROJECT
    shutil.copytree(corpus_source / PROJECT, src)
    lines = (src / f"{SID}.jsonl").read_text(encoding="utf-8").splitlines()
    grown = 0
    for i, line in enumerate(lines):
        d = json.loads(line)
        content = (d.get("message") or {}).get("content")
        for b in content if isinstance(content, list) else ():
            if b.get("type") == "tool_result" and b.get("content") == "Hello world":
                b["content"], grown = BIG, grown + 1
                lines[i] = json.dumps(d)
    assert grown == 1
    (src / f"{SID}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    root = tmp_path / "root"
    collect_and_parse(tmp_path / "projects", root)
    said = f"landed without its text: 1 part too large to land ({len(BIG.encode()):,} bytes as written)"

    doc = json.loads(asz("conversation", SID[:8], "--json", "--root", str(root)).stdout)
    assert doc["summary"]["state"] == "verified" and doc["summary"]["cut"]["too_large"] == 1  # the JSON as it was
    text = asz("conversation", SID[:8], "--root", str(root)).stdout.splitlines()
    at = next(i for i, ln in enumerate(text) if ln.startswith("state verified"))
    assert text[at + 1] == said  # right under the state it qualifies
    ls = asz("ls", "--root", str(root)).stdout.splitlines()
    assert f"{SID[:8]} {said}" in ls
    row = json.loads(asz("ls", "--json", "--root", str(root)).stdout)[0]
    assert row["cut"] == {"truncated": 0, "too_large": 1, "bytes": len(BIG.encode())}


def test_nothing_is_said_when_nothing_was_cut(corpus_root):
    assert "landed without" not in asz("ls", "--root", str(corpus_root)).stdout
    assert "landed without" not in asz("conversation", SID[:8], "--root", str(corpus_root)).stdout
