"""``asz conversation ID`` with an id that names nothing in the root says ``no conversation 'ID' in ROOT`` (exit 1),
not ``no rounds: conversation 'ID' has no chain under …/_conversations/ID/rounds``; an id prefix of several stays a
usage error naming them (exit 2); a session landed but never parsed keeps its own hint.

Real root: two Claude Code sessions (the shape of the corpus's records, Claude Code 1.0.51) written under tmp_path
and collected by the real ``asz collect --once``; the commands run in process (tests/cli_helpers.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

A = "abcd1111-0000-4000-8000-000000000001"
B = "abcd2222-0000-4000-8000-000000000002"
ENV = {"CLAUDE_CONFIG_DIR": "/nonexistent-claude-home", "XDG_CONFIG_HOME": None}


def _lines(sid: str, day: int) -> list[dict]:
    base = {"isSidechain": False, "userType": "external", "cwd": "/home/dev/app", "sessionId": sid, "version": "1.0.51"}
    return [
        {**base, "parentUuid": None, "type": "user", "uuid": f"{sid[:8]}-1", "timestamp": f"2026-01-0{day}T10:00:00Z",
         "message": {"role": "user", "content": "hello"}},
        {**base, "parentUuid": f"{sid[:8]}-1", "type": "assistant", "requestId": f"req_{sid[:8]}", "uuid": f"{sid[:8]}-2",
         "timestamp": f"2026-01-0{day}T10:00:05Z",
         "message": {"id": f"msg_{sid[:8]}", "role": "assistant", "model": "claude-x", "content": [{"type": "text", "text": "ok"}],
                     "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 5}}},
    ]


def _asz(*args):
    return asz_in_process(*args, env=ENV)


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("unknown-conversation")
    proj = base / "projects" / "-home-dev-app"
    proj.mkdir(parents=True)
    for day, sid in enumerate((A, B), 1):
        (proj / f"{sid}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in _lines(sid, day)))
    r = base / "root"
    p = _asz("collect", "--once", "--source", str(base / "projects"), "--root", str(r))
    assert p.returncode == 0, p.stderr
    assert sorted(d.name for d in (r / "_conversations").iterdir()) == [A, B]  # both parsed
    return r


def test_an_unknown_id_is_said_as_no_conversation(root):
    p = _asz("conversation", "nope", "--root", str(root))
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr.strip() == f"asz conversation: no conversation 'nope' in {root}; conversations in {root}: {A}, {B}"
    assert "no rounds" not in p.stderr and "no chain" not in p.stderr
    assert not (root / "_conversations" / "nope").exists()


def test_an_unknown_id_in_an_empty_root(tmp_path):
    src, r = tmp_path / "projects", tmp_path / "root"
    src.mkdir()
    assert _asz("collect", "--once", "--source", str(src), "--root", str(r)).returncode == 0
    p = _asz("conversation", "nope", "--root", str(r), "--json")
    assert (p.returncode, p.stdout, p.stderr.strip()) == (1, "", f"asz conversation: no conversation 'nope' in {r}")


def test_a_prefix_of_several_stays_a_usage_error_naming_them(root):
    for given in ("abcd", "ABCD"):  # in any case (trial 39d F3)
        p = _asz("conversation", given, "--root", str(root))
        assert p.returncode == 2 and p.stdout == ""
        assert f"'{given}' is the start of 2 conversations: {A}, {B}; type more of it" in p.stderr, p.stderr


def test_a_unique_prefix_still_opens_the_conversation(root):
    for given in ("abcd1", "ABCD1", A.upper()):  # ids are lowercase: a prefix or id in capitals names it (39d F3)
        p = _asz("conversation", given, "--root", str(root))
        assert p.returncode == 0, p.stderr
        assert p.stdout.startswith(f"conversation {A}: hello")
    p = _asz("export", "ABCD2", "--format", "json", "--root", str(root))
    assert p.returncode == 0 and json.loads(p.stdout)["conversation"] == B, p.stderr
    p = _asz("verify", "ABCD2", "--root", str(root))  # a session id too
    assert p.returncode == 0 and p.stdout.startswith("checked 1 session(s), 1 source file(s), 2 records"), p.stderr


def test_a_session_landed_but_not_parsed_keeps_its_hint(tmp_path):
    proj = tmp_path / "projects" / "-home-dev-app"
    proj.mkdir(parents=True)
    (proj / f"{A}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in _lines(A, 1)))
    r = tmp_path / "root"
    assert _asz("collect", "--once", "--no-parse", "--source", str(tmp_path / "projects"), "--root", str(r)).returncode == 0
    p = _asz("conversation", A, "--root", str(r))
    assert p.returncode == 1
    assert f"session {A} landed in {r} but has no conversation chain" in p.stderr, p.stderr


@pytest.mark.parametrize("args", [("conversation", ""), ("conversation", "  "), ("export", ""), ("show", "", "x"),
                                  ("show", A[:8], "")])
def test_an_empty_id_is_a_usage_error(root, args):
    """trial 18, F-d: ``asz conversation ''`` said a session of no name landed and needed asz parse; an empty id
    names nothing (it would be the prefix of every id), so every command taking one refuses it: exit 2, one line."""
    p = _asz(*args, "--root", str(root))
    what = "SESSION" if args[0] == "show" and not args[1] else "ID"
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == f"asz {args[0]}: an empty {what} is not an id: give one, or a unique prefix of one\n"
    assert "landed" not in p.stderr and "asz parse" not in p.stderr


def test_words_given_for_an_id_get_the_search_that_finds_one_by_them(root):
    """Trial 30b F4: ``asz conversation "mix phx server"`` named ids only; words typed where an id goes now get the
    ``asz search --conversations`` that finds the conversation by its title and prompts, and that search does."""
    p = _asz("conversation", "hello there", "--root", str(root))
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr.strip() == (f"asz conversation: no conversation 'hello there' in {root}; conversations in {root}: {A}, "
                                f"{B}; to find one by its title or prompts: asz search --conversations 'hello there' "
                                f"--root {root}")
    found = _asz("search", "--conversations", "hello", "--root", str(root), "--json")
    assert found.returncode == 0, found.stderr
    assert {c["conversation"] for c in json.loads(found.stdout)} == {A, B}  # both were asked "hello"
