"""What ``/api/conversations`` ``note`` and ``/api/status`` ``reading`` say while ``asz server``'s first pass runs
(trial 19, F24): each says what is happening, true at every moment.

- With nothing listed yet, the note said ``this storage root holds no conversations yet: collect and parse sessions
  into it`` while the server was doing just that; it says the first pass is reading the sources into the root.
- Sessions the pass landed and has not parsed yet were named as ``N landed session(s) have no conversation chain and
  are not listed`` (which reads like damage); during the pass the note says they are listed as it parses them, and
  once it ended, sessions still unparsed are named as before.
- ``reading`` kept ``counting conversations: 0 of 9 done`` while the rows waiting rose past 200: the words are made
  from the counter's numbers when asked, so the denominator is the rows waiting now, and say that the counter waits
  for the pass.

Real input: the corpus collected by the real ``asz collect --once`` (tests/conftest.py), its conversation chains
removed (what a first pass holds after landing, before it parses); the real application over Starlette's in-process
client; ``hold_counting`` is the flag :class:`asz_core.cli.server_pass.CollectLoop` sets until the first pass ends."""

from __future__ import annotations

import re
import shutil
import time

import pytest

CORPUS_SESSIONS = 11  # ../shared/corpus/claude-code/projects: 11 sessions


@pytest.fixture
def landed_only(corpus_copy):
    root = corpus_copy()
    shutil.rmtree(root / "_conversations")
    return root


def _client(state):
    from starlette.testclient import TestClient

    from asz_core.view.server import create_app

    return TestClient(create_app(state), base_url="http://127.0.0.1")


def test_the_first_pass_is_said_as_what_it_does_not_as_advice(landed_only):
    from asz_core.view.server import ViewState

    state = ViewState(landed_only, mode="server", interval=60.0)
    state.hold_counting = True  # the first pass runs (CollectLoop, from its start)
    got = _client(state).get("/api/conversations").json()
    assert got["conversations"] == []
    assert got["note"] == ("no conversation is listed yet: this server's first collect pass is reading the sources into "
                           "the storage root; the sessions it lands are listed as it parses them")
    state.hold_counting = False  # the pass ended, and these sessions were not parsed: named, as asz ls names them
    note = _client(state).get("/api/conversations").json()["note"]
    assert note.startswith("this storage root holds no conversations yet: this server collects and parses its sources "
                           f"into it every 60 s {CORPUS_SESSIONS} landed session(s) have no conversation chain and are not listed")


def test_asz_view_keeps_its_advice_and_an_empty_server_root_says_its_passes(landed_only, tmp_path):
    from asz_core.view.server import ViewState

    note = _client(ViewState(landed_only)).get("/api/conversations").json()["note"]
    assert note.startswith("this storage root holds no conversations yet: collect and parse sessions into it "
                           f"{CORPUS_SESSIONS} landed session(s) have no conversation chain")  # asz view collects nothing
    (tmp_path / "empty").mkdir()
    assert _client(ViewState(tmp_path / "empty", mode="server", interval=5.0)).get("/api/conversations").json()["note"] \
        == "this storage root holds no conversations yet: this server collects and parses its sources into it every 5 s"


def test_while_the_pass_parses_the_sessions_it_landed_are_no_damage(corpus_copy):
    """Half the corpus parsed, half landed only (the first pass part way through its parse): the note lists no session
    folder while the pass runs, and names the unparsed ones once it ended."""
    from asz_core.view.server import ViewState

    root = corpus_copy()
    chains = sorted(p for p in (root / "_conversations").iterdir() if p.is_dir())
    for p in chains[:5]:
        shutil.rmtree(p)
    state = ViewState(root, mode="server", interval=60.0)
    state.hold_counting = True
    got = _client(state).get("/api/conversations").json()
    assert len(got["conversations"]) == CORPUS_SESSIONS - 5
    assert got["note"] == ("this server's first collect pass is reading the sources into the storage root; the sessions "
                           "it lands are listed as it parses them")
    assert "no conversation chain" not in got["note"]
    state.hold_counting = False
    assert _client(state).get("/api/conversations").json()["note"].startswith(
        "5 landed session(s) have no conversation chain and are not listed")


