"""A root collected before asz kept a cache write's 1-hour part (main at a41c51e^, which called itself
claude-code-local 0.1.0, as it still did for a day after a41c51e) holds ``cache_write`` only: its 1-hour writes are
priced at the 5-minute price, and landed files are write-once (trial 23b, F9: such a root read 5 % low). Such a file is
before 0.3.0, so its calls are already counted ``rate_not_checked`` and marked ``?``; the line under the table now names
this cause too, and no figure is guessed: the cost is what the records say, below a fresh root's by exactly the
1-hour tokens times (1-hour price - 5-minute price) of the shipped table. The corpus transcript, collected by an
archive of that commit in a child process.

Trial 37c F1: the 1-hour clause is said only of the calls whose own records hold cache writes and no 1-hour part,
decided per record: a root landed by 45209c25 (the same adapter version, 0.1.0, after a41c51e) keeps the part, so its
calls whose source gave it are not named, and its cost is a fresh root's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claude_lines import collect_claude
from cli_helpers import asz_in_process, code_at
from test_rate_not_checked import _collect_before
from test_rate_not_priced import SID

from asz_core.view.prices import default_table

BEFORE = "a41c51e^"  # the commit before the Claude Code adapter kept ephemeral_1h_input_tokens as cache_write_1h
AFTER = "45209c25"  # the trial's OLD tree (2026-12-02 04:13): still claude-code-local 0.1.0, keeping cache_write_1h
CLAUSE = ("priced again at the 1-hour rate instead of the 5-minute one (their records hold cache writes and no 1-hour "
          "part: a claude-code-local 0.1.0 file written by an asz before 2026-12-02 did not keep which were 1-hour ones, "
          "and counts each as a 5-minute one)")


def _line(n: int) -> str:
    return f"may have cost more than shown, which only a new root puts right: by up to the cache writes of {n:,} of them {CLAUSE}"


def _source_calls(lines: list[bytes]) -> dict:
    """Each call's (message id, request id) usage from its last assistant line, the runtime's notices left out: counted
    straight from the source, as the records' readers count calls."""
    last = {}
    for x in lines:
        v = json.loads(x)
        m = _with_usage(v)
        if m is not None and m.get("model") != "<synthetic>":
            last[(m["id"], v.get("requestId", ""))] = m["usage"]
    return last


def _with_usage(v: dict) -> dict | None:
    """The message of ``v`` (a transcript line, parsed) when it is an assistant line's carrying usage; else None."""
    m = v.get("message") if v.get("type") == "assistant" else None
    return m if isinstance(m, dict) and isinstance(m.get("usage"), dict) else None


@pytest.fixture(scope="module")
def roots(corpus_dir, tmp_path_factory):
    source = corpus_dir / "claude-code" / "projects" / "-experiments-worktrees" / f"{SID}.jsonl"
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    lines = source.read_bytes().splitlines()
    base = tmp_path_factory.mktemp("split-before")
    return _collect_before(code_at(BEFORE, base), base, lines), collect_claude(tmp_path_factory.mktemp("split-now"), {SID: lines})


def _row(root: Path) -> dict:
    u = asz_in_process("usage", "session", "--json", "--root", str(root), "--tz", "UTC")
    assert u.returncode == 0, u.stderr
    [row] = json.loads(u.stdout)
    return row


def test_old_root_prices_its_one_hour_writes_as_five_minute_ones_and_says_so(roots):
    old, now = roots
    heads = {json.loads(sd.read_bytes().split(b"\n", 1)[0])["adapter"] for sd in (old / SID).rglob("*.sd")}
    assert heads == {"claude-code-local/0.1.0"}
    assert b"cache_write_1h" not in b"".join(sd.read_bytes() for sd in (old / SID).rglob("*.sd"))
    was, fresh = _row(old), _row(now)
    hour = fresh["usage"]["cache_write_1h"]
    assert hour > 0 and was["usage"]["cache_write_1h"] is None  # not kept: null, never 0 (every row has the key)
    kinds = ("in", "out", "cache_read", "cache_write")
    assert [fresh["usage"][k] for k in kinds] == [was["usage"][k] for k in kinds]  # every count kept
    assert was["usage"]["rate_not_checked"] == was["calls_with_usage"]
    [model] = fresh["models"]
    p = default_table().price(model)
    gap = hour * (float(p.cache_write_1h) - float(p.cache_write)) / 1e6
    assert was["cost"]["usd"] == pytest.approx(fresh["cost"]["usd"] - gap, abs=0.005)
    t = asz_in_process("usage", "daily", "--root", str(old), "--tz", "UTC")
    writes = sum(1 for u in _source_calls(roots_lines(old)).values() if u.get("cache_creation_input_tokens"))
    assert writes == 17 and was["cost"]["hour_not_kept_calls"] == writes  # every call that wrote: none kept its part
    assert _line(writes) in " ".join(t.stdout.split()), t.stdout


