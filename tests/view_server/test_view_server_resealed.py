"""The record API and ``/api/search`` of a real ``asz view`` never serve a landed file written again whole with a closing
line of its own ("re-sealed"; trial 3), while they serve every other file.

Real input: the Claude Code corpus collected by the real ``asz collect --once`` (tests/conftest.py); one reply of
session 55604662's landed transcript changed to a text of the same length and its closing line recomputed, mode 0444
kept, so only the round chain (origin-digest §4.1 input digest) says it is not the file that was parsed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import quote

import pytest

import forked

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "verify"))
from verify_landing import edit_records  # noqa: E402

SID = "55604662-cf2a-4331-851a-ec234028f8ca"
#: What the agent replied in line 7 of the corpus's source transcript of SID (-home-user-spotter/55604662-….jsonl).
REPLY = b"try running the server"
ALTERED = b"try smashed the server"
#: A session whose transcript quotes the same reply in a tool result (never changed here).
OTHER = "8463c716-a2ea-4c14-9efa-87158ebd9f20"


@pytest.fixture(scope="module")
def resealed(corpus_copy):
    root = corpus_copy()
    (path,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    edit_records(path, lambda recs: [r.replace(REPLY, ALTERED) for r in recs], fix_closing=True)
    return root, path


def test_the_record_api_refuses_the_resealed_file_and_serves_the_others(resealed, serve):
    root, path = resealed
    s = serve(root)
    r = s.get(f"/api/c/{SID}/record/1/7")
    assert r.status == 409 and b"smashed" not in r.body
    err = r.json()["error"]
    assert err.startswith("landed file seq 1 does not verify against its round chain: it is not the file round 1 consumed as seq 1")
    assert "record row 7 differs from the one indexed when the file landed (line 8)" in err
    ok = s.get(f"/api/c/{OTHER}/record/1/1")
    assert ok.status == 200 and ok.json()["ord"] == 1


def test_api_search_leaves_out_the_hits_of_the_resealed_file(resealed, serve):
    root, path = resealed
    s = serve(root)
    rel = path.relative_to(root).as_posix()
    got = s.get("/api/search?q=smashed&held_back=1").json()
    assert got["hits"] == []
    (held,) = got["held_back"]["files"]  # the answer says what it left out and why
    assert held["file"] == rel and held["hits"] == 1
    assert held["problem"].startswith("it is not the file round 1 consumed as seq 1")
    hits = s.get("/api/search?q=" + quote('"try running the server"')).json()  # the plain answer: issue 20's list
    assert [h for h in hits if h["conversation"] == OTHER] and not [h for h in hits if h["file"] == rel]


def test_with_the_index_built_again_the_record_api_refuses_every_file_of_the_round(resealed, serve, tmp_path):
    """The session index built again from the changed file cannot say which file changed: the round's input digest
    still does not match, so the API refuses every record of the round's window, naming why."""
    import shutil

    root0, _ = resealed
    root = tmp_path / "root"
    shutil.copytree(root0, root, symlinks=True)
    shutil.rmtree(root / SID / "index")
    forked.run([sys.executable, "-m", "asz_core.cli.main", "parse", SID, "--root", str(root)], check=True,
               capture_output=True, timeout=300)
    s = serve(root)
    for row in (1, 7):  # the unchanged first record too: nothing of the window is evidence now
        r = s.get(f"/api/c/{SID}/record/1/{row}")
        assert r.status == 409
        assert "round 1's input digest over seq 1–1 does not match the landed files, and the session index cannot " \
               "tell which of them changed" in r.json()["error"]
    assert s.get(f"/api/c/{OTHER}/record/1/1").status == 200
