"""A RAG chain's dict answer that only repeats its model's reply and its own input is drawn once (review50 of 846419c5).

``RunnablePassthrough.assign(answer=prompt | model | StrOutputParser())`` returns ``{"question": <its input>, "answer":
<the model's reply>}``. langsmith-ingest 0.16.0 (8e576c34) drew it as the chain's answer beside the model call's reply,
so the reply read twice and ``asz search`` found it twice. Now a dict whose every value is a reply of the trace's model
call or the run's input of that key (the text its first record landed) stays listed under ``dropped``, naming where
each value is; one that adds a value no record holds (``sources``) is still the answer, whole.

Real data: chain_rag_app.py, the official langchain-core and LangSmith clients posting to a real receiver on loopback,
collected by the real ``asz collect``; what was posted is read from the receiver's staged arrivals."""

from __future__ import annotations

import json

from langchain_helpers import landed_records, traced_and_collected

#: What chain_rag_app.py's chains return, worked out from their steps; and the fake model's reply in each.
EXPECTED = {"rag": {"question": "where koala?", "answer": "RAGANSWER koala"},
            "sources": {"question": "where wombat?", "sources": ["kb/koala.md", "kb/wombat.md"], "answer": "SRCANSWER wombat"}}
REPLY = {"rag": "RAGANSWER koala", "sources": "SRCANSWER wombat"}


def test_a_dict_answer_repeating_the_reply_and_input_is_drawn_once(tmp_path, receiver_factory, run_asz):
    root = tmp_path / "root"
    posted = traced_and_collected(receiver_factory(root), tmp_path, "chain_rag_app.py", run_asz, project="rag",
                                  says=json.dumps(EXPECTED, sort_keys=True))
    firsts = {a["run"]["name"]: a["id"] for a in posted if a["op"] == "post" and not a["run"].get("parent_run_id")}
    ends = {a["run"]["name"]: a["run"] for a in posted if a["run"].get("end_time") and a["id"] in firsts.values()}
    assert {n: r["outputs"] for n, r in ends.items()} == {f"{t}_chain": v for t, v in EXPECTED.items()}  # what was posted
    assert {n: ends[n].get("inputs") or next(a["run"]["inputs"] for a in posted if a["id"] == firsts[n] and a["op"] == "post")
            for n in ends} == {f"{t}_chain": {"question": v["question"]} for t, v in EXPECTED.items()}
    landed = landed_records(root)
    for thread, out in EXPECTED.items():
        [sid] = [p.name for p in root.iterdir() if p.name.startswith(f"ls-rag-{thread}-")]
        doc = json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout)
        whole = json.dumps(out, separators=(",", ":"))
        drawn = [REPLY[thread]] if thread == "rag" else [REPLY[thread], whole]  # sources: no record holds the list
        assert [t.get("reply") for t in doc["talks"]] == [drawn[-1]], (thread, doc["talks"])
        word = REPLY[thread].split()[0]
        hits = json.loads(run_asz("search", word, "--json", "--root", str(root)).stdout)
        assert len(hits) == len(drawn) and {h["conversation"] for h in hits} == {sid}, (thread, hits)
        rid = firsts[f"{thread}_chain"]
        size = len(json.dumps(ends[f"{thread}_chain"]["outputs"], separators=(",", ":")).encode())
        listed = [d.why for r in landed.values() if r.id in (rid, f"{rid}:patch:1") for d in r.dropped
                  if d.what == "outputs" and d.bytes == size]
        if thread == "rag":  # listed once, saying where each value is: the model call's reply, the run's own input
            [why] = listed
            assert "answer: a reply of the trace's model call" in why and "question: the run's input of that key" in why, why
        else:
            assert listed == [], listed
            assert "kb/koala.md" in run_asz("export", sid, "--format", "md", "--root", str(root)).stdout
    v = run_asz("verify", "--root", str(root), check=False)
    assert v.returncode == 0, v.stdout + v.stderr
