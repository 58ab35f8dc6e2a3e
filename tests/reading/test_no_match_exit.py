"""The readers agree on filters that match no conversation (trial gap: ``asz ls --model nope`` exited 0 while ``asz
export --project nonexist`` exited 1): each says it on stderr and exits 1; the same filter that matches exits 0, and so
does a search query with no hit in the conversations the filters keep. An unknown id is exit 1 as before; an empty root
lists nothing and exits 0."""

from __future__ import annotations

import json

import pytest
from reading_helpers import asz

NOPE = "no-such-thing-zq"


@pytest.mark.parametrize("args", [
    ("ls", "--model", NOPE), ("ls", "--json", "--project", NOPE), ("ls", "--since", "2099-01-01"),
    ("usage", "--model", NOPE), ("usage", "--json", "--project", NOPE),
    ("search", "compaction", "--model", NOPE), ("search", "--json", "compaction", "--project", NOPE),
    ("export", "--project", NOPE), ("conversation", "ffffffff"),
])
def test_a_filter_that_matches_nothing_exits_1_and_is_said(corpus_root, args):
    res = asz(*args, "--root", str(corpus_root), check=False)
    assert res.returncode == 1, (args, res.stdout, res.stderr)
    assert res.stderr.splitlines()[-1].startswith(f"asz {args[0]}: "), res.stderr
    if "--json" in args:
        assert json.loads(res.stdout) == []


@pytest.mark.parametrize("args", [
    ("search", "zqxjvwk"), ("search", "zqxjvwk", "--project", "spotter"),  # no hit in what the filters keep: an answer
    ("ls", "--project", "spotter"), ("usage", "--project", "spotter"), ("search", "compaction", "--project", "spotter"),
    ("export", "--project", "spotter"),
])
def test_the_same_filter_that_matches_exits_0(corpus_root, args):
    res = asz(*args, "--root", str(corpus_root), check=False)
    assert res.returncode == 0, (args, res.stderr)
    assert "no conversation matched" not in res.stderr and "matches --project" not in res.stderr


def test_an_empty_root_lists_nothing_and_exits_0(tmp_path):
    (tmp_path / "root").mkdir()
    res = asz("ls", "--model", NOPE, "--root", str(tmp_path / "root"), check=False)
    assert res.returncode == 0 and "collect and parse sessions into it" in res.stdout
