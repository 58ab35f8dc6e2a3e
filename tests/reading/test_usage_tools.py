"""``asz usage tools``: tool calls per tool name and MCP server over a root (trial 30c F4), and each conversation's
calls per tool in ``asz conversation`` (trial 30b F2).

Real input: two corpus projects copied, their Bash, Read, Grep, Glob and WebFetch calls renamed to MCP tools as trial
30c's ``mcpify.py`` did (a dot and a non-ASCII letter in server names), collected by the real ``asz collect --once``;
hook payloads made from some of those calls fed to the real ``asz hook`` and collected with the ``changes`` adapter.
Every figure expected is counted here from the source .jsonl and the payloads, never from asz's output.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from reading_helpers import asz, asz_json

from test_mcp_executions_read import hook as forked_hook

pytestmark = pytest.mark.slow  # the fixture collects three projects and feeds seven hook events (26 s)

PROJECTS = ("-experiments-worktrees", "-home-user-sample-project", "-Users-alex-workspace-personal-site-next")
RENAME = {"Bash": "mcp__shell__run", "Read": "mcp__fs.files__read", "Grep": "mcp__s\u00fbche__grep",
          "Glob": "mcp__fs.files__glob", "WebFetch": "mcp__web__fetch"}
CALL = re.compile(r'("type":"tool_use","id":"[^"]+","name":")(Bash|Read|Grep|Glob|WebFetch)(")')


def counted(projects: Path) -> tuple[Counter, Counter, dict[str, set], dict[str, dict]]:
    """From the source .jsonl: calls and failed calls per tool name (each tool_use id once, failed when its first
    tool_result says ``is_error: true``), the sessions using each, and each call's ``{name, session, failed}``."""
    calls, failed, sessions, info = Counter(), Counter(), defaultdict(set), {}
    for f in sorted(projects.rglob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            try:
                o = json.loads(line)
            except ValueError:
                continue
            content = (o.get("message") or {}).get("content") if isinstance(o, dict) else None
            for b in content if isinstance(content, list) else ():
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "tool_use" and b["id"] not in info:
                    info[b["id"]] = {"name": b["name"], "session": o["sessionId"], "failed": None}
                    calls[b["name"]] += 1
                    sessions[b["name"]].add(o["sessionId"])
                elif b.get("type") == "tool_result" and b.get("tool_use_id") in info:
                    d = info[b["tool_use_id"]]
                    if d["failed"] is None:
                        d["failed"] = bool(b.get("is_error"))
                        failed[d["name"]] += d["failed"]
    return calls, failed, sessions, info


def hook(payload: dict, data: Path) -> None:
    """One real ``asz hook`` process (forked: test_mcp_executions_read.hook) with ``payload`` as its JSON line."""
    forked_hook(json.dumps(payload).encode(), data)


@pytest.fixture(scope="module")
def tooled(tmp_path_factory, corpus_source: Path):
    base = tmp_path_factory.mktemp("usage-tools")
    projects = base / "projects"
    for name in PROJECTS:
        if not (corpus_source / name).is_dir():
            pytest.skip(f"the corpus lacks {name}")
        shutil.copytree(corpus_source / name, projects / name)
    renamed = 0
    for f in projects.rglob("*.jsonl"):
        f.chmod(0o644)
        text, n = CALL.subn(lambda m: m.group(1) + RENAME[m.group(2)] + m.group(3), f.read_text(encoding="utf-8"))
        renamed += n
        f.write_text(text, encoding="utf-8")
    assert renamed > 50  # the premise: the corpus has such calls
    calls, failed, sessions, info = counted(projects)
    # hook payloads for the first six shell calls: 2 timeouts, 1 transport, 1 interrupted, 2 returned; durations known
    shell = [i for i, d in info.items() if d["name"] == "mcp__shell__run"][:6]
    kinds = [("PostToolUseFailure", {"error": "Request timed out"}), ("PostToolUseFailure", {"error": "MCP error -32001: Request timed out"}),
             ("PostToolUseFailure", {"error": "Connection closed"}), ("PostToolUseFailure", {"error": "interrupted", "is_interrupt": True}),
             ("PostToolUse", {"tool_response": "ok"}), ("PostToolUse", {"tool_response": "ok"})]
    durations = [100, 300, 200, 400, 500, 1000]
    data = base / "hookdata"
    for tid, (event, extra), ms in zip(shell, kinds, durations):
        hook({"session_id": info[tid]["session"], "hook_event_name": event, "tool_name": "mcp__shell__run",
              "tool_input": {}, "tool_use_id": tid, "duration_ms": ms, "mcp_server": {"name": "shell", "source": "user"},
              **extra}, data)
    # a session of hook records alone: one call of a tool no transcript names
    hook({"session_id": "00000000-hook-only-0000-000000000001", "hook_event_name": "PostToolUseFailure",
          "tool_name": "mcp__conc__t", "tool_input": {}, "tool_use_id": "toolu_hookonly1", "duration_ms": 7,
          "error": "Connection closed", "mcp_server": {"name": "conc", "source": "project"}}, data)
    root = base / "root"
    asz("collect", "--once", "--source", str(projects), "--root", str(root))
    asz("collect", "--once", "--adapter", "changes", "--source", str(data), "--root", str(root))
    return root, (calls, failed, sessions, info), shell


def _classes(doc_row: dict) -> dict:
    return {k: v for k, v in doc_row["failures"].items() if v}


def test_per_tool_figures_equal_the_source_count(tooled):
    root, (calls, failed, sessions, _), shell = tooled
    got = asz_json("usage", "tools", "--json", "--root", str(root))
    rows = {r["tool"]: r for r in got["tools"]}
    for name in calls:
        assert (rows[name]["calls"], rows[name]["failed"], rows[name]["sessions"]) == \
            (calls[name], failed[name], len(sessions[name])), name
    mcp = [n for n in calls if n.startswith("mcp__")]
    assert {"mcp__fs.files__read", "mcp__s\u00fbche__grep"} <= set(mcp)
    assert got["total"]["calls"] == sum(calls.values()) and got["total"]["failed"] == sum(failed.values())
    # execution records: by class, durations (median of 6: (300+400)/2, p95 nearest rank: the 6th, max)
    sh = rows["mcp__shell__run"]
    assert sh["executions"] == 6 and _classes(sh) == {"timeout": 2, "transport": 1, "interrupted": 1}
    assert sh["duration_ms"] == {"n": 6, "median": 350, "p95": 1000, "max": 1000}
    assert sh["server"] == "shell"
    # the hook-only session: no transcript call, one record, its class, its session counted
    conc = rows["mcp__conc__t"]
    assert (conc["calls"], conc["executions"], conc["sessions"], _classes(conc)) == (0, 1, 1, {"transport": 1})
    assert rows["Edit"]["server"] is None and rows["Edit"]["duration_ms"] is None
    # per server: fs.files holds read and glob
    servers = {r["server"]: r for r in got["servers"]}
    assert servers["fs.files"]["calls"] == calls["mcp__fs.files__read"] + calls["mcp__fs.files__glob"]
    assert servers["s\u00fbche"]["calls"] == calls["mcp__s\u00fbche__grep"]
    assert set(servers) == {n.split("__")[1] for n in mcp} | {"conc"}
    assert got["held_back"] == [] and got["conversations"] == len({s for v in sessions.values() for s in v}) + 1


def test_csv_and_table_say_the_same(tooled):
    root, (calls, failed, _, _), _ = tooled
    text = asz("usage", "tools", "--format", "csv", "--root", str(root)).stdout
    lines = list(csv.DictReader(io.StringIO(text)))
    tools = {r["name"]: r for r in lines if r["kind"] == "tool"}
    assert {n: int(r["calls"]) for n, r in tools.items() if int(r["calls"])} == dict(calls)
    (total,) = [r for r in lines if r["kind"] == "total"]
    assert int(total["failed"]) == sum(failed.values()) and total["median_ms"] == "300"  # 7 durations: 7,100..1000
    table = asz("usage", "tools", "--root", str(root)).stdout
    line = next(x for x in table.splitlines() if x.startswith("mcp__shell__run "))
    assert line.split()[1:5] == [f"{calls['mcp__shell__run']:,}", f"{failed['mcp__shell__run']:,}", "0", "6"]  # REFUSED 0
    assert "MCP SERVER" in table


def test_filters_narrow_it(tooled):
    root, (calls, _, sessions, info), _ = tooled
    sid = next(iter(sessions["mcp__web__fetch"]))
    got = asz_json("usage", "tools", "--json", "--conversation", sid[:8], "--root", str(root))
    mine = Counter(d["name"] for d in info.values() if d["session"] == sid)
    assert {r["tool"]: r["calls"] for r in got["tools"] if r["calls"]} == dict(mine)
    one = asz_json("usage", "tools", "--json", "--project", "Demo", "--root", str(root))
    assert one["conversations"] == 1
    none = asz("usage", "tools", "--project", "no-such-project", "--root", str(root), check=False)
    assert none.returncode == 1 and "no conversation matched --project no-such-project" in none.stderr
    bad = asz("usage", "tools", "--model", "opus", "--root", str(root), check=False)
    assert bad.returncode == 2
    # the README's --json [--total-once] (trial 46d F7): the tools object gives the total once already
    assert asz_json("usage", "tools", "--json", "--total-once", "--root", str(root))["total"]["calls"] == sum(calls.values())
    alone = asz("usage", "tools", "--total-once", "--root", str(root), check=False)
    assert alone.returncode == 2 and "give --json too" in alone.stderr


def test_conversation_counts_each_tool(tooled):
    root, (_, _, _, info), _ = tooled
    sid = next(d["session"] for d in info.values() if d["name"] == "mcp__web__fetch")
    mine = Counter(d["name"] for d in info.values() if d["session"] == sid)
    bad = Counter(d["name"] for d in info.values() if d["session"] == sid and d["failed"])
    doc = asz_json("conversation", sid, "--json", "--root", str(root))
    assert {t["name"]: (t["calls"], t["failed"]) for t in doc["summary"]["calls_by_tool"]} == \
        {n: (c, bad[n]) for n, c in mine.items()}
    text = asz("conversation", sid, "--root", str(root)).stdout
    line = next(x for x in text.splitlines() if x.startswith("tools "))
    assert line.startswith(f"tools {sum(mine.values()):,} call(s) of {len(mine)} tool(s): ")
    top = mine.most_common(1)[0][0]
    assert f"{top} {mine[top]}" in line


def _result_text(content) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or () if isinstance(b, dict))


