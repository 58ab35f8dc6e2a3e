"""``asz usage tools`` keeps each conversation's tool calls in the root's summary store and reads them there while the
files are unchanged (trial 40a F5: every run built all 358 conversations again, 3.5 s of CPU where ``asz usage daily``
took 1); ``asz verify --figures`` reads every kept entry again from the evidence (asz_core/reading/tool_cache.py).
A real corpus root (the run's once-collected copy); the forged entry is sealed as asz seals its own, so only reading
it again from the files can tell it."""

from __future__ import annotations

import sqlite3

import orjson
from reading_helpers import asz, asz_json


def test_tools_are_read_from_the_kept_entries_and_verify_figures_reads_them_again(corpus_copy):
    from asz_core.view.summary_seal import seal

    root = corpus_copy()
    cold = asz_json("usage", "tools", "--json", "--root", str(root))
    assert cold["total"]["calls"] > 0 and cold["held_back"] == []
    db = root / "_index" / "summaries.sqlite"
    with sqlite3.connect(db) as con:
        kept = con.execute("SELECT id, hide, fp, entry FROM tools").fetchall()
    assert len(kept) == cold["conversations"]  # one entry per conversation read
    assert asz_json("usage", "tools", "--json", "--root", str(root)) == cold  # the kept entries give the same figures

    cid, hide, fp, entry = next(k for k in kept if orjson.loads(k[3])["calls"])
    forged = orjson.loads(entry)
    forged["calls"][0]["name"] = "forged-tool"
    value = orjson.dumps(forged).decode()
    with sqlite3.connect(db) as con:
        con.execute("UPDATE tools SET entry=?, seal=? WHERE id=? AND hide=?",
                    (value, seal("tools", cid, hide, fp, value), cid, hide))
    read = asz_json("usage", "tools", "--json", "--root", str(root))
    assert "forged-tool" in {r["tool"] for r in read["tools"]}  # read from the store, not the files

    p = asz("verify", "--figures", "--root", str(root), check=False)
    assert p.returncode == 1, p.stdout + p.stderr
    said = p.stdout + p.stderr
    assert f"the cached tool calls of conversation {cid} are not what its files give (calls" in said, said
    assert f"and the cached tool calls of {cold['conversations']} conversation(s) (asz usage tools)" in said, said
    assert asz_json("usage", "tools", "--json", "--root", str(root)) == cold  # removed, read from the files again
