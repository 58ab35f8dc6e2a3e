"""A Kiro CLI 2.x session is dated by one rule (trial 36b F9): its records' own times, its recorded range, which
``asz ls`` shows; a turn's ``end_timestamp`` (data of the session document) places the turn's calls and credits only
inside that range. Before, a snapshot whose ``end_timestamp`` was left three months off (the trial's shift missed it)
was dated 2026-02-04 by ``asz ls`` and counted in 2026-05 by ``asz usage monthly``, one session split across months
without a note. Now an end outside the range places nothing: the calls go by the range, the credits at the document's
own time (``updated_at``), and ``summary.problems`` says it.

Real input: the corpus's Kiro home (../shared/corpus/kiro), copied; the CLI session's one ``end_timestamp`` moved
three months later, or four earlier, every other byte as Kiro wrote it. The figures are read from the source files:
the prompt's ``meta.timestamp``, the document's ``updated_at``, its turn's ``message_ids`` and ``metering_usage``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from pathlib import Path

import pytest
from cli_helpers import asz_in_process

CLI = "8e247382-c779-440f-b1db-ed9bad1afaee"


def _utc(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def _root(corpus_dir: Path, base: Path, end: str | None) -> tuple[Path, dict, list[int]]:
    """The corpus Kiro home copied under ``base`` with the CLI session's ``end_timestamp`` set to ``end`` (None: as
    Kiro wrote it), collected; the root, the session document as the source holds it and the .jsonl's times."""
    home = corpus_dir / "kiro" / "home" / ".kiro"
    if not (home / "sessions" / "cli" / f"{CLI}.json").is_file():
        pytest.skip(f"{home}/sessions/cli/{CLI}.json is absent")
    shutil.copytree(home, base / "kiro")
    doc_path = base / "kiro" / "sessions" / "cli" / f"{CLI}.json"
    doc_path.chmod(0o600)
    raw = doc_path.read_text(encoding="utf-8")
    if end is not None:
        raw = re.sub(r'"end_timestamp": "[^"]+"', f'"end_timestamp": "{end}"', raw)
        doc_path.write_text(raw, encoding="utf-8")
    stamps = [int(s) for s in re.findall(r'"timestamp":([0-9]+)', (doc_path.with_suffix(".jsonl")).read_text())]
    p = asz_in_process("collect", "--once", "--adapter", "kiro", "--source", str(base / "kiro"), "--root", str(base / "root"))
    assert p.returncode == 0, p.stdout + p.stderr
    return base / "root", json.loads(raw), stamps


def _json(*args: str):
    p = asz_in_process(*args)
    assert p.returncode == 0, f"asz {' '.join(args)} exited {p.returncode}\n{p.stdout}\n{p.stderr}"
    return json.loads(p.stdout)


@pytest.mark.parametrize("end", [None, "2026-08-27T18:15:27.451690Z", "2026-01-27T18:15:27.451690Z"])
def test_one_rule_dates_a_kiro_cli_session(corpus_dir, tmp_path, end):
    root, doc, stamps = _root(corpus_dir, tmp_path, end)
    (turn,) = doc["session_state"]["conversation_metadata"]["user_turn_metadatas"]
    first = dt.datetime.fromtimestamp(min(stamps), dt.timezone.utc)  # the prompt's meta.timestamp
    last = _utc(doc["updated_at"])  # the document's own time, the last thing Kiro wrote
    credits = sum(m["value"] for m in turn["metering_usage"] if m.get("unit") == "credit")
    assert first.date() == last.date() == dt.date(2026, 5, 27) and round(credits, 6) == 0.711332

    (row,) = [r for r in _json("ls", "--json", "--root", str(root)) if r["id"] == CLI]
    assert (row["from"], row["to"]) == (int(first.timestamp() * 1000), int(last.timestamp() * 1000))

    months = _json("usage", "monthly", "--json", "--tz", "UTC", "--dialect", "kiro", "--root", str(root))
    rows = {r["month"]: r for r in months if r.get("month")}
    assert set(rows) == {"2026-05"}, rows  # the IDE session (2026-05-21) and this one's calls, never the turn's month
    (conv,) = [r for r in _json("usage", "session", "--json", "--root", str(root)) if r.get("conversation") == CLI]
    assert conv["calls"] == 7 and round(conv["credits"], 6) == round(credits, 6)  # its 7 replies, its turn's credits

    problems = _json("conversation", CLI, "--json", "--root", str(root))["summary"]["problems"]
    said = [x for x in problems if x.startswith("turn end outside the recorded range: ")]
    daily = _json("usage", "daily", "--json", "--tz", "UTC", "--dialect", "kiro", "--root", str(root))
    assert [(r["date"], r["calls"]) for r in daily if r.get("date")] == [("2026-05-21", 9), ("2026-05-27", 7)]
    if end is None:  # as Kiro wrote it: the turn ends inside the range (18:15:27.45), its calls there
        assert said == []
    else:
        ms = _utc(end).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]
        assert said == [f"turn end outside the recorded range: 1 turn(s) its session document lists end at {ms}Z "
                        f"(naming {len(turn['message_ids'])} message(s)), outside the conversation's recorded range "
                        f"{first.strftime('%Y-%m-%dT%H:%M:%S.000Z')} to {last.strftime('%Y-%m-%dT%H:%M:%S.%f')[:-3]}Z "
                        "(its records' own times, which date it): their calls are placed by that range and their "
                        "credits at the document's own time, not at the turn's end"]
