"""``asz usage --json --total-once``: the total once, beside the rows (trial 21: ``asz usage session --json`` repeated
the whole root's ``total`` in each of its 408 rows; ccusage gives its totals once). The list form keeps its
documented keys (docs/view.md, asz usage); the object holds the same rows without ``total``, and the total once,
equal to the transcripts' own counts (tests/source_calls.py)."""

from __future__ import annotations

import json

from cli_helpers import asz_in_process
from source_calls import source_calls


def _json(root, *args):
    p = asz_in_process("usage", *args, "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    return json.loads(p.stdout)


def test_the_total_once_beside_the_same_rows(corpus):
    projects, root = corpus
    calls, _ = source_calls(projects)
    for view in ("session", "daily", "model"):
        listed = _json(root, view, "--json")
        once = _json(root, view, "--json", "--total-once")
        assert set(once) == {"rows", "total"}, view  # nothing unreadable, unchained or undescribed in the corpus
        assert once["rows"] == [{k: v for k, v in r.items() if k != "total"} for r in listed], view
        assert all(r["total"] == once["total"] for r in listed)
        total = once["total"]
        assert total["calls"] == len(calls) == 543
        assert sum(total["usage"][k] for k in ("in", "out", "cache_read", "cache_write")) == sum(c["tokens"] for c in calls)
    alone = asz_in_process("usage", "--total-once", "--root", str(root))
    assert alone.returncode == 2 and "--total-once shapes --json" in alone.stderr
