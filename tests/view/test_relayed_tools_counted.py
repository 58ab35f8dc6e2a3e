"""A sub-agent's tool calls seen only in its parent's ``progress`` records are counted, by the one rule its model calls
are (fix50a, trial 49d F1's follow-up): each relayed ``tool_use`` is a ``tool`` step under its relayed ``llm.call``,
its result read from the copy of it when one landed, so the summary (tools, failures), ``asz usage tools`` and the
exports count it; with the sub-agent's own file present nothing is added (a tool call is one node, whichever file holds
it).

Real input: the corpus's 8463c716, whose main file's progress records copy 19 tool calls of sub-agent a7be2f0 (Bash 11,
Read 7, Glob 1) and their results; collected alone (its ``subagents/`` folder missing: :func:`test_relayed_calls.alone`)
and whole. Every count is made here from the JSONL lines."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from asz_core.view.usage_relayed import NOT_COPIED, RELAYED_FROM, RELAYED_PREFIX
from cli_helpers import asz_ok
from doc_walk import dicts_in
from test_relayed_calls import PROJECT, SID, alone  # noqa: F401  (alone: the root, a fixture)


def _lines(path: Path):
    for line in path.read_bytes().splitlines():
        yield json.loads(line)


def _text(content) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b["text"] for b in content or () if isinstance(b, dict) and isinstance(b.get("text"), str))


def relayed_tools(main: Path) -> tuple[dict[str, dict], dict[str, dict]]:
    """``(uses, results)`` the main file's agent_progress copies hold: tool_use id -> ``{"name", "input", "call"}``
    (the first copy's; ``call`` the copied reply's message id), and tool_use id -> ``{"is_error", "text"}``."""
    uses, results = {}, {}
    for d in _lines(main):
        data = d.get("data") if d.get("type") == "progress" else None
        m = data.get("message") if isinstance(data, dict) and data.get("type") == "agent_progress" else None
        if not isinstance(m, dict):
            continue
        for b in m.get("message", {}).get("content") or ():
            if not isinstance(b, dict):
                continue
            if m.get("type") == "assistant" and b.get("type") == "tool_use":
                uses.setdefault(b["id"], {"name": b["name"], "input": b.get("input"), "call": m["message"]["id"]})
            elif m.get("type") == "user" and b.get("type") == "tool_result":
                results.setdefault(b["tool_use_id"], {"is_error": b.get("is_error") is True, "text": _text(b.get("content"))})
    return uses, results


def own_tools(path: Path) -> tuple[Counter, Counter]:
    """``(calls, failed)`` per tool name of a transcript's own lines (no progress record): each tool_use id once, and
    those whose tool_result says ``is_error: true``."""
    names, failed = {}, set()
    for d in _lines(path):
        content = (d.get("message") or {}).get("content") if d.get("type") in ("assistant", "user") else None
        for b in content if isinstance(content, list) else ():
            if isinstance(b, dict) and b.get("type") == "tool_use":
                names[b["id"]] = b["name"]
            elif isinstance(b, dict) and b.get("type") == "tool_result" and b.get("is_error") is True:
                failed.add(b["tool_use_id"])
    return Counter(names.values()), Counter(names[t] for t in failed if t in names)


def _by_tool(summary: dict) -> tuple[Counter, Counter]:
    rows = summary["calls_by_tool"]
    return Counter({r["name"]: r["calls"] for r in rows}), Counter({r["name"]: r["failed"] + r["refused"] for r in rows if r["failed"] + r["refused"]})


@pytest.fixture(scope="module")
def truth(alone) -> dict:
    _root, main = alone
    uses, results = relayed_tools(main)
    calls, failed = own_tools(main)
    return {"uses": uses, "results": results, "own": calls, "own_failed": failed,
            "names": Counter(u["name"] for u in uses.values()),
            "failed": Counter(uses[t]["name"] for t, r in results.items() if r["is_error"] and t in uses)}


@pytest.fixture(scope="module")
def whole(alone, tmp_path_factory) -> Path:
    """8463c716 with its ``subagents/`` folder, collected: the root."""
    _root, main = alone
    base = tmp_path_factory.mktemp("relayed-whole")
    (base / "projects" / PROJECT).mkdir(parents=True)
    shutil.copyfile(main, base / "projects" / PROJECT / main.name)
    shutil.copytree(main.parent / SID, base / "projects" / PROJECT / SID)
    asz_ok("collect", "--once", "--adapter", "claude-code-local", "--source", str(base / "projects"), "--root", str(base / "root"))
    return base / "root"


def test_the_copies_hold_19_tool_calls_and_their_results(truth):
    assert len(truth["uses"]) == 19 and truth["names"] == Counter({"Bash": 11, "Read": 7, "Glob": 1})
    assert set(truth["results"]) == set(truth["uses"])  # every result copied too


def test_each_is_a_tool_step_under_its_relayed_call(alone, truth):
    root, _main = alone
    doc = json.loads(asz_ok("conversation", SID[:8], "--json", "--root", str(root)))
    steps = {n["id"]: n for n in dicts_in(doc["talks"]) if n.get("kind") == "tool"}
    for tid, u in truth["uses"].items():
        n = steps[f"tool/{tid}"]
        r = truth["results"][tid]
        assert (n["parent"], n["name"], json.loads(n["text"])) == (f"call/{u['call']}", u["name"], u["input"])
        assert n["attrs"]["usage_from"] == RELAYED_FROM and n["attrs"]["result"] == "available"
        assert r["text"].startswith(n.get("result", "")[:1000]) and n["result_bytes"] == len(r["text"].encode())  # clipped at 2,000
        assert n["result_state"] == "available" and len(n["refs"]) == 2
        assert n.get("failed") is True if r["is_error"] else n.get("failed") is not True


def test_the_summary_counts_them_with_their_failures(alone, truth):
    root, _main = alone
    s = json.loads(asz_ok("conversation", SID[:8], "--json", "--root", str(root)))["summary"]
    calls, failed = _by_tool(s)
    assert calls == truth["own"] + truth["names"] and sum(calls.values()) == sum(truth["own"].values()) + 19 == 196
    assert failed == truth["own_failed"] + truth["failed"]
    assert s["kinds"]["tool"] == 196
    (line,) = [p for p in s["problems"] if p.startswith(RELAYED_PREFIX)]
    assert line.endswith("; and 19 tool call(s) of theirs: Bash 11, Read 7, Glob 1, counted as tool calls under their "
                         "model calls, from the copies of each request and its result")
    text = asz_ok("conversation", SID[:8], "--root", str(root))
    assert f"tools 196 call(s) of {len(calls)} tool(s): Bash {calls['Bash']} ({failed['Bash']} failed)" in text


def test_asz_usage_tools_counts_them(alone, truth):
    root, _main = alone
    got = json.loads(asz_ok("usage", "tools", "--json", "--root", str(root)))
    rows = {r["tool"]: r for r in got["tools"]}
    want = truth["own"] + truth["names"]
    assert {k: r["calls"] for k, r in rows.items()} == dict(want)
    assert {k: r["failed"] + r["refused"] for k, r in rows.items() if r["failed"] + r["refused"]} == \
        dict(truth["own_failed"] + truth["failed"])


def test_the_exports_draw_them(alone, truth, tmp_path):
    root, _main = alone
    md = asz_ok("export", SID[:8], "--format", "md", "--root", str(root))
    for tid, u in truth["uses"].items():
        assert f"**Tool {u['name']}**" in md and f"`tool/{tid}`" in md
    got = json.loads(asz_ok("export", SID[:8], "--format", "json", "--root", str(root)))
    ids = {n["id"] for n in dicts_in(got) if n.get("kind") == "tool"}
    assert {f"tool/{t}" for t in truth["uses"]} <= ids and len(ids) == 196


def test_a_result_no_copy_holds_is_said_not_copied_never_failed(alone):
    """The same file with the copies of the results taken out (their progress records dropped): each tool call stays
    counted, its result ``not_copied``, and no failure is counted of it."""
    root, main = alone
    uses, results = relayed_tools(main)
    base = root.parent / "no-results"
    (base / "projects" / PROJECT).mkdir(parents=True, exist_ok=True)
    kept = [line for line in main.read_bytes().splitlines()
            if not (b'"agent_progress"' in line and b'"tool_result"' in line)]
    (base / "projects" / PROJECT / main.name).write_bytes(b"\n".join(kept) + b"\n")
    asz_ok("collect", "--once", "--adapter", "claude-code-local", "--source", str(base / "projects"), "--root", str(base / "root"))
    doc = json.loads(asz_ok("conversation", SID[:8], "--json", "--root", str(base / "root")))
    steps = {n["id"]: n for n in dicts_in(doc["talks"]) if n.get("kind") == "tool" and n["id"][5:] in uses}
    assert len(steps) == 19
    for n in steps.values():
        assert n["attrs"]["result"] == NOT_COPIED and "failed" not in n and "result" not in n and len(n["refs"]) == 1
    calls, failed = _by_tool(doc["summary"])
    own, own_failed = own_tools(main)
    assert calls == own + Counter(u["name"] for u in uses.values()) and failed == own_failed


def test_with_the_sub_agent_file_nothing_is_added(alone, whole):
    _root, main = alone
    doc = json.loads(asz_ok("conversation", SID[:8], "--json", "--root", str(whole)))
    nodes = list(dicts_in(doc["talks"])) + list(dicts_in(doc.get("loose") or []))
    assert not [n for n in nodes if (n.get("attrs") or {}).get("usage_from") == RELAYED_FROM]
    assert not [p for p in doc["summary"]["problems"] if p.startswith(RELAYED_PREFIX)]
    calls, failed = own_tools(main)
    for sub in sorted((main.parent / SID / "subagents").glob("*.jsonl")):
        c, f = own_tools(sub)
        calls, failed = calls + c, failed + f
    assert _by_tool(doc["summary"]) == (calls, failed) and sum(calls.values()) == 196


def _text_tools(root: Path) -> tuple[int, int]:
    """``(tool_call lines, those whose status is error)`` of the audit text form of 8463c716 in ``root``."""
    import re

    text = asz_ok("export", SID[:8], "--format", "text", "--root", str(root))
    (said,) = re.findall(r"^lines: .*\btool_call ([0-9,]+)", text, re.M)
    calls = re.findall(r"^\[[^\]]*\] tool_call, (?:stream [^,]+, )?([a-z_]+)", text, re.M)
    assert len(calls) == int(said.replace(",", ""))
    return len(calls), calls.count("error")


def test_the_text_form_draws_them_as_the_whole_conversation_does(alone, whole, truth):
    root, _main = alone
    failed = sum((truth["own_failed"] + truth["failed"]).values())
    assert _text_tools(root) == (sum(truth["own"].values()) + 19, failed) == _text_tools(whole)


def _hits(root: Path, query: str, home: Path) -> list[dict]:
    from cli_helpers import asz_in_process

    p = asz_in_process("search", query, "--json", "--root", str(root), env={"HOME": str(home)})
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_search_finds_their_inputs_and_results_once(alone, whole, truth, tmp_path):
    """Each relayed tool call's input is found as ``tool_input`` of its step, and a failed one's result as
    ``tool_result``; with the sub-agent's own file the same step is found once, from that file."""
    root, main = alone
    (tid, u), = [(t, u) for t, u in truth["uses"].items() if u["name"] == "Glob"]
    query = " ".join(f'"{w}"' for w in u["input"]["pattern"].replace("*", " ").replace("/", " ").replace(".", " ").split())
    failed = [t for t, r in truth["results"].items() if r["is_error"] and "EISDIR" in r["text"]]
    assert len(failed) == 1 and query
    for r, copied in ((root, True), (whole, False)):
        for q, step, kind in ((query, tid, "tool_input"), ("EISDIR", failed[0], "tool_result")):
            got = [h for h in _hits(r, q, tmp_path) if h["step"] == f"tool/{step}" and h["kind"] == kind]
            assert len(got) == 1 and ("/streams/main/" in got[0]["file"]) is copied, (r, q, got)
