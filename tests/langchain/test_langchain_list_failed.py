"""The conversation list says a LangGraph trace failed or never ended, in the words ``asz conversation`` uses (trial
27a: only ``asz conversation`` and the talk said it; ``asz ls`` and the page's list read a plain ``verified``).

Three threads of the corpus's recorded tracer batch in one root, each under run ids of its own: one whose first run
(the trace's root) ended with an ``error`` (12 runs), one whose app crashed after its first 15 runs started and the 7
that ended first were patched (8 never end), one whose runs all ended. The counts are made from those runs.
"""

from __future__ import annotations

import copy
import json
import sys
import uuid
from pathlib import Path

import pytest

END = ("outputs", "end_time", "error")
ERROR = "GraphRecursionError('boom: graph failed halfway')\nTraceback (most recent call last):\n  ..."
#: The trace's first run failed, no model request (trial 32a F7: it read "API error step(s): a model request or a run failed").
ERRORS_SAID = ("failed run(s): an app's run ended with an error (the talk shows each as Run failed; the failed tool or API "
               "error before it says what raised it)")


def _own_ids(runs: list[dict], thread: str) -> list[dict]:
    """``runs`` with every run id replaced by one of ``thread``'s own (in ids, trace ids, parents, dotted orders)."""
    text = json.dumps(runs)
    for r in runs:
        text = text.replace(r["id"], str(uuid.uuid5(uuid.NAMESPACE_URL, thread + r["id"])))
    out = json.loads(text)
    for r in out:
        r.setdefault("extra", {}).setdefault("metadata", {})["thread_id"] = thread
    return out


def _errors(runs: list[dict]) -> int:
    return sum(1 for r in runs if r.get("error") and r["run_type"] != "tool")


def _stage(inbox, tracer_batch) -> dict:
    """Stage the three threads; returns thread -> (runs other than tools that ended in an error, runs that never end).
    A tool run's error is its failed result (the batch's ``divide`` by zero), not an API error step."""
    batch = copy.deepcopy(tracer_batch["post"])
    failed = _own_ids(batch[:12], "thread-fails")
    failed[0]["outputs"], failed[0]["error"] = None, ERROR
    crash = _own_ids(batch, "thread-crash")[:15]
    ended = set(sorted(range(15), key=lambda i: crash[i]["end_time"])[:7])
    fine = _own_ids(batch, "thread-fine")
    lines = [{"op": "post", "id": r["id"], "run": r} for r in failed + fine]
    lines += [{"op": "post", "id": r["id"], "run": {k: v for k, v in r.items() if k not in END}} for r in crash]
    lines += [{"op": "patch", "id": crash[i]["id"], "run": {k: crash[i][k] for k in ("id", "trace_id", "dotted_order",
              "parent_run_id", *END) if k in crash[i]}} for i in sorted(ended)]
    inbox.mkdir(parents=True)
    (inbox / "001.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return {"thread-fails": (_errors(failed), 0),
            "thread-crash": (_errors(crash), 15 - len(ended)),
            "thread-fine": (_errors(fine), 0)}


def test_the_list_marks_a_failed_and_a_crashed_trace(tmp_path, run_asz, tracer_batch):
    root = tmp_path / "root"
    want = _stage(root / "_ingest" / "langsmith" / "inbox", tracer_batch)
    assert want == {"thread-fails": (1, 0), "thread-crash": (0, 8), "thread-fine": (0, 0)}
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")
    rows = json.loads(run_asz("ls", "--root", str(root), "--json").stdout)
    by_thread = {next(t for t in want if t in r["id"]): r for r in rows}
    assert {t: (r["api_errors"], r["never_ended"]) for t, r in by_thread.items()} == want
    assert {t: r["failed_runs"] for t, r in by_thread.items()} == {t: e for t, (e, _) in want.items()}  # no llm run failed
    listed = run_asz("ls", "--root", str(root)).stdout
    table = [ln for ln in listed.splitlines() if ln.startswith("ls-")]
    line = {t: next(ln for ln in table if r["id"].startswith(ln.split()[0])) for t, r in by_thread.items()}
    assert line["thread-fails"].rstrip().endswith("verified errors"), listed
    assert line["thread-crash"].rstrip().endswith("verified ! never ended"), listed
    assert line["thread-fine"].rstrip().endswith("verified"), listed
    fid, cid = by_thread["thread-fails"]["id"], by_thread["thread-crash"]["id"]
    # the words asz conversation prints for each
    said = run_asz("conversation", fid, "--root", str(root)).stdout
    assert f"errors 1 {ERRORS_SAID}" in said, said
    assert f"errors: {line['thread-fails'].split()[0]} 1 {ERRORS_SAID}" in listed, listed
    unended = next(p for p in by_thread["thread-crash"]["problems"] if p.startswith("never ended: "))
    assert f"problem: {unended}" in run_asz("conversation", cid, "--root", str(root)).stdout
    assert unended in listed and unended.startswith("never ended: 8 run(s) started"), listed


@pytest.mark.slow  # a real server and browser (about 15 s on a loaded machine)
def test_the_page_list_marks_them_too(tmp_path, run_asz, tracer_batch, browser):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))
    from selenium.webdriver.common.by import By
    from test_view_server_browser import open_at
    from view_server_helpers import Served, counted_rows

    root = tmp_path / "root"
    want = _stage(root / "_ingest" / "langsmith" / "inbox", tracer_batch)
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")
    rows = {next(t for t in want if t in r["id"]): r for r in json.loads(run_asz("ls", "--root", str(root), "--json").stdout)}
    s = Served(["view", "--root", str(root)], tmp_path)
    try:
        api = {r["id"]: r for r in counted_rows(s)}
        assert {t: (api[r["id"]]["api_errors"], api[r["id"]]["never_ended"]) for t, r in rows.items()} == want
        drv = browser
        fid, cid = rows["thread-fails"]["id"], rows["thread-crash"]["id"]
        mark = open_at(drv, s.base + "/", f'tr[data-id="{fid}"] .state.failed')
        assert (mark.text, mark.get_attribute("title")) == ("errors", f"1 {ERRORS_SAID}")
        (ended,) = drv.find_elements(By.CSS_SELECTOR, f'tr[data-id="{cid}"] .state.failed')
        unended = next(p for p in rows["thread-crash"]["problems"] if p.startswith("never ended: "))
        assert (ended.text, ended.get_attribute("title")) == ("never ended", unended)
        marked = [m.find_element(By.XPATH, "ancestor::tr").get_attribute("data-id")
                  for m in drv.find_elements(By.CSS_SELECTOR, "tr[data-id] .state.failed")]
        assert sorted(marked) == sorted([fid, cid])  # the thread whose runs all ended is not marked
    finally:
        s.stop()
