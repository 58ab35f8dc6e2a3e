"""A round whose bytes changed says what to do about it (trial 4, F6).

Real input: the corpus collected once by the real ``asz collect --once`` (tests/conftest.py), then one byte of a
conversation's round changed, as a person with write access would. Rounds are derived from the landed files: the
hint of ``asz conversation`` and of ``asz parse`` is to move the rounds aside, and that hint, followed, gives the
conversation back with the same document as before the damage.
"""

from __future__ import annotations

import json
import shutil

from cli_helpers import cut_first_landed, damage_round
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
    hint = f"asz parse {SID} --anew --root {root} sets {rounds} aside"
    assert "its round chain does not verify" in p.stderr and hint in p.stderr
    assert "has no conversation chain" not in p.stderr  # it has one: the old hint sent the reader to a parse that refused
    p = asz("parse", SID, "--root", str(root), check=False)
    assert p.returncode == 1
    assert "does not match the bytes before it" in p.stderr and hint in p.stderr

    assert asz("parse", SID, "--anew", "--root", str(root)).returncode == 0  # the hint, followed
    assert list((root / "_set_aside").glob(f"*/**/{rf.name}"))  # the damaged chain kept, not deleted
    assert asz("verify", "--root", str(root)).returncode == 0
    after = json.loads(asz("conversation", SID, "--json", "--root", str(root)).stdout)
    assert after == before


def _first_prompt_and_cwd(path):
    """The first typed prompt (a ``user`` line whose content is a string, not ``isMeta``) and the first ``cwd`` of a source transcript."""
    prompt = cwd = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        cwd = cwd or d.get("cwd") or ""
        if not prompt and d.get("type") == "user" and not d.get("isMeta") and isinstance(d["message"]["content"], str):
            prompt = " ".join(d["message"]["content"].split())
    return prompt, cwd


def test_a_conversation_whose_first_round_is_damaged_is_read_from_its_landed_records(corpus_copy, corpus_source):
    """No round folds, so the conversation is read from its landed records in memory (trial 29a F8): its row keeps
    its talks, title and project (the source's first prompt and ``cwd``, as before the damage), state ``mismatch``,
    figures held back; ``problems`` say which round does not verify and that it was read in memory; STATE says
    ``mismatch in memory`` and stderr the same, with the way back."""
    root = corpus_copy()
    prompt, cwd = _first_prompt_and_cwd(next(corpus_source.glob(f"*/{SID}.jsonl")))
    before = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout)}[SID]
    assert (before["title"], before["project"]) == (prompt, cwd) and "problem" not in before
    rf = damage_round(root, SID)

    p = asz("ls", "--json", "--root", str(root))
    row = {r["id"]: r for r in json.loads(p.stdout)}[SID]
    assert row["state"] == "mismatch" and row["talks"] == before["talks"] > 0 and row["usage"] is None
    assert (row["title"], row["project"]) == (prompt, cwd)
    assert any("round 1 does not verify" in x and rf.name in x for x in row["problems"])
    assert any(x.startswith("chain damaged: read from the landed records, not from the chain") for x in row["problems"])
    assert f"asz ls: in memory: {SID[:8]}: chain damaged: read from the landed records, not from the chain" in p.stderr
    p = asz("ls", "--root", str(root))
    (line,) = [x for x in p.stdout.splitlines() if x.startswith(SID[:8] + "  ")]
    assert prompt[:20] in line and line.rstrip().endswith("claude-code  mismatch in memory")


def test_a_conversation_whose_first_round_and_landed_records_are_damaged_says_why(corpus_copy):
    """Its first round damaged and its first landed file cut too, nothing reads: no figure, state ``unreadable``;
    ``problem`` (and a line under the table, on stderr with ``--json``) says which round does not verify, that the
    landed records do not read either, and the way back; the runtime comes from the landed header."""
    root = corpus_copy()
    rf = damage_round(root, SID)
    landed = cut_first_landed(root, SID)

    p = asz("ls", "--json", "--root", str(root))
    row = {r["id"]: r for r in json.loads(p.stdout)}[SID]
    assert row["state"] == "unreadable" and row["talks"] is None and row["usage"] is None
    # the runtime, from what landed (session 24): the dialect name the landed transcript's header gives
    dialect = json.loads(landed.read_bytes().split(b"\n", 1)[0])["dialect"]
    assert row["runtime"] == {"name": dialect.split("/")[0], "version": ""} and dialect.startswith("claude-code/")
    assert "round 1 does not verify" in row["problem"] and rf.name in row["problem"]
    assert "not read from the landed records either" in row["problem"]
    assert f"asz ls: conversation {SID[:8]} does not read: " in p.stderr and f"asz parse {SID} --anew --root {root}" in p.stderr
    p = asz("ls", "--root", str(root))
    (line,) = [x for x in p.stdout.splitlines() if x.startswith(SID[:8] + "  ")]
    assert line.rstrip().endswith("claude-code  unreadable")
    (said,) = [x for x in p.stdout.splitlines() if x.startswith(f"conversation {SID[:8]} does not read: no usable round")]
    assert "round 1 does not verify" in said and f"asz parse {SID} --anew --root {root} sets" in said
