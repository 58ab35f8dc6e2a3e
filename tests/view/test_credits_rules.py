"""How the credits a runtime meters are added up and placed (docs/adapters.md, ``credits``; docs/view.md,
``summary.credits_at``), on Kiro sessions written from the corpus's real files into a temporary home:

- a ``usage_summary`` line adds what its prompt metered (an ``AddedCredits``): a second line adds its own on its own
  day, the same line landed twice (one ``id``) adds once, and a figure in another unit adds nothing;
- a 2.x session document is a running total: landed twice (written again with more requests metered), its first
  landing's total falls on that landing's day and the rise on the second's, and the session's credits are the last
  total, never the two added.

Every expected figure is summed here from the lines written, never read from asz's output."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from asz_core.sessiondata.times import parse_instant
from cli_helpers import asz_in_process

KIRO = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"
pytestmark = pytest.mark.skipif(not KIRO.is_dir(), reason=f"the Kiro corpus is absent ({KIRO})")


def _collect(home: Path, root: Path) -> None:
    made = asz_in_process("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root))
    assert made.returncode == 0, made.stdout + made.stderr


def _by_day(root: Path) -> dict[str, float]:
    rows = json.loads(asz_in_process("usage", "--json", "--tz", "UTC", "--root", str(root)).stdout)
    return {r["date"]: r["credits"] for r in rows if r["credits"] is not None}


def _credit_sum(summaries: list[dict]) -> float:
    return sum(t["usage"] for t in summaries if t.get("unit") == "credit")


def test_usage_summary_lines_add_once_each_on_their_own_day(tmp_path):
    src = next(KIRO.glob("sessions/*/sess_*/messages.jsonl")).parent
    home = tmp_path / ".kiro"
    dest = home / "sessions" / src.parent.name / src.name
    shutil.copytree(src, dest)
    lines = (dest / "messages.jsonl").read_text(encoding="utf-8").splitlines()
    (summary,) = [x for x in lines if json.loads(x)["payload"].get("type") == "usage_summary"]
    first = json.loads(summary)
    more = {"id": "added-usage", "timestamp": "2026-05-23T10:00:00.000Z",
            "payload": {"type": "usage_summary", "executionId": "added",
                        "promptTurnSummaries": [{"unit": "credit", "unitPlural": "credits", "usage": 0.5},
                                                {"unit": "token", "unitPlural": "tokens", "usage": 900}]}}
    with (dest / "messages.jsonl").open("a", encoding="utf-8") as f:
        f.write(summary + "\n" + json.dumps(more) + "\n")  # the corpus's line again (same id), then a new one
    root = tmp_path / "root"
    _collect(home, root)
    want = {first["timestamp"][:10]: _credit_sum(first["payload"]["promptTurnSummaries"]),
            more["timestamp"][:10]: _credit_sum(more["payload"]["promptTurnSummaries"])}
    assert want[more["timestamp"][:10]] == 0.5  # the token figure is no credit
    assert _by_day(root) == {d: pytest.approx(v, abs=1e-6) for d, v in want.items()}
    doc = json.loads(asz_in_process("conversation", src.name, "--json", "--root", str(root)).stdout)["summary"]
    assert doc["credits"] == pytest.approx(sum(want.values()), abs=1e-6)
    assert [(p["at"] is not None, p["model"], p["credits"]) for p in doc["credits_at"]] == [
        (True, "", pytest.approx(v, abs=1e-6)) for v in want.values()]


def test_a_running_total_landed_twice_counts_its_rise(tmp_path):
    sid = "8e247382-c779-440f-b1db-ed9bad1afaee"
    home = tmp_path / ".kiro"
    cli = home / "sessions" / "cli"
    cli.mkdir(parents=True)
    shutil.copy(KIRO / "sessions" / "cli" / f"{sid}.jsonl", cli / f"{sid}.jsonl")
    whole = json.loads((KIRO / "sessions" / "cli" / f"{sid}.json").read_text(encoding="utf-8"))
    turns = whole["session_state"]["conversation_metadata"]["user_turn_metadatas"]
    values = [m["value"] for t in turns for m in t["metering_usage"] if m["unit"] == "credit"]
    early = json.loads(json.dumps(whole))  # the same document as it stood after 3 requests, a day earlier: the turn
    early["updated_at"] = "2026-05-26T09:00:00.000000Z"  # still running, so with no end recorded
    for t in early["session_state"]["conversation_metadata"]["user_turn_metadatas"]:
        t["metering_usage"] = t["metering_usage"][:3]
        del t["end_timestamp"]
    root = tmp_path / "root"
    (cli / f"{sid}.json").write_text(json.dumps(early), encoding="utf-8")
    _collect(home, root)
    (cli / f"{sid}.json").write_text(json.dumps(whole), encoding="utf-8")
    _collect(home, root)
    assert len(values) == 7
    want = {"2026-05-26": sum(values[:3]), whole["updated_at"][:10]: sum(values) - sum(values[:3])}
    doc = json.loads(asz_in_process("conversation", sid, "--json", "--root", str(root)).stdout)["summary"]
    assert doc["credits"] == pytest.approx(sum(values), abs=1e-6)  # the last total, not the two added
    # the last total replaces the first, on the turn it lists: the turn's credits at its recorded end, where its calls
    # are (kiro22b; before, each record's rise at its own time and, the calls having no time and the range crossing a
    # day's end, all in the (no time) row)
    (end,) = [t["end_timestamp"] for t in turns]
    assert [(p["at"], p["credits"]) for p in doc["credits_at"]] == [
        (parse_instant(end) // 1_000_000, pytest.approx(sum(values), abs=1e-6))]
    assert sum(want.values()) == pytest.approx(sum(values)) and end.startswith("2026-05-27")
    assert _by_day(root) == {"2026-05-27": pytest.approx(sum(values), abs=1e-6)}
