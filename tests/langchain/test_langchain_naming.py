"""Thread → session naming parity with the original's fixtures (conformance/fixtures/identity.json, ownership.json)."""

from __future__ import annotations

import json

import pytest

from asz_adapters_langchain.naming import conversation_values, session_name, unsupplied_session


def _cases(shared_dir, name):
    path = shared_dir / "conformance" / "fixtures" / name
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return json.loads(path.read_text(encoding="utf-8"))


def test_identity_parity(shared_dir):
    """Every (values → id) case of identity.json names the same session."""
    cases = _cases(shared_dir, "identity.json")
    assert cases
    for c in cases:
        assert session_name(c["values"]) == c["id"], c["values"]


def test_ownership_parity(shared_dir):
    """Every (project, metadata, keys, scope → values, id) case of ownership.json, 'not supplied' included."""
    cases = _cases(shared_dir, "ownership.json")
    assert cases
    for c in cases:
        values = conversation_values(c["project"], c["metadata"], c["keys"], c["scope"])
        assert values == c["values"], c
        assert (session_name(values) if values is not None else "") == c["id"], c


def test_unsupplied_sessions_are_never_merged():
    """Two traces without a thread key land in two sessions; the same trace always in the same one."""
    a, b = unsupplied_session("p", "trace-1"), unsupplied_session("p", "trace-2")
    assert a != b and a == unsupplied_session("p", "trace-1")
    assert a.startswith("ls-p-trace-")
