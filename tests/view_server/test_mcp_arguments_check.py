"""What ``asz hook`` saw of an MCP call's arguments, held against the transcript's input of that call (trial 23a, F8).

The corpus holds no pair of a hook payload and the transcript of its session: the probe payloads
(``mcp-hooks-2.1.282.jsonl``) name transcripts under ``/claude/projects/-work-*`` that were not published, the
MadameClaude payloads carry no ``tool_use_id`` and no transcript, and the 2.1.283 fixtures' tool is ``Bash`` (no MCP
call). So the transcript here is the bundled example with two of its calls renamed as MCP calls (``toolu_0001`` Bash
as ``mcp__probe__run``; the subagent's ``toolu_0101`` Read as ``mcp__probe__read``, its input given a decimal and an
integer above 2**53), and the hook payloads are the corpus's own made those calls':

- the ``rewrite`` payload (a hook before the call rewrote the input, so the server was sent ``{"text": "rewritten by
  the hook"}`` while the transcript kept the model's own input): **differ**;
- the ``child`` payload (a call inside a subagent) given the transcript's own input, keys in another order and spread
  over lines: **agree** (the digest is of canonical JSON, numbers as their literal text: ``1.50`` is not ``1.5``);
- every corpus probe payload as it is, into sessions no transcript landed for: **cannot compare**, said why.

Each expected size and digest is computed here from the files (``json`` with sorted keys, compact), never by asz.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from test_mcp_executions_read import example_with_mcp_call, hook, renamed
from view_server_helpers import EXAMPLE_SESSION, asz_here, copy_example, parse

SESSION = EXAMPLE_SESSION
AGENT = "a7f3c2e1b0d94856"
SENT = b'{"text":"rewritten by the hook"}'  # what the rewrite payload's server was sent, as canonical JSON
#: The subagent's Read input, given a decimal and a wide integer (their literal text is what the digest covers).
READ_INPUT = '{"file_path":"/home/dev/hello-app/hello.py","offset":1.50,"limit":9007199254740993}'


def probe_payloads(corpus_dir: Path) -> list[dict]:
    return [json.loads(x) for x in next((corpus_dir / "hooks").glob("apache__*mcp-hooks-2.1.282.jsonl")).read_bytes().splitlines()]


def canonical(text: str) -> bytes:
    """``text``'s JSON value as compact JSON, keys sorted, numbers as written (this test's own encoder: the strings
    here hold no character Go's encoder escapes otherwise than ``json.dumps(ensure_ascii=False)``)."""
    class Lit(str):
        pass

    def enc(v) -> str:
        if isinstance(v, Lit):
            return str(v)
        if isinstance(v, dict):
            return "{" + ",".join(f"{enc(k)}:{enc(v[k])}" for k in sorted(v)) + "}"
        if isinstance(v, list):
            return "[" + ",".join(enc(x) for x in v) + "]"
        return json.dumps(v, ensure_ascii=False)

    return enc(json.loads(text, parse_float=Lit, parse_int=Lit)).encode()


