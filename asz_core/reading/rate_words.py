"""The words of the ``?`` line (calls whose rate was not checked when they landed), in one place: ``asz usage`` and
``asz ls`` print them under their tables (:func:`asz_core.reading.listing.unchecked_line`), and the page's script
reads them as the server serves it (app.js ``WORDS``, written in by :data:`asz_core.view.page.APP_JS`:
:func:`page_words`): its tooltip on a cost marked ``?`` and its line under Usage per day.

Imports nothing: the server writes them into the script before it listens.
"""

from __future__ import annotations

__all__ = ["UNCHECKED_MARK", "UNCHECKED_WHY", "UNCHECKED_MORE", "page_words"]

#: The mark after a cost some of whose calls were landed before their adapter looked at a call's rate
#: (``cost.rate_not_checked_calls``; Claude Code before ``claude-code-local/0.3.0``): whether they ran in fast mode or
#: on a priority tier is not known, and they are priced at standard rates.
UNCHECKED_MARK = "?"

#: What such calls are and how they are priced, after ``N call(s)``: the page's tooltip on a cost marked ``?`` ends
#: here. A ``claude-code-local/0.1.0`` file may also lack ``cache_write_1h`` (trial 23b, F9: the split landed in
#: a41c51e, the adapter still calling itself 0.1.0 until 0.2.0), so its 1-hour cache writes are priced as 5-minute
#: ones; such a file is before 0.3.0, so its calls are already counted.
UNCHECKED_WHY = ("landed before asz looked at a call's rate (claude-code-local before 0.3.0, the adapter version each "
                 "landed file's header names and asz adapters list shows under WRITES, not asz's own version; its records "
                 "keep a call's token counts only): whether they ran in fast mode, a priority or batch tier or a "
                 "data-residency region is not known, nor, in a file of claude-code-local 0.1.0 (some were written before "
                 "asz kept a cache write's 1-hour part), which cache writes were 1-hour ones: one not kept as such is "
                 "priced as a 5-minute one; so their cost is at standard rates")

#: What follows :data:`UNCHECKED_WHY` in a line under a table: what it means for the figure and what the reader can
#: do (the landed records of such a call keep its token counts only, and landed files are written once, so only
#: collecting the same sources into a new root checks them; seed 000: nothing is inferred).
UNCHECKED_MORE = (" and may be below what was billed; this root cannot tell (its landed files are written once), and "
                  "collecting the same sources into a new root (asz collect --once --root NEW, while Claude Code still "
                  "keeps them) checks them there")


def page_words() -> dict:
    """The words app.js ``WORDS`` holds: ``unchecked`` (:data:`UNCHECKED_WHY`) and ``unchecked_more``
    (:data:`UNCHECKED_MORE`)."""
    return {"unchecked": UNCHECKED_WHY, "unchecked_more": UNCHECKED_MORE}
