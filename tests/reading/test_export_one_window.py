"""``asz export ID --since D --until D --audit --in-range-only``: one conversation's window (trial 27b F10: refused,
exit 2, so one big conversation's day could not be audited or sized alone)."""

from __future__ import annotations

import json

from reading_helpers import asz

SID = "b25638d7-b104-4f06-a797-70ac33d069ed"
DAY = "2025-09-29"  # every line of b25638d7; cb2e607c's and others' days are not


def test_one_conversations_window_is_the_days_lines_of_it(corpus_root, corpus_source, tmp_path):
    src = [json.loads(x) for x in (corpus_source / "-Users-alex-workspace-personal-site-next" / f"{SID}.jsonl").read_text().splitlines()]
    calls = {(d["message"]["id"], d.get("requestId")) for d in src if d.get("type") == "assistant"}
    window = ("--since", DAY, "--until", DAY, "--tz", "UTC", "--audit", "--in-range-only", "--root", str(corpus_root))
    one = asz("export", SID[:8], *window, "--out", str(tmp_path / "one.jsonl"))
    assert one.returncode == 0 and "exported 1 conversation(s)" in one.stderr
    got = (tmp_path / "one.jsonl").read_bytes()
    day = asz("export", *window).stdout.encode()  # the day's stream of every conversation: this one's lines the same
    assert got == b"".join(x + b"\n" for x in day.splitlines() if json.loads(x)["conversation"] == SID)
    head = json.loads(got.splitlines()[0])
    assert head["conversation"] == SID and head["in_window"]["calls"] == len(calls) == 18
    assert (tmp_path / "one.jsonl.manifest.json").is_file()
    other = asz("export", SID[:8], "--since", "2025-09-30", "--until", "2025-09-30", *window[4:], check=False)
    assert other.returncode == 1 and "no conversation matched" in other.stderr  # not active that day: nothing written
    both = asz("export", SID[:8], "--project", "site", "--root", str(corpus_root), check=False)
    assert both.returncode == 2 and "not both" in both.stderr
