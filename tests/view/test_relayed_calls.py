"""A sub-agent's calls seen only in its parent's ``progress`` records are counted, by every reader alike (trial 48a F1
and its follow-up, fix49a).

Claude Code 2.1.x copies each reply of a sub-agent, with its usage, into the parent's transcript as a ``progress``
record (``data.type`` ``agent_progress``, ``data.message`` the sub-agent's line). Such a record lands whole as the
runtime's bookkeeping (seed 000) and names no call; a call is read from the sub-agent's own transcript (seed 003, 1a)
when it lands. Real input: the corpus's 8463c716, whose main file holds 19 such copies of 12 calls of sub-agent a7be2f0.
Alone (its ``subagents/`` folder missing) each of the 12 is an ``llm.call`` node of its own read from its last copy,
and the summary, ``asz ls``, every ``asz usage`` report and window count them with the main thread's 143, as ccusage
does; a problem line says where they were read from. With its folder there each copy is one of the sub-agent's own
calls (the same message id and request id), counted once. Every count is made here from the source lines."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from asz_core.view.usage_relayed import RELAYED_FROM, RELAYED_PREFIX
from cli_helpers import asz_in_process, asz_ok
from test_view_usage import source_usage, transcript_calls

PROJECT = "-home-user-spotter"
SID = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
KEYS = ("in", "out", "cache_read", "cache_write")  # issue 17's usage keys


def copies(main: Path) -> dict[tuple[str, str], tuple[str, str, dict, str, str]]:
    """``(message id, request id) -> (agent id, model, usage, the copying record's timestamp, its parentToolUseID)`` of
    the last progress record copying each sub-agent reply of a transcript, straight from its lines."""
    out = {}
    for line in main.read_bytes().splitlines():
        d = json.loads(line)
        data = d.get("data") if d.get("type") == "progress" else None
        m = data.get("message") if isinstance(data, dict) and data.get("type") == "agent_progress" else None
        if isinstance(m, dict) and m.get("type") == "assistant" and isinstance(m["message"].get("usage"), dict):
            out[(m["message"]["id"], m.get("requestId") or "")] = (data.get("agentId"), m["message"]["model"],
                                                                  source_usage(m["message"]["usage"]), d["timestamp"],
                                                                  d.get("parentToolUseID"))
    return out


def own_times(main: Path) -> dict[tuple[str, str], str]:
    """``(message id, request id) -> timestamp`` of the last assistant line carrying usage of each call of a transcript:
    the record a call's usage is read from, whose day it counts on."""
    out = {}
    for line in main.read_bytes().splitlines():
        d = json.loads(line)
        m = d.get("message")
        if d.get("type") == "assistant" and isinstance(m, dict) and m.get("id") and isinstance(m.get("usage"), dict):
            out[(m["id"], d.get("requestId") or "")] = d["timestamp"]
    return out


def _add(total: dict, u: dict) -> dict:
    for k in KEYS:
        total[k] = total.get(k, 0) + u[k]
    return total


def _sums(usages) -> dict:
    total = dict.fromkeys(KEYS, 0)
    for u in usages:
        _add(total, u)
    return total


def _four(u: dict) -> dict:
    return {k: u[k] for k in KEYS}


@pytest.fixture(scope="module")
def alone(corpus_projects: Path, tmp_path_factory) -> tuple[Path, Path]:
    """8463c716's main file alone (its sub-agent files missing), collected: ``(root, the source main file)``."""
    main = corpus_projects / PROJECT / f"{SID}.jsonl"
    if not main.is_file():
        pytest.skip(f"{main} is absent")
    base = tmp_path_factory.mktemp("relayed")
    (base / "projects" / PROJECT).mkdir(parents=True)
    shutil.copyfile(main, base / "projects" / PROJECT / main.name)
    asz_ok("collect", "--once", "--adapter", "claude-code-local", "--source", str(base / "projects"), "--root", str(base / "root"))
    return base / "root", main


@pytest.fixture(scope="module")
def truth(alone) -> dict:
    """The figures of the main file alone, from its lines: the relayed calls, the main thread's own, and both."""
    _root, main = alone
    got = copies(main)
    own = transcript_calls([main])
    assert not set(got) & set(own)  # no copy is one of the main thread's own calls
    relayed = _sums(u for _a, _m, u, _t, _p in got.values())
    mine = _sums(source_usage(m["usage"]) for m in own.values())
    return {"copies": got, "own": own, "relayed": relayed, "mine": mine, "all": _add(dict(mine), relayed),
            "model": {m for _a, m, _u, _t, _p in got.values()}}


def test_the_copies_are_the_12_calls_ccusage_counts(truth):
    got = truth["copies"]
    assert len(got) == 12 and {a for a, *_ in got.values()} == {"a7be2f0"}  # 19 records copy 12 calls
    assert tuple(truth["relayed"].values()) == (94, 32, 271377, 12599)  # ccusage's haiku row on this file (trial 48a F1)
    assert len(truth["own"]) == 143 and len(truth["model"]) == 1


def test_the_summary_and_the_document_count_them(alone, truth):
    root, _main = alone
    (model,) = truth["model"]
    doc = json.loads(asz_ok("conversation", SID[:8], "--json", "--root", str(root)))
    s = doc["summary"]
    assert s["state"] == "verified"
    assert (s["llm_calls"], _four(s["usage"])) == (len(truth["own"]) + 12, truth["all"])
    assert _four(s["usage_by_model"][model]) == truth["relayed"] and model in s["models"]
    assert _four(s["usage_by_lane"]["subagent"]) == truth["relayed"]
    assert _four(s["usage_by_lane"]["main"]) == truth["mine"]
    assert s["kinds"]["llm.call"] == 155
    (line,) = [p for p in s["problems"] if p.startswith(RELAYED_PREFIX)]
    r = truth["relayed"]
    figures = f"{model} 12 call(s), in {r['in']:,}, out {r['out']:,}, cache_read {r['cache_read']:,}, cache_write {r['cache_write']:,}"
    assert "12 model call(s) of sub-agent(s) a7be2f0 whose own transcript did not land" in line and figures in line
    assert "counted from the last copy of each" in line and "in no figure" not in line, line
    # seed 004's call nodes: one per relayed call, under the Task call that started the sub-agent, read from its copies
    nodes = {}
    stack = list(doc["talks"]) + list(doc["loose"])
    while stack:
        n = stack.pop()
        nodes[n["id"]] = n
        stack.extend(n.get("children") or ())
    relayed = {k: n for k, n in nodes.items() if n["kind"] == "llm.call" and (n.get("attrs") or {}).get("usage_from") == RELAYED_FROM}
    assert set(relayed) == {f"call/{mid}" for mid, _req in truth["copies"]}
    parents = {f"tool/{p}" for *_x, p in truth["copies"].values()}
    assert {nodes[k]["parent"] for k in relayed} == parents and all(p in nodes for p in parents)
    assert sum(1 for n in nodes.values() if n["kind"] == "llm.call") == 155
    text = asz_ok("conversation", SID[:8], "--root", str(root))
    t = truth["all"]
    assert f"tokens in {t['in']:,}, out {t['out']:,}, cache read {t['cache_read']:,}, cache write {t['cache_write']:,}" in text
    assert f"(of which subagents: in {r['in']:,}, out {r['out']:,}, cache read {r['cache_read']:,}, cache write {r['cache_write']:,}" in text


def test_asz_ls_and_every_usage_report_count_them(alone, truth):
    root, _main = alone
    (model,) = truth["model"]
    (row,) = json.loads(asz_ok("ls", "--json", "--root", str(root)))
    assert (row["llm_calls"], _four(row["usage"])) == (155, truth["all"]) and model in row["models"]
    for view in ("daily", "weekly", "monthly", "session", "project", "model", "blocks"):
        p = asz_in_process("usage", view, "--json", "--tz", "UTC", "--root", str(root))
        assert p.returncode == 0, p.stdout + p.stderr
        rows = json.loads(p.stdout)
        assert sum(x["calls"] for x in rows) == 155, view
        assert _sums(_four(x["usage"]) for x in rows) == truth["all"], view
        assert set(rows[0]["usage"]) >= set(KEYS)
        if view == "model":
            assert [(x["calls"], _four(x["usage"])) for x in rows if x["model"] == model] == [(12, truth["relayed"])]
        # the relayed calls' line is said on stderr as before, now as counted
        assert f"asz usage: note: {SID[:8]}: {RELAYED_PREFIX}12 model call(s)" in p.stderr, p.stderr
    p = asz_in_process("usage", "--json", "--total-once", "--root", str(root))
    total = json.loads(p.stdout)["total"]
    assert (total["calls"], _four(total["usage"])) == (155, truth["all"])


def test_a_window_counts_a_relayed_call_on_the_day_of_its_copy(alone, truth):
    """In UTC+2 (Etc/GMT-2) the conversation crosses midnight (21:41 to 22:54 UTC): each call counts on the local day of the record
    its usage is read from, a relayed call that of its last copy, in ``asz usage daily`` and a ``--since/--until``
    window alike."""
    root, main = alone
    tz = timezone(timedelta(hours=2))
    times = own_times(main)
    days: dict[str, list] = {}

    def put(ts: str, u: dict) -> None:
        day = datetime.fromisoformat(ts.replace("Z", "+00:00")).astimezone(tz).strftime("%Y-%m-%d")
        d = days.setdefault(day, [0, dict.fromkeys(KEYS, 0)])
        d[0] += 1
        _add(d[1], u)

    for k, m in truth["own"].items():
        put(times[k], source_usage(m["usage"]))
    for _a, _m, u, ts, _p in truth["copies"].values():
        put(ts, u)
    assert sorted(days) == ["2026-02-11", "2026-02-12"]
    p = asz_in_process("usage", "daily", "--json", "--tz", "Etc/GMT-2", "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    assert {x["date"]: [x["calls"], _four(x["usage"])] for x in json.loads(p.stdout)} == days
    p = asz_in_process("usage", "session", "--json", "--tz", "Etc/GMT-2", "--since", "20260212", "--until", "20260212",
                       "--root", str(root))
    (row,) = json.loads(p.stdout)
    assert [row["calls"], _four(row["usage"])] == days["2026-02-12"]


def test_with_its_sub_agent_files_each_copy_is_counted_once(corpus_projects: Path, corpus_copy):
    main = corpus_projects / PROJECT / f"{SID}.jsonl"
    agents = sorted((corpus_projects / PROJECT / SID / "subagents").glob("agent-*.jsonl"))
    if not main.is_file() or not agents:
        pytest.skip(f"{main} or its sub-agent files are absent")
    got, own = copies(main), transcript_calls(agents)
    assert set(got) <= set(own)  # every copy is one of the sub-agent's own calls: by message id + request id
    assert all(source_usage(own[k]["usage"]) == u for k, (_a, _m, u, _t, _p) in got.items())
    root = corpus_copy()
    doc = json.loads(asz_ok("conversation", SID[:8], "--json", "--root", str(root)))
    assert not [p for p in doc["summary"]["problems"] if p.startswith(RELAYED_PREFIX)]
    assert doc["summary"]["llm_calls"] == len(transcript_calls([main, *agents])) == doc["summary"]["kinds"]["llm.call"] == 157
    assert RELAYED_FROM not in json.dumps(doc)  # no call node read from a copy
    # the whole corpus, each session's calls counted from its own files: no copy counted twice, none said
    sessions: dict[str, list[Path]] = {}
    for f in sorted(corpus_projects.rglob("*.jsonl")):
        sid = f.parent.parent.name if f.parent.name == "subagents" else f.stem
        sessions.setdefault(sid, []).append(f)
    calls = {k: m for files in sessions.values() for k, m in transcript_calls(files).items()}
    p = asz_in_process("usage", "--json", "--total-once", "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    total = json.loads(p.stdout)["total"]
    assert total["calls"] == len(calls) == 543, total  # spec/reader-anchors.md
    assert total["usage"]["out"] == sum(source_usage(m["usage"])["out"] for m in calls.values()) == 163933
    assert RELAYED_PREFIX not in p.stderr, p.stderr


def test_a_relayed_call_read_from_some_of_its_copies(alone):
    """``asz push``'s metrics read a call from the records a receiver holds (``checked_call_ids_within``): a relayed
    call from the last of its copies kept, as from all of them. Cut after each copy's line in turn, every call's usage
    is its last copy up to the cut, counted from the source lines."""
    from asz_core.view.document import checked_call_ids_within

    root, main = alone
    seen: dict[str, list[tuple[int, dict]]] = {}  # message id -> (line, usage) of each copy, in line order
    for i, line in enumerate(main.read_bytes().splitlines(), 1):
        d = json.loads(line)
        m = (d.get("data") or {}).get("message") if d.get("type") == "progress" else None
        if isinstance(m, dict) and m.get("type") == "assistant" and d["data"].get("type") == "agent_progress":
            seen.setdefault(m["message"]["id"], []).append((i, source_usage(m["message"]["usage"])))
    assert sum(len(x) for x in seen.values()) == 19
    for cut in sorted({i for x in seen.values() for i, _u in x})[::3]:
        _calls, state, _p, before = checked_call_ids_within(root, SID, lambda seq, o, cut=cut: o <= cut)
        assert state == "verified"
        want = {f"call/{mid}": [u for i, u in x if i <= cut][-1] for mid, x in seen.items() if x[0][0] <= cut}
        got = {k: before[k] for k in (f"call/{mid}" for mid in seen) if k in before}
        assert got == want, cut


def test_an_export_counts_them_and_checks(alone, truth, tmp_path):
    root, _main = alone
    out = tmp_path / "c.md"
    asz_ok("export", SID[:8], "--format", "md", "--out", str(out), "--root", str(root))
    t, (model,) = truth["all"], truth["model"]
    head = out.read_text().split("\n## ", 1)[0]
    assert f"- tokens in {t['in']:,}, out {t['out']:,}, cache read {t['cache_read']:,}, cache write {t['cache_write']:,}" in head
    assert f"- models {model}, " in head
    v = asz_in_process("verify", "--export", str(out), "--root", str(root))
    assert v.returncode == 0 and "the copy checks against the root" in v.stdout, v.stdout + v.stderr
