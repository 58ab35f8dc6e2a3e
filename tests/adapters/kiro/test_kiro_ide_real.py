"""A real Kiro IDE 1.0.411 session (tests/adapters/kiro/real_ide, its README says whence) read as Kiro wrote it
(trial 29c): its file changes and shell runs counted by the IDE's own tool names and Kiro's classification of each
call (F1, F9), its ``session_start`` read as the system prompt (F2), its calls with no Reasoning line under
``session.json``'s ``modelId`` (F6), its tool approvals and context usage drawn, searched and exported (F3).

Every expected figure is counted from the fixture's bytes here (``json`` over its lines), never from asz's output.
Never reads the machine's own ~/.kiro: the copy's home is passed with ``--source``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import asz_in_process

HERE = Path(__file__).parent / "real_ide"
SESSION = "sess_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
SOURCE = HERE / "9f3c1d0b7a4e2856" / SESSION


def _asz(*args: str) -> str:
    p = asz_in_process(*args)
    assert p.returncode == 0, f"asz {' '.join(args)} exited {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p.stdout


def _lines() -> list[dict]:
    return [json.loads(x) for x in (SOURCE / "messages.jsonl").read_text(encoding="utf-8").splitlines()]


def _calls(*, kind: str | None = None, name: str | None = None) -> list[dict]:
    return [ln["payload"] for ln in _lines() if ln["payload"]["type"] == "tool_call"
            and (kind is None or ln["payload"].get("kind") == kind) and (name is None or ln["payload"]["toolName"] == name)]


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("kiro-ide-home")
    shutil.copytree(HERE / "9f3c1d0b7a4e2856", home / ".kiro" / "sessions" / "9f3c1d0b7a4e2856")
    root = home.parent / (home.name + "-root")
    p = asz_in_process("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root))
    assert p.returncode == 0 and " errors=0 " in p.stdout and "records=68 " in p.stdout, p.stdout + p.stderr
    assert "could not describe" not in p.stderr  # session_start is one this dialect describes (F2)
    return root


@pytest.fixture(scope="module")
def doc(root: Path) -> dict:
    return json.loads(_asz("conversation", SESSION, "--json", "--root", str(root)))


def _nodes(n):
    if isinstance(n, list):
        for x in n:
            yield from _nodes(x)
    elif isinstance(n, dict):
        if "kind" in n:
            yield n
        for c in n.get("children", ()):
            yield from _nodes(c)


def test_the_fixture_is_the_cited_session() -> None:
    lines = _lines()
    assert len(lines) == 67 and json.loads((SOURCE / "session.json").read_text(encoding="utf-8"))["modelId"] == "auto"


def test_file_changes_and_shell_runs_are_counted_as_the_file_says(root: Path, doc: dict) -> None:
    """F1: ``fs_write`` (kind edit, actionType create), ``str_replace`` (kind edit) and ``delete_file`` (kind delete)
    are 3 file changes, each with its own changes record; the 2 ``execute_pwsh`` calls (kind execute) are 2 shell
    runs; nothing is left in ``changes_not_derived``."""
    edits, deletes = _calls(kind="edit"), _calls(kind="delete")
    shells = _calls(name="execute_pwsh")
    assert (len(edits), len(deletes), len(shells)) == (2, 1, 2)
    assert {c["kind"] for c in shells} == {"execute"}
    (row,) = json.loads(_asz("ls", "--json", "--root", str(root)))
    assert (row["changes"], row["changes_not_derived"], row["bash_runs"]) == (len(edits) + len(deletes), 0, len(shells))
    assert row["changes_lines_unknown"] == len(edits) + len(deletes) and row["lines_added"] == 0  # no record holds a file's whole before and after
    wanted = {c["toolCallId"]: (c["toolName"], c["filePath"].replace("\\", "/")) for c in edits + deletes}
    got = {c["tool"]: (c["tool_name"], c["changes"][0]["path"]) for c in doc["workspace_changes"]}
    assert got == wanted
    ops = {c["tool_name"]: c["changes"][0] for c in doc["workspace_changes"]}
    created = next(c for c in edits if c["actionType"] == "create")
    assert ops["fs_write"]["operation"] == "create" and ops["fs_write"]["before"] == {"present": None, "bytes": None}
    assert ops["fs_write"]["after"]["bytes"] == len(created["args"]["text"].encode())  # the whole new content, args.text
    assert ops["str_replace"]["operation"] == "modify" and ops["str_replace"]["diff"] == "unavailable"
    assert ops["delete_file"]["operation"] == "delete" and ops["delete_file"]["after"] == {"present": False, "bytes": None}
    tools = {n["name"]: n for n in _nodes(doc["talks"]) if n["kind"] == "tool"}
    assert tools["delete_file"]["changes"] == [deletes[0]["toolCallId"]]  # the Changes tab joins it to its step


def test_kiro_s_own_classification_of_each_call_is_kept(root: Path) -> None:
    """F9: each call record keeps ``status``, ``kind``, ``actionType`` and ``filePath`` as written (a data part after
    the call), no longer listed under ``dropped``."""
    (sd,) = (root / SESSION / "streams" / "main").glob("transcript-*.sd")
    recs = {r.get("id"): r for r in map(json.loads, sd.read_text(encoding="utf-8").splitlines()[1:-1])}
    for c in _calls():
        rec = recs[f"{c['toolCallId']}-call"]
        kept = [p["data"] for p in rec["parts"] if p["k"] == "data" and p["data"].get("schema") != "changes/1"]
        assert kept == [{k: c[k] for k in ("status", "kind", "actionType", "filePath") if k in c}]
        assert not any("kind" in d["what"] for d in rec.get("dropped", ()))


def test_session_start_is_the_system_prompt(root: Path, doc: dict) -> None:
    """F2: the last line, ``session_start``, is Kiro's system prompt: flagged ``system_prompt`` (and ``injected``),
    its ``content`` drawn as a context injection in the one talk; no problem, no ``!``."""
    (start,) = [ln for ln in _lines() if ln["payload"]["type"] == "session_start"]
    s = doc["summary"]
    assert s["undescribed"] == 0 and not s.get("problems") and s["talks"] == 1
    (inj,) = [n for n in _nodes(doc["talks"]) if n["kind"] == "context.injection"]
    assert inj["text"] == start["payload"]["content"] and set(inj["flags"]) == {"injected", "system_prompt"}
    assert "!" not in _asz("ls", "--root", str(root)).splitlines()[1].split()[-1]
    hidden = json.loads(_asz("conversation", SESSION, "--json", "--root", str(root), "--hide", "system_prompt"))
    assert not [n for n in _nodes(hidden["talks"]) if n["kind"] == "context.injection" and n.get("text")]


def _requests(lines: list[dict]) -> list[list[dict]]:
    """The model requests by docs/adapters/kiro.md's rule (Calls): stretches of model lines, no hand-back between."""
    model, hand_back = {"assistant", "tool_call", "sub_agent_start"}, {
        "tool_result", "sub_agent_complete", "user", "turn_start", "turn_end", "tombstone"}
    out, open_ = [], False
    for ln in lines:
        t = ln["payload"]["type"]
        if t in model:
            if not open_:
                out.append([])
            out[-1].append(ln["payload"])
            open_ = True
        elif t in hand_back:
            open_ = False
    return out


