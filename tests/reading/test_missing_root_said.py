"""A --root that does not exist is said alike by every reader (trial 12: ``asz conversation`` said ``no rounds: …
has no chain under …/_conversations/079c/rounds`` and ``asz verify`` ``PATH: no storage root here``), each with its
own exit status as before: 1 for the readers, 2 for verify (a usage error there; docs/reading.md)."""

from __future__ import annotations

import pytest

from cli_helpers import asz_in_process

READERS = [(("ls",), "conversations", 1), (("usage",), "usage", 1), (("search", "hello"), "search", 1),
           (("conversation", "079c"), "conversation", 1), (("export", "079c"), "export", 1), (("verify",), "verify", 2)]


@pytest.mark.parametrize("args,name,code", READERS, ids=[r[1] for r in READERS])
def test_a_missing_root_is_said_alike(tmp_path, args, name, code):
    gone = tmp_path / "not-here"
    p = asz_in_process(*args, "--root", str(gone))
    assert (p.returncode, p.stdout) == (code, "")
    assert p.stderr.startswith(f"asz {name}: no storage root at {gone}"), p.stderr
    assert not gone.exists()
