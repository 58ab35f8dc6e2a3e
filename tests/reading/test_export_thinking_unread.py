"""``asz export --thinking`` says how many thinking blocks hold no text (trial 21, "Exports": on a Claude Code 2.1
session it changed nothing, silently: its 14 thinking blocks are empty strings with a signature, redacted by Claude
Code). docs/reading.md, ``asz export``.

The corpus's ef958aa1 holds 14 such blocks and no readable one (counted here from its transcript): with
``--thinking`` every format that draws thinking (md, html, prose, the prose audit form) says so once, where the
first one would be, and stderr says it; without ``--thinking`` nothing is said. A session whose thinking has text
(55604662) gets no note."""

from __future__ import annotations

import json

import pytest
from reading_helpers import asz, main_transcripts, source_lines

REDACTED = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
READABLE = "55604662-cf2a-4331-851a-ec234028f8ca"


def _thinking_blocks(corpus_source, sid: str) -> list[tuple[str, str]]:
    """``(line timestamp, thinking text)`` of every thinking / redacted_thinking block of the session's transcript."""
    path = main_transcripts(corpus_source).get(sid)
    if path is None:
        pytest.skip(f"the corpus lacks {sid}")
    return [(d.get("timestamp", ""), b.get("thinking") or "") for d in source_lines(path) if d.get("type") == "assistant"
            for b in d["message"]["content"] if isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking")]


def test_thinking_with_no_text_is_said_once(corpus_root, corpus_source):
    blocks = _thinking_blocks(corpus_source, REDACTED)
    assert len(blocks) == 14 and not any(text for _, text in blocks)  # Claude Code 2.1 wrote every one without its text
    note = "[14 thinking block(s) hold no text: 14 written empty by the runtime; --thinking cannot show them]"
    said = f"asz export: note: {REDACTED}: {note[1:-1]}"
    for form in (["--format", "md"], ["--format", "html"], ["--format", "prose"], ["--audit"]):
        p = asz("export", REDACTED[:8], "--thinking", *form, "--root", str(corpus_root))
        assert p.stdout.count(note) == 1, form
        assert p.stderr.splitlines().count(said) == 1, form
        if form[-1] in ("prose", "--audit"):  # the note stands where the first one is: its line's time, as an assistant turn
            line = next(json.loads(x) for x in p.stdout.splitlines() if note in x)
            assert (line["role"], line["text"], line["ts"]) == ("assistant", note, blocks[0][0])
            # the audit form's note has a kind of its own, never a thought's (trial 31b F9)
            assert line.get("kind", "thinking_note") == "thinking_note"
        without = asz("export", REDACTED[:8], *form, "--root", str(corpus_root))
        assert "hold no text" not in without.stdout + without.stderr, form


def test_thinking_with_text_gets_no_note(corpus_root, corpus_source):
    assert all(text for _, text in _thinking_blocks(corpus_source, READABLE))
    for fmt in ("md", "prose"):
        p = asz("export", READABLE[:8], "--thinking", "--format", fmt, "--root", str(corpus_root))
        assert "hold no text" not in p.stdout + p.stderr


def test_in_range_only_says_nothing_of_a_conversation_it_left_out(corpus_root, corpus_source):
    """--in-range-only: a window inside ef958aa1's range holding none of its records (its records' times, read from
    the source, leave 13:50:40.622 to 15:09:30.093 empty) writes none of it, and stderr says no note of it; a window
    holding its thinking says the note as before."""
    path = main_transcripts(corpus_source)[REDACTED]
    times = sorted(t for p in [path, *sorted((path.parent / REDACTED).rglob("*.jsonl"))] for d in source_lines(p)
                   if (t := d.get("timestamp")))
    assert times[0] < "2026-04-18T14:00" and times[-1] > "2026-04-18T15:00"
    assert not [t for t in times if "2026-04-18T14:00" <= t <= "2026-04-18T15:00:00.000Z"]
    for since, until, said in (("2026-04-18T14:00:00Z", "2026-04-18T15:00:00Z", False), ("2026-04-18", "2026-04-18", True)):
        p = asz("export", "--since", since, "--until", until, "--tz", "UTC", "--thinking", "--audit", "--in-range-only",
                "--root", str(corpus_root))
        assert (p.stdout != "") == said and (f"asz export: note: {REDACTED}: 14 thinking" in p.stderr) == said, p.stderr
