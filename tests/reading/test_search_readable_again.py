"""A landed file the search index could not read is read by the next pass once it can be (the review of session
27: the index kept "the file cannot be read" until its conversation's newest round changed, so a file made readable
again by a chmod was never searched).

Real input: two corpus sessions (de3b8b19 and 55604662) collected by the real ``asz collect --once``; 55604662's one
transcript file made unreadable (mode 000), searched, then made readable again and searched. The word, ``phx``, is in
55604662's source transcript (its prompt, ``mix phx.server doesnt seem to start``) and not in de3b8b19's, read here
from the source files. The readers run as test_landed_file_unreadable.py runs them (``setpriv`` as root).
"""

from __future__ import annotations

import json

from reading_helpers import collected_root
from test_landed_file_unreadable import KEPT, PROJECT, PROJECTS, SHUT, _asz

WORD = "phx"


def test_a_file_made_readable_again_is_searched_by_the_next_pass(corpus_source, tmp_path):
    assert WORD in (corpus_source / "-home-user-spotter" / f"{SHUT}.jsonl").read_text()
    assert WORD not in (corpus_source / PROJECT / f"{KEPT}.jsonl").read_text().lower()
    r = collected_root(corpus_source, tmp_path, PROJECTS)
    for p in (r / "_index").glob("search-*"):  # the index collect --once kept goes: built while the file is shut
        p.unlink()
    [shut] = sorted((r / SHUT / "streams" / "main").glob("transcript-*.sd"))
    shut.chmod(0)
    try:
        before = _asz("search", WORD, "--root", str(r), "--json")
    finally:
        shut.chmod(0o444)
    rel = shut.relative_to(r).as_posix()
    assert f"{rel} not searched: the file cannot be read" in before.stdout + before.stderr, before.stderr
    assert json.loads(before.stdout) == []  # nothing of it was searched
    after = _asz("search", WORD, "--root", str(r), "--json")  # the round did not change: the file's stat did
    assert after.returncode == 0, after.stderr
    assert "cannot be read" not in after.stdout + after.stderr
    hits = json.loads(after.stdout)
    assert hits and {h["conversation"] for h in hits} == {SHUT} and {h["file"] for h in hits} == {rel}
