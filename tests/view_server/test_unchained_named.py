"""A landed session whose rounds were removed is named by id where it is left out (trial 7: ``asz ls`` counted it
without its id, ``/api/conversations`` had an empty note).

Real input: the corpus collected once by the real ``asz collect --once`` (tests/conftest.py), copied, then the
``rounds`` folder of one conversation removed as ``rm -rf <root>/_conversations/<id>/rounds`` would.
"""

from __future__ import annotations

import shutil

from view_server_helpers import Served, asz

SID = "55604662-cf2a-4331-851a-ec234028f8ca"


def test_removed_rounds_are_named_by_ls_and_the_page(corpus_copy, tmp_path):
    root = corpus_copy()
    shutil.rmtree(root / "_conversations" / SID / "rounds")
    line = (f"1 landed session(s) have no conversation chain and are not listed (1 parsed before: their rounds are "
            f"gone): {SID}; asz parse --root {root} builds them (asz verify names them)")
    assert line in asz("ls", "--root", str(root)).stdout.splitlines()
    s = Served(["view", "--root", str(root)], tmp_path)
    try:
        listing = s.get("/api/conversations").json()
        assert SID not in [r["id"] for r in listing["conversations"]]
        assert listing["note"] == line
    finally:
        s.stop()
