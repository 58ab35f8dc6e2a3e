"""Who said what, the same in every reader (trial 43c F1, F2, F6; docs/view.md "Interrupts, replays and orphan
sidechain lines").

- F1: Claude Code's interrupt notice (``[Request interrupted by user for tool use]``, a ``user`` line whose content is
  a list of one text block: seed 003 §5 reads a person's prompt from a string) is the runtime's notice, drawn as a
  ``control.notice`` step inside the talk it interrupted, never a talk of its own or the person's words. Real input:
  the corpus's 0d3a8e6f (3 notices), collected by the real ``asz collect``; the talks are counted here from the
  transcript. A root an earlier adapter landed (the notice flagged ``external_input``) reads the same after
  ``asz parse`` (``Adapter.read_today``).
- F2 (field report 13): a sub-agent's file replaying a parent response (same ``message.id``, new ``requestId``,
  ``isSidechain``) is counted once and drawn once, where its call belongs; the sub-agent's output is its own answer.
- F6 (field report 34): a sidechain line in the main file with no call that started it is drawn as a sub-agent group
  of its own, as the head counts it (tests/view_server/test_orphan_sidechain_group.py: every reader).
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

SID = "0d3a8e6f-290f-4105-a327-a2496e5e2a83"
PROJECT = "-Users-alex-workspace-claude-code-log-sample"
NOTICES = ("[Request interrupted by user]", "[Request interrupted by user for tool use]")
REPLAY = "f1e1d000-0000-4000-8000-000000000032"
AGENT = "a0123456789abcdef"
ORPHAN = "f1e1d000-0000-4000-8000-000000000034"
UNPRICED = "f1e1d000-0000-4000-8000-000000000044"
#: A model no price table names (close43 "Not done": a call of it says unpriced, never $0.00).
NO_PRICE = "claude-unpriced-test-1"
#: What Claude Code writes itself into a user line's string (docs/adapters/claude-code.md): no one's prompt.
RUNTIME_WORDS = ("<local-command-stdout>", "<local-command-stderr>", "<bash-stdout>", "<bash-stderr>", "<task-notification>")


def _line(uuid: str, parent: str | None, t: str, kind: str, sid: str, side: bool = False, **more) -> dict:
    return {"parentUuid": parent, "isSidechain": side, "userType": "external", "cwd": "/home/user/fieldtest",
            "sessionId": sid, "version": "2.0.1", "uuid": uuid, "timestamp": f"2026-11-20T{t}.000Z", "type": kind, **more}


def _said(msg_id: str, req: str, content: list, out: int = 10, model: str = "claude-sonnet-4-20250514") -> dict:
    return {"message": {"id": msg_id, "type": "message", "role": "assistant", "model": model,
                        "content": content, "stop_reason": "end_turn", "stop_sequence": None,
                        "usage": {"input_tokens": 100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                                  "output_tokens": out}}, "requestId": req}


def _field_reports(projects: Path) -> None:
    """Field report 13's shape (trial 43c's FR32: an async agent whose file replays the parent's last response) and 34's
    (FR34: a sidechain reply in the main file with no Task call and no prompt of its own)."""
    d = projects / "-home-user-fieldtest"
    (d / REPLAY / "subagents").mkdir(parents=True)
    parent_done = _said("msg_fr32b", "req_fr32b", [{"type": "text", "text": "FR32 parent done"}])
    main = [_line("u1", None, "12:00:00", "user", REPLAY, message={"role": "user", "content": "FR32 launch async agent"}),
            _line("a1", "u1", "12:01:00", "assistant", REPLAY, **_said("msg_fr32a", "req_fr32a", [
                {"type": "tool_use", "id": "toolu_fr32", "name": "Task", "input": {"description": "async", "prompt": "go async"}}])),
            _line("u2", "a1", "12:02:00", "user", REPLAY, toolUseResult={"status": "async_launched", "agentId": AGENT},
                  message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_fr32", "content": "launched"}]}),
            _line("a2", None, "12:03:00", "assistant", REPLAY, **parent_done)]
    child = [_line("c1", None, "12:01:30", "user", REPLAY, True, agentId=AGENT, message={"role": "user", "content": "go async"}),
             _line("c2", None, "12:01:40", "assistant", REPLAY, True, agentId=AGENT,
                   **_said("msg_fr32sub", "req_fr32sub", [{"type": "text", "text": "FR32 subagent answer"}], 77)),
             _line("c3", None, "12:03:00", "assistant", REPLAY, True, agentId=AGENT, **{**parent_done, "requestId": "req_replay"})]
    orphan = [_line("o1", None, "13:00:00", "user", ORPHAN, message={"role": "user", "content": "FR34 main prompt"}),
              _line("o2", None, "13:01:00", "assistant", ORPHAN, **_said("msg_fr34", "req_fr34", [{"type": "text", "text": "FR34 main reply"}])),
              _line("o3", None, "13:02:00", "assistant", ORPHAN, True,
                    **_said("msg_fr34o", "req_fr34o", [{"type": "text", "text": "FR34 orphan sidechain reply"}]))]
    unpriced = [_line("p1", None, "14:00:00", "user", UNPRICED, message={"role": "user", "content": "priced and not"}),
                _line("p2", "p1", "14:01:00", "assistant", UNPRICED, **_said("msg_p2", "req_p2", [{"type": "text", "text": "priced"}], 2_000)),
                _line("p3", "p2", "14:02:00", "assistant", UNPRICED,
                      **_said("msg_p3", "req_p3", [{"type": "text", "text": "not priced"}], 30, NO_PRICE))]
    for path, lines in ((d / f"{REPLAY}.jsonl", main), (d / REPLAY / "subagents" / f"agent-{AGENT}.jsonl", child),
                        (d / f"{ORPHAN}.jsonl", orphan), (d / f"{UNPRICED}.jsonl", unpriced)):
        path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def _collect(base: Path, *extra: str) -> Path:
    p = asz_in_process("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"), *extra,
                       env={"HOME": str(base / "home"), "KIRO_HOME": str(base / "no-kiro"), "CLAUDE_CONFIG_DIR": None})
    assert p.returncode == 0, p.stdout + p.stderr
    return base / "root"


@pytest.fixture(scope="module")
def base(corpus_dir, tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("said")
    (base / "projects" / PROJECT).mkdir(parents=True)
    shutil.copy(corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl", base / "projects" / PROJECT)
    _field_reports(base / "projects")
    return base


@pytest.fixture(scope="module")
def root(base) -> Path:
    return _collect(base)


def _source(corpus_dir: Path) -> list[dict]:
    return [json.loads(x) for x in (corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl").read_text(encoding="utf-8").splitlines()]


def _turns(lines: list[dict]) -> tuple[list[dict], list[dict]]:
    """(a person's turns, the interrupt notices), read from the transcript: user lines with no origin, not meta, not
    tool results, whose content is a string (not the runtime's own output, a slash command's) or a list of text and
    image blocks; a notice is such a list of one text block holding one of Claude Code's two notices whole."""
    turns, notices = [], []
    for d in lines:
        c = (d.get("message") or {}).get("content")
        if d.get("type") != "user" or d.get("isMeta") or "toolUseResult" in d:
            continue
        if isinstance(c, list) and len(c) == 1 and c[0].get("type") == "text" and c[0].get("text") in NOTICES:
            notices.append(d)
        elif isinstance(c, str) and not c.lstrip().startswith(RUNTIME_WORDS):
            turns.append(d)
        elif isinstance(c, list) and c and all(b.get("type") in ("text", "image") for b in c):
            turns.append(d)
    return turns, notices


def _walk(n: dict):
    yield n
    for c in n.get("children") or ():
        yield from _walk(c)


def _talk_of(doc: dict) -> dict[str, dict]:
    return {n["id"]: t for t in doc["talks"] for n in _walk(t)}


def _json(*args: str) -> object:
    p = asz_in_process(*args)
    assert p.returncode == 0, p.stdout + p.stderr
    return json.loads(p.stdout)


def _the_notices_are_in_the_talks_they_interrupted(root: Path, corpus_dir: Path) -> dict:
    src = _source(corpus_dir)
    turns, notices = _turns(src)
    assert (len(turns), len(notices)) == (7, 3)  # 4 prompts and 3 slash commands; 3 notices
    by_uuid = {d["uuid"]: d for d in src if "uuid" in d}
    doc = _json("conversation", SID, "--json", "--root", str(root))
    assert doc["summary"]["talks"] == len(turns)
    [row] = [r for r in _json("ls", "--json", "--root", str(root)) if r["id"] == SID]
    assert row["talks"] == len(turns)
    talk_of = _talk_of(doc)
    drawn = [n for t in doc["talks"] for n in _walk(t) if n.get("text") in NOTICES]
    assert [n["kind"] for n in drawn] == ["control.notice"] * len(notices)
    assert not [n for t in doc["talks"] for n in _walk(t) if n["kind"] == "message.external" and n.get("text") in NOTICES]
    for n, d in zip(drawn, notices):
        stopped = by_uuid[d["parentUuid"]]  # the stopped call's result (the refusal): its tool step is in the talk
        [use] = [b["tool_use_id"] for b in stopped["message"]["content"] if b.get("type") == "tool_result"]
        assert talk_of[n["id"]]["id"] == talk_of[f"tool/{use}"]["id"]
        assert n["at"] == int(datetime.fromisoformat(d["timestamp"].replace("Z", "+00:00")).timestamp() * 1000)
    return doc


def test_an_interrupt_is_the_runtimes_notice_in_the_talk_it_interrupted(root, corpus_dir, tmp_path):
    doc = _the_notices_are_in_the_talks_they_interrupted(root, corpus_dir)
    said = asz_in_process("conversation", SID, "--root", str(root)).stdout
    with_calls = sum(1 for t in doc["talks"] if any(n["kind"] == "llm.call" for n in _walk(t)))
    assert with_calls == 4  # the 4 prompts; the 3 slash commands' talks made no model call
    assert f"costliest talks: 3 of {with_calls} with model calls (of {doc['summary']['talks']} talks)" in said
    md = asz_in_process("export", SID, "--format", "md", "--root", str(root)).stdout
    assert len(re.findall(r"^## Talk \d+: ", md, re.M)) == doc["summary"]["talks"]
    assert not re.search(r"^## Talk \d+: \[Request interrupted", md, re.M)
    # labelled as what it is, from the adapter's fixed_notice (render 21), beside its words; no "Runtime notice" label
    assert len(re.findall(r"^\*\*Interrupted by the person\*\* · [^\n]+ · `notice/\d+/\d+`\n\n\[Request interrupted by user for tool use\]$", md, re.M)) == 3
    assert not re.search(r"Runtime notice[^\n]*\n\n\[Request interrupted", md) and "**Runtime notice (Running Post" in md  # others keep theirs
    out = tmp_path / "c.html"
    assert asz_in_process("export", SID, "--format", "html", "--out", str(out), "--root", str(root)).returncode == 0
    html = out.read_text(encoding="utf-8")
    assert html.count("<b>Interrupted by the person</b> <bdi>[Request interrupted by user for tool use]</bdi>") == 3
    text = asz_in_process("export", SID, "--format", "text", "--root", str(root)).stdout
    assert len(re.findall(r"^\[[^\]\n]+\] interrupt\n\| \[Request interrupted by user for tool use\]$", text, re.M)) == 3
    assert len(re.findall(r"<h2 id=\"talk/", html)) == doc["summary"]["talks"]
    audit = [json.loads(x) for x in asz_in_process("export", SID, "--format", "prose", "--audit", "--root", str(root)).stdout.splitlines()]
    assert audit[0]["lines"]["interrupt"] == 3 and sum(x.get("kind") == "interrupt" for x in audit[1:]) == 3
    hits = _json("search", "interrupted", "--json", "--root", str(root))
    assert sorted((h["kind"], h["step"].split("/")[0]) for h in hits if h["conversation"] == SID) == [("notice", "notice")] * 3
    from starlette.testclient import TestClient

    from asz_core.view.server import ViewState, create_app

    c = TestClient(create_app(ViewState(root)), base_url="http://127.0.0.1")
    [listed] = [r for r in c.get("/api/conversations").json()["conversations"] if r["id"] == SID]
    page = c.get(f"/api/c/{SID}/view").json()
    assert listed["talks"] == page["summary"]["talks"] == doc["summary"]["talks"]
    assert [n["kind"] for t in page["talks"] for n in _walk(t) if n.get("text") in NOTICES] == ["control.notice"] * 3
    labels = c.get(f"/api/c/{SID}/headings").json()["labels"]
    assert labels == {n["id"]: "Interrupted by the person" for t in page["talks"] for n in _walk(t) if n.get("text") in NOTICES}


def _as_landed_by(path: Path, version: str) -> None:
    """Rewrite a landed file as ``claude-code-local/<version>`` wrote it before 0.9.0: each interrupt notice flagged
    ``external_input`` with trigger ``external`` (the only difference between the two versions' lines of this
    source), the closing digest over those bytes."""
    lines = path.read_bytes().splitlines(keepends=True)
    head = json.loads(lines[0])
    body = [lines[0].replace(head["adapter"].encode(), f"claude-code-local/{version}".encode())]
    body += [x.replace(b'"flags":["notice"]', b'"trigger":"external","flags":["external_input"]') if b"Request interrupted" in x
             else x for x in lines[1:-1]]
    closing = json.loads(lines[-1])
    closing["digest"] = hashlib.sha256(b"".join(body)).hexdigest()
    os.chmod(path, 0o644)
    path.write_bytes(b"".join(body) + json.dumps(closing, separators=(",", ":")).encode() + b"\n")
    os.chmod(path, 0o444)


def test_a_root_an_earlier_adapter_landed_reads_the_notice_so_after_parse(base, corpus_dir, tmp_path):
    shutil.copytree(base / "projects" / PROJECT, tmp_path / "projects" / PROJECT)
    root = _collect(tmp_path, "--no-parse")
    [landed] = (root / SID / "streams" / "main").glob("transcript-*.sd")
    _as_landed_by(landed, "0.8.0")
    assert landed.read_bytes().count(b'"flags":["external_input"]') >= 3
    p = asz_in_process("parse", "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    _the_notices_are_in_the_talks_they_interrupted(root, corpus_dir)
    said = asz_in_process("conversation", SID, "--root", str(root)).stdout
    assert "Claude Code's interrupt notice as the runtime's notice, not a typed prompt" in said
    hits = _json("search", "interrupted", "--json", "--root", str(root))
    assert [h["kind"] for h in hits if h["conversation"] == SID] == ["notice"] * 3


def test_a_replayed_response_is_counted_and_drawn_once_where_it_belongs(root, base):
    src = [json.loads(x) for f in (base / "projects" / "-home-user-fieldtest").rglob("*.jsonl") if REPLAY in str(f)
           for x in f.read_text(encoding="utf-8").splitlines()]
    said = [d for d in src if d["type"] == "assistant"]
    usage = {d["message"]["id"]: d["message"]["usage"] for d in said}  # one per message id: a replay counts once
    assert len(said) == 4 and len(usage) == 3
    [row] = [r for r in _json("ls", "--json", "--root", str(root)) if r["id"] == REPLAY]
    assert row["llm_calls"] == len(usage)
    assert (row["usage"]["in"], row["usage"]["out"]) == (sum(u["input_tokens"] for u in usage.values()),
                                                         sum(u["output_tokens"] for u in usage.values()))
    doc = _json("conversation", REPLAY, "--json", "--root", str(root))
    nodes = {n["id"]: n for t in doc["talks"] for n in _walk(t)}
    call = nodes["call/msg_fr32b"]
    assert len(call["refs"]) == 2 and call["attrs"]["replayed_in"] == [AGENT]  # both copies cited, the copy named
    assert [n["text"] for n in nodes.values() if n["kind"] == "message.assistant" and n.get("text") == "FR32 parent done"] == ["FR32 parent done"]
    assert _talk_of(doc)["call/msg_fr32b"]["stream"] == "main"
    [out] = [n for n in nodes.values() if n["kind"] == "agent.output"]
    assert out["text"] == "FR32 subagent answer" and out["stream"] == AGENT
    md = asz_in_process("export", REPLAY, "--format", "md", "--root", str(root)).stdout
    assert md.count("\nFR32 parent done\n") == 1 and "Agent output" in md and "FR32 parent done" not in md.split("## Talk 2")[1]
    assert f"· replayed in {AGENT} (drawn once, here)* · `call/msg_fr32b`" in md


def test_an_orphan_sidechain_line_is_its_own_group_as_the_head_counts_it(root, base):
    src = [json.loads(x) for x in (base / "projects" / "-home-user-fieldtest" / f"{ORPHAN}.jsonl").read_text(encoding="utf-8").splitlines()]
    side = [d for d in src if d["isSidechain"]]
    assert len(side) == 1 and not any(b.get("type") == "tool_use" for d in src if d["type"] == "assistant" for b in d["message"]["content"])
    usage = side[0]["message"]["usage"]
    doc = _json("conversation", ORPHAN, "--json", "--root", str(root))
    lane = doc["summary"]["usage_by_lane"]["subagent"]
    assert (lane["in"], lane["out"]) == (usage["input_tokens"], usage["output_tokens"])  # the head counts it a sub-agent's
    [group] = [t for t in doc["talks"] if t.get("orphan")]  # no call and no prompt of its own: a group of its own
    assert group["sidechain"] is True and [n["text"] for n in _walk(group) if n.get("text")] == [side[0]["message"]["content"][0]["text"]]
    assert not any(n.get("sidechain") for t in doc["talks"] for n in _walk(t) if n is not t)  # no step marked in place
    md = asz_in_process("export", ORPHAN, "--format", "md", "--root", str(root)).stdout
    assert md.count(f"`{group['id']}` · a sub-agent's lines, written in its parent's transcript · parent call not found\n") == 1
    assert md.count("**Assistant** · ") == len(src) - 1  # the main reply, and the group's


def _rates(model: str) -> dict[str, Decimal] | None:
    """USD per token of ``model`` read from the shipped price table's file (its key, or the key and a dated suffix)."""
    import yaml

    table = yaml.safe_load((Path(__file__).parents[2] / "asz_core" / "view" / "prices.yaml").read_text(encoding="utf-8"))["models"]
    for key, p in table.items():
        if model == key or re.fullmatch(re.escape(key) + r"-\d{8}", model):
            return {k: Decimal(str(p[k])) / 1_000_000 for k in ("input", "output", "cache_write", "cache_read")}
    return None


def _source_calls(lines: list[dict]) -> tuple[dict[str, tuple[str, dict]], list[list[str]]]:
    """From a transcript's lines: ``{message id: (model, its last usage)}``, and the message ids of each talk, a talk
    opened by each person's turn (:func:`_turns`), in file order."""
    turns = {id(d) for d in _turns(lines)[0]}
    calls: dict[str, tuple[str, dict]] = {}
    talks: list[list[str]] = []
    for d in lines:
        if id(d) in turns:
            talks.append([])
        elif d.get("type") == "assistant" and isinstance(u := d["message"].get("usage"), dict):
            mid = d["message"]["id"]
            if mid not in calls and talks:
                talks[-1].append(mid)
            calls[mid] = (d["message"]["model"], u)
    return calls, talks


def _priced(model: str, u: dict) -> Decimal | None:
    r = _rates(model)
    if r is None:
        return None
    assert not (u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens")  # no 1-hour writes in these lines
    assert u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"] <= 200_000  # no long context
    return (u["input_tokens"] * r["input"] + u["output_tokens"] * r["output"]
            + u["cache_creation_input_tokens"] * r["cache_write"] + u["cache_read_input_tokens"] * r["cache_read"])


def _cents(x: Decimal) -> str:
    c = x.quantize(Decimal("0.01"), ROUND_HALF_EVEN)
    return "<$0.01" if not c and x > 0 else f"${c:,.2f}"


def test_each_model_call_and_talk_says_its_cost_as_the_source_prices_it(root, base, corpus_dir):
    """close43 "Not done" (trial 43c F7): the page's call row and talk line, md's and html's call line, say each call's
    tokens and cost; a talk's is the sum of its calls, the conversation's the sum of all; a model with no price says so."""
    from starlette.testclient import TestClient

    from asz_core.view.server import ViewState, create_app

    c = TestClient(create_app(ViewState(root)), base_url="http://127.0.0.1")
    field = base / "projects" / "-home-user-fieldtest"
    for sid, lines in ((SID, _source(corpus_dir)),
                       (UNPRICED, [json.loads(x) for x in (field / f"{UNPRICED}.jsonl").read_text(encoding="utf-8").splitlines()])):
        calls, talks = _source_calls(lines)
        assert len(calls) == (15 if sid == SID else 2)
        want = {m: _priced(model, u) for m, (model, u) in calls.items()}
        page, costs = c.get(f"/api/c/{sid}/view").json(), c.get(f"/api/c/{sid}/headings").json()["costs"]
        nodes = {n["id"]: n for t in page["talks"] for n in _walk(t)}
        md = asz_in_process("export", sid, "--format", "md", "--root", str(root)).stdout
        for m, (model, u) in calls.items():
            n, got = nodes[f"call/{m}"], costs[f"call/{m}"]
            assert (n["usage"]["in"], n["usage"]["out"], n["usage"]["cache_read"], n["usage"]["cache_write"]) == (
                u["input_tokens"], u["output_tokens"], u["cache_read_input_tokens"], u["cache_creation_input_tokens"])
            said = _cents(want[m]) if want[m] is not None else f"unpriced (no price for {model})"
            assert (got["text"], got["usd_exact"] and Decimal(got["usd_exact"])) == (said, want[m])
            assert re.search(rf"cache write {u['cache_creation_input_tokens']:,}(?: \(last snapshot, no end recorded\))? · "
                             rf"cost {re.escape(said)}\* · `call/{m}`", md)
        with_calls = [ids for ids in talks if ids]
        drawn = [costs[t["id"]] for t in page["talks"] if t["id"] in costs]
        assert len(drawn) == len(with_calls)
        for got, ids in zip(drawn, with_calls):
            priced = [want[m] for m in ids if want[m] is not None]
            assert Decimal(got["usd_exact"]) == sum(priced, Decimal(0))
            assert got["unpriced"] == sorted({calls[m][0] for m in ids if want[m] is None})
        total = sum((x for x in want.values() if x is not None), Decimal(0))
        assert Decimal(page["summary"]["cost"]["usd_exact"]) == total == sum(Decimal(x["usd_exact"]) for x in drawn)
        if sid == UNPRICED:
            assert drawn[0]["text"] == f"{_cents(total)} + unpriced (no price for {NO_PRICE})" and not re.search(r"Model call [^\n]*\$0\.00", md)


def test_the_page_shortens_an_id_only_where_the_prefix_names_it_alone(root):
    """close43 "Not done" (trial 43c F9): the page's list shortened ids to 8 characters, ``f1e1d000`` here the start
    of three conversations; it shows each as every list does (whole where a prefix would reach its last group)."""
    from starlette.testclient import TestClient

    from asz_core.view.server import ViewState, create_app

    c = TestClient(create_app(ViewState(root)), base_url="http://127.0.0.1")
    listed = c.get("/api/conversations").json()
    ids = sorted(r["id"] for r in listed["conversations"])
    assert ids == sorted([SID, REPLAY, ORPHAN, UNPRICED])
    shown = listed["shown_ids"]
    assert shown[SID] == SID[:8]  # no other id starts with its 8 characters
    for i in (REPLAY, ORPHAN, UNPRICED):  # they differ only in the UUID's last group: shown whole, never a prefix
        assert shown[i] == i and sum(o.startswith(i[:8]) for o in ids) == 3
    for i, p in shown.items():
        assert [o for o in ids if o.startswith(p)] == [i]
