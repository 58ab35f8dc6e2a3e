"""MCP execution records, as ``asz hook`` writes them, read back (trial 20, F5, F6, F14).

Real input: the bundled example transcript with its first tool call renamed ``mcp__probe__run`` (as the trial did),
and the corpus's first probe hook payload (``mcp-hooks-2.1.282.jsonl``) made that call's (session, tool_use_id,
``duration_ms`` 1234) and fed to the real ``asz hook`` twice; every corpus probe payload fed once more into sessions
that have no transcript. Collected by ``asz collect --once`` with ``claude-code-local`` and ``changes``.

- F5: the tool step says the execution's server, duration and outcome in ``asz export --format md|html`` and on the
  page's Talks tab (a real Chromium), not only as JSON in the Changes tab.
- F6: the payload delivered twice is one observation (docs/claude-code-hooks.md): one ``tool_executions`` entry.
- F14: a session of hook records alone is titled by what it holds and has the times of its records in ``asz ls``.
- Trial 25a, F1: a failed call says how it failed (transport, timeout, unclassified) and its error text's size, its
  server and its duration in ``asz conversation``, the exports and the page.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import forked
import pytest
from view_server_helpers import EXAMPLE_SESSION, REPO, asz_here, copy_example, parse

SESSION = EXAMPLE_SESSION
LINE = "MCP server probe (dynamic): returned in 1,234 ms, observed by asz-plugin (client_hook, "


def hook(payload: bytes, data: Path) -> None:
    """One real ``asz hook --data DATA`` process with ``payload`` on stdin (it always exits 0, prints nothing), forked
    from tests/forked.py's pre-imported server (the hook's own start-up is tested in tests/observer, fresh)."""
    p = forked.run([sys.executable, "-m", "asz_core.cli.main", "hook", "--data", str(data)], input=payload,
                       capture_output=True, cwd=REPO, timeout=60)
    assert p.returncode == 0 and p.stdout == b"", p


def example_with_mcp_call(base: Path) -> tuple[Path, Path]:
    """``(projects, main transcript)``: the bundled example copied under ``base`` with its one Bash call
    (``toolu_0001``) renamed ``mcp__probe__run``."""
    projects = copy_example(base / "projects")
    main = next(projects.rglob(f"{SESSION}.jsonl"))
    renamed(main, ('"name":"Bash"', '"name":"mcp__probe__run"'))
    return projects, main


def renamed(transcript: Path, *pairs: tuple[str, str]) -> None:
    """Each ``(old, new)`` of ``pairs`` replaced in the transcript file, in order; each ``old`` must stand there once."""
    text = transcript.read_text()
    for old, new in pairs:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    transcript.write_text(text)


@pytest.fixture(scope="module")
def joined(tmp_path_factory, corpus_dir) -> Path:
    base = tmp_path_factory.mktemp("mcp-joined")
    projects, _ = example_with_mcp_call(base)
    probe = next((corpus_dir / "hooks").glob("apache__*mcp-hooks-2.1.282.jsonl")).read_bytes().splitlines()
    event = json.loads(probe[0])
    assert event["hook_event_name"] == "PostToolUse" and event["mcp_server"] == {"name": "probe", "source": "dynamic"}
    event.update(session_id=SESSION, tool_use_id="toolu_0001", tool_name="mcp__probe__run", duration_ms=1234,
                 cwd="/home/dev/hello-app")
    data = base / "hookdata"
    for _ in range(2):  # the same event delivered twice
        hook(json.dumps(event).encode(), data)
    for line in probe:  # the corpus's own sessions: hook records and no transcript
        hook(line, data)
    assert len((data / "output" / SESSION / "main.execution.jsonl").read_bytes().splitlines()) == 2
    return land_with_hooks(projects, data, base / "root")


def land_with_hooks(projects: Path, data: Path, root: Path) -> Path:
    """``root`` with the transcripts of ``projects`` collected, then the hook records ``asz hook`` wrote under ``data``
    (the changes adapter), then parsed, as a user's collect lands them; returns ``root``."""
    asz_here("collect", "--once", "--adapter", "claude-code-local", "--source", str(projects), "--root", str(root))
    asz_here("collect", "--once", "--adapter", "changes", "--source", str(data), "--root", str(root))
    parse(root)
    return root


