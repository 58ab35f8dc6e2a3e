"""A tool call the person refused has one name everywhere (trial 38a F4): ``asz usage tools`` counts it under REFUSED
(JSON key ``refused``, the old keys kept), not under FAILED, and ``asz conversation``'s tools line says ``refused``, as
the audit text form's ``status`` does, and so do the md, html and brief md copies from render 15 (a copy of render 14
or before, which said ``failed``, still checks against the root). Real input: the corpus's Claude Code projects collected by the real ``asz
collect``; the counts are made here from the transcripts: a ``tool_result`` with ``is_error`` whose text begins with
Claude Code's fixed answer (``The user doesn't want to proceed with this tool use.``) is refused, any other
``is_error`` result failed, each tool use id once."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from cli_helpers import asz_in_process
from reading_helpers import as_copy

REFUSAL = "The user doesn't want to proceed with this tool use."
SPOTTER = "55604662-cf2a-4331-851a-ec234028f8ca"  # both its tool calls refused
CODERABBIT = "cb2e607c-c758-415a-8b45-c49e4631906a"  # refused calls and failed ones


@pytest.fixture(scope="module")
def root(corpus_copy) -> Path:
    """The corpus's Claude Code projects collected by the real ``asz collect --once``: the run's once-collected root
    (tests/conftest.py ``corpus_collected``), this module's own copy."""
    return corpus_copy()


def _text(content) -> str:
    if isinstance(content, str):
        return content
    return "".join(c.get("text", "") for c in content or () if isinstance(c, dict) and c.get("type") == "text")


def _from_transcripts(projects: Path, only: str = "") -> tuple[Counter, Counter]:
    """(refused, failed) per tool name, each tool use id once, over every transcript (sub-agents' too)."""
    names: dict[str, str] = {}
    results: dict[str, tuple[bool, str]] = {}
    for f in sorted(projects.rglob("*.jsonl")):
        if only and only not in str(f):
            continue
        for line in f.read_text(encoding="utf-8").splitlines():
            try:
                d = json.loads(line)
            except ValueError:
                continue
            content = (d.get("message") or {}).get("content") if isinstance(d, dict) else None
            for c in content if isinstance(content, list) else ():
                if not isinstance(c, dict):
                    continue
                if c.get("type") == "tool_use":
                    names.setdefault(c["id"], c["name"])
                elif c.get("type") == "tool_result":
                    results.setdefault(c["tool_use_id"], (c.get("is_error") is True, _text(c.get("content"))))
    refused, failed = Counter(), Counter()
    for i, (error, text) in results.items():
        if i not in names or not error:
            continue
        if text.removeprefix("Error: ").startswith(REFUSAL):
            refused[names[i]] += 1
        else:
            failed[names[i]] += 1
    return refused, failed


