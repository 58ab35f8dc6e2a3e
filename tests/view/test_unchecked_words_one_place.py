"""The words of the ``?`` line (calls landed before asz looked at a call's rate) are written once
(``asz_core/view/rate_words.py``), not twice, in Python and in app.js (session 24): ``asz usage`` and ``asz ls``
print them under their tables (``listing.unchecked_line``), and the server writes them into the page's script
(``page.APP_JS``'s ``WORDS``), which the page's tooltip and its line under Usage per day read
(tests/view_server/test_rate_not_checked_page.py reads them there in a real Chromium). So are those of ``tokens not
recorded`` for a conversation with no model call (``NO_CALL``, ``NO_CALL_READ``: ``listing.unrecorded_text`` and the
page's tokens chip; tests/view_server/test_view_server_kiro_page.py and test_list_runtime_not_recorded.py read them in
Chromium). So are the ``^`` line's (``rate_words.rate_text``: ``listing.rate_line`` and the page's ``rateText``), the
words standing in for a part too large to land or removed by retention (``rate_words.LOST``: the exports' markers and
the page's ``lostText``) and the marks ``^``, ``?`` and ``≈`` (session 25). So are the models line's words
(``NOT_BY_RUNTIME``, ``NONE_RECORDED``: ``listing.models_unnamed`` and the page's ``modelsUnnamed``; trial 27a F10)."""

from __future__ import annotations

import json
from pathlib import Path

from asz_core.flow.in_memory import IN_MEMORY_NOTE
from asz_core.reading.export_steps import part_marker
from asz_core.reading.listing import rate_line, unchecked_line, unrecorded_text
from asz_core.reading.removed import KEPT_SRC
from asz_core.view.rate_words import (API_ERRORS, COMMAND_TITLE, PARTIAL_ONLY, PARTIAL_WHY, LOST, NO_CALL, NO_CALL_READ, NO_RESULT, NO_TOKENS_TO_PRICE, NONE_RECORDED, NOT_BY_RUNTIME, RATE_BILLED, RATE_LISTED, RATE_PRICED, RATE_WHY,
                                      UNCHECKED_MORE, UNCHECKED_WHY, HOUR_AFTER, HOUR_BEFORE,
                                      UNCHECKED_LEAD, UNCHECKED_REST, HOUR_OVER_SAID, REPLAYS_SAID, REPLAYS_WHY,
                                      page_words)
from asz_core.view.counted_in import COUNTED_LATER_WHY, COUNTED_WHY
from asz_core.view.page import APP_JS
from asz_core.view.match import NO_PROJECT
from asz_core.view.unended import UNENDED_PREFIX
from asz_core.view.usage import UNDESCRIBED_PREFIX

SOURCE = Path(__file__).resolve().parents[2] / "asz_core" / "view" / "static" / "app.js"
PLACEHOLDER = "WORDS = {/* rate_words.page_words() */};"


def test_the_script_holds_no_copy_of_the_words():
    src = SOURCE.read_text(encoding="utf-8")
    assert src.count(PLACEHOLDER) == 1
    src = "\n".join(ln for ln in src.splitlines() if not ln.lstrip().startswith("//"))  # its code, not its comments
    for part in (UNCHECKED_WHY, UNCHECKED_REST, HOUR_BEFORE, HOUR_AFTER, UNCHECKED_MORE, NO_CALL, NO_CALL_READ, UNDESCRIBED_PREFIX, RATE_WHY, RATE_LISTED.strip("; "),
                 RATE_PRICED.strip("): "), RATE_BILLED.strip(", "), KEPT_SRC, NOT_BY_RUNTIME, NO_TOKENS_TO_PRICE,
                 NO_RESULT, NONE_RECORDED, API_ERRORS, UNENDED_PREFIX, IN_MEMORY_NOTE, COMMAND_TITLE, PARTIAL_WHY, PARTIAL_ONLY,
                 COUNTED_WHY, COUNTED_LATER_WHY):  # no sentence, any quoting (counted_why: the summary carries it)
        for sentence in part.split("; "):
            words = sentence.strip()[:40]
            assert words.replace("'", "\\'") not in src and words not in src, words
    for said in LOST.values():  # a marker's words, as a literal of their own (a file's lines "too large to land …" are other words)
        assert f"'{said}'" not in src and f'"{said}"' not in src, said
    assert not [m for m in ("RATE", "UNCHECKED", "GROUPED") if f"{m}_MARK = '" in src] and "'^'" not in src and "\u2248" not in src  # the marks ^ ? ≈ are WORDS' too