def test_calls_with_no_reasoning_line_take_the_session_model(root: Path, doc: dict) -> None:
    """F6: a request with a Reasoning line is counted under its ``reasoningModelId``; one without, under
    ``session.json``'s ``modelId`` (``auto``), and so are the turn's credits; Kiro's ``usage_summary.requestIds``
    lists as many requests as asz groups. Trial 34a F8: the Reasoning lines name ``qdev::auto``, the session's own
    model ``auto`` under Kiro's service name, so every call and the credits are one row, ``auto`` (before: ``auto 5``
    and ``qdev::auto 7``, the credits all on ``auto``)."""
    reqs = _requests(_lines())
    named = [r for r in reqs if any(p.get("reasoningModelId") for p in r)]
    assert {p["reasoningModelId"] for r in named for p in r if p.get("reasoningModelId")} == {"qdev::auto"}
    (usage,) = [ln["payload"] for ln in _lines() if ln["payload"]["type"] == "usage_summary"]
    assert doc["summary"]["llm_calls"] == len(reqs) == len(usage["requestIds"]) == 12
    by_model = {}
    for n in _nodes(doc["talks"]):
        if n["kind"] == "llm.call":
            by_model[n.get("model")] = by_model.get(n.get("model"), 0) + 1
    session = json.loads((SOURCE / "session.json").read_text(encoding="utf-8"))["modelId"]
    assert (session, len(named), len(reqs) - len(named)) == ("auto", 7, 5)  # the premise: two names, one model
    assert by_model == {"auto": len(reqs)}  # the page's calls, as asz usage's
    out = _asz("usage", "model", "--root", str(root))
    rows = {ln.split()[0]: ln.split()[1] for ln in out.splitlines()[1:] if ln.split() and ln.split()[1].isdigit()}
    assert rows == {"auto": str(len(reqs)), "total": str(len(reqs))}
    assert f"auto {round(usage['promptTurnSummaries'][0]['usage'], 3)}; total" in out
    assert doc["summary"]["models"] == ["auto"]
    landed = b"".join(f.read_bytes() for f in root.glob(f"{SESSION}/streams/main/transcript-*.sd"))
    # the landed records keep the name Kiro gave: one per Reasoning line
    assert landed.count(b'"model":"qdev::auto"') == sum(1 for r in named for p in r if p.get("reasoningModelId")) > 0