def test_delivered_twice_is_one_execution(joined):
    doc = json.loads(asz_here("conversation", SESSION, "--json", "--root", str(joined)).stdout)
    execs = doc["tool_executions"]
    assert [(e["id"], e["step"], e["duration_ms"], e["outcome"]) for e in execs] == [
        ("toolu_0001/client_hook", "tool/toolu_0001", 1234, "returned")]
    probe = json.loads(asz_here("conversation", "86cb6fec", "--json", "--root", str(joined)).stdout)
    assert [e["id"] for e in probe["tool_executions"]] == ["toolu_probe_1_0/client_hook"]  # fed twice too


def test_exports_say_server_duration_and_outcome_at_the_tool_step(joined):
    md = asz_here("export", SESSION, "--format", "md", "--root", str(joined)).stdout
    assert md.count(LINE) == 1
    at = md.index(LINE)
    assert md.rindex("python -m pytest -q tests/test_hello.py", 0, at) < at < md.index("2 passed in 0.03s", at)
    html = asz_here("export", SESSION, "--format", "html", "--root", str(joined)).stdout
    assert html.count(f'<p class="executed"><i>{LINE}') == 1


def test_hook_only_sessions_have_a_title_and_times(joined):
    rows = {r["id"][:8]: r for r in json.loads(asz_here("ls", "--json", "--root", str(joined)).stdout)}
    probe = rows["86cb6fec"]
    assert probe["title"] == "(no transcript) 1 tool execution of mcp__probe__echo"
    assert probe["from"] is not None and probe["from"] == probe["to"] > 0
    assert rows["a815fa95"]["title"].startswith("(no transcript) 2 tool executions of ")
    assert all(r["to"] for r in rows.values())
    assert "(no prompt)" not in asz_here("ls", "--root", str(joined)).stdout


def test_the_page_says_it_at_the_tool_step(joined, serve, browser):
    from selenium.webdriver.common.by import By
    from test_view_server_browser import open_at, wait

    s = serve(joined)
    tool = open_at(browser, f"{s.base}/c/{SESSION}#talk=talk%2Fmain%2Fc0a8f7e2-1111-4a2b-8c3d-000000000001"
                            "&step=tool%2Ftoolu_0001", ".node.target")
    assert tool.get_attribute("data-id") == "tool/toolu_0001"
    tag = tool.find_element(By.CSS_SELECTOR, ".tag.exec")
    assert tag.text == "MCP probe · 1,234 ms · returned"
    wait(browser, lambda d: LINE in tool.text)  # the step's facts, opened by the deep link


def _corpus_payload(corpus_dir: Path, session: str) -> dict:
    """The corpus probe payload of ``session`` (its first 8 characters)."""
    probe = next((corpus_dir / "hooks").glob("apache__*mcp-hooks-2.1.282.jsonl")).read_bytes().splitlines()
    return next(json.loads(x) for x in probe if json.loads(x)["session_id"].startswith(session))


