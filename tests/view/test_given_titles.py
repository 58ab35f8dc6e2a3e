"""Titles as Claude Code's resume list shows them (trial 41c F1, F2, F9).

- F1: ``/rename`` writes ``{"type":"custom-title","customTitle":…}``; the last one titles the session, before any
  ``ai-title`` or ``summary``, and is found by ``asz search`` as a label (``Adapter.given_title``).
- F2: a ``summary`` record in session B whose ``leafUuid`` is a message of session A titles A (A has no title of its
  own), the latest such summary winning, also when B lands in a later collect pass than A.
- F9: a session folder holding only a ``subagents/`` file is titled ``(subagent) PROMPT`` by the sub-agent's prompt.

Each test writes corpus transcripts' lines (read from ../shared/corpus, never copied into the project) plus lines of
its own, collects them with the real ``asz collect --once``, and reads the titles the document, ``asz ls --json``
(issue 20's ``id`` and ``title``), ``asz search --json`` and the page's ``/api/conversations`` give; the expected
titles are read from the lines written.
"""

from __future__ import annotations

import json
from pathlib import Path

from starlette.testclient import TestClient

from asz_core.view.server import ViewState, create_app

from claude_lines import assert_titled, collect_claude
from cli_helpers import asz_in_process
from test_view_summary_titles import _agent, _summary, _user

LOG = "-Users-alex-workspace-claude-code-log-sample"
#: A corpus transcript whose four ``summary`` records name messages it does not hold (titled by its first prompt).
RESUMED = f"{LOG}/326189cf-5676-4237-8cde-1ce80aae4a9f.jsonl"
SMALL = "-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
SUBAGENT = "-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-a36efb2a1231c41e2.jsonl"


def _lines(projects: Path, rel: str) -> list[bytes]:
    return (projects / rel).read_bytes().splitlines()


def _last(lines: list, kind: str, key: str) -> str:
    """The ``key`` of the last line of type ``kind`` among ``lines`` (bytes or dicts): what the test wrote."""
    got = [d[key] for d in (json.loads(x) if isinstance(x, bytes) else x for x in lines) if d.get("type") == kind]
    return got[-1]


def _page_titles(root: Path) -> dict[str, str]:
    rows = TestClient(create_app(ViewState(root)), base_url="http://127.0.0.1").get("/api/conversations").json()["conversations"]
    return {r["id"]: r["title"] for r in rows}