def test_search_tool_keeps_that_tools_inputs_and_results(tooled, tmp_path):
    """``asz search --tool NAME``: the hits are that tool's inputs and results only, as many as the source holds texts
    with the word (inputs: the call's input as JSON; results: the tool_result's text)."""
    root, _, _ = tooled
    projects = root.parent / "projects"
    inputs = results = 0
    names: dict[str, str] = {}
    for f in sorted(projects.rglob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            o = json.loads(line)
            content = (o.get("message") or {}).get("content") if isinstance(o, dict) else None
            for b in content if isinstance(content, list) else ():
                if b.get("type") == "tool_use" and b["id"] not in names:
                    names[b["id"]] = b["name"]
                    inputs += b["name"] == "mcp__web__fetch" and "https" in json.dumps(b["input"]).lower()
                elif b.get("type") == "tool_result" and names.get(b.get("tool_use_id")) == "mcp__web__fetch":
                    results += "https" in _result_text(b.get("content")).lower()
    assert inputs > 0 and results > 0  # the premise
    hits = asz_json("search", "https", "--tool", "mcp__web__fetch", "--limit", "0", "--json", "--root", str(root))
    assert Counter(h["kind"] for h in hits) == {"tool_input": inputs, "tool_result": results}
    assert all(h["step"].startswith("tool/") for h in hits)
    every = asz_json("search", "https", "--limit", "0", "--json", "--root", str(root))
    assert len(every) > len(hits)
    assert asz_json("search", "https", "--tool", "mcp__web__fetc", "--json", "--root", str(root)) == []  # the whole name


def test_api_tools_answers_what_the_command_prints(tooled):
    """``/api/tools`` (asz view and asz server): ``asz usage tools --json``'s object, narrowed alike; refusals are 400
    and 404 as the other routes' are."""
    from asz_core.cli.server_cmd import _reading_routes
    from asz_core.reading.tool_use import answer
    from asz_core.view.query import ApiError

    root, (calls, _, sessions, _), _ = tooled
    assert "/api/tools" in dict(_reading_routes())
    assert answer(root, [], [], ApiError) == asz_json("usage", "tools", "--json", "--root", str(root))
    sid = next(iter(sessions["mcp__web__fetch"]))
    one = answer(root, [("conversation", sid[:8]), ("sort", "calls")], [], ApiError)
    assert one == asz_json("usage", "tools", "--json", "--conversation", sid, "--sort", "calls", "--root", str(root))
    assert answer(root, [("project", "Demo")], [], ApiError)["conversations"] == 1
    for pairs, status in (([("model", "x")], 400), ([("conversation", "ffffffff")], 404), ([("since", "nope")], 400)):
        with pytest.raises(ApiError) as got:
            answer(root, pairs, [], ApiError)
        assert got.value.status == status
