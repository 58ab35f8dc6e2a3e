"""Copies of the Kiro corpus changed in one recorded fact, for the readers' tests (kiro22b)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path


def copy_unturned(kiro: Path, to: Path, session: str) -> Path:
    """A copy of the Kiro home ``kiro`` at ``to`` whose 2.x session document ``session`` has every turn's
    ``end_timestamp`` taken out (nothing else changed): no recorded turn end places its calls, so their conversation's
    recorded range does. Returns ``to``."""
    shutil.copytree(kiro, to)
    doc = to / "sessions" / "cli" / f"{session}.json"
    d = json.loads(doc.read_text(encoding="utf-8"))
    for t in d["session_state"]["conversation_metadata"]["user_turn_metadatas"]:
        del t["end_timestamp"]
    doc.chmod(0o644)
    doc.write_text(json.dumps(d), encoding="utf-8")
    return to


def writable_kiro_home(corpus: Path, to: Path) -> Path:
    """A writable copy at ``to`` of the Kiro corpus home under ``corpus`` (the ``corpus_dir`` fixture, ../shared/corpus;
    the corpus is read-only); skips the test when it is absent. Returns ``to``."""
    import pytest

    kiro = corpus / "kiro" / "home" / ".kiro"
    if not kiro.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({kiro})")
    shutil.copytree(kiro, to)
    for p in to.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    return to


def collected_kiro_home(kiro: Path, home: Path) -> tuple[Path, dict]:
    """The Kiro home ``kiro`` (the corpus's ``.kiro``) copied to ``home/.kiro`` and collected by ``asz collect --once
    --adapter kiro`` (in this process, HOME ``home``) into ``home/asz-data``; skips the test when the corpus is absent.
    Returns the root and the environment the readers are run with."""
    import pytest
    from cli_helpers import asz_in_process

    if not kiro.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({kiro})")
    shutil.copytree(kiro, home / ".kiro")
    env = {"HOME": str(home), "KIRO_HOME": None, "USERPROFILE": None, "CLAUDE_CONFIG_DIR": None, "XDG_CONFIG_HOME": None}
    r = home / "asz-data"
    p = asz_in_process("collect", "--once", "--adapter", "kiro", "--root", str(r), cwd=home, env=env)
    assert p.returncode == 0, p.stderr
    return r, env


#: The Kiro corpus's CLI 2.x session (its session document and transcript) and the id :func:`moved_copy` gives a copy.
CLI = "8e247382-c779-440f-b1db-ed9bad1afaee"
CLI_COPY = "8e247382-0000-4000-8000-0000000000c2"


def moved_copy(home: Path, days: int = 31, session: str = CLI, copy: str = CLI_COPY) -> Path:
    """In a writable Kiro home (:func:`writable_kiro_home`), a copy of the CLI 2.x ``session`` (``.json`` and
    ``.jsonl``) under the id ``copy`` with every time moved ``days`` days on (its prompts' unix ``timestamp`` and its
    ``2026-05-DD`` instants; the same message ids: its calls and turns are the original's). Returns the folder."""
    import re

    cli = home / "sessions" / "cli"
    shift = days * 86400

    def moved(text: str) -> str:
        text = re.sub(r'"timestamp":\s*(\d+)', lambda m: f'"timestamp":{int(m.group(1)) + shift}', text.replace(session, copy))
        return re.sub(r"2026-05-(\d\d)T", r"2026-06-\1T", text)

    assert days == 31, "the instants are moved from May to June: 31 days"
    for ext in ("json", "jsonl"):
        (cli / f"{copy}.{ext}").write_text(moved((cli / f"{session}.{ext}").read_text(encoding="utf-8")), encoding="utf-8")
    return cli


def kiro_credits(home: Path, session: str = CLI) -> tuple[float, float]:
    """(the CLI 2.x ``session``'s credits: every turn's ``metering_usage`` in ``credit`` of its session document; the
    IDE sessions': every ``usage_summary`` line's ``promptTurnSummaries[].usage`` in ``credit``), read from the files
    of the Kiro home ``home``."""
    doc = json.loads((home / "sessions" / "cli" / f"{session}.json").read_text(encoding="utf-8"))
    cli = sum(m["value"] for t in doc["session_state"]["conversation_metadata"]["user_turn_metadatas"]
              for m in t["metering_usage"] if m["unit"] == "credit")
    ide = sum(p["usage"] for f in (home / "sessions").glob("*/sess_*/messages.jsonl")
              for ln in f.read_text(encoding="utf-8").splitlines()
              if (d := json.loads(ln)).get("payload", {}).get("type") == "usage_summary"
              for p in d["payload"]["promptTurnSummaries"] if p.get("unit") == "credit")
    return cli, ide
