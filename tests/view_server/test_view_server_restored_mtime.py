"""A real ``asz view`` that checked a landed file once never keeps serving it as evidence after it is edited in place with
its size, inode and mtime kept (trial 3, F7 and F18): the list and the document say ``mismatch``, the record API answers
409 and ``/api/search`` holds the file's hits back (view.md: "a changed byte is never served as evidence").

Real input: the Claude Code corpus collected by the real ``asz collect --once`` (tests/conftest.py); one reply of
session 55604662's landed transcript changed to a text of the same length while the server runs, the mode 0444 and
the mtime put back (``os.utime``), so only the file's change time says it was written.
"""

from __future__ import annotations

import time
from urllib.parse import quote

import pytest

from view_server_helpers import edit_keeping_times

SID = "55604662-cf2a-4331-851a-ec234028f8ca"
#: What the agent replied in line 7 of the corpus's source transcript of SID (-home-user-spotter/55604662-….jsonl).
REPLY = b"try running the server"
ALTERED = b"try smashed the server"


def _state(s, timeout: float = 180.0) -> str:
    """SID's ``state`` in ``/api/conversations`` once the server's checker has found one (null until then)."""
    deadline = time.monotonic() + timeout
    while True:
        (row,) = [r for r in s.get("/api/conversations").json()["conversations"] if r["id"] == SID]
        if row.get("state") is not None:
            return row["state"]
        assert time.monotonic() < deadline, f"no state for {SID} after {timeout}s"
        time.sleep(0.2)


@pytest.mark.slow
def test_an_edit_that_puts_the_mtime_back_is_seen_by_the_list_the_document_the_records_and_search(corpus_copy, serve):
    root = corpus_copy()
    (path,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    rel = path.relative_to(root).as_posix()
    s = serve(root)
    search = "/api/search?q=" + quote('"try running the server"') + "&limit=100&held_back=1"
    # before: every cache of the server holds a good verdict about the file
    assert _state(s) == "verified"
    assert s.get(f"/api/c/{SID}/view").json()["summary"]["state"] == "verified"
    r = s.get(f"/api/c/{SID}/record/1/7")
    assert r.status == 200 and REPLY in r.body
    assert [h for h in s.get(search).json()["hits"] if h["file"] == rel]

    edit_keeping_times(path, REPLY, ALTERED)

    assert _state(s) == "mismatch"  # the list: the state found for the old files is not the new files' state
    r = s.get(f"/api/c/{SID}/record/1/7")
    assert r.status == 409 and b"smashed" not in r.body
    assert r.json()["error"].startswith("landed file seq 1 does not verify")
    doc = s.get(f"/api/c/{SID}/view").json()
    assert doc["summary"]["state"] == "mismatch"
    assert [f["file"] for f in doc["files"] if "problem" in f] == [rel]
    got = s.get(search).json()
    assert not [h for h in got["hits"] if h["file"] == rel]
    assert [f["file"] for f in got["held_back"]["files"]] == [rel]
