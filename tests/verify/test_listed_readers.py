"""A session the root's ``_sessions.list`` names whose directory is gone or emptied is said by ``asz ls`` and
``asz usage`` (one ``note:`` line on stderr, stdout unchanged in shape) and by ``asz verify SESSION`` (a ``missing
session`` problem at the list's line, exit 1), as the whole-root ``asz verify`` says it (docs/verify.md, Sessions
removed whole; docs/reading.md).

Real input: the Claude Code corpus collected by the real ``asz collect --once`` (tests/conftest.py ``corpus_copy``);
every command runs in the test's process (test_verify_listed.py's ``asz``). The expected ids and lines are read from
the corpus's file names and the list file's own text, never from asz's code.
"""

from __future__ import annotations

import json
import shutil

from test_verify_listed import SID, asz, corpus_sessions, list_lines


def _remove_whole(root):
    shutil.rmtree(root / SID)
    for p in (root / "_conversations").glob(SID + "*"):
        shutil.rmtree(p)


def _note(root, n: int, ids: str) -> str:
    return (f"note: {n} session(s) listed in {root}/_sessions.list as landed are missing: their directory is gone or "
            f"holds no landed file, so their calls are in no figure here: {ids}; asz verify --root {root} names them")


def test_ls_and_usage_say_a_listed_session_that_is_gone_on_stderr_only(corpus_copy, corpus_dir):
    root = corpus_copy()
    sessions = corpus_sessions(corpus_dir / "claude-code" / "projects")
    for args in (["ls"], ["ls", "--json"], ["usage"], ["usage", "--json"]):
        clean = asz(*args, "--root", str(root))
        assert clean.returncode == 0 and "_sessions.list" not in clean.stderr, clean.stderr  # nothing missing: no note
    before = {a: asz(a, "--root", str(root), "--json").stdout for a in ("ls", "usage")}
    _remove_whole(root)
    for args in (["ls"], ["ls", "--json"], ["usage"], ["usage", "--json"]):
        p = asz(*args, "--root", str(root))
        assert p.returncode == 0, p.stdout + p.stderr
        assert [ln for ln in p.stderr.splitlines() if "_sessions.list" in ln] == [_note(root, 1, SID)]
        assert "_sessions.list" not in p.stdout
    rows = json.loads(asz("ls", "--root", str(root), "--json").stdout)  # stdout stays one JSON document
    assert sorted(r["id"] for r in rows) == sorted(sessions - {SID})
    assert sorted(rows[0]) == sorted(json.loads(before["ls"])[0])  # the same keys as before
    usage = json.loads(asz("usage", "--root", str(root), "--json").stdout)
    assert sorted(usage[0]) == sorted(json.loads(before["usage"])[0])


def test_ls_notes_a_listed_session_emptied_of_its_landed_files(corpus_copy):
    root = corpus_copy()
    other = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("_") and p.name != SID)[0]
    for sid in (SID, other):
        for sub in ("streams", "runs", "provider_body"):
            shutil.rmtree(root / sid / sub, ignore_errors=True)
    p = asz("ls", "--root", str(root))
    ids = ", ".join(ln.split()[0] for ln in list_lines(root) if ln.split()[0] in (SID, other))  # in the list's order
    assert [ln for ln in p.stderr.splitlines() if "_sessions.list" in ln] == [_note(root, 2, ids)]


def test_verify_session_says_a_listed_session_that_is_gone(corpus_copy):
    root = corpus_copy()
    ok = asz("verify", SID, "--root", str(root))
    assert ok.returncode == 0 and "missing session" not in ok.stdout, ok.stdout + ok.stderr
    _remove_whole(root)
    (line, text), = [(i, ln) for i, ln in enumerate(list_lines(root), 1) if ln.startswith(SID + " ")]
    at, adapter = text.split()[1:]
    v = asz("verify", SID, "--root", str(root))
    assert v.returncode == 1, v.stdout + v.stderr
    assert [ln for ln in v.stdout.splitlines() if "missing session" in ln] == [
        f"{root}/_sessions.list:{line}: missing session: session {SID} (first landed {at} by {adapter}) is listed as "
        f"landed into this root, but its directory {root}/{SID} is gone; its chain is gone too: the session was removed "
        "after it landed, and no reader shows it; if it was collected into this root and its source is still there, "
        f"asz collect --once --root {root} lands it again from the source as it is now (adapter claude-code-local; "
        "--source the folder it was collected from, when that is not the default); only a copy held elsewhere (a "
        "receiver asz push sent it to, a backup) brings back what landed byte for byte"]
    j = json.loads(asz("verify", SID, "--root", str(root), "--json").stdout)
    assert j["ok"] is False and j["missing_sessions"] == 1 and j["sessions"] == 0
    # neither listed nor present: today's usage error
    u = asz("verify", "0000aaaa-0000-4000-8000-000000000001", "--root", str(root))
    assert u.returncode == 2 and u.stderr.strip() == f"asz verify: {root}: no session '0000aaaa-0000-4000-8000-000000000001'"


def test_verify_session_says_a_listed_session_emptied_and_leaves_the_others_alone(corpus_copy):
    root = corpus_copy()
    for sub in ("streams", "runs", "provider_body"):
        shutil.rmtree(root / SID / sub, ignore_errors=True)
    v = asz("verify", SID, "--root", str(root))
    assert v.returncode == 1
    (p,) = [ln for ln in v.stdout.splitlines() if ": missing session: " in ln]
    assert f"but its directory {root}/{SID} holds no landed file; its chain is still here ({root}/_conversations/{SID})" in p
    other = next(ln.split()[0] for ln in list_lines(root) if ln and not ln.startswith("#") and ln.split()[0] != SID)
    o = asz("verify", other, "--root", str(root))  # one session's verify holds only that one to its line
    assert o.returncode == 0 and "missing session" not in o.stdout, o.stdout


def test_the_pages_list_note_names_them_as_ls_does(corpus_copy):
    from starlette.testclient import TestClient

    from asz_core.view.server import ViewState, create_app

    root = corpus_copy()
    assert TestClient(create_app(ViewState(root)), base_url="http://127.0.0.1").get("/api/conversations").json()["note"] == ""
    _remove_whole(root)
    note = TestClient(create_app(ViewState(root)), base_url="http://127.0.0.1").get("/api/conversations").json()["note"]
    assert note == _note(root, 1, SID).removeprefix("note: ")