def test_approvals_and_context_usage_are_drawn_searched_and_exported(root: Path, doc: dict) -> None:
    """F3: each ``pending_interaction`` / ``interaction_resolved`` line and each ``contextUsage`` line is a notice
    step, counted in coverage; ``asz search always-accept`` finds the person's always-allow; md and text exports say
    it."""
    lines = _lines()
    asked = [ln["payload"] for ln in lines if ln["payload"]["type"] == "pending_interaction"]
    answered = [ln["payload"] for ln in lines if ln["payload"]["type"] == "interaction_resolved"]
    usage = [ln["payload"] for ln in lines if ln["payload"]["type"] == "session_metadata" and ln["payload"]["key"] == "contextUsage"]
    assert (len(asked), len(answered), len(usage)) == (4, 4, 12)
    notices = [n["text"] for n in _nodes(doc["talks"]) if n["kind"] == "control.notice" and n.get("text", "").startswith(("tool_approval", "approval", "context usage"))]
    assert sorted(notices) == sorted(
        [f"tool_approval asked: {a['question']}; options: {', '.join(o['optionId'] for o in a['options'])}" for a in asked]
        + [f"approval answered: {a['selectedOption']} ({a['outcome']})" for a in answered]
        + [f"context usage: {u['value']['usagePercentage']!r} %" for u in usage])
    content = {"user", "assistant", "tool_call", "tool_result", "session_start", "pending_interaction", "interaction_resolved"}
    n = sum(1 for ln in lines if ln["payload"]["type"] in content or ln["payload"].get("key") == "contextUsage")
    assert doc["summary"]["coverage"] == {"cited": n, "records": n, "by_node": n, "listed": 0}
    always = [a for a in answered if a["selectedOption"] == "always-accept"]
    assert len(always) == 1
    hits = _asz("search", "always-accept", "--root", str(root))
    assert "approval answered: «always»-«accept» (selected)" in hits
    assert "approval answered: always-accept (selected)" in _asz("export", SESSION, "--root", str(root), "--format", "md")
    assert "approval answered: always-accept (selected)" in _asz("export", SESSION, "--root", str(root), "--format", "text")


