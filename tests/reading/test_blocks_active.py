"""``asz usage blocks --active`` gives the open 5-hour block alone (ccusage's ``blocks --active``; trial 44a F6), and
exit 1, said, when no block is open; ``--active`` with another view is a usage error.

Real input: Claude Code calls written here as Claude Code writes them, one 20 minutes ago (its block is open) and one
three days ago, landed by ``asz collect --once``. The expected figures are the recent call's, from its source line.
"""

from __future__ import annotations

import datetime as dt
import json

from reading_helpers import asz

SID = "5a6b7c8d-0000-4000-8000-00000000ac71"


def _call(n: int, at: dt.datetime, tokens: tuple[int, int]) -> dict:
    return {"parentUuid": None, "isSidechain": False, "type": "assistant", "cwd": "/home/me/blocks", "sessionId": SID,
            "uuid": f"a{n}", "timestamp": at.strftime("%Y-%m-%dT%H:%M:%S.000Z"), "requestId": f"req_{n}",
            "message": {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                        "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                        "usage": {"input_tokens": tokens[0], "output_tokens": tokens[1]}}}


def _root(tmp_path, calls: list[dict]) -> str:
    proj = tmp_path / "projects" / "-home-me-blocks"
    proj.mkdir(parents=True)
    (proj / f"{SID}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in calls))
    root = str(tmp_path / "root")
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", root)
    return root


def test_blocks_active_is_the_open_block_alone(tmp_path):
    now = dt.datetime.now(dt.timezone.utc)
    calls = [_call(1, now - dt.timedelta(days=3), (100, 200)), _call(2, now - dt.timedelta(minutes=20), (7, 11))]
    root = _root(tmp_path / "a", calls)
    every = json.loads(asz("usage", "blocks", "--json", "--total-once", "--root", root).stdout)
    assert len(every["rows"]) == 2  # the premise: two blocks, one of them open
    got = json.loads(asz("usage", "blocks", "--active", "--json", "--total-once", "--root", root).stdout)
    (row,) = got["rows"]
    recent = calls[1]["message"]["usage"]
    assert row["active"] is True and row["calls"] == 1
    assert (row["usage"]["in"], row["usage"]["out"]) == (recent["input_tokens"], recent["output_tokens"]) == (7, 11)
    assert (got["total"]["usage"]["in"], got["total"]["calls"]) == (7, 1)

    old = _root(tmp_path / "b", calls[:1])
    p = asz("usage", "blocks", "--active", "--root", old, check=False)
    assert p.returncode == 1 and p.stdout == "" and "no block is open now" in p.stderr
    p = asz("usage", "daily", "--active", "--root", old, check=False)
    assert p.returncode == 2 and "--active is the blocks view's" in p.stderr


def test_a_block_timed_after_now_is_not_open(tmp_path):
    """Trial 46a F4: a transcript whose lines are timed ahead of the clock made a second block "open", its projection
    running from now to its end 15 h away, past a block's 5 hours. Such a block is not open (``after_now``, a line
    says why), and the open block's projection ends at its own end, 5 hours after its start at most."""
    now = dt.datetime.now(dt.timezone.utc)
    calls = [_call(1, now - dt.timedelta(minutes=20), (7, 11)), _call(2, now - dt.timedelta(minutes=10), (5, 3)),
             _call(3, now + dt.timedelta(hours=6), (100, 200)), _call(4, now + dt.timedelta(hours=6, minutes=30), (1, 2))]
    root = _root(tmp_path / "a", calls)
    rows = json.loads(asz("usage", "blocks", "--json", "--total-once", "--tz", "UTC", "--root", root).stdout)["rows"]
    here, ahead = rows  # the premise: two blocks, the calls 6 h apart
    assert (here["calls"], ahead["calls"]) == (2, 2)
    assert here["active"] is True and here["after_now"] is False and here["projection"] is not None
    assert 0 < here["projection"]["remaining_ms"] <= here["end"] - here["start"] == 5 * 3_600_000
    assert here["end"] - here["projection"]["at"] == here["projection"]["remaining_ms"]
    assert ahead["active"] is False and ahead["after_now"] is True
    assert ahead["burn_rate"] is None and ahead["projection"] is None
    text = asz("usage", "blocks", "--tz", "UTC", "--root", root).stdout.splitlines()
    assert [x for x in text if x.startswith("> block ")] == [
        x for x in text if x.startswith(f"> block {here['block']} is open: ")] + [
        f"> block {ahead['block']} starts after now: its calls are timed ahead of this machine's clock (a clock set "
        "ahead, or a transcript from a machine whose clock is), so it is not open and has no burn rate or projection"]
    (only,) = json.loads(asz("usage", "blocks", "--active", "--json", "--total-once", "--root", root).stdout)["rows"]
    assert only["block"] == here["block"] and only["calls"] == 2

    later = _root(tmp_path / "b", calls[2:])
    p = asz("usage", "blocks", "--active", "--tz", "UTC", "--root", later, check=False)
    assert p.returncode == 1 and p.stdout == ""
    assert f"no block is open now (block {ahead['block']} starts after now: its calls are timed ahead" in p.stderr
