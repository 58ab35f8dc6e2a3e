"""``asz verify --figures`` holds the search index's conversation rows (title, project) to the evidence too (trial 6,
reading gap 3): a hit is checked against the record it cites, but its title and project came from the ``conv``
table as it stood, and a row changed with sqlite3 alone was served as it was.

Real input: two small transcripts collected by the real ``asz collect --once``; the truth is read from the transcripts'
lines: the summary A's transcript holds for B's message (B has no title of its own) and ``cwd``.
"""

from __future__ import annotations

import json
import sqlite3

from claude_lines import collect_claude
from cli_helpers import asz_in_process
from test_view_summary_titles import A, B, SESSIONS
from asz_core.reading.search import INDEX_PATH

TITLE = SESSIONS[A][1]["summary"]  # A's transcript's summary for B's message titles B (trial 41c F2)
PROJECT = SESSIONS[B][1]["cwd"]


def _hits(root):
    p = asz_in_process("search", "greetings", "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_a_forged_search_row_is_found_removed_and_indexed_again(tmp_path):
    root = collect_claude(tmp_path, SESSIONS)
    assert {(h["title"]) for h in _hits(root)} == {TITLE}
    p = asz_in_process("verify", "--figures", "--json", "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    report = json.loads(p.stdout)
    assert (report["search_rows"], report["search_rows_removed"]) == (2, 0)

    con = sqlite3.connect(root / INDEX_PATH)
    with con:
        con.execute("UPDATE conv SET title=?, project=? WHERE id=?", ("Payroll export for ACME", "/srv/acme", B))
    con.close()
    assert {h["title"] for h in _hits(root)} == {"Payroll export for ACME"}  # served as is (the head did not move)
    p = asz_in_process("search", "greetings", "--project", "/srv/acme", "--json", "--root", str(root))
    assert len(json.loads(p.stdout)) == 1
    assert asz_in_process("verify", "--root", str(root)).returncode == 0  # without --figures the index is not read

    p = asz_in_process("verify", "--figures", "--json", "--root", str(root))
    assert p.returncode == 1, p.stdout + p.stderr
    report = json.loads(p.stdout)
    (problem,) = [x for x in report["problems"] if x["problem"] == "figures differ"]
    assert problem["field"] == f"conv {B}" and "(title, project)" in problem["detail"]
    assert (report["search_rows"], report["search_rows_removed"]) == (2, 1)

    hits = _hits(root)
    assert {h["title"] for h in hits} == {TITLE} and {h["conversation"] for h in hits} == {B}
    p = asz_in_process("search", "greetings", "--project", PROJECT, "--json", "--root", str(root))
    assert len(json.loads(p.stdout)) == len(hits)  # indexed again once, not twice
    assert asz_in_process("verify", "--figures", "--root", str(root)).returncode == 0
