"""The words of the ``?`` line (calls landed before asz looked at a call's rate) are written once
(``asz_core/reading/rate_words.py``), not twice, in Python and in app.js (session 24): ``asz usage`` and ``asz ls``
print them under their tables (``listing.unchecked_line``), and the server writes them into the page's script
(``page.APP_JS``'s ``WORDS``), which the page's tooltip and its line under Usage per day read
(tests/view_server/test_rate_not_checked_page.py reads them there in a real Chromium)."""

from __future__ import annotations

import json
from pathlib import Path

from asz_core.reading.listing import unchecked_line
from asz_core.reading.rate_words import UNCHECKED_MORE, UNCHECKED_WHY, page_words
from asz_core.view.page import APP_JS

SOURCE = Path(__file__).resolve().parents[2] / "asz_core" / "view" / "static" / "app.js"
PLACEHOLDER = "WORDS = {/* rate_words.page_words() */};"


def test_the_script_holds_no_copy_of_the_words():
    src = SOURCE.read_text(encoding="utf-8")
    assert src.count(PLACEHOLDER) == 1
    src = "\n".join(ln for ln in src.splitlines() if not ln.lstrip().startswith("//"))  # its code, not its comments
    for part in (UNCHECKED_WHY, UNCHECKED_MORE):  # no sentence of them, in any quoting
        for sentence in part.split("; "):
            words = sentence.strip()[:40]
            assert words.replace("'", "\\'") not in src and words not in src, words


def test_the_served_script_and_the_cli_line_carry_the_same_words():
    served = APP_JS.decode("utf-8")
    assert PLACEHOLDER not in served
    assert "WORDS = " + json.dumps(page_words(), separators=(",", ":")) + ";" in served
    assert page_words() == {"unchecked": UNCHECKED_WHY, "unchecked_more": UNCHECKED_MORE}
    assert unchecked_line(1234) == f"? 1,234 call(s) {UNCHECKED_WHY}{UNCHECKED_MORE} (--json: cost.rate_not_checked_calls)"
    assert unchecked_line(2, "in 1 of 3 row(s)").startswith(f"? 2 call(s) in 1 of 3 row(s) {UNCHECKED_WHY[:40]}")
