"""Discovery over synthetic Kiro layouts, and the default source root.

SYNTHETIC: the child-session links (3.x ``parentSessionId``, 2.x
``parent_session_id``), the 2.x ``.lock`` / ``.history`` files, ``/chat save``
exports and the Kiro IDE layout (``workspace-sessions/<b64>/<sessionId>.json``,
``<hash>/<id>.chat``, execution files) are built from their public
descriptions; the real corpus holds none of them. Every root is a tmp dir.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from asz_adapters_kiro import KiroAdapter

P = "11111111-1111-4111-8111-111111111111"
C = "22222222-2222-4222-8222-222222222222"


def _w(path: Path, data: bytes | dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(data) if isinstance(data, dict) else data)
    return path


def _by(disc) -> set[tuple[str, str, str, str]]:
    return {(s.session, s.kind, s.stream, s.src) for s in disc.sources}


def test_2x_children_locks_and_history(tmp_path: Path) -> None:
    cli = tmp_path / ".kiro" / "sessions" / "cli"
    _w(cli / f"{P}.json", {"session_id": P, "created_at": "x", "parent_session_id": None})
    _w(cli / f"{P}.jsonl", b"{}\n")
    _w(cli / f"{P}.lock", b"123")
    _w(cli / f"{P}.history", b"hi\n")
    _w(cli / f"{C}.json", {"session_id": C, "created_at": "x", "parent_session_id": P})
    _w(cli / f"{C}.jsonl", b"{}\n")
    disc = KiroAdapter().discover(tmp_path)
    base = ".kiro/sessions/cli"
    assert _by(disc) == {
        (P, "transcript", "", f"{base}/{P}.jsonl"), (P, "agent_meta", "", f"{base}/{P}.json"),
        (P, "transcript", C, f"{base}/{C}.jsonl"), (P, "agent_meta", C, f"{base}/{C}.json"),
    }
    reasons = {Path(p).suffix: r for p, r in disc.skipped}
    assert "still running" in reasons[".lock"] and "prompt history" in reasons[".history"]


def test_3x_children_by_parent_link_and_by_directory(tmp_path: Path) -> None:
    ws = tmp_path / ".kiro" / "sessions" / "abcdef0123456789"
    _w(ws / f"sess_{P}" / "session.json", {"schemaVersion": "1.0.0", "id": f"sess_{P}"})
    _w(ws / f"sess_{P}" / "messages.jsonl", b"{}\n")
    _w(ws / f"sess_{P}" / "subagents" / "sub1" / "messages.jsonl", b"{}\n")
    _w(ws / f"sess_{C}" / "session.json", {"schemaVersion": "1.0.0", "id": f"sess_{C}", "parentSessionId": P})
    _w(ws / f"sess_{C}" / "messages.jsonl", b"{}\n")
    _w(ws / "notes.txt", b"x")
    disc = KiroAdapter().discover(tmp_path)
    d = ".kiro/sessions/abcdef0123456789"
    s = f"sess_{P}"
    assert _by(disc) == {
        (s, "transcript", "", f"{d}/{s}/messages.jsonl"), (s, "agent_meta", "", f"{d}/{s}/session.json"),
        (s, "transcript", "sub1", f"{d}/{s}/subagents/sub1/messages.jsonl"),
        (s, "transcript", C, f"{d}/sess_{C}/messages.jsonl"), (s, "agent_meta", C, f"{d}/sess_{C}/session.json"),
    }
    assert any(p.endswith("notes.txt") for p, _ in disc.skipped)


def test_exports_ide_files_and_filters(tmp_path: Path) -> None:
    _w(tmp_path / "my-chat.json", {"conversation_id": C, "history": []})
    _w(tmp_path / "package.json", {"name": "x"})
    a = tmp_path / ".config" / "Kiro" / "User" / "globalStorage" / "kiro.kiroagent"
    _w(a / "workspace-sessions" / "L3dvcmsvYXBw" / "sessions.json", b"[]")
    _w(a / "workspace-sessions" / "L3dvcmsvYXBw" / "ide-sess-1.json", {"sessionId": "ide-sess-1", "title": "t"})
    _w(a / "0123456789abcdef0123456789abcdef" / "legacy1.chat", {"chat": []})
    _w(a / "0123456789abcdef0123456789abcdef" / "ffff0000" / "exec42", {"executionId": "exec42", "chatSessionId": "ide-sess-1"})
    disc = KiroAdapter().discover(tmp_path)
    rel = ".config/Kiro/User/globalStorage/kiro.kiroagent"
    assert _by(disc) == {
        (C, "agent_meta", "saved-my-chat", "my-chat.json"),
        ("ide-sess-1", "agent_meta", "", f"{rel}/workspace-sessions/L3dvcmsvYXBw/ide-sess-1.json"),
        ("legacy1", "agent_meta", "", f"{rel}/0123456789abcdef0123456789abcdef/legacy1.chat"),
        ("ide-sess-1", "agent_meta", "execution-exec42", f"{rel}/0123456789abcdef0123456789abcdef/ffff0000/exec42"),
    }
    assert all(s.mode == "snapshot" for s in disc.sources)
    assert any(p.endswith("sessions.json") for p, _ in disc.skipped)
    only = KiroAdapter().discover(tmp_path, include=["ide-*"], exclude=["*"])
    assert only.sources == [] and only.skipped
    assert {s.session for s in KiroAdapter().discover(tmp_path, include=["ide-*"]).sources} == {"ide-sess-1"}


def test_unreadable_or_missing_roots(tmp_path: Path) -> None:
    disc = KiroAdapter().discover(tmp_path / "nope")
    assert disc.sources == [] and disc.errors
    if os.geteuid() != 0:  # root reads everything
        cli = tmp_path / ".kiro" / "sessions" / "cli"
        cli.mkdir(parents=True)
        cli.chmod(0)
        try:
            d = KiroAdapter().discover(tmp_path)  # a folder inside the root that cannot be listed is skipped, not an error
            assert not d.errors and any(r.startswith("cannot be listed: permission denied") for _, r in d.skipped), d
        finally:
            cli.chmod(0o755)


def test_default_source_root() -> None:
    a = KiroAdapter()
    assert a.default_source_root({"KIRO_HOME": "/k", "HOME": "/h"}) == Path("/k")
    assert a.default_source_root({"HOME": "/h"}) == Path("/h")
    assert a.default_source_root({"USERPROFILE": r"C:\Users\me"}) == Path(r"C:\Users\me")
    assert a.default_source_root({}) == Path.home()


@pytest.mark.parametrize("rel", [".local/share/kiro-cli", "Library/Application Support/kiro-cli", "AppData/Local/kiro-cli", ".local/share/amazon-q"])
def test_databases_per_platform(tmp_path: Path, rel: str) -> None:
    import sqlite3

    db = tmp_path / rel / "data.sqlite3"
    db.parent.mkdir(parents=True)
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE conversations (key TEXT PRIMARY KEY, value TEXT)")
    con.execute("INSERT INTO conversations VALUES ('/w', '{\"conversation_id\":\"c-1\",\"history\":[]}')")
    con.commit()
    con.close()
    disc = KiroAdapter().discover(tmp_path)
    assert not disc.errors and not disc.skipped
    assert [(s.session, s.mode, s.path, s.src) for s in disc.sources] == [
        ("c-1", "document", db, f"{rel}/data.sqlite3#conversations/%2Fw")]


def test_links_out_of_the_source_root_are_skipped_and_links_inside_followed(tmp_path: Path) -> None:
    """A symbolic link found while listing that leads out of the root (and out of the Kiro home) lands nothing."""
    outside = tmp_path / "outside"
    _w(outside / "secret.jsonl", b'{"secret":true}\n')
    _w(outside / f"sess_{C}" / "messages.jsonl", b"{}\n")
    home = tmp_path / "home"
    cli = home / ".kiro" / "sessions" / "cli"
    _w(cli / f"{P}.jsonl", b"{}\n")
    os.symlink(outside / "secret.jsonl", cli / f"{C}.jsonl")  # a 2.x transcript out of the root
    ws = home / ".kiro" / "sessions" / "abcdef0123456789"
    ws.mkdir()
    os.symlink(outside / f"sess_{C}", ws / f"sess_{C}")  # a 3.x session directory out of the root
    _w(home / "kept" / "messages.jsonl", b"{}\n")
    _w(ws / f"sess_{P}" / "session.json", {"schemaVersion": "1.0.0", "id": f"sess_{P}"})
    os.symlink(home / "kept" / "messages.jsonl", ws / f"sess_{P}" / "messages.jsonl")  # inside the root: followed
    disc = KiroAdapter().discover(home)
    assert _by(disc) == {
        (P, "transcript", "", f".kiro/sessions/cli/{P}.jsonl"),
        (f"sess_{P}", "agent_meta", "", f".kiro/sessions/abcdef0123456789/sess_{P}/session.json"),
        (f"sess_{P}", "transcript", "", f".kiro/sessions/abcdef0123456789/sess_{P}/messages.jsonl"),
    }
    skipped = dict(disc.skipped)
    assert skipped[str(cli / f"{C}.jsonl")] == f"a symbolic link to {outside / 'secret.jsonl'}, outside the source root"
    assert skipped[str(ws / f"sess_{C}")] == f"a symbolic link to {outside / f'sess_{C}'}, outside the source root"
    assert disc.errors == []
    # a home whose .kiro is itself a link (a dotfiles checkout) is still read, with the links inside it
    dotfiles = tmp_path / "dotfiles"
    os.rename(home / ".kiro", dotfiles)
    os.symlink(dotfiles, home / ".kiro")
    os.symlink(dotfiles / "sessions" / "cli" / f"{P}.jsonl", dotfiles / "sessions" / "cli" / "33333333.jsonl")
    assert (P, "transcript", "", f".kiro/sessions/cli/{P}.jsonl") in _by(KiroAdapter().discover(home))
    assert ("33333333", "transcript", "", ".kiro/sessions/cli/33333333.jsonl") in _by(KiroAdapter().discover(home))


def test_links_that_lead_nowhere_are_skipped_once_not_errors(tmp_path: Path) -> None:
    """A broken link or a loop in a Kiro folder is skipped with why; a session's own transcript that is such a
    link is an error (issue 23); the other sessions are found whole."""
    cli = tmp_path / ".kiro" / "sessions" / "cli"
    _w(cli / f"{P}.json", {"session_id": P, "created_at": "x", "parent_session_id": None})
    _w(cli / f"{P}.jsonl", b"{}\n")
    ws = tmp_path / ".kiro" / "sessions" / "ws1"
    _w(ws / "sess_abc" / "messages.jsonl", b"{}\n")
    os.symlink("missing.json", cli / "notes.json")
    os.symlink("loop", cli / "loop")
    os.symlink("gone", tmp_path / ".kiro" / "sessions" / "ws2")
    os.symlink("nothere.jsonl", cli / f"{C}.jsonl")  # a session's own transcript
    os.symlink("nothere.jsonl", ws / "sess_def")
    (ws / "sess_ghi").mkdir()
    os.symlink("../nothere.jsonl", ws / "sess_ghi" / "messages.jsonl")  # a 3.x session's own transcript
    d = KiroAdapter().discover(tmp_path)
    assert {(s.session, s.kind) for s in d.sources} == {(P, "transcript"), (P, "agent_meta"), ("sess_abc", "transcript")}
    skipped = sorted((Path(p).relative_to(tmp_path).as_posix(), r) for p, r in d.skipped)
    assert skipped == [
        (".kiro/sessions/cli/loop", "a symbolic link to loop, which leads nowhere"),
        (".kiro/sessions/cli/notes.json", "a symbolic link to missing.json, which leads nowhere"),
        (".kiro/sessions/ws1/sess_def", "a symbolic link to nothere.jsonl, which leads nowhere"),
        (".kiro/sessions/ws2", "a symbolic link to gone, which leads nowhere"),
    ]
    errors = sorted((Path(p).relative_to(tmp_path).as_posix(), m) for p, m in d.errors)
    assert errors == [
        (f".kiro/sessions/cli/{C}.jsonl", "the session file is a symbolic link to nothere.jsonl, which leads nowhere"),
        (".kiro/sessions/ws1/sess_ghi/messages.jsonl", "the session file is a symbolic link to ../nothere.jsonl, which leads nowhere"),
    ]
