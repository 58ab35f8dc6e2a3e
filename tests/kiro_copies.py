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
