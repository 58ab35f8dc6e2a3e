"""``asz server --root R`` reads what an adapter keeps inside the storage root from R, as ``asz collect --root R`` does.

langsmith-ingest's default source is the storage root itself (its inbox, ``R/_ingest/langsmith/inbox``). Before
session 14 ``asz server`` resolved that default from ``storage.root`` of the configuration (``./data`` with no
``asz.yaml``) whatever ``--root`` said, so the server collected nothing from R's inbox and reported a missing
source root. Expected sessions are read from the corpus's recorded upload bodies (one per project + thread key, else
per trace: :func:`cli_helpers.expected_langsmith`).
"""

from __future__ import annotations

import json

import pytest

from cli_helpers import expected_langsmith, stage_upload_bodies
from view_server_helpers import Served, counted_rows, first_pass


def test_server_reads_the_inbox_of_its_root(tmp_path, corpus_dir):
    root, work = tmp_path / "root", tmp_path / "work"
    if not stage_upload_bodies(corpus_dir, root):
        pytest.skip(f"no LangSmith upload bodies under {corpus_dir / 'langchain'}")
    inbox = (root / "_ingest" / "langsmith" / "inbox" / "001.jsonl").read_text().splitlines()
    want = expected_langsmith([json.loads(line)["run"] for line in inbox if json.loads(line)["op"] == "post"])
    work.mkdir()  # no asz.yaml here: storage.root is ./data
    served = Served(["server", "--root", str(root), "--adapter", "langsmith-ingest", "--interval", "1h"], work)
    try:
        last = first_pass(served)
        assert last["errors"] == 0 and last["sessions"] == len(want), (last, served.output())
        assert f"source   : langsmith-ingest from {root}" in served.output()
        assert sorted(r["id"] for r in counted_rows(served)) == sorted(want)
    finally:
        served.stop()
    assert "no such source root" not in served.output()
    assert not (work / "data").exists()  # nothing read or made at the configuration's root
