"""A restarted server checks only what changed, and never calls a file changed while it was down verified (trial 21).

The background checker's result is kept in a record of what each build found under ``_index/found`` (found_store; never
the document, seed 004), keyed by the files' fingerprint (name, size, mtime, change time and inode of every round and
landed file). Real parts: the canary
and the bundled example sessions collected by the real ``asz collect``, real ``asz view`` processes stopped and
started again, a landed file's byte flipped with its size and mtime put back between the two.
"""

from __future__ import annotations

import os
import shutil
import time

import orjson
import pytest

from asz_core.view.found_store import DIR
from view_server_helpers import CANARY_SESSION, EXAMPLE, EXAMPLE_SESSION, Served, canary_lines, collect_and_parse, write_session


def _states(s: Served, timeout: float = 90.0) -> dict[str, str]:
    """Every listed conversation's state once the checker found them all (generous wait: a shared machine)."""
    deadline = time.monotonic() + timeout
    while True:
        rows = s.get("/api/conversations").json()["conversations"]
        if rows and all(r.get("state") and r.get("state_from") == "checked" for r in rows):  # not a kept row's (trial 22b)
            return {r["id"]: r["state"] for r in rows}
        assert time.monotonic() < deadline, f"states not found within {timeout:g} s: {rows}\n{s.output()}"
        time.sleep(0.2)


@pytest.mark.slow  # 13 s at load 20: two servers over two sessions, the restart the trial measured
def test_a_file_changed_while_the_server_was_down_is_caught_at_its_next_start(tmp_path):
    src, root = tmp_path / "projects", tmp_path / "root"
    write_session(src, canary_lines())
    shutil.copytree(EXAMPLE / "-home-dev-hello-app", src / "-home-dev-hello-app")
    collect_and_parse(src, root)
    entries = {c: root / DIR / c / "-.found" for c in (CANARY_SESSION, EXAMPLE_SESSION)}
    first = Served(["view", "--root", str(root)], tmp_path)
    try:
        assert _states(first) == {CANARY_SESSION: "verified", EXAMPLE_SESSION: "verified"}
    finally:
        first.stop()
    kept = {c: os.stat(p) for c, p in entries.items()}  # the checker kept both records
    written = [os.path.join(d, n) for d, _, names in os.walk(root) for n in names]
    assert not [p for p in written if p.endswith((".doc", ".tmp")) or "/_index/documents" in p]  # no document (seed 004)

    landed = max((root / CANARY_SESSION).rglob("*.sd"), key=lambda p: p.stat().st_size)
    st = landed.stat()
    os.chmod(landed, 0o644)
    raw = bytearray(landed.read_bytes())
    at = raw.index(b'"Second', 0) if b'"Second' in raw else len(raw) // 2
    raw[at + 2] ^= 0x01  # one byte of a record changed in place: same size
    landed.write_bytes(bytes(raw))
    os.chmod(landed, 0o444)
    os.utime(landed, ns=(st.st_atime_ns, st.st_mtime_ns))  # the mtime put back: only the change time tells
    assert landed.stat().st_size == st.st_size and landed.stat().st_mtime_ns == st.st_mtime_ns

    later = Served(["view", "--root", str(root)], tmp_path)
    try:
        states = _states(later)
        assert states[EXAMPLE_SESSION] == "verified"
        assert states[CANARY_SESSION] != "verified"  # caught at the start, never read from the record
        doc = later.get(f"/api/c/{CANARY_SESSION}/view").json()
        assert doc["summary"]["state"] == states[CANARY_SESSION]
    finally:
        later.stop()
    unchanged = os.stat(entries[EXAMPLE_SESSION])  # read, not built and written again
    assert (unchanged.st_ino, unchanged.st_mtime_ns) == (kept[EXAMPLE_SESSION].st_ino, kept[EXAMPLE_SESSION].st_mtime_ns)
    if entries[CANARY_SESSION].exists():  # built again from the files as they are: the record says what they gave
        meta = orjson.loads(entries[CANARY_SESSION].read_bytes().split(b"\n", 1)[0])
        assert meta["state"] == states[CANARY_SESSION]


def test_a_restart_reads_what_each_build_found_and_builds_what_changed(tmp_path):
    """What a build found (state, summary, usage per hour) is kept in a small record, so the next start reads it
    instead of building; a file changed since is built again. No document is written. The collect's own pass kept
    the record first, the same figures as a build's."""
    from asz_core.view.state import ViewState

    src, root = tmp_path / "projects", tmp_path / "root"
    write_session(src, canary_lines())
    collect_and_parse(src, root)

    kept = ViewState(root)  # the collect's pass kept what its row's build found (kept_whole, session 47): read
    assert kept.check_one(CANARY_SESSION, kept.newest_round(CANARY_SESSION)) is False and kept.kept_read == 1
    (root / DIR / CANARY_SESSION / "-.found").unlink()  # derived data gone: built, and kept again
    first = ViewState(root)
    assert first.check_one(CANARY_SESSION, first.newest_round(CANARY_SESSION)) is True  # built
    assert first.usage()["total"] == kept.usage()["total"]
    assert sorted(p.name for p in (root / DIR / CANARY_SESSION).iterdir()) == ["-.found"]
    later = ViewState(root)
    assert later.check_one(CANARY_SESSION, later.newest_round(CANARY_SESSION)) is False  # read, not built
    assert later.known_state(CANARY_SESSION) == "verified" and later.kept_read == 1
    assert later.usage()["total"] == first.usage()["total"] and later.usage()["total"]["calls"] > 0
    landed = max((root / CANARY_SESSION).rglob("*.sd"), key=lambda p: p.stat().st_size)
    st = landed.stat()
    os.chmod(landed, 0o644)
    raw = bytearray(landed.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    landed.write_bytes(bytes(raw))
    os.utime(landed, ns=(st.st_atime_ns, st.st_mtime_ns))
    third = ViewState(root)
    assert third.check_one(CANARY_SESSION, third.newest_round(CANARY_SESSION)) is True  # changed: built again
    assert third.known_state(CANARY_SESSION) != "verified"
