"""The session index's ``entries.jsonl`` under a write that is refused (a file system out of room: RLIMIT_FSIZE in a
child, EFBIG, as tests/collect/test_full_disk.py makes one) or stopped (a real SIGINT once its temporary exists,
tests/stop_at.py): a whole index is written through a temporary and renamed in, an append is cut back to the bytes
``index.state`` names, so neither leaves a cut ``entries.jsonl`` in place (fix41k: a refused rebuild left one, with no
``index.state``, that ``asz verify`` did not name) nor a temporary; the next write with room indexes every file."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from stop_at import sigint_once, temporaries

from asz_core.testing.asm_build import Conversation, SessionBuilder
from asz_core.flow.index import INDEX_SCHEMA, index_dir, update_index
from asz_core.storage.root import read_state, write_state
from asz_core.verify.session_files import session_file_problems

UPDATE = "import sys; from asz_core.flow.index import update_index; update_index(sys.argv[1])"


def _session(tmp_path: Path) -> tuple[SessionBuilder, Conversation]:
    b = SessionBuilder(tmp_path, "sess-1")
    c = Conversation()
    c.input("one " * 300)
    c.call("two " * 300, tool="Bash", result="three " * 300)
    c.land(b)
    return b, c


def _update_limited(sdir: Path, limit: int) -> subprocess.CompletedProcess:
    """:func:`update_index` of ``sdir`` in a child whose files cannot grow past ``limit`` bytes (SIGXFSZ ignored, so
    the write fails with EFBIG)."""
    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-c", UPDATE, str(sdir)], capture_output=True, text=True, timeout=120,
                          preexec_fn=limited)


def _older(d: Path) -> None:
    """The index's state made an older schema's, as an older asz wrote it: the next update rebuilds the whole index."""
    st = read_state(d / "index.state")
    write_state(d / "index.state", {**st, "schema": str(INDEX_SCHEMA - 1)}.items())


def _files(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.name != ".lock"}


def test_a_refused_rebuild_leaves_the_old_index_whole_and_no_temporary(tmp_path):
    b, _ = _session(tmp_path)
    d = index_dir(b.session_dir)
    update_index(b.session_dir)
    whole = (d / "entries.jsonl").read_bytes()
    lines = whole.count(b"\n")
    assert lines == len(list(b.session_dir.rglob("*.sd"))) == 1
    _older(d)  # the next update rebuilds the whole file
    before = _files(d)
    r = _update_limited(b.session_dir, len(whole) // 2)
    assert r.returncode == 1 and "File too large" in r.stderr, r.stderr
    assert _files(d) == before  # not cut in place ("wb" cut it to len(whole) // 2 bytes), no temporary left
    for state in (True, False):  # the old state, or none (a first index): verify names no problem either way
        if not state:
            (d / "index.state").unlink()
        assert session_file_problems(b.session_dir) == []
    r = _update_limited(b.session_dir, len(whole) // 2)  # no state: a first index, refused alike
    assert r.returncode == 1 and _files(d) == {"entries.jsonl": whole}
    update_index(b.session_dir)  # room again: rebuilt whole
    assert (d / "entries.jsonl").read_bytes() == whole and read_state(d / "index.state")["entries_bytes"] == str(len(whole))


def test_a_refused_append_is_cut_back_to_what_the_state_names(tmp_path):
    b, c = _session(tmp_path)
    d = index_dir(b.session_dir)
    update_index(b.session_dir)
    first = (d / "entries.jsonl").read_bytes()
    c.call("four " * 2000)
    c.land(b)
    before = _files(d)
    r = _update_limited(b.session_dir, len(first) + 100)  # the new line's first 100 bytes are written, then EFBIG
    assert r.returncode == 1 and "File too large" in r.stderr, r.stderr
    assert _files(d) == before and (d / "entries.jsonl").stat().st_size == len(first)
    ix = update_index(b.session_dir)
    data = (d / "entries.jsonl").read_bytes()
    assert data.startswith(first) and data.count(b"\n") == len(ix.files) == first.count(b"\n") + 1 == 2


@pytest.mark.parametrize("how", ["rebuild", "append"])
def test_a_write_stopped_once_its_temporary_exists_leaves_the_index_as_it_was(tmp_path, how):
    b, c = _session(tmp_path)
    d = index_dir(b.session_dir)
    update_index(b.session_dir)
    if how == "rebuild":
        _older(d)
        stop = temporaries(d)
    else:
        c.call("five")
        c.land(b)
        size = (d / "entries.jsonl").stat().st_size
        stop = lambda: os.stat(d / "entries.jsonl").st_size > size  # noqa: E731 - the append's first bytes are on disk
    before = _files(d)
    with pytest.raises(KeyboardInterrupt), sigint_once(stop, within="flow/index.py") as fired:
        update_index(b.session_dir)
    assert fired and _files(d) == before, fired
    ix = update_index(b.session_dir)
    assert (d / "entries.jsonl").read_bytes().count(b"\n") == len(ix.files) == len(list(b.session_dir.rglob("*.sd")))