def roots_lines(root: Path) -> list[bytes]:
    return (root.parent / "projects" / "-home-dev-app" / f"{SID}.jsonl").read_bytes().splitlines()


def _without_split(lines: list[bytes]) -> list[bytes]:
    """``lines`` with every other call's ``message.usage.cache_creation`` taken out (as Claude Code before its 1-hour
    cache wrote them): those calls hold cache writes and no 1-hour part in any record."""
    calls = sorted(_source_calls(lines))
    drop = set(calls[::2])
    out = []
    for x in lines:
        v = json.loads(x)
        m = _with_usage(v)
        if m is not None and (m.get("id"), v.get("requestId", "")) in drop:
            m["usage"].pop("cache_creation", None)
            x = json.dumps(v, ensure_ascii=False).encode()
        out.append(x)
    return out


@pytest.fixture(scope="module")
def kept(corpus_dir, tmp_path_factory):
    source = corpus_dir / "claude-code" / "projects" / "-experiments-worktrees" / f"{SID}.jsonl"
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    lines = _without_split(source.read_bytes().splitlines())
    base = tmp_path_factory.mktemp("split-kept")
    return lines, _collect_before(code_at(AFTER, base), base, lines), collect_claude(tmp_path_factory.mktemp("split-kept-now"), {SID: lines})


def test_a_0_1_0_root_that_kept_the_part_names_only_the_calls_whose_records_lack_it(kept):
    lines, old, now = kept
    heads = {json.loads(sd.read_bytes().split(b"\n", 1)[0])["adapter"] for sd in (old / SID).rglob("*.sd")}
    assert heads == {"claude-code-local/0.1.0"}  # the same adapter version as the root above: decided per record
    calls = _source_calls(lines)
    hourless = sum(1 for u in calls.values() if u.get("cache_creation_input_tokens")
                   and not (u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens"))
    assert hourless == 9 and len(calls) == 17  # counted from the source: the calls whose line lost cache_creation
    was, fresh = _row(old), _row(now)
    assert was["cost"]["rate_not_checked_calls"] == 17 and was["cost"]["hour_not_kept_calls"] == hourless
    assert was["cost"]["usd_exact"] == fresh["cost"]["usd_exact"]  # its records kept the part: a fresh root's cost
    assert "hour_not_kept_calls" not in fresh["cost"]
    t = asz_in_process("usage", "daily", "--root", str(old), "--tz", "UTC")
    said = " ".join(t.stdout.split())
    assert _line(hourless) in said and "? 17 call(s)" in said, t.stdout
    c = asz_in_process("ls", "--root", str(old))
    assert _line(hourless) in " ".join(c.stdout.split()), c.stdout


def test_a_0_1_0_root_whose_every_record_kept_the_part_says_no_one_hour_clause(roots, tmp_path_factory):
    """The trial's case: every call of a 45209c25 root holds its 1-hour part, so the ? line names no 1-hour writes."""
    source = roots_lines(roots[0])
    base = tmp_path_factory.mktemp("split-all-kept")
    old = _collect_before(code_at(AFTER, base), base, source)
    was = _row(old)
    assert was["cost"]["rate_not_checked_calls"] == 17 and "hour_not_kept_calls" not in was["cost"]
    t = asz_in_process("usage", "daily", "--root", str(old), "--tz", "UTC")
    said = " ".join(t.stdout.split())
    assert "? 17 call(s)" in said and "1-hour" not in said and "5-minute" not in said, t.stdout
