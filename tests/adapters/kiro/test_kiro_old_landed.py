"""A root whose Kiro records ``kiro/0.1.0`` landed (before file writes derived a ``changes/1`` record, 815218f): what
the readers give for its writes, and that its landed records hold, verbatim, what the derivation reads (docs/reading.md,
"Kiro file writes landed by kiro/0.1.0"; kiro22). The root is landed by the real ``kiro/0.1.0`` tree, taken from this
repository's history with ``git archive``, from the Kiro corpus. Counts are made straight from the source files.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from asz_core import read_file

REPO = Path(__file__).resolve().parents[3]
KIRO = REPO.parent / "shared" / "corpus" / "kiro" / "home"
OLD = "815218f^"  # the last tree whose Kiro adapter is kiro/0.1.0
V2 = "8e247382-c779-440f-b1db-ed9bad1afaee"
V3 = "sess_5e804080-466c-4f65-bde9-f6133b7068f6"


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _v2_writes() -> list[dict]:
    """The 2.x ``FileWrite`` commands a ``ToolResults`` line answered ``Success`` (what the file became)."""
    out = []
    for d in _lines(KIRO / ".kiro" / "sessions" / "cli" / f"{V2}.jsonl"):
        for r in (d["data"].get("results") or {}).values() if d["kind"] == "ToolResults" else ():
            fw = r["tool"]["kind"].get("BuiltIn", {}).get("FileWrite")
            if fw and "Success" in r["result"]:
                out.append(fw)
    return out


def _v3_writes() -> list[dict]:
    """The 3.x ``create`` calls' ``args`` holding the content before and after."""
    path = next((KIRO / ".kiro" / "sessions").glob(f"*/{V3}/messages.jsonl"))
    return [d["payload"]["args"] for d in _lines(path) if d["payload"].get("type") == "tool_call"
            and d["payload"].get("toolName") == "create" and "modifiedContent" in d["payload"].get("args", {})]


@pytest.fixture(scope="module")
def old_root(tmp_path_factory) -> Path:
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    tar = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", OLD, "asz_core", "asz_adapters_kiro"],
                         capture_output=True)
    if tar.returncode != 0:
        pytest.skip(f"the kiro/0.1.0 tree ({OLD}) is not in this clone's history: {tar.stderr.decode()[:200]}")
    base = tmp_path_factory.mktemp("kiro22-old")
    with tarfile.open(fileobj=io.BytesIO(tar.stdout)) as t:
        t.extractall(base / "tree", filter="data")
    env = {**os.environ, "PYTHONPATH": str(base / "tree")}  # the old asz_core and adapter, over the installed ones
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--adapter", "kiro",
                        "--source", str(KIRO), "--root", str(base / "root")], capture_output=True, text=True, env=env,
                       cwd=base)  # not this checkout: -m puts the working folder first on the path
    assert p.returncode == 0, p.stdout + p.stderr
    return base / "root"


def _asz(*args: str) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    return p


def test_old_kiro_writes_read_as_not_derived_though_their_inputs_landed_whole(old_root):
    v2, v3 = _v2_writes(), _v3_writes()
    assert (len(v2), len(v3)) == (2, 4)
    landed = {s: [read_file(f) for f in sorted((old_root / s / "streams" / "main").glob("transcript-*.sd"))] for s in (V2, V3)}
    assert {h.adapter for files in landed.values() for h, _, _ in files} == {"kiro/0.1.0"}
    parts = {s: [p for _, recs, _ in files for r in recs for p in r.parts] for s, files in landed.items()}
    # no changes record landed with them, yet every input the derivation reads is there as the runtime wrote it
    assert not [p for ps in parts.values() for p in ps if p.k == "data" and isinstance(p.data, dict) and p.data.get("changes")]
    calls = [p.data for p in parts[V3] if p.k == "call" and p.name == "create"]
    assert [(a["originalContent"], a["modifiedContent"]) for a in calls] == [(a["originalContent"], a["modifiedContent"]) for a in v3]
    results = [r["tool"]["kind"]["BuiltIn"]["FileWrite"] for p in parts[V2] if p.k == "data" and isinstance(p.data, dict)
               for r in p.data.values() if isinstance(r, dict) and "FileWrite" in str(r.get("tool"))]
    assert results == v2
    # what the readers give: each write in (+N), none in CHANGES (a new root reads 2 and 4: test_kiro_reading)
    rows = {r["id"]: r for r in json.loads(_asz("ls", "--json", "--root", str(old_root)).stdout)}
    assert {s: (rows[s]["changes"], rows[s]["changes_not_derived"], rows[s]["lines_added"]) for s in (V2, V3)} == \
        {V2: (0, len(v2), 0), V3: (0, len(v3), 0)}
    out = _asz("ls", "--root", str(old_root)).stdout
    assert f"(+N) in CHANGES: {len(v2) + len(v3)} editing tool call(s) in 2 conversation(s) returned with no changes record" in out


def test_asz_conversation_says_what_kiro_0_1_0_did_not_keep(old_root):
    """``asz conversation`` names the earlier adapter version its files are of and what that version did not keep or
    read as the installed one does (``Adapter.landed_without``; docs/storage-root.md, "What an earlier version did
    not keep"): for kiro/0.1.0, the derived changes record (0.2.0), a member verbatim (0.3.0) and a 2.x create as Kiro
    recorded it (0.4.0: review of 210729f, F18, whose docs say files landed before keep modify). The file count is
    the root's own landed files (every one kiro/0.1.0, asserted from their headers)."""
    from asz_adapters_kiro.plugin import KiroAdapter

    files = sorted((old_root / V2).rglob("*.sd"))
    assert files and {read_file(f)[0].adapter for f in files} == {"kiro/0.1.0"}
    out = _asz("conversation", V2, "--root", str(old_root)).stdout
    (line,) = [x for x in out.splitlines() if "landed by kiro/0.1.0" in x]
    assert f"landed by kiro/0.1.0 ({len(files)} of {len(files)} file(s)), an earlier version than the installed " \
           f"kiro/{KiroAdapter.version}, which did not keep or read as it does: " in line
    assert "a file write's changes/1 record" in line and "a member it did not describe, verbatim" in line
    assert "a 2.x create as Kiro recorded it (its change reads modify" in line
    assert KiroAdapter().landed_without("kiro/1", f"kiro/{KiroAdapter.version}") == []
    assert KiroAdapter().landed_without("kiro/1", "kiro/0.3.0")[0] == (
        "a 2.x create as Kiro recorded it (its change reads modify, the file before it present)")
    assert KiroAdapter().landed_without("kiro/1", "kiro/0.4.0") == [  # trial 29c
        "a Kiro IDE call's file change, its session_start system prompt, Kiro's classification of a call, and "
        "approvals and context usage as notices (trial 29c: they read as (+N), undescribed, dropped, data)",
        "a 3.x session.json with no time of its own (it took lastModifiedAt, so the conversation's range ran to Kiro's "
        "last rewrite of the document, a retitle or a reopen: trial 29c, F10)",
        "a time that does not read (a 3.x timestamp that is no string, a 2.x meta.timestamp or an IDE startTime that "
        "is no count in range, a metadata document's updated_at that is no time) as Kiro wrote it (it landed no time "
        "and said nothing: trial 30a F8)",  # session 32: 0.6.0
        "a line holding bytes that are not valid UTF-8 described, its text read with U+FFFD (it landed such a line whole as one unknown part said not valid JSON, its prompt or reply in no talk: trial 50c F8)"]  # session 50: 0.7.0
