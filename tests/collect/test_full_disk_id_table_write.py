"""A full disk met by the root's id table's own write (SQLite's ``SQLITE_IOERR_WRITE``: EFBIG, EDQUOT or ENOSPC on
``_index/ids.sqlite`` or its WAL) is folded into the pass's one full-disk ``error:`` line, told apart from a plain EIO
(which reads the same ``disk I/O error``) by what the OS says of a write beside the table at that moment
(``asz_core.flow.shared_ids.room_refused``; reviewA27: one ``error:`` line per session before, ``errors=7``).

Real input: the Claude Code corpus landed with ``--no-parse``, then parsed by ``asz collect --once --jobs 1`` under
RLIMIT_FSIZE of 32 KiB (EFBIG, as tests/collect/test_full_disk.py makes a full file system): the WAL index fits, the
table's WAL does not grow (``SQLITE_IOERR_WRITE``; at 20,000 bytes it is ``SQLITE_IOERR_SHMSIZE``,
tests/collect/test_parse_temporaries.py). The table is made before the parse and held open by another connection
(``held``): its tables' log, made in one transaction since fix46a (28,872 bytes, 45,352 in one a statement before),
fits under 32 KiB alone, and the parse's writes after it do not.
"""

from __future__ import annotations

import subprocess

import pytest

from collect_helpers import ASZ, env, summary
from test_parse_temporaries import _collect, parsed_on_a_full_disk

from asz_core.flow.shared_ids import room_refused


@pytest.mark.slow
def test_the_id_tables_own_write_refused_by_a_full_disk_is_one_line(corpus_dir, tmp_path):
    src, root = tmp_path / "src", tmp_path / "root"
    parsed_on_a_full_disk(corpus_dir, src, root, 32_768, "disk I/O error: File too large, as a write beside it was",
                          held=True)
    assert [p.name for p in (root / "_index").iterdir() if p.name.startswith(".room.")] == []  # the probe removed
    again = _collect(src, root)  # room again: every session parsed, nothing said
    assert again.returncode == 0 and summary(again.stdout)["errors"] == "0", again.stderr
    sessions = [d for d in root.iterdir() if not d.name.startswith("_") and (d / "streams").is_dir()]
    assert len([d for d in (root / "_conversations").iterdir() if list((d / "rounds").glob("r*.sf"))]) == len(sessions)


def test_with_room_the_probe_says_nothing_and_leaves_nothing(tmp_path):
    """A write the table could not make for another reason (an EIO): the probe beside it is written, so '' and the
    error stays the session's own line."""
    (tmp_path / "_index").mkdir()
    (tmp_path / "_index" / "ids.sqlite").write_bytes(bytes(40_000))
    assert room_refused(tmp_path) == ""
    assert sorted(p.name for p in (tmp_path / "_index").iterdir()) == ["ids.sqlite"]


def test_under_a_file_size_limit_the_probe_says_the_os_words(tmp_path):
    """RLIMIT_FSIZE below the table's size plus a page, in a child: the probe's write is refused with EFBIG."""
    (tmp_path / "_index").mkdir()
    (tmp_path / "_index" / "ids.sqlite-wal").write_bytes(bytes(30_000))
    code = ("import resource, signal, sys; from pathlib import Path; from asz_core.flow.shared_ids import room_refused; "
            "signal.signal(signal.SIGXFSZ, signal.SIG_IGN); resource.setrlimit(resource.RLIMIT_FSIZE, (32768, 32768)); "
            "print(repr(room_refused(Path(sys.argv[1]))))")
    p = subprocess.run([ASZ[0], "-c", code, str(tmp_path)], env=env(), capture_output=True, text=True, timeout=60)
    assert p.stdout.strip() == repr("File too large"), p.stderr
    assert sorted(p.name for p in (tmp_path / "_index").iterdir()) == ["ids.sqlite-wal"]
