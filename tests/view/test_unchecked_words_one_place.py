"""The words of the ``?`` line (calls landed before asz looked at a call's rate) are written once
(``asz_core/view/rate_words.py``), not twice, in Python and in app.js (session 24): ``asz usage`` and ``asz ls``
print them under their tables (``listing.unchecked_line``), and the server writes them into the page's script
(``page.APP_JS``'s ``WORDS``), which the page's tooltip and its line under Usage per day read
(tests/view_server/test_rate_not_checked_page.py reads them there in a real Chromium). So are those of ``tokens not
recorded`` for a conversation with no model call (``NO_CALL``, ``NO_CALL_READ``: ``listing.unrecorded_text`` and the
page's tokens chip; tests/view_server/test_view_server_kiro_page.py and test_list_runtime_not_recorded.py read them in
Chromium)."""

from __future__ import annotations

import json
from pathlib import Path

from asz_core.reading.listing import unchecked_line, unrecorded_text
from asz_core.view.rate_words import NO_CALL, NO_CALL_READ, UNCHECKED_MORE, UNCHECKED_WHY, page_words
from asz_core.view.page import APP_JS
from asz_core.view.usage import UNDESCRIBED_PREFIX

SOURCE = Path(__file__).resolve().parents[2] / "asz_core" / "view" / "static" / "app.js"
PLACEHOLDER = "WORDS = {/* rate_words.page_words() */};"


def test_the_script_holds_no_copy_of_the_words():
    src = SOURCE.read_text(encoding="utf-8")
    assert src.count(PLACEHOLDER) == 1
    src = "\n".join(ln for ln in src.splitlines() if not ln.lstrip().startswith("//"))  # its code, not its comments
    for part in (UNCHECKED_WHY, UNCHECKED_MORE, NO_CALL, NO_CALL_READ, UNDESCRIBED_PREFIX):  # no sentence, any quoting
        for sentence in part.split("; "):
            words = sentence.strip()[:40]
            assert words.replace("'", "\\'") not in src and words not in src, words


def test_the_served_script_and_the_cli_line_carry_the_same_words():
    served = APP_JS.decode("utf-8")
    assert PLACEHOLDER not in served
    assert "WORDS = " + json.dumps(page_words(), separators=(",", ":")) + ";" in served
    assert page_words() == {"unchecked": UNCHECKED_WHY, "unchecked_more": UNCHECKED_MORE, "no_call": NO_CALL,
                            "no_call_read": NO_CALL_READ, "unread_prefix": UNDESCRIBED_PREFIX}
    # asz conversation's tokens line for a conversation with no model call (trial 23a F17: a Kiro session in UTF-16)
    assert unrecorded_text(0, None) == "tokens not recorded: no model call is recorded in this conversation"
    assert unrecorded_text(0, None, unread=True) == ("tokens not recorded: no model call could be read in this "
                                                     "conversation (its transcript records the dialect could not read "
                                                     "may hold some; see undescribed)")
    assert unchecked_line(1234) == f"? 1,234 call(s) {UNCHECKED_WHY}{UNCHECKED_MORE} (--json: cost.rate_not_checked_calls)"
    assert unchecked_line(2, "in 1 of 3 row(s)").startswith(f"? 2 call(s) in 1 of 3 row(s) {UNCHECKED_WHY[:40]}")
