"""A call Claude Code ran in fast mode (``message.usage.speed`` ``fast``), on a priority or batch tier or in a
data-residency region costs a multiple of the standard rates the price table holds. The adapter lists the field under
``dropped`` (seed 000, Dropped: a loss is stated rather than silent), and ``asz usage`` and ``asz ls`` price the call at
standard rates and say so (docs/view.md, Usage). A real corpus transcript, copied and edited to run two calls in fast
mode; the counts come from the edited source."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from asz_adapters_claude.blocks import usage_of
from claude_lines import collect_claude
from cli_helpers import asz_in_process

SID = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
STANDARD, FAST = b'"speed":"standard"', b'"speed":"fast"'


def edited(source: Path) -> list[bytes]:
    """The transcript's lines with every line of its first two calls (message ids) that say ``speed`` ``standard``
    saying ``fast`` instead."""
    lines = source.read_bytes().splitlines()
    ids = [call_of(x) for x in lines if STANDARD in x and _usage(x).get("speed") == "standard"]
    fast = set(list(dict.fromkeys(i for i in ids if i))[:2])
    return [x.replace(STANDARD, FAST) if STANDARD in x and call_of(x) in fast and _usage(x).get("speed") == "standard"
            else x for x in lines]


def _usage(x: bytes) -> dict:
    v = json.loads(x)
    m = v.get("message") if v.get("type") == "assistant" else None
    return (m.get("usage") if isinstance(m, dict) else None) or {}


def call_of(x: bytes) -> tuple[str, str] | None:
    """The call (message id, request id) of an assistant line, None for another line."""
    v = json.loads(x)
    return (v["message"]["id"], v.get("requestId", "")) if v.get("type") == "assistant" else None


def fast_calls(lines: list[bytes]) -> set[tuple[str, str]]:
    """The calls (message id, request id) of the lines whose usage says ``speed`` ``fast``."""
    return {call_of(x) for x in lines if _usage(x).get("speed") == "fast"}


def fast_case(corpus_dir: Path, base: Path) -> tuple[list[bytes], Path]:
    """(the corpus transcript SID with its first two calls in fast mode, a root it was collected into under ``base``);
    skips when the corpus is absent."""
    source = corpus_dir / "claude-code" / "projects" / "-experiments-worktrees" / f"{SID}.jsonl"
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    lines = edited(source)
    return lines, collect_claude(base, {SID: lines})


@pytest.fixture(scope="module")
def case(corpus_dir, tmp_path_factory):
    return fast_case(corpus_dir, tmp_path_factory.mktemp("rate"))


def landed_records(root: Path) -> list[dict]:
    out = []
    for sd in sorted((root / SID / "streams" / "main").glob("transcript-*.sd")):
        out += [json.loads(x) for x in sd.read_bytes().splitlines()[1:-1]]
    return out


def test_each_fast_line_lists_its_speed_under_dropped_and_no_standard_line_does(case):
    lines, root = case
    fast_lines = [x for x in lines if _usage(x).get("speed") == "fast"]
    assert len(fast_calls(lines)) == 2 and len(fast_lines) >= 2
    listed = [(r["off"], d) for r in landed_records(root) for d in r.get("dropped") or () if d["what"].startswith("usage rate ")]
    assert [d["what"] for _, d in listed] == ["usage rate message.usage.speed fast"] * len(fast_lines)
    assert all(d["bytes"] == len(b'"fast"') and "price table does not hold" in d["why"] for _, d in listed)
    offsets, off = [], 0  # the records that list it are the fast lines, by their offset in the source
    for x in lines:
        if _usage(x).get("speed") == "fast":
            offsets.append(off)
        off += len(x) + 1
    assert [o for o, _ in listed] == offsets


def test_asz_usage_and_asz_ls_count_the_fast_calls_and_mark_the_cost(case):
    lines, root = case
    want = len(fast_calls(lines))
    u = asz_in_process("usage", "session", "--json", "--root", str(root), "--tz", "UTC")
    assert u.returncode == 0, u.stderr
    assert [r["cost"].get("rate_not_priced_calls") for r in json.loads(u.stdout)] == [want]
    t = asz_in_process("usage", "session", "--root", str(root), "--tz", "UTC")
    assert re.search(r"\$[\d,.]+\^", t.stdout), t.stdout
    assert f"^ {want} call(s) ran at a rate the price table does not hold (fast mode" in t.stdout
    ls = asz_in_process("ls", "--json", "--root", str(root))
    assert ls.returncode == 0, ls.stderr
    assert [r["cost"].get("rate_not_priced_calls") for r in json.loads(ls.stdout)] == [want]
    text = asz_in_process("ls", "--root", str(root))
    assert re.search(r"\$[\d,.]+\^", text.stdout) and f"^ {want} call(s) ran at a rate" in text.stdout, text.stdout
    c = asz_in_process("conversation", SID, "--root", str(root))
    assert f"({want} call(s) at a rate the price table does not hold, priced at standard rates)" in c.stdout, c.stdout


@pytest.mark.parametrize("field, value, listed", [
    ("speed", "standard", False), ("speed", "fast", True), ("service_tier", "standard", False),
    ("service_tier", "priority", True), ("service_tier", "batch", True), ("inference_geo", "", False),
    ("inference_geo", "not_available", False), ("inference_geo", "global", False), ("inference_geo", "us", True),
])
def test_only_a_rate_other_than_standard_is_listed(field, value, listed):
    """The values: speed and service_tier ``standard`` and inference_geo ``""`` and ``not_available`` as the corpus
    holds them; ``global`` the API's default inference_geo and ``us`` its one region (platform.claude.com, Data
    residency); ``fast``, ``priority`` and ``batch`` the rates priced at a multiple of standard ones."""
    dropped: list = []
    usage_of({"usage": {"input_tokens": 3, "output_tokens": 4, field: value}}, None, dropped)
    assert [(d.what, d.bytes) for d in dropped] == ([(f"usage rate message.usage.{field} {value}", len(value) + 2)] if listed else [])
