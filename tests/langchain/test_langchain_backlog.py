"""A backlog of staged traffic lands batch by batch, as the passes of a live receiver would (trial 28c F6: a 125 MB
inbox read whole peaked at 717 MB, 5.7×; ``bench/ingest_memory.py`` measures it, docs/performance.md).

Real input: the corpus's recorded tracer batch (a LangGraph react agent, 25 runs) staged as four inbox files in the
order a receiver may have staged them: every run's end (patch) in the first two files, their posts in the last two,
so every patch waits for a post in a later batch. Landed with one batch per file (``BATCH_BYTES`` 1), the records are
those of one pass over the whole inbox, nothing waits and nothing is landed with what is known.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest

from asz_adapters_langchain import inbox as inbox_mod
from langchain_helpers import landed_records

END = ("outputs", "end_time", "error")


def _stage(root, runs):
    box = root / "_ingest" / "langsmith" / "inbox"
    box.mkdir(parents=True)
    patches = [{"op": "patch", "id": r["id"], "run": {k: r[k] for k in ("id", "trace_id", "dotted_order", "parent_run_id", *END) if k in r}}
               for r in runs]
    posts = [{"op": "post", "id": r["id"], "run": {k: v for k, v in r.items() if k not in END}} for r in runs]
    half = len(runs) // 2
    for i, chunk in enumerate((patches[:half], patches[half:], posts[:half], posts[half:])):
        (box / f"{i:03d}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in chunk))


@pytest.mark.parametrize("batch_bytes", [1, inbox_mod.BATCH_BYTES])
def test_a_backlog_lands_batch_by_batch_as_in_one_pass(tmp_path, run_asz, tracer_batch, monkeypatch, batch_bytes):
    runs = copy.deepcopy(tracer_batch["post"])  # the fixture is shared by the session
    for r in runs:
        r.setdefault("extra", {}).setdefault("metadata", {})["thread_id"] = "thread-backlog"
    root = tmp_path / "root"
    _stage(root, runs)
    box = root / "_ingest" / "langsmith" / "inbox"
    names = sorted(p.name for p in box.iterdir())
    monkeypatch.setattr(inbox_mod, "BATCH_BYTES", batch_bytes)
    assert len(inbox_mod._batches(box, names)) == (4 if batch_bytes == 1 else 1)
    out = run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest").stdout
    assert "pending=0" in out and "errors=0" in out, out
    assert sorted(p.name for p in (root / "_ingest" / "langsmith" / "done").iterdir()) == ["000.jsonl", "001.jsonl", "002.jsonl", "003.jsonl"]
    recs = landed_records(root)
    # each run's post and its end: 25 posts, 25 patches, and the records derived from them
    assert sum(1 for i in recs if ":" not in i) == len(runs)
    assert sum(1 for i in recs if i.endswith(":patch:1")) == len(runs)
    assert not any(d.what in ("post", "parent run") for r in recs.values() for d in r.dropped)
    (sid,) = [p.name for p in root.iterdir() if p.name.startswith("ls-")]
    doc = json.loads(run_asz("conversation", sid, "--root", str(root), "--json").stdout)
    assert not [p for p in doc["summary"].get("problems") or () if p.startswith("landed with what is known")]


#: Materialise the ingest directory ``argv[1]`` one inbox file a batch, and end the process (``os._exit``, no cleanup,
#: as a kill) once ``argv[2]`` batches have committed and applied their journal.
_KILLED = """
import os, sys
from pathlib import Path
from asz_adapters_langchain import inbox
inbox.BATCH_BYTES = 1
real, done = inbox._one_pass, []
def one_pass(*a, **k):
    real(*a, **k)
    done.append(1)
    if len(done) == int(sys.argv[2]):
        os._exit(9)
inbox._one_pass = one_pass
inbox.materialise(Path(sys.argv[1]))
"""


@pytest.mark.parametrize("killed_after", [1, 2, 3])
def test_a_kill_between_batches_repeats_work_and_loses_nothing(tmp_path, run_asz, tracer_batch, killed_after):
    """The crash promise (module docstring of asz_adapters_langchain.inbox) holds between batches: a process killed
    after batch ``killed_after`` of 4 has moved those inbox files to done/ and kept what waits in state.json; the next
    collect lands every post and every end of the batch exactly once, and nothing is landed with what is known."""
    runs = copy.deepcopy(tracer_batch["post"])
    for r in runs:
        r.setdefault("extra", {}).setdefault("metadata", {})["thread_id"] = "thread-killed"
    root = tmp_path / "root"
    _stage(root, runs)
    ingest = root / "_ingest" / "langsmith"
    p = subprocess.run([sys.executable, "-c", _KILLED, str(ingest), str(killed_after)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 9, p.stderr
    assert len(list((ingest / "done").iterdir())) == killed_after and len(list((ingest / "inbox").iterdir())) == 4 - killed_after
    out = run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest").stdout
    assert "pending=0" in out and "errors=0" in out, out
    staged = [json.loads(x)["asz"].get("id") for f in sorted((ingest / "sessions").glob("*/*.jsonl"))
              for x in f.read_bytes().splitlines()]
    ids = sorted(r["id"] for r in runs)
    assert sorted(i for i in staged if i and ":" not in i) == ids  # every post staged once: none lost, none twice
    assert sorted(i[:-len(":patch:1")] for i in staged if i and ":patch:" in i) == ids  # every end once, as patch 1
    recs = landed_records(root)
    assert sum(1 for i in recs if ":" not in i) == sum(1 for i in recs if i.endswith(":patch:1")) == len(runs)
    assert not any(d.what in ("post", "parent run") for r in recs.values() for d in r.dropped)
