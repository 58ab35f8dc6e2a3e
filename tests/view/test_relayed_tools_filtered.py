"""A sub-agent's tool calls seen only in its parent's ``progress`` records are said, and the note of its model calls
speaks of what a report covers (trial 49d F1, trial 49a F3; fix49i).

Real input: the corpus's 8463c716, whose main file holds 19 progress records copying 12 model calls of sub-agent
a7be2f0 and, in those copies, its 19 tool calls (tool_use blocks: Bash 11, Read 7, Glob 1), sent alone (its
``subagents/`` folder missing) by host w1, and the corpus's sample project sent by host w2, both to one loopback
receiver. Each of the 19 is a tool step under its relayed model call, counted in every tool figure (render 54,
fix50a: tests/view/test_relayed_tools_counted.py), and the problem line says them by number and name (render 53 said
them alone, in no tool count). ``asz usage`` notes the relayed calls only as far as its
filters (instance, project, model, the --since/--until window) keep them, in every report; ``asz ls`` shows a
conversation's problems on its own row alone. Every count is made here from the source lines."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from asz_core.view.usage_relayed import RELAYED_PREFIX
from asz_core.view.usage_report import VIEWS
from cli_helpers import asz_in_process, asz_ok

PROJECT = "-home-user-spotter"
SID = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
OTHER = "-home-user-sample-project"
CUT = "2026-02-11T22:38:20Z"  # a window's start between the last copies of the 6th and the 7th relayed call


def relayed(main: Path) -> dict[str, dict]:
    """message id -> ``{"ts", "model", "usage", "tools"}`` of each sub-agent reply the main file's progress records
    copy: the timestamp, model and usage of its last copy, and the tool calls (id -> name) all its copies hold."""
    out: dict[str, dict] = {}
    for line in main.read_bytes().splitlines():
        d = json.loads(line)
        data = d.get("data") if d.get("type") == "progress" else None
        m = data.get("message") if isinstance(data, dict) and data.get("type") == "agent_progress" else None
        if not (isinstance(m, dict) and m.get("type") == "assistant"):
            continue
        msg = m["message"]
        c = out.setdefault(msg["id"], {"tools": {}})
        c.update(ts=d["timestamp"], model=msg["model"], usage=msg.get("usage") or {})
        c["tools"].update((b["id"], b["name"]) for b in msg.get("content") or [] if b.get("type") == "tool_use")
    return out


def own_tools(main: Path) -> int:
    """How many tool_use blocks the main thread's own assistant lines hold (each id once)."""
    ids = set()
    for line in main.read_bytes().splitlines():
        d = json.loads(line)
        if d.get("type") == "assistant":
            ids |= {b["id"] for b in d["message"].get("content") or [] if isinstance(b, dict) and b.get("type") == "tool_use"}
    return len(ids)


COUNTED = "counted as tool calls under their model calls"  # render 54; render 53: "in no tool count"


