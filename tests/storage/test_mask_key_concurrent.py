"""A root's mask key made by several processes at once (review37, close37 "Not mended"): ``made_once`` created
``_export/mask.key`` and then wrote it, so a second process reading it in that instant found it empty and said
"not a mask key". It now writes the key whole under a name of its own and links it into place, never over one
another process linked first; a file an older asz is still writing (created empty, written after) is read again.

Real processes (forked, each its own interpreter state), started together at a barrier on fresh roots, each asking
for the root's key as an export that masks does (``mask_key(root)``, and ``root_id`` through the same
``made_once``)."""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from asz_core.storage.mask_key import MASK_KEY_FILE, made_once

PROCESSES = 6
ROOTS = 8


def _ask(root: str, barrier, out) -> None:
    from asz_core.storage import mask_key

    mask_key._KEYS.clear()  # forked: what the parent read is not this process's
    barrier.wait()
    try:
        out.put((root, mask_key.mask_key(root).hex()))
    except OSError as exc:
        out.put((root, f"error: {exc}"))


@pytest.fixture
def fork():
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("needs the fork start method (POSIX)")
    return multiprocessing.get_context("fork")


def test_processes_asking_at_once_all_get_the_one_key_written(tmp_path, fork):
    got: dict[str, set[str]] = {}
    for n in range(ROOTS):
        root = tmp_path / f"r{n}"
        root.mkdir()
        barrier, out = fork.Barrier(PROCESSES), fork.Queue()
        procs = [fork.Process(target=_ask, args=(str(root), barrier, out)) for _ in range(PROCESSES)]
        for p in procs:
            p.start()
        answers = [out.get(timeout=60) for _ in procs]
        for p in procs:
            p.join(60)
            assert p.exitcode == 0
        for r, key in answers:
            got.setdefault(r, set()).add(key)
    errors = sorted({k for keys in got.values() for k in keys if k.startswith("error")})
    assert errors == []
    for r, keys in got.items():
        held = (Path(r) / MASK_KEY_FILE).read_text()
        assert keys == {held.strip()} and held == held.strip() + "\n" and len(held.strip()) == 64, r
        assert sorted(p.name for p in (Path(r) / "_export").iterdir()) == ["mask.key"]  # no temporary name left


def test_a_key_file_an_older_asz_is_still_writing_is_read_once_written(tmp_path, fork):
    """An older asz created the file empty, then wrote it: the reader waits for the digits, not "not a mask key"."""
    path = tmp_path / "_export" / "mask.key"
    path.parent.mkdir()
    key = "ab" * 32

    def older() -> None:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        time.sleep(0.4)
        os.write(fd, (key + "\n").encode())
        os.close(fd)

    writer = fork.Process(target=older)
    writer.start()
    while not path.exists():
        time.sleep(0.005)
    assert path.read_text() == ""  # the instant review37 named
    assert made_once(path, 64, "a mask key", 0o600) == key
    writer.join(10)


def test_a_file_holding_something_else_is_still_refused(tmp_path):
    path = tmp_path / "mask.key"
    path.write_text("not hex at all\n")
    with pytest.raises(OSError, match="not a mask key"):
        made_once(path, 64, "a mask key")
    assert path.read_text() == "not hex at all\n"  # never replaced
