"""Copies of a Kiro session are counted by one rule in every reader (trial 34a F2, F3).

Real input: the corpus Kiro home in a temporary HOME, plus two copies of its IDE 3.x session folder under new session
ids, as copied or backed-up session folders are: one byte for byte (its records repeat the original's: it
``continues`` it, drawn and counted there) and one with every date moved a month on (the same record ids, other
records: the two share ids, neither continuing the other, counted in each, as ``asz ls`` says). Before, ``asz usage
tools`` counted a tool-call id once across all conversations (the shifted copy's calls vanished from the total while
``asz ls`` said they are counted in each), and the byte-for-byte copy, 0 talks, still added its credits to the total.
Every figure expected is counted here from the source files: tool calls are the IDE's ``tool_call`` and
``sub_agent_start`` lines and the CLI's ``toolUse`` entries, credits the IDE's ``promptTurnSummaries`` usage in
credits and the CLI document's ``metering_usage`` in credits.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import subprocess
from pathlib import Path

import forked
import pytest

KIRO = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"
ASZ = [sys.executable, "-m", "asz_core.cli.main"]


def _asz(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """``asz ARGS`` as a real child process with HOME ``home``, forked from the pre-imported server (tests/forked.py:
    its own pid, environment, working directory and exit status, without the interpreter's 0.4 s start-up)."""
    env = {k: v for k, v in os.environ.items() if k not in ("KIRO_HOME", "USERPROFILE", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME")}
    env["HOME"] = str(home)
    return forked.run([*ASZ, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def _ide_truth(msgs: Path) -> tuple[int, float]:
    calls, credits = 0, 0.0
    for line in msgs.read_text(encoding="utf-8").splitlines():
        p = json.loads(line).get("payload") or {}
        calls += p.get("type") in ("tool_call", "sub_agent_start")
        for s in p.get("promptTurnSummaries") or ():
            credits += s["usage"] if s.get("unit") == "credit" else 0.0
    return calls, credits


def _cli_truth(cli: Path) -> tuple[int, float]:
    calls = sum(1 for line in cli.with_suffix(".jsonl").read_text(encoding="utf-8").splitlines()
                for c in ((json.loads(line).get("data") or {}).get("content") or ()) if isinstance(c, dict) and c.get("kind") == "toolUse")
    doc = json.loads(cli.with_suffix(".json").read_text(encoding="utf-8"))
    credits = sum(m["value"] for t in doc["session_state"]["conversation_metadata"]["user_turn_metadatas"]
                  for m in t["metering_usage"] if m["unit"] == "credit")
    return calls, credits


def _home(base: Path) -> tuple[Path, Path, Path]:
    """A copy of the corpus Kiro home at ``base/home`` and a working folder ``base/run``; (home, run, the IDE session's
    folder). Skips when the corpus is absent."""
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    home, run = base / "home", base / "run"
    run.mkdir()
    shutil.copytree(KIRO, home / ".kiro")
    for p in (home / ".kiro").rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    (orig,) = (home / ".kiro" / "sessions").glob("*/sess_*")
    return home, run, orig


@pytest.fixture(scope="module")
def copied(tmp_path_factory) -> tuple[Path, Path, dict]:
    home, run, orig = _home(tmp_path_factory.mktemp("kiro-copies"))
    sessions = home / ".kiro" / "sessions"
    same = sessions / "ffff000000000001" / "sess_aaaaaaaa-0000-0000-0000-000000000001"
    moved = sessions / "ffff000000000002" / "sess_bbbbbbbb-0000-0000-0000-000000000002"
    shutil.copytree(orig, same)
    shutil.copytree(orig, moved)
    for f in (moved / "messages.jsonl", moved / "session.json"):
        f.write_text(f.read_text(encoding="utf-8").replace("2026-05-21T", "2026-06-21T"), encoding="utf-8")
    (cli,) = sessions.glob("cli/*.json")
    p = _asz(home, run, "collect", "--once", "--adapter", "kiro")
    assert p.returncode == 0, p.stdout + p.stderr
    ide, cli_t = _ide_truth(orig / "messages.jsonl"), _cli_truth(cli)
    assert ide[0] > 0 and ide[1] > 0 and cli_t[0] > 0  # the premise: the corpus has calls and credits
    return home, run, {"orig": orig.name, "same": same.name, "moved": moved.name, "cli": cli.stem, "ide": ide, "clit": cli_t}


def test_usage_tools_counts_shared_calls_in_each_as_ls_says(copied):
    home, run, t = copied
    ls = _asz(home, run, "ls").stdout
    n = len("sess_") + 8  # the ID column counts its 8 past a Kiro IDE id's fixed sess_ (trial 36b F10)
    assert f"{t['moved'][:n]} shares " in ls and "are counted in each" in ls, ls
    assert f"{t['same'][:n]} continues {t['orig'][:n]}" in ls, ls
    per = {}
    for k in ("orig", "same", "moved", "cli"):
        got = json.loads(_asz(home, run, "usage", "tools", "--conversation", t[k], "--json").stdout)
        per[k] = got["total"]["calls"]
    assert per == {"orig": t["ide"][0], "same": 0, "moved": t["ide"][0], "cli": t["clit"][0]}
    whole = json.loads(_asz(home, run, "usage", "tools", "--json").stdout)
    assert whole["total"]["calls"] == 2 * t["ide"][0] + t["clit"][0]  # the shared calls counted in each (was 1x)
    pair = json.loads(_asz(home, run, "usage", "tools", "--conversation", t["orig"], "--conversation", t["moved"],
                           "--json").stdout)
    assert pair["total"]["calls"] == 2 * t["ide"][0]


def test_a_copy_drawn_elsewhere_adds_no_credits(copied):
    home, run, t = copied
    rows = {r["id"]: r for r in json.loads(_asz(home, run, "ls", "--json").stdout)}
    assert rows[t["same"]]["talks"] == 0
    got = json.loads(_asz(home, run, "usage", "session", "--json").stdout)
    credits = {r["conversation"]: r.get("credits") for r in got}
    assert rows[t["same"]]["credits"] in (None, 0), rows[t["same"]]  # asz ls says the same
    assert not credits.get(t["same"]), credits  # its records are counted in the session it continues
    assert round(credits[t["orig"]], 6) == round(t["ide"][1], 6) == round(credits[t["moved"]], 6)
    # each conversation's figure is rounded to 6 decimals: their sum is within 1e-6 a conversation of the files'
    assert abs(sum(c or 0 for c in credits.values()) - (2 * t["ide"][1] + t["clit"][1])) <= 1e-6 * len(credits)


def test_a_shares_line_names_three_and_counts_the_rest(tmp_path):
    """Trial 34a F5: a session sharing ids with many (copied folders) named every one on its ``shares`` line; now the
    first three, ``and N more`` and where all are listed (``asz ls --json``: the row's ``shares.with``, whole)."""
    home, run, orig = _home(tmp_path)
    sessions = home / ".kiro" / "sessions"
    for month in (6, 7, 8, 9):  # four copies, each date moved: five sessions sharing every record id
        c = sessions / f"ffff00000000000{month}" / f"sess_cccccccc-0000-0000-0000-00000000000{month}"
        shutil.copytree(orig, c)
        for f in (c / "messages.jsonl", c / "session.json"):
            f.write_text(f.read_text(encoding="utf-8").replace("2026-05-21T", f"2026-0{month}-21T"), encoding="utf-8")
    assert _asz(home, run, "collect", "--once", "--adapter", "kiro").returncode == 0
    lines = [ln for ln in _asz(home, run, "ls").stdout.splitlines() if " shares " in ln]
    assert len(lines) == 5, lines
    for ln in lines:
        assert " and 1 more (asz ls --json: the row's shares.with names them all), neither continuing" in ln, ln
    rows = json.loads(_asz(home, run, "ls", "--json").stdout)
    assert all(len(r["shares"]["with"]) == 4 for r in rows if r.get("shares"))
