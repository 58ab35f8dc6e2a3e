"""``asz verify --export`` of a day archived in the recommended form (``--format text --in-range-only``) from a root
``asz receive`` landed, checked after ``asz prune`` (trial 35b F1: every archived day exited 1, "10 problem(s)": the
window's header names the senders of the window's landed files only, and after the prune those lines name the
skeletons (``….sk``), which the sender record does not, so the copy made again from the root lost its ``senders``
line and the title, project, lines, left-out and credential counts retention took were called changed).

Real input: the corpus project -home-user-sample-project (one session, 2025-09-07 09:52–09:54Z) collected by the real
``asz collect --once`` and pushed by the real pass to a real loopback receiver (instance dev@hostB, credential bob);
the day exported from the team root, the team root pruned (retention ``after: 0``). Expected figures from the
receiver's sender record, read here with orjson, and the copy's own bytes."""

from __future__ import annotations

import hashlib
import json

import orjson
import pytest

from export_helpers import asz, pushed_team

WORKERS = {"b": ("-home-user-sample-project", "dev@hostB", "bob", "tokB-35", "http")}
SID = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
DAY = ("--since", "2025-09-07", "--until", "2025-09-07", "--tz", "UTC", "--format", "text", "--in-range-only")


@pytest.fixture(scope="module")
def day(corpus_dir, tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("window_pruned")
    team = pushed_team(corpus_dir, base, WORKERS)["team"]
    copy = base / "day.txt"
    p = asz("export", *DAY, "--root", str(team), "--out", str(copy))
    assert p.returncode == 0, p.stderr
    before = asz("verify", "--export", str(copy), "--root", str(team))
    assert before.returncode == 0, before.stdout
    (base / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    p = asz("prune", "--root", str(team), "--config", str(base / "asz.yaml"))
    assert p.returncode == 0, p.stderr
    assert list(team.rglob("*.sk")), "the prune replaced no landed file"
    return {"team": team, "copy": copy, "base": base}


def test_a_window_copy_made_before_retention_checks(day):
    team, copy = day["team"], day["copy"]
    record = [orjson.loads(x) for p in (team / "_received").glob("*.senders") for x in p.read_bytes().splitlines()]
    mine = [x for x in record if x["file"].startswith(SID)]
    text = copy.read_text()
    (senders,) = [x for x in text.splitlines() if x.startswith("senders: ")]
    assert senders.startswith(f"senders: instance dev@hostB, credential bob, files {len(mine)}, ")
    p = asz("verify", "--export", str(copy), "--root", str(team))
    assert p.returncode == 0, p.stdout
    out = p.stdout.splitlines()
    assert any(x.startswith("not checkable: removed by retention: ") for x in out), p.stdout
    assert out[-1] == "the copy checks against the root but for what retention removed (not checkable, above)"
    assert "changed" not in p.stdout and "problem(s)" not in p.stdout


def _rewritten(day: dict, old: str, new: str):
    """The copy with ``old`` replaced by ``new`` once, its manifest written again for it (so only the root can tell)."""
    base = day["base"]
    data = day["copy"].read_bytes().replace(old.encode(), new.encode(), 1)
    assert data != day["copy"].read_bytes()
    changed = base / "e.txt"
    changed.write_bytes(data)
    body = json.loads((base / "day.txt.manifest.json").read_text())
    from asz_core.reading.export_manifest import line_digests
    body["export"] = {**body["export"], "file": "e.txt", "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                      "lines": line_digests(data)}
    (base / "e.txt.manifest.json").write_text(json.dumps(body))
    return asz("verify", "--export", str(changed), "--root", str(day["team"]))


def test_a_sender_changed_in_the_pruned_copy_is_a_problem(day):
    """The window's ``senders`` line is still the root's after the prune: an instance changed is named, exit 1."""
    p = _rewritten(day, "instance dev@hostB", "instance dev@hostX")
    assert p.returncode == 1, p.stdout
    line = next(n for n, x in enumerate(day["copy"].read_text().splitlines(), 1) if x.startswith("senders: "))
    assert f"e.txt: line {line} column " in p.stdout and "outside the masks" in p.stdout, p.stdout
    # the senders line is the only one called changed: the window's other lines still check (review35: without
    # ca7e0af9 this passed too, with the title, project, lines and credential counts called changed beside it)
    assert [x for x in p.stdout.splitlines() if x.startswith("e.txt: line ")] == [
        x for x in p.stdout.splitlines() if x.startswith(f"e.txt: line {line} column ")], p.stdout


def test_a_model_changed_in_the_pruned_copy_is_a_problem(day):
    """A byte of the header's ``models`` (a key retention leaves) changed: exit 1, named at its line and column."""
    n, models = next((n, x) for n, x in enumerate(day["copy"].read_text().splitlines(), 1) if x.startswith("models: "))
    p = _rewritten(day, models, models[:-1] + ("X" if models[-1] != "X" else "Y"))
    assert p.returncode == 1, p.stdout
    assert f"e.txt: line {n} column {len(models)}: outside the masks" in p.stdout, p.stdout
    assert [x.split(": the copy")[0] for x in p.stdout.splitlines() if x.startswith("e.txt: line ")] == [
        f"e.txt: line {n} column {len(models)}: outside the masks"], p.stdout  # that byte only (review35)
