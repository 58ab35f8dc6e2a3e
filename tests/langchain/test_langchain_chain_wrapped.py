"""A chain's answer that LangChain wrapped reads as the value it returned (review50 of 8e576c34, trial 50c F1).

LangChain posts a chain's return value that is no dict as ``{"output": value}``. langsmith-ingest 0.16.0 read any such
value but a string as the wrapper's JSON text, so a chain that returned None drew the reply ``{"output":null}`` (an
answer the app never gave) and one that returned 42 the reply ``{"output":42}``. Now the wrapped value is read: 42 reads
``42``, a list its JSON text, and None no answer at all (its outputs listed under dropped, as before 0.16.0).

Real data: chain_wrapped_app.py, the official langchain-core and LangSmith clients posting to a real receiver on
loopback, collected by the real ``asz collect``; what was posted is read from the receiver's staged arrivals."""

from __future__ import annotations

import json

from langchain_helpers import landed_records, traced_and_collected

#: What chain_wrapped_app.py's chains return.
VALUES = {"none": None, "number": 42, "list": ["LISTA", "LISTB"]}


def test_a_wrapped_value_reads_as_the_value_and_none_is_no_answer(tmp_path, receiver_factory, run_asz):
    root = tmp_path / "root"
    posted = traced_and_collected(receiver_factory(root), tmp_path, "chain_wrapped_app.py", run_asz, project="wrapped",
                                  says=json.dumps(VALUES, sort_keys=True))
    ends = {a["run"]["name"]: a["run"]["outputs"] for a in posted if a["run"].get("end_time")}
    assert ends == {f"{t}_chain": {"output": v} for t, v in VALUES.items()}  # what the client posted: wrapped
    landed = landed_records(root)
    for thread, value in VALUES.items():
        [sid] = [p.name for p in root.iterdir() if p.name.startswith(f"ls-wrapped-{thread}-")]
        doc = json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout)
        want = None if value is None else json.dumps(value, separators=(",", ":"))
        assert [t.get("reply") for t in doc["talks"]] == [want], (thread, doc["talks"])
        md = run_asz("export", sid, "--format", "md", "--root", str(root)).stdout
        assert '{"output"' not in md, (thread, md)
        rid = next(a["id"] for a in posted if a["op"] == "post" and a["run"]["name"] == f"{thread}_chain")
        # the end's outputs: listed by the record of its end when no answer (None), else carried by that record
        size = len(json.dumps({"output": value}, separators=(",", ":")).encode())
        listed = [d.what for r in landed.values() if r.id == f"{rid}:patch:1" for d in r.dropped if d.what == "outputs" and d.bytes == size]
        assert listed == (["outputs"] if value is None else []), (thread, listed)
    v = run_asz("verify", "--root", str(root), check=False)
    assert v.returncode == 0, v.stdout + v.stderr
