"""A --root that does not exist is said alike by every reader (trial 12: ``asz conversation`` said ``no rounds: …
has no chain under …/_conversations/079c/rounds`` and ``asz verify`` ``PATH: no storage root here``), each with its
own exit status as before: 1 for the readers, 2 for verify (a usage error there; docs/reading.md). A new user's report:
``asz ls`` said ``asz conversations: …`` and only verify said how to name a root: each now names the command typed
(``ls`` is the alias of ``conversations``) and every one gives verify's hint. parse, prune and push, which change a
root, say it in the same words too (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_helpers import asz_in_process

READERS = [(("ls",), "ls", 1), (("conversations",), "conversations", 1), (("usage",), "usage", 1),
           (("search", "hello"), "search", 1), (("conversation", "079c"), "conversation", 1), (("export", "079c"), "export", 1),
           (("show", "079c", "tool/x"), "show", 1), (("verify",), "verify", 2),
           # the commands that change a root, in the same words (trial 19, F19: they said ``PATH: no storage root here``)
           (("parse",), "parse", 2), (("prune",), "prune", 2), (("push", "--endpoint", "http://127.0.0.1:9"), "push", 2)]


@pytest.mark.parametrize("args,name,code", READERS, ids=[r[1] for r in READERS])
def test_a_missing_root_is_said_alike(tmp_path, args, name, code):
    gone = tmp_path / "not-here"
    p = asz_in_process(*args, "--root", str(gone))
    assert (p.returncode, p.stdout) == (code, "")
    assert p.stderr == f"asz {name}: no storage root at {gone} (give --root DIR or set storage.root)\n", p.stderr
    assert not gone.exists()


def _elsewhere(path) -> str:
    return (f"(that is {path}: asz collect lands into ./data of the folder it runs in, so run asz in the folder you "
            "collected in, or give --root DIR, or set storage.root in an asz.yaml there or in --config FILE)")


def test_the_configured_root_is_said_with_the_command_typed(tmp_path, monkeypatch):
    """No --root and no asz.yaml: the default root ``data`` of the working folder, named by ``asz ls`` as ``ls``, in
    full, with what a relative root means (trial 33a F4); no root at the usual places, none named."""
    here = tmp_path / "w" / "elsewhere"
    here.mkdir(parents=True)
    monkeypatch.chdir(here)
    p = asz_in_process("ls", env={"HOME": str(tmp_path)})
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr == f"asz ls: no storage root at data {_elsewhere(here / 'data')}\n"
    assert p.stderr.startswith("asz ls: ") and not (here / "data").exists()


REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("args,name,code", [(("ls",), "ls", 1), (("usage",), "usage", 1), (("verify",), "verify", 2)],
                         ids=["ls", "usage", "verify"])
def test_a_reader_run_beside_the_root_names_it(tmp_path, monkeypatch, args, name, code):
    """Run from a folder beside the one ``asz collect`` ran in (trial 33a F4: every reader said ``no storage root at
    data`` with no hint of where the root was): the path it looked at, that collect lands into ./data of its folder,
    and the root found beside, with the ``--root`` that reads it; that command then works. A folder beside that holds
    no session directory is no root and is not named; nor is the folder looked at."""
    work, here = tmp_path / "w" / "work", tmp_path / "w" / "elsewhere"
    here.mkdir(parents=True)
    work.mkdir()
    (tmp_path / "w" / "notes" / "data").mkdir(parents=True)  # empty: no root
    src = REPO / "examples" / "claude-code" / "projects"
    c = asz_in_process("collect", "--once", "--source", str(src), "--root", "data", cwd=work, env={"HOME": str(tmp_path)})
    assert c.returncode == 0, c.stderr
    monkeypatch.chdir(here)
    p = asz_in_process(*args, env={"HOME": str(tmp_path)})
    looked = "./data" if name == "verify" else "data"
    assert (p.returncode, p.stdout) == (code, "")
    assert p.stderr == (f"asz {name}: no storage root at {looked} {_elsewhere(here / 'data')}; a storage root is at "
                        f"{work / 'data'}: give --root {work / 'data'}\n"), p.stderr
    ok = asz_in_process(*args, "--root", str(work / "data"), env={"HOME": str(tmp_path)})
    assert ok.returncode == 0, ok.stderr


def test_the_usual_places_are_named_in_order(tmp_path, monkeypatch):
    """A root an asz.yaml beside names (its storage.root) and ``~/asz/data``: each named once, in that order, the first
    given as the ``--root`` to use; the README's ``./example-data`` of the working folder is named after them as the
    example, never as the ``--root`` to give (trial 47d F5)."""
    home, here = tmp_path / "home", tmp_path / "w" / "here"
    src = REPO / "examples" / "claude-code" / "projects"
    for cwd, root in ((here, "example-data"), (home / "asz", "data"), (tmp_path / "w" / "team", str(tmp_path / "kept"))):
        cwd.mkdir(parents=True, exist_ok=True)
        c = asz_in_process("collect", "--once", "--source", str(src), "--root", root, cwd=cwd, env={"HOME": str(home)})
        assert c.returncode == 0, c.stderr
    (tmp_path / "w" / "team" / "asz.yaml").write_text(f"storage:\n  root: {tmp_path / 'kept'}\n")
    monkeypatch.chdir(here)
    p = asz_in_process("ls", env={"HOME": str(home)})
    first = tmp_path / "kept"
    assert p.returncode == 1
    assert p.stderr == (f"asz ls: no storage root at data {_elsewhere(here / 'data')}; storage roots are at {first}, "
                        f"{home / 'asz' / 'data'}: give --root {first}; the README's example root is at "
                        f"{here / 'example-data'} (the bundled example, not your own history)\n"), p.stderr


def test_only_the_example_root_is_never_offered_as_yours(tmp_path, monkeypatch):
    """Trial 47d F5: run in a folder beside the README's (which holds ``example-data``), with the user's own root
    elsewhere, ``asz ls`` said ``give --root …/example-data``. It now names that root as the example and says where
    the user's own root is instead of offering it."""
    home, readme, here = tmp_path / "home", tmp_path / "w" / "asz", tmp_path / "w" / "emptydir"
    readme.mkdir(parents=True)
    here.mkdir()
    src = REPO / "examples" / "claude-code" / "projects"
    c = asz_in_process("collect", "--once", "--source", str(src), "--root", "./example-data", cwd=readme, env={"HOME": str(home)})
    assert c.returncode == 0, c.stderr
    monkeypatch.chdir(here)
    p = asz_in_process("ls", env={"HOME": str(home)})
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr == (f"asz ls: no storage root at data {_elsewhere(here / 'data')}; the README's example root is at "
                        f"{readme / 'example-data'} (the bundled example, not your own history); your own root is ./data "
                        "of the folder you ran asz collect in, or the storage.root of the asz.yaml there: give --root with "
                        "it\n"), p.stderr
    assert "give --root " + str(readme) not in p.stderr
