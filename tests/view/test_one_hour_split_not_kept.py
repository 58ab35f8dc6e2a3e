"""A root collected before asz kept a cache write's 1-hour part (main at a41c51e^, which called itself
claude-code-local 0.1.0, as it still did for a day after a41c51e) holds ``cache_write`` only: its 1-hour writes are
priced at the 5-minute price, and landed files are write-once (trial 23b, F9: such a root read 5 % low). Such a file is
before 0.3.0, so its calls are already counted ``rate_not_checked`` and marked ``?``; the line under the table now names
this cause too, and no figure is guessed: the cost is what the records say, below a fresh root's by exactly the
1-hour tokens times (1-hour price - 5-minute price) of the shipped table. The corpus transcript, collected by an
archive of that commit in a child process."""

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
LINE = ("may have cost more than shown, which only a new root puts right: by up to their cache writes priced again at "
        "the 1-hour rate instead of the 5-minute one (a file of claude-code-local 0.1.0, some written before asz kept a "
        "cache write's 1-hour part, did not keep which were 1-hour ones: each is counted as a 5-minute one)")


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
    assert hour > 0 and "cache_write_1h" not in was["usage"]
    kinds = ("in", "out", "cache_read", "cache_write")
    assert [fresh["usage"][k] for k in kinds] == [was["usage"][k] for k in kinds]  # every count kept
    assert was["usage"]["rate_not_checked"] == was["calls_with_usage"]
    [model] = fresh["models"]
    p = default_table().price(model)
    gap = hour * (float(p.cache_write_1h) - float(p.cache_write)) / 1e6
    assert was["cost"]["usd"] == pytest.approx(fresh["cost"]["usd"] - gap, abs=0.005)
    t = asz_in_process("usage", "daily", "--root", str(old), "--tz", "UTC")
    assert LINE in " ".join(t.stdout.split()), t.stdout
