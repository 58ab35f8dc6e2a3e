"""The ``kiro/1`` glossary, flag mapping and registration (origin-digest §6; seed 000, Flags)."""

from __future__ import annotations

from importlib.metadata import entry_points

import pytest

from asz_adapters_kiro import KiroAdapter
from asz_adapters_kiro.plugin import asz_register_adapters
from asz_core import FLAGS, VOCABULARY


def test_glossary_covers_the_vocabulary() -> None:
    terms = KiroAdapter().glossary("kiro/1")
    assert [t.unified for t in terms] == list(VOCABULARY)
    for t in terms:
        if t.native:
            assert t.where, f"{t.unified}: a native name needs a where"
        else:
            assert t.note and not t.where, f"{t.unified}: an empty native needs a note and no where"
    named = {t.unified for t in terms if t.native}
    assert {"session", "run", "tool", "agent.call", "epoch.boundary", "epoch.summary", "child", "time", "model"} <= named


def test_flag_map() -> None:
    rules = KiroAdapter().flag_map("kiro/1")
    flags = [r.flag for r in rules]
    assert flags == sorted(flags, key=FLAGS.index) and len(set(flags)) == len(flags)
    assert set(flags) <= set(FLAGS) and all(r.rule for r in rules)
    assert {"context_reset", "reset_summary", "child_result", "external_input"} <= set(flags)


def test_other_dialects_are_refused() -> None:
    with pytest.raises(KeyError):
        KiroAdapter().glossary("claude-code/1")
    with pytest.raises(KeyError):
        KiroAdapter().flag_map("x/1")


def test_registration() -> None:
    assert asz_register_adapters() == [KiroAdapter]
    a = KiroAdapter()
    assert (a.name, a.version, a.identity, a.dialects) == ("kiro", "0.7.0", "kiro/0.7.0", ("kiro/1",))
    assert set(a.kinds) == {"transcript", "agent_meta"}
    eps = {ep.name: ep.value for ep in entry_points(group="asz")}
    assert eps.get("kiro") == "asz_adapters_kiro.plugin"


def test_a_file_landed_by_0_5_0_is_said_to_have_landed_unread_times_as_none() -> None:
    """0.6.0 keeps a time that does not read as Kiro wrote it (trial 30a F8, session 32): a file landed by 0.5.0 says
    it landed none (``asz conversation``'s ``landed by kiro/0.5.0`` line), one landed by 0.6.0 says only 0.7.0's (below), one by 0.7.0 nothing."""
    a = KiroAdapter()
    said = a.landed_without("kiro/1", "kiro/0.5.0")
    assert len(said) == 2 and "does not read" in said[0] and "landed no time" in said[0], said
    assert a.landed_without("kiro/1", "kiro/0.4.0")[-2] == said[0]
    assert a.landed_without("kiro/1", "kiro/0.6.0") == [said[1]]  # 0.7.0: a line not valid UTF-8 described
    assert "not valid UTF-8" in said[1] and a.landed_without("kiro/1", "kiro/0.7.0") == []
