"""No built document is written to disk (seed 004, "Reading it": "The page writes nothing derived to disk, such as a
read index. It folds the chain when asked"): after the page opened a conversation and the checker ran, no ``.doc``
and no headings file is anywhere under the root; what is kept is the record of what each build found
(``_index/found``, :mod:`asz_core.view.found_store`). A restarted server builds the document again, byte for byte a
fresh build; a record of other code, files or prices is never read; an old root's ``_index/documents/`` (session 21)
is deleted when a server starts; retention deletes the records with the text.

Real parts: the canary session written as Claude Code writes it, the real ``asz collect`` and parse, real ``asz view``
processes on loopback, the real ``asz prune``; the page drawn in a real headless Chromium when one is installed.
"""

from __future__ import annotations

import gzip
import os
import time

import orjson

from asz_core.sessiondata.jsonbytes import dumps_wide
from asz_core.view.document import build_view
from asz_core.view.found_store import DIR, OLD_DIR, FoundStore
from asz_core.view.state import ViewState
from view_server_helpers import CANARY_SESSION, Served, asz, canary_lines, collect_and_parse, second_talk_lines, write_session

V = f"/api/c/{CANARY_SESSION}"
RECORD = DIR / CANARY_SESSION / "-.found"


def _canary(tmp_path):
    src, root = tmp_path / "projects", tmp_path / "root"
    write_session(src, canary_lines())
    collect_and_parse(src, root)
    return src, root


def _derived_files(root) -> list[str]:
    """Every file under ``<root>/_index`` (walked: nothing skipped), relative to the root."""
    out = []
    for d, _, names in os.walk(root / "_index"):
        out += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return sorted(out)


def _no_document_on_disk(root, headings: bytes, body: bytes) -> None:
    """No ``.doc`` file, no ``_index/documents`` and no file holding the document or its headings anywhere under the
    root (the whole root walked, the landed evidence included)."""
    assert not (root / OLD_DIR).exists()
    for d, _, names in os.walk(root):
        for n in names:
            assert not n.endswith(".doc"), os.path.join(d, n)
            if "_index" in d and not n.endswith((".sqlite", ".sqlite-wal", ".sqlite-shm")):
                data = open(os.path.join(d, n), "rb").read()
                assert headings not in data and body[:4000] not in data, os.path.join(d, n)


def _record(root, head_round: int = 1, timeout: float = 30.0) -> dict:
    """The record's header once it is there for ``head_round`` (a request writes it by a thread of its own)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            meta = orjson.loads((root / RECORD).read_bytes().split(b"\n", 1)[0])
            if meta["reached"].startswith(f"r{head_round:06d}-"):
                return meta
        except (FileNotFoundError, KeyError):
            pass
        assert time.monotonic() < deadline, f"no record of round {head_round} at {root / RECORD}"
        time.sleep(0.02)


def _opened(s: Served) -> tuple[bytes, bytes]:
    """The document (asked without gzip) and the headings, as a page asks them."""
    view, headings = s.get(f"{V}/view"), s.get(f"{V}/headings")
    assert view.status == 200 and headings.status == 200 and "content-encoding" not in view.headers
    return view.body, headings.body


def _listed_state(s: Served, timeout: float = 60.0) -> str:
    """The canary row's state once this server knows it (from the record, the checker or the page's build; not a kept
    list row's, ``state_from`` ``kept``)."""
    deadline = time.monotonic() + timeout
    while (row := s.get("/api/conversations").json()["conversations"][0]).get("state_from") != "checked":
        assert time.monotonic() < deadline, s.output()
        time.sleep(0.05)
    return row["state"]


def test_no_document_is_written_and_a_restart_builds_it_again_byte_for_byte(tmp_path):
    src, root = _canary(tmp_path)
    first = Served(["view", "--root", str(root)], tmp_path)
    try:
        body, headings = _opened(first)
        assert first.get("/api/status").json()["documents_built"] == 1
        assert _listed_state(first) == "verified" and _record(root)["state"] == "verified"
    finally:
        first.stop()
    fresh = dumps_wide(build_view(root, CANARY_SESSION))
    assert body == fresh
    _no_document_on_disk(root, headings, body)
    assert [f for f in _derived_files(root) if f.startswith(str(DIR))] == [str(RECORD)]  # what the build found

    later = Served(["view", "--root", str(root)], tmp_path)  # a restarted server: the state read, the document built
    try:
        assert _listed_state(later) == "verified"  # read from the record: nothing built yet
        assert later.get("/api/status").json()["documents_built"] == 0
        assert _opened(later) == (fresh, headings)
        zipped = later.get(f"{V}/view", {"accept-encoding": "gzip"})
        assert zipped.headers["content-encoding"] == "gzip" and gzip.decompress(zipped.body) == fresh
        assert zipped.headers["etag"] == later.get(f"{V}/view").headers["etag"]
        assert later.get("/api/status").json()["documents_built"] == 1  # folded when asked (seed 004)

        write_session(src, second_talk_lines(), append=True)  # the chain grows: round 2
        collect_and_parse(src, root)
        grown, grown_headings = _opened(later)
        assert orjson.loads(grown)["head"]["round"] == 2 and grown == dumps_wide(build_view(root, CANARY_SESSION))
        assert grown_headings != headings and later.get("/api/status").json()["documents_built"] == 2
        assert _record(root, 2)["state"] == "verified"  # the record of round 1 replaced
        _no_document_on_disk(root, grown_headings, grown)
    finally:
        later.stop()


