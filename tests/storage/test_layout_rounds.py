"""Where a conversation's rounds live is said once, in storage (asz_core.storage.layout.rounds_dir): flow writes them
there and collect, which may not import flow, reads them there (storage-root.md, Layout)."""

from __future__ import annotations

from pathlib import Path

import pytest

from asz_core.flow.chain import Chain
from asz_core.storage.layout import conversation_dir, rounds_dir


def test_the_rounds_directory_is_the_documented_path_and_the_chains(tmp_path):
    assert rounds_dir(tmp_path, "abc") == tmp_path / "_conversations" / "abc" / "rounds"  # storage-root.md, Layout
    assert conversation_dir(tmp_path, "a/b") == tmp_path / "_conversations" / "a_b"
    chain = Chain(tmp_path, "a/b")
    assert (chain.dir, chain.rounds_dir) == (conversation_dir(tmp_path, "a/b"), rounds_dir(tmp_path, "a/b"))
    for bad in ("", ".", ".."):
        with pytest.raises(ValueError):
            rounds_dir(tmp_path, bad)


def test_collect_reads_the_layout_not_its_own_path():
    """collect's check for a chain (a folder lost, its chain kept) spells no path of its own."""
    src = (Path(__file__).resolve().parents[2] / "asz_core" / "collect" / "collector.py").read_text(encoding="utf-8")
    assert '"_conversations"' not in src and '"rounds"' not in src


def test_a_cursor_file_joined_as_a_string_is_the_one_cursor_path_names(tmp_path):
    """A pass with nothing new joins each cursor's path as a string (cursor_file, issue 22): the same path
    ``cursor_path(kind_dir(...))`` names for every kind, stream and run (storage-root.md, Layout: streams/<stream>,
    runs/<run>, provider_body), an id's ``/`` made ``_``; the same errors for a run kind without a run, an unknown kind
    and an unusable id."""
    from asz_core.sessiondata.model import KIND_PREFIX
    from asz_core.storage.layout import cursor_file, cursor_path, kind_dir, session_dir

    for root in (tmp_path, str(tmp_path) + "/"):
        for kind in KIND_PREFIX:
            for stream, batch in (("", "b1"), ("agent-a/1", "run/2")):
                want = cursor_path(kind_dir(Path(root), "s/1", kind, stream, batch), kind)
                assert cursor_file(session_dir(Path(root), "s/1"), kind, stream, batch) == str(want)
    assert cursor_file(tmp_path / "s", "transcript") == str(tmp_path / "s" / "streams" / "main" / "transcript.cursor")
    with pytest.raises(ValueError):
        cursor_file(tmp_path / "s", "journal")
    with pytest.raises(ValueError):
        cursor_file(tmp_path / "s", "transcript", "..")
    with pytest.raises(KeyError):
        cursor_file(tmp_path / "s", "no-such-kind")


def test_session_and_conversation_paths_joined_as_strings(tmp_path):
    """chain_is_current and asz verify's chain checks name a session's and a chain's folder as strings (issue 22) by
    the layout's own functions, never a join of their own (review33): ``<root>/<session>`` and
    ``<root>/_conversations/<conversation>`` (storage-root.md, Layout), an id's ``/`` and ``\\`` made ``_``, a root
    with a trailing ``/`` the same, ValueError for an empty or dot id."""
    from asz_core.storage.layout import conversation_path, session_dir, session_path

    for root in (str(tmp_path), str(tmp_path) + "/", tmp_path):
        assert session_path(root, "a/b\\c") == f"{tmp_path}/a_b_c"
        assert conversation_path(root, "a/b\\c") == f"{tmp_path}/_conversations/a_b_c"
        assert session_dir(root, "s/1") == tmp_path / "s_1" and conversation_dir(root, "s/1") == tmp_path / "_conversations" / "s_1"
    for bad in ("", ".", ".."):
        for fn in (session_path, conversation_path):
            with pytest.raises(ValueError):
                fn(tmp_path, bad)
