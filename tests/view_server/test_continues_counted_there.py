"""A conversation that repeats another's message ids (a resumed or copied session) says where the records it repeats,
their calls and tokens with them, are counted (trial 22b: a copy listed with 0 talks, 0 calls and 0 tokens said
nothing, while the other session said "continued in"): ``asz ls`` under its table, ``asz ls --json``'s
``continues``, ``/api/conversations``' rows of a real ``asz view`` and the page (its list and the conversation).

Real input: test_continued_title's resumed root (the corpus's 326189cf; B repeats every line of it under a new
session id; C repeats them and adds a prompt of its own)."""

from __future__ import annotations

import json

from selenium.webdriver.common.by import By

from cli_helpers import asz_in_process
from test_continued_title import A, B, C, resumed_root
from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture: tests/conftest.py)
from view_server_helpers import counted_rows

SAID = "the records it repeats, their calls and tokens with them, are counted there"


def test_a_copy_says_where_its_calls_are_counted(corpus_dir, tmp_path, serve, browser):
    root, _ = resumed_root(corpus_dir, tmp_path)
    rows = {r["id"]: r for r in json.loads(asz_in_process("ls", "--json", "--root", str(root)).stdout)}
    assert {k: r["continues"] for k, r in rows.items()} == {A: None, B: A, C: A}
    assert rows[B]["llm_calls"] == rows[B]["talks"] == 0 and rows[A]["llm_calls"] > 0  # B's calls are A's
    listed = asz_in_process("ls", "--root", str(root)).stdout.splitlines()
    assert sorted(ln for ln in listed if SAID in ln) == [f"{B[:8]} continues {A[:8]}: {SAID}", f"{C[:8]} continues {A[:8]}: {SAID}"]
    s = serve(root)
    assert {r["id"]: r["continues"] for r in counted_rows(s)} == {A: None, B: A, C: A}
    open_at(browser, s.base + "/", f"tr[data-id='{B}'] .continues")
    line = browser.find_element(By.CSS_SELECTOR, f"tr[data-id='{B}'] .continues")
    assert line.text == f"continues {A[:8]}: {SAID}"
    assert not browser.find_elements(By.CSS_SELECTOR, f"tr[data-id='{A}'] .continues")
    open_at(browser, f"{s.base}/c/{B}", "#links")
    assert wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#links").text).startswith(f"Continues {A[:8]}: its ")
    open_at(browser, f"{s.base}/c/{A}", "#links")
    assert browser.find_element(By.CSS_SELECTOR, "#links").text == f"Continued in {B[:8]}, {C[:8]}."
