"""``asz prune --dry-run`` dates a session of ``asz hook`` records alone as ``asz ls`` does (trial 39c F6: prune said
``last activity unknown is within storage.retention.after`` for the 8 hook-only sessions ``asz ls`` dated).

Real input: every corpus probe payload (``hooks/…mcp-hooks-2.1.282.jsonl``) fed to the real ``asz hook``, collected with
adapter ``changes`` and parsed; the times expected are read from the ``execution`` files ``asz hook`` wrote."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from cli_helpers import asz_in_process

#: eight asz hook runs, a collect and a parse in this process (about 20 s on a loaded machine)
pytestmark = pytest.mark.slow


def test_prune_gives_a_hook_only_session_the_last_activity_asz_ls_gives(corpus_dir, tmp_path):
    data, root = tmp_path / "hookdata", tmp_path / "root"
    for line in next((corpus_dir / "hooks").glob("apache__*mcp-hooks-2.1.282.jsonl")).read_text().splitlines():
        assert asz_in_process("hook", "--data", str(data), input=line + "\n").returncode == 0
    assert asz_in_process("collect", "--once", "--adapter", "changes", "--source", str(data), "--root", str(root)).returncode == 0
    assert asz_in_process("parse", "--root", str(root)).returncode == 0
    last: dict[str, int] = {}
    for f in (data / "output").glob("*/*.execution.jsonl"):
        for raw in f.read_bytes().splitlines():
            d = json.loads(raw)
            at = dt.datetime.fromisoformat(d["time"][:26] + "+00:00")
            last[d["session"]] = max(last.get(d["session"], 0), int(at.timestamp() * 1000))
    assert len(last) == 8
    ls = {r["id"]: r["to"] for r in json.loads(asz_in_process("ls", "--json", "--root", str(root)).stdout)}
    assert ls == last
    (tmp_path / "asz.yaml").write_text("storage:\n  retention:\n    after: 3650d\n    require_accepted: false\n")
    p = asz_in_process("prune", "--dry-run", "--root", str(root), "--config", str(tmp_path / "asz.yaml"))
    kept = {line.split()[1].rstrip(":"): line for line in p.stdout.splitlines() if line.startswith("kept ")}
    assert set(kept) == set(last), p.stdout
    for sid, ms in last.items():  # RFC 3339 UTC, its fraction without trailing zeros (2026-12-06T15:01:41.81Z)
        when = dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:23].rstrip("0").rstrip(".") + "Z"
        assert kept[sid] == f"kept {sid}: last activity {when} is within storage.retention.after", kept[sid]
