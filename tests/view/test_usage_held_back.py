"""``asz usage`` and ``asz ls`` never count usage from evidence that does not verify (trial 3, finding 1).

Real input: the Claude Code corpus collected by the real ``asz collect --once``
(tests/conftest.py), then one number of a landed transcript changed in place
(``"out":4658`` -> ``"out":9999``; the closing digest left as it was), as a
person tampering with a file would. The totals must be the corpus's own
counts without that conversation, which is named as held back.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat

import pytest

from asz_core.view.summary_cache import SCHEMA_VERSION, SummaryStore

from test_view_usage import ANCHOR, ANCHOR_CALLS, sessions_of, transcript_truth
from cli_helpers import asz_in_process

SID = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
KINDS = ("in", "out", "cache_read", "cache_write")


@pytest.fixture(scope="module")
def tampered(corpus_dir, corpus_copy):
    """(a corpus root with one output count of SID's main transcript changed, that file, SID's transcript truth)."""
    root = corpus_copy()
    [path] = [p for p in sorted((root / SID / "streams" / "main").glob("transcript-*.sd")) if b'"out":4658' in p.read_bytes()]
    data = path.read_bytes()
    assert data.count(b'"out":4658') == 1
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    path.write_bytes(data.replace(b'"out":4658', b'"out":9999'))
    os.chmod(path, stat.S_IRUSR)
    truth = sessions_of(corpus_dir / "claude-code" / "projects")[SID]
    return root, path, transcript_truth(truth)


def _run(root, *args):
    return asz_in_process(*args, "--root", str(root))


def test_ls_holds_back_the_figures_of_a_conversation_that_does_not_verify(tampered):
    root, _, (usage, _) = tampered
    p = _run(root, "ls", "--json")
    assert p.returncode == 0, p.stderr
    rows = {r["id"]: r for r in json.loads(p.stdout)}
    row = rows.pop(SID)
    assert row["state"] == "mismatch"
    assert row["usage"] is None and row["cost"] is None
    assert row["held_back"] == {"state": "mismatch", "keys": ["usage", "cost"]}
    assert all(r["state"] == "verified" and "held_back" not in r for r in rows.values())
    for k in KINDS:  # every other conversation is counted as before
        assert sum(r["usage"][k] for r in rows.values()) == ANCHOR[k] - usage[k], k
    p = _run(root, "ls")
    [line] = [x for x in p.stdout.splitlines() if x.startswith(SID[:8])]
    assert "held back" in line and "mismatch" in line and "$" not in line
    assert f"1 conversation(s) do not verify: their tokens and cost are held back ({SID[:8]} mismatch" in p.stdout


@pytest.mark.parametrize("view,key", [("session", "conversation"), ("daily", "date"), ("project", "project")])
def test_usage_counts_only_verified_evidence_and_names_what_it_holds_back(tampered, view, key):
    """Run after asz ls above filled the derived summaries: the stored entry keeps the state, so the held-back
    conversation stays held back when read from _index/summaries.sqlite as when counted (the parameters run twice)."""
    root, path, (usage, calls) = tampered
    for _ in range(2):
        p = _run(root, "usage", view, "--tz", "UTC", "--json")
        assert p.returncode == 1, p.stdout + p.stderr
        rows = json.loads(p.stdout)
        for k in KINDS:
            assert sum(r["usage"][k] for r in rows) == ANCHOR[k] - usage[k], k
        assert sum(r["calls"] for r in rows) == ANCHOR_CALLS - calls
        held = [h for r in rows for h in r.get("held_back", ())]
        assert {h["conversation"] for h in held} == {SID} and {h["state"] for h in held} == {"mismatch"}
        assert sum(h["calls"] for h in held) == calls
        rel = path.relative_to(root).as_posix()
        assert f"asz usage: conversation {SID} does not verify (mismatch): its {calls} call(s) are held back: " \
               f"landed file {rel} does not read: digest mismatch" in p.stderr
        said = [ln for ln in p.stderr.splitlines() if ln.startswith(f"asz usage: conversation {SID}")]
        assert len(said) == 1, said  # one line a conversation: the first problem and how many more (trial 18 F-e)
        assert said[0].endswith(" more problem(s) (asz verify names them)") and "missing companion file" not in said[0]
    if view == "session":
        [row] = [r for r in rows if r["conversation"] == SID]
        assert row["calls"] == 0 and row["usage"] == dict.fromkeys((*KINDS, "cache_write_1h"), 0) and row["cost"]["usd"] is None  # nothing priced: null (trial 50c F3)
    p = _run(root, "usage", view, "--tz", "UTC")
    assert p.returncode == 1
    marked = [x for x in p.stdout.splitlines() if " ! " in x or x.rstrip().endswith("!")]
    assert marked and f"! held back, in no figure above (they do not verify; asz verify names the problems): {SID[:8]} (mismatch, {calls} call(s): " in p.stdout
    total = next(x for x in p.stdout.splitlines() if x.startswith("total"))
    assert f"{ANCHOR['out'] - usage['out']:,}" in total


def test_a_store_an_older_asz_wrote_is_emptied_and_rebuilt(tmp_path):
    """Entries without the verification state (schema before version 2) are never read: the store drops them."""
    root = tmp_path / "root"
    (root / "_conversations").mkdir(parents=True)
    (root / "_index").mkdir()
    con = sqlite3.connect(root / "_index" / "summaries.sqlite")
    con.execute("CREATE TABLE summaries (id TEXT, hide TEXT, fp TEXT, entry TEXT, PRIMARY KEY (id, hide))")
    con.execute("INSERT INTO summaries VALUES ('c', '', 'fp', '{\"places\":{},\"calls\":[]}')")
    con.commit()
    con.close()
    store = SummaryStore(root)
    try:
        assert store.get("summaries", "c", [], "fp") is None
        assert store.con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    finally:
        store.close()


def test_a_store_keyed_without_change_times_is_emptied_and_rebuilt(tmp_path):
    """Version 2 entries were keyed by fingerprints without the files' change times (trial 3, F1): never read."""
    root = tmp_path / "root"
    (root / "_conversations").mkdir(parents=True)
    (root / "_index").mkdir()
    con = sqlite3.connect(root / "_index" / "summaries.sqlite")
    con.execute("CREATE TABLE summaries (id TEXT, hide TEXT, fp TEXT, entry TEXT, PRIMARY KEY (id, hide))")
    con.execute("CREATE TABLE rows (id TEXT, hide TEXT, fp TEXT, row TEXT, PRIMARY KEY (id, hide))")
    con.execute("INSERT INTO summaries VALUES ('c', '', 'fp', '{\"places\":{},\"calls\":[],\"state\":\"verified\"}')")
    con.execute("INSERT INTO rows VALUES ('c', '', 'fp', '{}')")
    con.execute("PRAGMA user_version=2")
    con.commit()
    con.close()
    store = SummaryStore(root)
    try:
        assert store.get("summaries", "c", [], "fp") is None and store.get("rows", "c", [], "fp") is None
        assert store.con.execute("PRAGMA user_version").fetchone()[0] == 4
    finally:
        store.close()


