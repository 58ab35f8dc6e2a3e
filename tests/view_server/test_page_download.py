"""The page's Download control gives what ``asz export ID --format F`` writes to stdout, byte for byte (trial 44b F5:
the page had no export): ``/api/c/{id}/export?format=md|html|json``, masked as the page is (``asz view`` masks by
default, as ``asz export --redact``), writing nothing in the root.

Real input: the bundled example and the canary session collected and parsed by the real commands, a real ``asz view``,
the real ``asz export`` run as a command (forked: tests/forked.py), headless Chromium for the control's links.
"""

from __future__ import annotations

import sys
from pathlib import Path

import forked

from selenium.webdriver.common.by import By

from test_view_server_browser import open_at  # noqa: F401  (the browser fixture: tests/conftest.py)
from view_server_helpers import CANARY_SESSION, REPO


def _files(root: Path) -> dict[str, int]:
    """The root's files and their mtimes, but the derived caches under ``_index/`` (the checker's ``found/`` files,
    which the server writes as it reads)."""
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in root.rglob("*")
            if p.is_file() and p.relative_to(root).parts[0] != "_index"}


def test_download_is_asz_exports_bytes(example_canary_root, serve, browser):
    s = serve(example_canary_root)
    drv = browser
    box = open_at(drv, f"{s.base}/c/{CANARY_SESSION}", "#download a[data-format='html']").find_element(By.XPATH, "..")
    links = {a.get_attribute("data-format"): a.get_attribute("href") for a in box.find_elements(By.TAG_NAME, "a")}
    assert sorted(links) == ["html", "json", "md"]
    before = _files(example_canary_root)
    for fmt, href in links.items():
        got = s.get(href[len(s.base):])
        assert got.status == 200, got
        # a real command writing to a pipe, forked from the pre-imported server (tests/forked.py: 0.4 s of CPU less than
        # a new interpreter's start; its stdout block-buffered on the pipe as a new one's is)
        made = forked.run([sys.executable, "-m", "asz_core.cli.main", "export", CANARY_SESSION, "--format", fmt, "--redact",
                           "--root", str(example_canary_root)], capture_output=True, cwd=REPO, timeout=120)
        assert made.returncode == 0 and made.stdout, made.stderr
        assert got.body == made.stdout, fmt  # bytes, as asz export writes them to a pipe
        assert got.headers["asz-credentials"] == "masked"
        assert f'filename="{CANARY_SESSION}.{fmt}"' in got.headers["content-disposition"]
    assert _files(example_canary_root) == before  # nothing written in the root: no temp file, no manifest
    assert s.get(f"/api/c/{CANARY_SESSION}/export?format=pdf").status == 400
    assert s.get("/api/c/nosuchconversation/export").status == 404
