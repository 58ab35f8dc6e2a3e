"""A chain's answer is carried, and a model call that ended reads ended (trial 50c F1, F5; langsmith-ingest 0.16.0).

F1: a chain with no model call (``RunnableLambda(upper) | RunnableLambda(…)``, or a lambda returning ``{"answer": …}``)
lost its answer: its first run's ``outputs`` were listed under ``dropped`` and no reader showed or searched them. Now a
chain trace's outputs that no model call's reply and no graph state holds land as its answer (``from: agent``: the
talk's reply), its text the value (a string, or its JSON text); outputs whose text is a model call's reply stay listed
(no answer twice); a decorated function that asked a model answers after it (its end, sent first among its trace's
patches by dotted order, read before the model's reply, so the talk's reply was the model's). F5: langchain-core's fake
chat model states no finish reason, so each of its calls read ``(last snapshot, no end recorded)`` though its run
had ended.

Real data: chain_answers_app.py, the official langchain-core and LangSmith clients posting to a real receiver on
loopback, collected by the real ``asz collect``. Expected answers are computed here from the app's own steps; what was
posted is read from the receiver's staged arrivals (``_ingest/langsmith/done``), never from what asz landed.
"""

from __future__ import annotations

import json
import re

from asz_adapters_langchain.answers import CHAIN_ANSWER_WHY, REPLY_WHY
from asz_adapters_langchain.dialect import ANSWER_WHY
from langchain_helpers import landed_records, traced_and_collected

#: What chain_answers_app.py's four chains return, worked out from their steps.
EXPECTED = {"plain": "PLAINANSWER " + "wombat chain input".upper()[::-1], "dict": {"answer": "DICTANSWER echidna", "score": 3},
            "lcel": "LCELANSWER platypus", "shout": "shoutanswer quoll".upper(), "traced": "tracedanswer wallaby".upper()}
#: The text each thread's answer reads as: the string, or the value's compact JSON text.
TEXT = {k: v if isinstance(v, str) else json.dumps(v, separators=(",", ":")) for k, v in EXPECTED.items()}
#: The model replies each thread's model calls gave (chain_answers_app.py's fake model).
REPLIES = {"plain": [], "dict": [], "lcel": ["LCELANSWER platypus"], "shout": ["shoutanswer quoll"],
           "traced": ["tracedanswer wallaby"]}


def test_a_chains_answer_is_drawn_once_in_every_reader_and_a_call_that_ended_is_ended(tmp_path, receiver_factory, run_asz):
    root = tmp_path / "root"
    posted = traced_and_collected(receiver_factory(root), tmp_path, "chain_answers_app.py", run_asz, project="answers",
                                  says=json.dumps(EXPECTED, sort_keys=True))
    thread_of = {a["id"]: (a["run"].get("extra") or {}).get("metadata", {}).get("thread_id") for a in posted if a["op"] == "post"}
    firsts = {thread_of[a["id"]]: a["id"] for a in posted if a["op"] == "post" and not a["run"].get("parent_run_id")}
    ends = {a["id"]: a["run"] for a in posted if a["run"].get("end_time")}  # a patch, or a post sent with its end
    assert {t: ends[rid]["outputs"] for t, rid in firsts.items()} == {
        t: v if isinstance(v, dict) else {"output": v} for t, v in EXPECTED.items()}  # what the client posted
    posted_whole = {t: bool(a["run"].get("end_time")) for a in posted for t, rid in firsts.items() if a["id"] == rid and a["op"] == "post"}
    llms = [a["id"] for a in posted if a["op"] == "post" and a["run"]["run_type"] == "llm"]
    for rid in llms:  # the fake model states no finish reason, and its run ended
        gen = ends[rid]["outputs"]["generations"][0][0]
        assert not gen.get("generation_info") and "finish_reason" not in gen["message"]["kwargs"].get("response_metadata", {})
    landed = landed_records(root)
    for thread, text in TEXT.items():
        [sid] = [p.name for p in root.iterdir() if p.name.startswith(f"ls-answers-{thread}-")]
        doc = json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout)
        assert [t.get("reply") for t in doc["talks"]] == [text], (thread, doc["talks"])
        lines = re.findall(r"^\[\S+\] (\w+)\n\| (.*)$", run_asz("export", sid, "--format", "text", "--root", str(root)).stdout, re.M)
        assert lines[1:] == [("reply", r) for r in REPLIES[thread]] + ([] if text in REPLIES[thread] else [("reply", text)])
        assert lines[0][0] == "prompt"
        for form in ("md", "html", "json"):
            got = run_asz("export", sid, "--format", form, "--root", str(root)).stdout
            word = text.split()[0] if isinstance(EXPECTED[thread], str) else "DICTANSWER echidna"
            assert word in got, (thread, form)
        md = run_asz("export", sid, "--format", "md", "--root", str(root)).stdout
        assert md.count("Model call ") == len(REPLIES[thread]) and "no end recorded" not in md, (thread, md)
        word = re.search(r"[A-Z]{6,}", text).group(0)
        hits = json.loads(run_asz("search", word, "--json", "--root", str(root)).stdout)
        drawn = REPLIES[thread] + ([] if text in REPLIES[thread] else [text])  # each text drawn once
        assert len(hits) == sum(word.lower() in t.lower() for t in drawn), (thread, hits)
        assert {h["conversation"] for h in hits} == {sid}
        # the first run's outputs: carried by the record of their end, never listed, unless a model reply holds their
        # text, or the client posted the run with its end (its record is the prompt): then said where they are
        rid = firsts[thread]
        listed = [d.why for r in landed.values() if r.id in (rid, f"{rid}:patch:1") for d in r.dropped if d.what == "outputs"
                  and d.bytes == len(json.dumps(ends[rid]["outputs"], separators=(",", ":")).encode())]
        said = REPLY_WHY if thread == "lcel" else None if not posted_whole[thread] else ANSWER_WHY if thread == "traced" else CHAIN_ANSWER_WHY
        assert listed == ([said] if said else []), (thread, listed)
    v = run_asz("verify", "--root", str(root), check=False)
    assert v.returncode == 0, v.stdout + v.stderr
