"""``asz hook``: the corpus hook payloads through the real command, digests recomputed, refusals logged (issue 8)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from asz_adapters_claude import hook as H

KEYS = ("schema", "id", "observed_by", "boundary", "session", "stream", "tool", "tool_name", "cwd", "protocol",
        "server", "time", "duration_ms", "outcome", "failure", "arguments", "result", "error", "dropped")
#: The members of an MCP call's event that Claude Code 2.1.282 sends and execution/1 has no key for (its hooks
#: reference's common input fields, and ``prompt_id``, ``effort``, ``agent_type`` seen in the corpus's payloads).
LEFT_OUT = ("transcript_path", "permission_mode", "prompt_id", "effort", "agent_type")
#: How the corpus's failed calls failed, as their payloads' own ``probe_case`` names the probe (trial 25a, F1).
PROBE_FAILURES = {"fail": "unclassified", "crash": "transport", "slow": "timeout"}
RFC3339_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z")
HOOK_FILE = Path(H.__file__)


def _asz() -> list[str]:
    exe = shutil.which("asz")
    if exe is None:
        pytest.skip("asz is not on PATH (pip install -e .)")
    return [exe]


def run_hook(payload: bytes, data: Path, *, args: list[str] | None = None, env: dict | None = None, via: str = "asz") -> subprocess.CompletedProcess:
    """One real hook process with ``payload`` on stdin: ``asz hook`` (``via="asz"``) or ``python -S hook.py`` (``"script"``)."""
    head = _asz() + ["hook"] if via == "asz" else [sys.executable, "-S", str(HOOK_FILE)]
    cmd = head + (["--data", str(data)] if args is None else args)
    return subprocess.run(cmd, input=payload, capture_output=True, env=env, timeout=60)


def canonical(value) -> bytes:
    """An independent canonical JSON: the stdlib encoder, sorted keys, no spaces (corpus numbers are integers)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def expected_record(event: dict) -> dict | None:
    """What §3.8 says the record of ``event`` holds (time aside), or None when nothing is recorded."""
    if event.get("hook_event_name") not in ("PostToolUse", "PostToolUseFailure"):
        return None
    if not str(event.get("tool_name") or "").startswith("mcp__"):
        return None
    if not event.get("session_id") or not event.get("tool_use_id"):
        return None
    ok = event["hook_event_name"] == "PostToolUse"
    rec = {
        "schema": "execution/1", "id": event["tool_use_id"] + "/client_hook", "observed_by": "asz-plugin",
        "boundary": "client_hook", "session": event["session_id"], "stream": event.get("agent_id") or "main",
        "tool": event["tool_use_id"], "tool_name": event["tool_name"],
    }
    if event.get("cwd"):
        rec["cwd"] = event["cwd"]
    rec["protocol"] = "mcp"
    if event.get("mcp_server"):
        rec["server"] = {k: event["mcp_server"][k] for k in ("name", "source") if event["mcp_server"].get(k)}
    rec["time"] = None
    if "duration_ms" in event:
        rec["duration_ms"] = event["duration_ms"]
    rec["outcome"] = "returned" if ok else ("interrupted" if event.get("is_interrupt") is True else "failed")
    if not ok:
        rec["failure"] = "interrupted" if event.get("is_interrupt") is True else PROBE_FAILURES[event["probe_case"]]
    for key, field in (("arguments", "tool_input"), ("result", "tool_response"), ("error", "error")):
        if field in event and (key == "arguments" or ok == (key == "result")):
            b = canonical(event[field])
            rec[key] = {"state": "size_only", "bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()}
    # every other member is left out and listed (seed 000, Dropped; trial 27a F8), with its size as canonical JSON
    read = {"hook_event_name", "tool_name", "session_id", "tool_use_id", "agent_id", "cwd", "mcp_server",
            "duration_ms", "tool_input", *(("tool_response",) if ok else ("error", "is_interrupt"))}
    dropped = [{"what": k, "bytes": len(canonical(v)),
                "why": "execution/1 has no key for it" if k in LEFT_OUT else "a member asz hook does not know"}
               for k, v in event.items() if k not in read]
    if dropped:
        rec["dropped"] = dropped
    return rec


def corpus_lines(corpus_dir: Path) -> list[tuple[str, int, bytes]]:
    out = []
    for f in sorted((corpus_dir / "hooks").glob("*.jsonl")):
        for n, line in enumerate(f.read_bytes().splitlines(), 1):
            out.append((f.name, n, line))
    return out


def test_every_corpus_payload_gives_its_record_or_a_logged_refusal(corpus_dir: Path, tmp_path: Path) -> None:
    """Each of the 80 real payloads runs as a real hook process: exit 0, nothing on stdout, the right record or a clear log line.

    Every MCP event and the first line of each file go through the ``asz hook`` console script; the other
    events (which must write nothing) through ``python -S hook.py``, the same module without the CLI's start-up.
    """
    lines = corpus_lines(corpus_dir)
    assert len(lines) >= 80

    def one(i_item):
        i, (name, n, line) = i_item
        data = tmp_path / f"d{i}"
        event = json.loads(line)
        mcp = str(event.get("tool_name") or "").startswith("mcp__")
        return name, n, line, data, run_hook(line, data, via="asz" if mcp or n == 1 else "script")

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(one, enumerate(lines)))

    recorded = refused = silent = 0
    for name, n, line, data, proc in results:
        where = f"{name}:{n}"
        assert proc.returncode == 0, f"{where}: exit {proc.returncode} {proc.stderr!r}"
        assert proc.stdout == b"", f"{where}: wrote to stdout"
        event = json.loads(line)
        want = expected_record(event)
        outputs = sorted((data / "output").rglob("*")) if (data / "output").exists() else []
        files = [p for p in outputs if p.is_file()]
        log = data / "log" / "plugin.log"
        is_mcp = event.get("hook_event_name") in H.MCP_EVENTS and str(event.get("tool_name") or "").startswith("mcp__")
        if want is None:
            assert files == [], f"{where}: wrote {files}"
            if is_mcp:
                text = log.read_text(encoding="utf-8")
                assert "refused" in text and ("tool_use_id" in text or "session_id" in text), f"{where}: {text!r}"
                refused += 1
            else:
                assert not log.exists(), f"{where}: logged {log.read_text()!r} for an event it should ignore"
                silent += 1
            continue
        assert not log.exists(), f"{where}: logged {log.read_text()!r}"
        path = data / "output" / want["session"] / f"{want['stream']}.execution.jsonl"
        assert files == [path], f"{where}: {files}"
        raw = path.read_bytes()
        assert raw.endswith(b"\n") and raw.count(b"\n") == 1
        got = json.loads(raw)
        assert list(got) == [k for k in KEYS if k in want], f"{where}: key order {list(got)}"
        assert RFC3339_UTC.fullmatch(got["time"]), got["time"]
        want["time"] = got["time"]
        assert got == want, where
        recorded += 1
    # 2.1.282 probes: 9 calls (returned, failed, timed out, crashed, over http, rewritten input, from a subagent)
    assert recorded == 9, (recorded, refused, silent)
    assert refused >= 2  # an old MCP payload without tool_use_id, and one without a session
    assert recorded + refused + silent == len(lines)


