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
    ("usage", "monthly", "--project", NOPE), ("usage", "--breakdown", "--model", NOPE),
    ("search", "compaction", "--model", NOPE), ("search", "--json", "compaction", "--project", NOPE),
    ("search", "--conversations", "compaction", "--project", NOPE), ("search", "--conversations", "--json", "graph", "--dialect", "kiro"),
    ("export", "--project", NOPE), ("conversation", "ffffffff"),
])
def test_a_filter_that_matches_nothing_exits_1_and_is_said(corpus_root, args):
    res = asz(*args, "--root", str(corpus_root), check=False)
    assert res.returncode == 1, (args, res.stdout, res.stderr)
    assert res.stderr.splitlines()[-1].startswith(f"asz {args[0]}: "), res.stderr
    if "--json" in args:  # a program reading stdout reads JSON: the empty answer
        assert json.loads(res.stdout) == []
    else:  # nothing on stdout, as grep prints nothing (trial 24b F3: a table of zeros, "0 hit(s)")
        assert res.stdout == "", (args, res.stdout)


def test_the_object_forms_answer_with_no_row(corpus_root):
    """``asz usage --json --total-once`` and ``asz search --json --held-back`` keep their shape, with no row or hit."""
    res = asz("usage", "--json", "--total-once", "--project", NOPE, "--root", str(corpus_root), check=False)
    got = json.loads(res.stdout)
    assert res.returncode == 1 and got["rows"] == [] and got["total"]["calls"] == 0
    res = asz("search", "--json", "--held-back", "graph", "--project", NOPE, "--root", str(corpus_root), check=False)
    got = json.loads(res.stdout)
    assert res.returncode == 1 and got["hits"] == [] and got["held_back"]["hits"] == 0
    assert "no conversation matched --project" in res.stderr


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
