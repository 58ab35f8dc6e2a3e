"""The page's API says an erased conversation was erased, not that it never was (trial 32b F7).

Real input: the Claude Code corpus collected and parsed by the real ``asz collect --once`` (tests/conftest.py), one
session erased by the real ``asz erase``; a real ``asz view`` on loopback asked for it by its id and by a prefix.
"""

from __future__ import annotations

import shutil
import sys

import forked

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"  # a corpus session ("Write a shell script called hello.sh …")
REASON = "request 2026-116"


def test_an_erased_id_is_said_erased_by_the_api(corpus_root, serve, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(corpus_root, root, symlinks=True)
    p = forked.run([sys.executable, "-m", "asz_core.cli.main", "erase", SID, "--root", str(root), "--reason", REASON],
                   capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    s = serve(root)
    for given in (SID, SID[:8]):
        res = s.get(f"/api/c/{given}/view")
        assert res.status == 404  # as for any id the root does not list: the status is the contract
        err = res.json()["error"]
        assert err.startswith(f"no conversation {given!r} in this storage root: session {SID} was erased on "), err
        assert f"({REASON}) with asz erase" in err and "_erased.list:2" in err, err
    res = s.get("/api/c/zzzzzzzz/view")  # a typo reads as before
    assert res.status == 404 and res.json()["error"] == "no conversation 'zzzzzzzz' in this storage root"
