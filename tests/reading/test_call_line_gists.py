"""A folded call's one line says a todo list's counts and an edit's path and lines changed (render 23; docs/reading.md,
"Tool inputs"; ``asz_core.view.tool_drawn.drawn_gist``), not its JSON cut at 120 characters: the brief md's call
line, html's tool line and the audit forms' ``tool_call`` line (the page's row: tests/view_server/test_tools_drawn_page.py).
Expected lines are counted from the written source lines (test_tools_drawn.written_lines), never from asz.
"""

from __future__ import annotations

import html
import json

import pytest
from reading_helpers import as_copy, asz
from test_tools_drawn import SID, collected_written, written_lines


def _inputs() -> dict[str, dict]:
    return {b["name"]: b["input"] for d in written_lines() if d["type"] == "assistant"
            for b in d["message"]["content"] if b.get("type") == "tool_use"}


def _changed(pairs: list[tuple[str, str]]) -> str:
    """``(-R +A)``: the lines of the old texts not in the new, and of the new not in the old (these texts repeat no line)."""
    gone = sum(len(set(a.splitlines()) - set(b.splitlines())) for a, b in pairs)
    added = sum(len(set(b.splitlines()) - set(a.splitlines())) for a, b in pairs)
    return f"(-{gone} +{added})"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return collected_written(tmp_path_factory.mktemp("gists"))


def test_a_todo_list_and_an_edit_read_as_one_line(root):
    inp = _inputs()
    todos = inp["TodoWrite"]["todos"]
    assert [t["status"] for t in todos] == ["in_progress", "pending", "completed", "blocked"]
    want = {"TodoWrite": f"{len(todos)} todos: 1 completed, 1 in progress, 1 pending, 1 blocked",
            "Edit": f"{inp['Edit']['file_path']} {_changed([(inp['Edit']['old_string'], inp['Edit']['new_string'])])}",
            "MultiEdit": f"{inp['MultiEdit']['file_path']} {_changed([(e['old_string'], e['new_string']) for e in inp['MultiEdit']['edits']])}"}
    assert want["Edit"].endswith("a.html (-1 +2)") and want["MultiEdit"].endswith("b.py (-2 +2)")
    brief = asz("export", SID, "--root", str(root), "--brief").stdout
    page = html.unescape(asz("export", SID, "--root", str(root), "--format", "html").stdout)
    audit = [json.loads(x) for x in asz("export", SID, "--root", str(root), "--audit").stdout.splitlines()]
    calls = {x["tool"]: x["text"] for x in audit if x.get("kind") == "tool_call"}
    for name, line in want.items():
        assert f"- Tool **{name}** `{line}`" in brief, (name, brief)
        assert f"<b>{name}</b> <code class=\"gist\"><bdi>{line}</bdi>" in page, name
        assert calls[name] == f"{name}: {line}", calls
    assert calls["Write"] == f"Write: {inp['Write']['file_path']}" and '"todos"' not in brief + str(calls)


def test_an_audit_copy_made_before_render_23_still_checks(root, tmp_path):
    """Render 22's audit form said the todo list's JSON cut at 120 characters and an edit's path alone: its copy
    (manifest render 22) checks, made again as render 22 drew it, and not as render 23."""
    from asz_core.reading.export_render import drawing

    with drawing(22):
        asz("export", SID, "--audit", "--out", str(tmp_path / "old.jsonl"), "--root", str(root))
    body = json.loads((tmp_path / "old.jsonl.manifest.json").read_bytes())
    old = (tmp_path / "old.jsonl").read_bytes()
    assert b'TodoWrite: {\\"todos\\"' in old and b"a.html (-1" not in old
    for render, rc in ((22, 0), (23, 1)):
        ok = asz("verify", "--export", as_copy(tmp_path, f"r{render}.jsonl", old, {**body, "render": render}),
                 "--root", str(root), check=False)
        assert ok.returncode == rc, (render, ok.stdout + ok.stderr)
