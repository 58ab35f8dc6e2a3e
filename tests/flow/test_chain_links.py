"""``Chain.refuse_links`` (its three ``lstat`` calls joined as strings since session 48, issue 22) refuses exactly what
:func:`asz_core.sessiondata.nolink.refuse_link`, the rule for any path under a root, refuses for the chain's
``rounds/``: the same part named, in the same words, and nothing where no part is a link (one missing included)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from asz_core.flow.chain import Chain
from asz_core.sessiondata.nolink import LinkRefused, refuse_link

CONV = "c0ffee00-0000-4000-8000-000000000001"


def _said(call) -> tuple[str, str] | None:
    """``(filename, words)`` of the LinkRefused ``call()`` raises; None when it raises nothing."""
    try:
        call()
    except LinkRefused as exc:
        return exc.filename, str(exc)
    return None


def _root(tmp: Path, linked: str | None, missing: bool = False) -> Path:
    """A root whose chain ``CONV`` has ``rounds/``; ``linked`` (``_conversations``, ``chain``, ``rounds``) that part
    moved outside and a symbolic link left in its place; ``missing``: no ``rounds/``."""
    root = tmp / "root"
    rounds = root / "_conversations" / CONV / "rounds"
    rounds.mkdir(parents=True)
    if missing:
        rounds.rmdir()
    part = {"_conversations": root / "_conversations", "chain": root / "_conversations" / CONV, "rounds": rounds}.get(linked)
    if part is not None:
        away = tmp / "away"
        os.rename(part, away)
        os.symlink(away, part)
    return root


@pytest.mark.parametrize("linked,missing", [(None, False), (None, True), ("_conversations", False), ("chain", False),
                                            ("rounds", False)])
@pytest.mark.parametrize("given", ["abs", "rel", "slash"])
def test_chain_refuses_what_the_rule_refuses(tmp_path, monkeypatch, linked, missing, given):
    root = _root(tmp_path, linked, missing)
    monkeypatch.chdir(tmp_path)
    as_given = {"abs": str(root), "rel": "root", "slash": "./root/"}[given]
    chain = Chain(as_given, CONV)
    want = _said(lambda: refuse_link(as_given, chain.rounds_dir, "the chain folder asz wrote"))
    assert _said(chain.refuse_links) == want
    assert (want is None) == (linked is None)
    if want is not None:
        where = {"_conversations": "_conversations", "chain": f"_conversations/{CONV}", "rounds": f"_conversations/{CONV}/rounds"}
        assert want[0] == str(Path(as_given) / where[linked])
        assert want[1].startswith(f"a symbolic link to {tmp_path / 'away'}, not the chain folder asz wrote")
