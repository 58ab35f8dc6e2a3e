"""Built documents kept under ``_index/documents`` (issue 22, session 21: a conversation's page opened on a server that
did not build it reads a file): what a later server answers from an entry is, byte for byte, what a fresh build gives;
a new round, other code or another price table makes the entry unread; retention deletes it with the text.

Real parts: the canary session written as Claude Code writes it, the real ``asz collect`` and parse, real ``asz view``
processes on loopback, the real ``asz prune``; the page drawn in a real headless Chromium when one is installed.
"""

from __future__ import annotations

import gzip
import os
import time

import orjson
import pytest

from asz_core.sessiondata.jsonbytes import dumps_wide
from asz_core.view.doc_store import DIR, DocumentStore
from asz_core.view.document import build_view
from asz_core.view.state import ViewState
from view_server_helpers import CANARY_SESSION, Served, asz, canary_lines, collect_and_parse, second_talk_lines, write_session

V = f"/api/c/{CANARY_SESSION}"
ENTRY = DIR / CANARY_SESSION / "-.doc"


def _canary(tmp_path):
    src, root = tmp_path / "projects", tmp_path / "root"
    write_session(src, canary_lines())
    collect_and_parse(src, root)
    return src, root


def _kept(root, head_round: int = 1, timeout: float = 30.0) -> dict:
    """The entry's header once it is there for ``head_round``: a reader's request keeps it by a thread of its own,
    after its answer."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            meta = orjson.loads((root / ENTRY).read_bytes().split(b"\n", 1)[0])
            if meta["head_round"] == head_round:
                return meta
        except FileNotFoundError:
            pass
        assert time.monotonic() < deadline, f"no entry of round {head_round} at {root / ENTRY}"
        time.sleep(0.02)


def _opened(s: Served) -> tuple[bytes, bytes]:
    """The document (asked without gzip) and the headings, as a page asks them."""
    view, headings = s.get(f"{V}/view"), s.get(f"{V}/headings")
    assert view.status == 200 and headings.status == 200 and "content-encoding" not in view.headers
    return view.body, headings.body


def test_a_kept_document_is_a_fresh_build_byte_for_byte_and_a_new_round_replaces_it(tmp_path):
    src, root = _canary(tmp_path)
    first = Served(["view", "--root", str(root)], tmp_path)
    try:
        body, headings = _opened(first)
        assert first.get("/api/status").json()["documents_built"] == 1
        _kept(root)  # kept once both answers were made
    finally:
        first.stop()
    fresh = dumps_wide(build_view(root, CANARY_SESSION))
    assert body == fresh

    later = Served(["view", "--root", str(root)], tmp_path)  # a restarted server: reads the entry, builds nothing
    try:
        assert _opened(later) == (fresh, headings)
        zipped = later.get(f"{V}/view", {"accept-encoding": "gzip"})
        assert zipped.headers["content-encoding"] == "gzip" and gzip.decompress(zipped.body) == fresh
        assert zipped.headers["etag"] == later.get(f"{V}/view").headers["etag"]
        assert later.get("/api/status").json()["documents_built"] == 0
        row = later.get("/api/conversations").json()["conversations"][0]
        assert row["state"] == "verified"  # the state a build finds, kept with the entry

        write_session(src, second_talk_lines(), append=True)  # the chain grows: round 2
        collect_and_parse(src, root)
        grown, grown_headings = _opened(later)
        assert orjson.loads(grown)["head"]["round"] == 2 and grown == dumps_wide(build_view(root, CANARY_SESSION))
        assert grown_headings != headings and later.get("/api/status").json()["documents_built"] == 1
        etag = later.get(f"{V}/view").headers["etag"]
        assert _kept(root, 2)["etag"] == etag  # the entry of round 1 replaced
    finally:
        later.stop()


def test_an_entry_of_other_code_files_or_prices_is_never_read(tmp_path):
    _, root = _canary(tmp_path)
    state = ViewState(root)
    state.prepare(CANARY_SESSION, ())  # built and kept
    fp = state.fingerprint(CANARY_SESSION)
    store = DocumentStore(root)
    assert store.read(CANARY_SESSION, (), fp, None) is not None
    assert store.read(CANARY_SESSION, (), fp, "another price table") is None  # read as stale: deleted
    assert not (root / ENTRY).exists()
    state.prepare(CANARY_SESSION, ())
    assert DocumentStore(root, mark="0123456789abcdef").read(CANARY_SESSION, (), fp, None) is None  # other code
    state.prepare(CANARY_SESSION, ())
    landed = sorted((root / CANARY_SESSION).rglob("*.sd"))[0]
    st = landed.stat()
    os.utime(landed, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # the same bytes, another mtime
    assert store.read(CANARY_SESSION, (), state.fingerprint(CANARY_SESSION), None) is None
    state.prepare(CANARY_SESSION, ())
    raw = (root / ENTRY).read_bytes()
    (root / ENTRY).write_bytes(raw[:-1] + bytes([raw[-1] ^ 1]))  # one byte of the headings changed
    assert store.read(CANARY_SESSION, (), state.fingerprint(CANARY_SESSION), None) is None


def test_the_bound_keeps_the_most_recent_conversations(tmp_path):
    _, root = _canary(tmp_path)
    state = ViewState(root)
    d = state.prepare(CANARY_SESSION, ())
    size = (root / ENTRY).stat().st_size
    (root / ENTRY).unlink()  # only the entries below
    store = DocumentStore(root, max_bytes=size * 2 + 10)
    args = (d.fp, None, d.entry_meta(), state.gzipped(d), d.headings)
    assert store.write("older", (), *args, 1_000) and store.write("newer", (), *args, 3_000)
    assert not store.write("oldest", (), *args, 500)  # older than every entry kept: not written
    assert store.write("newest", (), *args, 4_000)  # the oldest kept makes room
    kept = sorted(p.parent.name for p in (root / DIR).glob("*/*.doc"))
    assert kept == ["newer", "newest"]


def test_prune_deletes_the_kept_documents_of_what_it_removed(tmp_path):
    _, root = _canary(tmp_path)
    s = Served(["view", "--root", str(root)], tmp_path)
    try:
        _opened(s)
        _kept(root)
    finally:
        s.stop()
    (tmp_path / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz("prune", "--root", str(root), "--config", str(tmp_path / "asz.yaml"))
    assert not (root / DIR / CANARY_SESSION).exists()


def test_the_page_is_drawn_from_a_kept_document(tmp_path, browser):
    from test_view_server_browser import go, wait

    from selenium.webdriver.common.by import By

    _, root = _canary(tmp_path)
    ViewState(root).prepare(CANARY_SESSION, ())  # as the checker keeps it, in the worker
    s = Served(["view", "--root", str(root)], tmp_path)
    try:
        go(browser, f"{s.base}/c/{CANARY_SESSION}")
        talks = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "section.talk"))
        assert len(talks) == 1
        assert s.get("/api/status").json()["documents_built"] == 0
    finally:
        s.stop()


def test_no_entry_is_read_or_written_through_a_link(tmp_path):
    _, root = _canary(tmp_path)
    state = ViewState(root)
    state.prepare(CANARY_SESSION, ())
    elsewhere = tmp_path / "elsewhere"
    (root / DIR / CANARY_SESSION).rename(elsewhere)  # the entry moved out of the root, a link left in its place
    (root / DIR / CANARY_SESSION).symlink_to(elsewhere, target_is_directory=True)
    fp = state.fingerprint(CANARY_SESSION)
    assert DocumentStore(root).read(CANARY_SESSION, (), fp, None) is None  # a whole entry there, not read
    (elsewhere / "-.doc").unlink()
    again = ViewState(root).prepare(CANARY_SESSION, ())  # built, and not kept through the link
    assert again.headings and list(elsewhere.iterdir()) == []
    assert (root / DIR / CANARY_SESSION).is_symlink()


def test_a_sealed_entry_of_another_shape_is_built_again(tmp_path):
    """An entry whose seal and key match but whose header lacks what this code writes (made by hand, or by a later
    format under the same name) is a miss: the document is built, never a 500."""
    _, root = _canary(tmp_path)
    state = ViewState(root)
    d = state.prepare(CANARY_SESSION, ())
    DocumentStore(root).write(CANARY_SESSION, (), d.fp, None, {"etag": d.etag}, state.gzipped(d), d.headings, 0)
    again = ViewState(root)
    assert again.document(CANARY_SESSION, ()).body == dumps_wide(build_view(root, CANARY_SESSION))
    assert again.builds == 1 and again.kept_read == 0