def test_outcomes_and_streams_of_the_probe_payloads(corpus_dir: Path, tmp_path: Path) -> None:
    """Failed, timed-out and crashed calls are failed with no result; the subagent's call lands in its own stream."""
    f = next((corpus_dir / "hooks").glob("apache__*mcp-hooks-2.1.282.jsonl"))
    recs = []
    for line in f.read_bytes().splitlines():
        event = json.loads(line)
        data = tmp_path / event["tool_use_id"]
        assert run_hook(line, data).returncode == 0
        (p,) = (data / "output").rglob("*.execution.jsonl")
        recs.append((p.name, json.loads(p.read_bytes())))
    by_case = {json.loads(l)["probe_case"]: r for l, r in zip(f.read_bytes().splitlines(), recs)}
    assert by_case["fail"][1]["outcome"] == "failed" and "result" not in by_case["fail"][1]
    assert by_case["crash"][1]["outcome"] == "failed"
    assert by_case["slow"][1]["outcome"] == "failed" and by_case["slow"][1]["duration_ms"] == 2004
    # trial 25a, F1: the three failures told apart by the declared rule; the error text measured, never kept
    assert {c: by_case[c][1]["failure"] for c in PROBE_FAILURES} == PROBE_FAILURES
    texts = {json.loads(l)["probe_case"]: json.loads(l).get("error") for l in f.read_bytes().splitlines()}
    for case in PROBE_FAILURES:
        b = json.dumps(texts[case]).encode()
        assert by_case[case][1]["error"] == {"state": "size_only", "bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()}
        assert texts[case] not in json.dumps(by_case[case][1])
    assert (by_case["crash"][1]["error"]["bytes"], by_case["slow"][1]["error"]["bytes"]) == (19, 55)
    assert [c for c, r in by_case.items() if "failure" in r[1] or "error" in r[1]] == list(PROBE_FAILURES)
    assert by_case["echo"][1]["outcome"] == "returned" and by_case["echo"][1]["result"]["state"] == "size_only"
    assert by_case["child"][0] == "ad1f9feae632355a5.execution.jsonl"
    assert by_case["child"][1]["stream"] == "ad1f9feae632355a5"
    assert by_case["http"][1]["server"] == {"name": "web", "source": "dynamic"}


def test_interrupt_windows_cwd_and_appending(tmp_path: Path) -> None:
    """is_interrupt gives interrupted; a Windows cwd is kept as written; a second call appends a second line."""
    base = {"session_id": "0d3a8e6f-290f-4105-a327-a2496e5e2a83", "cwd": "C:\\Users\\me\\proj", "tool_name": "mcp__docs__read",
            "tool_input": {"path": "C:\\Users\\me\\proj\\README.md"}, "mcp_server": {"name": "docs", "source": "user"}}
    stop = dict(base, hook_event_name="PostToolUseFailure", tool_use_id="toolu_1", error="interrupted", is_interrupt=True)
    ok = dict(base, hook_event_name="PostToolUse", tool_use_id="toolu_2", tool_response={"content": []}, duration_ms=12)
    for ev in (stop, ok):
        assert run_hook(json.dumps(ev).encode(), tmp_path).returncode == 0
    lines = (tmp_path / "output" / base["session_id"] / "main.execution.jsonl").read_bytes().splitlines()
    a, b = (json.loads(l) for l in lines)
    assert a["outcome"] == "interrupted" and "result" not in a and "duration_ms" not in a
    assert a["failure"] == "interrupted" and a["error"]["bytes"] == len('"interrupted"') and "failure" not in b
    assert a["cwd"] == "C:\\Users\\me\\proj" and a["server"] == {"name": "docs", "source": "user"}
    assert b["outcome"] == "returned" and b["duration_ms"] == 12 and b["id"] == "toolu_2/client_hook"


@pytest.mark.parametrize(
    "payload, reason",
    [
        (b"{not json", "not one JSON object"),
        (b"[1, 2]", "not an object"),
        (json.dumps({"hook_event_name": "PostToolUse", "tool_name": "mcp__a__b", "session_id": "../../etc", "tool_use_id": "t"}).encode(),
         "not a safe file name"),
        (json.dumps({"hook_event_name": "PostToolUse", "tool_name": "mcp__a__b", "session_id": "s1", "tool_use_id": "t",
                     "agent_id": "a/../../x"}).encode(), "not a safe file name"),
    ],
)
def test_bad_input_is_logged_and_exits_zero(tmp_path: Path, payload: bytes, reason: str) -> None:
    """Input the observer cannot record is one clear line in plugin.log; no file is written anywhere else."""
    data = tmp_path / "data"
    proc = run_hook(payload, data)
    assert proc.returncode == 0 and proc.stdout == b""
    assert reason in (data / "log" / "plugin.log").read_text(encoding="utf-8")
    assert not (data / "output").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


def test_unwritable_output_is_logged_and_exits_zero(tmp_path: Path) -> None:
    """When the output directory cannot be made (a file is in its place) the hook logs and still exits 0."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "output").write_text("not a directory")
    ev = {"hook_event_name": "PostToolUse", "tool_name": "mcp__a__b", "session_id": "s1", "tool_use_id": "t1", "tool_input": {}}
    proc = run_hook(json.dumps(ev).encode(), data)
    assert proc.returncode == 0
    assert "could not write the execution record" in (data / "log" / "plugin.log").read_text(encoding="utf-8")


def test_data_dir_from_the_environment(tmp_path: Path) -> None:
    """Without --data: $ASZ_HOOK_DATA, else $CLAUDE_PLUGIN_DATA, else <CLAUDE_CONFIG_DIR>/plugins/data/<plugin id>."""
    ev = json.dumps({"hook_event_name": "PostToolUse", "tool_name": "mcp__a__b", "session_id": "s1", "tool_use_id": "t1"}).encode()
    env = {k: v for k, v in os.environ.items() if k not in H.DATA_ENV}
    env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "cfg")
    assert run_hook(ev, tmp_path, args=[], env=env).returncode == 0
    assert (tmp_path / "cfg" / "plugins" / "data" / H.DEFAULT_PLUGIN_ID / "output" / "s1" / "main.execution.jsonl").is_file()
    env["CLAUDE_PLUGIN_DATA"] = str(tmp_path / "plugin")
    assert run_hook(ev, tmp_path, args=[], env=env).returncode == 0
    assert (tmp_path / "plugin" / "output" / "s1" / "main.execution.jsonl").is_file()
    env["ASZ_HOOK_DATA"] = str(tmp_path / "asz")
    assert run_hook(ev, tmp_path, args=[], env=env).returncode == 0
    assert (tmp_path / "asz" / "output" / "s1" / "main.execution.jsonl").is_file()
    assert H.resolve_data_dir("/x", {"ASZ_HOOK_DATA": "/y"}) == "/x"


def test_the_hook_module_needs_no_third_party_package(tmp_path: Path, corpus_dir: Path) -> None:
    """``python -S hook.py`` (no site-packages at all) records the same bytes apart from the time."""
    line = next((corpus_dir / "hooks").glob("apache__*")).read_bytes().splitlines()[0]
    proc = subprocess.run([sys.executable, "-S", "-I", str(HOOK_FILE), "--data", str(tmp_path / "s")], input=line, capture_output=True)
    assert proc.returncode == 0 and proc.stderr == b""
    run_hook(line, tmp_path / "a")
    (p1,) = (tmp_path / "s" / "output").rglob("*.jsonl")
    (p2,) = (tmp_path / "a" / "output").rglob("*.jsonl")
    strip = lambda b: re.sub(rb'"time":"[^"]*"', b"", b)  # noqa: E731
    assert strip(p1.read_bytes()) == strip(p2.read_bytes())


# -- canonical JSON and measures (unit) ---------------------------------------------------


def test_canonical_json_keeps_number_text_and_sorts_keys() -> None:
    """Numbers keep their literal text (big integers and 1.50 included); keys sort; no spaces."""
    raw = b'{ "b": 1.50, "a": [12345678901234567890123, -0, 1e5, true, null], "c": {"y": 1, "x": 2} }'
    want = b'{"a":[12345678901234567890123,-0,1e5,true,null],"b":1.50,"c":{"x":2,"y":1}}'
    m = H.measure(raw)
    assert m == {"state": "size_only", "bytes": len(want), "sha256": hashlib.sha256(want).hexdigest()}


def test_canonical_json_escapes_like_go() -> None:
    """<, > and & stay literal; U+2028/9 and control characters are escaped; non-ASCII stays UTF-8."""
    value = H._strict_loads('{"t":"<a&b> é \u2028 \\u0001 \\b\\f\\n\\t\\"\\\\ \\ud800"}')
    assert H.canonical_json(value) == '{"t":"<a&b> é \\u2028 \\u0001 \\b\\f\\n\\t\\"\\\\ \ufffd"}'.encode("utf-8")


def test_non_json_is_measured_raw() -> None:
    """Bytes that are not one JSON value are measured as they are, NaN and trailing data included."""
    for raw in (b"not json", b'{"a":1} {"b":2}', b"[NaN]"):
        assert H.measure(raw) == {"state": "size_only", "bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest()}


def test_rfc3339_utc() -> None:
    """Nanosecond times with trailing zeros dropped, and whole seconds with no fraction."""
    assert H.rfc3339_utc(1_786_033_290_556_000_000) == "2026-08-06T16:21:30.556Z"
    assert H.rfc3339_utc(1_786_033_290_000_000_000) == "2026-08-06T16:21:30Z"


def test_the_typer_command_does_the_same(tmp_path: Path) -> None:
    """``hook`` registered on the Typer app (reached when argv does not start with ``hook``) records the same event."""
    from typer.testing import CliRunner

    from asz_core.cli.main import app

    ev = {"hook_event_name": "PostToolUse", "tool_name": "mcp__a__b", "session_id": "s1", "tool_use_id": "t1", "tool_input": {"x": 1}}
    raw = json.dumps(ev).encode()
    result = CliRunner().invoke(app, ["hook", "--data", str(tmp_path)], input=raw)
    assert result.exit_code == 0, result.output
    (line,) = (tmp_path / "output" / "s1" / "main.execution.jsonl").read_bytes().splitlines()
    assert json.loads(line)["arguments"]["bytes"] == len(b'{"x":1}')


@pytest.mark.parametrize(
    "event, kind",
    [
        ({"error": "Connection closed"}, "transport"),  # Claude Code 2.1.282, the crash probe
        ({"error": "MCP error -32000: Connection closed"}, "transport"),  # the MCP SDK's ConnectionClosed code
        ({"error": 'MCP server "probe" tool "slow" timed out after 2s'}, "timeout"),  # 2.1.282, the slow probe
        ({"error": "MCP error -32001: Request timed out"}, "timeout"),  # the SDK's RequestTimeout code
        # 2.1.282, the fail probe: an isError tool result's text, passed on as it is: nothing tells it from the
        # runtime's own words, so no class is claimed (session 26: it was server_error, as any unknown text was)
        ({"error": "the probe failed on purpose"}, "unclassified"),
        ({"error": 'MCP server "probe" is not connected'}, "unclassified"),  # words no pattern knows
        ({"error": "MCP error -32602: unknown tool nope"}, "server_error"),  # a JSON-RPC error the server answered
        ({"error": "MCP error -32603: Internal error"}, "server_error"),
        ({"error": "Connection closed", "is_interrupt": True}, "interrupted"),  # the interrupt wins
        ({"error": ""}, None),
        ({}, None),
        ({"error": {"code": 1}}, None),  # not a text: the rule reads nothing else
    ],
)
def test_the_declared_failure_rule(event: dict, kind: str | None) -> None:
    """docs/claude-code-hooks.md, "How a call failed": interrupt, then the patterns in order, else unclassified."""
    assert H.failure_class(event) == kind
    rec = H.execution_record(dict(event, hook_event_name="PostToolUseFailure", tool_name="mcp__p__t", session_id="s",
                                  tool_use_id="t"), "2026-12-04T00:00:00Z")
    assert rec.get("failure") == kind
    assert ("error" in rec) == ("error" in event)


def test_a_refused_event_is_said_by_asz_collect_and_asz_sources(corpus_dir: Path, tmp_path: Path) -> None:
    """Trial 27a F8: MadameClaude's MCP ``PostToolUse`` has no ``tool_use_id`` (Claude Code before 1.0.x), so ``asz
    hook`` refuses it into ``plugin.log``; ``asz collect`` over that data directory says so in a ``note:``, once per
    process, counted in ``skipped=``, and ``asz sources`` lists it, beside a recorded event's session."""
    from cli_helpers import asz_in_process

    (src,) = (corpus_dir / "hooks").glob("williamkapke__MadameClaude__*extracted_payloads.jsonl")
    refused = [json.loads(x) for x in src.read_bytes().splitlines()
               if json.loads(x).get("hook_event_name") in H.MCP_EVENTS and str(json.loads(x).get("tool_name")).startswith("mcp__")]
    assert [("tool_use_id" in e) for e in refused] == [False]
    (probe,) = (corpus_dir / "hooks").glob("apache__*mcp-hooks-2.1.282.jsonl")
    data = tmp_path / "data"
    for line in (json.dumps(refused[0]).encode(), probe.read_bytes().splitlines()[0]):
        assert run_hook(line, data).returncode == 0
    p = asz_in_process("collect", "--once", "--adapter", "changes", "--source", str(data), "--root", str(tmp_path / "root"))
    assert p.returncode == 0, p.stderr
    e = refused[0]
    notes = [x for x in p.stderr.splitlines() if x.startswith("note: log/plugin.log: asz hook refused ")]
    assert len(notes) == 1 and notes[0].startswith("note: log/plugin.log: asz hook refused 1 event(s) (the latest: "
                                                   f"{e['hook_event_name']} {e['tool_name']} in session {e['session_id']}: ")
    assert "the event has no tool_use_id" in notes[0] and "skipped=1 " in p.stdout and "landed=1 " in p.stdout
    listed = asz_in_process("sources", "--adapter", "changes", "--source", str(data), "--root", str(tmp_path / "root"))
    assert "log/plugin.log" in listed.stdout and "asz hook refused 1 event(s)" in listed.stdout, listed.stdout


@pytest.mark.parametrize("nested", [False, True], ids=["data-dir", "dir-of-data-dirs"])
def test_a_data_dir_of_refused_events_only_is_said_too(corpus_dir: Path, tmp_path: Path, nested: bool) -> None:
    """Recheck 27 NEW-2: every event refused (MadameClaude's payloads, no ``tool_use_id``), so ``asz hook`` never made
    ``output/``: ``asz collect`` still says the refused count in the same ``note:`` (not only "no session found" and a
    hint that ``--source`` is wrong), counts it in ``skipped=``, and ``asz sources`` lists it; given the data directory
    or the directory holding it."""
    from cli_helpers import asz_in_process

    (src,) = (corpus_dir / "hooks").glob("williamkapke__MadameClaude__*extracted_payloads.jsonl")
    lines = src.read_bytes().splitlines()
    mcp = [x for x in lines if json.loads(x).get("hook_event_name") in H.MCP_EVENTS
           and str(json.loads(x).get("tool_name")).startswith("mcp__")]
    data = tmp_path / "plugins-data" / "asz"
    for line in mcp:  # the events asz hook records (MCP calls): here each refused
        assert run_hook(line, data).returncode == 0
    assert not (data / "output").exists() and (data / "log" / "plugin.log").is_file()
    source = data.parent if nested else data
    p = asz_in_process("collect", "--once", "--adapter", "changes", "--source", str(source), "--root", str(tmp_path / "root"))
    assert p.returncode == 0, p.stderr
    where = "asz/log/plugin.log" if nested else "log/plugin.log"
    notes = [x for x in p.stderr.splitlines() if x.startswith(f"note: {where}: asz hook refused ")]
    assert len(notes) == 1 and notes[0].startswith(f"note: {where}: asz hook refused {len(mcp)} event(s) (the latest: "), p.stderr
    assert "skipped=1 " in p.stdout and "sessions=0 " in p.stdout
    assert "is --source the runtime's projects directory" not in p.stderr
    assert "every event asz hook had was refused (the note above)" in p.stderr
    listed = asz_in_process("sources", "--adapter", "changes", "--source", str(source), "--root", str(tmp_path / "root"))
    assert f"{where}: asz hook refused {len(mcp)} event(s)" in listed.stdout, listed.stdout
