"""A root made read-only with ``chmod -R a-w`` is read without a single write, whoever runs asz (trial 29a F7: as root,
``asz search`` put a 103 MB index into it and ``summaries.sqlite`` and ``ids.sqlite-shm`` changed; docs/reading.md,
"A root that cannot be written"), and ``asz verify --figures`` there counts the figures from the evidence in memory
and says so (trial 29a F3: ``checked 0`` and nothing checked).

Real input: the collected corpus root (a copy; its summaries and search index made by ``asz ls`` and ``asz search``
before the chmod), run as this machine's own user (uid 0 on the build machine: the permissions alone stop nothing
then). Every file and folder of the root is listed with its size, mtime and mode before and after; the conversations
are counted as the folders under ``_conversations``."""

from __future__ import annotations

import os
import re

import pytest

from cli_helpers import asz_in_process as asz
from reading_helpers import tree_listing as _listing, write_bits as _chmod


@pytest.fixture
def frozen_root(corpus_copy, tmp_path):
    root = corpus_copy(tmp_path / "root")
    asz("ls", "--root", str(root))
    asz("search", "uv", "--root", str(root))
    _chmod(root, write=False)
    yield root
    _chmod(root, write=True)  # so the temporary folder can be removed


def test_nothing_is_written_into_a_chmod_a_w_root(frozen_root):
    root = frozen_root
    before = _listing(root)
    assert all(not (mode & 0o222) for _, _, mode in before.values())
    cid = sorted(p.name for p in (root / "_conversations").iterdir())[0]
    for args in (["verify"], ["verify", "--figures"], ["ls"], ["usage"], ["search", "uv"], ["secrets"],
                 ["conversation", cid[:8]], ["export", cid[:8], "--format", "md"]):
        p = asz(*args, "--root", str(root))
        assert p.returncode in (0, 1), (args, p.stdout[-500:], p.stderr[-500:])
        assert _listing(root) == before, f"asz {' '.join(args)} wrote into the read-only root (uid {os.getuid()})"


def test_a_first_search_of_a_chmod_a_w_root_writes_not_even_a_lock(corpus_copy, tmp_path):
    """Recheck 29 (trial 29a F7): a root never searched, made read-only with ``chmod -R a-w``: ``asz search`` run as
    this machine's uid builds its index outside the root and leaves no file in it, not even an empty lock file."""
    root = corpus_copy(tmp_path / "root")
    _chmod(root, write=False)
    try:
        before = _listing(root)
        p = asz("search", "uv", "--root", str(root))
        assert p.returncode in (0, 1), p.stderr[-500:]
        assert _listing(root) == before, sorted(set(_listing(root)) - set(before))
    finally:
        _chmod(root, write=True)


def test_figures_of_a_read_only_root_are_counted_in_memory(frozen_root):
    root = frozen_root
    n = len([p for p in (root / "_conversations").iterdir() if p.is_dir()])
    p = asz("verify", "--figures", "--root", str(root))
    assert p.returncode == 0, p.stdout
    assert (f"; {n} conversation(s) with no cached entry in use (none made, or made for files whose stat is not theirs "
            "now: a copy, a restore) counted from the evidence in memory, as the readers count them") in p.stdout
    import json

    js = json.loads(asz("verify", "--figures", "--root", str(root), "--json").stdout)
    assert js["figures_in_memory"] == n and js["figures_removed"] == 0 and js["ok"]


def test_parse_and_collect_say_a_root_they_cannot_write_in_one_line(frozen_root, corpus_dir, tmp_path):
    """Trial 40d F2: ``asz parse`` on a read-only root printed an ``error: ID: …/.lock: Read-only file system`` line per
    session, a table of zeros and ``N problem(s)``; it says it in one line as ``asz collect`` does, exit 1, nothing
    written. Run as children without the capabilities that let root write whatever the mode bits say
    (:func:`cli_helpers.as_reader`); skipped where the chmod does not stop writes all the same."""
    import subprocess
    import sys

    from cli_helpers import as_reader

    root = frozen_root
    env = {**os.environ, "HOME": str(tmp_path)}

    def run(*args):
        return subprocess.run([sys.executable, "-m", "asz_core.cli.main", *args, "--root", str(root)], text=True,
                              capture_output=True, env=env, cwd=tmp_path, timeout=300, preexec_fn=as_reader)

    probe = subprocess.run([sys.executable, "-c", f"open({str(root / 'probe')!r}, 'w')"], preexec_fn=as_reader,
                           capture_output=True)
    if probe.returncode == 0:
        (root / "probe").unlink()
        pytest.skip("chmod does not stop writes here (root keeps its capabilities)")
    before = _listing(root)
    projects = corpus_dir / "claude-code" / "projects"
    # collect names the lock it could not make (trial 43d F2: the words alone did not say where)
    for args, why in ((["parse"], "Permission denied"),
                      (["collect", "--once", "--source", str(projects)], f"cannot make {root / '_collect' / '.lock'}: Permission denied")):
        p = run(*args)
        assert (p.returncode, p.stdout, p.stderr.splitlines()) == (
            1, "", [f"asz {args[0]}: cannot use the storage root {root}: {why}"]), (args, p.stderr[-2000:])
    assert _listing(root) == before


