"""A LangSmith run whose time does not read (trial 30a F8, the LangChain adapter; session 32): ``start_time`` and
``end_time`` sent as ``"yesterday"``, as a number past any date (epoch milliseconds no calendar holds), empty, or
missing. Before, the adapter made each ``''`` with no word (a value lost, a record placed by nothing); now a value it
cannot read lands as written in the record's ``time`` (a number as its JSON text), ``asz collect`` says each such
staged line in one ``warning:`` naming the file, line, field and value, every run lands, verify passes (a warning,
exit 0), and no reader prints 1970. A missing or empty time is no time given: it lands as none, unsaid, as before.

Real input: the corpus's LangSmith tracer upload (a LangGraph react agent, 25 runs) with four runs' times edited in a
copy, sent to a real ``asz ingest langsmith`` receiver on loopback; the lines and values are counted here from the
staged inbox files the receiver wrote."""

from __future__ import annotations

import copy
import json

GARBAGE, FAR = "yesterday", 10**15  # a word; epoch ms past year 9999 (the adapter reads numbers as epoch ms)
SAID = "give a time that does not read as an RFC 3339 time"


def test_a_run_time_that_does_not_read_lands_as_written_and_said(tmp_path, tracer_batch, receiver_factory, run_asz):
    body = copy.deepcopy(tracer_batch)
    runs = body["post"]
    llm = [r for r in runs if r.get("run_type") == "llm"]
    tools = [r for r in runs if r.get("run_type") == "tool"]
    assert len(llm) >= 2 and len(tools) >= 2, [r.get("run_type") for r in runs]
    for run, value in ((llm[0], GARBAGE), (tools[0], FAR), (llm[1], "")):
        run["start_time"] = run["end_time"] = value
    del tools[1]["start_time"], tools[1]["end_time"]
    root = tmp_path / "root"
    rec = receiver_factory(root)
    status, answer = rec.send("POST", "/runs/batch", json.dumps(body).encode(), {"Content-Type": "application/json"})
    assert status == 202, answer

    staged = sorted((root / "_ingest" / "langsmith" / "inbox").glob("*.jsonl"))
    assert staged
    p = run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    warned = [ln for ln in p.stderr.splitlines() if SAID in ln]
    # what to expect, counted from the materialised source lines collect read: each line of an edited run's arrival
    want = []
    for src in sorted((root / "_ingest" / "langsmith" / "sessions").glob("*/*.jsonl")):
        found = [(n, str(o["run"]["start_time"])) for n, o in
                 enumerate((json.loads(x) for x in src.read_text().splitlines()), 1)
                 if isinstance(o.get("run"), dict) and o["run"].get("start_time") in (GARBAGE, FAR)]
        if found:
            said = "; ".join(f"line {n}: {v!r}" for n, v in found)
            want.append(f"warning: {src}: {len(found)} record(s) {SAID}, field time (start_time and end_time) ({said}): ")
    assert all(any(f"'{v}'" in line for line in want) for v in (GARBAGE, str(FAR)))  # both edited runs' lines
    assert len(warned) == len(want) and all(w.startswith(x) for w, x in zip(warned, want)), (warned, want)
    assert "'')" not in p.stderr and ": ''" not in p.stderr  # an empty time is none given: unsaid

    landed = [json.loads(x) for sd in root.glob("*/streams/*/*.sd") for x in sd.read_text().splitlines()]
    times = [r.get("time") for r in landed if "ord" in r]
    assert GARBAGE in times and str(FAR) in times
    assert not any(isinstance(t, str) and t.startswith("1970") for t in times)
    v = run_asz("verify", "--root", str(root), check=False)
    assert v.returncode == 0, v.stdout + v.stderr
    assert any(ln.startswith("warning:") and "time does not read [time]" in ln for ln in v.stdout.splitlines()), v.stdout
    ids = [row["id"] for row in json.loads(run_asz("ls", "--root", str(root), "--json").stdout)]
    for cid in ids:
        c = run_asz("conversation", cid, "--root", str(root))
        assert "1970" not in c.stdout
        for form in ("md", "html", "prose"):
            assert "1970" not in run_asz("export", cid, "--root", str(root), "--format", form).stdout
    u = run_asz("usage", "daily", "--root", str(root), check=False)
    assert "1970" not in u.stdout and "time does not read" in u.stderr
