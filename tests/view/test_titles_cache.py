"""The summary cache's fingerprint covers the code that makes titles and labels (trial 6, reading gap 2).

``<root>/_index/summaries.sqlite`` keeps each conversation's row and summary, title included, under a fingerprint
of its files and of asz. A root listed by an asz whose title code differed (an older release, or a development
build of the same version) must not keep the titles that code gave: the fingerprint hashes the source of the
modules that make titles and labels (``TITLE_CODE``), and every function that decides one is defined in them.
"""

from __future__ import annotations

import inspect
import json
import sqlite3
from pathlib import Path

from asz_core.view import summary_cache
from asz_core.view.nodes import talk_label
from asz_core.view.secret_forms import shown_title
from asz_core.view.secret_guards import looks_named_password
from asz_core.view.summary import DocumentView, short_title, title_text
from asz_core.view.label_senders import Senders
from asz_core.view.named_titles import NamedIn, scan_file
from asz_core.view.time_order import in_time_order
from asz_core.view.titles import RuntimeTitle, label_for_record, prompt_text

from claude_lines import collect_claude
from cli_helpers import asz_in_process
from test_view_summary_titles import A, B, SESSIONS


def test_every_function_that_makes_a_title_or_a_label_is_in_the_fingerprinted_code():
    made_by = (DocumentView.title, DocumentView.runtime_title, RuntimeTitle, label_for_record, prompt_text, short_title, title_text, talk_label,
               shown_title, looks_named_password, NamedIn.title, NamedIn.takes, Senders.same, scan_file, in_time_order)
    files = {Path(inspect.getsourcefile(f)) for f in made_by}
    assert {f.name for f in files} <= set(summary_cache.TITLE_CODE)
    assert all(f.parent == Path(summary_cache.__file__).parent for f in files)


def _titles(root):
    p = asz_in_process("ls", "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    return {r["id"]: r["title"] for r in json.loads(p.stdout)}


def test_a_title_kept_by_other_title_code_is_not_read(tmp_path, monkeypatch):
    root = collect_claude(tmp_path, SESSIONS)
    NOW = SESSIONS[A][1]["summary"]  # A's summary for B's message: B's title (trial 41c F2)
    monkeypatch.setattr(summary_cache, "code_mark", lambda: "an older asz")
    assert _titles(root)[B] == NOW
    # what an older code kept for B: the summary A wrote for its own message
    old = "Parser fixes in session A"
    con = sqlite3.connect(root / "_index" / "summaries.sqlite")
    with con:
        for table, col in (("rows", "row"), ("summaries", "entry")):
            for hide, fp, value in con.execute(f"SELECT hide, fp, {col} FROM {table} WHERE id=?", (B,)).fetchall():
                text = value.decode() if isinstance(value, bytes) else value
                assert NOW in text
                text = text.replace(NOW, old)
                # sealed as the older asz would have sealed what it wrote
                con.execute(f"UPDATE {table} SET {col}=?, seal=? WHERE id=? AND hide=?",
                            (text, summary_cache.seal(table, B, hide, fp, text), B, hide))
    con.close()
    assert _titles(root)[B] == old  # read while that code's fingerprint holds
    monkeypatch.undo()
    assert _titles(root)[B] == NOW  # this code's fingerprint: counted again
