"""``asz usage``'s ``(no time)`` row and its ``--since``/``--until`` against ``asz ls``'s (trial 14, finding 6).

Kiro CLI 2.x writes a time on the prompt line only: the model replies (``AssistantMessage``) of the corpus's
conversation 8e247382 carry none, so its calls have no time of their own. They happened within the conversation's
recorded range (its prompt to its session document's ``updated_at``), which lies within 2026-05-27: they are counted
on that day, week and month, and in a window holding that range (trial 19, F22); its session document's turn names
them and says when it ended, so they are at that end in blocks and windows too (kiro22b). Where neither places them
(the turn's end taken out of a copy: a block; a window that cuts the range) they are the ``(no time)`` row, last, or left out: the total is marked ``!``
and a line (stderr and ``no_time`` with --json) names the conversation and how many. ``asz`` run in this process
(:func:`cli_helpers.asz_in_process`: no signal, pipe or exit status of a process is tested here; 24 child processes
cost 5.5 s of CPU, session 33) with HOME a temporary folder holding a copy of the Kiro corpus and no KIRO_HOME,
USERPROFILE, CLAUDE_CONFIG_DIR or XDG_CONFIG_HOME for the call; the expected counts are read from the corpus files.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_helpers import asz_in_process

KIRO = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"
V2 = "8e247382-c779-440f-b1db-ed9bad1afaee"


def _v2_calls() -> int:
    """The model replies of the 2.x transcript (one call each), checked against the session file's own count."""
    lines = [json.loads(x) for x in (KIRO / "sessions" / "cli" / f"{V2}.jsonl").read_text().splitlines()]
    replies = [x for x in lines if x.get("kind") == "AssistantMessage"]
    assert not any("timestamp" in json.dumps(x) for x in replies)  # the replies carry no time: the premise
    meta = json.loads((KIRO / "sessions" / "cli" / f"{V2}.json").read_text())
    assert meta["session_state"]["conversation_metadata"]["user_turn_metadatas"][0]["total_request_count"] == len(replies)
    return len(replies)


def _collected(tmp_path_factory, unturned: bool = False) -> tuple[Path, dict]:
    """A root collected from a copy of the Kiro corpus; ``unturned``: its 2.x session document's turn with no
    ``end_timestamp`` (nothing else changed), so no turn places the calls (kiro22b) and their conversation's range does."""
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    from kiro_copies import copy_unturned

    home = tmp_path_factory.mktemp("home")
    copy_unturned(KIRO, home / ".kiro", V2) if unturned else shutil.copytree(KIRO, home / ".kiro")
    env = {"HOME": str(home), "KIRO_HOME": None, "USERPROFILE": None, "CLAUDE_CONFIG_DIR": None, "XDG_CONFIG_HOME": None}
    r = home / "asz-data"
    p = asz_in_process("collect", "--once", "--adapter", "kiro", "--root", str(r), cwd=home, env=env)
    assert p.returncode == 0, p.stderr
    return r, env


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> tuple[Path, dict]:
    return _collected(tmp_path_factory)


@pytest.fixture(scope="module")
def unturned(tmp_path_factory) -> tuple[Path, dict]:
    return _collected(tmp_path_factory, unturned=True)


def _asz(root, *args: str) -> subprocess.CompletedProcess:
    r, env = root
    return asz_in_process(*args, "--root", str(r), "--tz", "UTC", env=env)


def _v2_credits() -> float:
    """The credits the 2.x session document records (its turns' ``metering_usage`` in unit ``credit``), read here."""
    d = json.loads(next(KIRO.glob("sessions/cli/8e247382-*.json")).read_text(encoding="utf-8"))
    return sum(m["value"] for t in d["session_state"]["conversation_metadata"]["user_turn_metadatas"]
               for m in t.get("metering_usage") or () if m.get("unit") == "credit")


def test_calls_with_no_time_go_on_the_day_their_conversation_happened(root):
    """F22: 8e247382's range (prompt 18:15:03, session document 18:15:27.45) lies within 2026-05-27, so its calls,
    which carry no time, happened that day (and week, and month): they are counted there, beside its credits; no
    (no time) row (it had the 7 calls)."""
    n = _v2_calls()
    p = _asz(root, "usage", "--json")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert [r["date"] for r in rows] == ["2026-05-21", "2026-05-27"]
    assert rows[1]["calls"] == n and rows[1]["credits"] == round(_v2_credits(), 6)  # --json gives credits to 6 places
    assert "(no time)" not in _asz(root, "usage").stdout
    assert [(r["week"], r["calls"]) for r in json.loads(_asz(root, "usage", "weekly", "--json").stdout)][-1] == ("2026-05-25", n)
    assert [(r["month"], r["calls"]) for r in json.loads(_asz(root, "usage", "monthly", "--json").stdout)] == [("2026-05", 9 + n)]


