"""The page's list says of a conversation no round of which folds what ``asz ls`` says (18587f1): ``problem``, state
``unreadable``, no figure, and the title and project its landed files give (trial 4, F6).

Real input: the corpus collected once by the real ``asz collect --once``, then one byte of a conversation's only
round changed, as a person with write access would.
"""

from __future__ import annotations

import json
import time

from cli_helpers import asz_in_process, cut_first_landed, damage_round

SID = "55604662-cf2a-4331-851a-ec234028f8ca"


def _row(s, timeout: float = 180.0) -> dict:
    """SID's ``/api/conversations`` row once it is counted (no ``counting`` key)."""
    deadline = time.monotonic() + timeout
    while True:
        (row,) = [r for r in s.get("/api/conversations").json()["conversations"] if r["id"] == SID]
        if not row.get("counting"):
            return row
        assert time.monotonic() < deadline, f"{SID} still counting after {timeout}s"
        time.sleep(0.2)


def test_the_page_lists_a_conversation_whose_first_round_is_damaged_as_asz_ls_does(corpus_copy, serve):
    root = corpus_copy()
    damage_round(root, SID)
    cut_first_landed(root, SID)  # nor read from its landed records in memory (trial 29a F8)
    p = asz_in_process("ls", "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    ls = {r["id"]: r for r in json.loads(p.stdout)}[SID]
    assert ls["state"] == "unreadable" and "round 1 does not verify" in ls["problem"] and ls["title"]

    row = _row(serve(root))
    assert (row["state"], row["problem"], row["title"], row["project"]) == (ls["state"], ls["problem"], ls["title"], ls["project"])
    assert row["talks"] is None and row["usage"] is None
