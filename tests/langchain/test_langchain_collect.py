"""Real captures end to end: receiver → inbox → asz collect → verify → parse → the asz.view document.

Expected numbers are read from the captures themselves (never hand-copied): per conversation (project + thread key)
the traces (talks), llm runs (calls), tool runs (tools, the ones with an error failed) and the root's human message
(the talk's label).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from langchain_helpers import document_steps

from cli_helpers import expected_langsmith as _expected
from langchain_helpers import multipart_runs



def _check_conversation(run_asz, root: Path, sid: str, want: dict) -> None:
    doc = json.loads(run_asz("conversation", sid, "--json", "--root", str(root)).stdout)
    s = doc["summary"]
    assert s["state"] == "verified" and not s["problems"], s
    main_talks = [t for t in doc["talks"] if t["stream"] == "main"]
    assert len(main_talks) == len(want["talks"]), sid
    assert sorted(t.get("label", "") for t in main_talks) == sorted(want["labels"]), sid
    if want["labels"]:
        assert s["title"] == want["labels"][0]
    steps = [n for t in doc["talks"] for n in document_steps(t)]
    calls = [n for n in steps if n["kind"] == "llm.call"]
    assert len(calls) == want["llm"], sid
    for n in calls:  # inputs and outputs landed as provider bodies, joined exactly to their call
        assert [b["role"] for b in n.get("provider_bodies", [])] == ["request", "response"], n["id"]
    assert s["provider_bodies"] == 2 * want["llm"] and s["captured_prompts"] == want["llm"]
    tools: dict[str, list[bool]] = {}
    for n in steps:
        if n["kind"] in ("tool", "agent.call"):
            tools.setdefault(n["name"], []).append(bool(n.get("failed")))
            assert n.get("result_state") == "available", n
    assert {k: sorted(v) for k, v in tools.items()} == {k: sorted(v) for k, v in want["tools"].items()}, sid
    assert s["unresolved"] == 0, doc["unresolved"]


def test_captures_land_verify_parse_and_render(tmp_path, receiver_factory, run_asz, captures):
    """Every recorded request replayed: each conversation lands, verifies, parses and shows its talks, calls and tools."""
    root = tmp_path / "root"
    r = receiver_factory(root)
    posts = []
    for req in captures:
        assert r.replay(req)[0] == 202
        posts += [run for op, _, run in multipart_runs((req / "body.bin").read_bytes()) if op == "post"]
    out = run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root)).stdout
    assert "errors=0" in out and "conflicts=0" in out, out
    verified = run_asz("verify", "--root", str(root)).stdout
    assert "rebuilt to their digest" in verified, verified
    parsed = run_asz("parse", "--root", str(root))
    assert "error" not in parsed.stderr
    want = _expected(posts)
    assert want
    for sid, w in want.items():
        assert (root / sid).is_dir(), f"{sid} did not land"
        _check_conversation(run_asz, root, sid, w)
    plain = [sid for sid in want if "thread-plain" in sid]
    if plain:
        assert len(want[plain[0]]["talks"]) == 1 and want[plain[0]]["labels"] == ["Is prod-1 healthy?"]
    errors = [sid for sid in want if "tool-error" in sid]
    if errors:
        assert any(any(v) for v in want[errors[0]]["tools"].values()), "the tool-error capture has a failed tool"
    # a second pass lands nothing new; the receiver's inbox is in the root, so --root alone names it
    again = run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root)).stdout
    assert "landed=0" in again, again
    alone = run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root))
    assert "landed=0" in alone.stdout and "errors=0" in alone.stdout and "no such source root" not in alone.stderr, alone.stderr


def test_corpus_upload_bodies_land_and_assemble(tmp_path, receiver_factory, run_asz, corpus_dir):
    """The recorded /runs/batch upload bodies (Python tracer and JS wrapper) land, verify and assemble."""
    base = corpus_dir / "langchain"
    files = sorted(base.glob("*runs_batch_POST.json")) + sorted(base.glob("*langsmith_js*.json"))
    if not files:
        pytest.skip(f"no upload bodies under {base}")
    root = tmp_path / "root"
    r = receiver_factory(root)
    posts = []
    for f in files:
        d = json.loads(f.read_text())
        doc = d.get("json", d)
        status, answer = r.send("POST", "/runs/batch", json.dumps(doc).encode(), {"Content-Type": "application/json"})
        assert status == 202, answer
        posts += doc.get("post", [])
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    run_asz("verify", "--root", str(root))
    want = _expected(posts)
    for sid, w in want.items():
        _check_conversation(run_asz, root, sid, w)


def test_config_given_with_flag_reaches_the_adapter(tmp_path, receiver_factory, run_asz, captures):
    """provider_bodies: false in a --config file (not ./asz.yaml) lands no provider body (second fresh-user report)."""
    counts = {}
    for setting in ("true", "false"):
        root = tmp_path / f"root-{setting}"
        r = receiver_factory(root)
        for c in captures:
            assert r.replay(c)[0] == 202
        r.stop()
        cfg = tmp_path / f"other-{setting}.yaml"
        cfg.write_text(f"storage:\n  root: {root}\nadapters:\n  - name: langsmith-ingest\n    provider_bodies: {setting}\n")
        run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--config", str(cfg), "--root", str(root), "--source", str(root))
        counts[setting] = len(list(root.rglob("provider_body-*.sd")))
    assert counts["true"] > 0 and counts["false"] == 0, counts


def test_a_decorated_functions_answer_is_the_talks_reply(tmp_path, run_asz):
    """@traceable f(q) -> answer, through collect, parse and the document: the talk is labelled with q and replies with the answer."""
    root = tmp_path / "root"
    inbox = root / "_ingest" / "langsmith" / "inbox"
    inbox.mkdir(parents=True)
    traced = {"metadata": {"thread_id": "th", "ls_method": "traceable"}, "runtime": {"library": "langsmith"}}
    post = {"id": "f1", "trace_id": "f1", "session_name": "p", "run_type": "chain", "name": "f", "extra": traced,
            "start_time": "2026-10-01T10:00:00.000001+00:00", "dotted_order": "20261001T100000000001Zf1", "inputs": {"q": "what is unicode"}}
    patch = {"id": "f1", "trace_id": "f1", "dotted_order": "20261001T100000000001Zf1", "end_time": "2026-10-01T10:00:01.000001+00:00",
             "outputs": {"output": "answer to what is unicode"}}
    (inbox / "001.jsonl").write_bytes(json.dumps({"op": "post", "id": "f1", "run": post}).encode() + b"\n"
                                      + json.dumps({"op": "patch", "id": "f1", "run": patch}).encode() + b"\n")
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    [conv] = [p.name for p in (root / "_conversations").iterdir()]
    doc = json.loads(run_asz("conversation", conv, "--json", "--root", str(root)).stdout)
    assert [(t.get("label"), t.get("reply")) for t in doc["talks"]] == [("what is unicode", "answer to what is unicode")]
    assert doc["summary"]["kinds"].get("message.assistant") == 1
