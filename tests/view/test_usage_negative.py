"""A negative usage count lands as written (seed 000: an integer with its sign) and was summed into every total with
no notice (new-user trial). Now it is counted 0 and the call's usage is marked incomplete, as a count listed under
``dropped`` is: the document (call node, ``summary.usage_incomplete``, a ``usage incomplete:`` note), ``asz ls``
(``~``, ``usage_incomplete``) and ``asz usage`` (``~``, ``usage_incomplete`` naming ``usage.out=-25``).

Real input: the corpus's hello-world transcript (de3b8b19, four model calls) with two counts written negative, collected
by the real ``asz collect --once``; the totals are made here straight from the transcript's lines."""

from __future__ import annotations

import json
import re

import pytest

from claude_lines import collect_claude, edited_lines
from cli_helpers import asz_in_process, usage_json

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
SOURCE = f"-home-user-claude-reliability/{SID}.jsonl"
FIELDS = {"input_tokens": "in", "output_tokens": "out", "cache_read_input_tokens": "cache_read",
          "cache_creation_input_tokens": "cache_write"}
#: (line index, the bytes written, what they become): two calls' counts made negative.
EDITS = ((4, b'"output_tokens":25', b'"output_tokens":-25'), (8, b'"input_tokens":1,', b'"input_tokens":-1,'))


def source_usage(lines: list[bytes]) -> tuple[dict, int, list[str]]:
    """``(totals, calls, negative)`` straight from the transcript: one usage per message id + request id, its last
    line's; a count below 0 counts 0 and is named in ``negative`` as ``usage.<kind>=<value>``."""
    last: dict = {}
    for raw in lines:
        d = json.loads(raw)
        m = d.get("message") if isinstance(d.get("message"), dict) else {}
        if d.get("type") == "assistant" and isinstance(m.get("usage"), dict):
            last[(m.get("id"), d.get("requestId"))] = m["usage"]
    total, negative = dict.fromkeys(FIELDS.values(), 0), []
    for u in last.values():
        for k, v in u.items():
            if k in FIELDS and type(v) is int:
                total[FIELDS[k]] += max(v, 0)
                if v < 0:
                    negative.append(f"usage.{FIELDS[k]}={v}")
    return total, len(last), sorted(negative)


@pytest.fixture(scope="module")
def landed(corpus_dir, tmp_path_factory):
    lines = edited_lines(corpus_dir / "claude-code" / "projects" / SOURCE, EDITS)
    return collect_claude(tmp_path_factory.mktemp("usage-negative"), {SID: lines}), source_usage(lines)


def test_asz_usage_counts_a_negative_count_0_and_names_it(landed):
    root, (total, calls, negative) = landed
    assert negative == ["usage.in=-1", "usage.out=-25"]
    p = asz_in_process("usage", "session", "--json", "--tz", "UTC", "--root", str(root))
    assert p.returncode == 0, p.stderr
    (row,) = json.loads(p.stdout)
    assert (row["usage"], row["calls"]) == (usage_json(total), calls)
    assert row["usage_incomplete"] == [{"conversation": SID, "calls": 2, "fields": negative}]
    t = asz_in_process("usage", "session", "--tz", "UTC", "--root", str(root)).stdout.splitlines()
    assert " ~" in t[1] and t[-1].startswith("~ usage incomplete") and "usage.out=-25" in t[-1]


def test_asz_ls_marks_the_tokens_and_counts_the_calls(landed):
    root, (total, _, _) = landed
    (row,) = json.loads(asz_in_process("ls", "--json", "--root", str(root)).stdout)
    assert (row["usage"], row["usage_incomplete"]) == (total, 2)
    table = asz_in_process("ls", "--root", str(root)).stdout.splitlines()
    assert re.split(r"\s{2,}", table[1])[-4] == f"{sum(total.values()):,} ~"  # TOKENS, then COST, RUNTIME, STATE
    assert any(line.startswith("~ usage incomplete") and f"{SID[:8]} (2 call(s))" in line for line in table)


def test_the_document_names_each_call_and_why(landed):
    root, (total, _, _) = landed
    p = asz_in_process("conversation", SID, "--json", "--root", str(root))
    doc = json.loads(p.stdout)
    assert doc["summary"]["usage"] == total and doc["summary"]["usage_incomplete"] == 2
    notes = [x for x in doc["summary"]["problems"] if x.startswith("usage incomplete:")]
    assert len(notes) == 2 and all("negative" in x for x in notes), notes
    assert any("usage.out=-25" in x for x in notes)