def test_a_hook_only_session_reads_its_executions_where_a_reader_looks(joined, corpus_dir, serve, browser):
    """Trial 23a, F3: the crash probe's session (hook records, no transcript) showed "No talks", ``Changes (1)`` beside
    the header's ``changes 0``, its call only as JSON, ``outcome: failed`` only inside it, and ``project —`` though
    the record has a cwd. Now the Talks tab draws the execution as a table (tool, server, outcome marked failed,
    duration), the counts agree, and the project is the record's cwd (in ``asz ls`` too)."""
    from selenium.webdriver.common.by import By
    from test_view_server_browser import open_at, wait

    event = _corpus_payload(corpus_dir, "ba6a3896")
    assert event["hook_event_name"] == "PostToolUseFailure" and event["tool_name"] == "mcp__probe__crash"  # the premise
    sid = event["session_id"]
    doc = json.loads(asz_here("conversation", sid, "--json", "--root", str(joined)).stdout)
    assert doc["talks"] == [] and doc["workspace_changes"] == [] and len(doc["tool_executions"]) == 1
    assert doc["summary"]["project"] == event["cwd"] == "/work/crash"
    assert {r["id"]: r["project"] for r in json.loads(asz_here("ls", "--json", "--root", str(joined)).stdout)}[sid] == "/work/crash"
    s = serve(joined)
    table = open_at(browser, f"{s.base}/c/{sid}", "#executions")
    assert "No transcript of this conversation has landed; 1 tool execution" in browser.find_element(By.ID, "no-talks").text
    (row,) = table.find_elements(By.CSS_SELECTOR, "tbody tr")
    cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
    assert cells[2:7] == ["mcp__probe__crash", "MCP probe (dynamic)", "failed (transport)", f"{event['duration_ms']} ms",
                          "asz-plugin, client_hook"]
    tag = row.find_element(By.CSS_SELECTOR, ".tag.exec.failed")
    assert tag.text == "failed (transport)"  # trial 25a, F1
    assert tag.get_attribute("title") == "failed (transport: the connection to the server closed; error 19 bytes as JSON, not kept)"
    tabs = {b.get_attribute("data-tab"): b.text for b in browser.find_elements(By.CSS_SELECTOR, ".tabs button")}
    # trial 30b F2: "Tool executions (0)" read as "no tools were used": the tab is named for what it holds
    assert tabs["changes"] == "Changes (0)" and tabs["executions"] == "Hook executions (1)" and tabs["tools"] == "Tools (1)"
    chips = [c.text for c in browser.find_elements(By.CSS_SELECTOR, ".chip")]
    assert "project /work/crash" in chips and "changes 0" in chips, chips
    browser.find_element(By.CSS_SELECTOR, '.tabs button[data-tab="executions"]').click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#panel #executions tbody tr"))
    browser.find_element(By.CSS_SELECTOR, '.tabs button[data-tab="tools"]').click()
    rows = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#panel #tools tbody tr"))
    assert [c.text for c in rows[0].find_elements(By.TAG_NAME, "td")] == ["mcp__probe__crash", "probe", "0", "0", "0", "1"]


#: How each corpus probe failed, as its payload's ``probe_case`` names it, and the words asz says for it (trial 25a, F1).
FAILED = {"fail": ("unclassified", "unclassified: an error text no declared rule knows, from the server or the runtime"),
          "crash": ("transport", "transport: the connection to the server closed"),
          "slow": ("timeout", "timeout: the runtime stopped waiting for the server")}


def test_a_failed_call_says_how_it_failed(joined, corpus_dir):
    """Trial 25a, F1: the three corpus failures were each ``outcome: failed`` and nothing more; ``asz conversation``
    said none of it. Now each says its class, its error text's size (the text is never kept: seed 000), its server and
    its duration, in ``asz conversation`` (human and --json) and both exports."""
    probe = next((corpus_dir / "hooks").glob("apache__*mcp-hooks-2.1.282.jsonl")).read_bytes().splitlines()
    failures = [json.loads(x) for x in probe if json.loads(x)["hook_event_name"] == "PostToolUseFailure"]
    assert sorted(p["probe_case"] for p in failures) == sorted(FAILED)  # 3 in the file
    for event in failures:
        sid, kind_words = event["session_id"], FAILED[event["probe_case"]]
        doc = json.loads(asz_here("conversation", sid, "--json", "--root", str(joined)).stdout)
        (e,) = doc["tool_executions"]
        size = len(json.dumps(event["error"]).encode())
        assert (e["outcome"], e["failure"], e["error"]["bytes"]) == ("failed", kind_words[0], size)
        assert event["error"] not in json.dumps(doc)
        said = (f"MCP server probe (dynamic): failed ({kind_words[1]}; error {size} bytes as JSON, not kept) "
                f"in {event['duration_ms']:,} ms")
        text = asz_here("conversation", sid, "--root", str(joined)).stdout.splitlines()
        at = text.index("tool executions 1 (execution records): arguments agree 0, differ 0, not compared 1")
        assert text[at + 1:at + 3] == ["outcomes failed 1", f"  {event['tool_use_id']} {event['tool_name']}: {said}"]
        md = asz_here("export", sid, "--format", "md", "--root", str(joined)).stdout
        assert f"## Tool executions with no step\n\n- {event['tool_use_id']} {event['tool_name']}: {said}, observed by" in md
        html = asz_here("export", sid, "--format", "html", "--root", str(joined)).stdout
        assert f"{event['tool_name']}: {said}, observed by" in html
    returned = asz_here("conversation", "86cb6fec", "--root", str(joined)).stdout
    assert "outcomes returned 1\n  toolu_probe_1_0 mcp__probe__echo: MCP server probe (dynamic): returned in " in returned
