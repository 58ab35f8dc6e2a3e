"""The page says a conversation's sources are gone, as ``asz ls`` (STATE ``gone``) and ``asz conversation`` (a
``gone:`` line each) do (trial 29c F11: after Kiro deleted a session, the list said ``verified`` and the conversation
page nothing; the API row carried ``sources_gone``). In headless Chromium.

Real input: the Kiro corpus's two sessions copied into a source folder and collected by the real ``asz collect``;
then the CLI 2.x session's two files deleted (as Kiro's own clean-up would) and collected again. The files, lines
and bytes expected are read from the corpus files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from view_server_helpers import asz, until

from test_view_server_browser import open_at, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)
from test_view_server_kiro_page import CORPUS_KIRO

CLI_ID = "8e247382-c779-440f-b1db-ed9bad1afaee"


@pytest.fixture(scope="module")
def gone_root(tmp_path_factory) -> tuple[Path, dict[str, tuple[int | None, int]]]:
    """The root, and what the deleted files held: ``{src relative to the source folder: (lines or None, bytes)}``."""
    if not CORPUS_KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({CORPUS_KIRO})")
    base = tmp_path_factory.mktemp("gone-page")
    home, root = base / "home", base / "root"
    shutil.copytree(CORPUS_KIRO, home / ".kiro")
    held = {}
    for f in sorted((home / ".kiro" / "sessions" / "cli").glob(f"{CLI_ID}.*")):
        data = f.read_bytes()
        held[f.relative_to(home).as_posix()] = (data.count(b"\n") if f.suffix == ".jsonl" else None, len(data))
    assert len(held) == 2
    asz("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root))
    for src in held:
        (home / src).unlink()
    p = asz("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root))
    assert " gone=2 " in p.stdout, p.stdout + p.stderr
    return root, held


def test_the_list_and_the_conversation_page_say_the_sources_are_gone(gone_root, serve, browser):
    root, held = gone_root
    ls = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout)}
    assert {g["file"] for g in ls[CLI_ID]["sources_gone"]} == set(held)
    assert [i for i, r in ls.items() if r["sources_gone"]] == [CLI_ID]  # the 3.x session's files are still there
    s = serve(root)
    until(lambda: s.get("/api/conversations").json()["conversations"], lambda rows: len(rows) == len(ls), 60,
          "every conversation listed", s)
    drv = browser
    open_at(drv, s.base + "/", f'tr[data-id="{CLI_ID}"]')
    badge = wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, f'tr[data-id="{CLI_ID}"] .state.gone'))[0]
    assert badge.text == "gone"
    title = badge.get_attribute("title")
    for src, (lines, size) in held.items():
        assert f"its source {src} was found gone at " in title, title
        assert f"{lines} lines, " in title if lines is not None else True
    assert title.count("kept in this root only") == 2
    others = [i for i in ls if i != CLI_ID]
    assert not [i for i in others if drv.find_elements(By.CSS_SELECTOR, f'tr[data-id="{i}"] .state.gone')]
    shot(drv, "29e-list-gone")
    box = open_at(drv, s.base + f"/c/{CLI_ID}", "#gone")
    items = [li.text for li in box.find_elements(By.CSS_SELECTOR, "li")]
    assert len(items) == 2 and box.text.startswith("Sources gone:"), box.text
    for src, (lines, _) in held.items():
        (item,) = [t for t in items if f"its source {src} was found gone at " in t]
        assert "is kept in this root only" in item and (lines is None or f"({lines} lines, " in item), item
    shot(drv, "29e-conversation-gone")
    open_at(drv, s.base + f"/c/{others[0]}", "#title")
    assert not drv.find_elements(By.CSS_SELECTOR, "#gone")
