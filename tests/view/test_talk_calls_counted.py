"""``asz conversation``'s costliest talks count a talk's calls as CALLS does (every model call), and say how many of
them carry usage when some do not (trial 38b F6: ``5 call(s)`` said of a talk of 7 calls, 5 with usage, while CALLS
elsewhere counted them all).

Real input: the corpus's hello-world transcript (de3b8b19, four Claude model calls in one talk) with one call's usage
left out and another's written ``null`` (the trial's edge session shape), collected by the real ``asz collect
--once``; the counts and the cost are made here straight from the transcript's lines."""

from __future__ import annotations

import json
from decimal import ROUND_HALF_EVEN, Decimal

import pytest

from claude_lines import collect_claude, priced
from cli_helpers import asz_in_process

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
SOURCE = f"-home-user-claude-reliability/{SID}.jsonl"


def _edited(lines: list[bytes]) -> list[bytes]:
    out = list(lines)
    d = json.loads(out[6])
    del d["message"]["usage"]  # usage missing
    out[6] = json.dumps(d).encode()
    d = json.loads(out[8])
    d["message"]["usage"] = None  # usage null
    out[8] = json.dumps(d).encode()
    return out


def source_counts(lines: list[bytes]) -> tuple[int, int, str]:
    """``(calls, calls with usage, cost)`` straight from the transcript: one call per message id + request id, its
    last line's usage; the cost of those with usage to the cent."""
    last: dict = {}
    for raw in lines:
        d = json.loads(raw)
        m = d.get("message") if isinstance(d.get("message"), dict) else {}
        if d.get("type") == "assistant" and m.get("model") != "<synthetic>":
            last[(m.get("id"), d.get("requestId"))] = (m.get("model"), m.get("usage"))
    used = [(mod, u) for mod, u in last.values() if isinstance(u, dict)]
    cost = sum((priced(mod, u) for mod, u in used), Decimal(0))
    return len(last), len(used), f"${cost.quantize(Decimal('0.01'), ROUND_HALF_EVEN):,}"


@pytest.fixture(scope="module")
def landed(corpus_dir, tmp_path_factory):
    lines = _edited((corpus_dir / "claude-code" / "projects" / SOURCE).read_bytes().splitlines())
    return collect_claude(tmp_path_factory.mktemp("talk-calls"), {SID: lines}), source_counts(lines)


def test_a_talk_counts_every_call_and_says_how_many_carry_usage(landed):
    root, (calls, with_usage, cost) = landed
    assert (calls, with_usage) == (4, 2)
    p = asz_in_process("conversation", SID, "--tz", "UTC", "--root", str(root))
    assert p.returncode == 0, p.stderr
    (line,) = [ln for ln in p.stdout.splitlines() if ln.startswith("  $")]
    assert line.startswith(f"  {cost} (100%), {calls} call(s), {with_usage} with usage, stream main from "), line


def test_the_count_is_the_one_calls_gives(landed):
    root, (calls, with_usage, _) = landed
    (row,) = json.loads(asz_in_process("ls", "--json", "--root", str(root)).stdout)
    assert (row["llm_calls"], row["calls_with_usage"]) == (calls, with_usage)
    (u,) = json.loads(asz_in_process("usage", "session", "--json", "--root", str(root)).stdout)
    assert (u["calls"], u["calls_with_usage"]) == (calls, with_usage)


def test_a_talk_whose_calls_all_carry_usage_says_its_calls_alone(corpus_dir, tmp_path):
    lines = (corpus_dir / "claude-code" / "projects" / SOURCE).read_bytes().splitlines()
    calls, with_usage, cost = source_counts(lines)
    assert calls == with_usage == 4
    root = collect_claude(tmp_path, {SID: lines})
    out = asz_in_process("conversation", SID, "--tz", "UTC", "--root", str(root)).stdout
    (line,) = [ln for ln in out.splitlines() if ln.startswith("  $")]
    assert line.startswith(f"  {cost} (100%), 4 call(s), stream main from "), line
