"""The page's conversation list masks a credential in a cwd or git branch as ``asz ls`` does (review37 of trial 37a
F2; docs/reading.md, "Nor a project or a branch").

fix37c masked them in ``asz ls``, ``asz usage`` and ``asz conversation``, while ``/api/conversations`` (the page's
list, its project column and its project dropdown) still served the token whole. Real input: the corpus's spotter
transcript with each line's ``cwd`` and ``gitBranch`` holding trial 37a's fake ``ghp_`` token, collected by the real
``asz collect --once``; a real ``asz view`` read over HTTP. The dropdown picks the shown (masked) project and sends it
with ``exact=1``: that still names the conversation, in the list and in ``/api/usage``, whose calls are counted
straight from the transcript here."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from urllib.parse import quote

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reading"))
from test_places_masked import CID, PIECES, SHOWN_BRANCH, SHOWN_CWD, SPOTTER, placed  # noqa: E402, F401  (its fixture)


def _calls_in_source(corpus_dir: Path) -> int:
    """The transcript's model calls counted from its lines: distinct message ids of assistant lines with usage."""
    ids = set()
    for ln in (corpus_dir / SPOTTER).read_text().splitlines():
        m = json.loads(ln).get("message")
        if isinstance(m, dict) and m.get("role") == "assistant" and m.get("usage"):
            ids.add(m.get("id"))
    return len(ids)


def _usage(s, query: str) -> dict:
    """``/api/usage?query`` once every conversation is summed (``complete``)."""
    deadline = time.monotonic() + 120
    while True:
        got = orjson.loads(s.get("/api/usage" + query).body)
        if got["complete"] or time.monotonic() > deadline:
            return got
        time.sleep(0.2)


def test_the_list_masks_the_cwd_and_branch_and_its_dropdown_still_picks_it(placed, serve, corpus_dir):
    s = serve(placed)
    got = s.get("/api/conversations")
    text = got.body.decode()
    assert got.status == 200 and [x for x in PIECES if x in text] == [], text
    (row,) = orjson.loads(got.body)["conversations"]
    assert (row["project"], row["git_branch"]) == (SHOWN_CWD, SHOWN_BRANCH)
    # the dropdown's value is the shown project; exact=1 still names the conversation, in the list and the usage
    picked = orjson.loads(s.get(f"/api/conversations?exact=1&project={quote(SHOWN_CWD)}").body)
    assert [r["id"] for r in picked["conversations"]] == [CID]
    whole = _usage(s, "")
    shown = _usage(s, f"?exact=1&project={quote(SHOWN_CWD)}")
    assert shown["total"] == whole["total"] and shown["total"]["calls"] == _calls_in_source(corpus_dir) > 0
