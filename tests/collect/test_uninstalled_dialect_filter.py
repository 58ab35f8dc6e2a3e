"""``--dialect`` of a plugin uninstalled since its conversations landed filters them (trial 35a F6).

A root collected by a third-party adapter (tests/collect/mini_adapter.py, loaded with ``--adapter-file``: dialect
``mini/1``) is read with no such adapter installed. Before, ``asz ls --dialect mini`` exited 2 (``no installed adapter
speaks dialect 'mini'``) while ``asz ls`` listed the conversation with that dialect. A dialect neither installed nor
landed is still a usage error (trial 29b F3).
"""

from __future__ import annotations

import orjson

from collect_helpers import append, asz, collect_once, line


def test_a_landed_dialect_filters_with_its_adapter_gone(tmp_path):
    src, root = tmp_path / "src", tmp_path / "root"
    append(src / "s1" / "main.jsonl", line(0), line(1))
    assert collect_once(src, root).returncode == 0
    every = orjson.loads(asz("ls", "--json", "--root", str(root)).stdout)
    assert [(r["id"], r["dialect"]) for r in every] == [("s1", "mini/1")]
    for asked in ("mini", "mini/1"):
        p = asz("ls", "--json", "--root", str(root), "--dialect", asked)
        assert p.returncode == 0, p.stderr
        assert [r["id"] for r in orjson.loads(p.stdout)] == ["s1"]
        assert (f"note: asz ls: --dialect {asked}: no installed adapter speaks it; the conversations landed in it are "
                "read as they landed (asz adapters list)") in p.stderr
    u = asz("usage", "--json", "--root", str(root), "--dialect", "mini")  # filtered: the mini records hold no call
    assert u.returncode == 1, u.stderr
    assert f"asz usage: no model call in {root} matches --dialect 'mini'" in u.stderr
    bad = asz("ls", "--root", str(root), "--dialect", "minj")
    assert bad.returncode == 2
    assert "asz ls: --dialect: no installed adapter speaks dialect 'minj'; installed: " in bad.stderr
