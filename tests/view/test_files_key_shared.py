"""The page's caches and ``asz ls``'s summary store depend on the same files (house26, item 1).

Before session 26 two functions each made their own list: the page's ``view.state.files_fingerprint`` walked the
conversation's directory and the session's, ``summary_cache.fingerprint`` listed the rounds, ``conversation.state``
and the session's holding folders. They agreed on what a collect pass writes, by care: a file put in the
conversation's directory beside ``rounds`` changed the page's key and not ``asz ls``'s (this test failed there). Now
both are :func:`asz_core.view.depends.files_key`; each edit below changes both or neither, as the rule says (a round
or landed file changed: both; a lock, ``session.state``, the session's ``index/`` or a cursor rewritten with the same
torn tail: neither), and each keeps its own way with a symbolic link (the page refuses it; ``asz ls``'s key holds the
link's path and the file it names, and its reader follows none: trial 42a F4).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from asz_core.storage.layout import CONVERSATIONS
from asz_core.view.query import ApiError
from asz_core.view.state import files_fingerprint
from asz_core.view.summary_cache import fingerprint, keys_fingerprint

#: A corpus conversation whose session is its own (../shared/corpus: claude-code-log-sample/326189cf…).
CONV = "326189cf-5676-4237-8cde-1ce80aae4a9f"


def _append(p: Path, data: bytes) -> None:
    os.chmod(p, 0o644)
    with open(p, "ab") as f:
        f.write(data)


def _rewrite(p: Path) -> None:
    data = p.read_bytes()
    os.chmod(p, 0o644)
    p.unlink()
    p.write_bytes(data)


EDITS = [
    # (what, edit of the root, does a build depend on it)
    ("a round file grows", lambda r: _append(next((r / CONVERSATIONS / CONV / "rounds").iterdir()), b"\n"), True),
    ("conversation.state rewritten", lambda r: _rewrite(r / CONVERSATIONS / CONV / "conversation.state"), True),
    ("a file beside rounds", lambda r: (r / CONVERSATIONS / CONV / "notes").write_bytes(b"x"), True),
    ("the landed transcript grows", lambda r: _append(next((r / CONV / "streams" / "main").glob("*.sd")), b"\n"), True),
    ("the conversation's lock rewritten", lambda r: _rewrite(r / CONVERSATIONS / CONV / ".lock"), False),
    ("the session's lock rewritten", lambda r: _rewrite(r / CONV / ".lock"), False),
    ("session.state rewritten", lambda r: _rewrite(r / CONV / "session.state"), False),
    ("the session index grows", lambda r: _append(r / CONV / "index" / "entries.jsonl", b"\n"), False),
    ("the cursor rewritten, no torn tail", lambda r: _rewrite(r / CONV / "streams" / "main" / "transcript.cursor"), False),
]


@pytest.mark.parametrize("what, edit, depends", EDITS, ids=[e[0] for e in EDITS])
def test_both_keys_change_together(corpus_copy, what, edit, depends) -> None:
    root = corpus_copy()
    page, ls = files_fingerprint(root, CONV, CONV), fingerprint(root, CONV, CONV)
    assert keys_fingerprint(page) == ls  # the page's keys give asz ls's key without a second walk (trial 48b F7)
    edit(root)
    assert (files_fingerprint(root, CONV, CONV) != page, fingerprint(root, CONV, CONV) != ls) == (depends, depends), what
    assert keys_fingerprint(files_fingerprint(root, CONV, CONV)) == fingerprint(root, CONV, CONV)


def test_a_link_refused_by_the_page_is_a_new_ls_key(corpus_copy, tmp_path: Path) -> None:
    """The page refuses a landed file that is a link (403); ``asz ls``'s key changes with it (the link's path is in it:
    no reader follows one, trial 42a F4) and again when the file it names changes."""
    root = corpus_copy()
    landed = next((root / CONV / "streams" / "main").glob("*.sd"))
    unlinked = fingerprint(root, CONV, CONV)
    elsewhere = tmp_path / "elsewhere.sd"
    elsewhere.write_bytes(landed.read_bytes())
    landed.unlink()
    landed.symlink_to(elsewhere)
    with pytest.raises(ApiError) as e:
        files_fingerprint(root, CONV, CONV)
    assert e.value.status == 403 and landed.name in str(e.value)
    before = fingerprint(root, CONV, CONV)
    assert before != unlinked
    with open(elsewhere, "ab") as f:
        f.write(b"\n")
    assert fingerprint(root, CONV, CONV) != before  # the file the link names changed: asz ls reads it again
