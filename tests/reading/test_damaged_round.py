"""A round whose bytes changed says what to do about it (trial 4, F6).

Real input: the corpus collected once by the real ``asz collect --once`` (tests/conftest.py), then one byte of a
conversation's round changed, as a person with write access would. Rounds are derived from the landed files: the
hint of ``asz conversation`` and of ``asz parse`` is to move the rounds aside, and that hint, followed, gives the
conversation back with the same document as before the damage.
"""

from __future__ import annotations

import json
import shutil

from reading_helpers import asz

SID = "55604662-cf2a-4331-851a-ec234028f8ca"


def test_a_damaged_round_names_the_way_back_and_the_way_works(corpus_copy, tmp_path):
    root = corpus_copy()
    before = json.loads(asz("conversation", SID, "--json", "--root", str(root)).stdout)
    rounds = root / "_conversations" / SID / "rounds"
    (rf,) = sorted(rounds.glob("*.sf"))
    data = bytearray(rf.read_bytes())
    at = data.index(b'"talks":') + len(b'"talks":')
    data[at] = ord("9") if data[at] != ord("9") else ord("8")
    rf.chmod(0o644)
    rf.write_bytes(bytes(data))

    p = asz("conversation", SID, "--root", str(root), check=False)
    assert p.returncode == 1
    assert "its round chain does not verify" in p.stderr and f"move {rounds} aside" in p.stderr
    assert "has no conversation chain" not in p.stderr  # it has one: the old hint sent the reader to a parse that refused
    p = asz("parse", SID, "--root", str(root), check=False)
    assert p.returncode == 1
    assert "does not match the bytes before it" in p.stderr and f"move {rounds} aside" in p.stderr

    rounds.rename(tmp_path / "rounds-kept")  # the hint, followed
    assert asz("parse", SID, "--root", str(root)).returncode == 0
    assert asz("verify", "--root", str(root)).returncode == 0
    after = json.loads(asz("conversation", SID, "--json", "--root", str(root)).stdout)
    assert after == before
