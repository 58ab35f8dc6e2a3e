"""What the hook imports when Claude Code starts it (trial 33b F2: ``hashlib``, which loads OpenSSL's library, and
``importlib.util`` were the largest imports of its own). The absolute command ``asz hooks install`` writes,
``python -S hook.py``, run on a real 2.1.282 payload under ``-X importtime``; the record it writes is checked against
``hashlib``'s digest of the canonical input, so taking SHA-256 from the interpreter's own module loses no check.
Timing lives in bench/hook.py, never here."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from test_hook_event_edges import probe, records
from test_observer_hook import HOOK_FILE


def test_the_hook_imports_neither_hashlib_nor_importlib_util(corpus_dir: Path, tmp_path: Path) -> None:
    event = probe(corpus_dir, "echo")
    p = subprocess.run([sys.executable, "-S", "-X", "importtime", str(HOOK_FILE), "--data", str(tmp_path)],
                       input=json.dumps(event).encode(), capture_output=True, timeout=60)
    assert p.returncode == 0 and p.stdout == b""
    imported = {line.rsplit("|", 1)[1].strip() for line in p.stderr.decode().splitlines()
                if line.startswith("import time:") and "|" in line}
    assert "json" in imported  # the premise: -X importtime lists the hook's imports
    assert not imported & {"hashlib", "_hashlib", "importlib.util"}, sorted(imported)
    (rec,) = records(tmp_path, event["session_id"])
    sent = json.dumps(event["tool_input"], sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    assert rec["arguments"] == {"state": "size_only", "bytes": len(sent), "sha256": hashlib.sha256(sent).hexdigest()}
