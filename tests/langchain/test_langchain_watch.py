"""Watch-mode ``asz collect`` runs the LangSmith receiver when ``langsmith-ingest`` is enabled (issue 11)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import forked
from langchain_helpers import ASZ, free_port


def test_watch_collect_receives_and_lands(tmp_path: Path, captures) -> None:
    plain = next(c for c in captures if c.parent.name == "plain")
    port = free_port()
    root = tmp_path / "data"
    (tmp_path / "asz.yaml").write_text(
        "storage: {root: ./data}\n"
        "adapters:\n"
        "  - name: langsmith-ingest\n"
        "    enabled: true\n"
        f"    listen: 127.0.0.1:{port}\n"
        "    source_root: ./data\n"
        "    collector: {mode: watch, interval: 1s}\n"
    )
    proc = forked.Popen([*ASZ, "collect"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(url + "/info", timeout=1)
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() is not None else "no receiver"
                time.sleep(0.2)
        meta = json.loads((plain / "meta.json").read_text())
        headers = {k: v for k, v in meta["headers"].items() if k.lower() not in ("content-length", "host", "connection", "transfer-encoding")}
        req = urllib.request.Request(url + meta["path"], data=(plain / "body.bin").read_bytes(), method=meta["method"], headers=headers)
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.status == 202
        deadline = time.monotonic() + 60
        while not any(root.glob("ls-*/streams/main/transcript-*.sd")):
            assert time.monotonic() < deadline, "nothing landed from the receiver"
            time.sleep(0.5)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert "ingest   : langsmith-ingest receiving at" in err
    verify = forked.run([*ASZ, "verify", "--root", str(root)], cwd=tmp_path, capture_output=True, text=True)
    assert verify.returncode == 0, verify.stdout + verify.stderr