def test_a_conversation_missing_a_landed_file_is_held_back_too(corpus_dir, corpus_copy):
    """State incomplete: what is left is not all of its usage, so none of it is counted as if it were."""
    cut = "cb2e607c-c758-415a-8b45-c49e4631906a"
    root = corpus_copy()
    (gone,) = sorted((root / cut / "streams" / "main").glob("transcript-*-000001.sd"))
    gone.unlink()
    usage, calls = transcript_truth(sessions_of(corpus_dir / "claude-code" / "projects")[cut])
    p = _run(root, "usage", "project", "--json")
    assert p.returncode == 1, p.stdout + p.stderr
    rows = json.loads(p.stdout)
    for k in KINDS:
        assert sum(r["usage"][k] for r in rows) == ANCHOR[k] - usage[k], k
    held = [h for r in rows for h in r.get("held_back", ())]
    assert [(h["conversation"], h["state"]) for h in held] == [(cut, "incomplete")]
    assert f"round 1: landed file seq 1 of session {cut} is missing" in p.stderr
    [row] = [r for r in json.loads(_run(root, "ls", "--json").stdout) if r["id"] == cut]
    assert row["usage"] is None and row["held_back"] == {"state": "incomplete", "keys": ["usage", "cost"]}


def test_a_file_written_again_with_its_own_closing_line_is_held_back(corpus_dir, corpus_copy):
    """Re-sealed (the closing digest recomputed over the changed count): the file reads, the round does not match it."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "verify"))
    from verify_landing import edit_records

    root = corpus_copy()
    [path] = [p for p in sorted((root / SID / "streams" / "main").glob("transcript-*.sd")) if b'"out":4658' in p.read_bytes()]
    edit_records(path, lambda recs: [r.replace(b'"out":4658', b'"out":9999') for r in recs], fix_closing=True)
    usage, _ = transcript_truth(sessions_of(corpus_dir / "claude-code" / "projects")[SID])
    p = _run(root, "usage", "monthly", "--json")
    assert p.returncode == 1, p.stdout + p.stderr
    rows = json.loads(p.stdout)
    assert sum(r["usage"]["out"] for r in rows) == ANCHOR["out"] - usage["out"]
    assert [(h["conversation"], h["state"]) for r in rows for h in r.get("held_back", ())] == [(SID, "mismatch")]


DELETED = "0d3a8e6f-290f-4105-a327-a2496e5e2a83"


@pytest.fixture(scope="module")
def two_damaged(corpus_dir, corpus_copy):
    """A corpus root with DELETED's landed transcript removed and one byte of SID's changed (the new-user trial)."""
    root = corpus_copy()
    for p in (root / DELETED / "streams" / "main").glob("transcript-*.sd"):
        p.unlink()
    [path] = [p for p in sorted((root / SID / "streams" / "main").glob("transcript-*.sd")) if b'"out":4658' in p.read_bytes()]
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    path.write_bytes(path.read_bytes().replace(b'"out":4658', b'"out":9999'))
    sessions = sessions_of(corpus_dir / "claude-code" / "projects")
    return root, {s: transcript_truth(sessions[s]) for s in (DELETED, SID)}


@pytest.mark.parametrize("view", ["daily", "monthly", "session", "project"])
def test_a_deleted_landed_file_is_held_back_as_a_damaged_one(two_damaged, view):
    """Every view: the calls of the conversation whose file is gone are held back (counted from its chain, as many as
    its transcript holds), named with why, and marked on a row; the totals are the corpus's without both."""
    root, truth = two_damaged
    p = _run(root, "usage", view, "--tz", "UTC", "--json")
    assert p.returncode == 1, p.stdout + p.stderr
    rows = json.loads(p.stdout)
    for k in KINDS:
        assert sum(r["usage"][k] for r in rows) == ANCHOR[k] - sum(u[k] for u, _ in truth.values()), k
    assert sum(r["calls"] for r in rows) == ANCHOR_CALLS - sum(n for _, n in truth.values())
    held: dict[str, int] = {}
    for h in (h for r in rows for h in r.get("held_back", ())):
        held[h["conversation"]] = held.get(h["conversation"], 0) + h["calls"]
    assert held == {DELETED: truth[DELETED][1], SID: truth[SID][1]}
    [gone] = {h["why"] for r in rows for h in r.get("held_back", ()) if h["conversation"] == DELETED}
    assert gone == f"round 1: landed file seq 1 of session {DELETED} is missing"
    assert f"conversation {DELETED} does not verify (incomplete): its {truth[DELETED][1]} call(s) are held back" in p.stderr
    if view == "daily":  # the chain's first record is on 2025-07-05 (the transcript's first line)
        [row] = [r for r in rows if any(h["conversation"] == DELETED for h in r.get("held_back", ()))]
        assert row["date"] == "2025-07-05"
    text = _run(root, "usage", view, "--tz", "UTC")
    assert text.returncode == 1
    line = next(x for x in text.stdout.splitlines() if x.startswith("! held back"))
    assert f"{DELETED[:8]} (incomplete, {truth[DELETED][1]} call(s): round 1: landed file seq 1 of session {DELETED} is missing)" in line
    assert f"{SID[:8]} (mismatch, {truth[SID][1]} call(s): landed file " in line
    assert sum(1 for x in text.stdout.splitlines() if x.split("  ")[0].endswith("!")) >= 1


