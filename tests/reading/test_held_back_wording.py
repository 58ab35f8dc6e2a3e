"""A conversation that does not verify says its figures are held back in one wording: ``asz ls`` wrote ``held back``
under TOKENS and ``held`` under COST (new-user trial); the export index and the page say ``held back`` in both.

Real input: the corpus collected by the real ``asz collect --once``; one reply of session 55604662's landed
transcript changed in place to a text of the same length (the source's line 7 says ``try running the server``)."""

from __future__ import annotations

import json
import re

from reading_helpers import asz
from view_server_helpers import edit_keeping_times

from asz_core.cli.conversations_cmd import COLUMNS

SID = "55604662-cf2a-4331-851a-ec234028f8ca"


def test_tokens_and_cost_of_a_held_back_row_say_the_same(corpus_copy, tmp_path):
    root = corpus_copy()
    (path,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    edit_keeping_times(path, b"try running the server", b"try smashed the server")
    table = asz("ls", "--root", str(root)).stdout.splitlines()
    header, row = table[0], next(line for line in table if line.startswith(SID[:8]))
    assert [h for h, _, _ in COLUMNS][-4:] == re.split(r"\s{2,}", header)[-4:] == ["TOKENS", "COST", "RUNTIME", "STATE"]
    # RUNTIME names what landed: the file's header line is the one indexed when it landed (session 24)
    assert re.split(r"\s{2,}", row)[-4:] == ["held back", "held back", "claude-code", "mismatch"], (header, row)
    out = tmp_path / "out"
    asz("export", "--since", "2000-01-01", "--format", "md", "--out", str(out), "--root", str(root), check=False)
    line = next(x for x in (out / "index.md").read_text().splitlines() if SID[:8] in x or SID in x)
    assert line.count("held back") == 2, line
    (js,) = [r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout) if r["id"] == SID]
    assert (js["usage"], js["cost"], js["held_back"]) == (None, None, {"state": "mismatch", "keys": ["usage", "cost"]})
