"""``asz verify --figures``: the figures ``asz ls`` and ``asz usage`` print from their cache, counted again from the
evidence (trial 4, F12: an entry of ``_index/summaries.sqlite`` changed with sqlite3 alone was printed as verified).

Real input: the corpus collected by the real ``asz collect --once`` (tests/conftest.py); the truth is counted
straight from the transcripts (:mod:`test_view_usage`), never from asz's own output.
"""

from __future__ import annotations

import json
import sqlite3
from decimal import Decimal

from cli_helpers import asz_in_process
from test_view_usage import sessions_of, source_cost, transcript_calls, transcript_truth

SID = "8463c716-a2ea-4c14-9efa-87158ebd9f20"  # 157 calls, 40,359 output tokens


def _json(*args: str) -> list | dict:
    p = asz_in_process(*args)
    assert p.returncode == 0, p.stdout + p.stderr
    return json.loads(p.stdout)


def _forge(root, reseal: bool) -> None:
    """What the trial did: one conversation's cached row and summary made to say more, no file asz seals touched;
    with ``reseal`` each entry's seal is computed again over the forged bytes (a forger who read asz's code)."""
    from asz_core.view.summary_cache import seal

    con = sqlite3.connect(root / "_index" / "summaries.sqlite")
    ((hide, fp, row),) = con.execute("SELECT hide, fp, row FROM rows WHERE id=?", (SID,)).fetchall()
    d = json.loads(row)
    d["usage"]["out"] += 10_000_000
    d["cost"]["usd"] += 500
    con.execute("UPDATE rows SET row=? WHERE id=? AND hide=?", (json.dumps(d), SID, hide))
    if reseal:
        con.execute("UPDATE rows SET seal=? WHERE id=? AND hide=?", (seal("rows", SID, hide, fp, json.dumps(d)), SID, hide))
    ((hide, fp, entry),) = con.execute("SELECT hide, fp, entry FROM summaries WHERE id=?", (SID,)).fetchall()
    d = json.loads(entry)
    for call in d["calls"]:
        if len(call) > 6:
            call[6] += 100_000  # each call's output tokens
    con.execute("UPDATE summaries SET entry=? WHERE id=? AND hide=?", (json.dumps(d), SID, hide))
    if reseal:
        con.execute("UPDATE summaries SET seal=? WHERE id=? AND hide=?",
                    (seal("summaries", SID, hide, fp, json.dumps(d)), SID, hide))
    con.commit()
    con.close()


def test_an_entry_edited_without_its_seal_is_never_printed_and_plain_verify_says_what_it_did_not_count(corpus_dir, corpus_copy):
    """The cheap check: an entry edited in the database alone no longer matches its seal, so asz ls and asz usage
    count the conversation again from its files (the transcript's figures, not the forged ones); plain asz verify
    says how many cached entries it did not count again, how many do not match their seal, and names --figures."""
    projects, root = corpus_dir / "claude-code/projects", corpus_copy()
    truth = sessions_of(projects)
    want, _ = transcript_truth(truth[SID])
    cost = float(source_cost(transcript_calls(truth[SID])).quantize(Decimal("0.000001")))
    _json("ls", "--json", "--root", str(root))
    _forge(root, reseal=False)
    plain = asz_in_process("verify", "--json", "--root", str(root))
    assert plain.returncode == 0, plain.stdout + plain.stderr
    report = json.loads(plain.stdout)
    # a row and a summary each, and the tools entry the collect's pass kept beside them (kept_whole, session 47)
    assert (report["figures_not_recounted"], report["figures_unsealed"]) == (33, 2)
    text = asz_in_process("verify", "--root", str(root)).stdout
    assert ("33 cached figure entries (_index/summaries.sqlite) not counted again: asz verify --figures does; "
            "2 do not match their seal (edited outside asz): the readers count those again\n") in text
    row = {r["id"]: r for r in _json("ls", "--json", "--root", str(root))}[SID]
    assert row["usage"]["out"] == want["out"] and row["cost"]["usd"] == cost and row["state"] == "verified"
    usage = {r["conversation"]: r for r in _json("usage", "session", "--json", "--root", str(root))}
    assert usage[SID]["usage"]["out"] == want["out"]
    assert json.loads(asz_in_process("verify", "--json", "--root", str(root)).stdout)["figures_unsealed"] == 0


