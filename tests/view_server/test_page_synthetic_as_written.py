"""The page draws a client-written notice (``message.synthetic``: Claude Code's ``<synthetic>`` model on an API error)
as written, as the html export does (review36 of ba29ca52, trial 36c F1): the export keeps Markdown for the agent's
replies alone (``export_blocks.MARKDOWN_STEPS``) and draws this notice escaped, while the page drew it as Markdown, so a path in
it lost the backslash before ``_`` and ``*`` and ``*text*`` became italics: the page and the export showed two texts.

Real ``asz collect`` and ``asz view`` over a Claude Code transcript written here (a prompt, then the notice the client
writes when the request fails); headless Chromium reads the drawn text."""

from __future__ import annotations

import html
import re

import orjson

from test_view_server_browser import node, open_at  # noqa: F401  (the browser fixture is in tests/conftest.py)
from view_server_helpers import CANARY_SESSION, _env, asz, collect_and_parse

from selenium.webdriver.common.by import By  # noqa: E402

NOTICE = "API Error: 400 C:\\Users\\zoe\\my app\\_build\\*.obj is *not* readable"


def test_a_synthetic_notice_is_drawn_as_written_on_the_page_and_in_html(tmp_path, serve, browser):
    src, root = tmp_path / "src" / "-home-dev-canary", tmp_path / "root"
    src.mkdir(parents=True)
    lines = [_env("u-1", None, "2026-11-21T10:00:00.000Z", "user", promptId="p-1",
                  message={"role": "user", "content": "go"}),
             _env("a-1", "u-1", "2026-11-21T10:00:01.000Z", "assistant", promptId="p-1", isApiErrorMessage=True,
                  message={"id": "msg_syn", "type": "message", "role": "assistant", "model": "<synthetic>",
                           "content": [{"type": "text", "text": NOTICE}], "stop_reason": "stop_sequence",
                           "usage": {"input_tokens": 0, "output_tokens": 0}})]
    (src / f"{CANARY_SESSION}.jsonl").write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    collect_and_parse(tmp_path / "src", root)
    s = serve(root)
    view = orjson.loads(s.get(f"/api/c/{CANARY_SESSION}/view").body)
    (sid,) = [n["id"] for n in _nodes(view["talks"]) if n.get("kind") == "message.synthetic"]
    el = open_at(browser, f"{s.base}/c/{CANARY_SESSION}#step={sid}", f'.node[data-id="{sid}"] .msg')
    assert browser.execute_script("return arguments[0].textContent", el) == NOTICE
    assert not el.find_elements(By.CSS_SELECTOR, "em, strong, p")
    out = tmp_path / "c.html"
    asz("export", CANARY_SESSION[:8], "--format", "html", "--out", str(out), "--root", str(root))
    pre = [html.unescape(m) for m in re.findall(r'<pre>(.*?)</pre>', out.read_text(encoding="utf-8"), re.S)]
    assert NOTICE in pre  # the export draws it as written (folded, escaped): the page now shows the same text


def _nodes(items):
    for n in items:
        yield n
        yield from _nodes(n.get("children") or [])
