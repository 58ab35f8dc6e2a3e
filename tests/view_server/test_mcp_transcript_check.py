"""What ``asz hook`` saw of an MCP call held against the transcript beyond its arguments, and a second observation of
one call that differs from the first (trial 30c, F2 and F3).

The corpus holds no transcript with an MCP call, so two real transcripts have calls renamed as MCP calls (as
tests/docs and trial 30c did), and the hook payloads are the corpus's probe payload ``echo`` made those calls', fed
to the real ``asz hook``:

- the corpus's ``-home-user-spotter`` session ``55604662``: its ``Bash`` call (``toolu_0116…``, renamed
  ``mcp__shell__run``) and its ``Glob`` call (``toolu_01Fd…``, ``mcp__fs__glob``), both rejected by the person, so
  both tool results say ``is_error: true``. The hook says the first returned ``[{"type":"text","text":"fine"}]``
  (outcome and result differ) and the second failed with ``Connection closed`` (outcome agrees);
- the bundled example: its ``toolu_0001`` (renamed ``mcp__probe__run``; its result ``is_error: false``) observed
  twice, first failed (``Connection closed``) under another tool name (``mcp__shell__exec``), then returned with the
  transcript's own result text; its subagent's ``toolu_0101`` (renamed ``mcp__probe__read``; its result gives no
  ``is_error``, the API's default false) returned the transcript's ``toolUseResult`` itself, delivered twice alike.

Every expected name, flag and digest is read here from the source files (``json``, sorted keys, compact), never by asz.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from test_mcp_arguments_check import AGENT, canonical, probe_payloads
from test_mcp_executions_read import example_with_mcp_call, hook, renamed
from view_server_helpers import EXAMPLE_SESSION, asz_here, parse

SPOTTER = "55604662-cf2a-4331-851a-ec234028f8ca"
BASH, GLOB = "toolu_0116Hyi5v8ut7Ffb7d8qV1Sc", "toolu_01FdQ8qTyVyZjE3Kw4dguQGx"
FINE = [{"type": "text", "text": "fine"}]


def blocks(transcript: Path, kind: str) -> dict[str, tuple[dict, dict]]:
    """``{id: (block, line)}`` of each ``tool_use`` (by ``id``) or ``tool_result`` (by ``tool_use_id``) block."""
    out = {}
    for line in transcript.read_text().splitlines():
        rec = json.loads(line)
        for b in (rec.get("message") or {}).get("content") or ():
            if isinstance(b, dict) and b.get("type") == kind:
                out.setdefault(b["id"] if kind == "tool_use" else b["tool_use_id"], (b, rec))
    return out


def digest(value) -> dict:
    b = canonical(json.dumps(value, ensure_ascii=False))
    return {"bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()}


@pytest.fixture(scope="module")
def held(tmp_path_factory, corpus_dir) -> dict:
    base = tmp_path_factory.mktemp("mcp-held")
    projects, main = example_with_mcp_call(base)
    child = next(projects.rglob(f"agent-{AGENT}.jsonl"))
    renamed(child, ('"name":"Read"', '"name":"mcp__probe__read"'))
    spotter = projects / "-home-user-spotter" / f"{SPOTTER}.jsonl"
    spotter.parent.mkdir()
    shutil.copyfile(corpus_dir / "claude-code" / "projects" / "-home-user-spotter" / f"{SPOTTER}.jsonl", spotter)
    renamed(spotter, ('"name":"Bash"', '"name":"mcp__shell__run"'), ('"name":"Glob"', '"name":"mcp__fs__glob"'))
    echo = next(p for p in probe_payloads(corpus_dir) if p["probe_case"] == "echo")
    results = {**blocks(main, "tool_result"), **blocks(child, "tool_result"), **blocks(spotter, "tool_result")}
    calls = {**blocks(main, "tool_use"), **blocks(child, "tool_use"), **blocks(spotter, "tool_use")}
    # the premises, from the files: which results are errors, and what toolu_0101's transcript result is
    assert [results[i][0].get("is_error") for i in (BASH, GLOB, "toolu_0001", "toolu_0101")] == [True, True, False, None]
    read_result = results["toolu_0101"][1]["toolUseResult"]
    failed = {k: v for k, v in echo.items() if k != "tool_response"} | {"hook_event_name": "PostToolUseFailure",
                                                                         "error": "Connection closed"}
    data = base / "hookdata"

    def send(event: dict, call: str, **more) -> None:
        hook(json.dumps({**event, "tool_use_id": call, "tool_name": calls[call][0]["name"],
                         "tool_input": calls[call][0]["input"], **more}).encode(), data)

    send(echo, BASH, session_id=SPOTTER, tool_response=FINE)
    send(failed, GLOB, session_id=SPOTTER)
    send(failed, "toolu_0001", session_id=EXAMPLE_SESSION, tool_name="mcp__shell__exec")
    send(echo, "toolu_0001", session_id=EXAMPLE_SESSION, tool_name="mcp__shell__exec",
         tool_response=results["toolu_0001"][0]["content"])
    for _ in range(2):  # a retried hook: the same event twice
        send(echo, "toolu_0101", session_id=EXAMPLE_SESSION, agent_id=AGENT, tool_response=read_result)
    root = base / "root"
    asz_here("collect", "--once", "--adapter", "claude-code-local", "--source", str(projects), "--root", str(root))
    asz_here("collect", "--once", "--adapter", "changes", "--source", str(data), "--root", str(root))
    parse(root)
    return {"root": root, "calls": calls, "read_result": read_result, "data": data,
            "bash_result": results[BASH][0]["content"]}


def document(root: Path, sid: str) -> dict:
    return json.loads(asz_here("conversation", sid, "--json", "--root", str(root)).stdout)


def test_name_outcome_and_result_held_against_the_transcript(held):
    agree = {"result": "agree"}
    not_returned = {"result": "cannot_compare", "why": "the execution record holds no digest of a result (the call did "
                                                       "not return)"}
    spot = {e["tool"]: e for e in document(held["root"], SPOTTER)["tool_executions"]}
    assert spot[BASH]["result"]["sha256"] == digest(FINE)["sha256"]
    # the transcript's tool_result content of the rejected call (a string: its toolUseResult string is no object, so
    # the result part keeps the content as its text, the first form held against)
    rejected = held["bash_result"]
    assert isinstance(rejected, str) and rejected.startswith("The user doesn't want to proceed with this tool use.")
    assert spot[BASH]["transcript_check"] == {
        "name": agree, "outcome": {"result": "differ", "transcript": "failed"},
        "result": {"result": "differ", "transcript": {k: digest(rejected)[k] for k in ("bytes", "sha256")}}}
    assert spot[GLOB]["transcript_check"] == {"name": agree, "outcome": agree, "result": not_returned}
    ex = {e["tool"]: e for e in document(held["root"], EXAMPLE_SESSION)["tool_executions"]}
    assert ex["toolu_0001"]["transcript_check"] == {
        "name": {"result": "differ", "transcript": "mcp__probe__run"},
        "outcome": {"result": "differ", "transcript": "returned"}, "result": not_returned}
    # no is_error in the transcript's result is the API's default, not an error; its toolUseResult is what was returned
    assert ex["toolu_0101"]["result"]["sha256"] == digest(held["read_result"])["sha256"]
    assert ex["toolu_0101"]["transcript_check"] == {"name": agree, "outcome": agree, "result": agree}


def test_a_second_observation_that_differs_is_said_and_a_retry_is_not(held):
    ex = {e["tool"]: e for e in document(held["root"], EXAMPLE_SESSION)["tool_executions"]}
    assert len(ex) == 2
    first = ex["toolu_0001"]
    assert (first["outcome"], first["failure"], first["observed_times"]) == ("failed", "transport", 2)
    (again,) = first["observed_again"]
    assert again["differs"] == ["outcome", "failure", "result", "error"]
    assert again["outcome"] == "returned" and "failure" not in again and again["time"] > first["time"]
    assert again["result"]["bytes"] == len(canonical(json.dumps("..\n2 passed in 0.03s")))
    retried = ex["toolu_0101"]
    assert retried["observed_times"] == 2 and "observed_again" not in retried
    text = asz_here("conversation", EXAMPLE_SESSION, "--root", str(held["root"])).stdout.splitlines()
    assert "held against the transcript: name differs 1, outcome differs 1, result differs 0; observed twice 2, " \
           "differing 1" in text
    assert ("outcome differs: toolu_0001 mcp__shell__exec: the outcome differs from the transcript's (the hook saw "
            "failed, the transcript's tool result is not an error)") in text
    (said,) = [x for x in text if x.startswith("observed twice, differing: toolu_0001 mcp__shell__exec: first failed")]
    assert said.endswith(f"observed again at {again['time']}: returned (its outcome, failure, result, error differ from "
                         "the first's); the first by time is the one counted")
    md = asz_here("export", EXAMPLE_SESSION, "--format", "md", "--root", str(held["root"])).stdout
    step = next(x for x in md.splitlines() if x.startswith("*MCP server probe (dynamic): failed (transport"))
    assert ("; the tool name differs from the transcript's (the hook saw mcp__shell__exec, the transcript's call is "
            "mcp__probe__run); the outcome differs from the transcript's (the hook saw failed, the transcript's tool "
            f"result is not an error); observed again at {again['time']}: returned") in step
    html = asz_here("export", EXAMPLE_SESSION, "--format", "html", "--root", str(held["root"])).stdout
    assert f"observed again at {again['time']}: returned" in html


def test_verify_counts_and_names_each(held):
    root = held["root"]
    p = asz_here("verify", "--root", str(root), check=False)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    # 4 ids (6 records): BASH, GLOB, toolu_0001 (twice, differing), toolu_0101 (twice, alike)
    assert "checked 4 tool execution record(s) against the transcript's input: agree 4, differ 0, not compared 0" in lines
    assert ("checked 4 tool execution record(s) against the transcript's call and result: name differs 1, outcome "
            "differs 2, result differs 1; observed twice 2 (4 records), differing 1 (the first by time is the one "
            "counted)") in lines
    execution, row = next((f, i) for f in sorted((root / EXAMPLE_SESSION).rglob("execution-*.sd"))
                          for i, x in enumerate(f.read_bytes().splitlines()[1:-1], 1)
                          if b'"toolu_0001"' in x and b'"returned"' in x)
    (note,) = [x for x in lines if x.startswith("note:") and "observed twice, differing" in x]
    assert note.startswith(f"note: {execution}:{row + 1}: observed twice, differing: session {EXAMPLE_SESSION}, tool "
                           "call toolu_0001 mcp__shell__exec: observed again at ")
    warned = sorted(x.split(" [arguments]")[0].split(": ", 2)[2] + " " + x.split("tool call ")[1].split(" ")[0]
                    for x in lines if x.startswith("warning:") and "[arguments]" in x)
    assert warned == ["outcome differs toolu_0001", f"outcome differs {BASH}", f"result differs {BASH}",
                      "tool name differs toolu_0001"]
    data = json.loads(asz_here("verify", "--json", "--root", str(root), check=False).stdout)
    assert {k: data[k] for k in data if k.startswith("executions_")} == {
        "executions_agree": 4, "executions_differ": 0, "executions_not_compared": 0, "executions_name_differs": 1,
        "executions_outcome_differs": 2, "executions_result_differs": 1, "executions_observed_twice": 2,
        "executions_observed_twice_differing": 1, "executions_no_result": 0}
    assert data["calls_no_execution"] == 0  # every MCP call of the two transcripts has its record (trial 33b F1)
    out = asz_here("show", EXAMPLE_SESSION, "toolu_0001", "--root", str(root)).stdout
    assert "transcript_check: name differ, outcome differ, result cannot_compare; the tool name differs" in out
    assert out.count("observed_again: ") == 2  # under the first record, and under the later one it names


def test_the_page_says_it(held, serve, browser):
    from selenium.webdriver.common.by import By
    from test_view_server_browser import open_at, wait

    s = serve(held["root"])
    open_at(browser, f"{s.base}/c/{EXAMPLE_SESSION}#tab=executions", "#panel #executions tbody tr")
    head = [x.text for x in browser.find_elements(By.CSS_SELECTOR, "#panel #executions thead th")]
    col = head.index("Against the transcript")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#panel #executions tbody tr"))
    cells = {r.find_elements(By.TAG_NAME, "td")[0].text: r.find_elements(By.TAG_NAME, "td")[col]
             for r in browser.find_elements(By.CSS_SELECTOR, "#panel #executions tbody tr")}
    assert cells["tool/toolu_0101"].text == "—"
    flagged = cells["tool/toolu_0001"]
    assert flagged.text == "name differs · outcome differs · observed twice, differing"
    tip = flagged.find_element(By.CSS_SELECTOR, "span").get_attribute("title")
    assert tip.startswith("the tool name differs from the transcript's (the hook saw mcp__shell__exec") \
        and tip.endswith("the first by time is the one counted")


def test_an_empty_result_agrees(tmp_path, corpus_dir):
    """A call whose output was empty: the transcript's ``tool_result`` content is ``""`` (its result part lands no
    text) and its ``toolUseResult`` is absent; the hook's ``tool_response`` ``""`` is that value (trial 30c's root had
    12 such calls said to differ). The corpus's spotter subagent ``a7be2f0``, its Bash calls renamed as MCP calls."""
    src = corpus_dir / "claude-code" / "projects" / "-home-user-spotter"
    session, agent, call = "8463c716-a2ea-4c14-9efa-87158ebd9f20", "a7be2f0", "toolu_018KCozuFFmweHLSYWY1A2LH"
    projects = tmp_path / "projects" / "-home-user-spotter"
    shutil.copytree(src / session, projects / session)
    shutil.copyfile(src / f"{session}.jsonl", projects / f"{session}.jsonl")
    child = projects / session / "subagents" / f"agent-{agent}.jsonl"
    child.chmod(0o644)
    child.write_text(child.read_text().replace('"name":"Bash"', '"name":"mcp__shell__run"'))
    (use, _), (result, line) = blocks(child, "tool_use")[call], blocks(child, "tool_result")[call]
    assert result["content"] == "" and result["is_error"] is False and "toolUseResult" not in line  # the premise
    echo = next(p for p in probe_payloads(corpus_dir) if p["probe_case"] == "echo")
    data = tmp_path / "hookdata"
    hook(json.dumps(dict(echo, session_id=session, agent_id=agent, tool_use_id=call, tool_name=use["name"],
                         tool_input=use["input"], tool_response="")).encode(), data)
    root = tmp_path / "root"
    asz_here("collect", "--once", "--adapter", "claude-code-local", "--source", str(tmp_path / "projects"), "--root", str(root))
    asz_here("collect", "--once", "--adapter", "changes", "--source", str(data), "--root", str(root))
    parse(root)
    (e,) = document(root, session)["tool_executions"]
    assert e["result"]["bytes"] == len(b'""')
    assert e["transcript_check"] == {"name": {"result": "agree"}, "outcome": {"result": "agree"},
                                     "result": {"result": "agree"}}
