"""The page's conversation header says what each kind of token cost and its share of the exact cost, in the words
``asz conversation`` prints (trial 27a F3 put the line in ``asz conversation`` and ``asz usage --breakdown`` only).

Real input: the corpus collected by the real ``asz collect --once``; a real ``asz view`` on loopback and Chromium.
55604662's shares are worked from its transcript at the published rates in tests/view/test_cost_by_kind_exports.py;
here the page is held to the command's line, and to the share the transcript gives its cache reads (4.0 %).
"""

from __future__ import annotations

import pytest

from cli_helpers import asz_in_process as asz
from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

#: a real server and browser over the corpus root
pytestmark = pytest.mark.slow


def test_the_header_says_the_cost_of_each_kind(corpus_root, serve, browser):
    sid = next(p.name for p in (corpus_root / "_conversations").iterdir() if p.name.startswith("55604662"))
    out = asz("conversation", sid, "--root", str(corpus_root)).stdout.splitlines()
    (said,) = [x[len("cost by kind: "):] for x in out if x.startswith("cost by kind: ")]
    assert "cache read $0.01 (4%)" in said, said  # its exact amount ($0.0058) rounded once to the cent (trial 32a F8)
    s = serve(corpus_root)
    chip = open_at(browser, s.base + f"/c/{sid}", "#cost-by-kind")
    assert chip.text == f"cost by kind {said}"
