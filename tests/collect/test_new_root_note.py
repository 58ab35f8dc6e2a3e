"""A command that creates a storage root says so once on stderr, naming it in full and how it was chosen.

Trial 23b, F7: ``cd other && asz collect --once`` (no ``--root``, no asz.yaml there) silently started a second,
partial root ``./data`` of that folder beside the first; a user collecting from cron and from a shell split their
history without a word. Now the pass that creates the root says
``note: created a new storage root at /abs/data (no --root given and no asz.yaml here: …)``; a pass into a root that
exists says nothing of it. ``HOME`` is a temporary folder; the source is the repository's example.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from collect_helpers import REPO, asz, summary

EXAMPLE = REPO / "examples" / "claude-code" / "projects"
NOTE = "note: created a new storage root at "


def _notes(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(NOTE)]


def _home_and_work(tmp_path, config: str | None = None):
    """``(home, work)``: the bundled example under ``home/src``, an empty working folder, and its asz.yaml when given."""
    home, work = tmp_path / "home", tmp_path / "work"
    shutil.copytree(EXAMPLE, home / "src")
    work.mkdir()
    if config is not None:
        (work / "asz.yaml").write_text(config, encoding="utf-8")
    return home, work


def test_default_root_created_is_said_once(tmp_path):
    """A real ``asz collect --once`` child in a folder with no asz.yaml: its first pass creates ``./data`` and says so
    with the absolute path and the rule; the second pass, into the root that now exists, says nothing of it."""
    home, work = _home_and_work(tmp_path)
    first = asz("collect", "--once", "--source", str(home / "src"), cwd=work, child=True, extra_env={"HOME": str(home)})
    assert first.returncode == 0, first.stderr
    assert int(summary(first.stdout)["landed"]) > 0
    assert _notes(first.stderr) == [
        f"{NOTE}{work / 'data'} (no --root given and no asz.yaml here: ./data of the working folder; "
        "a root is --root DIR, else storage.root of asz.yaml, else ./data)"]
    again = asz("collect", "--once", "--source", str(home / "src"), cwd=work, child=True, extra_env={"HOME": str(home)})
    assert again.returncode == 0, again.stderr
    assert _notes(again.stderr) == [], again.stderr


def test_root_of_the_configuration_and_of_root_option(tmp_path):
    """The note names the asz.yaml whose storage.root made the root; a root ``--root`` named is the one asked for,
    and is not said."""
    home, work = _home_and_work(tmp_path, "storage:\n  root: kept\n")
    res = asz("collect", "--once", "--source", str(home / "src"), cwd=work, extra_env={"HOME": str(home)})
    assert res.returncode == 0, res.stderr
    assert _notes(res.stderr) == [f"{NOTE}{work / 'kept'} (storage.root of {work / 'asz.yaml'}; a root is --root DIR, "
                                  "else storage.root of asz.yaml, else ./data)"]
    res = asz("collect", "--once", "--source", str(home / "src"), "--root", str(tmp_path / "r"), cwd=work,
              extra_env={"HOME": str(home)})
    assert res.returncode == 0, res.stderr
    assert _notes(res.stderr) == [], res.stderr
    assert (tmp_path / "r").is_dir() and not (work / "data").exists()


def test_an_asz_yaml_with_no_storage_root_is_said_as_such(tmp_path):
    """An asz.yaml that sets no storage.root leaves the root ./data beside it: the note says that, not that the file's
    storage.root named it (recheck23)."""
    home, work = _home_and_work(tmp_path, "view:\n  hide: []\n")
    res = asz("collect", "--once", "--source", str(home / "src"), cwd=work, extra_env={"HOME": str(home)})
    assert res.returncode == 0, res.stderr
    assert _notes(res.stderr) == [f"{NOTE}{work / 'data'} (no --root given and {work / 'asz.yaml'} sets no storage.root: "
                                  "./data beside it; a root is --root DIR, else storage.root of asz.yaml, else ./data)"]
