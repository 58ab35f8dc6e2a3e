"""A word in coloured terminal output is found by its own name (trial 16, F6): Claude Code keeps ``/context``'s output
with its colours (``\\x1b[1mContext Usage\\x1b[22m``), and the index held the colour's ``1m`` glued to the next word
(``1mcontext``), so ``asz search '"Context Usage"'`` found nothing. The index now holds text with terminal formatting
taken out (search_text.index_form), the same text every human rendering shows. Real values: the corpus line is found
by reading the transcripts directly; the synthetic session is written here and collected by the real adapter.
"""

from __future__ import annotations

import json
from pathlib import Path

from reading_helpers import asz, asz_json

SESSION = "33333333-4444-4555-8666-777777777777"


def _lines_holding(projects: Path, needle: str) -> set[tuple[str, int]]:
    """(session id, line number) of every transcript line whose decoded text holds ``needle`` once the terminal
    formatting (ESC [ … final byte) is taken out: counted from the source files, not by asz."""
    import re

    csi = re.compile("\x1b\\[[0-?]*[ -/]*[@-~]")
    out = set()
    for f in projects.rglob("*.jsonl"):
        for n, line in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if needle.split()[0] in line and needle in csi.sub("", json.dumps(json.loads(line), ensure_ascii=False)):
                out.add((json.loads(line)["sessionId"], n))
    return out


def test_the_context_usage_of_a_real_transcript_is_found(corpus_copy, corpus_dir):
    want = _lines_holding(corpus_dir / "claude-code" / "projects", "Context Usage")
    assert want == {("a7da6a22-facc-4fcd-8bab-f83c87862004", 6)}  # the one /context output in the corpus
    root = corpus_copy()
    hits = asz_json("search", '"Context Usage"', "--json", "--root", str(root))
    assert [(h["conversation"], h["row"]) for h in hits] == [("a7da6a22-facc-4fcd-8bab-f83c87862004", 6)]
    assert [hits[0]["snippet_text"][a:b] for a, b in hits[0]["snippet_marks"]] == ["Context Usage"]
    assert "\x1b" not in hits[0]["snippet_text"]
    assert asz_json("search", "1mcontext", "--json", "--root", str(root)) == []


def test_coloured_words_in_a_prompt_and_a_tool_result_are_found(tmp_path):
    base = {"isSidechain": False, "userType": "external", "cwd": "/w", "sessionId": SESSION, "version": "2.1.0", "gitBranch": ""}
    out = "\x1b[32mPASSED\x1b[0m tests/test_a.py\n\x1b[31;1mFAILED\x1b[0m tests/test_b.py"
    lines = [
        {**base, "parentUuid": None, "type": "user", "uuid": "cccccccc-0000-4000-8000-000000000001",
         "timestamp": "2026-01-01T00:00:00.000Z", "message": {"role": "user", "content": "make it \x1b[31mred\x1b[0m please"}},
        {**base, "parentUuid": "cccccccc-0000-4000-8000-000000000001", "type": "assistant", "uuid": "cccccccc-0000-4000-8000-000000000002",
         "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x", "stop_reason": "tool_use",
                     "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "pytest --color=yes"}}],
                     "usage": {"input_tokens": 1, "output_tokens": 1}}},
        {**base, "parentUuid": "cccccccc-0000-4000-8000-000000000002", "type": "user", "uuid": "cccccccc-0000-4000-8000-000000000003",
         "timestamp": "2026-01-01T00:00:02.000Z", "toolUseResult": {"stdout": out, "stderr": "", "interrupted": False, "isImage": False},
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": out}]}},
    ]
    src = tmp_path / "projects" / "-w"
    src.mkdir(parents=True)
    (src / f"{SESSION}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    assert [(h["kind"], h["row"]) for h in asz_json("search", "red", "--json", "--root", str(root))] == [("prompt", 1)]
    for word in ("PASSED", "FAILED"):  # after a colour and, in the structured copy, after a JSON \\u001b
        hits = asz_json("search", word, "--json", "--root", str(root))
        assert {(h["kind"], h["row"]) for h in hits} == {("tool_result", 3)}, word
        assert all("\x1b" not in h["snippet_text"] and "u001b" not in h["snippet_text"] for h in hits)
    assert asz_json("search", "32mpassed", "--json", "--root", str(root)) == []
