"""When this asz builds its search index in a root, the older schemas' index files go (trial 39c F4).

An upgraded root kept ``_index/search-29.sqlite`` (86 MB, credentials unmasked: schema 30 masks them) until a prune or
an erase. Here the bundled example is collected, an older schema's files (``search-29.sqlite`` with its ``-wal``,
``-shm`` and the ``.lock`` its builders took, and the unnumbered ``search.sqlite`` of schema 25 and before) and a newer one's (``search-99.sqlite``) are
put beside where the index goes, and the first ``asz search`` builds this asz's: the older ones are gone, the newer one
is kept byte for byte, and a second search, which builds nothing, leaves an older file put there again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

from asz_core.reading.search import INDEX_PATH

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "claude-code" / "projects"


def test_the_first_build_removes_older_schemas_index_files_and_keeps_a_newer_one(tmp_path):
    if not EXAMPLE.is_dir():
        pytest.skip(f"{EXAMPLE} is absent")
    shutil.copytree(EXAMPLE, tmp_path / "projects")
    root = tmp_path / "root"
    p = asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    index = root / "_index"
    assert (root / INDEX_PATH).exists()  # collect --once keeps the index (trial 49d F2) ...
    for f in index.glob("search-*"):  # ... deleted here: the first build is the search's
        f.unlink()
    older = [index / n for n in ("search-29.sqlite", "search-29.sqlite-wal", "search-29.sqlite-shm", "search-29.sqlite.lock",
                                  "search.sqlite")]
    newer = index / "search-99.sqlite"
    for f in [*older, newer]:
        f.write_bytes(b"the hello of an older or newer asz\n")
    s = asz_in_process("search", "hello", "--root", str(root))
    assert s.returncode == 0 and (root / INDEX_PATH).is_file(), s.stdout + s.stderr
    assert [f.name for f in older if f.exists()] == []
    assert newer.read_bytes() == b"the hello of an older or newer asz\n"
    older[0].write_bytes(b"built again by an older asz\n")
    assert asz_in_process("search", "hello", "--root", str(root)).returncode == 0
    assert older[0].read_bytes() == b"built again by an older asz\n"  # only a build of this asz's index removes them
