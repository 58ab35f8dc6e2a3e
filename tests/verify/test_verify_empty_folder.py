"""``asz verify --root EMPTYDIR``: an empty folder is no storage root, so verify says nothing landed there (exit 2),
never a clean verdict; a root that ``asz collect`` made, even one where it found no session, still verifies (exit 0).

A mistyped ``--root`` that happens to name an existing empty folder used to print ``checked 0 session(s) … all
landed data is contiguous and matches its digests`` and exit 0. Exit 2 as for a folder that is not a root
(``not a storage root: …``). Real folders under tmp_path; the commands run in process (tests/cli_helpers.py).
"""

from __future__ import annotations

from pathlib import Path

from cli_helpers import asz_in_process

ENV = {"CLAUDE_CONFIG_DIR": "/nonexistent-claude-home", "XDG_CONFIG_HOME": None}


def _asz(*args, cwd: Path):
    return asz_in_process(*args, cwd=cwd, env=ENV)


def test_an_empty_folder_has_nothing_to_verify_exit_2(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    for more in ([], ["--json"], ["--deep"]):
        p = _asz("verify", "--root", str(empty), *more, cwd=tmp_path)
        assert p.returncode == 2, (more, p.stdout, p.stderr)
        assert p.stderr.startswith(f"asz verify: no landed data in {empty}: nothing to verify"), p.stderr
        assert "contiguous" not in p.stdout and p.stdout == ""
    assert list(empty.iterdir()) == []  # verify wrote nothing into it


def test_a_folder_of_hidden_files_only_is_empty_too(tmp_path):
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / ".DS_Store").write_bytes(b"\0")
    p = _asz("verify", "--root", str(folder), cwd=tmp_path)
    assert p.returncode == 2 and "no landed data in" in p.stderr, p.stderr


def test_a_root_collect_made_from_an_empty_source_verifies(tmp_path):
    src, root = tmp_path / "projects", tmp_path / "data"
    src.mkdir()
    c = _asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp_path)
    assert c.returncode == 0, c.stderr
    assert (root / "_collect").is_dir()  # what collect leaves in a root where it found nothing
    assert [p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("_")] == []  # no session
    p = _asz("verify", "--root", str(root), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0] == "checked 0 session(s), 0 source file(s), 0 records"
    assert p.stdout.splitlines()[-1] == "all landed data is contiguous and matches its digests"


def test_ls_on_an_empty_folder_says_no_conversations(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    p = _asz("ls", "--root", str(empty), cwd=tmp_path)
    assert p.returncode == 0 and p.stderr.strip() + p.stdout.strip() == f"no conversations in {empty} (collect and parse sessions into it)"
    assert list(empty.iterdir()) == []


def test_the_library_refuses_an_empty_folder_as_the_command_does(tmp_path):
    """``verify_root`` and ``verify`` (the library) raise FileNotFoundError on an empty folder, with the very message
    a real ``asz verify`` child prints after ``asz verify: `` as it exits 2 (one check: ``refuse_empty_root``)."""
    import subprocess
    import sys

    import pytest

    from asz_core.verify.walk import verify, verify_root

    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / ".hidden").write_bytes(b"")
    said = (f"no landed data in {empty}: nothing to verify (not a storage root: nothing was ever collected into it; "
            f"asz collect --root {empty} makes it one)")
    child = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "verify", "--root", str(empty)], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
    assert (child.returncode, child.stdout, child.stderr) == (2, "", f"asz verify: {said}\n")
    for call in (verify_root, verify):
        with pytest.raises(FileNotFoundError) as caught:
            call(empty)
        assert str(caught.value) == said
        with pytest.raises(FileNotFoundError) as caught:
            call(str(empty), jobs=1)
        assert str(caught.value) == said
    assert sorted(p.name for p in empty.iterdir()) == [".hidden"]  # nothing written


def test_the_library_verifies_a_root_collect_made_from_an_empty_source(tmp_path):
    from asz_core.verify.walk import verify_root

    src, root = tmp_path / "projects", tmp_path / "data"
    src.mkdir()
    assert _asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp_path).returncode == 0
    report = verify_root(root)
    assert report.ok and report.sections[0].counts["sessions"] == 0


def test_repack_of_an_empty_folder_or_a_projects_folder_is_a_usage_error(tmp_path):
    """``asz repack`` verifies its root first (the library's verify): a folder that is no root is said in verify's own
    words, exit 2, nothing written (it was a traceback for a projects folder, and a repack of nothing for an empty one)."""
    empty, projects = tmp_path / "empty", tmp_path / "projects"
    empty.mkdir()
    (projects / "-home-me-app").mkdir(parents=True)
    (projects / "-home-me-app" / "a.jsonl").write_text("{}\n")
    p = _asz("repack", str(tmp_path / "out"), "--root", str(empty), cwd=tmp_path)
    assert (p.returncode, p.stdout) == (2, "") and p.stderr.startswith(f"asz repack: no landed data in {empty}"), p.stderr
    p = _asz("repack", str(tmp_path / "out"), "--root", str(projects), cwd=tmp_path)
    assert (p.returncode, p.stdout) == (2, "") and p.stderr.startswith(f"asz repack: {projects}: not a storage root"), p.stderr
    assert not (tmp_path / "out").exists()
