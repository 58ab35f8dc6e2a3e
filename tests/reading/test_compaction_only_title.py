"""A session whose file holds a compaction summary and what the model did after it, and no person's input, is titled
``(compaction summary, no prompt)`` by every reader, not ``(no prompt)`` (fix46c; trial 45b F7, field report 35).

Seed 004 opens a talk on a person's input only; the summary is the runtime's (Claude Code's ``isCompactSummary`` line),
so the session keeps 0 talks, its lines under ``Outside any talk``. Real input: the corpus's 8463c716 from its
compaction boundary up to the line before the model's next reply after its first tool result (its lines 714 to 744:
the boundary, the summary, hook progress, replies and two Bash calls with their results), written under a new session
id as Claude Code wrote them, landed by ``asz collect --once``. A copy of render 29 (titled ``(no prompt)``) still
checks; the same bytes said render 30 do not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reading_helpers import asz, checks_as_render

from asz_core.view.summary import COMPACTION_ONLY, NO_PROMPT

SOURCE = "-home-user-spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
OLD = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
SID = "c0a1c000-0000-4000-8000-000000000046"
LINES = (714, 744)  # 1-based, both included


@pytest.fixture(scope="module")
def landed(corpus_source: Path, tmp_path_factory) -> tuple[Path, list[dict]]:
    base = tmp_path_factory.mktemp("compaction_only")
    lines = (corpus_source / SOURCE).read_text(encoding="utf-8").splitlines()[LINES[0] - 1:LINES[1]]
    out = base / "projects" / "-home-user-spotter" / f"{SID}.jsonl"
    out.parent.mkdir(parents=True)
    out.write_text("".join(x.replace(OLD, SID) + "\n" for x in lines), encoding="utf-8")
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    return base, [json.loads(x) for x in lines]


def test_the_slice_is_the_shape(landed):
    """What the test stands on, read from the source lines: one compaction summary, no person's line, model calls."""
    _, src = landed
    summaries = [d for d in src if d.get("isCompactSummary")]
    people = [d for d in src if d["type"] == "user" and not d.get("isCompactSummary")
              and isinstance(d["message"]["content"], str)]
    assert len(summaries) == 1 and not people and src[0].get("subtype") == "compact_boundary"
    assert len({d["message"]["id"] for d in src if d["type"] == "assistant"}) == 3


def test_every_reader_titles_it_by_what_it_holds(landed):
    base, src = landed
    root = str(base / "root")
    (row,) = json.loads(asz("ls", "--json", "--root", root).stdout)
    calls = len({d["message"]["id"] for d in src if d["type"] == "assistant"})
    assert (row["title"], row["talks"], row["llm_calls"]) == (COMPACTION_ONLY, 0, calls)
    assert f"{SID[:8]}  {COMPACTION_ONLY}" in asz("ls", "--root", root).stdout
    assert asz("conversation", SID[:8], "--root", root).stdout.splitlines()[0] == f"conversation {SID}: {COMPACTION_ONLY}"
    words = src[1]["message"]["content"].split()[:4]  # "This session is being": the summary's own words
    hits = json.loads(asz("search", f'"{" ".join(words)}"', "--json", "--root", root).stdout)
    assert [(h["title"], h["kind"]) for h in hits] == [(COMPACTION_ONLY, "summary")]
    doc = json.loads(asz("conversation", SID[:8], "--json", "--root", root).stdout)
    assert (doc["summary"]["title"], doc["summary"]["talks"]) == (COMPACTION_ONLY, 0)
    md = asz("export", SID[:8], "--format", "md", "--root", root).stdout
    assert md.startswith(f"# {COMPACTION_ONLY}\n") and NO_PROMPT not in md and "## Outside any talk" in md
    html = asz("export", SID[:8], "--format", "html", "--root", root).stdout
    assert f"<title>{COMPACTION_ONLY}</title>" in html
    assert f"\ntitle: {COMPACTION_ONLY}\n" in asz("export", SID[:8], "--format", "text", "--root", root).stdout

    from starlette.testclient import TestClient

    from asz_core.view.server import ViewState, create_app

    client = TestClient(create_app(ViewState(base / "root")), base_url="http://127.0.0.1")
    rows = client.get("/api/conversations").json()
    rows = rows["conversations"] if isinstance(rows, dict) else rows
    assert [r["title"] for r in rows] == [COMPACTION_ONLY]
    assert client.get(f"/api/c/{SID}/view").json()["summary"]["title"] == COMPACTION_ONLY


def test_a_copy_of_render_29_titled_no_prompt_still_checks(landed, tmp_path):
    from asz_core.reading.export_render import drawing

    base, _ = landed
    with drawing(29):
        asz("export", SID[:8], "--format", "md", "--out", str(tmp_path / "old.md"), "--root", str(base / "root"))
    assert (tmp_path / "old.md").read_text(encoding="utf-8").startswith(f"# {NO_PROMPT}\n")
    checks_as_render(tmp_path / "old.md", base / "root", 29, 30)
