"""A one-shot collect that ends pending says why on stderr (trial 32a F9: ``collect --once`` exited 1 with
``pending=309`` and nothing on stderr; the rule, tried again on the next 3 passes, was only in the docs).

A patch whose run's post never came, staged in the inbox as the receiver stages it, then real
``asz collect --once`` passes: each of the first three says how many passes are left (the rule: tried again on up to 3 later passes), and the fourth lands it (exit 0, no note)."""

from __future__ import annotations

import json


def test_pending_arrivals_are_said(tmp_path, run_asz):
    root = tmp_path / "root"
    inbox = root / "_ingest" / "langsmith" / "inbox"
    inbox.mkdir(parents=True)
    run = {"id": "r-lost", "trace_id": "t-1", "dotted_order": "20261205T175408000000Zt-1.20261205T175409000000Zr-lost",
           "end_time": "2026-12-05T17:54:10.000000Z", "outputs": {"output": "done"}}
    (inbox / "001.jsonl").write_text(json.dumps({"op": "patch", "id": "r-lost", "run": run,
                                                 "received": "2026-12-05T17:54:10.100000Z"}) + "\n")
    said = []
    for left in (3, 2, 1):
        p = run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), check=False)
        assert p.returncode == 1 and "pending=1 " in p.stdout, p.stdout + p.stderr
        said.append(p.stderr)
        assert (f"pending=1: run r-lost: a patch waiting for its run's post: tried again on the next {left} pass(es), "
                "then landed with what is known") in p.stderr, p.stderr
    p = run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), check=False)
    assert p.returncode == 0 and "pending=0 " in p.stdout and "pending=1:" not in p.stderr, p.stdout + p.stderr
