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
from pathlib import Path

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
