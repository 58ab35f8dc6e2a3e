"""A sub-agent's file holding only a copy of its parent's model call (same message id, a new request id) is drawn once
in every export, and a folder export's index says tokens and cost as ``asz ls`` and ``asz usage`` do (trial 45d F3,
F4, F5).

F3: the text form drew the copy again (``tool_call, stream replay45, ok | Bash: cat .env.big``) and counted
``tool_call 2`` where md, html and ``asz usage tools`` count the call once. F5: md and html drew the copy's sub-agent
as an empty talk. F4: the index said ``0 tokens, $0.00`` for a project whose calls recorded no tokens, ``$0.00`` for
an unpriced model, and its total had no ``+``/``*`` marks ``asz usage`` prints.

Real input: Claude Code transcripts written here as Claude Code writes them, landed by ``asz collect --once``; the
expected figures are counted from those source lines in this test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reading_helpers import asz, checks_as_render, landed_projects

SID = "5ec0e7a1-aaaa-4bbb-8ccc-ddddeeeeffff"
UNPRICED = "11111111-0000-4000-8000-000000000001"
NO_USAGE = "22222222-0000-4000-8000-000000000002"
CALL = [{"type": "text", "text": "show env"},
        {"type": "tool_use", "id": "toolu_t45_1", "name": "Bash", "input": {"command": "cat .env.big", "description": "show env"}}]


def _said(sid: str, uid: str, parent, side: bool, at: str, content, cwd: str, **more) -> dict:
    if "model" in more:
        m = {"id": more.pop("mid"), "type": "message", "role": "assistant", "model": more.pop("model"), "content": content,
             "stop_reason": "end_turn", **({"usage": u} if (u := more.pop("usage", None)) else {})}
        return {"parentUuid": parent, "isSidechain": side, "type": "assistant", "cwd": cwd, "sessionId": sid,
                "uuid": uid, "timestamp": at, "message": m, **more}
    return {"parentUuid": parent, "isSidechain": side, "type": "user", "cwd": cwd, "sessionId": sid, "uuid": uid,
            "timestamp": at, "message": {"role": "user", "content": content}}


def _sources(base: Path) -> dict[str, list[dict]]:
    """The transcripts, by file under ``base/projects``, written there and landed in ``base/root``."""
    sonnet = {"model": "claude-sonnet-4-5-20250929"}
    t45 = "/home/user/t45"
    files = {
        f"-home-user-t45/{SID}.jsonl": [
            _said(SID, "u1", None, False, "2026-12-06T10:00:00.000Z", "cat the env file please", t45),
            _said(SID, "a1", "u1", False, "2026-12-06T10:00:05.000Z", CALL, t45, mid="msg_t45_1", requestId="req_1",
                  usage={"input_tokens": 100, "output_tokens": 50}, **sonnet),
            _said(SID, "r1", "a1", False, "2026-12-06T10:00:06.000Z",
                  [{"type": "tool_result", "tool_use_id": "toolu_t45_1", "content": "A=1"}], t45),
            _said(SID, "a2", "r1", False, "2026-12-06T10:00:12.000Z", [{"type": "text", "text": "done"}], t45,
                  mid="msg_t45_2", requestId="req_2", usage={"input_tokens": 200, "output_tokens": 30}, **sonnet)],
        # the sub-agent's file: the parent's msg_t45_1 copied under a new requestId, nothing else (trial 45d)
        f"-home-user-t45/{SID}/subagents/agent-replay45.jsonl": [
            _said(SID, "s1", None, True, "2026-12-06T10:00:05.000Z", CALL, t45, mid="msg_t45_1", requestId="req_copy",
                  usage={"input_tokens": 100, "output_tokens": 50}, **sonnet)],
        f"-p-unpriced/{UNPRICED}.jsonl": [
            _said(UNPRICED, "v1", None, False, "2026-12-06T11:00:00.000Z", "hello unpriced", "/p/unpriced"),
            _said(UNPRICED, "v2", "v1", False, "2026-12-06T11:00:05.000Z", [{"type": "text", "text": "hi"}],
                  "/p/unpriced", mid="msg_u", requestId="req_u", model="gpt-4o-mini",
                  usage={"input_tokens": 10, "output_tokens": 8})],
        f"-p-norec/{NO_USAGE}.jsonl": [  # a call whose record holds no token counts
            _said(NO_USAGE, "w1", None, False, "2026-12-06T11:00:00.000Z", "hello norec", "/p/norec"),
            _said(NO_USAGE, "w2", "w1", False, "2026-12-06T11:00:05.000Z", [{"type": "text", "text": "hi"}],
                  "/p/norec", mid="msg_n", requestId="req_n", model="claude-sonnet-4-5-20250929")],
    }
    landed_projects(base, files)
    return files


@pytest.fixture(scope="module")
def landed(tmp_path_factory):
    base = tmp_path_factory.mktemp("replay45")
    return base, _sources(base)


def test_a_replayed_call_is_one_line_in_the_lines_forms_and_its_talk_says_what_it_is(landed, tmp_path):
    base, files = landed
    root = str(base / "root")
    lines = [d for f, ls in files.items() if SID in f for d in ls if d["type"] == "assistant"]
    own = {d["message"]["id"]: d for d in reversed(lines)}  # a message id's first line: its call's own
    tools = {b["id"] for d in own.values() for b in d["message"]["content"] if b["type"] == "tool_use"}
    replies = [b for d in own.values() for b in d["message"]["content"] if b["type"] == "text"]
    assert (len(lines), len(own), len(tools), len(replies)) == (3, 2, 1, 2)

    text = asz("export", SID, "--format", "text", "--out", str(tmp_path / "s.txt"), "--root", root)
    body = (tmp_path / "s.txt").read_text()
    kinds = [x.split("] ", 1)[1] for x in body.splitlines() if x.startswith("[2026-")]
    assert kinds == ["prompt", "reply", "tool_call, ok", "reply"], kinds  # Bash once, in its own stream
    assert f"lines: prompt 1, reply {len(replies)}, tool_call {len(tools)}\n" in body and text.returncode == 0
    audit = [json.loads(x) for x in asz("export", SID, "--format", "prose", "--audit", "--root", root).stdout.splitlines()]
    assert audit[0]["lines"] == {"prompt": 1, "reply": len(replies), "tool_call": len(tools)}
    assert audit[0]["calls"] == len(own) and all(x.get("stream") in (None, "main") for x in audit)
    prose = [json.loads(x) for x in asz("export", SID, "--format", "prose", "--root", root).stdout.splitlines()]
    assert [(x["stream"], x["text"]) for x in prose if x["role"] == "assistant"] == [("main", b["text"]) for b in replies]

    md = asz("export", SID, "--format", "md", "--root", root).stdout
    talk2 = md.split("\n## Talk 2: ")[1].split("\n## ")[0]
    assert "· `talk/replay45` · holds only a copy of call/msg_t45_1 (its parent's model call, replayed in this " \
           "sub-agent's file), drawn once, in Talk 1\n" in talk2 and "**" not in talk2  # no step
    page = asz("export", SID, "--format", "html", "--root", root).stdout
    assert page.count("holds only a copy of call/msg_t45_1") == 1

    from asz_core.reading.export_render import drawing

    with drawing(28):  # a copy render 28 made drew the copy again: it still checks, and is not render 29's
        asz("export", SID, "--format", "text", "--out", str(tmp_path / "old.txt"), "--root", root)
    assert "tool_call, stream replay45, ok" in (tmp_path / "old.txt").read_text()
    checks_as_render(tmp_path / "old.txt", base / "root", 28, 29)


def test_a_folder_index_says_not_recorded_unpriced_and_the_marks_as_asz_usage_does(landed, tmp_path):
    base, files = landed
    root = str(base / "root")

    def tokens(sid: str) -> int | None:  # the source's counts, each message id once
        got = {d["message"]["id"]: d["message"].get("usage") for f, ls in files.items() if sid in f for d in ls
               if d["type"] == "assistant"}
        return None if not any(got.values()) else sum(u["input_tokens"] + u["output_tokens"] for u in got.values() if u)

    assert (tokens(SID), tokens(UNPRICED), tokens(NO_USAGE)) == (380, 18, None)
    asz("export", "--since", "2026-12-01", "--format", "md", "--out", str(tmp_path / "out") + "/", "--root", root)
    index = (tmp_path / "out" / "index.md").read_text()
    heads = [x for x in index.splitlines() if x.startswith("1 conversation(s): ")]
    assert [x.split(" · ")[0] for x in heads] == [
        "1 conversation(s): 18 tokens, unpriced", "1 conversation(s): tokens not recorded, cost -",
        f"1 conversation(s): {tokens(SID):,} tokens, <$0.01"], heads
    assert f"| 1 | {tokens(UNPRICED)} | unpriced |" in index and "| 1 | not recorded | - |" in index
    usage = asz("usage", "project", "--tz", "UTC", "--root", root).stdout.splitlines()
    (total,) = [x for x in usage if x.startswith("total")]
    assert total.startswith("total +") and total.split()[-2:] == [f"{tokens(SID) + tokens(UNPRICED):,}", "<$0.01*"]
    assert f"\n3 conversation(s): {tokens(SID) + tokens(UNPRICED):,} tokens +, <$0.01*\n" in index
    assert "\n\\* unpriced, left out of the cost: gpt-4o-mini" in index and "\n\\+ 1 of 4 model call(s)" in index
    assert asz("verify", "--export", str(tmp_path / "out"), "--root", root).stdout.rstrip().endswith(
        "the folder checks against the root")


def test_the_page_says_what_a_talk_of_copies_holds_as_md_does(landed, browser, tmp_path):
    """fix46c: the page drew the copy's sub-agent as ``1 run · 0 steps · 0 tools`` where md and html say what it
    holds; ``/api/c/{id}/headings``' ``replays`` gives the one rule (``asz_core.view.replay_talks``), the page says it
    in md's words in the talk's header."""
    from selenium.webdriver.common.by import By
    from starlette.testclient import TestClient

    from asz_core.view.server import ViewState, create_app
    from test_view_server_browser import open_at
    from view_server_helpers import Served

    base, _ = landed
    md = asz("export", SID, "--format", "md", "--root", str(base / "root")).stdout
    said = md.split("\n## Talk 2: ")[1].split("· `talk/replay45` · ", 1)[1].split("\n")[0]
    got = TestClient(create_app(ViewState(base / "root")), base_url="http://127.0.0.1").get(f"/api/c/{SID}/headings").json()
    assert got["replays"] == {"talk/replay45": {"calls": ["call/msg_t45_1"], "talks": ["talk/main/u1"]}}
    s = Served(["view", "--root", str(base / "root")], tmp_path)
    try:
        head = f'section.talk[data-talk="talk/replay45"] .talkhead'
        open_at(browser, f"{s.base}/c/{SID}", head)
        text = browser.find_element(By.CSS_SELECTOR, head).text
        assert said in text and " steps" not in text, text
    finally:
        s.stop()


def test_search_finds_a_replayed_calls_text_once_at_the_call(landed):
    """fix46c: ``asz search`` gave the copy's text as a second hit (``tool_input`` at ``tool/toolu_t45_1`` and again at
    ``talk/replay45``, the talk holding only the copy; its reply likewise). The source holds each text twice (the call
    and its copy); the index holds it once, at the call's own record."""
    base, files = landed
    root = str(base / "root")
    lines = [d for f, ls in files.items() if SID in f for d in ls if d["type"] == "assistant"]
    command = CALL[1]["input"]["command"]
    assert sum(json.dumps(b["input"]).count(command) for d in lines for b in d["message"]["content"] if b["type"] == "tool_use") == 2
    for query, want in ((f'"{command}"', [("tool/toolu_t45_1", "tool_input")]),
                        (f'"{CALL[0]["text"]}"', [("msg/1/2:0", "reply"), ("tool/toolu_t45_1", "tool_input")])):
        hits = json.loads(asz("search", query, "--json", "--root", root).stdout)
        assert sorted((h["step"], h["kind"]) for h in hits) == want, hits
        assert {h["file"].split("/streams/")[1].split("/")[0] for h in hits} == {"main"}
