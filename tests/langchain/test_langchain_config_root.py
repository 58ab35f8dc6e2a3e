"""langsmith-ingest reads the inbox of the storage root the command resolved, ``--config FILE`` included (trial 27a F1).

The source root of an adapter whose source is inside the storage root is the storage root: ``--root``, else the
``storage.root`` of the configuration the command read (``--config FILE`` when given, else ./asz.yaml), else ./data
(:func:`asz_core.cli.jobs.storage_source_root`). Before, ``--config FILE`` was not looked at: ``asz collect --once
--config FILE`` read ./data (``no such source root``, rc 1, the staged traces never landed) and ``asz server --config
FILE`` run where ./asz.yaml names another root landed that other root's conversations into FILE's root. The staged
arrivals are the corpus's recorded upload bodies; the expected sessions are read from those bodies
(:func:`cli_helpers.expected_langsmith`).
"""

from __future__ import annotations

import json
from pathlib import Path

import sys

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))

from cli_helpers import expected_langsmith, stage_upload_bodies
from langchain_helpers import free_port


def _roots(tmp_path: Path, corpus_dir: Path) -> tuple[Path, Path, Path, dict]:
    """(work dir whose ./asz.yaml names root ``other``, the --config FILE naming root ``mine``, mine, expected sessions).
    Both roots hold the corpus's upload bodies staged; ``other``'s must never be read."""
    work, mine, other = tmp_path / "work", tmp_path / "mine", tmp_path / "other"
    if not stage_upload_bodies(corpus_dir, mine):
        pytest.skip(f"no LangSmith upload bodies under {corpus_dir / 'langchain'}")
    stage_upload_bodies(corpus_dir, other)
    work.mkdir()
    (work / "asz.yaml").write_text(f"storage:\n  root: {other}\nadapters:\n  - name: langsmith-ingest\n    enabled: true\n")
    cfg = tmp_path / "cfg.yaml"
    # A port of its own: the default 127.0.0.1:1985 may be held by another receiver on the machine (s48a: `asz server`
    # exited 1, "cannot listen on 127.0.0.1:1985: Address already in use", beside a trial's receiver).
    cfg.write_text(f"storage:\n  root: {mine}\nadapters:\n  - name: langsmith-ingest\n    enabled: true\n"
                   f"    listen: 127.0.0.1:{free_port()}\n")
    inbox = (mine / "_ingest" / "langsmith" / "inbox" / "001.jsonl").read_text().splitlines()
    want = expected_langsmith([json.loads(line)["run"] for line in inbox if json.loads(line)["op"] == "post"])
    return work, cfg, mine, want


def _landed(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("_")) if root.is_dir() else []


def _untouched(root: Path) -> bool:
    """True when ``root``'s inbox is still staged and nothing of it was materialised or landed."""
    return ((root / "_ingest" / "langsmith" / "inbox" / "001.jsonl").is_file()
            and not (root / "_ingest" / "langsmith" / "sessions").exists() and not _landed(root))


def test_collect_with_config_reads_the_inbox_of_its_root(tmp_path, corpus_dir):
    from cli_helpers import asz_in_process

    work, cfg, mine, want = _roots(tmp_path, corpus_dir)
    got = asz_in_process("collect", "--once", "--config", str(cfg), cwd=work)
    assert got.returncode == 0 and "errors=0" in got.stdout, (got.stdout, got.stderr)
    assert "no such source root" not in got.stderr
    assert _landed(mine) == sorted(want)
    assert not (mine / "_ingest" / "langsmith" / "inbox" / "001.jsonl").exists()  # materialised, moved to done/
    assert _untouched(tmp_path / "other")
    assert not (work / "data").exists()


def test_collect_with_config_and_root_reads_the_given_root(tmp_path, corpus_dir):
    from cli_helpers import asz_in_process

    work, cfg, mine, want = _roots(tmp_path, corpus_dir)
    third = tmp_path / "third"
    stage_upload_bodies(corpus_dir, third)
    got = asz_in_process("collect", "--once", "--config", str(cfg), "--root", str(third), "--adapter", "langsmith-ingest",
                         cwd=work)
    assert got.returncode == 0 and "errors=0" in got.stdout, (got.stdout, got.stderr)
    assert _landed(third) == sorted(want)
    assert _untouched(mine) and _untouched(tmp_path / "other")


def test_sources_with_config_lists_the_inbox_of_its_root(tmp_path, corpus_dir):
    from cli_helpers import asz_in_process

    work, cfg, mine, want = _roots(tmp_path, corpus_dir)
    got = asz_in_process("sources", "--config", str(cfg), "--json", cwd=work)
    assert got.returncode == 0, (got.stdout, got.stderr)
    (found,) = json.loads(got.stdout)["adapters"]
    assert found["source_root"] == str(mine) and {s["session"] for s in found["sessions"]} == set(want)
    assert _untouched(tmp_path / "other")


def test_server_with_config_reads_the_inbox_of_its_root(tmp_path, corpus_dir):
    from view_server_helpers import Served, counted_rows, first_pass  # noqa: E402

    work, cfg, mine, want = _roots(tmp_path, corpus_dir)
    served = Served(["server", "--config", str(cfg), "--interval", "1h"], work)
    try:
        last = first_pass(served)
        assert last["errors"] == 0 and last["sessions"] == len(want), (last, served.output())
        assert f"source   : langsmith-ingest from {mine}" in served.output()
        assert sorted(r["id"] for r in counted_rows(served)) == sorted(want)
    finally:
        served.stop()
    assert _untouched(tmp_path / "other")


def test_another_storage_roots_inbox_is_refused(tmp_path, corpus_dir):
    """What the trial's wrong pass did (``asz server --config`` landing /tmp/trial27a/root's conversations into root2,
    whose own arrivals then stopped with conflicts=7) cannot be asked for by hand either: a source root that is
    another storage root holding conversations is refused before anything is read or written (exit 2), whether named
    by --source or $ASZ_LANGSMITH_ROOT; a receiver's staging root (no conversation) is still read."""
    from cli_helpers import asz_in_process

    work, cfg, mine, want = _roots(tmp_path, corpus_dir)
    other = tmp_path / "other"
    first = asz_in_process("collect", "--once", "--root", str(other), "--adapter", "langsmith-ingest", cwd=work)
    assert "errors=0" in first.stdout and _landed(other) == sorted(want), (first.stdout, first.stderr)
    for how, env in ((["--source", str(other)], None), ([], {"ASZ_LANGSMITH_ROOT": str(other)})):
        got = asz_in_process("collect", "--once", "--root", str(mine), "--adapter", "langsmith-ingest", *how, cwd=work, env=env)
        assert got.returncode == 2, (got.stdout, got.stderr)
        assert (f"langsmith-ingest would read {other}, another storage root ({len(want)} landed conversation(s)), "
                f"into {mine}") in got.stderr
        assert _untouched(mine)
    staging = tmp_path / "staging"  # what `asz ingest langsmith --root staging` makes: an inbox, no conversation
    stage_upload_bodies(corpus_dir, staging)
    got = asz_in_process("collect", "--once", "--root", str(mine), "--adapter", "langsmith-ingest", cwd=work,
                         env={"ASZ_LANGSMITH_ROOT": str(staging)})
    assert "errors=0" in got.stdout and _landed(mine) == sorted(want), (got.stdout, got.stderr)
    assert not _landed(staging)
