"""A conversation whose round chain is damaged with no round left that verifies is read from its landed records in
memory, as asz parse would write its rounds (trial 29a F8: a round truncated by 500 bytes made the conversation
``unreadable`` in ``asz ls`` and ``asz export`` wrote nothing, though every landed file verified; the repair,
``asz parse --anew``, needs a writable root). docs/reading.md, "A damaged chain".

Real input: the collected corpus root (a copy), every conversation's one round file truncated by 500 bytes with
``os.truncate`` as ``truncate -s -500`` does; each document is compared with the one the intact copy gives, byte for
byte (orjson), all but the summary's state, problems and the figures a conversation that does not verify holds back
(``hold_back_figures``, applied to the intact summary, must give the damaged one). The head digest built in memory is
compared with the 12 hex digits the damaged round file's own name carries (written by the collect, not this code)."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import orjson
import pytest

from cli_helpers import asz_in_process as asz
from reading_helpers import tree_listing as _listing, write_bits as _chmod

NOTE = "chain damaged: read from the landed records, not from the chain"


def _truncate_rounds(root: Path) -> dict[str, Path]:
    """Every conversation's round 1 cut by 500 bytes; conversation -> the round file."""
    out = {}
    for f in sorted(root.glob("_conversations/*/rounds/r000001-*.sf")):
        mode = stat.S_IMODE(f.stat().st_mode)
        os.chmod(f, mode | stat.S_IWUSR)
        os.truncate(f, f.stat().st_size - 500)
        os.chmod(f, mode)
        out[f.parent.parent.name] = f
    return out


@pytest.fixture(scope="module")
def roots(corpus_copy, tmp_path_factory):
    base = tmp_path_factory.mktemp("chain-in-memory")
    intact = corpus_copy(base / "intact")
    damaged = base / "damaged"
    shutil.copytree(intact, damaged, symlinks=True)
    rounds = _truncate_rounds(damaged)
    assert len(rounds) == len(list((intact / "_conversations").iterdir())) > 5
    return intact, damaged, rounds


def test_the_document_read_in_memory_is_the_intact_chains(roots):
    from asz_core.view.document import HELD_SUMMARY_KEYS, build_view

    intact, damaged, rounds = roots
    for cid, f in rounds.items():
        want, got = build_view(intact, cid), build_view(damaged, cid)
        ws, gs = want.pop("summary"), got.pop("summary")
        assert orjson.dumps(got) == orjson.dumps(want), cid
        assert got["head"]["digest"][:12] == f.name[len("r000001-"):-len(".sf")]  # the round collect wrote, bytes and all
        assert gs["state"] == "mismatch" and ws["state"] == "verified"
        assert any(p.startswith("round 1 does not verify: ") and f.name in p for p in gs["problems"]), gs["problems"]
        assert any(p.startswith(NOTE) for p in gs["problems"])
        # what a conversation that does not verify holds back, and nothing else, differs
        assert gs["held_back"] == {"state": "mismatch", "keys": list(HELD_SUMMARY_KEYS), "calls": ws["calls_with_usage"]}
        assert all(gs[k] is None for k in HELD_SUMMARY_KEYS)
        left = set(HELD_SUMMARY_KEYS) | {"state", "problems", "held_back", "cost_by_kind_line"}
        assert [k for k in gs if k not in left] == [k for k in ws if k not in left]
        assert all(orjson.dumps(gs[k]) == orjson.dumps(ws[k]) for k in gs if k not in left), cid


def test_readers_read_it_and_say_so(roots, tmp_path):
    intact, damaged, rounds = roots
    cid = sorted(rounds)[0]
    p = asz("ls", "--root", str(damaged))
    assert p.returncode == 0
    row = next(line for line in p.stdout.splitlines() if line.startswith(cid[:8]))
    assert row.endswith("mismatch in memory") and "unreadable" not in p.stdout
    assert f"in memory: " in p.stderr and NOTE in p.stderr and cid[:8] in p.stderr
    rows = orjson.loads(asz("ls", "--json", "--root", str(damaged)).stdout)
    assert len(rows) == len(rounds) and {r["state"] for r in rows} == {"mismatch"}
    assert all(any(str(x).startswith(NOTE) for x in r["problems"]) for r in rows)

    out_d, out_i = tmp_path / "d.md", tmp_path / "i.md"
    e = asz("export", cid[:8], "--root", str(damaged), "--out", str(out_d))
    assert e.returncode == 1 and NOTE in e.stderr  # damaged evidence: named, exit 1, the copy written
    asz("export", cid[:8], "--root", str(intact), "--out", str(out_i))
    d, i = out_d.read_text().splitlines(), out_i.read_text().splitlines()
    head = next(n for n, line in enumerate(i) if line.startswith("## "))  # the header: state, tokens and cost differ
    assert d[len(d) - (len(i) - head):] == i[head:]  # every talk, word for word

    u = asz("usage", "--root", str(damaged))
    assert u.returncode == 1 and NOTE in u.stderr
    c = asz("conversation", cid[:8], "--root", str(damaged))
    assert c.returncode == 1 and f"{cid}: {NOTE}" in c.stderr and "state mismatch" in c.stdout


def test_a_read_only_copy_reads_it_without_a_write(roots, tmp_path):
    _, damaged, rounds = roots
    ro = tmp_path / "ro"
    shutil.copytree(damaged, ro, symlinks=True)
    shutil.rmtree(ro / "_index")  # no figure cache, no search index: everything is read from the files
    os.mkdir(ro / "_index")
    shutil.copy(damaged / "_index" / "ids.sqlite", ro / "_index" / "ids.sqlite")
    _chmod(ro, write=False)
    try:
        before = _listing(ro)
        cid = sorted(rounds)[0]
        a = asz("export", cid[:8], "--root", str(ro), "--out", str(tmp_path / "ro.md"))
        b = asz("export", cid[:8], "--root", str(damaged), "--out", str(tmp_path / "rw.md"))
        assert a.returncode == b.returncode == 1
        assert (tmp_path / "ro.md").read_text().replace(str(ro), "R") == (tmp_path / "rw.md").read_text().replace(str(damaged), "R")
        assert "id table" not in a.stderr  # the root's id table read as it is, never written
        p = asz("ls", "--root", str(ro))
        assert "unreadable" not in p.stdout and p.stdout.count("mismatch in memory") == len(rounds)
        assert _listing(ro) == before, f"a reader wrote into the read-only root (uid {os.getuid()})"
    finally:
        _chmod(ro, write=True)