def said(calls: dict[str, dict], how: str = COUNTED) -> str:
    """The problem line's words of the tool calls of ``calls``, made from their names: most first, then by name."""
    names: dict[str, int] = {}
    for c in calls.values():
        for name in c["tools"].values():
            names[name] = names.get(name, 0) + 1
    n = sum(names.values())
    listed = ", ".join(f"{k} {v}" for k, v in sorted(names.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"and {n} tool call(s) of theirs: {listed}, {how}"


@pytest.fixture(scope="module")
def team(corpus_dir, tmp_path_factory) -> dict:
    """The receiving root of w1 (8463c716's main file alone) and w2 (the sample project)."""
    from asz_core.export.push import push
    from asz_core.export.receive import Receiver
    from asz_core.export.settings import ExportConfig

    main = corpus_dir / "claude-code/projects" / PROJECT / f"{SID}.jsonl"
    other = corpus_dir / "claude-code/projects" / OTHER
    if not main.is_file() or not other.is_dir():
        pytest.skip(f"{main} or {other} is absent")
    base = tmp_path_factory.mktemp("relayed-tools")
    (base / "w1" / "src" / PROJECT).mkdir(parents=True)
    shutil.copyfile(main, base / "w1" / "src" / PROJECT / main.name)
    shutil.copytree(other, base / "w2" / "src" / OTHER)
    rcv = Receiver(base / "team", "127.0.0.1:0").start().serve_in_thread()
    try:
        for host in ("w1", "w2"):
            p = asz_in_process("collect", "--once", "--adapter", "claude-code-local", "--source", str(base / host / "src"),
                               "--root", str(base / host / "root"))
            assert p.returncode == 0, p.stderr
            rep = push(base / host / "root", ExportConfig(instance_id=host), endpoint=f"grpc://{rcv.address}")
            assert rep.ok and rep.files, rep.problems
    finally:
        rcv.stop()
    return {"root": str(base / "team"), "main": main, "calls": relayed(main)}


def _line(problems: list[str]) -> str:
    (line,) = [p for p in problems if p.startswith(RELAYED_PREFIX)]
    return line


def test_the_problem_line_says_the_copies_tool_calls(team):
    calls = team["calls"]
    assert len(calls) == 12 and said(calls) == f"and 19 tool call(s) of theirs: Bash 11, Read 7, Glob 1, {COUNTED}"
    s = json.loads(asz_ok("conversation", SID[:8], "--json", "--root", team["root"]))["summary"]
    assert s["kinds"]["tool"] == own_tools(team["main"]) + 19 == 196  # each a tool step (render 54)
    assert _line(s["problems"]).endswith(f"; {said(calls)}, from the copies of each request and its result")
    assert said(calls) in asz_ok("conversation", SID[:8], "--root", team["root"])


def test_a_render_53_copy_is_drawn_with_them_in_no_tool_count(team, tmp_path):
    """A copy as render 53 drew it (the 19 in no tool count, no tool step of theirs) checks against the root as render
    53; the same bytes said to be render 54 do not (render 54 draws each of them)."""
    import sys

    from asz_core.reading.export_render import drawing

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reading"))
    from reading_helpers import as_copy

    with drawing(53):
        s = json.loads(asz_ok("conversation", SID[:8], "--json", "--root", team["root"]))["summary"]
        asz_ok("export", SID[:8], "--root", team["root"], "--format", "md", "--out", str(tmp_path / "c.md"))
    assert s["kinds"]["tool"] == own_tools(team["main"]) == 177  # render 53: the 19 in no tool count
    assert f"; {said(team['calls'], 'in no tool count')} (asz conversation's tools" in _line(s["problems"])
    data = (tmp_path / "c.md").read_bytes()
    body = json.loads((tmp_path / "c.md.manifest.json").read_bytes())
    relayed_ids = {t for c in team["calls"].values() for t in c["tools"]}
    assert said(team["calls"], "in no tool count").encode() in data and len(relayed_ids) == 19
    assert not [t for t in relayed_ids if f"`tool/{t}`".encode() in data]  # no step of theirs drawn
    for render, rc in ((53, 0), (54, 1)):
        got = asz_in_process("verify", "--export", as_copy(tmp_path, f"r{render}.md", data, {**body, "render": render}),
                             "--root", team["root"])
        assert got.returncode == rc, (render, got.stdout[-500:])


def test_a_render_52_copy_is_drawn_without_them(team):
    from asz_core.reading.export_render import RENDER, drawing

    assert RENDER >= 53
    with drawing(52):
        s = json.loads(asz_ok("conversation", SID[:8], "--json", "--root", team["root"]))["summary"]
    line = _line(s["problems"])
    assert "tool call(s) of theirs" not in line and line.endswith("(a call's own records, when they land, are what asz reads)")
    out = Path(team["root"]).parent / "copy.md"
    asz_ok("export", SID[:8], "--root", team["root"], "--format", "md", "--out", str(out))
    assert said(team["calls"]) in out.read_text()
    assert asz_in_process("verify", "--export", str(out), "--root", team["root"]).returncode == 0


def _at(ts: str) -> datetime:
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))


def _note(root: str, view: str, *args: str) -> str:
    p = asz_in_process("usage", view, "--root", root, "--tz", "UTC", *args)
    assert p.returncode == 0, p.stderr
    notes = [x for x in p.stderr.splitlines() if RELAYED_PREFIX in x]
    assert len(notes) <= 1, notes
    return notes[0] if notes else ""


def _expected(calls: dict[str, dict]) -> str:
    """The start of the note of ``calls``: their number, model and four counts as the source lines carry them."""
    (model,) = {c["model"] for c in calls.values()}
    u = [sum(c["usage"].get(k, 0) for c in calls.values()) for k in
         ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")]
    return (f"{RELAYED_PREFIX}{len(calls)} model call(s) of sub-agent(s) a7be2f0 whose own transcript did not land, seen "
            f"only as the copies the runtime wrote into this conversation's file as progress records ({model} {len(calls)} "
            f"call(s), in {u[0]:,}, out {u[1]:,}, cache_read {u[2]:,}, cache_write {u[3]:,})")


@pytest.mark.parametrize("args, kept", [
    ((), "all"), (("--instance", "w1"), "all"), (("--instance", "w2"), "none"),
    (("--project", "spotter"), "all"), (("--project", "demo"), "none"),
    (("--model", "haiku"), "all"), (("--model", "opus"), "none"),
    (("--until", "2026-02-11T22:30:00Z"), "none"), (("--since", "2026-02-11T22:39:00Z"), "none"),
    (("--since", CUT), "after"), (("--since", "2026-02-11", "--until", "2026-02-11"), "all"),
])
def test_the_usage_note_speaks_of_what_the_filters_keep(team, args, kept):
    calls = team["calls"]
    if kept == "after":
        calls = {k: c for k, c in calls.items() if _at(c["ts"]) >= _at(CUT)}
        assert 0 < len(calls) < 12
    note = _note(team["root"], "daily", *args)
    if kept == "none":
        assert note == "", args
        return
    assert note.startswith(f"asz usage: note: 8463c716: {_expected(calls)}: counted from the last copy"), (args, note)
    assert f"; {said(calls)}, from the copies" in note


def test_every_report_notes_them_for_w1_alone(team):
    for view in VIEWS:
        assert _note(team["root"], view, "--instance", "w2") == "", view
        assert _note(team["root"], view, "--instance", "w1").startswith("asz usage: note: 8463c716: " + _expected(team["calls"])), view


def test_asz_ls_says_a_problem_on_its_own_row_only(team):
    for args, shown in ((("--instance", "w2"), False), (("--project", "demo"), False), (("--instance", "w1"), True)):
        p = asz_in_process("ls", "--root", team["root"], *args)
        assert p.returncode == 0, p.stderr
        assert ("8463c716" in p.stdout + p.stderr) is shown, args
