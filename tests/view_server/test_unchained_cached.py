"""``/api/conversations`` names landed sessions with no conversation chain without listing every session folder on
each request (48 ms of CPU on a 1 GB root): the line is kept until a collect pass lands something.

Real input: the corpus collected by the real ``asz collect --once`` (tests/conftest.py), copied; then the Kiro corpus
landed into the copy by ``asz collect --once --no-parse`` (its two sessions get no chain)."""

from __future__ import annotations

from pathlib import Path

import pytest

from asz_core.view.state import ViewState

from view_server_helpers import asz

KIRO = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"
KIRO_SESSIONS = ("8e247382-c779-440f-b1db-ed9bad1afaee", "sess_5e804080-466c-4f65-bde9-f6133b7068f6")


def test_the_unchained_line_is_kept_until_a_pass_lands_something(corpus_copy):
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    root = corpus_copy()
    state = ViewState(root, mode="server")
    convs = state.conversations()
    state.set_pass({"landed": 0, "rounds": 0}, 0, None)  # the server's first pass: nothing new
    assert state.unchained(convs) == ""  # every landed session of the corpus has its chain
    asz("collect", "--once", "--no-parse", "--adapter", "kiro", "--source", str(KIRO), "--root", str(root))
    assert state.conversations() == convs
    state.set_pass({"landed": 0, "rounds": 0}, 1, None)  # a pass that landed nothing keeps the line
    assert state.unchained(convs) == ""
    state.set_pass({"landed": 2, "rounds": 0}, 2, None)  # one that landed: the folders are listed again
    line = state.unchained(convs)
    assert line.startswith("2 landed session(s) have no conversation chain and are not listed")
    assert all(sid in line for sid in KIRO_SESSIONS), line
