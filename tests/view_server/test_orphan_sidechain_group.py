"""An orphan sidechain line drawn as a sub-agent group of its own (field report 34; close44 "Not done": reading).

A Claude Code line that says ``"isSidechain": true`` in the main file, with no Task call that started it and no
prompt line of its own (its sub-agent's opening prompt never landed), counts under ``subagent`` in the head (its
record's ``sidechain``: docs/view.md, ``usage_by_lane``). Assembly now draws such lines as a talk of their own, marked
``sidechain`` and ``orphan`` in the asz.view document (``asz_core.flow.asm_talks.orphan_sidechains``, read from the
session index's ``sc``, schema 7), and every reader says so: md and html ``· parent call not found`` on the talk's
time line, the text form ``, a sub-agent's line, parent call not found`` on each of its lines, ``asz conversation``'s
costliest talks, the page's tag and label; the group is headed as the page labels it (fix45h). Written lines of the field report's shape, three conversations: one
orphan line (A), two orphan lines of one agent whose prompt never landed (B: the first names it as parent, the second
the first) and a Task sub-agent's old sidechain thread with an orphan line beside it (C). Expected values are counted
from the written lines. An index written before schema 7 is rebuilt; a copy made before (``old_orphan/``: a root and
its copies the asz at 22891816 wrote from the same lines) still checks with ``asz verify --export``."""

from __future__ import annotations

import json
import shutil
from html import escape
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

from asz_core.view.subagent_heads import NO_PARENT_CALL

A, B, C, D = (f"f1e1d000-0000-4000-8000-00000000340{x}" for x in "abcd")
OLD = Path(__file__).parents[1] / "verify" / "old_orphan"
SAID = " · a sub-agent's lines, written in its parent's transcript"
ORPHAN = SAID + " · parent call not found"


def _line(uuid: str, parent: str | None, t: str, kind: str, sid: str, side: bool = False, **more) -> dict:
    return {"parentUuid": parent, "isSidechain": side, "userType": "external", "cwd": "/home/user/fieldtest",
            "sessionId": sid, "version": "2.0.1", "uuid": uuid, "timestamp": f"2026-11-20T{t}.000Z", "type": kind, **more}


def _said(mid: str, content: list, out: int = 10) -> dict:
    return {"message": {"id": mid, "type": "message", "role": "assistant", "model": "claude-sonnet-4-20250514",
                        "content": content, "stop_reason": "end_turn", "stop_sequence": None,
                        "usage": {"input_tokens": 100 + out, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                                  "output_tokens": out}}, "requestId": "req_" + mid}


def _text(s: str) -> list:
    return [{"type": "text", "text": s}]


def _sources() -> dict[str, list[dict]]:
    """The three conversations' lines (module docstring); the same lines ``old_orphan/`` was collected from."""
    prompt = {"role": "user", "content": "two orphans prompt"}
    return {
        A: [_line("o1", None, "13:00:00", "user", A, message={"role": "user", "content": "FR34 main prompt"}),
            _line("o2", None, "13:01:00", "assistant", A, **_said("msg_a2", _text("FR34 main reply"))),
            _line("o3", None, "13:02:00", "assistant", A, True, **_said("msg_a3", _text("FR34 orphan sidechain reply"), 13))],
        B: [_line("t1", None, "13:00:00", "user", B, message=prompt),
            _line("t2", "t1", "13:01:00", "assistant", B, **_said("msg_b2", _text("main reply"))),
            _line("t3", "missing-prompt", "13:02:00", "assistant", B, True, agentId="ag1",
                  **_said("msg_b3", [{"type": "tool_use", "id": "toolu_b3", "name": "Bash", "input": {"command": "ls"}}], 21)),
            _line("t4", "t3", "13:02:10", "user", B, True, agentId="ag1",
                  message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_b3", "content": "a b"}]}),
            _line("t5", "t4", "13:02:20", "assistant", B, True, agentId="ag1", **_said("msg_b5", _text("orphan agent done"), 34)),
            _line("t6", "t2", "13:03:00", "user", B, message={"role": "user", "content": "next main prompt"}),
            _line("t7", "t6", "13:04:00", "assistant", B, **_said("msg_b7", _text("next main reply")))],
        C: [_line("s1", None, "13:00:00", "user", C, message={"role": "user", "content": "task and orphan"}),
            _line("s2", "s1", "13:01:00", "assistant", C, **_said("msg_c2", [
                {"type": "tool_use", "id": "toolu_c2", "name": "Task", "input": {"description": "look", "prompt": "look around"}}])),
            _line("s3", None, "13:01:05", "user", C, True, message={"role": "user", "content": "look around"}),
            _line("s4", "s3", "13:01:10", "assistant", C, True, **_said("msg_c4", _text("task sub-agent answer"), 55)),
            _line("s5", "s2", "13:01:20", "user", C, message={"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_c2", "content": "task sub-agent answer"}]}),
            _line("s6", None, "13:01:30", "assistant", C, True, agentId="ag9", **_said("msg_c6", _text("orphan beside task"), 89)),
            _line("s7", "s5", "13:02:00", "assistant", C, **_said("msg_c7", _text("main done")))],
    }


