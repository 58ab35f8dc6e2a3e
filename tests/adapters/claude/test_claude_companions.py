"""Claude Code companion files: ``<session>/tool-results/<tool_use_id>.txt`` beside a ``<persisted-output>`` preview (issue 18).

The shape is the real one: the corpus session 8463c716-… holds one Bash
result whose content opens with ``<persisted-output>`` and names
``…/8463c716-…/tool-results/toolu_019CpL49DWBenUxVVCWEXz3L.txt``; the corpus
does not carry that folder, so its companion is missing. The smallest input
with the companion present is built below in the same shape.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import orjson
import pytest

from asz_adapters_claude.companions import companion_name
from asz_adapters_claude.discover import discover

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "collect"))
from collect_helpers import asz  # noqa: E402
from doc_walk import dicts_in  # noqa: E402

SID = "0c5e9a7b-3f1d-4e2a-8b6c-9d0e1f2a3b4c"
TOOL = "toolu_01AbCdEfGhIjKlMnOpQrStUv"
FULL = "".join(f"line {i}: ok\n" for i in range(4000))  # about 50 KB of output


def _preview(session_path: str, saved_to: str = "") -> str:
    saved_to = saved_to or f"{session_path}/tool-results/{TOOL}.txt"
    return (f"<persisted-output>\nOutput too large (52.1KB). Full output saved to: {saved_to}\n\n"
            f"Preview (first 2KB):\n{FULL[:2048]}\n...\n</persisted-output>")


def _session(tmp_path: Path, with_companion: bool, saved_to: str = "") -> Path:
    """``<tmp_path>/projects``: the transcript (its preview naming ``saved_to``, else a POSIX path under the session),
    and the companion file beside it when ``with_companion``."""
    src = tmp_path / "projects"
    pdir = src / "-home-u-p"
    pdir.mkdir(parents=True)
    lines = [
        {"type": "user", "uuid": "u-1", "parentUuid": None, "sessionId": SID, "timestamp": "2026-11-20T09:00:00.000Z",
         "message": {"role": "user", "content": "Run the tests"}},
        {"type": "assistant", "uuid": "a-1", "parentUuid": "u-1", "sessionId": SID, "timestamp": "2026-11-20T09:00:01.000Z",
         "message": {"id": "msg_1", "role": "assistant", "model": "claude-opus-5", "stop_reason": "tool_use",
                     "content": [{"type": "tool_use", "id": TOOL, "name": "Bash", "input": {"command": "npm test"}}]}},
        {"type": "user", "uuid": "u-2", "parentUuid": "a-1", "sessionId": SID, "timestamp": "2026-11-20T09:00:09.000Z",
         "message": {"role": "user", "content": [{"tool_use_id": TOOL, "type": "tool_result",
                                                  "content": _preview(f"/home/u/.claude/projects/-home-u-p/{SID}", saved_to)}]},
         "toolUseResult": {"stdout": FULL[:2048], "stderr": "", "interrupted": False}},
    ]
    (pdir / f"{SID}.jsonl").write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    if with_companion:
        (pdir / SID / "tool-results").mkdir(parents=True)
        (pdir / SID / "tool-results" / f"{TOOL}.txt").write_text(FULL)
    return src


def _document(src: Path, root: Path, sid: str) -> dict:
    p = asz("collect", "--once", "--adapter", "claude-code-local", "--source", str(src), "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, v.stdout
    c = asz("conversation", sid, "--root", str(root), "--json")
    assert c.returncode == 0, c.stderr
    return orjson.loads(c.stdout)


def _steps(doc: dict) -> list[dict]:
    return [x for x in dicts_in(doc["talks"]) if x.get("kind") == "tool" or "full_output" in x]


def test_preview_names_its_companion() -> None:
    assert companion_name(_preview("/h/.claude/projects/p/s")) == f"{TOOL}.txt"
    legacy = f"<persisted-output>Tool result saved to: /Users/g/.claude/projects/p/s/tool-results/{TOOL}.txt\n\nUse Read to view</persisted-output>"
    assert companion_name(legacy) == f"{TOOL}.txt"
    assert companion_name("Output too large, saved to: /x/tool-results/a.txt") == ""  # no <persisted-output>: not a preview


def test_companion_lands_and_the_step_links_the_full_output(tmp_path: Path) -> None:
    src = _session(tmp_path, with_companion=True)
    d = discover(src)
    [comp] = [s for s in d.sources if s.kind == "tool_output"]
    assert (comp.mode, comp.stream) == ("snapshot", f"tool-results_{TOOL}.txt")
    doc = _document(src, tmp_path / "data", SID)
    [step] = [s for s in _steps(doc) if "full_output" in s]
    fo = step["full_output"]
    # a snapshot document lands without its trailing newlines (docs/storage-root.md, snapshot cursors)
    assert (fo["state"], fo["file"], fo["bytes"]) == ("available", f"tool-results/{TOOL}.txt", len(FULL.rstrip("\n").encode()))
    assert doc["summary"]["problems"] == []  # nothing missing, and the companion is drawn by its step (coverage)
    assert doc["summary"]["coverage"]["cited"] == doc["summary"]["coverage"]["records"]
    shown = asz("show", SID, TOOL, "--root", str(tmp_path / "data"))
    assert shown.returncode == 0


def test_a_missing_companion_is_a_problem(tmp_path: Path) -> None:
    src = _session(tmp_path, with_companion=False)
    doc = _document(src, tmp_path / "data", SID)
    assert [p for p in doc["summary"]["problems"] if "missing" in p and f"{TOOL}.txt" in p]
    [step] = [s for s in _steps(doc) if "full_output" in s]
    assert step["full_output"]["state"] == "missing"


def test_corpus_preview_without_its_companion(corpus_dir: Path, tmp_path: Path) -> None:
    sid = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
    here = corpus_dir / "claude-code" / "projects" / "-home-user-spotter"
    if not (here / f"{sid}.jsonl").exists():
        pytest.skip("the corpus session with a persisted-output preview is absent")
    src = tmp_path / "projects" / "-home-user-spotter"
    src.mkdir(parents=True)
    shutil.copy(here / f"{sid}.jsonl", src / f"{sid}.jsonl")
    raw = (here / f"{sid}.jsonl").read_text()
    named = sorted(set(re.findall(r"<persisted-output>\\n[^\"]*?tool-results/([A-Za-z0-9_]+\.txt)", raw)))
    assert named == ["toolu_019CpL49DWBenUxVVCWEXz3L.txt"]  # counted from the source file
    assert not (here / sid / "tool-results").exists()
    doc = _document(tmp_path / "projects", tmp_path / "data", sid)
    missing = [p for p in doc["summary"]["problems"] if "missing" in p]
    assert len(missing) == len(named) and named[0] in missing[0]
