"""A first open's headings answer reads its records from what the document's build read (issue 22, session 23): the
document as built (not its JSON decoded again) and the record lines of the landed files the round chain binds, while
each is the file listed for its seq and unchanged since, so no landed file is read and checked a second time
(``Doc.read``, ``LandedFiles.record``'s ``kept``). The answer is byte for byte the one read from the files. Real input:
the corpus root collected by the real ``asz collect --once`` (tests/conftest.py), its largest conversation 8463c716."""

from __future__ import annotations

import os

from starlette.testclient import TestClient

from asz_core.view.found_store import headings_of
from asz_core.view.server import ViewState, create_app
from asz_core.sessiondata.jsonbytes import dumps_wide

LARGEST = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
DEEP = "a7da6a22-facc-4fcd-8bab-f83c87862004"


def from_files(root, conversation: str) -> bytes:
    """The headings answer made by a server whose document keeps nothing its build read: every record read from disk."""
    state = ViewState(root)
    d = state.document(conversation, ())
    d.read = None
    got = dumps_wide(headings_of(state, conversation, d, ()))
    assert state.files._whole  # noqa: SLF001 — the landed files were read and checked
    return got


def test_a_first_open_reads_no_landed_file_again(corpus_copy):
    root = corpus_copy()
    state = ViewState(root)
    client = TestClient(create_app(state), base_url="http://127.0.0.1")
    assert client.get(f"/api/c/{LARGEST}/view").status_code == 200
    doc = state.document(LARGEST, ())
    assert doc.read is not None and len(doc.read[1]) == 5  # the five landed files of its session, bound by its chain
    heads = client.get(f"/api/c/{LARGEST}/headings")
    assert heads.status_code == 200 and heads.json()["headings"]
    assert not state.files._whole  # noqa: SLF001 — no landed file checked again: its records came from the build
    assert doc.read is None  # made: the build's reading is let go
    assert heads.content == from_files(root, LARGEST)


def test_a_file_changed_after_the_build_is_read_again(corpus_copy):
    root = corpus_copy()
    state = ViewState(root)
    d = state.document(DEEP, ())
    assert d.read is not None
    kept = dumps_wide(headings_of(state, DEEP, d, ()))
    assert not state.files._whole  # noqa: SLF001
    for landed in sorted((root / d.sessions[0]).rglob("*.sd")):  # each bound file's stat key changes, its bytes stay
        st = landed.stat()
        os.utime(landed, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    again = dumps_wide(headings_of(state, DEEP, d, ()))
    assert state.files._whole  # noqa: SLF001 — read and checked on disk, as any record request
    assert again == kept


def test_only_the_newest_document_keeps_what_its_build_read(corpus_copy):
    root = corpus_copy()
    state = ViewState(root)
    first = state.document(DEEP, ())
    second = state.document(LARGEST, ())
    assert first.read is None and second.read is not None
    assert state.headings(DEEP, ()) == from_files(root, DEEP)  # made from the files, the same bytes


def test_a_build_that_finds_what_is_kept_does_not_write_it_again(corpus_copy):
    """The checker's record (``prepare``) is not written again by a later build of the same files (session 23): the
    file stays the one written first (same inode and change time), its bytes what a build writes."""
    root = corpus_copy()
    ViewState(root).prepare(DEEP, ())
    state = ViewState(root)
    path = state.stored.path(DEEP, ())
    first = os.stat(path)
    d = state.prepare(DEEP, ())  # built again, the same files: the same record
    again = os.stat(path)
    assert (again.st_ino, again.st_ctime_ns) == (first.st_ino, first.st_ctime_ns)
    assert state.stored.found(DEEP, (), d.fp, None)["summary"] == d.summary
    os.utime(sorted((root / d.sessions[0]).rglob("*.sd"))[0])  # another fingerprint: another record, written
    state.prepare(DEEP, ())
    assert os.stat(path).st_ino != first.st_ino
