"""Two leftovers of retention's bookkeeping (session 24's closing note), each held to the real files.

- ``prune.not_accepted``: a session whose files a receiver accepted, one of them said held elsewhere only in part
  (``elsewhere <path> part <path>`` in ``push.state``), still needs its rounds accepted: only an ``all`` answer
  means the receiver holds the session's records under another root's chain.
- ``purge.forget_summaries``: when a reader holds an older snapshot of ``_index/summaries.sqlite`` while it is
  compacted, the deleted text stays in the file's old pages; it says so (``removal.state`` stays, the next prune
  compacts again) instead of returning as if the text were gone.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from asz_core.export.state import PushState
from asz_core.reading.purge import forget_summaries
from asz_core.retention.prune import not_accepted
from asz_core.view.summary_cache import DB_NAME, SummaryStore


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _session(root: Path) -> tuple[str, str]:
    """One landed file and one round file, real bytes on disk; their root-relative paths."""
    f = root / "sess-1" / "streams" / "main" / "transcript-20261204T000000Z-000001.sd"
    f.parent.mkdir(parents=True)
    f.write_bytes(b'{"h":1}\n')
    r = root / "_conversations" / "sess-1" / "rounds" / "round-000001.sf"
    r.parent.mkdir(parents=True)
    r.write_bytes(b'{"t":"header"}\n')
    return f.relative_to(root).as_posix(), r.relative_to(root).as_posix()


@pytest.mark.parametrize("held, asked", [("part", True), ("all", False)])
def test_a_part_answer_elsewhere_still_asks_for_the_rounds(tmp_path: Path, held: str, asked: bool) -> None:
    rel, rnd = _session(tmp_path)
    state = PushState(tmp_path / "push.state")
    state.pushed[rel] = _sha(tmp_path / rel)  # the landed file: accepted
    # an earlier file of the session (removed since) the receiver holds from another root: in part, or whole
    state.elsewhere["sess-1/streams/main/transcript-20261203T000000Z-000000.sd"] = (held, "other/sess-1/x.sd")
    got = not_accepted(tmp_path, state, [rel], [rnd])
    assert got == ([rnd] if asked else []), got


def test_forget_summaries_says_when_a_reader_kept_the_text(tmp_path: Path) -> None:
    (tmp_path / "_conversations" / "conv-1" / "rounds").mkdir(parents=True)  # a root holding a conversation
    store = SummaryStore(tmp_path)
    store.put("rows", "conv-1", [], "fp", b'{"title":"quarterly wombat figures"}')
    store.close()
    path = tmp_path / "_index" / DB_NAME
    reader = sqlite3.connect(path)
    try:
        reader.execute("BEGIN")
        assert reader.execute("SELECT count(*) FROM rows").fetchone()[0] == 1  # a snapshot held open
        with pytest.raises(sqlite3.OperationalError, match="kept its old pages"):
            forget_summaries(tmp_path, ["conv-1"])
    finally:
        reader.close()
    forget_summaries(tmp_path, ["conv-1"])  # the next run: nothing holds it, the file is rewritten
    con = sqlite3.connect(path)
    try:
        assert con.execute("SELECT count(*) FROM rows").fetchone()[0] == 0
    finally:
        con.close()
    assert b"wombat" not in b"".join(p.read_bytes() for p in path.parent.glob(DB_NAME + "*"))