def test_the_served_script_and_the_cli_line_carry_the_same_words():
    served = APP_JS.decode("utf-8")
    assert PLACEHOLDER not in served
    assert "WORDS = " + json.dumps(page_words(), separators=(",", ":")) + ";" in served
    assert page_words() == {"unchecked": UNCHECKED_WHY, "unchecked_lead": UNCHECKED_LEAD, "unchecked_rest": UNCHECKED_REST,
                            "hour_before": HOUR_BEFORE, "hour_after": HOUR_AFTER, "unchecked_more": UNCHECKED_MORE, "no_call": NO_CALL,
                            "no_call_read": NO_CALL_READ, "unread_prefix": UNDESCRIBED_PREFIX, "unchecked_mark": "?",
                            "rate_mark": "^", "rate_why": RATE_WHY, "rate_listed": RATE_LISTED, "rate_priced": RATE_PRICED,
                            "rate_billed": RATE_BILLED, "lost": LOST, "grouped_mark": "≈", "kept_src": KEPT_SRC,
                            "no_result": NO_RESULT, "not_by_runtime": NOT_BY_RUNTIME, "none_recorded": NONE_RECORDED,
                            "no_price": NO_TOKENS_TO_PRICE, "api_errors": API_ERRORS, "unended_prefix": UNENDED_PREFIX,
                            "error_labels": {"request": "API error", "run": "Run failed"}, "below_cent": "<$0.01", "in_memory": IN_MEMORY_NOTE, "command_title": COMMAND_TITLE,
                            "partial_mark": "+", "partial_why": PARTIAL_WHY, "partial_only": PARTIAL_ONLY,
                            "no_project": NO_PROJECT, "replays_said": REPLAYS_SAID, "replays_why": REPLAYS_WHY,
                            "hour_over_said": HOUR_OVER_SAID}
    # the ^ line under asz ls's and asz usage's tables, word for word as docs/reading.md shows it
    assert rate_line(2) == ("^ 2 call(s) ran at a rate the price table does not hold (fast mode, a priority or batch "
                            "tier, or a data-residency region; listed under dropped): their cost is at standard rates, "
                            "below what was billed (--json: cost.rate_not_priced_calls)")
    assert part_marker({"state": "too_large", "bytes": 30_000_005, "sha256": "3a55"}) == "[too large to land: 30,000,005 bytes, sha256 3a55]"
    assert part_marker({"state": "removed", "bytes": 12}) == "[removed by retention: 12 bytes]"
    # asz conversation's tokens line for a conversation with no model call (trial 23a F17: a Kiro session in UTF-16)
    assert unrecorded_text(0, None) == "tokens not recorded: no model call is recorded in this conversation"
    assert unrecorded_text(0, None, unread=True) == ("tokens not recorded: no model call could be read in this "
                                                     "conversation (its transcript records the dialect could not read "
                                                     "may hold some; see undescribed)")
    assert unchecked_line(1234) == f"? 1,234 call(s) {UNCHECKED_WHY}{UNCHECKED_MORE} (--json: cost.rate_not_checked_calls)"
    assert unchecked_line(2, "in 1 of 3 row(s)").startswith(f"? 2 call(s) in 1 of 3 row(s) {UNCHECKED_WHY[:40]}")
    # the 1-hour clause only for the calls whose records hold cache writes and no 1-hour part (trial 37c F1)
    assert "1-hour" not in unchecked_line(9381) and "5-minute" not in unchecked_line(9381)
    assert unchecked_line(9381, "", 12).startswith("? 9,381 call(s) may have cost more than shown, which only a new root "
                                                   "puts right: by up to the cache writes of 12 of them priced again at "
                                                   "the 1-hour rate instead of the 5-minute one (their records hold cache "
                                                   "writes and no 1-hour part: ")
