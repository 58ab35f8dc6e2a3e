"""A piped ``asz collect`` says how far it is while the LangSmith adapter materialises staged arrivals (trial 37b F7:
``collect: 0 of 4 session(s), 0.0 of 540.0 MB, 27 s`` while 540 MB of arrivals were materialised, then the pass
ended at 34.9 s: the line said nothing of that work, and before the sessions were listed it could not say more).

Real input: the corpus's recorded tracer batch (a LangGraph react agent, 25 runs) as 18 invocations of 6 threads,
staged as 6 inbox files, one a batch (``BATCH_BYTES`` 1, as a backlog of 6 batches of 8 MiB is read). With a line due
at every look (``ASZ_PROGRESS_AFTER`` and ``ASZ_PROGRESS_EVERY`` 0) the pass says the inbox bytes read after each
batch, out of the whole inbox, before its sessions are listed; the figures are the staged files' own sizes, summed.
"""

from __future__ import annotations

import copy
import json
import re

from asz_adapters_langchain import inbox as inbox_mod
from cli_helpers import asz_in_process
from langchain_helpers import thread_invocation

STAGED = re.compile(r"^collect: 0 session\(s\), staged arrivals ([\d,.]+) of ([\d,.]+) MB read, \d+ s$", re.M)
LANDING = re.compile(r"^collect: (\d+) of (\d+) session\(s\), ([\d,.]+) of ([\d,.]+) MB, \d+ s$", re.M)


def test_materialising_a_backlog_moves_the_progress_line(tmp_path, tracer_batch, monkeypatch):
    box = tmp_path / "root" / "_ingest" / "langsmith" / "inbox"
    box.mkdir(parents=True)
    for t in range(6):
        runs = []
        for n in range(3):
            inv = thread_invocation(copy.deepcopy(tracer_batch["post"]), 3 * t + n, f"question {t}.{n}")
            for r in inv:
                r["extra"]["metadata"]["thread_id"] = f"thread-progress-{t}"
            runs += inv
        (box / f"{t:03d}.jsonl").write_text("".join(json.dumps({"op": "post", "id": r["id"], "run": r}) + "\n" for r in runs))
    sizes = [f.stat().st_size for f in sorted(box.iterdir())]
    want = [round(sum(sizes[:i]) / 1e6, 1) for i in range(len(sizes) + 1)]  # 0, then after each batch
    assert len(set(want)) == len(want), want  # each batch moves the figure
    monkeypatch.setattr(inbox_mod, "BATCH_BYTES", 1)
    p = asz_in_process("collect", "--once", "--no-parse", "--root", str(tmp_path / "root"), "--adapter", "langsmith-ingest",
                       env={"ASZ_PROGRESS_AFTER": "0", "ASZ_PROGRESS_EVERY": "0"})
    assert p.returncode == 0 and " sessions=6 " in p.stdout, p.stdout + p.stderr
    staged = [(float(a.replace(",", "")), float(b.replace(",", ""))) for a, b in STAGED.findall(p.stderr)]
    assert [d for d, _ in staged] == want, p.stderr
    assert {t for _, t in staged} == {want[-1]}, p.stderr
    landing = LANDING.findall(p.stderr)  # then the sessions, listed: the line counts them and their landed bytes
    assert landing and {int(m[1]) for m in landing} == {6} and landing[-1][0] == "6", p.stderr
    assert p.stderr.index("staged arrivals") < p.stderr.index(" of 6 session(s)"), p.stderr
