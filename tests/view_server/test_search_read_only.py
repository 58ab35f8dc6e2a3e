"""``asz search`` and ``/api/search`` on a root that cannot be written (trial 6, finding 6: both failed with ``cannot
write the search index … Read-only file system`` while ls, usage and export read such a root).

Real input: the corpus's session de3b8b19 collected by the real ``asz collect --once`` into tmp_path, then made read-only by chmod, with no index, an index of another version (it must be
written again) or a current one. When the tests run as root, asz runs without the capabilities that let root write
whatever the mode bits say; the test is skipped when writes are not stopped all the same. The truth is the number of
parts of the landed file's records whose text holds ``hello``, read straight from the file.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from test_search_damaged_before_index import SOURCE, SID, _parts_with_hello
from cli_helpers import as_reader as _as_reader
from view_server_helpers import REPO, Served, asz
from asz_core.reading.search import INDEX_PATH

def _chmod_all(top: Path, writable: bool) -> None:
    for p in [top, *top.rglob("*")]:
        mode = p.stat().st_mode
        os.chmod(p, (mode | stat.S_IWUSR) if writable else (mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)))


def _files(top: Path) -> dict[str, tuple]:
    return {p.relative_to(top).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns) for p in top.rglob("*")}


def _run(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(root.parent)}
    return subprocess.run([sys.executable, "-m", "asz_core.cli.main", *args, "--root", str(root)], capture_output=True,
                          text=True, timeout=300, cwd=REPO, env=env, preexec_fn=_as_reader)


@pytest.fixture(params=["no index", "index of another version", "current index"])
def ro_root(request, tmp_path):
    if not SOURCE.is_file():
        pytest.skip(f"the corpus is absent ({SOURCE})")
    base = tmp_path / "read-only"
    try:
        (base / "projects" / SOURCE.parent.name).mkdir(parents=True)
        shutil.copy(SOURCE, base / "projects" / SOURCE.parent.name)
        root = base / "root"
        asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))  # it keeps the index
        if request.param == "no index":
            for p in (root / "_index").glob("search-*"):
                p.unlink()
        else:
            asz("search", "hello", "--root", str(root))
        if request.param == "index of another version":
            with sqlite3.connect(root / INDEX_PATH) as con:
                con.execute("UPDATE meta SET value='0' WHERE key='version'")
        _chmod_all(root, writable=False)
        probe = subprocess.run([sys.executable, "-c", f"open({str(root / 'probe')!r}, 'w')"], capture_output=True,
                               preexec_fn=_as_reader)
        if probe.returncode == 0:
            pytest.skip("chmod does not stop writes here (root keeps its capabilities)")
        yield root, request.param
    finally:
        if base.exists():
            _chmod_all(base, writable=True)  # so that pytest can remove it


def test_search_and_the_server_search_a_root_they_cannot_write(ro_root, tmp_path):
    root, case = ro_root
    (landed,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    truth = _parts_with_hello(landed)
    assert truth >= 2
    before = _files(root)
    for extra in ((), ("--reindex",)):
        p = _run(root, "search", "hello", "--json", "--limit", "50", *extra)
        assert p.returncode == 0, p.stderr
        hits = orjson.loads(p.stdout)
        assert len(hits) == truth and {h["file"] for h in hits} == {landed.relative_to(root).as_posix()}
        notes = p.stderr.splitlines()
        if case == "current index" and not extra:
            assert notes == []  # read as it is: nothing to write
            continue
        [note] = notes
        assert note.startswith(f"asz search: {root} cannot be written: the search index is built in ")
        assert note.endswith(" for this search and removed after it (the root is left as it is)")
        made = Path(note.split(" is built in ", 1)[1].split(" for this search")[0])
        assert not made.parent.exists()  # removed at the process's exit
    work = tmp_path / "serve"  # beside the root, not in it
    work.mkdir()
    s = Served(["view", "--root", str(root)], work, preexec_fn=_as_reader, env={"HOME": str(root.parent)})
    try:
        for _ in range(2):
            got = s.get("/api/search?q=hello&limit=50&held_back=1")
            assert got.status == 200, got.body
            answer = orjson.loads(got.body)
            assert len(answer["hits"]) == truth and answer["held_back"] == {"hits": 0, "files": [], "not_searched": []}
    finally:
        s.stop()
    told = [ln for ln in s.output().splitlines() if "cannot be written" in ln]
    assert len(told) == (0 if case == "current index" else 1)
    assert _files(root) == before  # nothing in the root was written
