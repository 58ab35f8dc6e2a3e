"""``asz search`` says the parts too large to land once, in one line (trial 37b F6: every query printed each such part
of one conversation twice, on stdout after ``!`` and on stderr as a warning, whatever it searched for).

Said where it can matter (trial 42b F3: one part cut at collect was said under every search, whatever it found): a
query with no hit names them all, one with hits those in its hits' conversations, one whose hits are all elsewhere none.

Real input: the corpus's hello session (de3b8b19) with two of its string lines (the typed prompt and the stop hook's
feedback) grown past the default max_delta_bytes (2 MiB), landed by the real collect beside the corpus's spotter
session (55604662, as it is): each lands with its text taken out (seed 000). The count is the source's: its lines over
2,097,152 bytes; the spotter session is the only one whose source holds ``phx``.
"""

from __future__ import annotations

import json

import pytest

from cli_helpers import asz_in_process as asz
from reading_helpers import planted_root

TRANSCRIPT = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
OTHER = "claude-code/projects/-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"
PASTED = "Please review this log: " + "lorem ipsum dolor sit amet " * 85_000 + " zebracorn_needle_end"
pytestmark = pytest.mark.slow  # two 2.3 MB lines collected and indexed: about 15 s


def _grow(lines: list[dict]) -> None:
    for d in lines:
        if d.get("type") == "user" and isinstance((d.get("message") or {}).get("content"), str):
            d["message"]["content"] = PASTED


#: With hits, the line says they are all found (trial 48d F8: the one hit read as a miss under it).
KEPT = ", so a further hit they may hold is not shown (the hits above are all found)"


def test_the_parts_too_large_to_land_are_said_once_in_one_line(corpus_dir, tmp_path):
    root = planted_root(corpus_dir, tmp_path, {TRANSCRIPT: _grow, OTHER: lambda lines: None})
    (path,) = (tmp_path / "projects").rglob("de3b8b19-*.jsonl")
    large = sum(len(x) > 2_097_152 for x in path.read_bytes().splitlines())
    assert large == 2
    assert "phx" not in (corpus_dir / TRANSCRIPT).read_text() and "phx" in (corpus_dir / OTHER).read_text()
    said = ("{n} part(s) too large to land in 1 conversation(s){of} (de3b8b19) were not searched{kept}: their text is not "
            "in the root; asz search WORDS --json --held-back lists each (file, row, size, sha256)")
    for words, of in (("hello", " of these hits"), ("zebracorn_needle_end", "")):  # hits in de3b8b19; no hit at all
        p = asz("search", words, "--root", str(root))
        assert p.returncode == 0 and [x for x in p.stdout.splitlines() if x.startswith("! ")] == [
            "! " + said.format(n=large, of=of, kept=KEPT if of else '')], p.stdout
        assert "too large" not in p.stderr, p.stderr
    by = asz("search", "zebracorn_needle_end", "--conversations", "--root", str(root))  # said by conversation too (46d F2)
    assert by.returncode == 0 and [x for x in by.stdout.splitlines() if x.startswith("! ")] == ["! " + said.format(n=large, of="", kept="")]
    j = asz("search", "hello", "--json", "--root", str(root))
    assert {h["conversation"][:8] for h in json.loads(j.stdout)} == {"de3b8b19"}
    assert [x for x in j.stderr.splitlines() if "too large" in x] == [f"asz search: note: {said.format(n=large, of=' of these hits', kept=KEPT)}"]
    for form in ((), ("--json",)):  # hits only in the other conversation: its cut parts cannot matter, nothing said
        p = asz("search", "phx", *form, "--root", str(root))
        assert p.returncode == 0 and "too large" not in p.stdout + p.stderr, p.stdout + p.stderr
    assert {h["conversation"][:8] for h in json.loads(p.stdout)} == {"55604662"}
    for words in ("hello", "phx"):  # --held-back's JSON lists every one, whatever the query found
        held = json.loads(asz("search", words, "--json", "--held-back", "--root", str(root)).stdout)
        assert len([g for g in held["held_back"]["not_searched"] if g["problem"].startswith("too large to land: ")]) == large
