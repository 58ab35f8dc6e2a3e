"""A graph that failed: its error step comes after the steps that came before it, and the summary says it failed
(trial 27a F9: the page drew ``API error GraphRecursionError(…) 17:58:28.876`` first, then the model call at .815).

The corpus's recorded tracer batch cut after its first 12 runs (one model call, its get_weather tool), the trace's
first run given an ``error`` and no outputs, sent in one batch as a client posts runs that already ended (parents
first, so the failed root arrives before its children); and the same runs sent as posts then patches (the root's
end, carrying the error, last).
"""

from __future__ import annotations

import copy
import json

import pytest

END = ("outputs", "end_time", "error")
ERROR = "GraphRecursionError('boom: graph failed halfway')\nTraceback (most recent call last):\n  ..."


def _steps(doc: dict) -> list[dict]:
    """The nodes under the conversation's one talk's run, in document order (depth first)."""
    (talk,) = doc["talks"]
    (run,) = talk["children"]
    out = []

    def walk(n):
        out.append(n)
        for c in n.get("children") or ():
            walk(c)

    for c in run["children"]:
        walk(c)
    return out


@pytest.mark.parametrize("how", ["posted whole", "post then patch"])
def test_the_error_step_follows_what_came_before_it(tmp_path, run_asz, tracer_batch, how):
    runs = copy.deepcopy(tracer_batch["post"][:12])
    for r in runs:
        r.setdefault("extra", {}).setdefault("metadata", {})["thread_id"] = "thread-fails"
    runs[0]["outputs"], runs[0]["error"] = None, ERROR
    if how == "posted whole":
        lines = [{"op": "post", "id": r["id"], "run": r} for r in runs]
    else:
        lines = [{"op": "post", "id": r["id"], "run": {k: v for k, v in r.items() if k not in END}} for r in runs]
        lines += [{"op": "patch", "id": r["id"], "run": {k: r[k] for k in ("id", "trace_id", "dotted_order", *END) if k in r}}
                  for r in sorted(runs, key=lambda r: r["end_time"])]  # each run's end when it ended: the root's last
    inbox = tmp_path / "root" / "_ingest" / "langsmith" / "inbox"
    inbox.mkdir(parents=True)
    (inbox / "001.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    root = tmp_path / "root"
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")
    (sid,) = [p.name for p in root.iterdir() if p.name.startswith("ls-")]
    doc = json.loads(run_asz("conversation", sid, "--root", str(root), "--json").stdout)
    steps = _steps(doc)
    assert [n["kind"] for n in steps] == ["message.external", "llm.call", "tool", "error.api"]
    llm = next(r for r in runs if r["run_type"] == "llm")
    assert steps[1]["id"] == f"call/{llm['id']}"
    assert [n["at"] for n in steps[1:]] == sorted(n["at"] for n in steps[1:])  # drawn in the order they happened
    text = run_asz("conversation", sid, "--root", str(root)).stdout
    assert "errors 1 failed run(s): an app's run ended with an error" in text, text  # not an API error (32a F7)