def test_a_record_of_other_code_files_or_prices_is_never_read(tmp_path):
    _, root = _canary(tmp_path)
    state = ViewState(root)
    state.prepare(CANARY_SESSION, ())  # built, what it found kept
    fp = state.fingerprint(CANARY_SESSION)
    store = FoundStore(root)
    assert store.found(CANARY_SESSION, (), fp, None)["state"] == "verified"
    assert store.found(CANARY_SESSION, (), fp, "another price table") is None  # read as stale: deleted
    assert not (root / RECORD).exists()
    state.prepare(CANARY_SESSION, ())
    assert FoundStore(root, mark="0123456789abcdef").found(CANARY_SESSION, (), fp, None) is None  # other code
    state.prepare(CANARY_SESSION, ())
    landed = sorted((root / CANARY_SESSION).rglob("*.sd"))[0]
    st = landed.stat()
    os.utime(landed, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # the same bytes, another mtime
    assert store.found(CANARY_SESSION, (), state.fingerprint(CANARY_SESSION), None) is None
    state.prepare(CANARY_SESSION, ())
    raw = (root / RECORD).read_bytes()
    (root / RECORD).write_bytes(raw[:-1] + bytes([raw[-1] ^ 1]))  # one byte of the seal changed
    assert store.found(CANARY_SESSION, (), state.fingerprint(CANARY_SESSION), None) is None


def test_an_old_roots_kept_documents_are_deleted_when_a_server_starts(tmp_path):
    _, root = _canary(tmp_path)
    old = root / OLD_DIR / CANARY_SESSION
    old.mkdir(parents=True)
    (old / "-.doc").write_bytes(b"asz-document-entry/1 of session 21")
    s = Served(["view", "--root", str(root)], tmp_path)
    try:
        deadline = time.monotonic() + 30
        while (root / OLD_DIR).exists():
            assert time.monotonic() < deadline, s.output()
            time.sleep(0.05)
        assert s.get(f"{V}/view").status == 200
    finally:
        s.stop()


def test_prune_deletes_what_was_kept_of_what_it_removed(tmp_path):
    _, root = _canary(tmp_path)
    ViewState(root).prepare(CANARY_SESSION, ())
    (root / OLD_DIR / CANARY_SESSION).mkdir(parents=True)  # a root session 21's code served, no server since
    (root / OLD_DIR / CANARY_SESSION / "-.doc").write_bytes(b"text")
    assert (root / RECORD).is_file()
    (tmp_path / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz("prune", "--root", str(root), "--config", str(tmp_path / "asz.yaml"))
    assert not (root / DIR / CANARY_SESSION).exists() and not (root / OLD_DIR / CANARY_SESSION).exists()


def test_the_page_is_drawn_and_nothing_of_it_is_written(tmp_path, browser):
    from test_view_server_browser import go, wait

    from selenium.webdriver.common.by import By

    _, root = _canary(tmp_path)
    s = Served(["view", "--root", str(root)], tmp_path)
    try:
        go(browser, f"{s.base}/c/{CANARY_SESSION}")
        talks = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "section.talk"))
        assert len(talks) == 1
        assert _listed_state(s) == "verified"
        body, headings = _opened(s)
        _record(root)
    finally:
        s.stop()
    _no_document_on_disk(root, headings, body)


def test_no_record_is_read_or_written_through_a_link(tmp_path):
    _, root = _canary(tmp_path)
    state = ViewState(root)
    state.prepare(CANARY_SESSION, ())
    elsewhere = tmp_path / "elsewhere"
    (root / DIR / CANARY_SESSION).rename(elsewhere)  # the record moved out of the root, a link left in its place
    (root / DIR / CANARY_SESSION).symlink_to(elsewhere, target_is_directory=True)
    fp = state.fingerprint(CANARY_SESSION)
    assert FoundStore(root).found(CANARY_SESSION, (), fp, None) is None  # a whole record there, not read
    (elsewhere / "-.found").unlink()
    ViewState(root).prepare(CANARY_SESSION, ())  # built, and not kept through the link
    assert list(elsewhere.iterdir()) == []
    assert (root / DIR / CANARY_SESSION).is_symlink()


def test_a_sealed_record_of_another_shape_is_built_again(tmp_path):
    """A record whose seal and key match but whose header lacks what this code writes (made by hand, or by a later
    format under the same name) is a miss: the conversation is checked again, never a 500."""
    _, root = _canary(tmp_path)
    state = ViewState(root)
    d = state.prepare(CANARY_SESSION, ())
    FoundStore(root).write(CANARY_SESSION, (), d.fp, None, {"state": "verified"})
    again = ViewState(root)
    assert again.check_one(CANARY_SESSION, again.newest_round(CANARY_SESSION)) is True  # built
    assert again.kept_read == 0 and again.known_state(CANARY_SESSION) == "verified"
    assert again.document(CANARY_SESSION, ()).body == dumps_wide(build_view(root, CANARY_SESSION))
