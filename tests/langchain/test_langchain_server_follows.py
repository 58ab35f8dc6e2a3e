"""``asz server`` follows its own LangSmith receiver's inbox (trial 23a F14): a trace staged by the receiver it started
lands in a pass soon after, not at the 10-minute interval, and the pass that takes it from the inbox makes no second
pass (asz_core/cli/server_follow.py, staged folders).

Real parts: ``asz server`` in a subprocess with ``langsmith-ingest`` enabled in asz.yaml (its receiver on a free
loopback port), the corpus's LangSmith upload body (../shared/corpus/langchain, skipped when absent) posted to it.
Waits are generous (60 s), never timed assertions: the machine is shared.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import forked
from langchain_helpers import free_port

SAMPLE = "generated__langsmith-0.15.1__LangChainTracer_runs_batch_POST.json"
GENEROUS = 60.0


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def _until(check, what: str, log: Path):
    deadline = time.monotonic() + GENEROUS
    while True:
        try:
            got = check()
        except OSError:
            got = None
        if got:
            return got
        assert time.monotonic() < deadline, f"{what} not seen within {GENEROUS:g} s\n{log.read_text()}"
        time.sleep(0.2)


@pytest.mark.slow  # a real server and receiver: about 20 s on the shared machine
def test_a_staged_trace_lands_before_the_interval_in_one_pass(tmp_path: Path, corpus_dir: Path) -> None:
    f = corpus_dir / "langchain" / SAMPLE
    if not f.is_file():
        pytest.skip(f"{f} is absent")
    body = json.dumps(json.loads(f.read_text())["json"]).encode()
    ingest, port = free_port(), free_port()
    (tmp_path / "asz.yaml").write_text(
        "storage: {root: ./data}\nadapters:\n  - name: langsmith-ingest\n    enabled: true\n"
        f"    listen: 127.0.0.1:{ingest}\n    source_root: ./data\n")
    log = tmp_path / "server.log"
    proc = forked.Popen([sys.executable, "-m", "asz_core.cli.main", "server", "--no-token", "--port", str(port), "--interval", "10m"],
                            cwd=tmp_path, stdout=open(log, "wb"), stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        _until(lambda: _get(base + "/api/status")["last_refresh"], "the first pass", log)
        assert _get(base + "/api/status")["follows"] == 1  # the receiver's inbox
        assert re.search(r"follows  : 1 folder\(s\).*1 receiver inbox", log.read_text()), log.read_text()
        assert _get(base + "/api/conversations")["conversations"] == []
        req = urllib.request.Request(f"http://127.0.0.1:{ingest}/runs/batch", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.status == 202
        rows = _until(lambda: _get(base + "/api/conversations")["conversations"], "the staged trace's conversation", log)
        assert [r["id"][:3] for r in rows] == ["ls-"] and _get(base + "/api/status")["interval"] == 600
        assert list((tmp_path / "data" / "_ingest" / "langsmith" / "inbox").glob("*.jsonl")) == []
        time.sleep(3 * 1.0 + 3.0)  # a few looks (LOOK_EVERY) and SETTLE_MAX: a second pass would have started
        passes = re.findall(r"refreshed: sessions=(\d+)", log.read_text())
        assert passes == ["0", "1"], log.read_text()  # the first pass, the trace's: the inbox emptied makes none
    finally:
        proc.terminate()
        proc.wait(timeout=60)
