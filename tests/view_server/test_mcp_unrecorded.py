"""The calls whose two sides do not both say they happened (trial 33b F1): an MCP call the hook saw end whose tool
result the transcript does not hold, and an MCP call of the transcript that no execution record covers.

The corpus holds no transcript with an MCP call, so a real corpus transcript (``claude-code-log-sample``'s
``326189cf``, 14 calls, each with its result) has its ``TodoWrite``, ``Read`` and ``Bash`` calls renamed as calls of
the MCP servers ``todo``, ``fs`` and ``shell``, and the hook payloads are the corpus's 2.1.282 probe payload ``echo``
made those calls', fed to the real ``asz hook``. Planted (by the transcript's call order):

- recorded by the hook: ``todo`` calls 2 and 3, ``fs`` calls 1 and 2; the transcript's result of ``fs`` call 2 is
  taken out (the hook saw it return, the transcript never says how it ended);
- not recorded: ``todo`` call 1 (before the first call the hook recorded), ``fs`` call 3 (the hook recorded other
  calls of its server), ``todo`` call 4 with its result taken out too (still running when the session ended), and the
  3 ``shell`` calls (no call of that server recorded: the hook's matcher may leave it out).

Every expected id, line and count is read here from the source files, never from asz's output.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_mcp_arguments_check import probe_payloads
from test_mcp_executions_read import hook, land_with_hooks
from view_server_helpers import asz

PROJECT = "-Users-alex-workspace-claude-code-log-sample"
SESSION = "326189cf-5676-4237-8cde-1ce80aae4a9f"
SERVERS = {"TodoWrite": "mcp__todo__write", "Read": "mcp__fs__read", "Bash": "mcp__shell__run"}


def _calls(path: Path) -> list[tuple[str, str, dict]]:
    """``(id, name, input)`` of each ``tool_use`` block of the transcript, in file order."""
    out = []
    for line in path.read_text().splitlines():
        for b in (json.loads(line).get("message") or {}).get("content") or ():
            if isinstance(b, dict) and b.get("type") == "tool_use":
                out.append((b["id"], b["name"], b["input"]))
    return out


def _rewrite(path: Path, renamed: dict[str, str], no_result: set[str]) -> None:
    """The transcript with each ``tool_use`` renamed by ``renamed`` and the ``tool_result`` blocks of ``no_result``
    replaced by a text block (the record line stays, so the chain of records is whole)."""
    lines = []
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        content = (rec.get("message") or {}).get("content")
        if isinstance(content, list):
            for i, b in enumerate(content):
                if isinstance(b, dict) and b.get("type") == "tool_use" and b["name"] in renamed:
                    b["name"] = renamed[b["name"]]
                elif isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") in no_result:
                    content[i] = {"type": "text", "text": "(taken out)"}
            rec.pop("toolUseResult", None) if any(
                isinstance(b, dict) and b.get("text") == "(taken out)" for b in content) else None
            line = json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
        lines.append(line)
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def planted(tmp_path_factory, corpus_dir) -> dict:
    source = corpus_dir / "claude-code" / "projects" / PROJECT / f"{SESSION}.jsonl"
    if not source.exists():
        pytest.skip(f"{source} is not in the corpus")
    base = tmp_path_factory.mktemp("mcp-unrecorded")
    projects = base / "projects"
    (projects / PROJECT).mkdir(parents=True)
    main = projects / PROJECT / f"{SESSION}.jsonl"
    shutil.copyfile(source, main)
    calls = _calls(main)
    by = {n: [c for c in calls if c[1] == n] for n in SERVERS}
    assert [len(by[n]) for n in SERVERS] == [4, 3, 3]  # the premise, from the file
    todo, fs, shell = by["TodoWrite"], by["Read"], by["Bash"]
    ended_no_result, running = fs[1][0], todo[3][0]
    _rewrite(main, SERVERS, {ended_no_result, running})
    echo = next(p for p in probe_payloads(corpus_dir) if p["probe_case"] == "echo")
    data = base / "hookdata"
    for cid, name, args in (todo[1], todo[2], fs[0], fs[1]):
        server = SERVERS[name].split("__")[1]
        hook(json.dumps({**echo, "session_id": SESSION, "tool_use_id": cid, "tool_name": SERVERS[name],
                         "tool_input": args, "mcp_server": {"name": server, "source": "user"}}).encode(), data)
    root = land_with_hooks(projects, data, base / "root")
    unrecorded = {todo[0][0]: "before", fs[2][0]: "other", running: "running",
                  **{c[0]: "matcher" for c in shell}}
    return {"root": root, "ended": ended_no_result, "unrecorded": unrecorded,
            "names": {c[0]: SERVERS[c[1]] for c in calls if c[1] in SERVERS}}


WHY = {"before": "the call comes before the first call the hook recorded in this session (the hook may not have been "
                 "installed yet)",
       "other": "the hook recorded other calls of server fs in this session, not this one",
       "running": "no tool result in the transcript either: the call may still have been running when the session "
                  "ended",
       "matcher": "no call of server shell has one in this session (the hook's matcher may leave this server out)"}


def _call_at(file: str, line: int, cid: str) -> bool:
    """Whether line ``line`` of the landed file ``file`` is a record holding a call part of ``cid`` (read here)."""
    rec = json.loads(Path(file).read_bytes().split(b"\n")[line - 1])
    return any(p.get("k") == "call" and p.get("id") == cid for p in rec.get("parts") or ())


def test_verify_counts_and_names_each_call(planted):
    p = asz("verify", "--root", str(planted["root"]), check=False)
    assert p.returncode == 0, p.stdout + p.stderr  # facts, not damage: the exit code is unchanged
    lines = p.stdout.splitlines()
    (summary,) = [x for x in lines if "against the transcript's call and result" in x]
    assert summary.startswith("checked 4 tool execution record(s)")
    assert summary.endswith(f"; no tool result in the transcript 1; MCP calls of the transcript with no execution "
                            f"record {len(planted['unrecorded'])}")
    (warned,) = [x for x in lines if x.startswith("warning: ") and ": no tool result in the transcript [arguments]" in x]
    where = warned[len("warning: "):].split(": no tool result")[0]
    file, line = where.rsplit(":", 1)
    assert _call_at(file, int(line), planted["ended"])
    assert f"tool call {planted['ended']} mcp__fs__read: the hook saw the call end, returned" in warned
    notes = [x for x in lines if x.startswith("note: ") and ": no execution record [arguments]: " in x]
    assert len(notes) == len(planted["unrecorded"]) == 6
    for cid, case in planted["unrecorded"].items():
        (said,) = [x for x in notes if f"tool call {cid} {planted['names'][cid]}: " in x]
        file, line = said[len("note: "):].split(": no execution record")[0].rsplit(":", 1)
        assert _call_at(file, int(line), cid)
        assert WHY[case] in said, said
    js = json.loads(asz("verify", "--json", "--root", str(planted["root"]), check=False).stdout)
    assert (js["executions_no_result"], js["calls_no_execution"]) == (1, 6)


def test_conversation_counts_and_names_each_call(planted):
    doc = json.loads(asz("conversation", SESSION, "--json", "--root", str(planted["root"])).stdout)
    s = doc["summary"]
    assert s["executions_no_result"] == 1
    assert {c["id"]: c["name"] for c in s["calls_no_execution"]} == {
        cid: planted["names"][cid] for cid in planted["unrecorded"]}
    for c in s["calls_no_execution"]:
        assert WHY[planted["unrecorded"][c["id"]]] in c["why"]
    text = asz("conversation", SESSION, "--root", str(planted["root"])).stdout.splitlines()
    assert ("tool executions 4 (execution records): arguments agree 4, differ 0, not compared 0; no tool result in "
            "the transcript 1; MCP calls of the transcript with no execution record 6") in text
    assert any(x.startswith(f"no tool result in the transcript: {planted['ended']} mcp__fs__read: the hook saw the "
                            "call end, returned") for x in text)
    for cid in planted["unrecorded"]:
        assert any(x.startswith(f"no execution record: {cid} {planted['names'][cid]} (seq ") for x in text), cid
