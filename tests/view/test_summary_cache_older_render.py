"""The figure cache is neither read nor written while a copy of an earlier render is drawn again (reread49: the cache was
turned off by name for two render flags, so a rule a later render added, such as render 50's objectless lines counted,
had none). One rule now: below this asz's ``RENDER`` nothing kept is read or written, whatever the render changed.

Real parts: a store in a root holding a ``_conversations`` folder (a real SQLite file), the real ``drawing`` context
every ``asz verify --export`` of an older copy draws in."""

from __future__ import annotations

from asz_core.reading.export_render import RENDER, drawing
from asz_core.view.summary_cache import SummaryStore


def test_an_older_render_reads_and_writes_nothing_kept(tmp_path):
    (tmp_path / "_conversations").mkdir()
    store = SummaryStore(tmp_path)
    store.put("summaries", "c1", [], "fp", b'{"n": 1}')
    assert store.get("summaries", "c1", [], "fp") == b'{"n": 1}'
    for render in (RENDER - 1, 50, 45):
        with drawing(render):
            assert store.get("summaries", "c1", [], "fp") is None
            assert store.ids("summaries", []) == frozenset()
            store.put("summaries", "c2", [], "fp", b'{"n": 2}')
    with drawing(RENDER):
        assert store.get("summaries", "c1", [], "fp") == b'{"n": 1}'
    assert store.get("summaries", "c2", [], "fp") is None  # nothing was written while the older render drew
