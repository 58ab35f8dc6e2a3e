"""``asz server`` is live by default, and ``asz view`` follows what another collector writes (trial 21).

A real ``asz server`` with the interval left at 10 minutes follows its source folder: a talk appended to a
transcript and a new session's file each reach the API, and an open page in headless Chromium (the list and the
conversation), with no restart and long before the interval (asz_core/cli/server_follow.py). That ``asz view``
lists what another collector writes (origin-digest §8.3) is test_view_server_api's
test_a_new_round_is_noticed_without_a_restart.
Waits are generous (60 s), never timed assertions: the machine is shared.
"""

from __future__ import annotations

import shutil
import time

import pytest

from view_server_helpers import CANARY_SESSION, EXAMPLE, EXAMPLE_SESSION, Served, canary_lines, second_talk_lines, write_session

V = f"/api/c/{CANARY_SESSION}"
#: Seconds a test waits for something that comes within a few seconds on a quiet machine.
GENEROUS = 60.0


def _until(check, what: str, served: Served | None = None):
    deadline = time.monotonic() + GENEROUS
    while True:
        got = check()
        if got:
            return got
        assert time.monotonic() < deadline, f"{what} not seen within {GENEROUS:g} s" + (f"\n{served.output()}" if served else "")
        time.sleep(0.2)


def _add_example(src) -> None:
    """The bundled example session (a transcript and its subagent) appears in the projects folder ``src``."""
    shutil.copytree(EXAMPLE / "-home-dev-hello-app", src / "-home-dev-hello-app")


def _ids(s: Served) -> set[str]:
    return {r["id"] for r in s.get("/api/conversations").json()["conversations"]}


def test_server_follows_its_sources_before_the_interval(tmp_path):
    src = tmp_path / "projects"
    write_session(src, canary_lines())
    root = tmp_path / "root"
    s = Served(["server", "--root", str(root), "--source", str(src), "--interval", "10m"], tmp_path, timeout=60)
    try:
        assert "follows  : 1 folder(s)" in s.output()
        assert s.get("/api/status").json()["follows"] == 1
        _until(lambda: CANARY_SESSION in _ids(s), "the first pass's conversation", s)
        assert s.get(f"{V}/view").json()["summary"]["talks"] == 1
        write_session(src, second_talk_lines(), append=True)  # a talk appended: followed, not left for 10 minutes
        doc = _until(lambda: (d := s.get(f"{V}/view").json())["summary"]["talks"] == 2 and d, "the appended talk", s)
        assert doc["head"]["round"] == 2 and doc["talks"][-1]["label"] == "Second question: is the log still long?"
        _add_example(src)  # a new session's files appear
        _until(lambda: EXAMPLE_SESSION in _ids(s), "the new session's conversation", s)
        st = s.get("/api/status").json()
        assert st["interval"] == 600 and st["next_refresh"] - st["last_refresh"] == 600_000  # the interval is kept
        _until(lambda: s.output().count("refreshed:") >= 3, "a pass line for each change")  # printed after its rows
    finally:
        s.stop()


def test_no_follow_keeps_the_interval_alone(tmp_path):
    src = tmp_path / "projects"
    write_session(src, canary_lines())
    s = Served(["server", "--root", str(tmp_path / "root"), "--source", str(src), "--no-follow"], tmp_path, timeout=60)
    try:
        assert "follows  :" not in s.output()
        assert s.get("/api/status").json()["follows"] is None
    finally:
        s.stop()


@pytest.mark.slow  # 15 s at load 20: the only end-to-end check of what a reader sees live
def test_an_open_page_follows_appends(tmp_path, fast_polls):
    """End to end: real server (interval 10m), real appends to the source, real Chromium on the list and on the
    conversation page; both show what was appended without a reload."""
    from selenium.webdriver.common.by import By

    from test_view_server_browser import open_at, shot, wait

    src = tmp_path / "projects"
    write_session(src, canary_lines())
    s = Served(["server", "--root", str(tmp_path / "root"), "--source", str(src), "--interval", "10m"], tmp_path, timeout=60)
    try:
        _until(lambda: CANARY_SESSION in _ids(s), "the first pass's conversation", s)
        drv = fast_polls  # the list's and the document's 5 s polls every 0.5 s
        open_at(drv, s.base + "/", "a.convtitle")
        _add_example(src)
        wait(drv, lambda d: len(d.find_elements(By.CSS_SELECTOR, "a.convtitle")) == 2, timeout=GENEROUS)
        shot(drv, "follows_list")
        open_at(drv, f"{s.base}/c/{CANARY_SESSION}", "section.talk .talkhead .label")
        assert len(drv.find_elements(By.CSS_SELECTOR, "section.talk")) == 1
        write_session(src, second_talk_lines(), append=True)
        wait(drv, lambda d: d.find_elements(By.ID, "updated"), timeout=GENEROUS)
        assert "Updated to round 2" in drv.find_element(By.ID, "updated").text
        labels = [e.text for e in drv.find_elements(By.CSS_SELECTOR, "section.talk .talkhead .label")]
        assert len(labels) == 2 and "Second question: is the log still long?" in labels[-1]
        shot(drv, "follows_conversation")
    finally:
        s.stop()


pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def test_a_look_changes_when_a_file_does_and_only_then(tmp_path):
    from asz_core.cli.server_follow import SourceWatch

    proj = tmp_path / "projects" / "-p"
    proj.mkdir(parents=True)
    (proj / "a.jsonl").write_bytes(b'{"x": 1}\n')
    outside = tmp_path / "outside"
    outside.mkdir()
    (proj / "link").symlink_to(outside)  # a link below a folder is not followed
    w = SourceWatch([tmp_path / "projects", tmp_path / "missing"])
    first = w.look()
    assert w.files == 2 and w.look() == first  # the file and the link itself; nothing changed, the same digest
    (outside / "b.jsonl").write_bytes(b"{}\n")
    assert w.look() == first
    with open(proj / "a.jsonl", "ab") as f:
        f.write(b'{"x": 2}\n')
    grown = w.look()
    assert grown != first
    (tmp_path / "missing").mkdir()
    (tmp_path / "missing" / "c.jsonl").write_bytes(b"")
    assert w.look() != grown and w.files == 3  # a folder missing at first is looked for again


def test_a_look_on_a_busy_machine_keeps_its_period(tmp_path):
    """The wait between looks follows a look's CPU time, not its wall time (trial 44b F3: at load 17-24 the wall time
    of a look of ~1,000 files stretched the wait to 2-7 s, and a 48-line write over 5.8 s got one pass). Here the
    look is kept waiting for real: another thread runs a regular expression that backtracks for ~0.1-0.4 s of CPU in
    one call, holding the interpreter, which the look gives up when asked (after 1 ms: sys.setswitchinterval) and gets back only then."""
    import re
    import sys
    import threading
    import time

    from asz_core.cli.server_follow import LOOK_EVERY, MAX_SHARE, SourceWatch

    for p in range(40):  # ~5-10 ms of looking: past the 1 ms the other thread waits before it asks for the interpreter
        d = tmp_path / "projects" / f"-p{p}"
        d.mkdir(parents=True)
        for k in range(25):
            (d / f"{k}.jsonl").write_bytes(b"{}\n")
    w = SourceWatch([tmp_path / "projects"])
    go = threading.Event()
    busy = threading.Thread(target=lambda: go.wait() and re.match(r"(x+x+)+y", "x" * 23))
    was = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    try:
        busy.start()
        go.set()
        started = time.monotonic()
        w.look()
        wall = time.monotonic() - started
        busy.join()
    finally:
        sys.setswitchinterval(was)
    assert w.files == 1000
    assert wall > 2 * LOOK_EVERY * MAX_SHARE, wall  # the wall time alone would have doubled the wait at least
    # the wait follows the look's CPU time (at a load of 11, s48b, that alone passed MAX_SHARE: took 0.0201 s, period
    # 1.0067 s), never its wall time, which would have made it wall / MAX_SHARE
    assert w.took < wall / 2 and w.period == max(LOOK_EVERY, w.took / MAX_SHARE) < wall / MAX_SHARE / 2, (w.took, wall)


def test_a_staged_file_that_appears_makes_a_pass_one_taken_away_does_not(tmp_path):
    """A receiver's inbox (trial 23a F14): a new name there is a change, the pass taking it away is not, a receiver's
    ``.tmp-`` file is not looked at."""
    from asz_core.cli.server_follow import SourceWatch, changed

    inbox = tmp_path / "_ingest" / "langsmith" / "inbox"
    w = SourceWatch([], [inbox])
    empty = w.look()  # the inbox is not there yet
    inbox.mkdir(parents=True)
    (inbox / ".tmp-1-1-000001.jsonl").write_bytes(b"{}\n")
    assert not changed(empty, w.look())
    (inbox / ".tmp-1-1-000001.jsonl").rename(inbox / "1-1-000001.jsonl")
    staged = w.look()
    assert changed(empty, staged) and w.files == 1
    (inbox / "1-1-000001.jsonl").unlink()  # the pass materialised it and moved it to done/
    assert not changed(staged, w.look()) and changed(w.look(), staged)