def test_the_calls_are_at_their_turn_s_end_in_blocks_and_windows(root):
    """kiro22b: the session document's turn names the 7 replies and ended at 18:15:27.45 (``end_timestamp``): the
    calls and the turn's credits are in that block, and a window from 18:15:10 (after the prompt) holds them."""
    n, end = _v2_calls(), json.loads((KIRO / "sessions" / "cli" / f"{V2}.json").read_text())[
        "session_state"]["conversation_metadata"]["user_turn_metadatas"][0]["end_timestamp"]
    assert end.startswith("2026-05-27T18:15:27")
    rows = json.loads(_asz(root, "usage", "blocks", "--json").stdout)
    assert [(r["block"], r["calls"], r["credits"]) for r in rows][-1] == ("2026-05-27T18:00+00:00", n, round(_v2_credits(), 6))
    p = _asz(root, "usage", "--since", "2026-05-27T18:15:10Z", "--json")
    assert p.returncode == 0 and "no time" not in p.stderr, p.stderr
    assert [(r["date"], r["calls"], r["credits"]) for r in json.loads(p.stdout)] == [("2026-05-27", n, round(_v2_credits(), 6))]


def test_no_time_row_is_last_and_said_where_the_range_does_not_place_the_calls(unturned):
    """A block is shaped by its calls' own times, so there the calls with none (their turn's end not recorded) are the
    (no time) row, last, and said."""
    root = unturned
    n = _v2_calls()
    rows = json.loads(_asz(root, "usage", "blocks", "--json").stdout)
    assert rows[-1]["block"] == "(no time)" and rows[-1]["calls"] == n
    text = _asz(root, "usage", "blocks").stdout.splitlines()
    # after the dated rows, before the total; the credits metered for those calls are in that row too, not a block of
    # no call of their own (trial 21, finding 8)
    assert text[2].startswith("(no time)") and text[3].startswith("total ") and len(rows) == 2
    assert text[4] == ("(no time): calls whose day is not known, their records carry no time (Kiro CLI 2.x, for one, "
                       f"writes none on a model reply), and a block is shaped by its calls' own times: 8e247382 ({n} call(s), "
                       f"{_v2_credits():.3f} credits)")  # the credits metered for those calls with them (trial 21, finding 8)


def test_a_window_holding_the_conversation_counts_its_calls(root):
    n = _v2_calls()
    ls = json.loads(_asz(root, "ls", "--json", "--since", "2026-05-27").stdout)
    assert [r["id"] for r in ls] == [V2]  # asz ls keeps the conversation (its prompt at 2026-05-27T18:15:03)
    p = _asz(root, "usage", "--since", "2026-05-27")
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert out[1].startswith("2026-05-27 ") and out[1].split()[2] == str(n)  # its whole range is inside the window
    assert out[2].startswith("total ") and not out[2].startswith("total !") and "no time" not in p.stdout + p.stderr


def test_a_window_cutting_the_conversation_names_the_calls_it_cannot_place(unturned):
    root = unturned  # their turn's end not recorded: the conversation's range places them
    n = _v2_calls()
    p = _asz(root, "usage", "--since", "2026-05-27T18:15:10Z")  # after the prompt, before the session document
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    # no row: the credits metered for those calls (the session document, written at 18:15:27 inside the window) are
    # left out with them, not counted alone on 2026-05-27 (trial 21, finding 8)
    assert out[1].startswith("total !") and out[1].split()[3] == "0"  # CALLS: no call placed in the window
    assert out[2].startswith(f"! no time, so not placed in the --since/--until window, in no figure above: 8e247382 ({n} call(s), "
                             f"{_v2_credits():.3f} credits); ")
    assert "their conversation's recorded range crosses an end of the window" in out[2]
    j = _asz(root, "usage", "--since", "2026-05-21", "--until", "2026-05-27T18:15:10Z", "--json")
    rows = json.loads(j.stdout)
    assert [r["date"] for r in rows] == ["2026-05-21"]
    assert all(r["no_time"] == [{"conversation": V2, "calls": n, "credits": round(_v2_credits(), 6)}] for r in rows)
    assert f"asz usage: ! no time, so not placed in the --since/--until window, in no figure above: 8e247382 ({n} call(s), " in j.stderr
    whole = json.loads(_asz(root, "usage", "--json").stdout)
    assert rows[0]["calls"] == whole[0]["calls"]  # the dated calls are counted alike with the window and without


def test_the_brief_export_of_replies_with_no_time(root):
    """``asz export --brief`` of the 2.x session (trial 21): its replies carry no time, so their line is ``**Assistant**``
    alone (not ``**Assistant** · `` with nothing after it); each of its six tool calls is one line naming the path or
    command it acts on, and the last reply is there whole."""
    lines = [json.loads(x) for x in (KIRO / "sessions" / "cli" / f"{V2}.jsonl").read_text().splitlines()]
    uses = [c["data"] for x in lines if x.get("kind") == "AssistantMessage" for c in x["data"]["content"] if c["kind"] == "toolUse"]
    last = [c["data"] for c in lines[-1]["data"]["content"] if c["kind"] == "text"][0]
    p = _asz(root, "export", V2, "--brief")
    assert p.returncode == 0, p.stderr
    md = p.stdout
    assert "**Assistant**\n" in md and "· \n" not in md
    tools = [x for x in md.splitlines() if x.startswith("- Tool **")]
    assert [t.split("**")[1] for t in tools] == [u["name"] for u in uses] and len(uses) == 6
    assert "- Tool **shell** `bash greet.sh` · result " in md
    assert all(ln in md for ln in last.splitlines() if ln.strip())
