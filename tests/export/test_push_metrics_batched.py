"""The points of several conversations go in one metrics request, and none is lost or sent twice (perf47b; trial 47d
F3: a push of 222 MB made one metrics request per conversation, session 43's 270 round trips for a 200 MB root).

Each conversation's sent file is written only after the answer of the request that carried its points (docs/push.md,
Metrics): a request the receiver fails leaves its conversations' files unwritten, and the next pass sends their
points, so the receiver's sums are the spec's token totals of the corpus (tests/export/test_push_metrics.py: the
reader-anchors rule over the source transcripts) whatever request failed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import forked
from export_helpers import capture, summary  # noqa: F401 - capture: a fixture

#: The corpus's totals by the reader-anchors rule (tests/export/test_push_metrics.py, printed in the spec's file).
SPEC_TOTALS = {"input": 14_923, "output": 163_933, "cacheCreation": 1_364_531, "cacheRead": 33_443_427}


def _push(root: Path, endpoint: str, cwd: Path, batch: int | None = None) -> subprocess.CompletedProcess:
    """``asz push`` in a process of its own (gRPC's threads must not live on in the test process: export_helpers), forked
    from the pre-imported server (tests/forked.py), its metrics requests holding at most ``batch`` points when given
    (:data:`asz_core.export.metrics.BATCH_POINTS`, read at each send: set in the child before the command runs)."""
    code = ("import sys; import asz_core.export.metrics as m; m.BATCH_POINTS = int(sys.argv.pop(1)) or m.BATCH_POINTS; "
            "from asz_core.cli.main import main; main()")
    return forked.run([sys.executable, "-c", code, str(batch or 0), "push", "--root", str(root), "--endpoint", endpoint],
                      cwd=cwd, capture_output=True, text=True, timeout=600, check=False)


def _sessions(request) -> list[str]:
    """The ``session.id`` of each resource of a metrics request (one each: a resource is one conversation's)."""
    out = []
    for rm in request.resource_metrics:
        ids = {kv.value.string_value for sm in rm.scope_metrics for m in sm.metrics for dp in m.sum.data_points
               for kv in dp.attributes if kv.key == "session.id"}
        assert len(ids) == 1, ids
        out.append(ids.pop())
    return out


def _sent(root: Path) -> set[str]:
    """The sessions with a metrics sent file."""
    return {p.parent.parent.name for p in root.glob("*/metrics/sent-*.json")}


def test_several_conversations_share_a_request_and_add_up(corpus_copy, capture, tmp_path):
    root = corpus_copy(tmp_path / "root")
    p = _push(root, capture.endpoint, tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert capture.totals() == SPEC_TOTALS
    resources = [s for req in capture.taken for s in _sessions(req)]
    assert len(resources) > 1 and len(capture.taken) < len(resources)  # before: one request each
    points = sum(len(m.sum.data_points) for r in capture.taken for rm in r.resource_metrics for sm in rm.scope_metrics
                 for m in sm.metrics)
    assert summary(p.stdout.strip().splitlines()[-1])["metrics"] == str(points)
    assert set(resources) <= _sent(root)
    p = _push(root, capture.endpoint, tmp_path)
    assert p.returncode == 0 and summary(p.stdout.strip().splitlines()[-1])["metrics"] == "0", p.stdout + p.stderr


def test_a_failed_request_writes_none_of_its_sent_files_and_the_next_pass_sends_them(corpus_copy, capture, tmp_path):
    root = corpus_copy(tmp_path / "root")
    capture.fail = 1
    p = _push(root, capture.endpoint, tmp_path, batch=40)  # several requests from the corpus's conversations
    assert p.returncode == 1 and p.stderr.count("error: ") == 1 and "this test refuses the request" in p.stderr, p.stderr
    assert len(capture.taken) == 1 and capture.seen == 2  # the pass stops at the failed request
    first = set(_sessions(capture.taken[0]))
    assert first and first <= _sent(root)
    capture.fail = None
    p = _push(root, capture.endpoint, tmp_path, batch=40)
    assert p.returncode == 0, p.stdout + p.stderr
    assert len(capture.taken) > 2
    assert capture.totals() == SPEC_TOTALS  # nothing lost, nothing twice
    assert not first & {s for req in capture.taken[1:] for s in _sessions(req)}  # the first request's not again
