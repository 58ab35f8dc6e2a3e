"""``asz prune`` (and ``--dry-run``) say what readers lose of the sessions it removes, and ``asz ls`` and ``asz usage``
count them where their project went (trial 36b F2: after a prune a ``(removed by retention)`` row held 55 % of a year's
cost, ``asz ls --project spotter`` fell from 54 rows to 29, and no command said so before or after).

Real input: two corpus projects, -home-user-sample-project (last activity 2025-09-07, cwd /path/to/Demo) and
-home-user-claude-reliability (2026-01-21), landed by ``asz collect --once``; ``storage.retention.after`` is set from
today to the day between their last activities, so only the older one goes. The figures are read from the sources.
"""

from __future__ import annotations

import datetime as dt
import shutil

import orjson
import pytest
from cli_helpers import asz_in_process

OLD, NEW = "-home-user-sample-project", "-home-user-claude-reliability"


def _last(folder) -> tuple[dt.datetime, str, str]:
    """The last ``timestamp`` of the project's transcripts, its session id (the file's name) and a ``cwd`` it names."""
    stamps, cwd = [], ""
    for p in sorted(folder.glob("*.jsonl")):
        for line in p.read_bytes().splitlines():
            d = orjson.loads(line)
            if d.get("timestamp"):
                stamps.append((d["timestamp"], p.stem))
            cwd = cwd or d.get("cwd", "")
    at, sid = max(stamps)
    return dt.datetime.fromisoformat(at.replace("Z", "+00:00")), sid, cwd


@pytest.fixture(scope="module")
def two(corpus_dir, tmp_path_factory):
    projects = corpus_dir / "claude-code" / "projects"
    if not (projects / OLD).is_dir() or not (projects / NEW).is_dir():
        pytest.skip(f"{projects} lacks {OLD} or {NEW}")
    base = tmp_path_factory.mktemp("prune-loss")
    for p in (OLD, NEW):
        shutil.copytree(projects / p, base / "projects" / p)
    (old_at, old_sid, old_cwd), (new_at, _, _) = _last(projects / OLD), _last(projects / NEW)
    assert old_at < new_at and old_cwd
    days = (dt.datetime.now(dt.timezone.utc) - (old_at + (new_at - old_at) / 2)).days
    (base / "asz.yaml").write_text(f'storage: {{retention: {{after: "{days * 24}h", require_accepted: false}}}}\n')
    root = base / "root"
    p = asz_in_process("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    return base, root, old_sid, old_cwd


def _run(*args, code=0):
    p = asz_in_process(*args)
    assert p.returncode == code, f"asz {' '.join(args)} exited {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p


def test_prune_says_it_and_readers_count_them(two):
    base, root, sid, cwd = two
    r, cfg = str(root), str(base / "asz.yaml")
    folder = cwd.rstrip("/").rsplit("/", 1)[1]
    before = [x["id"] for x in orjson.loads(_run("ls", "--json", "--project", folder, "--root", r).stdout)]
    assert sid in before
    tail = ("and with it their titles and projects: asz ls lists them (removed by retention), asz usage project counts "
            "their calls and cost under (removed by retention), --project keeps none of them and asz search finds none "
            "of their text; their times, models, tokens and cost stay")
    dry = _run("prune", "--dry-run", "--root", r, "--config", cfg)
    assert dry.stdout.splitlines()[0] == f"would remove {sid}"
    assert f"asz prune: note: the text of these 1 session(s) would go, {tail}" in dry.stderr.splitlines()
    done = _run("prune", "--root", r, "--config", cfg)
    assert f"asz prune: note: the text of these 1 session(s) went, {tail}" in done.stderr.splitlines()

    table = _run("ls", "--root", r).stdout.splitlines()
    at = table.index("2 of 2 conversations")
    assert table[at + 1] == ("1 conversation(s) removed by retention (asz prune): their title and project went with their "
                             "text, so they read (removed by retention), asz usage project counts them under it and "
                             "--project keeps none of them; their times, models, tokens and cost stay")
    lost = ("--project keeps none of the 1 conversation(s) retention removed (asz prune): their project went with their "
            "text; asz usage project counts them under (removed by retention)")
    p = _run("ls", "--project", folder, "--root", r, code=1)  # the only conversation of that project went
    assert lost in p.stdout.splitlines(), p.stdout
    p = _run("ls", "--json", "--project", folder, "--root", r, code=1)
    assert f"asz ls: note: {lost}" in p.stderr.splitlines() and orjson.loads(p.stdout) == []
    usage = _run("usage", "project", "--root", r).stdout.splitlines()
    assert any(x.startswith("(removed by retention) ") for x in usage), usage
    assert "! " + table[at + 1] in usage
    p = _run("usage", "project", "--json", "--root", r)
    assert f"asz usage: note: {table[at + 1]}" in p.stderr.splitlines()
    rows = orjson.loads(p.stdout)
    assert {x["project"] for x in rows} >= {"(removed by retention)"} and cwd not in {x["project"] for x in rows}
