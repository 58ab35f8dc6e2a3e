"""Trial 50b F1 (HIGH), F4: a list page opened while ``asz server``'s first pass had listed no conversation drew the
empty box ("No conversations yet … or run ``asz server``", no search box) and never filled in: its polls brought the
rows, but the empty page had no table to put them in (``drawRows`` found no ``#rows``), so 413 conversations stayed
unshown until a reload. docs/view.md: "the list gives each as soon as it is kept, so the page fills in during the pass".

Now the page drawn during the first pass says what the pass does (the list's ``note``, never advice to run the server
that runs), shows the search box, and its polls draw the rows as the pass lists them, with no reload.

Real parts: the real headless Chromium (tests/conftest.py) on a real ``asz server`` over loopback collecting
:data:`~test_rows_fill_in_first_pass.COPIES` copies of a corpus transcript under fresh ids. The pass is held honestly
at two real locks: the root's ``_sessions.list`` (an exclusive ``flock``, as another asz process recording its sessions
holds it: the pass waits to record what it landed, so no conversation is listed while the page opens), then the list
rows' store (:func:`~test_rows_fill_in_first_pass._hold_the_store`: 3 s at a time once rows are kept), so the pass is
still running while rows are listed, whatever the machine's speed."""

from __future__ import annotations

import fcntl
import os
import threading
import time

import pytest
from test_rows_fill_in_first_pass import COPIES, PROMPT, _copies, _hold_the_store
from view_server_helpers import Served, browser_or_none

#: The list's note while the first pass has listed nothing (asz_core.view.background.list_note; test_first_pass_words).
NOTE = ("no conversation is listed yet: this server's first collect pass is reading the sources into the storage root; "
        "the sessions it lands are listed as it parses them")


def _page(drv) -> dict:
    """What the open page shows now: its rows, the box of an empty list, the search box, and the mark set at load."""
    return drv.execute_script("""const box = document.getElementById('empty');
      return {rows: document.querySelectorAll('#rows tr').length, box: box ? box.textContent : null,
              first: !!(box && box.hasAttribute('data-first-pass')), search: !!document.getElementById('q'),
              note: (document.getElementById('listnote') || {}).textContent || '', mark: window.__opened || 0,
              titles: Array.from(document.querySelectorAll('#rows a.convtitle')).map(a => a.textContent)};""")


def _opened_empty(drv, url: str) -> dict:
    """Load ``url`` and wait for the box of a list with no row; then mark the page (``window.__opened``: gone if it is
    loaded again) and return what it shows (:func:`_page`)."""
    drv.get("about:blank")
    drv.get(url)
    deadline = time.monotonic() + 30
    while (got := _page(drv))["box"] is None:
        assert time.monotonic() < deadline, got
        time.sleep(0.1)
    drv.execute_script("window.__opened = 1")
    return got


@pytest.mark.slow
def test_a_page_opened_before_the_first_row_fills_in_as_the_pass_lists_them(corpus_projects, tmp_path, request):
    drv = browser_or_none(request)
    if drv is None:
        pytest.skip("the page is what this tests: Debian's chromium and chromium-driver are not installed")
    _copies(corpus_projects, tmp_path / "src" / "-Users-alex-workspace-personal-site-next")
    root = tmp_path / "root"
    root.mkdir()
    held = os.open(root / "_sessions.list", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(held, fcntl.LOCK_EX)  # the pass lands, then waits here to record: nothing is listed
    stop = threading.Event()
    s = Served(["server", "--root", str(root), "--source", str(tmp_path / "src"), "--adapter", "claude-code-local",
                "--no-follow", "--interval", "10m"], tmp_path, timeout=60)
    holder = threading.Thread(target=_hold_the_store, args=(root / "_index" / "summaries.sqlite", stop), daemon=True)
    try:
        drv.set_window_size(1280, 1000)
        got = _opened_empty(drv, s.base + "/")
        status, listed = s.get("/api/status").json(), s.get("/api/conversations").json()
        assert status["first_pass"] is True and status["last_pass"] is None and listed["conversations"] == []
        assert listed["note"] == NOTE
        # F4: what the pass does, in the note's words; no advice to run the server that runs; the search is there
        assert got["first"] and got["search"] and got["rows"] == 0, got
        assert got["box"].startswith("Reading the sources. " + NOTE[0].upper() + NOTE[1:] + "."), got["box"]
        assert "asz collect" not in got["box"] and "No conversations yet" not in got["box"], got["box"]

        holder.start()
        fcntl.flock(held, fcntl.LOCK_UN)  # the pass goes on: the rows are listed as it parses them
        seen, deadline = [], time.monotonic() + 240
        while True:
            got = _page(drv)
            first = s.get("/api/status").json()["first_pass"]
            seen.append((round(time.monotonic() - s.started, 1), got["rows"], first, got["first"]))
            if got["rows"] and first:
                stop.set()  # seen drawn while the pass runs: the pass need not wait any more
            if got["rows"] == COPIES and "counting…" not in got["titles"] and not first and \
                    "first collect pass" not in got["note"]:  # the note follows the pass's end too
                break
            assert time.monotonic() < deadline, (seen[-5:], s.output()[-2000:])
            time.sleep(0.25)
    finally:
        stop.set()
        if holder.is_alive():
            holder.join(10)
        os.close(held)
        s.stop()
    changes = [x for i, x in enumerate(seen) if i == 0 or x[1:] != seen[i - 1][1:]]
    # rows drawn while the pass still ran, without a reload; the box gone with the first row
    assert any(rows > 0 and first for _, rows, first, _ in seen), changes
    assert not any(rows and boxed for _, rows, _, boxed in seen), changes
    end = _page(drv)
    assert end["mark"] == 1, "the page was loaded again"
    assert end["rows"] == COPIES and end["box"] is None and end["search"], end
    assert all(t.startswith(PROMPT[:40]) for t in end["titles"]), end["titles"]


def test_an_empty_roots_page_draws_the_list_once_rows_come(corpus_collected, corpus_projects, tmp_path, request):
    """``asz view`` on a root with no conversation: the box says how to fill it (no pass of its own); once a collect
    elsewhere fills the root, the next poll draws the search and every row, with no reload (the same fault as F1)."""
    import shutil

    from test_view_server_browser import quick_polls

    drv = browser_or_none(request)
    if drv is None:
        pytest.skip("the page is what this tests: Debian's chromium and chromium-driver are not installed")
    sessions = {p.stem for p in corpus_projects.glob("*/*.jsonl") if not p.name.startswith("agent-")}  # one conversation each
    root = tmp_path / "root"
    root.mkdir()
    s = Served(["view", "--root", str(root)], tmp_path)
    try:
        with quick_polls(drv):
            got = _opened_empty(drv, s.base + "/")
            assert got["box"].startswith("No conversations yet. This storage root holds no conversation: collect") and \
                not got["first"] and not got["search"], got
            shutil.copytree(corpus_collected, root, symlinks=True, dirs_exist_ok=True)  # as asz collect --once fills it
            deadline = time.monotonic() + 60
            while (got := _page(drv))["rows"] < len(sessions):
                assert time.monotonic() < deadline, got
                time.sleep(0.2)
    finally:
        s.stop()
    assert got["mark"] == 1 and got["box"] is None and got["search"] and got["rows"] == len(sessions) == 11, got
    assert sorted(drv.execute_script("return Array.from(document.querySelectorAll('#rows tr')).map(r => r.dataset.id)")) \
        == sorted(sessions)
