"""``read_list(root, only=SESSION)``: one session's line of ``_sessions.list`` (what ``asz verify --root ROOT SESSION``
holds it to), found without reading every line into a record, and the same line a whole read keeps (the first that
reads as a line naming it; docs/storage-root.md). The line numbers below are counted in the text written."""

from __future__ import annotations

import pytest

from asz_core.storage.session_list import LIST_HEAD, SESSION_LIST, ListedSession, read_list

AT = "2026-12-03T13:38:25.410342235Z"
LINES = [
    LIST_HEAD.rstrip("\n"),                              # 1
    f"02d6ec7b-3651 {AT} claude-code-local",             # 2
    "abc 2026-12-03T13:3",                                # 3: cut short by a crash: names abc, does not read
    f"xabc {AT} kiro",                                    # 4: holds abc inside another name
    f"abc {AT} claude-code-local",                        # 5: abc's line
    "# abc in a comment",                                 # 6
    f"abc 2026-12-04T00:00:00Z other",                    # 7: a second line for abc: the first wins
    "",                                                   # 8
    f"  zed   {AT}   langsmith  ",                        # 9: spaces around are read through
]


@pytest.mark.parametrize("escaped", [False, True])
def test_one_session_s_line_is_the_line_a_whole_read_keeps(tmp_path, escaped):
    lines = LINES + ([f"a%20b {AT} claude-code-local"] if escaped else [])  # 10: "a b", percent-encoded
    (tmp_path / SESSION_LIST).write_text("\n".join(lines) + "\n")
    whole = read_list(tmp_path)
    assert whole.sessions["abc"] == ListedSession("abc", 5, AT, "claude-code-local")
    assert whole.sessions["zed"] == ListedSession("zed", 9, AT, "langsmith")
    assert [n for n, _ in whole.bad] == [3]
    names = ["02d6ec7b-3651", "abc", "xabc", "zed", "ab", "bc", "02d6ec7b", "nobody"] + (["a b"] if escaped else [])
    for name in names:
        got = read_list(tmp_path, only=name)
        assert got.bad == []
        assert got.sessions == ({name: whole.sessions[name]} if name in whole.sessions else {}), name
    assert (read_list(tmp_path, only="a b").sessions == {"a b": ListedSession("a b", 10, AT, "claude-code-local")}) == escaped


def test_no_list_is_none_either_way(tmp_path):
    assert read_list(tmp_path) is None and read_list(tmp_path, only="abc") is None
