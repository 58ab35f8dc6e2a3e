"""The word after a line break in a tool's input is found (a user's report, session 13): a Bash command holding a real
newline (the corpus's spotter session commits ``…semantic CSS classes and`` newline ``light surface theme…``) was
indexed as JSON, where the break is written ``\\n``: ``and\\nlight`` held the word ``nlight``, so ``light`` missed it,
and the snippet printed a literal ``\\n``. The root is a real transcript written in ``tmp_path`` and collected by
``asz collect --once`` (the real adapter).
"""

from __future__ import annotations

import json
from pathlib import Path

from reading_helpers import asz, asz_json

from asz_core.reading.search_hits import json_text

SESSION = "22222222-3333-4444-5555-666666666666"
COMMAND = 'git commit -m "Replace the panel with semantic CSS classes and\nlight surface theme\tkept C:\\\\new"'


def _root(tmp_path: Path) -> Path:
    base = {"isSidechain": False, "userType": "external", "cwd": "/home/user/spot", "sessionId": SESSION,
            "version": "1.0.0", "gitBranch": ""}
    lines = [
        {**base, "parentUuid": None, "type": "user", "message": {"role": "user", "content": "commit it"},
         "uuid": "bbbbbbbb-0000-0000-0000-000000000001", "timestamp": "2026-01-01T00:00:00.000Z"},
        {**base, "parentUuid": "bbbbbbbb-0000-0000-0000-000000000001", "type": "assistant",
         "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
                     "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": COMMAND}}],
                     "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1}},
         "uuid": "bbbbbbbb-0000-0000-0000-000000000002", "timestamp": "2026-01-01T00:00:01.000Z"},
    ]
    src = tmp_path / "projects" / "-home-user-spot"
    src.mkdir(parents=True)
    (src / f"{SESSION}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(tmp_path / "root"))
    return tmp_path / "root"


def test_the_word_after_a_line_break_in_a_tool_input_is_found_and_shown_with_a_space(tmp_path):
    root = _root(tmp_path)
    for word in ("light", "theme", "kept"):  # after a newline, before a tab, after a tab
        hits = asz_json("search", word, "--json", "--kind", "tool_input", "--root", str(root))
        assert [(h["conversation"], h["kind"]) for h in hits] == [(SESSION, "tool_input")], word
        h = hits[0]
        assert [h["snippet_text"][a:b] for a, b in h["snippet_marks"]] == [word]
    assert "classes and\nlight surface theme\tkept" in h["snippet_text"]  # the command's own characters
    out = asz("search", "light", "--kind", "tool_input", "--root", str(root)).stdout
    assert "classes and «light» surface theme kept" in out and "and\\n" not in out  # a space, no literal \\n
    assert asz_json("search", "nlight", "--json", "--root", str(root)) == []


def test_escaped_backslashes_stay_as_json_writes_them():
    assert json_text({"c": "a\nb\tc\rd"}) == '{"c":"a\nb\tc\rd"}'
    assert json_text({"p": "C:\\new\\n", "q": "\\\nz"}) == '{"p":"C:\\\\new\\\\n","q":"\\\\\nz"}'
    assert json_text({"k": [1, "x"]}) == '{"k":[1,"x"]}'
