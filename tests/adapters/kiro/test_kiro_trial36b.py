"""The two real Kiro sessions of ../shared/corpus/kiro as a user reading a year of them meets them (trial 36b):

- F5: ``asz conversation ID --tz ZONE`` says when the conversation ran, ``ran from A to B (times in ZONE)``, as the
  export header does: the IDE 3.x session's first and last ``timestamp`` of messages.jsonl, in Europe/Berlin.
- F6: a search hit with no time of its own (the CLI 2.x session's replies and tool calls) shows its conversation's day
  in parentheses, marked under the hits, where it showed ``-``: the day the session's .json ``end_timestamp`` and its
  .jsonl's ``timestamp`` (unix seconds) name, in Europe/Berlin.
- F10: the ID column shows a Kiro IDE id by 8 characters past its fixed ``sess_`` (``sess_5e804080``, not
  ``sess_5e8``), and the short prefix a user typed before still resolves.

Never reads the machine's own ~/.kiro: the corpus home is passed with ``--source``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from cli_helpers import asz_in_process

IDE = "sess_5e804080-466c-4f65-bde9-f6133b7068f6"
CLI = "8e247382-c779-440f-b1db-ed9bad1afaee"
BERLIN = ZoneInfo("Europe/Berlin")


@pytest.fixture(scope="module")
def kiro(corpus_dir: Path, tmp_path_factory) -> tuple[Path, Path]:
    home = corpus_dir / "kiro" / "home" / ".kiro"
    if not (home / "sessions").is_dir():
        pytest.skip(f"{home}/sessions is absent")
    r = tmp_path_factory.mktemp("kiro36b") / "root"
    p = asz_in_process("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(r))
    assert p.returncode == 0, p.stdout + p.stderr
    return home, r


def _out(*args: str) -> str:
    p = asz_in_process(*args)
    assert p.returncode == 0, f"asz {' '.join(args)} exited {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p.stdout


def _berlin(iso: str, fmt: str) -> str:
    return dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(BERLIN).strftime(fmt)


def test_conversation_says_when_it_ran(kiro) -> None:
    home, root = kiro
    (msgs,) = home.glob(f"sessions/*/{IDE}/messages.jsonl")
    times = sorted(d["timestamp"] for d in map(json.loads, msgs.read_text(encoding="utf-8").splitlines()) if "timestamp" in d)
    want = (f"ran from {_berlin(times[0], '%Y-%m-%d %H:%M:%S')} to {_berlin(times[-1], '%Y-%m-%d %H:%M:%S')} "
            "(times in Europe/Berlin)")
    lines = _out("conversation", IDE[:8], "--tz", "Europe/Berlin", "--root", str(root)).splitlines()
    assert lines[1].startswith("project ") and lines[2] == want, lines[:4]
    md = _out("export", IDE, "--format", "md", "--tz", "Europe/Berlin", "--root", str(root))
    assert want[4:] in md  # the export header's words


def test_a_timeless_hit_shows_its_conversation_s_day(kiro) -> None:
    home, root = kiro
    doc = json.loads((home / "sessions" / "cli" / f"{CLI}.json").read_text(encoding="utf-8"))
    ends = [t["end_timestamp"] for t in doc["session_state"]["conversation_metadata"]["user_turn_metadatas"]]
    stamps = [int(s) for s in re.findall(r'"timestamp":([0-9]+)', (home / "sessions" / "cli" / f"{CLI}.jsonl").read_text())]
    assert stamps and ends
    days = {_berlin(e, "%Y-%m-%d") for e in ends} | {dt.datetime.fromtimestamp(s, BERLIN).strftime("%Y-%m-%d") for s in stamps}
    (day,) = days
    out = _out("search", "hello fixture", "--tz", "Europe/Berlin", "--root", str(root)).splitlines()
    heads = [x for x in out if x.startswith(CLI[:8] + " ")]
    timeless = [x for x in heads if "prompt" not in x.split()[1:4]]
    assert len(timeless) >= 3 and all(x.split()[1] == f"({day})" for x in timeless), heads
    assert not any(x.split()[1] == "-" for x in heads)
    assert any(x.startswith("times in Europe/Berlin; (YYYY-MM-DD): a hit with no time of its own") for x in out)
    conv = _out("search", "hello fixture", "--conversations", "--tz", "Europe/Berlin", "--root", str(root)).splitlines()
    assert any(x.startswith(f"  ({day})  ") for x in conv), conv


def test_the_id_column_shows_past_sess_(kiro) -> None:
    _, root = kiro
    rows = _out("ls", "--root", str(root)).splitlines()
    assert any(x.startswith("sess_5e804080 ") for x in rows) and not any(x.startswith("sess_5e8 ") for x in rows), rows
    assert rows[0].startswith("ID" + " " * (len("sess_5e804080") - 2 + 2) + "TITLE")
    for given in ("sess_5e8", "sess_5e804080"):  # what a user typed before, and what the column shows now
        assert _out("conversation", given, "--root", str(root)).startswith(f"conversation {IDE}: ")
    assert CLI[:8] + " " in "\n".join(rows)


def test_a_kiro_notice_reads_as_one_line_its_record_folded(kiro) -> None:
    """F4: the IDE session's 12 context-usage records, 3 tool approvals asked and 3 answered (counted from
    messages.jsonl's payloads) each read as one line in the md export, under its heading, where each was a fenced text
    and its record's other parts pretty-printed JSON (the 4-option approval menu each time); the parts are named and
    folded on one line that says where the record is (its landed file and row, which holds them), and the html export
    keeps them in a ``<details>`` of their own under a one-line summary."""
    home, root = kiro
    (msgs,) = home.glob(f"sessions/*/{IDE}/messages.jsonl")
    payloads = [json.loads(x).get("payload") or {} for x in msgs.read_text(encoding="utf-8").splitlines() if x.strip()]
    usage = sum(p.get("type") == "session_metadata" and p.get("key") == "contextUsage" for p in payloads)
    asked = sum(p.get("type") == "pending_interaction" and p.get("interactionType") == "tool_approval" for p in payloads)
    answered = sum(p.get("type") == "interaction_resolved" for p in payloads)
    assert (usage, asked, answered) == (12, 3, 3)
    md = _out("export", IDE, "--format", "md", "--root", str(root)).splitlines()
    at = [i for i, x in enumerate(md) if x.startswith("**Runtime notice** · ")]
    notices = [md[i + 2] for i in at]  # the heading, a blank line, the notice's one line (no fence)
    assert sum(x.startswith("context usage: ") for x in notices) == usage
    assert sum(x.startswith("tool_approval asked: ") for x in notices) == asked
    assert sum(x.startswith("approval answered: ") for x in notices) == answered
    # the session_event pause record, a JSON record of short fields, is one folded line too (render 16, trial 41c F8:
    # it was drawn whole, fenced), naming the payload's keys as written
    (event,) = [p for p in payloads if p.get("type") == "session_event"]
    whole = [x for x in notices if x.startswith("*The runtime's record: ")]
    assert len(whole) == 1 and f"bytes of JSON (keys {', '.join(event)}), folded: in " in whole[0], whole
    assert whole[0].endswith("; whole in the json export*") and not any(x.startswith("```") for x in notices)
    assert "```json" not in md and not any(x.strip().startswith('"optionId"') for x in md)
    folded = [x for x in md if x.startswith("*The record's other parts (context beside the text above, not part of it): ")]
    assert len(folded) >= usage + asked + answered
    for line in folded:
        m = re.search(r"bytes of JSON \(keys ([^)]*)\), folded: in (\S+):([0-9]+)\*$", line)
        assert m, line
        keys, path, row = m.group(1).split(", "), root / m.group(2), int(m.group(3))
        record = json.loads(path.read_bytes().splitlines()[row - 1 + 1])  # the header is the file's first line
        data = [p["data"] for p in record["parts"] if p.get("k") == "data"]
        assert data and list(data[0]) == keys, (line, record)
    html = _out("export", IDE, "--format", "html", "--root", str(root))
    assert html.count('<details class="step other data">') == len(folded)
    assert html.count('<details class="step other" id="notice/') == len(at)
