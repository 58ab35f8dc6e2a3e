"""The page says in place where a message's text is not in the root (issue 20/21): ``[too large to land: N bytes,
sha256 H]`` (what was taken out, trial 24b F1),
the words ``asz export`` uses (tests/reading/test_export_lost.py); real input, one corpus project collected with the
smallest cut budget (1024 bytes), so the collector took payloads out (seed 000, Too large to land)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

import forked
from asz_core.sessiondata import SDReader
from asz_core.storage.layout import landed_files, session_dirs

from test_view_server_browser import go, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

By = pytest.importorskip("selenium.webdriver.common.by", reason="selenium is not installed").By

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "claude-code" / "projects" / "-home-user-sample-project"


@pytest.mark.slow
def test_a_message_too_large_to_land_says_so_on_the_page(tmp_path, serve, browser):
    if not CORPUS.is_dir():
        pytest.skip(f"the corpus is absent ({CORPUS})")
    shutil.copytree(CORPUS, tmp_path / "projects" / CORPUS.name)
    (tmp_path / "asz.yaml").write_text("adapters:\n  - name: claude-code-local\n    collector:\n      max_delta_bytes: 1024\n")
    root = tmp_path / "root"
    p = forked.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--config", str(tmp_path / "asz.yaml"),
                    "--source", str(tmp_path / "projects"), "--root", str(root)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    sid = session_dirs(root)[0].name
    expected = set()
    for ln, path in landed_files(root / sid):
        for _, rec in SDReader(path, decode="dict"):
            parts = rec.get("parts", ())
            if rec.get("from") == "agent" and len(parts) == 1 and parts[0].get("k") == "text" and parts[0].get("state") == "too_large":
                expected.add(f"[too large to land: {parts[0]['bytes']:,} bytes, sha256 {parts[0]['sha256']}]")
    assert expected
    s = serve(root)
    drv = browser
    drv.set_window_size(1280, 1000)
    go(drv, f"{s.base}/c/{sid}")
    try:
        heads = wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#panel > section.talk .talkhead"), timeout=120)
    except Exception:
        shot(drv, "21-too-large-message-no-talks")
        raise
    for head in heads:
        head.click()
    shown = wait(drv, lambda d: [e.text for e in d.find_elements(By.CSS_SELECTOR, ".msg.faint") if e.text.startswith("[too large")],
                 timeout=60)
    assert set(shown) <= expected and set(shown) & expected
    shot(drv, "21-too-large-message")
