"""A continuation with no model call of its own reads 0 tokens and $0.00, said counted in the conversation it
continues, not ``not recorded`` (trial 46a F5: an identical copy of a session under a new id, every call of it counted
in the other, read ``not recorded`` / ``-`` in ``asz ls``, ``usage_recorded: false`` and null tokens in ``--json``: the
words of a runtime that records no token count).

Real input (../shared/corpus, skipped when absent): the corpus's de3b8b19 transcript and a copy of it whose session id
alone is changed, collected by the real ``asz collect --once``; ``asz ls`` (table, ``--json``) and a real ``asz view``'s ``/api/conversations``. The calls are counted from the transcript's lines (one per message id +
request id of an assistant line), never from asz.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from view_server_helpers import counted_rows

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cli_helpers import asz_in_process  # noqa: E402
from continued_copy import copied_pair  # noqa: E402

@pytest.fixture(scope="module")
def pair(corpus_dir, tmp_path_factory) -> dict:
    return copied_pair(corpus_dir, tmp_path_factory.mktemp("continued-zero"), asz_in_process)


def _split(rows: list[dict]) -> tuple[dict, dict]:
    (copy,) = [r for r in rows if r.get("continues")]
    (counting,) = [r for r in rows if r is not copy]
    return copy, counting


def test_ls_reads_0_and_says_where_they_are_counted(pair):
    root = pair["root"]
    p = asz_in_process("ls", "--json", "--root", str(root))
    copy, counting = _split(json.loads(p.stdout))
    assert p.returncode == 0 and copy["continues"] == counting["id"] and counting["llm_calls"] == pair["calls"] == 4
    assert copy["llm_calls"] == 0 and copy["usage_recorded"] is True
    assert copy["usage"] == {"in": 0, "out": 0, "cache_read": 0, "cache_write": 0}  # the keys kept, 0 not null
    assert copy["cost"]["usd"] == 0 and "priced" not in copy["cost"]
    assert (copy["cache_write_1h"], copy["calls_long_context"]) == (0, 0)
    table = asz_in_process("ls", "--root", str(root)).stdout.splitlines()
    (line,) = [x for x in table if x.startswith(copy["id"][:8] + " ") and x.endswith(" verified")]
    assert "not recorded" not in line and line.split()[-4:-2] == ["0", "$0.00"], line
    assert (f"{copy['id'][:8]} continues {counting['id'][:8]}: the records it repeats, their calls and tokens with them, "
            "are counted there") in table


def test_the_page_rows_read_as_ls_does(pair, serve):
    root = pair["root"]
    api = {r["id"]: r for r in counted_rows(serve(root))}
    ls = {r["id"]: r for r in json.loads(asz_in_process("ls", "--json", "--root", str(root)).stdout)}
    assert set(api) == set(ls)
    for cid, r in ls.items():
        keys = ("usage", "cost", "usage_recorded", "cache_write_1h", "calls_long_context", "llm_calls")
        assert {k: api[cid][k] for k in keys} == {k: r[k] for k in keys}, cid


def test_the_page_header_says_0_counted_in_the_one_it_continues(pair, serve):
    """``/api/c/ID/view``'s summary carries ``counted_in`` and ``counted_why`` for the copy (the page's tokens and cost
    chips say ``0, counted in ID (why)`` and ``$0.00, counted in ID`` from them, as ``asz conversation`` does: one rule,
    ``view.counted_in``); the conversation counting the calls carries none."""
    root = pair["root"]
    rows = json.loads(asz_in_process("ls", "--json", "--root", str(root)).stdout)
    copy, counting = _split(rows)
    s = serve(root)
    summary = s.get(f"/api/c/{copy['id']}/view").json()["summary"]
    assert summary["counted_in"] == counting["id"]
    assert summary["counted_why"] == ("every model call of this conversation is a record it repeats of that one, "
                                      "drawn and counted there")  # the words the header shows, chosen by the server
    assert not {"counted_in", "counted_why"} & set(s.get(f"/api/c/{counting['id']}/view").json()["summary"])
