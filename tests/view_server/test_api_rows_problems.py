"""``/api/conversations`` rows carry ``problems`` in the words ``asz ls --json`` rows give them (session 13: the page's
rows had none): a verified conversation whose document lists a missing companion file, one whose landed file was
damaged (``mismatch``), one no round of which folds (``unreadable``: its one problem), and the others (``[]``).

Real input: the corpus collected once by the real ``asz collect --once``; one byte of a landed file and one of a
round changed, as a person with write access would; a real ``asz view`` on loopback.
"""

from __future__ import annotations

import json

from cli_helpers import asz_in_process, cut_first_landed, damage_round
from view_server_helpers import counted_rows

SPOTTER = "8463c716-a2ea-4c14-9efa-87158ebd9f20"  # cites a tool-results/ file the corpus does not hold
UNREADABLE = "55604662-cf2a-4331-851a-ec234028f8ca"


def _damage_a_landed_file(root) -> str:
    """Change one byte inside the first record of another conversation's first transcript file; its conversation."""
    for conv in sorted(p.name for p in (root / "_conversations").iterdir()):
        if conv in (SPOTTER, UNREADABLE):
            continue
        files = sorted((root / conv / "streams" / "main").glob("*.sd")) if (root / conv).is_dir() else []
        if files:
            data = bytearray(files[0].read_bytes())
            at = data.index(b"\n") + 10  # inside the first record line
            data[at] = ord("x") if data[at] != ord("x") else ord("y")
            files[0].write_bytes(bytes(data))
            return conv
    raise AssertionError("no conversation with a landed transcript file to damage")


def test_rows_carry_the_problems_asz_ls_gives(corpus_copy, serve):
    root = corpus_copy()
    damage_round(root, UNREADABLE)
    cut_first_landed(root, UNREADABLE)  # nor read from its landed records in memory (trial 29a F8)
    damaged = _damage_a_landed_file(root)
    # the server counts first (its own summaries, not the entries asz ls would store), then asz ls from the files
    rows = {r["id"]: r for r in counted_rows(serve(root))}
    p = asz_in_process("ls", "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    ls = {r["id"]: r for r in json.loads(p.stdout)}
    assert ls[SPOTTER]["state"] == "verified" and ls[SPOTTER]["problems"][0].startswith("missing companion file tool-results/")
    assert ls[UNREADABLE]["state"] == "unreadable" and ls[UNREADABLE]["problems"] == [ls[UNREADABLE]["problem"]]
    assert ls[damaged]["state"] == "mismatch" and ls[damaged]["problems"]
    assert any(r["problems"] == [] for r in ls.values())
    assert set(rows) == set(ls)
    for cid, row in rows.items():
        assert row["problems"] == ls[cid]["problems"], cid
