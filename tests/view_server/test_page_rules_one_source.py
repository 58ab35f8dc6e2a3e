"""Session 18's gap: the shell tools and the field view's lists were kept twice, in app.js and in placing.py, each
pointing to the other. placing.py is now the one source (``page_rules``); the server writes the rules into the script
as it serves ``/static/app.js``. Real server, real browser; the rules compared are placing's own."""

from __future__ import annotations

import json
from pathlib import Path

from asz_core.view import placing

from test_view_server_browser import open_at

from selenium.webdriver.common.by import By  # noqa: E402  (test_view_server_browser skips without selenium)

APP_JS = Path(placing.__file__).with_name("static") / "app.js"


def test_the_served_script_holds_placings_rules_and_the_file_none_of_its_own(example_root, serve):
    served = serve(example_root).get("/static/app.js").body.decode()
    rules = placing.page_rules()
    assert f"const RULES = {json.dumps(rules, separators=(',', ':'))};" in served
    assert rules["shell_tools"] == sorted(placing.SHELL_TOOLS) and rules["pairs"] == [list(p) for p in placing.PAIRS]
    source = APP_JS.read_text()
    assert "const RULES = {/* placing.page_rules() */};" in source
    for word in [*rules["shell_tools"], *(k for p in rules["pairs"] for k in p)]:  # no second copy of a list
        assert f"'{word}'" not in source and f'"{word}"' not in source, word


def test_the_page_reads_the_rules_it_was_sent(example_root, serve, browser):
    """The browser's script has the rules placing gives (its RULES object, read through a field view it draws)."""
    s = serve(example_root)
    open_at(browser, f"{s.base}/", "#rows")
    got = browser.execute_script("const r = await fetch('/static/app.js'); const t = await r.text();"
                                 "const m = /const RULES = (\\{.*?\\});\\n/.exec(t); return m ? JSON.parse(m[1]) : null;")
    assert got == placing.page_rules()
    # a field view drawn by the page agrees with placing.input_fields on a text placing decides (a path first, a
    # MultiEdit edit as the first pair, a long text as a block, a short one as a fact)
    text = json.dumps({"note": "x" * (placing.BLOCK_CHARS + 1), "short": "y", "notebook_path": "/n",
                       "edits": [{"old_string": "a", "new_string": "b"}]})
    facts, items = placing.input_fields(text)
    assert [k for k, _ in facts] == ["notebook_path", "short"]
    assert [(i[0], i[1]) for i in items] == [("block", "note"), ("pair", "edit 1 of 1")]


def test_a_calls_row_names_it_by_placings_input_fields(corpus_root, corpus_dir, serve, browser):
    """Session 20's gap: app.js kept its own list of the keys a call's row reads (no ``notebook_path``, ``skill`` or
    ``subject``, ``description`` before ``file_path``), so the page named a call otherwise than the HTML export's tool
    line. It reads ``RULES.input_fields`` (placing.INPUT_FIELDS) now: 8463c716's Skill call, whose input holds only
    ``skill``, was drawn as its JSON and reads as the skill's name, as :func:`placing.input_gist` gives it."""
    from test_tool_fields import SPOTTER, _open_step, _source, _uses

    step = "toolu_01WD7R52g4Tq4muwnGEgs9nD"
    use = _uses(_source(corpus_dir, *SPOTTER))[step]
    assert use["name"] == "Skill" and list(use["input"]) == ["skill"]
    gist, cut = placing.input_gist(use["input"], 160)
    assert gist == use["input"]["skill"] and not cut
    el = _open_step(browser, serve(corpus_root).base, SPOTTER[1], f"tool/{step}", ".editinput")
    assert el.find_element(By.CSS_SELECTOR, ":scope > .row .pv").text == gist
    assert placing.page_rules()["input_fields"] == list(placing.INPUT_FIELDS)
