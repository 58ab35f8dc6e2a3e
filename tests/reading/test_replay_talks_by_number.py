"""A sub-agent's talk holding only copies of calls drawn in two talks names them by their numbers' order, ``Talk 2,
Talk 11``, in md, html and the page (fix47b: the exports' ``replay_talks`` and the page's ``replayText`` sorted the
labels as text, ``Talk 11, Talk 2``). Render 34; a copy drawn by render 33 still checks.

Real input: Claude Code transcripts written here as Claude Code writes them (a main file of 11 prompts each answered by
one call; a sub-agent file copying the calls of prompts 2 and 10 under new request ids, nothing else), landed by
``asz collect --once``. The talk numbers are counted from those lines: the prompts are talks in time order, and the
sub-agent's talk starts at its first copy (prompt 2's call, 10:02:05), after prompt 2 (10:02:00) and before prompt 3,
so prompt 10 is Talk 11.
"""

from __future__ import annotations

import pytest

from reading_helpers import asz, checks_as_render, landed_projects

SID = "5ec0e7a1-4747-4bbb-8ccc-ddddeeee0047"
CWD = "/home/user/t47"
PROMPTS = 11
COPIED = (2, 10)  # the prompts whose calls the sub-agent's file copies


def _line(uid: str, parent, side: bool, at: str, *, text: str, k: int | None = None, req: str = "") -> dict:
    d = {"parentUuid": parent, "isSidechain": side, "cwd": CWD, "sessionId": SID, "uuid": uid, "timestamp": at}
    if k is None:
        return {**d, "type": "user", "message": {"role": "user", "content": text}}
    return {**d, "type": "assistant", "requestId": req, "message": {
        "id": f"msg_t47_{k}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 10, "output_tokens": 5}}}


def _sources() -> dict[str, list[dict]]:
    """The transcripts, by file under the project's folder."""
    main, prev = [], None
    for k in range(1, PROMPTS + 1):
        main += [_line(f"u{k}", prev, False, f"2026-12-06T10:{k:02d}:00.000Z", text=f"question number {k}"),
                 _line(f"a{k}", f"u{k}", False, f"2026-12-06T10:{k:02d}:05.000Z", text=f"answer {k}", k=k, req=f"req_{k}")]
        prev = f"a{k}"
    copies = [_line(f"s{k}", None if i == 0 else f"s{COPIED[i - 1]}", True, f"2026-12-06T10:{k:02d}:05.000Z",
                    text=f"answer {k}", k=k, req=f"req_copy_{k}") for i, k in enumerate(COPIED)]
    return {f"{SID}.jsonl": main, f"{SID}/subagents/agent-replay47.jsonl": copies}


@pytest.fixture(scope="module")
def landed(tmp_path_factory):
    base = tmp_path_factory.mktemp("replay47")
    files = _sources()
    landed_projects(base, {f"-home-user-t47/{name}": lines for name, lines in files.items()})
    return base, files


def _expected(files: dict[str, list[dict]]) -> tuple[str, str]:
    """The words after ``drawn once, in``, by number and as render 33 sorted them, from the source's lines: each
    prompt a talk, the sub-agent's talk placed at its first copy's time."""
    starts = [(d["timestamp"], d["message"]["content"]) for d in files[f"{SID}.jsonl"] if d["type"] == "user"]
    starts.append((min(d["timestamp"] for d in files[f"{SID}/subagents/agent-replay47.jsonl"]), None))
    order = [t for _, t in sorted(starts)]
    numbers = [order.index(f"question number {k}") + 1 for k in COPIED]
    assert numbers == [2, 11]
    return ", ".join(f"Talk {n}" for n in sorted(numbers)), ", ".join(sorted(f"Talk {n}" for n in numbers))


def _said(text: str) -> str:
    return text.split("drawn once, in ", 1)[1].split("\n")[0].split("<")[0]


def test_md_and_html_name_the_talks_by_number_and_a_render_33_copy_checks(landed, tmp_path):
    base, files = landed
    root = str(base / "root")
    by_number, as_text = _expected(files)
    assert (by_number, as_text) == ("Talk 2, Talk 11", "Talk 11, Talk 2")
    md = asz("export", SID, "--format", "md", "--root", root).stdout
    heads = [x.split(": ", 1)[1] for x in md.splitlines() if x.startswith("## Talk ")]
    assert [heads.index(f"question number {k}") + 1 for k in COPIED] == [2, 11]  # the numbers the headings give
    assert md.count("holds only a copy of") == 1 and _said(md) == by_number
    page = asz("export", SID, "--format", "html", "--root", root).stdout
    assert page.count("holds only a copy of") == 1 and _said(page) == by_number

    from asz_core.reading.export_render import drawing

    old = tmp_path / "old.md"
    with drawing(33):  # render 33 sorted the labels as text
        asz("export", SID, "--format", "md", "--out", str(old), "--root", root)
    assert _said(old.read_text(encoding="utf-8")) == as_text
    checks_as_render(old, base / "root", 33, 34)


def test_the_page_names_the_talks_by_number(landed, browser, tmp_path):
    from selenium.webdriver.common.by import By

    from test_view_server_browser import open_at
    from view_server_helpers import Served

    base, files = landed
    by_number, _ = _expected(files)
    s = Served(["view", "--root", str(base / "root")], tmp_path)
    try:
        head = 'section.talk[data-talk="talk/replay47"] .talkhead .replay'
        open_at(browser, f"{s.base}/c/{SID}", head)
        text = browser.find_element(By.CSS_SELECTOR, head).text
        assert text.endswith("drawn once, in " + by_number), text
    finally:
        s.stop()


def _calls(text: str) -> str:
    return text.split("holds only a copy of ", 1)[1].split(" (its parent", 1)[0]


def test_the_calls_copied_are_listed_as_drawn_and_a_render_37_copy_checks(landed, tmp_path, browser):
    """fix47j: the calls a talk of copies copies were listed as text (``call/msg_t47_10, call/msg_t47_2``); they are
    listed as drawn, the talks' order (prompt 2's call in Talk 2, prompt 10's in Talk 11), in md, html and the page
    (render 38); a copy drawn by render 37 still checks."""
    from selenium.webdriver.common.by import By

    from asz_core.reading.export_render import drawing
    from test_view_server_browser import open_at
    from view_server_helpers import Served

    base, files = landed
    root = str(base / "root")
    assert _expected(files)[0] == "Talk 2, Talk 11"  # prompt 2's call is drawn first, then prompt 10's
    drawn_order = ", ".join(f"call/msg_t47_{k}" for k in COPIED)
    assert drawn_order == "call/msg_t47_2, call/msg_t47_10"
    md = asz("export", SID, "--format", "md", "--root", root).stdout
    assert _calls(md) == drawn_order, _calls(md)
    page = asz("export", SID, "--format", "html", "--root", root).stdout
    assert _calls(page) == drawn_order, _calls(page)
    old = tmp_path / "old.md"
    with drawing(37):  # render 37 sorted the calls as text
        asz("export", SID, "--format", "md", "--out", str(old), "--root", root)
    assert _calls(old.read_text(encoding="utf-8")) == ", ".join(sorted(drawn_order.split(", ")))
    checks_as_render(old, base / "root", 37, 38)
    s = Served(["view", "--root", root], tmp_path)
    try:
        head = 'section.talk[data-talk="talk/replay47"] .talkhead .replay'
        open_at(browser, f"{s.base}/c/{SID}", head)
        assert _calls(browser.find_element(By.CSS_SELECTOR, head).text) == drawn_order
    finally:
        s.stop()
