"""A call whose recorded usage no real model reaches (trial 38b F2: a line claiming 5,000,000,000 output tokens was
billed without a word): ``asz usage`` and ``asz ls`` keep the figure as recorded and say it once on stderr, naming
the landed file, its line and the field (docs/reading.md; the bound: asz_core/cli/usage_beyond.py, 10,000,000).

Real input: the corpus's spotter transcript (55604662, one model call over five lines) with the call's output count
written 5,000,000,000 on each of its lines, collected by the real ``asz collect --once``; the totals are counted here
straight from the transcript (one usage per message id, its last line's)."""

from __future__ import annotations

import json

import pytest

from claude_lines import collect_claude
from cli_helpers import asz_in_process

SID = "55604662-cf2a-4331-851a-ec234028f8ca"
HUGE = 5_000_000_000


def test_a_call_beyond_any_model_is_counted_as_recorded_and_said_once(corpus_dir, tmp_path):
    source = corpus_dir / "claude-code" / "projects" / "-home-user-spotter" / f"{SID}.jsonl"
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    lines = [x.replace(b'"output_tokens":13', b'"output_tokens":%d' % HUGE) for x in source.read_bytes().splitlines()]
    last: dict = {}
    for raw in lines:
        d = json.loads(raw)
        m = d.get("message") if isinstance(d.get("message"), dict) else {}
        if d.get("type") == "assistant" and isinstance(m.get("usage"), dict):
            last[(m["id"], d.get("requestId"))] = m["usage"]
            month = d["timestamp"][:7]  # the call's month, UTC: its last usage line's (docs/ccusage.md)
    assert [u["output_tokens"] for u in last.values()] == [HUGE]  # the one call, its every line edited
    root = collect_claude(tmp_path, {SID: lines})
    p = asz_in_process("usage", "session", "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    [row] = json.loads(p.stdout)
    assert row["usage"]["out"] == HUGE and row["usage"]["in"] == sum(u["input_tokens"] for u in last.values())
    for cmd in (("usage",), ("usage", "--json"), ("ls",), ("ls", "--json")):
        said = [x for x in asz_in_process(*cmd, "--root", str(root)).stderr.splitlines() if "beyond any real model" in x]
        assert len(said) == 1, (cmd, said)
        assert said[0].startswith(f"asz {cmd[0]}: note: 1 model call(s) record usage beyond any real model's reach "
                                  "(more than 10,000,000 tokens of a kind in one call; counted as recorded")
        where = said[0].split("them): ", 1)[1]
        landed, line = where.split(" line ", 1)
        row_no = int(line.split(":", 1)[0])
        assert f": usage.out {HUGE:,} (conversation 55604662, call/msg_" in where
        record = json.loads((root / landed).read_bytes().splitlines()[row_no - 1])  # the line it names, as landed
        assert record["usage"]["out"] == HUGE and record["call"] == where.split("call/", 1)[1].split(")", 1)[0]
    table = asz_in_process("usage", "--root", str(root)).stdout
    assert f"{HUGE:,}" in table  # the figure as recorded, not capped
    # a window holding no call says no note of it (trial 40b F3: --since 2030-01 named this call of another month)
    for window, notes in ((("--since", "2030-01"), 0), (("--since", month, "--until", month), 1), (("--until", "2000-01"), 0)):
        p = asz_in_process("usage", "monthly", "--tz", "UTC", *window, "--root", str(root))
        assert p.returncode == (0 if notes else 1), p.stderr  # a window with no call matches nothing: exit 1
        assert sum("beyond any real model" in x for x in p.stderr.splitlines()) == notes, (window, p.stderr)
