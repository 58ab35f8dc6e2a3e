"""A list row lets go of each landed file's bytes and record lines once its records are read (issue 22, session 34).

``asz collect``'s list rows (:func:`~asz_core.view.document.build_summary`) held every landed file of a conversation
three times at once: its bytes, its record lines and its records. Now a file's bytes go once its records are read,
and a row keeps its lines only where an execution record may ask for its call's line
(``LandedSession(lines_kept=False)``); the page's full build keeps them (its headings are served from them).

Real input: the shared Claude Code corpus collected and parsed by the real ``asz collect --once``
(``corpus_collected``); each row is held against the same row built keeping every line.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

import forked
from asz_core.flow.chain import conversation_dirs
from asz_core.view.chain import ChainReader
from asz_core.view.document import build_summary
from asz_core.view.session_records import LandedSession, read_sealed


def _conversations(root: Path) -> list[str]:
    return sorted(d.name for d in conversation_dirs(root))


def test_a_row_says_what_it_said_keeping_every_line(corpus_collected, monkeypatch):
    root = corpus_collected
    ids = _conversations(root)
    assert len(ids) >= 11  # the corpus's sessions (../shared/corpus/claude-code/projects)
    let_go = [build_summary(root, cid) for cid in ids]
    import asz_core.view.document as document

    monkeypatch.setattr(document, "LandedSession", lambda *a: LandedSession(*a[:4], lines_kept=True))
    kept = [build_summary(root, cid) for cid in ids]
    for cid, a, b in zip(ids, let_go, kept):
        assert json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str), cid
    assert sum(a[0]["summary"]["calls_with_usage"] > 0 for a in let_go) >= 5  # rows with figures, not empty ones


def test_lines_are_kept_only_where_asked_or_an_execution_record_may_ask(corpus_collected):
    root = corpus_collected
    checked = 0
    for cid in _conversations(root):
        fold, _, accepted = ChainReader(root, cid, (), None).fold_chain()
        session, through = fold.head.session, fold.head.through_seq
        if any(p.name.startswith("execution-") for p in (root / session).glob("streams/*/*.sd")):
            continue  # an execution record may ask for its call's line: kept either way
        kept = LandedSession(root, session, through, accepted)
        let_go = LandedSession(root, session, through, accepted, lines_kept=False)
        assert let_go.bound_lines == {}
        assert let_go.records == kept.records and let_go.files == kept.files
        # the lines the full build keeps are each file's record lines, read here from the file itself
        for seq, (path, _, lines) in kept.bound_lines.items():
            assert lines == read_sealed(Path(path))[2][4]
        checked += bool(kept.bound_lines)
    assert checked >= 5


def test_a_row_lets_go_of_each_files_bytes_once_its_records_are_read(corpus_dir, tmp_path, monkeypatch):
    """While a list row is built, each landed file's bytes (and its split lines) go once its records are read, before
    the next file is read (session 37: until then every file was read before the first was decoded, so all their bytes
    and lines were alive at once; review34: dc3b347b's ``read[i] = None`` had no test). Real input: the corpus project
    personal-site-next collected by the real ``asz collect --once`` with a 20 kB budget (5 landed files); tracemalloc
    counts the blocks allocated in ``read_sealed`` that are alive as each file is read and as each is kept."""
    import inspect
    import shutil
    import tracemalloc

    from asz_core.view import landed_bytes, session_records

    d = corpus_dir / "claude-code" / "projects" / "-Users-alex-workspace-personal-site-next"
    if not d.is_dir():
        pytest.skip(f"{d} is absent")
    shutil.copytree(d, tmp_path / "src" / d.name)
    root = tmp_path / "root"
    p = forked.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--max-delta-bytes", "20000",
                    "--source", str(tmp_path / "src"), "--root", str(root)], capture_output=True, text=True,
                   cwd=tmp_path, env={**os.environ, "CLAUDE_CONFIG_DIR": str(tmp_path / "home")}, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    (cid,) = _conversations(root)
    sizes = [p.stat().st_size for p in (root / cid).glob("streams/main/transcript-*.sd")]
    assert len(sizes) >= 4, sizes
    src, first = inspect.getsourcelines(landed_bytes.read_sealed)
    where = range(first, first + len(src))

    def alive() -> int:
        stats = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(True, landed_bytes.__file__)])
        return sum(s.size for s in stats.statistics("lineno") if s.traceback[0].lineno in where)

    held: list[int] = []
    reads: list[tuple[int, int, int]] = []
    real_entry, real_read = session_records.LandedSession._entry, landed_bytes._read_or_why

    def spy(self, *a, **k):  # the real method runs; this only counts what is alive when it is called
        held.append(alive())
        return real_entry(self, *a, **k)

    def spy_read(path):  # the same, as each file is read: (alive before, alive after, the file's size)
        before = alive()
        got = real_read(path)
        reads.append((before, alive(), path.stat().st_size))
        return got

    monkeypatch.setattr(session_records.LandedSession, "_entry", spy)
    monkeypatch.setattr(landed_bytes, "_read_or_why", spy_read)
    tracemalloc.start()
    try:
        build_summary(root, cid)
    finally:
        tracemalloc.stop()
    assert len(held) == len(reads) == len(sizes)
    # the count sees read_sealed's blocks: the bytes just read (and their lines) are alive once it returns
    assert all(after >= size for _, after, size in reads), reads
    # before session 37 the earlier files' bytes and lines were alive as the last was read (over twice their sum); now
    # only what a kept record holds of read_sealed (each file's header), well under a file's bytes
    assert all(before < max(sizes) / 4 for before, _, _ in reads), (reads, sizes)
    assert all(h < max(sizes) / 4 for h in held), (held, sizes)
