"""``asz ls`` and ``asz usage`` say on stdout (and in ``--json``) when a conversation cannot be read (trial 6, finding 2:
its row was all dashes with no footer, and usage printed an unmarked total while only stderr said it was short).

Real input: two sessions of the corpus (de3b8b19 and 55604662) copied into a projects folder in tmp_path, collected and
parsed by the real ``asz collect --once``; then the round files of 55604662's conversation removed. The truth for the
figures left is de3b8b19's usage summed straight from its source transcript (one usage per message id, its last line).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import cut_first_landed
from reading_helpers import asz, collected_root, source_lines

PROJECT = "-home-user-claude-reliability"
KEPT = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
GONE = "55604662-cf2a-4331-851a-ec234028f8ca"
PROJECTS = {KEPT: PROJECT, GONE: "-home-user-spotter"}


@pytest.fixture(scope="module")
def root(corpus_source, tmp_path_factory) -> Path:
    r = collected_root(corpus_source, tmp_path_factory.mktemp("unreadable"), PROJECTS)
    rounds = sorted((r / "_conversations" / GONE / "rounds").glob("*.sf"))
    assert rounds
    for p in rounds:
        p.unlink()
    cut_first_landed(r, GONE)  # nor read from its landed records in memory (trial 29a F8)
    return r


def _kept_total(corpus_source: Path) -> int:
    last: dict[str, dict] = {}
    for d in source_lines(corpus_source / PROJECT / f"{KEPT}.jsonl"):
        m = d.get("message") if isinstance(d.get("message"), dict) else {}
        if isinstance(m.get("usage"), dict) and m.get("id"):
            last[m["id"]] = m["usage"]
    return sum(u.get(k, 0) for u in last.values() for k in
               ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))


def test_ls_says_on_stdout_which_conversation_cannot_be_read(root):
    p = asz("ls", "--root", str(root))
    assert p.returncode == 0
    lines = p.stdout.splitlines()
    [row] = [ln for ln in lines if ln.startswith(GONE[:8])]
    assert row.rstrip().endswith("unreadable")
    assert f"\nconversation {GONE[:8]} does not read: no usable round in conversation '{GONE}': round 1 is missing" in p.stdout
    rows = {r["id"]: r for r in json.loads(asz("ls", "--root", str(root), "--json").stdout)}
    assert rows[GONE]["state"] == "unreadable" and rows[GONE]["problem"].startswith("no usable round")


def test_usage_marks_the_total_and_names_the_conversation_on_stdout(root, corpus_source):
    truth = _kept_total(corpus_source)
    p = asz("usage", "--root", str(root), "--tz", "UTC", check=False)
    assert p.returncode == 1 and f"conversation {GONE}: no usable round" in p.stderr
    [total] = [ln for ln in p.stdout.splitlines() if ln.startswith("total")]
    assert total.startswith("total !") and f"{truth:,}" in total.split()
    assert p.stdout.splitlines()[-1] == ("! not read, in no figure above (no usable round; stderr says why, asz verify "
                                         f"names the problems): {GONE[:8]}")
    j = asz("usage", "--root", str(root), "--tz", "UTC", "--json", check=False)
    assert j.returncode == 1
    rows = json.loads(j.stdout)
    assert rows and all(r["unreadable"] == [GONE] for r in rows)
    assert sum(sum(r["usage"].values()) for r in rows) == truth
    since = json.loads(asz("usage", "--root", str(root), "--tz", "UTC", "--json", "--since", "2000-01-01", check=False).stdout)
    assert since and all(r["unreadable"] == [GONE] for r in since)  # a narrowed report is short by it too