def digest(b: bytes) -> dict:
    return {"bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()}


def tool_input(transcript: Path, tool_id: str) -> str:
    """The ``input`` of the ``tool_use`` block ``tool_id`` as the transcript's line writes it (its JSON text)."""
    for line in transcript.read_text().splitlines():
        rec = json.loads(line)
        for b in (rec.get("message") or {}).get("content") or ():
            if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id") == tool_id:
                return json.dumps(b["input"], ensure_ascii=False, separators=(",", ":"))
    raise AssertionError(f"no tool_use {tool_id} in {transcript}")


@pytest.fixture(scope="module")
def checked(tmp_path_factory, corpus_dir) -> dict:
    base = tmp_path_factory.mktemp("mcp-arguments")
    projects, main = example_with_mcp_call(base)
    child = next(projects.rglob(f"agent-{AGENT}.jsonl"))
    renamed(child, ('"name":"Read","input":{"file_path":"/home/dev/hello-app/hello.py"}',
                    f'"name":"mcp__probe__read","input":{READ_INPUT}'))
    probes = probe_payloads(corpus_dir)
    cases = {p["probe_case"]: p for p in probes}
    rewrite = dict(cases["rewrite"], session_id=SESSION, tool_use_id="toolu_0001", tool_name="mcp__probe__run", cwd="/home/dev/hello-app")
    assert rewrite["tool_input"] == {"text": "rewritten by the hook"}  # the premise: what the server was sent
    data = base / "hookdata"
    hook(json.dumps(rewrite).encode(), data)
    sent = dict(cases["child"], session_id=SESSION, tool_use_id="toolu_0101", tool_name="mcp__probe__read", agent_id=AGENT,
                cwd="/home/dev/hello-app", tool_input="@INPUT@")
    assert cases["child"]["agent_id"] and cases["child"]["hook_event_name"] == "PostToolUse"
    # the transcript's input with its keys reversed and spread over lines, its numbers' text kept
    spread = '{\n  "limit": 9007199254740993,\n  "offset": 1.50,\n  "file_path": "/home/dev/hello-app/hello.py"\n}'
    hook(json.dumps(sent).replace('"@INPUT@"', spread).encode(), data)
    for p in probes:  # the corpus's own sessions: hook records and no transcript
        hook(json.dumps(p).encode(), data)
    root = base / "root"
    asz_here("collect", "--once", "--adapter", "claude-code-local", "--source", str(projects), "--root", str(root))
    asz_here("collect", "--once", "--adapter", "changes", "--source", str(data), "--root", str(root))
    parse(root)
    return {"root": root, "main": main, "child": child, "probes": probes}


def conversation(root: Path, sid: str) -> dict:
    return json.loads(asz_here("conversation", sid, "--json", "--root", str(root)).stdout)


def test_the_rewritten_call_differs_and_the_same_input_agrees(checked):
    doc = conversation(checked["root"], SESSION)
    by_tool = {e["tool"]: e for e in doc["tool_executions"]}
    assert sorted(by_tool) == ["toolu_0001", "toolu_0101"]
    said = canonical(tool_input(checked["main"], "toolu_0001"))
    assert len(said) == 89  # {"command":"python -m pytest -q tests/test_hello.py","description":"Run the hello tests"}
    rewritten = by_tool["toolu_0001"]
    assert {k: rewritten["arguments"][k] for k in ("bytes", "sha256")} == digest(SENT)
    assert rewritten["arguments_check"] == {"result": "differ", "transcript": digest(said)}
    same = by_tool["toolu_0101"]
    assert tool_input(checked["child"], "toolu_0101") != READ_INPUT  # json re-encoding lost the literal text...
    want = digest(canonical(READ_INPUT))  # ...which the digest keeps: "offset":1.50, "limit":9007199254740993
    assert b'"offset":1.50' in canonical(READ_INPUT)
    assert {k: same["arguments"][k] for k in ("bytes", "sha256")} == want
    assert same["arguments_check"] == {"result": "agree"}
    assert same["step"] == "tool/toolu_0101" and same["stream"] == AGENT
    assert doc["summary"]["arguments_differ"] == 1
    text = asz_here("conversation", SESSION, "--root", str(checked["root"])).stdout.splitlines()
    at = text.index("tool executions 2 (execution records): arguments agree 1, differ 1, not compared 0")
    assert text[at + 1] == f"arguments differ: toolu_0001 mcp__probe__run ({len(SENT)} bytes, the transcript's 89)"


def test_calls_with_no_transcript_cannot_be_compared(checked):
    probes = checked["probes"]
    recorded = [p for p in probes if p["hook_event_name"] in ("PostToolUse", "PostToolUseFailure")
                and p["tool_name"].startswith("mcp__") and p.get("tool_use_id")]
    assert len(recorded) == len(probes) == 9
    seen = []
    for sid in sorted({p["session_id"] for p in recorded}):
        doc = conversation(checked["root"], sid)
        assert doc["summary"]["arguments_differ"] == 0
        for e in doc["tool_executions"]:
            assert e["arguments_check"] == {"result": "cannot_compare", "why": "no tool call of the transcript has this id"}
            seen.append(e["tool"])
        n = len(doc["tool_executions"])
        assert f"tool executions {n} (execution records): arguments agree 0, differ 0, not compared {n}" in \
            asz_here("conversation", sid, "--root", str(checked["root"]), check=False).stdout.splitlines()
    assert sorted(seen) == sorted(p["tool_use_id"] for p in recorded)


def test_no_execution_record_no_count(tmp_path):
    projects = copy_example(tmp_path / "projects")
    asz_here("collect", "--once", "--adapter", "claude-code-local", "--source", str(projects), "--root", str(tmp_path / "root"))
    doc = conversation(tmp_path / "root", SESSION)
    assert doc["tool_executions"] == [] and "arguments_differ" not in doc["summary"]


#: The differing call as the exports and the page say it: the sizes of what the hook saw and of the transcript's input.
DIFFER = f"; arguments differ from the transcript's input ({len(SENT)} bytes, the transcript's 89)"
RESULT_DIFFERS = "; the result differs from the transcript's tool result ("


def test_exports_say_it_at_the_tool_step(checked):
    md = asz_here("export", SESSION, "--format", "md", "--root", str(checked["root"])).stdout
    # the rewrite payload's server answered what the probe echoed, not the transcript's result: said after (trial 30c F3)
    assert md.count(DIFFER + RESULT_DIFFERS) == 1
    assert md.count("; arguments as the transcript's input" + RESULT_DIFFERS) == 1  # the child probe echoed "from child"
    html = asz_here("export", SESSION, "--format", "html", "--root", str(checked["root"])).stdout
    assert html.count(DIFFER.replace("'", "&#x27;") + RESULT_DIFFERS.replace("'", "&#x27;")) \
        + html.count(DIFFER + RESULT_DIFFERS) == 1


def test_the_page_says_it(checked, serve, browser):
    from selenium.webdriver.common.by import By
    from test_view_server_browser import open_at, wait

    s = serve(checked["root"])
    tool = open_at(browser, f"{s.base}/c/{SESSION}#talk=talk%2Fmain%2Fc0a8f7e2-1111-4a2b-8c3d-000000000001"
                            "&step=tool%2Ftoolu_0001", ".node.target")
    wait(browser, lambda d: DIFFER in tool.text)
    browser.find_element(By.CSS_SELECTOR, '.tabs button[data-tab="executions"]').click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#panel #executions tbody tr"))
    cells = {r.find_elements(By.TAG_NAME, "td")[0].text: r.find_elements(By.TAG_NAME, "td")[7].text
             for r in browser.find_elements(By.CSS_SELECTOR, "#panel #executions tbody tr")}
    assert cells == {"tool/toolu_0001": "differ", "tool/toolu_0101": "as the transcript"}


def test_an_input_too_large_to_land_cannot_be_compared(tmp_path, corpus_dir):
    """The call's input taken out to land (``--max-delta-bytes 1024``, seed 000, Too large to land): its part keeps
    the size and the SHA-256 of the compacted source, not of the canonical JSON, so the call is not compared."""
    projects, main = example_with_mcp_call(tmp_path)
    big = {"command": "echo " + "x" * 4000, "description": "a long command"}
    text = main.read_text()
    old = '"input":{"command":"python -m pytest -q tests/test_hello.py","description":"Run the hello tests"}'
    assert text.count(old) == 1
    main.write_text(text.replace(old, '"input":' + json.dumps(big, separators=(",", ":"))))
    event = dict(next(p for p in probe_payloads(corpus_dir) if p["probe_case"] == "echo"), session_id=SESSION,
                 tool_use_id="toolu_0001", tool_name="mcp__probe__run", tool_input=big)
    data = tmp_path / "hookdata"
    hook(json.dumps(event).encode(), data)
    root = tmp_path / "root"
    asz_here("collect", "--once", "--adapter", "claude-code-local", "--source", str(projects), "--root", str(root),
        "--max-delta-bytes", "1024")
    asz_here("collect", "--once", "--adapter", "changes", "--source", str(data), "--root", str(root))
    parse(root)
    landed = [json.loads(x) for sd in root.rglob("transcript-*.sd") for x in sd.read_bytes().splitlines()[1:-1]]
    (call,) = [p for r in landed for p in r.get("parts", ()) if p.get("k") == "call" and p.get("id") == "toolu_0001"]
    assert call["state"] == "too_large" and "data" not in call  # the premise: the input did not land
    doc = conversation(root, SESSION)
    (e,) = doc["tool_executions"]
    assert e["arguments"]["bytes"] == len(canonical(json.dumps(big)))
    assert e["arguments_check"] == {"result": "cannot_compare",
                                    "why": "the transcript's input did not land whole (state too_large)"}
    assert doc["summary"]["arguments_differ"] == 0
    md = asz_here("export", SESSION, "--format", "md", "--root", str(root)).stdout
    assert md.count("; arguments not compared with the transcript's input: the transcript's input did not land whole"
                    " (state too_large)" + RESULT_DIFFERS) == 1  # the echo probe's result is not the transcript's


def test_verify_warns_on_the_differing_call_and_show_prints_each_check(checked):
    """asz verify names the execution record whose arguments differ (session, file and line, tool call) as a warning,
    not a problem (exit 0); asz show prints the check under each execution record it shows (trial 23a, F8)."""
    root = checked["root"]
    p = asz_here("verify", "--root", str(root), check=False)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    # 2 entries in the example's session (1 differs, 1 agrees); each corpus probe payload (a line of its file, each a
    # PostToolUse or PostToolUseFailure of its own tool call) lands one whose session has no transcript: not compared
    probes = len(checked["probes"])
    assert probes == 9 and {p["hook_event_name"] for p in checked["probes"]} == {"PostToolUse", "PostToolUseFailure"}
    assert (f"checked {2 + probes} tool execution record(s) against the transcript's input: agree 1, differ 1, "
            f"not compared {probes}") in lines
    (warn,) = [x for x in lines if x.startswith("warning:") and "arguments differ" in x]
    sent = digest(SENT)
    said = digest(canonical(tool_input(checked["main"], "toolu_0001")))
    # the header, then the records, then the closing line
    execution, row = next((f, i) for f in sorted((root / SESSION).rglob("execution-*.sd"))
                          for i, x in enumerate(f.read_bytes().splitlines()[1:-1], 1) if b'"toolu_0001"' in x)
    assert warn.startswith(f"warning: {execution}:{row + 1}: arguments differ [arguments]: session {SESSION}, "
                           f"execution record row {row}, tool call toolu_0001 mcp__probe__run: the server was sent "
                           f"{sent['bytes']} bytes (sha256 {sent['sha256'][:12]}…), the transcript's input is "
                           f"{said['bytes']} bytes (sha256 {said['sha256'][:12]}…)"), warn
    data = json.loads(asz_here("verify", "--json", "--root", str(root), check=False).stdout)
    assert data["ok"] is True and data["executions_differ"] == 1 and data["executions_agree"] == 1
    assert data["executions_not_compared"] == probes
    # one session: its own two records only (the probe payloads' sessions are others)
    one = asz_here("verify", SESSION, "--root", str(root), check=False)
    assert one.returncode == 0 and ("checked 2 tool execution record(s) against the transcript's input: agree 1, "
                                    "differ 1, not compared 0") in one.stdout.splitlines(), one.stdout + one.stderr
    assert [w["problem"] for w in data["warnings"]].count("arguments differ") == 1
    out = asz_here("show", SESSION, "toolu_0001", "--root", str(root)).stdout.splitlines()
    at = out.index(f"{execution.relative_to(root).as_posix()}:{row}")
    assert out[at + 2] == (f"arguments_check: differ; arguments differ from the transcript's input ({sent['bytes']} "
                           f"bytes, the transcript's {said['bytes']}) (tool call toolu_0001)")
    out = asz_here("show", SESSION, "toolu_0101", "--root", str(root)).stdout
    assert "arguments_check: agree; arguments as the transcript's input (tool call toolu_0101)" in out
    assert asz_here("show", SESSION, "toolu_0101", "--root", str(root)).stdout.count("arguments_check:") == 1