def test_counting_says_the_rows_waiting_now(corpus_root):
    """The counter's words follow its numbers: the rows waiting now, counted or not, and the wait for the pass."""
    from asz_core.view.server import ViewState

    state = ViewState(corpus_root, mode="server", interval=60.0)
    state.hold_counting = True
    convs = state.conversations()
    state.count_behind(convs[:3], ())
    st = state.status()
    assert st["counting"] == 3 and st["reading"] == "counting conversations: 0 of 3 done, waiting for the collect pass to end"
    state.count_behind(convs, ())  # more rows listed meanwhile: the denominator follows (was kept at 3)
    st = state.status()
    assert st["counting"] == CORPUS_SESSIONS
    assert st["reading"] == f"counting conversations: 0 of {CORPUS_SESSIONS} done, waiting for the collect pass to end"
    state.hold_counting = False
    seen, deadline = [], time.monotonic() + 180
    while True:
        st = state.status()
        seen.append((st["counting"], st["reading"]))
        m = re.fullmatch(r"counting conversations: (\d+) of (\d+) done", st["reading"])
        if st["counting"] == 0:
            assert st["reading"] == "", seen
            break
        assert m and int(m.group(2)) == CORPUS_SESSIONS and int(m.group(2)) - int(m.group(1)) == st["counting"], seen
        assert time.monotonic() < deadline, seen[-3:]
        time.sleep(0.01)


def test_the_servers_banner_says_its_first_pass_fills_the_root(tmp_path, capsys):
    """``asz server``'s start line said ``(this root holds no conversations yet: collect and parse sessions into it)``
    then that its first pass runs; it says only what the pass does. ``asz view`` keeps the advice."""
    from asz_core.cli import server_cmd
    from asz_core.view.server import ViewState

    (tmp_path / "empty").mkdir()
    server_cmd._banner_common(ViewState(tmp_path / "empty", mode="server", interval=60.0), "127.0.0.1", 1)
    server_cmd._banner_common(ViewState(tmp_path / "empty"), "127.0.0.1", 1)
    said = [x for x in capsys.readouterr().out.splitlines() if x.startswith("serving")]
    assert said == ["serving  : 0 conversation(s) (the first collect pass runs in the background and lands and parses the "
                    "sources into it; the page says when it is done)",
                    "serving  : 0 conversation(s) (this root holds no conversations yet: collect and parse sessions into it)"]


@pytest.mark.slow
def test_a_server_with_no_source_says_so_and_does_not_wait_for_its_pass(corpus_copy, tmp_path):
    """Trial 45c F4: ``asz server --root recv/team`` on a host with no ``~/.claude/projects`` printed ``error: …: no
    such source root``, and 12 s later ``/api/conversations`` still said the first collect pass was reading the
    sources. A real ``asz server`` (HOME with no Claude Code folder): its banner and the first answer say no source
    is read, every conversation of the root is listed, and nothing says a first pass is reading."""
    from view_server_helpers import Served

    root = corpus_copy()
    home = tmp_path / "home"
    home.mkdir()
    s = Served(["server", "--root", str(root), "--adapter", "claude-code-local", "--no-follow"], tmp_path, timeout=60,
               env={"HOME": str(home), "CLAUDE_CONFIG_DIR": "", "USERPROFILE": str(home)})
    try:
        got = s.get("/api/conversations").json()
        status = s.get("/api/status").json()
    finally:
        s.stop()
    missing = f"{home / '.claude' / 'projects'}: no such source root"
    assert len(got["conversations"]) == CORPUS_SESSIONS, got
    assert got["note"].startswith(f"this server's collect passes find no source to read ({missing}"), got["note"]
    assert "first collect pass" not in got["note"] and "first collect pass" not in status["reading"], (got, status)
    assert f"serving  : {CORPUS_SESSIONS} conversation(s) (its collect passes find no source to read: {missing}" in s.output()