def _child_sources() -> dict[str, list[dict]]:
    """D (trial 45b F4): a main file whose Task call names sub-agent ``b45`` by its result, ``b45``'s own file, and
    ``c45``'s, which no call names and which opens with a reply (13:30:01) followed by a person's line (13:30:02)."""
    task = {"type": "tool_use", "id": "toolu_d2", "name": "Task", "input": {"description": "find files", "prompt": "find *.py"}}
    return {
        "main": [_line("d1", None, "13:00:01", "user", D, message={"role": "user", "content": "prompt with subagent"}),
                 _line("d2", "d1", "13:00:02", "assistant", D, **_said("msg_d2", [task])),
                 _line("d3", "d2", "13:00:03", "user", D, toolUseResult={"status": "completed", "agentId": "b45"},
                       message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_d2", "content": "3 files"}]}),
                 _line("d4", "d3", "13:00:04", "assistant", D, **_said("msg_d4", _text("parent done")))],
        "b45": [_line("b1", None, "13:00:02", "user", D, True, agentId="b45", message={"role": "user", "content": "find *.py"}),
                _line("b2", "b1", "13:00:03", "assistant", D, True, agentId="b45", **_said("msg_b45", _text("3 files")))],
        "c45": [_line("c1", None, "13:30:01", "assistant", D, True, agentId="c45", **_said("msg_c45", _text("orphan agent reply"), 6)),
                _line("c2", "c1", "13:30:02", "user", D, True, agentId="c45", message={"role": "user", "content": "later line"})],
    }


#: Each conversation's orphan lines (uuids) and its sidechain lines a prompt of their own opened, by the lines above.
ORPHANS = {A: ["o3"], B: ["t3", "t4", "t5"], C: ["s6"]}
THREAD = {A: [], B: [], C: ["s3", "s4"]}


def _run(*args: str, home: Path) -> str:
    p = asz_in_process(*args, env={"HOME": str(home), "KIRO_HOME": str(home / "no-kiro"), "CLAUDE_CONFIG_DIR": None})
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("orphan")
    d = base / "projects" / "-home-user-fieldtest"
    d.mkdir(parents=True)
    for sid, lines in _sources().items():
        (d / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    for name, lines in _child_sources().items():  # D: a sub-agent's own files, one a Task names, one none names
        f = d / (f"{D}.jsonl" if name == "main" else f"{D}/subagents/agent-{name}.jsonl")
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    _run("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"), home=base / "home")
    return base


def _walk(n: dict):
    yield n
    for c in n.get("children") or ():
        yield from _walk(c)


def _rows(t: dict) -> set[int]:
    return {r["row"] for n in _walk(t) for r in [n.get("ref"), *(n.get("refs") or ())] if r}


@pytest.mark.parametrize("sid", [A, B, C])
def test_orphan_lines_are_a_group_of_their_own_in_every_reader(made, sid):
    root, home = str(made / "root"), made / "home"
    src = _sources()[sid]
    row = {d["uuid"]: i for i, d in enumerate(src, 1)}  # a landed record's row is its line's
    side_usage = {d["message"]["id"]: d["message"]["usage"] for d in src if d["isSidechain"] and d["type"] == "assistant"}
    doc = json.loads(_run("conversation", sid, "--json", "--root", root, home=home))
    lane = doc["summary"]["usage_by_lane"]["subagent"]
    assert (lane["in"], lane["out"]) == (sum(u["input_tokens"] for u in side_usage.values()),
                                         sum(u["output_tokens"] for u in side_usage.values()))
    groups = [t for t in doc["talks"] if t.get("orphan")]
    assert len(groups) == 1 and groups[0]["sidechain"] is True  # B's three lines, of one agent: one group
    assert _rows(groups[0]) == {row[u] for u in ORPHANS[sid]}  # every orphan line, and nothing else
    others = set().union(*(_rows(t) for t in doc["talks"] if not t.get("orphan")))
    assert not others & _rows(groups[0]) and len(doc["talks"]) == 1 + 1 + (sid == B) + (sid == C)
    assert not [n["id"] for t in doc["talks"] for n in _walk(t) if n.get("sidechain") and n is not t]  # no step marked
    assert all(t.get("sidechain") is True for t in doc["talks"] if _rows(t) & {row[u] for u in THREAD[sid]})
    assert groups[0]["id"] == "talk/main/sidechain_" + ("missing-prompt" if sid == B else ORPHANS[sid][0])

    md = _run("export", sid, "--format", "md", "--root", root, home=home)
    at = md.index(f"`{groups[0]['id']}`{ORPHAN}\n")
    group_md = md[at:].split("\n## ")[0]
    texts = [b["text"] for d in src if d["uuid"] in ORPHANS[sid] and d["type"] == "assistant"
             for b in d["message"]["content"] if b["type"] == "text"]
    assert texts and all(f"\n{x}\n" in group_md for x in texts) and md.count(ORPHAN) == 1
    assert md.count(SAID) == 1 + bool(THREAD[sid])
    html = _run("export", sid, "--format", "html", "--root", root, home=home)
    assert html.count(escape(ORPHAN) + "</p>") == 1 and "(a sub-agent&#x27;s line," not in html
    text = _run("export", sid, "--format", "text", "--root", root, home=home)
    heads = [x for x in text.splitlines() if x.startswith("[")]
    kinds = {d["uuid"]: ("reply" if any(b["type"] == "text" for b in d["message"]["content"]) else "tool_call")
             for d in src if d["uuid"] in ORPHANS[sid] and d["type"] == "assistant"}
    assert sorted(x.split("] ")[1].split(",")[0] for x in heads if ", a sub-agent's line, parent call not found" in x) \
        == sorted(kinds.values())
    assert sum(", a sub-agent's line" in x for x in heads) == len(kinds) + len(THREAD[sid])  # the thread's prompt, reply
    said = _run("conversation", sid, "--root", root, home=home)
    assert said.count("stream main (a sub-agent's lines, parent call not found) from 2026-11-20 13:0") == 1
    # its heading is a sub-agent's, as the page says it: no line of its own opens it (fix45h; it was its id)
    n = [t["id"] for t in doc["talks"]].index(groups[0]["id"]) + 1
    assert md.count(f"\n## Talk {n}: {NO_PARENT_CALL}\n") == 1 and f"Talk {n}: {groups[0]['id']}" not in md
    assert f"Talk {n}: <bdi>{NO_PARENT_CALL}</bdi></a>" in html and html.count(NO_PARENT_CALL) == 2  # Talks list, h2

    from starlette.testclient import TestClient

    from asz_core.view.server import ViewState, create_app

    client = TestClient(create_app(ViewState(made / "root")), base_url="http://127.0.0.1")
    page = client.get(f"/api/c/{sid}/view").json()
    assert [(t["id"], t.get("sidechain"), t.get("orphan")) for t in page["talks"]] == \
        [(t["id"], t.get("sidechain"), t.get("orphan")) for t in doc["talks"]]
    assert client.get(f"/api/c/{sid}/headings").json()["headings"][groups[0]["id"]] == NO_PARENT_CALL


def test_a_line_after_a_subagents_first_reply_is_not_its_prompt(made, tmp_path):
    """Trial 45b F4: a sub-agent's file no call names, a reply (13:30:01) then a person's line (13:30:02). The talk
    was headed by that later line and drew it as ``Asked (the prompt this talk was given)`` after the reply it
    supposedly prompted; the text form said it ``subagent_prompt``. Its heading is now the page's words, as an orphan
    group's, the line drawn as what it is where it stands; the linked sub-agent beside it is headed and asked as
    before. A copy render 26 drew (``drawing(26)``) still checks; the same bytes said render 27 do not."""
    from asz_core.reading.export_render import drawing

    root, home, src = str(made / "root"), made / "home", _child_sources()
    doc = json.loads(_run("conversation", D, "--json", "--root", root, home=home))
    late = src["c45"][1]["message"]["content"]
    (talk,) = [t for t in doc["talks"] if t["stream"] == "c45"]
    assert talk.get("label") == late and not talk.get("prompt")  # seed 004's label: the first such line's text
    md = _run("export", D, "--format", "md", "--root", root, home=home)
    heads = [x for x in md.splitlines() if x.startswith("## Talk ")]
    assert heads == ["## Talk 1: prompt with subagent", "## Talk 2: Subagent: find files", f"## Talk 3: {NO_PARENT_CALL}"]
    third = md.split("\n## Talk 3: ")[1]
    assert "Asked (the prompt this talk was given)" not in third and md.count("**Asked (the prompt this talk was given)**") == 1
    assert third.index(src["c45"][0]["message"]["content"][0]["text"]) < third.index(f"\n{late}\n")
    text = _run("export", D, "--format", "text", "--root", root, home=home)
    kinds = [x.split("] ", 1)[1] for x in text.splitlines() if x.startswith("[2026-11-20T13:")]
    assert kinds.count("subagent_prompt, stream b45") == 1 and "text, stream c45" in kinds
    assert "subagent_prompt, stream c45" not in kinds

    from starlette.testclient import TestClient

    from asz_core.view.server import ViewState, create_app

    got = TestClient(create_app(ViewState(made / "root")), base_url="http://127.0.0.1").get(f"/api/c/{D}/headings").json()
    assert got["headings"][talk["id"]] == NO_PARENT_CALL and talk["id"] not in got["asked"]
    streams = {s["name"]: s for s in doc["streams"]}  # c45 opens with a reply: no line of it names its stream (fix46c)
    assert [(streams[n]["label"], streams[n]["named_by"]) for n in ("b45", "c45")] == [("find files", "tool/toolu_d2"), ("", "")]

    with drawing(26):
        _run("export", D, "--format", "md", "--out", str(tmp_path / "old.md"), "--root", root, home=home)
    old = (tmp_path / "old.md").read_text()
    assert f"## Talk 3: {late}\n" in old and old.count("**Asked (the prompt this talk was given)**") == 2  # as 45b read
    _checks_as(tmp_path / "old.md", made, 26, 27)


def _checks_as(copy: Path, made: Path, render: int, later: int) -> None:
    """``copy`` checks against ``made``'s root when its manifest says ``render``, and the same bytes said ``later``
    exit 1 naming a line."""
    manifest = copy.with_name(copy.name + ".manifest.json")
    body = json.loads(manifest.read_text())
    home = made / "home"
    for said, ok in ((render, "the copy checks against the root"), (later, None)):
        manifest.write_text(json.dumps({**body, "render": said}))
        p = asz_in_process("verify", "--export", str(copy), "--root", str(made / "root"),
                           env={"HOME": str(home), "KIRO_HOME": str(home / "no-kiro"), "CLAUDE_CONFIG_DIR": None})
        assert (p.returncode, p.stdout.rstrip().endswith(ok) if ok else f"{copy.name}: line " in p.stdout) == \
            (0 if ok else 1, True), p.stdout


def test_an_index_before_schema_7_is_rebuilt_and_draws_the_same(made, tmp_path):
    from asz_core.flow.index import INDEX_SCHEMA

    shutil.copytree(made / "root", tmp_path / "root", symlinks=True)
    index = tmp_path / "root" / B / "index"
    fresh = (index / "entries.jsonl").read_bytes()
    assert INDEX_SCHEMA == 7 and fresh.count(b',"sc":true') == len(ORPHANS[B])  # every sidechain line, none else
    state = (index / "index.state").read_text()
    (index / "index.state").write_text(state.replace(f"schema          {INDEX_SCHEMA}", "schema          6"))
    (index / "entries.jsonl").write_bytes(fresh.replace(b',"sc":true', b""))  # as schema 6 wrote it
    before = json.loads(_run("conversation", B, "--json", "--root", str(made / "root"), home=made / "home"))
    _run("parse", "--root", str(tmp_path / "root"), home=made / "home")
    rounds = tmp_path / "root" / "_conversations" / B / "rounds"
    assert len(list(rounds.glob("*.sf"))) == 1  # the chain is the fresh index's assembly: no round written
    assert (index / "entries.jsonl").read_bytes() == fresh and "schema          7" in (index / "index.state").read_text()
    after = json.loads(_run("conversation", B, "--json", "--root", str(tmp_path / "root"), home=made / "home"))
    assert after["talks"] == before["talks"]


def test_a_copy_made_before_the_groups_still_checks(made, tmp_path):
    """``old_orphan/``: the asz at 22891816 collected the same lines and exported each conversation (render 24, its
    orphan lines among its parent's steps). Parsed by this asz, each chain gets a round drawing the group; each copy
    checks as of its head round, and a new export draws the group."""
    root = tmp_path / "root"
    shutil.copytree(OLD / "root", root)
    old = sorted(x for x in (OLD / "copies").glob("?.*") if not x.name.endswith(".manifest.json"))
    assert len(old) == 12 and b"(a sub-agent's line, isSidechain: no call that started it)" in (OLD / "copies" / "b.md").read_bytes()
    home = made / "home"
    _run("parse", "--root", str(root), home=home)
    assert [len(list((root / "_conversations" / c / "rounds").glob("*.sf"))) for c in (A, B, C)] == [2, 2, 2]
    for copy in old:
        shutil.copy(copy, tmp_path / copy.name)
        shutil.copy(copy.with_name(copy.name + ".manifest.json"), tmp_path / (copy.name + ".manifest.json"))
        said = _run("verify", "--export", str(tmp_path / copy.name), "--root", str(root), home=home)
        assert "moved on since the export: round 1 → 2" in said and said.rstrip().endswith("the copy checks against the root"), said
    assert ORPHAN in _run("export", B, "--format", "md", "--root", str(root), home=home)


def test_the_page_draws_the_group_as_a_subagent_with_no_parent_call(made, serve, browser):
    from test_view_server_browser import open_at
    from selenium.webdriver.common.by import By

    s = serve(made / "root")
    talk = "talk/main/sidechain_missing-prompt"
    open_at(browser, f"{s.base}/c/{B}#talk={talk}", f'section.talk.open[data-talk="{talk}"] .talkbody')
    sec = browser.find_element(By.CSS_SELECTOR, f'section.talk[data-talk="{talk}"]')
    tags = [t.text for t in sec.find_elements(By.CSS_SELECTOR, ".talkhead .tag")]
    assert tags == ["subagent · its lines in the parent's transcript · parent call not found"]
    assert sec.find_element(By.CSS_SELECTOR, ".talkhead .label").text == "Subagent: parent call not found"
    assert "orphan agent done" in sec.find_element(By.CSS_SELECTOR, ".talkbody").text
    assert not browser.find_elements(By.XPATH, "//*[contains(@class,'tag') and text()=\"a sub-agent's line\"]")


def test_a_json_copy_that_named_a_child_by_its_first_reply_still_checks(made, tmp_path):
    """Render 30 and before labelled ``c45``'s stream by the reply its file opens with (``orphan agent reply``,
    ``named_by`` ``prompt``); a json copy drawn so checks as render 30, and the same bytes said render 31 do not."""
    from asz_core.reading.export_render import drawing

    root, home, src = str(made / "root"), made / "home", _child_sources()
    with drawing(30):
        _run("export", D, "--format", "json", "--out", str(tmp_path / "old.json"), "--root", root, home=home)
    old = {s["name"]: s for s in json.loads((tmp_path / "old.json").read_text())["streams"]}
    assert (old["c45"]["label"], old["c45"]["named_by"]) == (src["c45"][0]["message"]["content"][0]["text"], "prompt")
    _checks_as(tmp_path / "old.json", made, 30, 31)