def test_a_forged_cache_entry_is_found_removed_and_counted_again(corpus_dir, corpus_copy):
    # its own copy: it forges the cache, and the shared ``corpus`` root holds whatever caches other tests left
    # (``asz usage`` adds an entry per conversation: 33 cached entries instead of 22 when they ran first; plain
    # verify counts 33 here, the tools entries the collect's pass kept with the rows since session 47 among them)
    projects, root = corpus_dir / "claude-code/projects", corpus_copy()
    truth = sessions_of(projects)
    want, _ = transcript_truth(truth[SID])
    cost = float(source_cost(transcript_calls(truth[SID])).quantize(Decimal("0.000001")))
    rows = {r["id"]: r for r in _json("ls", "--json", "--root", str(root))}
    assert rows[SID]["usage"]["out"] == want["out"] and rows[SID]["cost"]["usd"] == cost
    p = asz_in_process("verify", "--figures", "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"checked 22 cached figure entries of 11 conversation(s) against the evidence" in p.stdout  # a row and a summary each

    _forge(root, reseal=True)  # the seal's limit: entry and seal rewritten together
    forged = {r["id"]: r for r in _json("ls", "--json", "--root", str(root))}[SID]
    assert forged["usage"]["out"] == want["out"] + 10_000_000 and forged["state"] == "verified"  # what the trial saw
    plain = asz_in_process("verify", "--root", str(root))
    assert plain.returncode == 0  # the landed files and rounds are whole: without --figures nothing is counted again
    assert "33 cached figure entries (_index/summaries.sqlite) not counted again: asz verify --figures does\n" in plain.stdout

    p = asz_in_process("verify", "--figures", "--json", "--root", str(root))
    assert p.returncode == 1
    report = json.loads(p.stdout)
    differ = [x for x in report["problems"] if x["problem"] == "figures differ"]
    assert [x["field"] for x in differ] == [f"rows {SID}", f"summaries {SID}"]
    assert "cost.usd" in differ[0]["detail"] and "usage.out" in differ[0]["detail"]
    assert report["figures"] == 22 and report["figures_removed"] == 2

    rows = {r["id"]: r for r in _json("ls", "--json", "--root", str(root))}
    assert rows[SID]["usage"]["out"] == want["out"] and rows[SID]["cost"]["usd"] == cost
    usage = {r["conversation"]: r for r in _json("usage", "session", "--json", "--root", str(root))}
    assert usage[SID]["usage"]["out"] == want["out"]
    assert asz_in_process("verify", "--figures", "--root", str(root)).returncode == 0


def test_figures_needs_a_root(corpus):
    _, root = corpus
    (f, *_) = sorted(root.glob("*/streams/main/*.sd"))
    p = asz_in_process("verify", str(f), "--figures")
    assert p.returncode == 2 and "--figures checks the figures of a root" in p.stderr


def test_plain_verify_counts_only_this_builds_entries_and_says_other_builds_apart(corpus_copy):
    """A store read by several asz builds keeps each one's entries (``SummaryStore.keep_marks``); plain verify counted
    them all as "not counted again", where ``--figures`` checks this build's only (fix49h: 1,651 said, 825 checked on a
    copied root). Another build's entries, planted with a seal that matches, are said apart and never as unsealed."""
    from asz_core.view.summary_cache import MARK_TAG, seal, store_mark

    root = corpus_copy()
    _json("ls", "--json", "--root", str(root))
    mark = MARK_TAG + store_mark()
    con = sqlite3.connect(root / "_index" / "summaries.sqlite")
    ours = planted = 0
    for table, column in (("summaries", "entry"), ("rows", "row"), ("tools", "entry")):
        got = con.execute(f"SELECT id, hide, fp, {column} FROM {table}").fetchall()
        ours += sum(1 for _, hide, _, _ in got if hide.endswith(mark))
        for cid, hide, fp, value in got:
            other = hide[:-len(mark)] + MARK_TAG + "0123456789ab"  # the key another build gives it
            con.execute(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?)", (cid, other, fp, value, seal(table, cid, other, fp, value)))
            planted += 1
    con.commit()
    con.close()
    assert ours and planted == ours
    report = json.loads(asz_in_process("verify", "--json", "--root", str(root)).stdout)
    assert (report["figures_not_recounted"], report["figures_unsealed"], report["figures_other_builds"]) == (ours, 0, planted)
    text = asz_in_process("verify", "--root", str(root)).stdout
    assert (f"{ours} cached figure entries (_index/summaries.sqlite) not counted again: asz verify --figures does; "
            f"{planted} more kept for other asz builds, never read by this one\n") in text
