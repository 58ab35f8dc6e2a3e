"""``--limit`` means one thing in every command that takes it (trial 21: ``asz search --limit 0`` was a usage error,
``asz ls --limit 0`` listed every row): 0 all, N the first N, below 0 a usage error (docs/reading.md).

Real input: the corpus collected by the real ``asz collect --once``; the expected count of ``phx`` texts is counted
straight from the corpus JSONL (tests/corpus_words.py), as test_search_operators.py does.
"""

from __future__ import annotations

from corpus_words import message_words

from reading_helpers import asz, asz_json

KINDS = "prompt,reply,summary,text,thinking,tool_input,tool_result"


def test_search_limit_zero_is_every_hit(corpus_root, corpus_dir):
    phx = sum(1 for t in message_words(corpus_dir / "claude-code" / "projects", meta=False) if "phx" in t)
    assert phx == 14
    every = asz_json("search", "phx", "--json", "--limit", "0", "--kind", KINDS, "--root", str(corpus_root))
    assert len(every) == phx  # before: exit 2, "1 or more"
    assert len(asz_json("search", "phx", "--json", "-n", "3", "--kind", KINDS, "--root", str(corpus_root))) == 3
    table = asz("search", "phx", "--limit", "0", "--kind", KINDS, "--root", str(corpus_root)).stdout
    assert table.splitlines()[-1].startswith(f"{phx} hit(s) in ")


def test_a_limit_below_zero_is_refused_alike(corpus_root):
    for cmd, what in (("search", "hit"), ("ls", "row")):
        args = [cmd, "phx"] if cmd == "search" else [cmd]
        p = asz(*args, "--limit", "-1", "--root", str(corpus_root), check=False)
        assert p.returncode == 2 and f"asz {cmd}: --limit -1 is below 0 (0 lists every {what})" in p.stderr, p.stderr
