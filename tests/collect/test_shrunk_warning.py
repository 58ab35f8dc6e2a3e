"""A record too large to land whole is told on stderr (trial 3, F3): source file, line, what was not kept, the setting.

Seed 000 (Too large to land): such a record lands alone with its largest payloads taken out, each keeping its size
and sha256; the pass still succeeds (exit 0) and counts it in ``shrunk=``. The warning names the setting and the
value that lands it whole; collecting again with that value keeps the text.
``asz`` runs in the test's process (:func:`cli_helpers.asz_in_process`): no signal, pipe or exit status of a process
is tested here (session 33: a child process each cost about 0.4 s of CPU).
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

import pytest
from cli_helpers import asz_in_process

SESSION = "44444444-4444-4444-8444-444444444444"
TEXT = "X" * 40_000 + " needleword"


def _asz(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return asz_in_process(*args, cwd=cwd, env={"CLAUDE_CONFIG_DIR": str(cwd / "claude-home")})


def _source(base: Path) -> Path:
    """A Claude Code session: a prompt and one assistant reply of 40,011 characters (line 2)."""
    proj = base / "projects" / "-home-user-big"
    proj.mkdir(parents=True)
    common = {"sessionId": SESSION, "cwd": "/home/user/big", "version": "2.1.1", "gitBranch": "main", "userType": "external",
              "isSidechain": False}
    lines = [
        {**common, "type": "user", "uuid": "u1", "parentUuid": None, "timestamp": "2026-03-10T18:10:00.000Z",
         "message": {"role": "user", "content": "write a lot"}},
        {**common, "type": "assistant", "uuid": "a1", "parentUuid": "u1", "timestamp": "2026-03-10T18:10:05.000Z",
         "requestId": "req_1", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                                           "content": [{"type": "text", "text": TEXT}], "stop_reason": "end_turn",
                                           "usage": {"input_tokens": 3, "output_tokens": 9000}}},
    ]
    path = proj / f"{SESSION}.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def _config(base: Path, budget: int) -> Path:
    cfg = base / f"asz-{budget}.yaml"
    cfg.write_text(f"adapters:\n  - name: claude-code-local\n    collector:\n      max_delta_bytes: {budget}\n")
    return cfg


@pytest.mark.slow  # four collect and search runs, about 17 s
def test_a_record_too_large_to_land_is_told_with_file_line_and_setting(tmp_path: Path) -> None:
    src = _source(tmp_path)
    p = _asz("collect", "--once", "--config", str(_config(tmp_path, 4096)), "--source", str(tmp_path / "projects"),
             "--root", str(tmp_path / "root"), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "shrunk=1" in p.stderr + p.stdout
    [warning] = [ln for ln in p.stderr.splitlines() if ln.startswith("warning: ")]
    assert warning.startswith(f"warning: {src}: line 2 is ")
    assert "more than max_delta_bytes (4,096) allows" in warning
    # the reply's text, none of it kept: its size and the SHA-256 of the text, both straight from the source
    sha = hashlib.sha256(TEXT.encode()).hexdigest()
    assert f"; not kept: part 1 text ({len(TEXT.encode()):,} bytes, sha256 {sha}) (the record keeps" in warning
    data = src.read_bytes()
    start = data.index(b"\n") + 1  # line 2 begins after line 1's newline and runs to its own
    assert f"the whole of it is in line 2 (bytes {start:,} to {len(data) - 1:,}) of this source file only while that file exists" in warning
    # this root keeps it cut: the warning says so, and collecting again with any budget lands nothing (trial 24b F1)
    assert "this record stays cut in this root (landed files are never rewritten" in warning
    need = int(re.search(r"set adapters\[\]\.collector\.max_delta_bytes \(or collect --max-delta-bytes\) to ([\d,]+) or more", warning).group(1).replace(",", ""))
    assert need > len(TEXT)
    miss = _asz("search", "needleword", "--root", str(tmp_path / "root"), cwd=tmp_path)
    assert "needleword" not in miss.stdout
    assert "! 1 part(s) too large to land in 1 conversation(s) (" in miss.stdout  # one line, whatever the query
    held = _asz("search", "needleword", "--json", "--held-back", "--root", str(tmp_path / "root"), cwd=tmp_path)
    assert f"too large to land: row 1 part 1 (text, {len(TEXT.encode()):,} bytes, sha256 {sha}): its text is not in the root, so it was never searched" in held.stdout
    same = _asz("collect", "--once", "--config", str(_config(tmp_path, 1 << 20)), "--source", str(tmp_path / "projects"),
                "--root", str(tmp_path / "root"), cwd=tmp_path)
    assert same.returncode == 0 and "landed=0" in same.stderr + same.stdout, same.stderr

    # the value the warning names lands the same record whole, and says nothing
    again = _asz("collect", "--once", "--config", str(_config(tmp_path, need)), "--source", str(tmp_path / "projects"),
                 "--root", str(tmp_path / "root2"), cwd=tmp_path)
    assert again.returncode == 0 and "warning:" not in again.stderr and "shrunk=0" in again.stderr + again.stdout, again.stderr
    hit = _asz("search", "needleword", "--root", str(tmp_path / "root2"), cwd=tmp_path)
    assert hit.returncode == 0 and "needleword" in hit.stdout, hit.stdout + hit.stderr
