"""The page draws a tool result whose structured copy and text both went to land with each size beside its own
object's digest, the server's words, as the exports say them (trial 47d F7: the page said ``[too large to land:
N bytes, sha256 H]``, the text's size beside the structured copy's digest).

Real input: a Claude Code transcript written here (one Bash call, its result's text and ``toolUseResult`` each over
the budget), landed by the real ``asz collect --once`` with the smallest budget the configuration allows (1,024
bytes), then parsed; a real ``asz view`` on loopback and the run's headless Chromium. Every size and SHA-256 is
computed here from the source line's bytes.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reading"))
from reading_helpers import collected_at_budget  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402

from cli_helpers import asz_in_process  # noqa: E402
from test_view_server_browser import open_at  # noqa: E402, F401  (the browser fixture: tests/conftest.py)
from view_server_helpers import parse  # noqa: E402

SESSION = "47d00000-0000-4000-8000-0000000000f8"
TEXT = "línea ✓ of the output\n" * 150


@pytest.fixture(scope="module")
def landed(tmp_path_factory) -> tuple[Path, str]:
    """The parsed root and the words each size beside its own digest, computed from the source line's bytes."""
    base = tmp_path_factory.mktemp("page-copy-cut")
    collected_at_budget(base, SESSION, [{"tool": "toolu_5", "content": TEXT,
                                         "copy": {"stdout": TEXT, "stderr": "", "interrupted": False}}],
                        call=("Bash", {"command": "cat out"}))
    parse(base / "root")
    line = json.loads((base / "projects" / "-home-me-x" / f"{SESSION}.jsonl").read_bytes().splitlines()[2])
    copy = json.dumps(line["toolUseResult"], separators=(",", ":"), ensure_ascii=False).encode()
    text = line["message"]["content"][0]["content"].encode()
    return base / "root", (f"too large to land: text {len(text):,} bytes (its sha256 not recorded); the runtime's "
                           f"structured copy {len(copy):,} bytes, sha256 {hashlib.sha256(copy).hexdigest()}")


def test_the_page_pairs_each_size_with_its_own_digest(landed, serve, browser):
    root, said = landed
    s = serve(root)
    doc = s.get(f"/api/c/{SESSION}/view").json()
    step = open_at(browser, f"{s.base}/c/{SESSION}#talk={quote(doc['talks'][0]['id'], safe='')}"
                            f"&step={quote('tool/toolu_5', safe='')}", ".node.target")
    assert step.get_attribute("data-id") == "tool/toolu_5"
    shown = [d.text for d in step.find_elements(By.CSS_SELECTOR, "div.faint")]
    assert f"[result {said}]" in shown, shown
    exported = asz_in_process("export", SESSION, "--format", "md", "--root", str(root))
    assert exported.returncode == 0 and f"[{said}]" in exported.stdout  # the export's marker, the same words