def test_a_window_of_other_days_names_no_held_back_conversation_on_the_page(tampered, corpus_dir):
    """Trial 39d F1 on the page (review 40): ``/api/usage`` for a window wholly after the tampered conversation's last
    record named it under ``held_back`` (the page's 'Held back, in no figure' note), while ``asz usage`` for the same
    window holds it back on no row. Its range is read from its source files' timestamps; a window holding it names it."""
    import datetime as dt
    import threading

    from asz_core.view.server import ViewState

    root, _, _ = tampered
    files = sessions_of(corpus_dir / "claude-code" / "projects")[SID]
    last = max(t for f in files for ln in f.read_bytes().splitlines() if isinstance(t := json.loads(ln).get("timestamp"), str))
    day = (dt.datetime.fromisoformat(last.replace("Z", "+00:00")) + dt.timedelta(days=1)).date().isoformat()
    after = int(dt.datetime.fromisoformat(day + "T00:00:00+00:00").timestamp() * 1000)
    state = ViewState(root)
    state.check_all(threading.Event(), pause=0)
    assert state.usage()["held_back"] == [{"conversation": SID, "name": SID[:8], "state": "mismatch"}]
    page = state.usage(since=after)
    assert page["held_back"] == [] and page["total"]["calls"] > 0  # the window holds other conversations' calls
    cli = json.loads(_run(root, "usage", "daily", "--since", day, "--tz", "UTC", "--json").stdout)
    assert sum(r["calls"] for r in cli) == page["total"]["calls"] and not any("held_back" in r for r in cli)
    assert state.usage(until=after)["held_back"] == [{"conversation": SID, "name": SID[:8], "state": "mismatch"}]
