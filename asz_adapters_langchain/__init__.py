"""LangChain / LangGraph adapter ``langsmith-ingest`` (dialect ``langsmith/1``; issue 11, origin-digest §5.4).

* :mod:`.receiver` — the LangSmith-compatible HTTP receiver (``asz ingest langsmith``), staging durably;
* :mod:`.inbox` — staged arrivals → per-session append sources (the stateful decisions);
* :mod:`.dialect` — one materialised line → one Session Data record;
* :mod:`.naming` — conversation and session naming (``ls-<slug>-<digest>``);
* :mod:`.glossary` — glossary and flag rules; :mod:`.plugin` — the adapter and its registration.
"""
