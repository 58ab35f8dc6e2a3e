"""A --root that does not exist is said alike by every reader (trial 12: ``asz conversation`` said ``no rounds: …
has no chain under …/_conversations/079c/rounds`` and ``asz verify`` ``PATH: no storage root here``), each with its
own exit status as before: 1 for the readers, 2 for verify (a usage error there; docs/reading.md). A new user's report:
``asz ls`` said ``asz conversations: …`` and only verify said how to name a root: each now names the command typed
(``ls`` is the alias of ``conversations``) and every one gives verify's hint. parse, prune and push, which change a
root, say it in the same words too (exit 2)."""

from __future__ import annotations

import pytest

from cli_helpers import asz_in_process

READERS = [(("ls",), "ls", 1), (("conversations",), "conversations", 1), (("usage",), "usage", 1),
           (("search", "hello"), "search", 1), (("conversation", "079c"), "conversation", 1), (("export", "079c"), "export", 1),
           (("show", "079c", "tool/x"), "show", 1), (("verify",), "verify", 2),
           # the commands that change a root, in the same words (trial 19, F19: they said ``PATH: no storage root here``)
           (("parse",), "parse", 2), (("prune",), "prune", 2), (("push", "--endpoint", "http://127.0.0.1:9"), "push", 2)]


@pytest.mark.parametrize("args,name,code", READERS, ids=[r[1] for r in READERS])
def test_a_missing_root_is_said_alike(tmp_path, args, name, code):
    gone = tmp_path / "not-here"
    p = asz_in_process(*args, "--root", str(gone))
    assert (p.returncode, p.stdout) == (code, "")
    assert p.stderr == f"asz {name}: no storage root at {gone} (give --root DIR or set storage.root)\n", p.stderr
    assert not gone.exists()


def test_the_configured_root_is_said_with_the_command_typed(tmp_path, monkeypatch):
    """No --root and no asz.yaml: the default root ``data`` of the working folder, named by ``asz ls`` as ``ls``."""
    monkeypatch.chdir(tmp_path)
    p = asz_in_process("ls")
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr == f"asz ls: no storage root at data (that is {tmp_path / 'data'}; give --root DIR or set storage.root)\n"
    assert p.stderr.startswith("asz ls: ") and not (tmp_path / "data").exists()