def test_usage_tools_counts_refusals_apart_from_failures(root, corpus_dir):
    refused, failed = _from_transcripts(corpus_dir / "claude-code" / "projects")
    assert sum(refused.values()) >= 5 and refused["Bash"] >= 1  # the corpus holds refusals of several tools
    p = asz_in_process("usage", "tools", "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    got = {r["tool"]: r for r in doc["tools"]}
    assert {t: r["refused"] for t, r in got.items() if r["refused"]} == dict(refused)
    assert {t: r["failed"] for t, r in got.items() if r["failed"]} == dict(failed)
    assert (doc["total"]["refused"], doc["total"]["failed"]) == (sum(refused.values()), sum(failed.values()))
    table = asz_in_process("usage", "tools", "--root", str(root)).stdout.splitlines()
    head = table[0].split()
    assert head[:4] == ["TOOL", "CALLS", "FAILED", "REFUSED"], table[0]
    bash = next(x.split() for x in table if x.startswith("Bash "))
    assert (int(bash[2]), int(bash[3])) == (failed["Bash"], refused["Bash"]), table
    csv = asz_in_process("usage", "tools", "--format", "csv", "--root", str(root)).stdout.splitlines()
    # the columns an earlier asz wrote keep their places (a spreadsheet or cut -d, reads them by position); refused last
    assert csv[0].split(",") == ["kind", "name", "server", "calls", "failed", "executions", "timeout", "transport",
                                 "server_error", "unclassified", "interrupted", "duration_n", "median_ms", "p95_ms",
                                 "max_ms", "sessions", "refused"], csv[0]
    bash_csv = next(x.split(",") for x in csv if x.startswith("tool,Bash,"))
    assert (int(bash_csv[4]), int(bash_csv[-1])) == (failed["Bash"], refused["Bash"]), csv


def test_conversation_says_refused(root, corpus_dir):
    refused, failed = _from_transcripts(corpus_dir / "claude-code" / "projects", SPOTTER)
    assert (dict(refused), dict(failed)) == ({"Bash": 1, "Glob": 1}, {})
    out = asz_in_process("conversation", SPOTTER[:8], "--root", str(root)).stdout
    line = next(x for x in out.splitlines() if x.startswith("tools "))
    assert line == "tools 2 call(s) of 2 tool(s): Bash 1 (1 refused), Glob 1 (1 refused)", line
    text = asz_in_process("export", SPOTTER[:8], "--format", "text", "--root", str(root)).stdout
    head = f"tool_calls: made 2, failed 0, refused {sum(refused.values())}"  # the header's count (render 55, trial 50c F4)
    assert head in text.splitlines(), text
    text = text.replace(head, "")
    assert text.count("] tool_call, refused\n") == 2 and "failed" not in text.lower().replace("failed_", ""), text


def _tool_ids(projects: Path, only: str) -> tuple[set, set]:
    """(refused, failed) tool use ids of the transcripts whose path holds ``only``, by :func:`_from_transcripts`' rule."""
    refused, failed = set(), set()
    for f in sorted(projects.rglob("*.jsonl")):
        if only not in str(f):
            continue
        for line in f.read_text(encoding="utf-8").splitlines():
            content = (json.loads(line).get("message") or {}).get("content") if line.startswith("{") else None
            for c in content if isinstance(content, list) else ():
                if isinstance(c, dict) and c.get("type") == "tool_result" and c.get("is_error") is True:
                    said_no = _text(c.get("content")).removeprefix("Error: ").startswith(REFUSAL)
                    (refused if said_no else failed).add(c["tool_use_id"])
    return refused, failed - refused


def test_a_refused_step_says_refused_and_a_json_copy_without_it_still_checks(root, corpus_dir, tmp_path):
    """Session 40: the document's tool step the person refused carries ``"refused": true`` (its ``failed`` stays true,
    as its result part says), no other step does; ids from the transcript. A json copy an earlier asz wrote, with no
    such key, checks against the root and is said so; this asz's own copy checks with nothing said."""
    from asz_core.view import build_view

    refused, failed = _tool_ids(corpus_dir / "claude-code" / "projects", CODERABBIT)
    assert (len(refused), len(failed)) == (2, 5)
    stack, marked, plain = list(build_view(root, CODERABBIT)["talks"]), {}, set()
    while stack:
        n = stack.pop()
        stack.extend(n.get("children", ()))
        if n.get("kind") in ("tool", "agent.call"):
            if "refused" in n:
                marked[n["id"].split("/", 1)[1]] = (n["refused"], n.get("failed"), list(n)[-1])
            elif n.get("failed"):
                plain.add(n["id"].split("/", 1)[1])
    assert marked == {i: (True, True, "refused") for i in refused} and plain == failed
    copy = tmp_path / "c.json"
    assert asz_in_process("export", CODERABBIT[:8], "--format", "json", "--root", str(root), "--out", str(copy)).returncode == 0
    data = copy.read_bytes()
    assert data.count(b',"refused":true') == 2
    v = asz_in_process("verify", "--export", str(copy), "--root", str(root))
    assert v.returncode == 0 and "refused key" not in v.stdout, v.stdout + v.stderr
    body = json.loads((tmp_path / "c.json.manifest.json").read_text())
    older = as_copy(tmp_path, "old.json", data.replace(b',"refused":true', b""), body)
    v = asz_in_process("verify", "--export", older, "--root", str(root))
    assert v.returncode == 0 and v.stdout.splitlines()[-1] == "the copy checks against the root", v.stdout + v.stderr
    assert ("the copy's tool steps have no refused key, which a later asz added (session 40; an earlier asz marked a "
            "refused tool step failed alone): its 2 refused step(s) compared as that asz wrote them, without it") in v.stdout


#: How a copy's tool heading says a call ended: md ``**Tool NAME** (MARK) · …``, html ``Tool <b>NAME</b> <span
#: class="MARK">MARK</span>``, the brief md ``- Tool **NAME** … · MARK``.
_MARKS = {"md": re.compile(r"^\*\*Tool ([^*\n]+)\*\* \((failed|refused)\) ", re.M),
          "html": re.compile(r'<summary>Tool <b>([^<]+)</b> <span class="(failed|refused)">\2</span>'),
          "brief": re.compile(r"^- Tool \*\*([^*\n]+)\*\*.* · (failed|refused)(?: · |$)", re.M)}


@pytest.mark.parametrize("sid", [SPOTTER, CODERABBIT])
def test_md_and_html_copies_say_refused(root, corpus_dir, tmp_path, sid):
    from asz_core.reading.export_render import drawing

    refused, failed = _from_transcripts(corpus_dir / "claude-code" / "projects", sid)
    assert sum(refused.values()) == 2 and sum(failed.values()) == (0 if sid == SPOTTER else 5)
    for form, args in (("md", ["--format", "md"]), ("html", ["--format", "html"]), ("brief", ["--format", "md", "--brief"])):
        copy = tmp_path / f"{form}.{'html' if form == 'html' else 'md'}"
        p = asz_in_process("export", sid[:8], *args, "--root", str(root), "--out", str(copy))
        assert p.returncode == 0, p.stderr
        got = {"refused": Counter(), "failed": Counter()}
        for name, mark in _MARKS[form].findall(copy.read_text(encoding="utf-8")):
            got[mark][name] += 1
        assert (got["refused"], got["failed"]) == (refused, failed), (form, got)
        assert json.loads(copy.with_name(copy.name + ".manifest.json").read_text())["render"] >= 15  # render 16 on
        v = asz_in_process("verify", "--export", str(copy), "--root", str(root))
        assert v.returncode == 0, v.stdout + v.stderr
    with drawing(14):  # an older copy said failed for each refusal, and still checks against the root
        p = asz_in_process("export", sid[:8], "--format", "md", "--root", str(root), "--out", str(tmp_path / "old.md"))
    old = (tmp_path / "old.md").read_bytes()
    assert len(_MARKS["md"].findall(old.decode())) == sum(failed.values()) + sum(refused.values())
    assert b"(refused)" not in old
    body = json.loads((tmp_path / "old.md.manifest.json").read_text())
    for render in (14, 15):  # its own render checks; the same bytes said to be render 15 do not, where it refused
        v = asz_in_process("verify", "--export", as_copy(tmp_path, f"r{render}.md", old, {**body, "render": render}),
                           "--root", str(root))
        assert (v.returncode, v.stdout.splitlines()[-1]) == ((0, "the copy checks against the root") if render == 14 else
                                                             (1, "2 problem(s)")), v.stdout + v.stderr


@pytest.mark.slow
def test_the_pages_tools_tab_has_a_refused_column(root, corpus_dir, browser, tmp_path):
    """The page's Tools tab (``summary.calls_by_tool``) counts refusals apart from failures, as ``asz usage tools``
    does: cb2e607c's rows against the transcript's counts, in a real Chromium on a real ``asz view``."""
    from selenium.webdriver.common.by import By
    from test_view_server_browser import open_at, wait
    from view_server_helpers import Served

    refused, failed = _from_transcripts(corpus_dir / "claude-code" / "projects", CODERABBIT)
    s = Served(["view", "--root", str(root)], tmp_path)
    try:
        open_at(browser, f"{s.base}/c/{CODERABBIT}", ".tabs button[data-tab='tools']").click()
        rows = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#panel #tools tbody tr"))
        head = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "#panel #tools thead th")]
        assert head == ["Tool", "MCP server", "Calls", "Failed", "Refused", "Hook records"], head
        cells = [[c.text for c in r.find_elements(By.TAG_NAME, "td")] for r in rows]
        # its steps (session 40): each refused one tagged refused, never failed; the failed ones failed
        browser.find_element(By.CSS_SELECTOR, ".tabs button[data-tab='talks']").click()
        wait(browser, lambda d: d.find_elements(By.ID, "expand-all"))[0].click()
        tags = wait(browser, lambda d: [t.text for t in d.find_elements(By.CSS_SELECTOR, ".node .tag.failed")
                                        if t.text in ("failed", "refused")] or None)
    finally:
        s.stop()
    assert Counter(tags) == {"refused": sum(refused.values()), "failed": sum(failed.values())}, tags
    assert {c[0]: int(c[4]) for c in cells if c[4] != "0"} == dict(refused)
    assert {c[0]: int(c[3]) for c in cells if c[3] != "0"} == dict(failed)
