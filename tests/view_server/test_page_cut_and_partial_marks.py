"""Two page changes drawn in a browser (session 40): a tool result that kept its text whole while the runtime's
structured copy was too large to land (fix40g; its words the server's since fix41b, as the export's), and the ``+`` marks of figures where only some
model calls carry token counts (fix39f/fix40b: the list's TOKENS cell and the Usage tab's days and 5-hour blocks,
each with its line under the table).

Real input: two Claude Code transcripts written here and landed by the real ``asz collect --once`` with the smallest
budget the configuration allows (1,024 bytes), then parsed; a real ``asz view`` on loopback and the run's headless
Chromium. CUT (2026-04-15): one call with usage, whose tool result is ``done`` with a 5 kB ``toolUseResult``.
PARTIAL (2026-04-16, more than 5 hours later): two calls, the second with no ``usage`` in its message. Every size and
SHA-256 is computed here from the source line's bytes; the counts of calls are those written here.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from urllib.parse import quote

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from cli_helpers import asz_in_process
from test_view_server_browser import node, open_at, open_usage, wait  # noqa: F401  (browser: tests/conftest.py)
from view_server_helpers import parse

CUT = "40c00000-0000-4000-8000-00000000000a"
PARTIAL = "40c00000-0000-4000-8000-00000000000b"
TEXT = "done"  # the tool result's text, what the model was given
DATA = {"content": "B" * 5000, "totalTokens": 7}  # the runtime's structured copy, over the 1,024-byte budget
COMMON = {"cwd": "/home/me/x", "version": "2.1.1", "userType": "external", "isSidechain": False}
#: the line under the list and the usage tables (asz ls's and asz usage's words, rate_words.PARTIAL_WHY/PARTIAL_ONLY)
SAID = "+ 1 of 2 model call(s) carry no token counts (their records hold none): the tokens and cost of each row marked + count its other calls only"


def _line(session: str, uuid: str, parent: str | None, at: str, kind: str, message: dict, **kw) -> dict:
    return {**COMMON, "sessionId": session, "type": kind, "uuid": uuid, "parentUuid": parent, "timestamp": at,
            "message": message, **kw}


def _said(session: str, uuid: str, parent: str | None, at: str, req: str, content: list, usage: dict | None) -> dict:
    msg = {"id": "msg_" + req, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": content,
           "stop_reason": "tool_use" if content[0]["type"] == "tool_use" else "end_turn"}
    return _line(session, uuid, parent, at, "assistant", {**msg, **({"usage": usage} if usage else {})}, requestId=req)


def _sessions() -> dict[str, list[dict]]:
    ask = {"role": "user", "content": "run the subagent"}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_5", "content": TEXT}]}
    cut = [_line(CUT, "u1", None, "2026-04-15T12:00:00.000Z", "user", ask),
           _said(CUT, "a1", "u1", "2026-04-15T12:00:00.500Z", "req_1",
                 [{"type": "tool_use", "id": "toolu_5", "name": "Task", "input": {"prompt": "do"}}],
                 {"input_tokens": 3, "output_tokens": 9}),
           _line(CUT, "u2", "a1", "2026-04-15T12:00:01.000Z", "user", result, toolUseResult=DATA)]
    partial = [_line(PARTIAL, "p1", None, "2026-04-16T12:00:00.000Z", "user", {"role": "user", "content": "count"}),
               _said(PARTIAL, "b1", "p1", "2026-04-16T12:00:01.000Z", "req_b1", [{"type": "text", "text": "one"}],
                     {"input_tokens": 11, "output_tokens": 5}),
               _line(PARTIAL, "p2", "b1", "2026-04-16T12:00:02.000Z", "user", {"role": "user", "content": "again"}),
               _said(PARTIAL, "b2", "p2", "2026-04-16T12:00:03.000Z", "req_b2", [{"type": "text", "text": "two"}], None)]
    return {CUT: cut, PARTIAL: partial}


@pytest.fixture(scope="module")
def landed(tmp_path_factory) -> dict:
    """Both transcripts landed (1 KiB budget) and parsed: the root and the structured copy's bytes as the source holds
    them (compact JSON, as landed)."""
    base = tmp_path_factory.mktemp("cut-partial")
    proj = base / "projects" / "-home-me-x"
    proj.mkdir(parents=True)
    for sid, lines in _sessions().items():
        (proj / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (base / "asz.yaml").write_text("adapters:\n  - name: claude-code-local\n    collector:\n      max_delta_bytes: 1024\n")
    p = asz_in_process("collect", "--once", "--config", str(base / "asz.yaml"), "--source", str(base / "projects"),
                       "--root", str(base / "root"), cwd=base, env={"CLAUDE_CONFIG_DIR": str(base / "claude-home")})
    assert p.returncode == 0, p.stderr
    parse(base / "root")
    source = json.loads((proj / f"{CUT}.jsonl").read_bytes().splitlines()[2])["toolUseResult"]
    return {"root": base / "root", "data": json.dumps(source, separators=(",", ":"), ensure_ascii=False).encode()}


def test_the_step_says_its_text_kept_whole_and_the_structured_copy_not(landed, serve, browser):
    data = landed["data"]
    text_sha, data_sha = hashlib.sha256(TEXT.encode()).hexdigest(), hashlib.sha256(data).hexdigest()
    s = serve(landed["root"])
    doc = s.get(f"/api/c/{CUT}/view").json()
    talk = doc["talks"][0]["id"]
    step = open_at(browser, f"{s.base}/c/{CUT}#talk={quote(talk, safe='')}&step={quote('tool/toolu_5', safe='')}", ".node.target")
    assert step.get_attribute("data-id") == "tool/toolu_5"
    assert step.find_element(By.CSS_SELECTOR, "pre.result").text == TEXT  # the text, whole
    facts = {dt.text: dd.text for dl in step.find_elements(By.CSS_SELECTOR, "dl.kv")
             for dt, dd in zip(dl.find_elements(By.TAG_NAME, "dt"), dl.find_elements(By.TAG_NAME, "dd"))}
    said = (f"result text kept whole ({len(TEXT.encode()):,} bytes, sha256 {text_sha}); not kept: the runtime's "
            f"structured copy ({len(data):,} bytes, sha256 {data_sha}), too large to land")
    assert facts["result state"] == said  # the server's words (fix41b: the page held a JavaScript copy of them)
    exported = asz_in_process("export", CUT, "--format", "md", "--root", str(landed["root"]))
    assert exported.returncode == 0 and f"[{said}]" in exported.stdout  # the same text as the export's marker
    notice = browser.find_element(By.ID, "cut").text
    assert notice == (
        "Cut to land: 1 part(s) were larger than the landing budget (0 truncated, 1 tool result(s) kept their text whole "
        f"without the runtime's structured copy, 0 taken out whole; {len(data):,} bytes not kept). Each keeps its "
        "size and the SHA-256 of what was taken out.")


def test_the_list_and_the_usage_tab_mark_figures_counting_some_calls(landed, serve, browser):
    s = serve(landed["root"])
    drv = browser
    open_at(drv, s.base + "/", f'tr[data-id="{PARTIAL}"] td.num.partial')
    tokens = {sid: drv.find_element(By.CSS_SELECTOR, f'tr[data-id="{sid}"] td:nth-child({_column(drv, "Tokens")})')
              for sid in (CUT, PARTIAL)}
    assert {sid: c.text for sid, c in tokens.items()} == {CUT: "12", PARTIAL: "16 +"}  # 3 + 9; 11 + 5, b2 none
    assert tokens[PARTIAL].get_attribute("title").endswith(" · " + SAID)
    # CUT and PARTIAL differ only in their last group: no prefix names PARTIAL alone, so the page shows it whole (the
    # lists' rule, storage.ids.unique_prefixes; session 44: the page cut every id at 8 characters)
    assert drv.find_element(By.ID, "list-partial").text == f"{SAID}: {PARTIAL} (1 of 2)."

    days = open_usage(drv, s.base, "#usage-days")
    assert _marked(days) == {"2026-04-15": False, "2026-04-16": True, "Total": True}
    assert drv.find_element(By.ID, "usage-uncounted").text == SAID.replace("1 of 2", "1 of 3") + "."
    Select(drv.find_element(By.ID, "usage-by")).select_by_value("blocks")
    blocks = wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#usage-blocks") and d.find_element(By.CSS_SELECTOR, "#usage-blocks"))
    marked = _marked(blocks)
    assert sorted(marked.values()) == [False, True, True] and marked["Total"], marked  # CUT's block, PARTIAL's, total
    assert [k for k, v in marked.items() if v and k != "Total"][0].startswith("2026-04-16"), marked
    assert drv.find_element(By.ID, "usage-blocks-uncounted").text == SAID.replace("1 of 2", "1 of 3") + "."


def _column(drv, name: str) -> int:
    """The 1-based position of the list's column headed ``name``."""
    heads = [th.text.split("\n")[0].strip().lower() for th in drv.find_elements(By.CSS_SELECTOR, "#rows thead th, table thead th")]
    return heads.index(name.lower()) + 1


def _marked(table) -> dict[str, bool]:
    """Each body row's first cell (its label without the mark) -> whether it is marked ``+``."""
    out = {}
    for tr in table.find_elements(By.CSS_SELECTOR, "tr"):
        cells = tr.find_elements(By.TAG_NAME, "td")
        if cells:
            label = cells[0].text
            out[label.removesuffix(" +")] = label.endswith(" +")
    return out
