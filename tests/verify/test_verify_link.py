"""A landed file replaced by a symbolic link to an identical copy outside the root is not the landed file (trial 42a F4:
``asz verify`` exited 0, ``asz ls`` said ``verified`` and ``asz export`` read through the link, while the page answered
403, docs/view.md "No links"). Every reader opens a landed file with ``O_NOFOLLOW`` (asz_core/sessiondata/nolink.py):
verify fails with one ``symbolic link`` problem naming the link's target and the way back, and no gap is told of it
again; ``ls`` says ``mismatch`` and the export (exit 1) says the conversation does not verify. Put back as the problem says, the root verifies.

Real input: the collected corpus root (a copy); the link is made on the real file system, the file moved out whole."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from cli_helpers import asz_in_process as asz


def _one_conversation(root: Path) -> tuple[str, Path]:
    """A conversation named as its session, and the first landed file of its main stream."""
    for conv in sorted((root / "_conversations").iterdir()):
        landed = sorted((root / conv.name / "streams" / "main").glob("transcript-*.sd"))
        if landed:
            return conv.name, landed[0]
    raise AssertionError(f"no conversation with a main transcript under {root}")


def test_a_landed_file_that_is_a_link_fails_verify_and_is_read_by_no_reader(corpus_copy, tmp_path):
    root = corpus_copy(tmp_path / "root")
    conv, landed = _one_conversation(root)
    outside = tmp_path / "outside" / landed.name
    outside.parent.mkdir()
    os.rename(landed, outside)  # the same bytes, the same inode: only where it is differs
    os.symlink(outside, landed)

    v = asz("verify", "--root", str(root), "--json")
    assert v.returncode == 1, v.stdout + v.stderr
    problems = json.loads(v.stdout)["problems"]
    linked = [p for p in problems if p["problem"] == "symbolic link"]
    assert [p["file"] for p in linked] == [str(landed)]
    assert linked[0]["detail"].startswith(f"the landed file is a link to {outside}, whose bytes were not read: asz "
                                          "follows no symbolic link inside a storage root")
    stream = str(landed.parent)
    assert not [p for p in problems if p["file"].startswith(stream) and p is not linked[0]]  # no gap told again
    chain = [p for p in problems if p["problem"] == "chain"]
    assert chain and all(f"_conversations/{conv}/" in p["file"] for p in chain)

    rows = {r["id"]: r for r in json.loads(asz("ls", "--root", str(root), "--json").stdout)}
    assert rows[conv]["state"] == "mismatch"

    md = asz("export", conv, "--root", str(root), "--format", "md")
    assert md.returncode == 1, md.stderr  # written without what does not verify, and said
    assert ", state mismatch\n" in md.stdout
    said = f"landed file {landed.relative_to(root).as_posix()} cannot be read: a symbolic link to {outside}, not the file"
    assert said in md.stdout and f"asz export: warning: {conv} does not verify: {said}" in md.stderr

    way_back = re.search(r"\((cp --remove-destination [^;]+; chmod a-w [^)]+)\)", linked[0]["detail"]).group(1)
    subprocess.run(way_back, shell=True, check=True)
    assert not landed.is_symlink()
    assert asz("verify", "--root", str(root)).returncode == 0
    rows = {r["id"]: r for r in json.loads(asz("ls", "--root", str(root), "--json").stdout)}
    assert rows[conv]["state"] == "verified"


def _moved_out(path: Path, outside: Path) -> Path:
    """Move ``path`` (a folder or file of the root) to ``outside`` whole and put a symbolic link to it in its place;
    returns where it went."""
    target = outside / path.name
    os.rename(path, target)
    os.symlink(target, path)
    return target


def _tree(path: Path) -> list[tuple[str, int]]:
    """Every file under ``path`` (not followed) with its size: what a reader or writer may have changed there."""
    return sorted((str(p.relative_to(path)), p.lstat().st_size) for p in path.rglob("*"))


def test_links_in_place_of_folders_and_cursors_are_refused_by_every_reader_and_by_collect(corpus_copy, corpus_projects,
                                                                                          tmp_path):
    """A symbolic link in place of a session folder, a stream folder, a chain folder under ``_conversations/`` or a
    cursor (docs/storage-root.md, "No links"): verify names each (``symbolic link``, with its target), ls and export
    do not read through them, collect lands nothing through them (an error naming the path, exit 1) and loses
    nothing: put back, the next pass lands the new lines."""
    root = corpus_copy(tmp_path / "root")
    projects = tmp_path / "projects"
    shutil.copytree(corpus_projects, projects)
    sessions = sorted(p.name for p in (root / "_conversations").iterdir()
                      if sorted((root / p.name / "streams" / "main").glob("transcript-*.sd")))
    s_sess, s_stream, s_chain, s_cursor = sessions[:4]
    outside = tmp_path / "outside"
    for sub in ("a", "b", "c", "d"):
        (outside / sub).mkdir(parents=True)
    links = {
        "the session folder": (root / s_sess, _moved_out(root / s_sess, outside / "a")),
        "the stream folder": (root / s_stream / "streams" / "main",
                              _moved_out(root / s_stream / "streams" / "main", outside / "b")),
        "the chain folder": (root / "_conversations" / s_chain,
                             _moved_out(root / "_conversations" / s_chain, outside / "c")),
        "the cursor": (root / s_cursor / "streams" / "main" / "transcript.cursor",
                       _moved_out(root / s_cursor / "streams" / "main" / "transcript.cursor", outside / "d")),
    }

    v = asz("verify", "--root", str(root), "--json")
    assert v.returncode == 1, v.stdout + v.stderr
    linked = {p["file"]: p["detail"] for p in json.loads(v.stdout)["problems"] if p["problem"] == "symbolic link"}
    assert sorted(linked) == sorted(str(link) for link, _ in links.values())
    for what, (link, target) in links.items():
        assert linked[str(link)].startswith(f"{what} is a link to {target}, which was not read: asz follows no "
                                            "symbolic link inside a storage root"), linked[str(link)]

    rows = {r["id"]: r["state"] for r in json.loads(asz("ls", "--root", str(root), "--json").stdout)}
    assert s_chain not in rows  # its chain folder is a link: not listed
    assert rows[s_sess] != "verified" and rows[s_stream] != "verified"  # their landed files are not read through it
    for conv in (s_sess, s_stream):
        md = asz("export", conv, "--root", str(root), "--format", "md")
        assert md.returncode == 1 and f"asz export: warning: {conv} does not verify" in md.stderr, md.stderr
    assert asz("export", s_chain, "--root", str(root), "--format", "md").returncode != 0

    before = {what: _tree(target.parent) for what, (_, target) in links.items()}
    grown = []
    for s in (s_sess, s_stream, s_cursor):  # a new line in each session's main source: something to land
        src = next(projects.rglob(f"{s}.jsonl"))
        last = src.read_bytes().splitlines()[-1]
        with open(src, "ab") as f:
            f.write(last + b"\n")
        grown.append(s)
    c = asz("collect", "--once", "--source", str(projects), "--root", str(root))
    assert c.returncode == 1, c.stdout + c.stderr
    for what in ("the session folder", "the stream folder", "the cursor"):
        link, target = links[what]
        assert f"{link}: " in c.stderr and f"a symbolic link to {target}, not {what}" in c.stderr, c.stderr
    assert {what: _tree(target.parent) for what, (_, target) in links.items()} == before  # nothing written through

    for link, target in links.values():  # put back as the problems say: the next pass lands what is new, once
        os.unlink(link)
        os.rename(target, link)
    c = asz("collect", "--once", "--source", str(projects), "--root", str(root))
    assert c.returncode == 0, c.stdout + c.stderr
    assert re.search(r"landed=3 records=3 ", c.stdout), c.stdout
    assert asz("verify", "--root", str(root)).returncode == 0


def test_a_linked_index_folder_and_a_linked_stream_folder_with_nothing_new_are_refused(corpus_copy, corpus_projects,
                                                                                        tmp_path):
    """fix43c's leftovers: a session whose ``index/`` is a symbolic link was named by verify only, while parse wrote
    through it and ls and export read the session as whole; a linked stream folder in a session with nothing new was
    read through (its cursor) and collect said nothing. Now parse refuses the session naming the link, ls and export
    read it as a session whose files are missing, and collect (no source changed) says each link (the index once more, as its parse refuses it), exit 1,
    writing nothing through either; put back, collect and verify are clean."""
    root = corpus_copy(tmp_path / "root")
    sessions = sorted(p.name for p in (root / "_conversations").iterdir()
                      if sorted((root / p.name / "streams" / "main").glob("transcript-*.sd")))
    s_index, s_stream = sessions[:2]
    (tmp_path / "out" / "i").mkdir(parents=True)
    (tmp_path / "out" / "s").mkdir(parents=True)
    links = {"the index folder": (root / s_index / "index", _moved_out(root / s_index / "index", tmp_path / "out" / "i")),
             "the stream folder": (root / s_stream / "streams" / "main",
                                   _moved_out(root / s_stream / "streams" / "main", tmp_path / "out" / "s"))}
    before = _tree(tmp_path / "out")

    p = asz("parse", s_index, "--root", str(root))
    link, target = links["the index folder"]
    assert p.returncode != 0 and f"a symbolic link to {target}, not the index folder asz landed" in p.stdout + p.stderr, \
        p.stdout + p.stderr
    rows = {r["id"]: r["state"] for r in json.loads(asz("ls", "--root", str(root), "--json").stdout)}
    assert rows[s_index] != "verified", rows[s_index]
    md = asz("export", s_index, "--root", str(root), "--format", "md")
    assert md.returncode == 1 and f"asz export: warning: {s_index} does not verify" in md.stderr, md.stderr

    c = asz("collect", "--once", "--source", str(corpus_projects), "--root", str(root))
    assert c.returncode == 1, c.stdout + c.stderr
    for what, (link, target) in links.items():  # the index: by the landing and by the parse after it
        said = f"a symbolic link to {target}, not {what} asz landed"
        assert c.stderr.count(said) == (2 if what == "the index folder" else 1) and f"{link}: " in c.stderr, c.stderr
    assert _tree(tmp_path / "out") == before  # nothing written through either link

    for link, target in links.values():
        os.unlink(link)
        os.rename(target, link)
    c = asz("collect", "--once", "--source", str(corpus_projects), "--root", str(root))
    assert c.returncode == 0 and re.search(r" landed=0 ", c.stdout), c.stdout + c.stderr
    assert asz("verify", "--root", str(root)).returncode == 0


def test_a_chain_whose_rounds_folder_is_a_link_is_named_by_verify_never_a_traceback(corpus_copy, tmp_path):
    """A chain's ``rounds`` folder replaced by a symbolic link to it moved out whole (review48: ``asz verify`` and
    ``asz verify SESSION`` ended in a LinkRefused traceback, exit 1 with no verdict): one ``chain`` problem names the
    link, its target and the way back, the root's and the session's verify alike; put back, the root verifies."""
    root = corpus_copy(tmp_path / "root")
    conv, _ = _one_conversation(root)
    rounds = root / "_conversations" / conv / "rounds"
    (tmp_path / "outside").mkdir()
    target = _moved_out(rounds, tmp_path / "outside")
    said = (f"the rounds folder is a link to {target}, which was not read: asz follows no symbolic link inside a "
            "storage root")
    for args in ((), (conv,)):
        v = asz("verify", *args, "--root", str(root), "--json")
        assert v.returncode == 1 and "Traceback" not in v.stderr, v.stdout + v.stderr
        linked = [p for p in json.loads(v.stdout)["problems"] if p["file"] == str(rounds)]
        assert [(p["problem"], p["detail"][:len(said)]) for p in linked] == [("chain", said)], linked
    # asz prune, whose plan reads every chain's head, says it and removes nothing (it was a LinkRefused traceback)
    (tmp_path / "asz.yaml").write_text(f"storage:\n  root: {root}\n  retention:\n    after: 0d\n    require_accepted: false\n")
    p = asz("prune", "--config", str(tmp_path / "asz.yaml"))
    assert p.returncode == 1 and "Traceback" not in p.stderr and said in p.stderr and "nothing is pruned" in p.stderr, p
    assert not list(root.rglob("*.sk")) and not p.stdout
    os.unlink(rounds)
    os.rename(target, rounds)
    assert asz("verify", "--root", str(root)).returncode == 0


def test_a_conversation_whose_rounds_folder_is_a_link_is_said_by_ls_usage_and_the_page(corpus_copy, tmp_path):
    """A chain's ``rounds`` folder that is a symbolic link is read by no reader, so that conversation is in no list
    (review48: ``asz ls`` said ``13 of 13`` and left it out with no word). ``asz ls`` counts it in its count line and,
    as ``asz usage`` (its tools view too), ``asz search``, ``asz secrets``, a folder ``asz export`` and the page's list
    note do, names it with its link and the way back (verify's words above)."""
    from starlette.testclient import TestClient

    from asz_core.view.server import ViewState, create_app

    root = corpus_copy(tmp_path / "root")
    every = sorted(p.name for p in (root / "_conversations").iterdir() if (p / "rounds").is_dir())
    conv, _ = _one_conversation(root)
    rounds = root / "_conversations" / conv / "rounds"
    (tmp_path / "outside").mkdir()
    target = _moved_out(rounds, tmp_path / "outside")
    said = (f"1 conversation(s) not {{}}: its rounds folder is a symbolic link ({conv}: the rounds folder is a link to "
            f"{target}, which was not read: asz follows no symbolic link inside a storage root; if it is the one asz "
            f"wrote here, put it in the link's place (rm {rounds}; cp -a {target} {rounds}) and verify again)")

    table = asz("ls", "--root", str(root))
    assert table.returncode == 0, table.stdout + table.stderr
    assert (f"\n{len(every) - 1} of {len(every)} conversations: 1 left out, its rounds folder a symbolic link "
            "(said below)\n") in table.stdout, table.stdout
    assert said.format("listed") in table.stdout
    js = asz("ls", "--root", str(root), "--json")
    assert conv not in {r["id"] for r in json.loads(js.stdout)} and f"asz ls: {said.format('listed')}" in js.stderr
    assert js.returncode == 0, js.stderr  # a reader that said what it left out and answered the rest: exit 0 (docs/cli.md)
    u = asz("usage", "--root", str(root), "--json")
    assert u.returncode == 0 and f"asz usage: {said.format('counted')}" in u.stderr, u.stderr
    t = asz("usage", "tools", "--root", str(root))
    assert f"asz usage: {said.format('counted')}" in t.stderr and f"\n{len(every) - 1:,} conversation(s) read" in t.stdout, t
    s = asz("search", "the", "--root", str(root), "--limit", "1")
    assert s.returncode == 0 and f"asz search: note: {said.format('searched')}" in s.stderr, s.stderr
    x = asz("secrets", "--root", str(root))
    assert f"asz secrets: note: {said.format('scanned')}" in x.stderr, x.stderr
    e = asz("export", "--root", str(root), "--until", "2000-01-01", "--out", str(tmp_path / "out"))
    assert e.returncode == 0 and f"asz export: note: {said.format('exported')}" in e.stderr, e.stderr
    helped = " ".join(asz("ls", "--help").stdout.split())
    assert "chain folder or rounds folder is a symbolic link" in helped and "asz verify is the command that fails" in helped
    note = TestClient(create_app(ViewState(root)), base_url="http://127.0.0.1").get("/api/conversations").json()["note"]
    assert said.format("listed") in note, note
