"""Retention prunes the LangSmith staging that has landed, crash-safe (trial 28c F5: ``done/`` was kept forever and
``asz prune`` did not touch it; docs/storage-root.md).

Real input: the corpus's recorded tracer batch (a LangGraph react agent, 25 runs) staged as two inbox files, as a
receiver stages two requests, then collected by the real ``asz collect --once`` (materialised into ``sessions/`` and
landed). ``storage.retention.after`` is ``0``, so every staged file is old enough.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys

from langchain_helpers import landed_records

_KILLED = """
import os, sys
from pathlib import Path
from asz_adapters_langchain import staging
def unlink(p):
    os.unlink(p)
    os._exit(9)  # killed right after the first staged file went
staging._unlink = unlink
from asz_core.cli.entry import main
sys.argv = ["asz", "prune", "--root", sys.argv[1], "--config", sys.argv[2]]
main()
"""


def _landed_root(tmp_path, run_asz, tracer_batch):
    runs = copy.deepcopy(tracer_batch["post"])
    for r in runs:
        r["extra"]["metadata"]["thread_id"] = "thread-prune"
    root = tmp_path / "root"
    box = root / "_ingest" / "langsmith" / "inbox"
    box.mkdir(parents=True)
    for i, part in enumerate((runs[:12], runs[12:])):
        (box / f"179640000000000000{i}-1-00000{i}.jsonl").write_text(
            "".join(json.dumps({"op": "post", "id": r["id"], "run": r}) + "\n" for r in part))
    run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest")
    cfg = tmp_path / "asz.yaml"
    cfg.write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    return root, cfg, runs


def test_prune_deletes_done_once_landed(tmp_path, run_asz, tracer_batch):
    root, cfg, runs = _landed_root(tmp_path, run_asz, tracer_batch)
    done = root / "_ingest" / "langsmith" / "done"
    staged = sorted(done.iterdir())
    size = sum(p.stat().st_size for p in staged)
    assert len(staged) == 2 and len(landed_records(root)) >= len(runs)

    dry = run_asz("prune", "--root", str(root), "--config", str(cfg), "--dry-run").stdout
    assert f"would remove staging: 2 file(s), {size} bytes already landed" in dry and sorted(done.iterdir()) == staged

    out = run_asz("prune", "--root", str(root), "--config", str(cfg)).stdout
    assert f"removed staging: 2 file(s), {size} bytes already landed" in out, out
    assert list(done.iterdir()) == []
    assert (root / "_ingest" / "langsmith" / "state.json").is_file()  # never deleted
    again = run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest").stdout
    assert "errors=0" in again and "records=0" in again, again
    run_asz("verify", "--root", str(root))


def test_prune_keeps_done_while_a_source_has_not_landed(tmp_path, run_asz, tracer_batch):
    root, cfg, _ = _landed_root(tmp_path, run_asz, tracer_batch)
    (src,) = [p for p in (root / "_ingest" / "langsmith" / "sessions").rglob("main.jsonl")]
    with open(src, "ab") as f:  # a pass materialised more than has landed yet
        f.write(b'{"asz": {}, "op": "post", "run": {}}\n')
    out = run_asz("prune", "--root", str(root), "--config", str(cfg)).stdout
    assert "kept staging: _ingest/langsmith/done: 1 materialised source(s) not landed whole yet" in out, out
    assert len(list((root / "_ingest" / "langsmith" / "done").iterdir())) == 2


def test_a_kill_mid_prune_repeats_work_and_loses_nothing(tmp_path, run_asz, tracer_batch):
    root, cfg, _ = _landed_root(tmp_path, run_asz, tracer_batch)
    done = root / "_ingest" / "langsmith" / "done"
    p = subprocess.run([sys.executable, "-c", _KILLED, str(root), str(cfg)], capture_output=True, text=True, timeout=300,
                       cwd=tmp_path)
    assert p.returncode == 9, p.stderr
    assert len(list(done.iterdir())) == 1  # one went, the kill came before the other
    out = run_asz("prune", "--root", str(root), "--config", str(cfg)).stdout
    assert "removed staging: 1 file(s)" in out and list(done.iterdir()) == []
    again = run_asz("collect", "--once", "--root", str(root), "--adapter", "langsmith-ingest").stdout
    assert "errors=0" in again and "records=0" in again, again
    run_asz("verify", "--root", str(root))


def test_a_state_that_does_not_read_keeps_the_staging_and_says_so(tmp_path, run_asz, tracer_batch):
    root, cfg, _ = _landed_root(tmp_path, run_asz, tracer_batch)
    (root / "_ingest" / "langsmith" / "state.json").write_bytes(b'{"v": ')  # cut short: not JSON
    out = run_asz("prune", "--root", str(root), "--config", str(cfg)).stdout  # run_asz asserts exit 0: no traceback
    assert "kept staging: _ingest/langsmith/state.json does not read (" in out, out
    assert len(list((root / "_ingest" / "langsmith" / "done").iterdir())) == 2
