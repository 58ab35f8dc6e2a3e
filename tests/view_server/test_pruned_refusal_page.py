"""The page over a root ``asz prune`` pruned says a refused call refused and its reason removed (trial 47a F1's other
half: a refusal whose answer carried the person's reason read failed after retention, 32 of 256 in the trial's root).

Real parts: the corpus project that holds a refusal with a reason (-Users-alex-workspace-coderabbit-review-helper: 2
refusals, one of them with the person's reason), collected and pruned (retention ``after: 0``), a real ``asz view``
on loopback and the page in a real headless Chromium. The reason and its size are read from the transcript itself.
"""

from __future__ import annotations

import json
import shutil
from urllib.parse import quote

import pytest
from selenium.webdriver.common.by import By

from asz_core.view.placing import walk
from cli_helpers import asz_in_process
from test_view_server_browser import open_at  # noqa: F401  (browser: tests/conftest.py)

PROJECT = "-Users-alex-workspace-coderabbit-review-helper"
REFUSED = "The user doesn't want to proceed with this tool use."  # Claude Code's answer when the person rejected a call
#: Claude Code's answer before the person's reason for the rejection (Claude Code 2.0.37's wording, the corpus's).
LEAD = (REFUSED + " The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). "
        "The user provided the following reason for the rejection: ")


@pytest.fixture(scope="module")
def pruned(corpus_dir, tmp_path_factory) -> dict:
    """The project collected and pruned; the refusals read from its transcript: ``{tool use id: reason or None}``."""
    base = tmp_path_factory.mktemp("pruned-refusal")
    shutil.copytree(corpus_dir / "claude-code" / "projects" / PROJECT, base / "projects" / PROJECT)
    refusals = {}
    for f in (base / "projects").rglob("*.jsonl"):
        for line in f.read_text(encoding="utf-8").splitlines():
            content = (json.loads(line).get("message") or {}).get("content")
            for b in content if isinstance(content, list) else ():
                text = b.get("content") if isinstance(b, dict) and b.get("type") == "tool_result" else None
                if isinstance(text, str) and text.startswith(REFUSED):
                    refusals[b["tool_use_id"]] = text[len(LEAD):] if text.startswith(LEAD) else None
    root = base / "root"
    for args in (("collect", "--once", "--source", str(base / "projects")), ("prune", "--config", str(base / "asz.yaml"))):
        (base / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
        p = asz_in_process(*args, "--root", str(root), cwd=base, env={"CLAUDE_CONFIG_DIR": str(base / "claude-home")})
        assert p.returncode == 0, p.stderr
    assert not list(root.rglob("*.sd"))
    return {"root": root, "refusals": refusals, "cid": next(root.rglob("*.sk")).parts[-4]}


def _nodes(doc: dict):
    return walk([*(doc.get("talks") or ()), *(doc.get("loose") or ())])


def test_a_refusal_whose_reason_went_reads_refused_on_the_page(pruned, serve, browser):
    refusals, cid = pruned["refusals"], pruned["cid"]
    (tid, reason), = [(k, r) for k, r in refusals.items() if r is not None]
    assert (len(refusals), reason.strip()) == (2, "Let's keep the name of the py file but change the pyproject script "
                                                    "to reference it, otherwise gtg")
    said = f"{LEAD}[removed by retention: {len(reason.encode('utf-8')):,} bytes]"
    s = serve(pruned["root"])
    doc = s.get(f"/api/c/{cid}/view").json()
    nodes = {n["id"]: n for n in _nodes(doc) if n.get("id", "").startswith("tool/")}
    assert (nodes[f"tool/{tid}"]["result"], nodes[f"tool/{tid}"]["refused"]) == (said, True)
    assert sorted(k for k, n in nodes.items() if n.get("refused")) == sorted(f"tool/{k}" for k in refusals)
    tools = {r["tool"]: (r["calls"], r["failed"], r["refused"]) for r in s.get("/api/tools").json()["tools"]}
    assert tools["ExitPlanMode"][2] == 1 and sum(r[2] for r in tools.values()) == len(refusals)
    talk = next(t["id"] for t in doc["talks"] if any(n.get("id") == f"tool/{tid}" for n in _nodes({"talks": [t]})))
    step = open_at(browser, f"{s.base}/c/{cid}#talk={quote(talk, safe='')}&step={quote(f'tool/{tid}', safe='')}", ".node.target")
    assert step.find_element(By.CSS_SELECTOR, "pre.result").text == said.rstrip()
    assert step.find_element(By.XPATH, ".//h3[starts-with(., 'Result')]").text.lower() == "result · refused"  # upper in CSS
    assert reason.strip()[-30:] not in s.get(f"/api/c/{cid}/export?format=md").body.decode()
