"""A conversation's title says only what its landed files that are there and verify say (trial 7, title gap 3).

One small Claude Code transcript (an ``ai-title`` line, a prompt and a reply, as Claude Code 2.x writes them) is
collected twice; then its only landed file is deleted in one root and one byte of it changed in the other. Neither
file is evidence any more: the round header's title (assembly read it from the file while it was whole) is not
shown for the deleted one while the damaged one's is refused, and neither is called ``(no prompt)``, which would say
the conversation had none. Both get the same title, :data:`~asz_core.view.summary.NOT_VERIFIED`, in the document,
``asz ls`` and ``asz conversation``.
"""

from __future__ import annotations

import json

import pytest

from asz_core.view import build_view
from asz_core.view.summary import NOT_VERIFIED

from claude_lines import collect_claude
from cli_helpers import asz_in_process
from test_view_summary_titles import _agent, _user

S = "dddddddd-0000-4000-8000-000000000004"


def _lines(titled: bool) -> list:
    title = [{"type": "ai-title", "sessionId": S, "aiTitle": "Import order tidy-up"}] if titled else []
    return title + [_user(S, "d-1", None, "Tidy the import order", "2026-01-03T10:00:00Z"),
                    _agent(S, "d-2", "d-1", "tidied", "2026-01-03T10:00:05Z")]


def _spoil(root, how: str) -> None:
    (path,) = (root / S).rglob("*.sd")
    if how == "deleted":
        path.unlink()
    else:
        data = bytearray(path.read_bytes())
        data[data.index(b"Tidy")] = ord("X")
        path.write_bytes(bytes(data))


@pytest.mark.parametrize("titled", [True, False], ids=["ai-title", "prompt only"])
def test_a_deleted_and_a_damaged_only_file_give_the_same_title(tmp_path, titled):
    seen = {}
    for how, state in (("deleted", "incomplete"), ("damaged", "mismatch")):
        root = collect_claude(tmp_path / how, {S: _lines(titled)})
        assert build_view(root, S)["summary"]["title"] == ("Import order tidy-up" if titled else "Tidy the import order")
        _spoil(root, how)
        s = build_view(root, S)["summary"]
        assert s["state"] == state
        p = asz_in_process("ls", "--json", "--root", str(root))
        assert p.returncode == 0, p.stderr
        (row,) = json.loads(p.stdout)
        p = asz_in_process("conversation", S, "--root", str(root))
        first = p.stdout.splitlines()[0]
        seen[how] = (s["title"], row["title"], first)
    want = (NOT_VERIFIED, NOT_VERIFIED, f"conversation {S}: {NOT_VERIFIED}")
    assert seen == {"deleted": want, "damaged": want}
