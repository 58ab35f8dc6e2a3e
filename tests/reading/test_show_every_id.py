"""``asz show`` takes every id the asz.view document prints (new-user trial: ``rel/in_segment/…`` and
``unres/spawn_of_child/…`` ids from ``asz conversation --json`` were refused as not found). Every id under an ``id``
key of each corpus conversation's document, sampled evenly per kind (every unresolved entry and relation type), is
shown with exit 0; an id that names nothing still exits 1 with the not-found line."""

from __future__ import annotations

import json

import pytest

from cli_helpers import asz_in_process

#: Ids shown per kind (the part before the first ``/``): every unresolved entry, more relations (several types).
PER_KIND = {"unres": 1000, "rel": 24}


def _ids(doc) -> set[str]:
    """Every non-empty string under an ``id`` key anywhere in ``doc``."""
    out: set[str] = set()
    stack = [doc]
    while stack:
        x = stack.pop()
        items = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(x, list) else ()
        for k, v in items:
            if k == "id" and isinstance(v, str) and v:
                out.add(v)
            stack.append(v)
    return out


@pytest.fixture(scope="module")
def printed(corpus_root):
    """``{kind: [(session, id), …]}`` of every id the corpus's documents print."""
    rows = json.loads(asz_in_process("ls", "--json", "--root", str(corpus_root)).stdout)
    by_kind: dict[str, list] = {}
    for row in rows:
        p = asz_in_process("conversation", row["id"], "--json", "--root", str(corpus_root))
        assert p.returncode == 0, p.stderr
        doc = json.loads(p.stdout)
        for ident in sorted(_ids(doc)):
            kind = ident.split("/", 1)[0] if "/" in ident else "(record id)"
            by_kind.setdefault(kind, []).append((doc["sessions"][0], ident))
    return by_kind


def test_the_corpus_prints_relations_and_unresolved_entries(printed):
    assert {"rel", "unres", "talk", "call", "tool", "run", "stream", "segment"} <= set(printed)
    assert {i.split("/")[1] for _, i in printed["rel"]} >= {"in_segment", "starts", "result_of"}


def test_every_kind_of_printed_id_is_shown(printed, corpus_root):
    refused = []
    for kind, ids in sorted(printed.items()):
        n = PER_KIND.get(kind, 6)
        step = max(1, len(ids) // n)
        for session, ident in ids[::step][:n]:
            p = asz_in_process("show", session, ident, "--root", str(corpus_root))
            if p.returncode != 0 or not p.stdout.strip():
                refused.append((kind, ident, p.returncode, p.stderr.strip()))
    assert not refused, refused


@pytest.mark.parametrize("ident", ["rel/in_segment/talk_main_nope/segment_at_9_9", "unres/spawn_of_child/nope",
                                   "unres/parent/nope", "talk/main/nope", "nope"])
def test_an_id_that_names_nothing_is_still_not_found(printed, corpus_root, ident):
    session = printed["unres"][0][0]
    p = asz_in_process("show", session, ident, "--root", str(corpus_root))
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr == (f"asz show: no landed record of session {session} has id, tool-use id, call id or node id "
                        f"{ident!r}\n")
