"""Every page that names the search index's file or schema names the one this asz keeps
(:data:`asz_core.reading.search_store.SCHEMA_VERSION`; docs/storage-root.md, "Derived data each version keeps").

Session 26 (2d270f0) moved the index to ``search-27.sqlite`` and left ``search-26.sqlite`` in docs/view.md and
docs/verify.md (the latter quoting verify's own problem line) and ``26 is the index schema`` / ``index schema 26`` in
docs/storage-root.md. docs/performance.md is a log of sessions (each figure of its own day) and is not held.
"""

from __future__ import annotations

import re
from pathlib import Path

from asz_core.reading.search_store import SCHEMA_VERSION

REPO = Path(__file__).resolve().parents[2]
#: What names the index's schema in prose: its file name, "index schema N", "N is its schema", "N is the index schema".
NAMED = re.compile(r"\bsearch-(\d+)\.sqlite|\bindex schema (\d+)|\b(\d+) is (?:its|the index) schema")


def test_every_page_names_this_index_schema() -> None:
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    named, other = 0, []
    for page in pages:
        if page.name == "performance.md":
            continue
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
            for m in NAMED.finditer(line):
                named += 1
                if next(g for g in m.groups() if g) != SCHEMA_VERSION:
                    other.append(f"{page.relative_to(REPO)}:{n}: {m.group()!r}")
    assert named >= 10, f"only {named} places name the index schema: the pattern no longer reads the docs"
    assert not other, f"the index schema is {SCHEMA_VERSION}; these name another:\n" + "\n".join(other)
