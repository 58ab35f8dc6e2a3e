"""A talk a sub-agent's lines opened in its parent's transcript is marked as a sub-agent's (trial 31b F5).

Claude Code 1.0.x wrote a sub-agent's lines (``"isSidechain": true``) into the main transcript; from
``claude-code-local/0.8.0`` their records say ``sidechain`` (docs/session-data.md). The document's talk carries
``sidechain`` when its opening record says it, and the readers mark the talk (docs/view.md, ``usage_by_lane``;
docs/reading.md). Real input: the corpus's 5c0375b4, whose two such talks open at source rows 16 and 26.
"""

from __future__ import annotations

import json

from asz_core.view.document import build_view
from cli_helpers import asz_in_process
from reading_helpers import source_lines

SID = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
SRC = "-home-user-sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
SAID = " · a sub-agent's lines, written in its parent's transcript"


def _openers(corpus_source) -> list[tuple[int, dict]]:
    """(row, line) of each line that opens a sub-agent's thread in the main file: flagged, with no parent."""
    src = source_lines(corpus_source / SRC)
    return [(row, d) for row, d in enumerate(src, 1) if d.get("isSidechain") is True and d.get("parentUuid") is None]


def test_the_talks_the_flagged_lines_open_say_sidechain(corpus_root, corpus_source):
    openers = _openers(corpus_source)
    assert [row for row, _ in openers] == [16, 26]
    talks = build_view(corpus_root, SID)["talks"]
    assert sorted(t["id"] for t in talks if t.get("sidechain")) == sorted(f"talk/main/{d['uuid']}" for _, d in openers)
    assert not any(t.get("child") for t in talks)  # the stream is the parent's: no child stream


def test_the_readers_mark_them(corpus_root, corpus_source):
    openers = _openers(corpus_source)
    out = asz_in_process("conversation", SID, "--root", str(corpus_root), "--tz", "UTC").stdout
    costliest = [ln for ln in out.splitlines() if ln.startswith("  $") and " call(s), stream " in ln]
    assert len(costliest) == 3
    marked = [ln for ln in costliest if "stream main (a sub-agent's lines) from " in ln]
    assert len(marked) == 2 and all(d["message"]["content"][:20] in "".join(marked) for _, d in openers)
    md = asz_in_process("export", SID, "--root", str(corpus_root), "--tz", "UTC").stdout
    for _, d in openers:
        assert f"`talk/main/{d['uuid']}`{SAID}\n" in md
    assert md.count(SAID) == 2
    audit = [json.loads(x) for x in asz_in_process("export", SID, "--audit", "--root", str(corpus_root)).stdout.splitlines()]
    kinds = {x["row"]: x["kind"] for x in audit if x.get("role") == "user" and x.get("row") in (16, 26)}
    assert kinds == {16: "subagent_prompt", 26: "subagent_prompt"}
