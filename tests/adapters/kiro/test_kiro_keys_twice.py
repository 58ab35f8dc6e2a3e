"""A Kiro line that gives a key twice in one object (trial 27c F9, every dialect asz lands source JSON of): the last
value is read, as every JSON reader does, and the record lists each earlier value under ``dropped`` (``key given twice
<path>``). Real input: the first line of the corpus's Kiro 3.x ``messages.jsonl`` (a prompt), with a second
``content`` before its own; and every Kiro line of the corpus as written (none gives a key twice, counted with Python's
json)."""

from __future__ import annotations

import json

from asz_adapters_kiro.convert import convert_line
from asz_core import Source
from asz_core.sessiondata.keystwice import TWICE_WHY

SRC = Source(session="s", kind="transcript", path=None, src="messages.jsonl", dialect="kiro/1")  # type: ignore[arg-type]


def test_the_prompt_read_is_the_last_and_the_earlier_one_named(corpus_dir):
    (path,) = (corpus_dir / "kiro").rglob("sess_*/messages.jsonl")
    line = path.read_bytes().split(b"\n")[0]
    head = b'"payload":{"type":"user",'
    assert head in line
    twice = line.replace(head, head + b'"content":"hidden",', 1)
    want = json.loads(twice)["payload"]["content"]  # the last, as Python's json reads it
    rec = convert_line(SRC, twice, 1, 0)
    assert [p.text for p in rec.parts if p.k == "text"] == [want]
    assert [(d.what, d.bytes, d.why) for d in rec.dropped] == [("key given twice payload.content", 8, TWICE_WHY)]
    assert convert_line(SRC, line, 1, 0).dropped == []


def test_no_kiro_line_of_the_corpus_names_one(corpus_dir):
    found = named = lines = 0

    def pairs(p):
        nonlocal found
        found += len({k for k, _ in p}) != len(p)
        return dict(p)

    for path in sorted((corpus_dir / "kiro").rglob("*.jsonl")):
        for i, line in enumerate(x for x in path.read_bytes().split(b"\n") if x):
            lines += 1
            json.loads(line, object_pairs_hook=pairs)
            named += any(d.what.startswith("key given twice ") for d in convert_line(SRC, line, i + 1, 0).dropped)
    assert lines > 10 and named == found == 0