def test_an_immutable_root_is_read_without_a_write_and_collect_names_what_it_could_not_make(corpus_copy, tmp_path):
    """Trial 43d F2: a root made immutable (``chattr -R +i``: refused even to the root user, whatever the mode bits)
    was not taken as one that cannot be written: a stopped first search said the index kept what it had indexed (it
    was written nowhere), and ``asz collect`` said ``Operation not permitted`` without a path. It is read as a
    ``chmod -R a-w`` root is (nothing written into it), and collect names the lock it could not make. Skipped where the
    file system or this process cannot set the flag."""
    import subprocess

    from asz_core.storage.frozen import frozen

    root = corpus_copy(tmp_path / "root")
    asz("ls", "--root", str(root))
    set_flag = subprocess.run(["chattr", "-R", "+i", str(root)], capture_output=True, text=True)
    if set_flag.returncode != 0:
        pytest.skip(f"chattr +i is not possible here: {set_flag.stderr.strip()}")
    try:
        assert frozen(root)
        before = _listing(root)
        for args in (["ls"], ["search", "uv"], ["verify"]):
            p = asz(*args, "--root", str(root))
            assert p.returncode in (0, 1), (args, p.stderr[-500:])
        assert _listing(root) == before
        p = asz("collect", "--once", "--source", str(tmp_path / "none"), "--root", str(root))
        assert (p.returncode, p.stderr.splitlines()[-1]) == (1, f"asz collect: cannot use the storage root {root}: cannot "
                                                                 f"make {root / '_collect' / '.lock'}: Operation not permitted"), p.stderr
    finally:
        subprocess.run(["chattr", "-R", "-i", str(root)], check=True)


def test_a_search_index_with_no_table_yet_is_searched_as_one_not_there(corpus_copy, tmp_path):
    """fix46a: a derived database whose file is there with no table in it yet (its writer stopped, or is making it)
    reads as one not there (``read_only_db`` raises NoDatabase in SQLite's words for a missing file): ``asz search`` of a
    read-only root holding an empty ``search-NN.sqlite`` builds its index outside the root and finds what it finds
    with no such file, writing nothing there. The update tells such a root's index from a broken one by SQLite's words
    for a file it cannot open (``search_place.unwritable``: ``unable to open database file``), so NoDatabase's words
    begin so (review46 of 54c43451). The search with no such file is of another copy: this process keeps the index it
    built outside a root for that root (``search_place.elsewhere``), and a search of the same root would read that
    one and never open the empty file (with NoDatabase's earlier words, ``PATH: no table in it yet``, the search of
    the root holding it fails: 'cannot write the search index … no table in it yet')."""
    from asz_core.reading.search import index_path

    other = corpus_copy(tmp_path / "other")
    _chmod(other, write=False)
    try:
        want = asz("search", "uv", "--root", str(other))
    finally:
        _chmod(other, write=True)
    assert want.returncode == 0 and "uv" in want.stdout, want.stderr[-500:]
    root = corpus_copy(tmp_path / "root")
    index_path(root).parent.mkdir(exist_ok=True)
    index_path(root).write_bytes(b"")
    _chmod(root, write=False)
    try:
        before = _listing(root)
        p = asz("search", "uv", "--root", str(root))
        timed = re.compile(r" in \d+ ms$", re.M)  # the search's own time, the one part that differs
        got = timed.sub("", p.stdout).replace(str(root), str(other))  # its open: lines name its own root
        assert (p.returncode, got) == (0, timed.sub("", want.stdout)), p.stderr[-500:]
        assert _listing(root) == before
    finally:
        _chmod(root, write=True)
