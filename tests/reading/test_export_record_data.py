"""A person's prompt whose record also holds data (a LangGraph chain run's envelope) is exported as the prompt, the
envelope drawn apart as the record's other parts (trial 20, F11: ``asz export --format md`` printed the envelope after
the prompt as if the person had typed it).

Real input: the first run of a LangGraph trace as the LangSmith client posts it (name ``LangGraph``, ``run_type``
chain, ``dotted_order``, ``tags``, ``metadata.ls_integration``), staged in the ingest inbox as the receiver writes it
and landed by ``asz collect --once --adapter langsmith-ingest``.
"""

from __future__ import annotations

import json

from reading_helpers import asz

from asz_core.reading.export import RECORD_DATA

RUN = "01a23f95-3205-7328-8231-23b85f085e59"
PROMPT = "What is 2 + 3? Use the add tool."


def test_the_prompt_is_the_person_s_words_and_the_envelope_apart(tmp_path):
    inbox = tmp_path / "root" / "_ingest" / "langsmith" / "inbox"
    inbox.mkdir(parents=True)
    run = {"id": RUN, "name": "LangGraph", "run_type": "chain", "start_time": "2026-12-04T05:44:32.005675+00:00",
           "trace_id": RUN, "dotted_order": f"20261204T054432005675Z{RUN}", "tags": [], "session_name": "trial20",
           "inputs": {"messages": [{"role": "user", "content": PROMPT}]},
           "extra": {"metadata": {"ls_integration": "langgraph", "thread_id": "t-one"}}}
    (inbox / "001.jsonl").write_text(json.dumps({"op": "post", "id": RUN, "run": run}) + "\n")
    root = tmp_path / "root"
    asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root))
    cid = next(p.name for p in root.iterdir() if not p.name.startswith("_"))
    md = asz("export", cid, "--format", "md", "--root", str(root)).stdout
    person = md.index("**Person**")
    said = md[person:].split("\n\n")
    assert said[1] == PROMPT  # the person's words alone, then the envelope under its own line
    assert said[2] == f"*{RECORD_DATA}*" and said[3].startswith("```json\n{") and '"dotted_order"' in said[3]
    html = asz("export", cid, "--format", "html", "--root", str(root)).stdout
    at = html.index(f"<div class=\"said\">{PROMPT}</div></div>")  # as written (trial 36c F1)
    assert html.index(f"<details class=\"step other data\"><summary>{RECORD_DATA}</summary><pre>{{", at) > at
    assert "dotted_order" not in html[:at]
