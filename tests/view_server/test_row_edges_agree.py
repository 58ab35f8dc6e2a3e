"""The edges of a list row agree between ``asz ls --json`` and ``/api/conversations``, kept or checked (trial 29b F8,
trial 29c): ``cut`` is ``{}`` for no cut everywhere (a kept API row gave null) and the parts' counts where some were
cut, and a conversation whose calls recorded no token count (Kiro) has its ``usage`` counts null, as ``asz usage
--json`` gives them, never 0 beside ``usage_recorded`` false.

Real processes: a copy of the corpus (Claude Code with a small cut budget, so some parts are made smaller to land,
and Kiro) collected, listed (which keeps the rows), then served by ``asz view``: its first answer gives the kept
rows, a later one the rows it checked.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import orjson
import pytest

from view_server_helpers import asz
from cli_helpers import usage_json  # noqa: E402

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
#: A cut budget in bytes below the corpus's largest records (tool results of tens of KB): some parts are cut to land.
BUDGET = 65536


def _cut_in_landed(root: Path) -> dict[str, dict]:
    """Per session, the parts made smaller to land, counted from its landed .sd record lines themselves (seed 000, Too
    large to land: a part that kept some text has ``state`` ``truncated``, one that kept none ``too_large``, each its
    original size in ``bytes``; a result that kept its text whole lost its structured copy, whose size its record's
    ``dropped`` gives as ``data of part N``: counted in ``data_taken``, its ``bytes`` that size, trial 40c F1):
    ``{"truncated", "too_large", "bytes"}`` (and ``data_taken``), only the sessions with some."""
    out: dict[str, dict] = {}
    for f in sorted(root.glob("*/streams/*/*.sd")):
        for line in f.read_bytes().splitlines()[1:-1]:
            rec = orjson.loads(line)
            taken = {d["what"]: d["bytes"] for d in rec.get("dropped") or () if d["what"].startswith("data of part ")}
            for i, p in enumerate(rec.get("parts") or ()):
                if isinstance(p, dict) and p.get("state") in ("truncated", "too_large"):
                    c = out.setdefault(f.relative_to(root).parts[0], {"truncated": 0, "too_large": 0, "bytes": 0})
                    c[p["state"]] += 1
                    if p["state"] == "truncated" and p["k"] == "result" and p.get("text") and "data" not in p:
                        c["data_taken"] = c.get("data_taken", 0) + 1
                        c["bytes"] += taken[f"data of part {i + 1}"]
                    else:
                        c["bytes"] += p["bytes"]
    return out


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    projects, kiro = SHARED / "claude-code" / "projects", SHARED / "kiro" / "home"
    if not projects.is_dir() or not kiro.is_dir():
        pytest.skip(f"the corpus is absent ({SHARED})")
    root = tmp_path_factory.mktemp("edges") / "root"
    asz("collect", "--once", "--source", str(projects), "--root", str(root), "--max-delta-bytes", str(BUDGET))
    asz("collect", "--once", "--adapter", "kiro", "--source", str(kiro), "--root", str(root))
    return root


def _ls(root: Path) -> dict[str, dict]:
    return {r["id"]: r for r in json.loads(asz("ls", "--root", str(root), "--json").stdout)}


def test_cut_and_unrecorded_usage_agree_in_ls_and_the_api(root, serve):
    ls = _ls(root)  # counts and keeps every row: the server's first answer gives them as kept
    landed = _cut_in_landed(root)
    assert landed, "the budget cut no part: the test would prove nothing"
    for cid, row in ls.items():
        assert row["cut"] == landed.get(cid, {}), cid
    s = serve(root)
    kept = {r["id"]: r for r in s.get("/api/conversations").json()["conversations"]}
    deadline = time.monotonic() + 120
    while True:
        checked = {r["id"]: r for r in s.get("/api/conversations").json()["conversations"]}
        if all(r["state_from"] == "checked" for r in checked.values()) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert {r["state_from"] for r in checked.values()} == {"checked"}
    assert "kept" in {r["state_from"] for r in kept.values()}
    unrecorded = [cid for cid, r in ls.items() if r["usage_recorded"] is False]
    assert len(unrecorded) == 2  # the corpus's two Kiro sessions: no call of theirs records a token count
    usage = {r["conversation"]: r for r in json.loads(asz("usage", "session", "--root", str(root), "--json").stdout)}
    for cid, row in ls.items():
        for api in (kept[cid], checked[cid]):
            assert api["cut"] == row["cut"], (cid, api["state_from"])
            assert api["usage"] == row["usage"] and api["usage_recorded"] is row["usage_recorded"], (cid, api["state_from"])
        if cid in unrecorded:
            assert usage_json(row["usage"]) == usage[cid]["usage"] and set(row["usage"].values()) == {None}, row["usage"]
            assert row["cost"]["priced"] is False
        else:
            assert all(isinstance(v, int) for v in row["usage"].values()), row["usage"]
