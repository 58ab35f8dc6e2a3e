"""The Kiro corpus in the conversation list: duration and project as the Kiro files state them, or said unknown.

A trial user saw ``DURATION 0s`` and project ``.`` for the Kiro 2.x session: its assistant and tool entries carry no
time, so the list's range ended at the prompt, and its ``<id>.json`` writes ``cwd: "."``. The range now ends at the
2.x metadata document's own ``updated_at`` (a 3.x conversation's range is its lines': every one carries a time, and
``lastModifiedAt`` moves on at a retitle, trial 29c F10), and a relative ``cwd`` names no project (``-`` in
``asz ls``, ``""`` in ``asz ls --json`` and ``/api/conversations``, as docs/view.md gives an unknown project).
Every expected value is read here straight from the Kiro source files; ``asz collect`` runs as a real child.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from cli_helpers import asz_in_process
from view_server_helpers import REPO, Served, asz, counted_rows

KIRO = REPO.parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"


def _ms(rfc3339: str) -> int:
    return int(dt.datetime.fromisoformat(rfc3339.replace("Z", "+00:00")).timestamp() * 1000)


def _expected() -> dict[str, dict]:
    """Per session id: ``from``/``to`` (unix ms) and ``project``, from the Kiro files themselves."""
    out = {}
    for meta in sorted((KIRO / "sessions" / "cli").glob("*.json")):  # 2.x: <id>.json beside <id>.jsonl
        doc = json.loads(meta.read_text(encoding="utf-8"))
        lines = [json.loads(x) for x in meta.with_suffix(".jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
        times = [ln["data"]["meta"]["timestamp"] * 1000 for ln in lines if (ln["data"].get("meta") or {}).get("timestamp")]
        cwd = doc["cwd"]
        out[doc["session_id"]] = {"from": min(times), "to": max(times + [_ms(doc["updated_at"])]),
                                  "project": cwd if cwd.startswith("/") else ""}
    for meta in sorted(KIRO.glob("sessions/*/sess_*/session.json")):  # 3.x
        doc = json.loads(meta.read_text(encoding="utf-8"))
        lines = [json.loads(x) for x in (meta.parent / "messages.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
        times = [_ms(ln["timestamp"]) for ln in lines]
        out[doc["id"]] = {"from": min(times), "to": max(times), "project": doc["workspacePaths"][0]}
    return out


def _lasted(ms: int) -> str:
    s = (ms + 500) // 1000
    assert s < 3600
    return f"{s}s" if s < 60 else f"{s // 60}m{s % 60:02d}s"


def test_kiro_duration_and_project_in_ls_json_and_api(tmp_path):
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    want = _expected()
    assert len(want) == 2 and any(w["project"] == "" for w in want.values())  # the 2.x session's cwd is "."
    src, root = tmp_path / "src", tmp_path / "root"
    shutil.copytree(KIRO, src / ".kiro")
    asz("collect", "--once", "--adapter", "kiro", "--source", str(src), "--root", str(root))
    rows = json.loads(asz_in_process("ls", "--json", "--root", str(root)).stdout)
    got = {r["id"]: {"from": r["from"], "to": r["to"], "project": r["project"]} for r in rows}
    assert got == want
    table = asz_in_process("ls", "--root", str(root)).stdout.splitlines()
    head = table[0]
    at, dur_end = head.index("PROJECT"), head.index("DURATION") + len("DURATION")
    for sid, w in want.items():
        (line,) = [ln for ln in table if ln.startswith(sid[:8])]
        assert line[dur_end - 8:dur_end].strip() == _lasted(w["to"] - w["from"]) != "0s", line
        project = line[at:at + 20].strip()
        assert project == ("-" if not w["project"] else "…" + w["project"][-19:]), line
    served = Served(["view", "--root", str(root)], tmp_path)
    try:
        api = {r["id"]: {"from": r["from"], "to": r["to"], "project": r["project"]} for r in counted_rows(served)}
    finally:
        served.stop()
    assert api == want
