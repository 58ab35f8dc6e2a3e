"""The titles' scan lists again only the sessions whose directories changed (close42: ``named_titles`` listed every
session's files and stat'ed each in every process, about 5 % of a warm ``asz ls`` at 1 GB).

A real root (``asz collect --once``): A, and B whose first line is a ``summary`` naming A's message a-2. The stamps of
sessions whose directories changed in the last 2 s (the first look: 10 minutes, so the collect's landing counts
as recent at any speed) are not kept; aged (``os.utime``), they are, in the store's
``dirs`` table, and a new process then takes every file from the store without listing a session. A later pass
landing a second summary in B's stream (a new file in an existing directory) is seen by this process and by a new
one, and the last summary titles A, as the labels written say.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

import pytest

from asz_core.view import named_listing, named_titles

from claude_lines import collect_claude
from cli_helpers import asz_in_process
from test_view_summary_titles import _agent, _summary, _user

A, B = "aaaaaaaa-0000-4000-8000-00000000000a", "bbbbbbbb-0000-4000-8000-00000000000b"


def _age(root: Path) -> None:
    """Every directory of the root's sessions modified 60 s ago (as if nothing had landed since)."""
    old = time.time() - 60
    for d, _, _ in os.walk(root):
        if not Path(d).relative_to(root).parts[:1] or not Path(d).relative_to(root).parts[0].startswith("_"):
            os.utime(d, (old, old))


def _as_a_new_process() -> None:
    named_titles._KEPT.clear()
    named_titles._ROWS.clear()
    named_titles._STAMPS.clear()


def test_only_changed_sessions_are_listed_again_and_a_later_summary_is_seen(tmp_path, monkeypatch):
    b_lines = [_summary("Zephyr one", "a-2"), _user(B, "b-1", None, "Other", "2026-01-02T10:00:00Z"),
               _agent(B, "b-2", "b-1", "x", "2026-01-02T10:00:05Z")]
    root = collect_claude(tmp_path, {
        A: [_user(A, "a-1", None, "Plan it", "2026-01-01T10:00:00Z"), _agent(A, "a-2", "a-1", "ok", "2026-01-01T10:00:05Z")],
        B: b_lines})
    _as_a_new_process()
    # "just landed" at any speed: the collect and this look took over the 2 s window in a loaded run (s48a, both
    # stamps kept), so this look's window is 10 minutes, which no run outlasts between the two
    monkeypatch.setattr(named_listing, "SETTLED_NS", 600_000_000_000)
    assert named_titles.named_in(root).title(A, {"a-1", "a-2"}) == "Zephyr one"
    assert not set(named_titles._STAMPS[str(root)]) & {A, B}  # just landed: not settled, not kept
    monkeypatch.undo()
    _age(root)
    _as_a_new_process()
    named_titles.named_in(root)
    with sqlite3.connect(root / named_titles.DB) as con:
        assert {s for (s,) in con.execute("SELECT session FROM dirs")} == {A, B}
    _as_a_new_process()
    monkeypatch.setattr(named_listing, "_files", lambda base, name: pytest.fail(f"{name} listed again"))
    assert named_titles.named_in(root).title(A, {"a-1", "a-2"}) == "Zephyr one"  # from the store, nothing listed
    monkeypatch.undo()
    # a later pass lands a second summary in B's main stream: a new file in a directory the stamp holds
    src = tmp_path / "projects" / "-home-dev-app" / f"{B}.jsonl"
    with src.open("a") as f:
        f.write(json.dumps(_summary("Zephyr two", "a-2")) + "\n")
    p = asz_in_process("collect", "--once", "--adapter", "claude-code-local", "--source", str(tmp_path / "projects"),
                       "--root", str(root))
    assert p.returncode == 0 and " errors=0 " in p.stdout, p.stdout + p.stderr
    assert len(list((root / B / "streams" / "main").glob("transcript-*.sd"))) == 2
    named_titles._KEPT.clear()  # this process, its stamps kept, after KEPT_S
    assert named_titles.named_in(root).title(A, {"a-1", "a-2"}) == "Zephyr two"
    _as_a_new_process()
    assert named_titles.named_in(root).title(A, {"a-1", "a-2"}) == "Zephyr two"
