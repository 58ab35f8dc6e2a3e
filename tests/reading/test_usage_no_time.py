"""``asz usage``'s ``(no time)`` row and its ``--since``/``--until`` against ``asz ls``'s (trial 14, finding 6).

Kiro CLI 2.x writes a time on the prompt line only: the model replies (``AssistantMessage``) of the corpus's
conversation 8e247382 carry none, so its calls have no day. Without a window they are the ``(no time)`` row, last,
and a line says what it is; with ``--since 2026-05-27`` (the day ``asz ls`` places the conversation, by its prompt)
they cannot be placed: no figure counts them, the total is marked ``!`` and a line (stderr and ``no_time`` with
--json) names the conversation and how many. Real ``asz`` processes, HOME a temporary folder holding a copy of the
Kiro corpus; the expected counts are read from the corpus files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

KIRO = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"
ASZ = [sys.executable, "-m", "asz_core.cli.main"]
V2 = "8e247382-c779-440f-b1db-ed9bad1afaee"


def _v2_calls() -> int:
    """The model replies of the 2.x transcript (one call each), checked against the session file's own count."""
    lines = [json.loads(x) for x in (KIRO / "sessions" / "cli" / f"{V2}.jsonl").read_text().splitlines()]
    replies = [x for x in lines if x.get("kind") == "AssistantMessage"]
    assert not any("timestamp" in json.dumps(x) for x in replies)  # the replies carry no time: the premise
    meta = json.loads((KIRO / "sessions" / "cli" / f"{V2}.json").read_text())
    assert meta["session_state"]["conversation_metadata"]["user_turn_metadatas"][0]["total_request_count"] == len(replies)
    return len(replies)


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> tuple[Path, dict]:
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    home = tmp_path_factory.mktemp("home")
    shutil.copytree(KIRO, home / ".kiro")
    env = {k: v for k, v in os.environ.items() if k not in ("KIRO_HOME", "USERPROFILE", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME")}
    env["HOME"] = str(home)
    r = home / "asz-data"
    p = subprocess.run([*ASZ, "collect", "--once", "--adapter", "kiro", "--root", str(r)], cwd=home, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return r, env


def _asz(root, *args: str) -> subprocess.CompletedProcess:
    r, env = root
    return subprocess.run([*ASZ, *args, "--root", str(r), "--tz", "UTC"], env=env, capture_output=True, text=True, timeout=300)


def _v2_credits() -> float:
    """The credits the 2.x session document records (its turns' ``metering_usage`` in unit ``credit``), read here."""
    d = json.loads(next(KIRO.glob("sessions/cli/8e247382-*.json")).read_text(encoding="utf-8"))
    return sum(m["value"] for t in d["session_state"]["conversation_metadata"]["user_turn_metadatas"]
               for m in t.get("metering_usage") or () if m.get("unit") == "credit")


def test_no_time_row_is_last_and_said(root):
    n = _v2_calls()
    p = _asz(root, "usage", "--json")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    # the 3.x session's day; the 2.x session's day, where its session document metered credits and no call is placed
    # (its calls carry no time); then the untimed row
    assert [r["date"] for r in rows] == ["2026-05-21", "2026-05-27", "(no time)"]
    assert rows[1]["calls"] == 0 and rows[1]["credits"] == round(_v2_credits(), 6)  # --json gives credits to 6 places
    assert rows[-1]["calls"] == n and "no_time" not in rows[-1]
    text = _asz(root, "usage").stdout.splitlines()
    assert text[3].startswith("(no time)") and text[4].startswith("total ")  # after the dated rows, before the total
    assert text[5] == ("(no time): calls whose day is not known, their records carry no time (Kiro CLI 2.x, for one, "
                       f"writes none on a model reply): 8e247382 ({n} call(s))")


def test_since_names_the_calls_it_cannot_place_where_ls_lists_the_conversation(root):
    n = _v2_calls()
    ls = json.loads(_asz(root, "ls", "--json", "--since", "2026-05-27").stdout)
    assert [r["id"] for r in ls] == [V2]  # asz ls keeps the conversation (its prompt at 2026-05-27T18:15:03)
    p = _asz(root, "usage", "--since", "2026-05-27")
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert out[1].startswith("2026-05-27 ") and out[1].split()[2] == "0"  # the day of its credits, no call placed in it
    assert out[2].startswith("total !") and out[2].split()[3] == "0"  # CALLS: no call placed in the window
    assert out[3].startswith(f"! no time, so not placed in the --since/--until window, in no figure above: 8e247382 ({n} call(s)); ")
    assert "asz ls --since/--until keeps a conversation by its first and last recorded times" in out[3]
    j = _asz(root, "usage", "--since", "2026-05-21", "--json")  # a window with a row to carry the list
    rows = json.loads(j.stdout)
    assert [r["date"] for r in rows] == ["2026-05-21", "2026-05-27"]  # the second the day of the 2.x session's credits
    assert all(r["no_time"] == [{"conversation": V2, "calls": n}] for r in rows)
    assert f"asz usage: ! no time, so not placed in the --since/--until window, in no figure above: 8e247382 ({n} call(s))" in j.stderr
    whole = json.loads(_asz(root, "usage", "--json").stdout)
    assert rows[0]["calls"] == whole[0]["calls"]  # the dated calls are counted alike with the window and without
