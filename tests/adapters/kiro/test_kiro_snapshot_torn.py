"""A Kiro snapshot read while Kiro rewrites it (trial 23a, F16): the real ``session.json`` / ``<id>.json`` of
../shared/corpus/kiro cut mid-way, then completed.

Kiro writes these documents whole again at each change; a pass that reads one half-written must not land the cut
bytes as a permanent "not valid JSON" record. Expected: the cut version waits (``partial=1``, nothing landed), the
whole version lands once it is there, and nothing is undescribed; a cut version the file keeps unchanged for the idle
window (10 minutes) lands as it is (the evidence is what Kiro left). Expected values are the source files' own
(their sizes, their ``title``), never the code's output.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest
from cli_helpers import asz_in_process

V3 = "2f1c0d9e8b7a6f5e/sess_5e804080-466c-4f65-bde9-f6133b7068f6"
V2 = "cli/8e247382-c779-440f-b1db-ed9bad1afaee"


@pytest.fixture()
def home(corpus_dir: Path, tmp_path: Path) -> Path:
    src = corpus_dir / "kiro" / "home" / ".kiro"
    if not (src / "sessions").is_dir():
        pytest.skip(f"{src}/sessions is absent")
    dst = tmp_path / "home" / ".kiro"
    shutil.copytree(src, dst)
    for p in dst.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    return dst


def _collect(home: Path, root: Path, cut_lands: bool = False) -> dict[str, int]:
    """The pass line's counts; unless ``cut_lands``, no warning of a cut document landed verbatim."""
    p = asz_in_process("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    assert cut_lands or "not valid JSON" not in p.stderr
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", p.stdout)}


def _metas(root: Path, session: str) -> list[Path]:
    return sorted((root / session / "streams" / "main").glob("meta-*.sd"))


def _doc(root: Path, session: str) -> dict:
    p = asz_in_process("conversation", session, "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.parametrize("rel, meta_name", [(V3, "session.json"), (V2, None)])
def test_a_cut_snapshot_waits_and_the_whole_one_lands(home: Path, tmp_path: Path, rel: str, meta_name) -> None:
    meta = (home / "sessions" / rel / meta_name) if meta_name else (home / "sessions" / f"{rel}.json")
    session = meta.parent.name if meta_name else meta.stem
    whole = meta.read_bytes()
    title = json.loads(whole)["title"]
    meta.write_bytes(whole[: len(whole) // 2])  # Kiro's bytes, cut where a rewrite in progress would leave them
    root = tmp_path / "root"
    first = _collect(home, root)
    assert first["partial"] == 1 and first["errors"] == 0
    assert _metas(root, session) == []  # the cut document did not land
    again = _collect(home, root)  # still cut, still recent: it waits again, lands nothing
    assert again["partial"] == 1 and again["landed"] == 0 and _metas(root, session) == []
    meta.write_bytes(whole)  # Kiro finished writing it
    done = _collect(home, root)
    assert done["partial"] == 0 and done["landed"] == 1 and done["bytes"] == len(whole)
    (landed,) = _metas(root, session)
    doc = _doc(root, session)
    assert doc["summary"]["title"] == title
    assert doc["summary"]["undescribed"] == 0 and doc["undescribed"] == []
    assert not [p for p in doc["summary"]["problems"] if "undescribed" in p]


def test_a_cut_snapshot_left_unchanged_for_the_window_lands_as_it_is(home: Path, tmp_path: Path) -> None:
    meta = home / "sessions" / V3 / "session.json"
    cut = meta.read_bytes()[:150]
    meta.write_bytes(cut)
    old = time.time() - 11 * 60  # unchanged for longer than the 10-minute idle window: what Kiro left
    os.utime(meta, (old, old))
    root = tmp_path / "root"
    got = _collect(home, root, cut_lands=True)
    assert got["partial"] == 0
    (landed,) = _metas(root, "sess_5e804080-466c-4f65-bde9-f6133b7068f6")
    doc = _doc(root, "sess_5e804080-466c-4f65-bde9-f6133b7068f6")
    assert [u["bytes"] for u in doc["undescribed"]] == [len(cut)]  # kept whole, said: never lost

