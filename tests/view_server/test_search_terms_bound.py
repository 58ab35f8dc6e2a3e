"""A query's terms are bounded (trial 27c F2): ``/api/search`` and ``asz search`` with many ``OR``s took time growing
faster than the query (1,000 ORs 6.6 s, 3,000 no answer). Past 64 terms the query is refused at once: 400 from a
real ``asz view`` over the collected corpus, exit 2 from ``asz search``; 64 terms are still searched."""

from __future__ import annotations

import sys
import time
import urllib.parse

import forked
from asz_core.reading.search_text import MAX_TERMS


def _ors(n: int) -> str:
    return " OR ".join(f"w{i}" for i in range(n - 1)) + " OR phx"


def test_past_the_bound_a_query_is_refused_at_once(corpus_root, serve):
    assert MAX_TERMS == 64
    s = serve(corpus_root)
    ok = s.get("/api/search?q=" + urllib.parse.quote(_ors(64)))
    assert ok.status == 200 and ok.json(), ok.status  # phx is found
    for n in (65, 1000, 3000):
        t = time.monotonic()
        r = s.get("/api/search?q=" + urllib.parse.quote(_ors(n)))
        assert r.status == 400 and f"{n} terms, over the 64 a query may hold" in r.json()["error"]
        assert time.monotonic() - t < 5  # refused before any search
    p = forked.run([sys.executable, "-m", "asz_core.cli.main", "search", _ors(65), "--root", str(corpus_root)],
                   capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "65 terms, over the 64 a query may hold" in p.stderr, p.stderr
    p = forked.run([sys.executable, "-m", "asz_core.cli.main", "search", "--root", str(corpus_root), "--", _ors(64) + " -server"],
                   capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "65 terms" in p.stderr  # a term left out counts too