def test_the_last_custom_title_names_the_session_before_its_ai_titles(tmp_path, corpus_projects):
    renamed, plain = "326189cf-5676-4237-8cde-1ce80aae4a9f", "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
    given = [_lines(corpus_projects, RESUMED)
             + [{"type": "ai-title", "sessionId": renamed, "aiTitle": "Zanzibar caching by the model"},
                {"type": "custom-title", "sessionId": renamed, "customTitle": "Zanzibar first rename"},
                {"type": "custom-title", "sessionId": renamed, "customTitle": "Zanzibar renamed by the user"},
                {"type": "ai-title", "sessionId": renamed, "aiTitle": "Zanzibar later model title"}],
             _lines(corpus_projects, SMALL) + [{"type": "ai-title", "sessionId": plain, "aiTitle": "Zanzibar plain ai title"}]]
    root = collect_claude(tmp_path, {renamed: given[0], plain: given[1]})
    want = {renamed: _last(given[0], "custom-title", "customTitle"), plain: _last(given[1], "ai-title", "aiTitle")}
    assert want == {renamed: "Zanzibar renamed by the user", plain: "Zanzibar plain ai title"}
    assert_titled(root, want, "zanzibar")  # the document, asz ls --json, and every search hit's title
    assert _page_titles(root) == want
    # every name written is a label hit, the custom titles as the ai-titles
    written = {(sid, d.get("customTitle") or d["aiTitle"]) for sid, lines in zip((renamed, plain), given)
               for d in lines if isinstance(d, dict)}
    p = asz_in_process("search", "zanzibar", "--kind", "label", "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    got = [(h["conversation"], h["snippet_text"]) for h in json.loads(p.stdout) if h["kind"] == "label"]
    assert len(written) == 5 and sorted(got) == sorted(written)


def test_a_session_of_a_subagent_file_alone_is_titled_by_its_prompt(tmp_path, corpus_projects):
    sid = "5ab5ab5a-0000-4000-8000-000000000009"
    lines = _lines(corpus_projects, SUBAGENT)
    root = collect_claude(tmp_path, {}, files={f"{sid}/subagents/{Path(SUBAGENT).name}": lines})
    asked = next(d["message"]["content"] for d in map(json.loads, lines) if d.get("type") == "user")
    assert asked.startswith("You are **alice** (round 2).")
    p = asz_in_process("ls", "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    (row,) = json.loads(p.stdout)
    words = " ".join(asked.split())
    assert row["id"] == sid and row["title"].startswith("(subagent) " + words[:80]), row["title"]
    assert len(row["title"]) <= len("(subagent) ") + 100
    p = asz_in_process("conversation", sid, "--json", "--root", str(root))
    assert json.loads(p.stdout)["summary"]["title"] == row["title"]
    assert _page_titles(root) == {sid: row["title"]}
    p = asz_in_process("search", "alice", "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    hits = json.loads(p.stdout)
    assert hits and {h["title"] for h in hits} == {row["title"]}, {h["title"] for h in hits}


def _exported_titles(root: Path, sid: str) -> dict[str, str]:
    """The title each export form of ``sid`` gives: the json document's ``summary.title``, the md head's ``# TITLE``
    line and the html page's ``<title>``."""
    import html

    out = {}
    for form in ("json", "md", "html"):
        p = asz_in_process("export", sid, "--format", form, "--root", str(root))
        assert p.returncode == 0, p.stderr
        if form == "json":
            out[form] = json.loads(p.stdout)["summary"]["title"]
        elif form == "md":
            out[form] = next(x[2:] for x in p.stdout.splitlines() if x.startswith("# "))
        else:
            out[form] = html.unescape(p.stdout.split("<title>", 1)[1].split("</title>", 1)[0])
    return out


def _kept_prints(root: Path, sid: str) -> set[str]:
    """The keys of ``sid``'s list rows kept in ``_index/summaries.sqlite`` that are its current key
    (:func:`~asz_core.view.summary_cache.fingerprint`): empty when none is."""
    import sqlite3

    from asz_core.view.summary_cache import fingerprint

    con = sqlite3.connect(root / "_index" / "summaries.sqlite")
    try:
        kept = {fp for (fp,) in con.execute("SELECT fp FROM rows WHERE id = ?", (sid,))}
    finally:
        con.close()
    return kept & {fingerprint(root, sid, sid)}


def test_a_summary_landed_in_a_later_pass_titles_the_conversation_it_names(tmp_path, corpus_projects):
    """F2: A (a corpus transcript with no title of its own) lands alone; a later pass lands B and C, each opening with a
    ``summary`` whose ``leafUuid`` is one of A's messages (read from A's lines). A is then titled by C's summary (the
    last by session, seq and row), the same in asz ls (text and --json), asz conversation --json, every export form,
    search hits, the page's list and push's ``asz.conversation.title``; B and C keep their own prompts' titles. A's
    list row, kept by the first pass, is read again (its key holds the labels naming it). Then C's landed file is
    damaged: a summary in a file that does not verify titles nothing, and B's names A."""
    from test_view_summary_titles import _titles_everywhere

    a_lines = _lines(corpus_projects, SMALL)
    a = Path(SMALL).stem
    uuids = [d["uuid"] for d in map(json.loads, a_lines) if d.get("uuid")]
    root = collect_claude(tmp_path, {a: a_lines})
    before, *_ = _titles_everywhere(root, [a], "the")
    assert before[a] and "Zephyr" not in before[a]
    first = _kept_prints(root, a)
    b, c = "bbbbbbbb-0000-4000-8000-00000000000b", "cccccccc-0000-4000-8000-00000000000c"
    written = {b: [_summary("Zephyr summary written in B", uuids[-1]),
                   _user(b, "b-1", None, "Write the release notes", "2026-01-02T10:00:00Z"), _agent(b, "b-2", "b-1", "notes", "2026-01-02T10:00:05Z")],
               c: [_summary("Zephyr summary written in C", uuids[0]),
                   _user(c, "c-1", None, "Tidy the changelog", "2026-01-03T10:00:00Z"), _agent(c, "c-2", "c-1", "tidied", "2026-01-03T10:00:05Z")]}
    projects = tmp_path / "projects" / "-home-dev-app"
    for sid, lines in written.items():
        (projects / f"{sid}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines))
    p = asz_in_process("collect", "--once", "--adapter", "claude-code-local", "--source", str(tmp_path / "projects"), "--root", str(root))
    assert p.returncode == 0 and " errors=0 " in p.stdout, p.stdout + p.stderr
    want = {a: written[c][0]["summary"], b: "Write the release notes", c: "Tidy the changelog"}
    # A's kept row is keyed anew (the labels naming it are in its key) and was kept by the later pass too
    assert _kept_prints(root, a) and not _kept_prints(root, a) & first
    ls, doc, push, search = _titles_everywhere(root, [a, b, c], "the")
    assert ls == doc == push == want
    assert search and all(search[k] == want[k] for k in search) and a in search  # A's hits carry A's title
    assert _page_titles(root) == want
    assert _exported_titles(root, a) == {"json": want[a], "md": want[a], "html": want[a]}
    table = asz_in_process("ls", "--root", str(root)).stdout
    assert [x for x in table.splitlines() if want[a] in x] and "Zephyr summary written in B" not in table
    # the summary's own record stays where it landed: a search for its words points at C's file, in conversation C
    p = asz_in_process("search", "zephyr", "--json", "--root", str(root))
    assert sorted((h["conversation"], h["kind"], h["file"].split("/")[0]) for h in json.loads(p.stdout)) == [(b, "label", b), (c, "label", c)]
    (landed,) = (root / c / "streams" / "main").glob("transcript-*.sd")
    landed.chmod(0o644)
    landed.write_bytes(landed.read_bytes().replace(b"tidied", b"tidies"))
    from asz_core.export.wire import RoundTitles

    p = asz_in_process("ls", "--json", "--root", str(root))
    doc = json.loads(asz_in_process("conversation", a, "--json", "--root", str(root)).stdout)["summary"]["title"]
    push = RoundTitles(root)(max((root / "_conversations" / a / "rounds").glob("*.sf")).read_bytes())
    assert {r["id"]: r["title"] for r in json.loads(p.stdout)}[a] == doc == push == written[b][0]["summary"]
    assert _page_titles(root)[a] == doc


def test_a_store_row_that_does_not_read_is_read_again_from_its_file(tmp_path):
    """``_index/named.sqlite`` is derived data: a row whose ``named`` text is damaged or hand-edited (not JSON, not a
    list of (row, leaf, label)) made ``asz ls`` end in a traceback (ValueError/TypeError out of the unpacking, review 42);
    now its landed file is read again and the row written anew, and ``forget_named`` (prune, erase) of a session with
    such a row takes every other session as one its labels may title."""
    import sqlite3

    from asz_core.view import named_titles

    a, b = "aaaaaaaa-0000-4000-8000-00000000000a", "bbbbbbbb-0000-4000-8000-00000000000b"
    root = collect_claude(tmp_path, {
        a: [_user(a, "a-1", None, "Plan it", "2026-01-01T10:00:00Z"), _agent(a, "a-2", "a-1", "ok", "2026-01-01T10:00:05Z")],
        b: [_summary("Zephyr", "a-2"), _user(b, "b-1", None, "Other", "2026-01-02T10:00:00Z"),
            _agent(b, "b-2", "b-1", "x", "2026-01-02T10:00:05Z")]})
    db = root / named_titles.DB
    good = '[[1, "a-2", "Zephyr"]]'  # B's summary is its first line, naming A's message a-2
    with sqlite3.connect(db) as con:
        assert [n for (n,) in con.execute("SELECT named FROM files WHERE named != '[]'")] == [good]
    for bad in ('{"x": 1}', "[1]", "not json", "[[1, 2]]", '[["r", "a-2", 5]]', '[[0, "a-2", "Zephyr"]]'):
        with sqlite3.connect(db) as con:
            con.execute("UPDATE files SET named = ? WHERE named != '[]'", (bad,))
        named_titles._KEPT.clear()  # as a new process reads the store
        named_titles._ROWS.clear()
        assert named_titles.named_in(root).title(a, {"a-1", "a-2"}) == "Zephyr", bad
        with sqlite3.connect(db) as con:
            assert [n for (n,) in con.execute("SELECT named FROM files WHERE path LIKE ?", (b + "/%",))] == [good], bad
    with sqlite3.connect(db) as con:
        con.execute("UPDATE files SET named = 'not json' WHERE path LIKE ?", (b + "/%",))
    assert named_titles.forget_named(root, [b]) == {a}


def test_without_the_id_table_a_summary_changes_the_key_of_the_conversation_it_names_only(tmp_path):
    """A root without ``_index/ids.sqlite`` (removed with ``_index/``, an older root): each conversation's key held every
    summary of the root naming another session's message, so one landing anywhere read every row again (close42). Now
    a session the table does not hold is asked of its own index: C's summary naming A's message a-2 changes A's list
    row key (:func:`~asz_core.view.summary_cache.fingerprint`) and not B's, and C's pass keeps A's row again
    (``titled_by``), the table absent or there."""
    import shutil

    from asz_core.view import named_titles
    from asz_core.view.summary_cache import fingerprint

    a, b, c = ("aaaaaaaa-0000-4000-8000-00000000000a", "bbbbbbbb-0000-4000-8000-00000000000b",
               "cccccccc-0000-4000-8000-00000000000c")
    root = collect_claude(tmp_path, {
        a: [_user(a, "a-1", None, "Plan it", "2026-01-01T10:00:00Z"), _agent(a, "a-2", "a-1", "ok", "2026-01-01T10:00:05Z")],
        b: [_user(b, "b-1", None, "Other", "2026-01-02T10:00:00Z"), _agent(b, "b-2", "b-1", "x", "2026-01-02T10:00:05Z")]})
    table = root / "_index" / "ids.sqlite"

    def keys() -> dict[str, str]:
        for p in root.glob("_index/ids.sqlite*"):
            p.unlink()
        named_titles._KEPT.clear()  # as a new process reads the root
        named_titles._ROWS.clear()
        assert not table.exists()
        return {s: fingerprint(root, s, s) for s in (a, b)}

    before = keys()
    (tmp_path / "projects" / "-home-dev-app" / f"{c}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in (
        _summary("Zephyr", "a-2"), _user(c, "c-1", None, "Third", "2026-01-03T10:00:00Z"),
        _agent(c, "c-2", "c-1", "y", "2026-01-03T10:00:05Z"))))
    p = asz_in_process("collect", "--once", "--adapter", "claude-code-local", "--source", str(tmp_path / "projects"),
                       "--root", str(root))
    assert p.returncode == 0 and " errors=0 " in p.stdout, p.stdout + p.stderr
    assert table.exists() and _kept_prints(root, a)  # the pass's parse made the table again and kept A's new row
    saved = tmp_path / "saved"
    saved.mkdir()
    for f in root.glob("_index/ids.sqlite*"):
        shutil.copy(f, saved / f.name)
    after = keys()
    assert after[a] != before[a] and after[b] == before[b]
    assert named_titles.named_key(root, a) == (("", "named", c, 1, 1, "Zephyr"),) and named_titles.named_key(root, b) == ()
    assert named_titles.named_in(root).titled_by([c]) == {a}
    assert _kept_prints(root, a)  # the key without the table is the key the pass kept A's row under, with it
    for f in saved.iterdir():
        shutil.copy(f, root / "_index" / f.name)
    named_titles._KEPT.clear()
    assert fingerprint(root, a, a) == after[a] and fingerprint(root, b, b) == after[b]


def test_the_id_table_is_read_in_place_while_a_writer_checkpoints_it(tmp_path):
    """Trial 44b F2: ``/api/conversations`` answered 500 (``FileNotFoundError: …/_index/ids.sqlite-wal``) during a live
    pass: the labels' reading of the id table copied the table and its write-ahead log out of a root that was not
    read-only, and the log was checkpointed away between the look and the copy. Now it is opened in place (a copy only
    in a frozen root, ``storage.frozen.open_read``): a writer opening the table, adding a row and closing it (its last
    close checkpoints and removes the log) beside a reader asking which sessions hold B's summary's leaf never makes the
    reader fail, and the answer is A every time."""
    import threading
    import time

    from asz_core.flow.shared_ids import _connect
    from asz_core.view import named_titles

    a, b = "aaaaaaaa-0000-4000-8000-00000000000a", "bbbbbbbb-0000-4000-8000-00000000000b"
    root = collect_claude(tmp_path, {
        a: [_user(a, "a-1", None, "Plan it", "2026-01-01T10:00:00Z"), _agent(a, "a-2", "a-1", "ok", "2026-01-01T10:00:05Z")],
        b: [_summary("Zephyr", "a-2"), _user(b, "b-1", None, "Other", "2026-01-02T10:00:00Z"),
            _agent(b, "b-2", "b-1", "x", "2026-01-02T10:00:05Z")]})
    named = named_titles.named_in(root, again=True)
    assert named._held()["a-2"] == {a}
    stop, writes, answers, failed = threading.Event(), [0], [], []

    def write() -> None:
        while not stop.is_set():
            db = _connect(root)  # the parse's own connection: WAL, a row, closed (the log checkpointed and removed)
            db.execute("INSERT OR REPLACE INTO sessions(name, entries) VALUES (?, ?)", ("zz-writer", writes[0]))
            db.close()
            writes[0] += 1

    writer = threading.Thread(target=write)
    writer.start()
    try:
        end = time.monotonic() + 2.0
        while time.monotonic() < end or writes[0] < 20:
            named._holders = None  # asked anew, as a row after the table changed is
            try:
                answers.append(named._held()["a-2"])
            except Exception as exc:  # noqa: BLE001 - the failure this test is about, named below
                failed.append(repr(exc))
    finally:
        stop.set()
        writer.join()
    assert not failed, failed[:3]
    assert answers and all(x == {a} for x in answers), {frozenset(x) for x in answers}


def test_the_id_table_is_read_once_for_every_row_and_again_after_a_pass_adds_to_it(tmp_path):
    """Trial 45b F8: each ``asz search`` over 294 conversations read the id table once a conversation (154,156 queries,
    3.2 s of its 4.6 s of CPU): the mark that says the table is unchanged held its log's ctime, which SQLite run as root
    moves on every open (it gives the log the database's owner). Two askings with nothing written between return the
    one reading, the log's ctime moved or not; a later pass that lands a summary naming A's leaf is seen by the same
    reader without being told."""
    import os

    from asz_core.view import named_titles

    a, b, c = ("aaaaaaaa-0000-4000-8000-00000000000a", "bbbbbbbb-0000-4000-8000-00000000000b",
               "cccccccc-0000-4000-8000-00000000000c")
    root = collect_claude(tmp_path, {
        a: [_user(a, "a-1", None, "Plan it", "2026-01-01T10:00:00Z"), _agent(a, "a-2", "a-1", "ok", "2026-01-01T10:00:05Z")],
        b: [_summary("Zephyr", "a-2"), _user(b, "b-1", None, "Other", "2026-01-02T10:00:00Z"),
            _agent(b, "b-2", "b-1", "x", "2026-01-02T10:00:05Z")]})
    table = root / "_index" / "ids.sqlite"
    log = table.with_name("ids.sqlite-wal")
    log.touch()  # a log beside the table, as a live root has
    named = named_titles.named_in(root, again=True)
    first = named._held()
    assert first["a-2"] == {a}
    st = log.stat()
    os.chmod(log, st.st_mode)  # what SQLite's fchown does to the log: its ctime moves, its bytes do not
    assert log.stat().st_ctime_ns != st.st_ctime_ns or os.getuid() != 0
    assert named._held() is first
    projects = tmp_path / "projects" / "-home-dev-app"
    lines = [_summary("Zephyr again", "a-2"), _user(c, "c-1", None, "Third", "2026-01-03T10:00:00Z"),
             _agent(c, "c-2", "c-1", "y", "2026-01-03T10:00:05Z")]
    (projects / f"{c}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines))
    p = asz_in_process("collect", "--once", "--adapter", "claude-code-local", "--source", str(tmp_path / "projects"), "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    assert named._held()["a-2"] == {a}  # C's summary names A's leaf; the table says which sessions hold the leaf
    assert named._held() is not first