def test_the_ide_s_other_files_are_skipped_as_what_they_are(tmp_path: Path) -> None:
    """F7: a session folder's ``snapshots/``, ``sub-executions/`` and ``publish.cursor`` (named in the fixture's
    README; placeholders here) are skipped, each with what it is, not as "not a session file"."""
    from asz_adapters_kiro import KiroAdapter

    d = tmp_path / ".kiro" / "sessions" / "9f3c1d0b7a4e2856" / SESSION
    shutil.copytree(SOURCE, d)
    (d / "snapshots" / "a8fe9951").mkdir(parents=True)
    (d / "snapshots" / "a8fe9951" / "hello.py").write_text('print("Hello World")\n')
    (d / "sub-executions").mkdir()
    (d / "sub-executions" / "exec-1.jsonl").write_text("{}\n")
    (d / "publish.cursor").write_text("28962:67")
    out = KiroAdapter().discover(tmp_path)
    why = {Path(p).name: w for p, w in out.skipped}
    assert why["snapshots"].startswith("Kiro IDE file snapshots: the contents of the files its calls changed")
    assert why["sub-executions"].startswith("Kiro IDE sub-agent executions: no real file has shown their lines")
    assert why["publish.cursor"].startswith("Kiro IDE's own read watermark")
    assert sorted(Path(s.path).name for s in out.sources) == ["messages.jsonl", "session.json"]


def test_a_moved_folder_whose_session_json_was_rewritten_lands_its_new_version(tmp_path: Path) -> None:
    """F8: the workspace folder copied to a new name (new inodes) and the old one removed, while Kiro retitled the
    session (its ``session.json`` rewritten by design): the next pass follows both files, lands the new title, and
    says no conflict."""
    sessions = tmp_path / "home" / ".kiro" / "sessions"
    shutil.copytree(HERE / "9f3c1d0b7a4e2856", sessions / "ws-one")
    root = tmp_path / "root"
    args = ("collect", "--once", "--adapter", "kiro", "--source", str(tmp_path / "home"), "--root", str(root))
    _asz(*args)
    shutil.copytree(sessions / "ws-one", sessions / "ws-two")
    shutil.rmtree(sessions / "ws-one")
    meta = sessions / "ws-two" / SESSION / "session.json"
    doc = json.loads(meta.read_text(encoding="utf-8"))
    doc["title"] = "Renamed in the IDE"
    meta.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    p = asz_in_process(*args)
    assert p.returncode == 0 and " conflicts=0 " in p.stdout and "landed=1 " in p.stdout, p.stdout + p.stderr
    assert "moved" in p.stderr and "conflict" not in p.stderr
    (row,) = json.loads(_asz("ls", "--json", "--root", str(root)))
    assert row["title"] == "Renamed in the IDE"


def test_asz_glossary_takes_the_adapter_s_name() -> None:
    """F13: ``asz glossary kiro`` prints kiro/1's glossary (the adapter speaks that one dialect), as ``kiro/1`` does."""
    by_name = json.loads(_asz("glossary", "kiro", "--json"))
    assert by_name == json.loads(_asz("glossary", "kiro/1", "--json")) and by_name["dialect"] == "kiro/1"
    assert asz_in_process("glossary", "no-such-adapter").returncode == 2


def test_an_approval_asked_with_no_question_reads_without_an_empty_one() -> None:
    """A ``pending_interaction`` line with no ``question`` (the real line with it taken out) says what was asked and
    its options, with no dangling ``asked: `` (lines.notice_text)."""
    from asz_adapters_kiro.convert import convert_line
    from asz_core import Source

    src = Source(session="s", kind="transcript", path=None, src="x.jsonl", dialect="kiro/1")  # type: ignore[arg-type]
    raw = next(x for x in (SOURCE / "messages.jsonl").read_bytes().splitlines() if b'"pending_interaction"' in x)
    line = json.loads(raw)
    del line["payload"]["question"]
    options = ", ".join(o["optionId"] for o in line["payload"]["options"])
    rec = convert_line(src, json.dumps(line).encode(), 1, 0)
    assert [p.text for p in rec.parts if p.k == "text"] == [f"{line['payload']['interactionType']} asked; options: {options}"]
    assert "notice" in rec.flags
