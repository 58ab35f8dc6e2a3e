"""Keeping the list rows tells its count as it moves (trial 46c F4: ``/api/status`` said ``collecting: keeping the list
rows, 0 of 935 done`` unchanged for 30 s, then jumped: the first of two workers' runs held 233 conversations, and
``asz server`` was told nothing before the end).

Real input: the corpus as the real ``asz collect --once`` lands it. :data:`~asz_core.reading.listing.RUN_MOST` is set
to 2 here so a root of a few conversations shows the runs a root of hundreds has at 16; the count expected is the
conversations listed in the root's ``_conversations`` folder.
"""

from __future__ import annotations

import pytest

from asz_core.config import Config
from asz_core.storage.layout import CONVERSATIONS


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_count_moves_in_short_runs(corpus_copy, monkeypatch, jobs):
    from asz_core.cli.list_rows import keep_list_rows
    from asz_core.reading import listing

    root = corpus_copy()
    ids = sorted(d.name for d in (root / CONVERSATIONS).iterdir() if d.is_dir())
    assert len(ids) > 4  # the premise: several runs of 2
    monkeypatch.setattr(listing, "RUN_MOST", 2)
    told: list[tuple[int, int]] = []
    keep_list_rows(root, Config(), ids, jobs, told=lambda done, of: told.append((done, of)))
    assert [of for _, of in told] == [len(ids)] * len(told)
    done = [d for d, _ in told]
    assert done == sorted(done) and done[-1] == len(ids)
    assert len(told) >= len(ids) // 2 and all(b - a <= 2 for a, b in zip([0, *done], done))  # runs of 2 at most
