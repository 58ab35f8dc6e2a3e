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
