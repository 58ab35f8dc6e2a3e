"""A session removed whole from a root fails ``asz verify`` (docs/verify.md, Sessions removed whole): the root's
``_sessions.list`` (docs/storage-root.md), kept by every writer that lands a session, names it.

Real input: the Claude Code corpus (../shared/corpus/claude-code/projects) collected by the real ``asz collect --once``
(tests/conftest.py ``corpus_copy``); every command runs in the test's process (:func:`cli_helpers.asz_in_process`:
what is tested is the list file and what each command prints and exits with; session 33: some 30 child processes cost
about 12 s of CPU here and in test_listed_readers.py), but for the pass that kills itself, a real process. The
sessions and times a list must hold are counted from the corpus's file names and the landed files' names, never from
the list's own code.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
import forked
from cli_helpers import asz_in_process

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
PROJECT = "-home-user-claude-reliability"


def asz(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return asz_in_process(*args, cwd=cwd)


def corpus_sessions(projects: Path) -> set[str]:
    """The session ids of the corpus: each project's top-level ``<uuid>.jsonl`` (``agent-*.jsonl`` are subagents)."""
    return {p.stem for p in projects.glob("*/*.jsonl") if not p.name.startswith("agent-")}


def list_lines(root: Path) -> list[str]:
    return (root / "_sessions.list").read_text().splitlines()


def listed_ids(root: Path) -> list[str]:
    return [ln.split()[0] for ln in list_lines(root) if ln and not ln.startswith("#")]


def stamp_time(session_dir: Path) -> str:
    """The RFC 3339 time of the stamp in the name of the session's seq-1 landed file, read straight off the name."""
    (name,) = [p.name for p in session_dir.rglob("*-000001.s[dk]")]
    stamp = name.split("-")[1]  # transcript-20261203T072704.090006019Z-000001.sd
    whole, frac = stamp.rstrip("Z").split(".")
    dt = datetime.strptime(whole, "%Y%m%dT%H%M%S").replace(tzinfo=timezone.utc)
    frac = frac.rstrip("0")
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + (f".{frac}" if frac else "") + "Z"


def test_a_session_removed_whole_fails_verify_naming_it_and_its_line(corpus_copy, corpus_dir):
    root = corpus_copy()
    projects = corpus_dir / "claude-code" / "projects"
    assert sorted(listed_ids(root)) == sorted(corpus_sessions(projects))  # each once, none other
    line = next(i for i, ln in enumerate(list_lines(root), 1) if ln.startswith(SID + " "))
    assert list_lines(root)[line - 1].split()[1:] == [stamp_time(root / SID), "claude-code-local/0.9.0"]
    assert asz("verify", "--root", str(root)).returncode == 0

    shutil.rmtree(root / SID)  # the user's case: the session's directory and its chain, nothing else
    for p in (root / "_conversations").glob(SID + "*"):
        shutil.rmtree(p)
    v = asz("verify", "--root", str(root))
    assert v.returncode == 1, v.stdout + v.stderr
    out = v.stdout.splitlines()
    assert out[0] == f"checked {len(corpus_sessions(projects)) - 1} session(s), " + out[0].split(", ", 1)[1]
    problems = [ln for ln in out if ": missing session: " in ln]
    assert problems == [f"{root}/_sessions.list:{line}: missing session: session {SID} (first landed "
                        f"{stamp_time_of(root, SID)} by claude-code-local/0.9.0) is listed as landed into this root, but "
                        f"its directory {root}/{SID} is gone; its chain is gone too: the session was removed after it "
                        "landed, and no reader shows it; if it was collected into this root and its source is still there, asz collect "
                        f"--once --root {root} lands it again from the source as it is now (adapter claude-code-local; "
                        "--source the folder it was collected from, when that is not the default); only a copy held "
                        "elsewhere (a receiver asz push sent it to, a backup) brings back what landed byte for byte"]
    assert "all landed data is contiguous" not in v.stdout
    assert "named in _index/ids.sqlite" not in v.stdout  # the hint is for sessions the list does not name
    j = json.loads(asz("verify", "--root", str(root), "--json").stdout)
    assert j["ok"] is False and j["missing_sessions"] == 1
    assert [(p["file"], p["line"], p["problem"]) for p in j["problems"]] == [(f"{root}/_sessions.list", line, "missing session")]


def stamp_time_of(root: Path, sid: str) -> str:
    """The time the list gave ``sid`` (its second field), checked against the landed name before the session went."""
    (ln,) = [ln for ln in list_lines(root) if ln.startswith(sid + " ")]
    return ln.split()[1]


def test_a_session_emptied_of_its_landed_files_is_missing_too(corpus_copy):
    root = corpus_copy()
    for sub in ("streams", "runs", "provider_body"):
        shutil.rmtree(root / SID / sub, ignore_errors=True)
    v = asz("verify", "--root", str(root))
    assert v.returncode == 1
    (p,) = [ln for ln in v.stdout.splitlines() if ": missing session: " in ln]
    assert f"but its directory {root}/{SID} holds no landed file; its chain is still here ({root}/_conversations/{SID})" in p


def test_a_pass_with_nothing_new_writes_nothing_to_the_list(corpus_copy, corpus_dir, tmp_path):
    root = corpus_copy()
    before = (root / "_sessions.list").stat()
    data = (root / "_sessions.list").read_bytes()
    c = asz("collect", "--once", "--source", str(corpus_dir / "claude-code" / "projects"), "--root", str(root), cwd=tmp_path)
    assert c.returncode == 0 and " landed=0 " in c.stdout, c.stdout + c.stderr
    after = (root / "_sessions.list").stat()
    assert (root / "_sessions.list").read_bytes() == data
    assert (after.st_mtime_ns, after.st_size, after.st_ino) == (before.st_mtime_ns, before.st_size, before.st_ino)
    assert "_sessions.list" not in c.stderr


# The collector as a real process that kills itself with SIGKILL right after its first landed file is linked
# (durable.data), before the pass ends: the session's files are on disk, its line is not (tests/collect/test_crash_window.py).
KILLED_AFTER_FIRST = """
import os, signal, sys
from asz_core.sessiondata import durable
data = durable.data
def data_then_die(path, size=0):
    took = data(path, size)
    if str(path).endswith(".sd"):
        os.kill(os.getpid(), signal.SIGKILL)
    return took
durable.data = data_then_die
from asz_core.cli.main import main
sys.argv[0] = "asz"
main()
"""


def test_a_pass_killed_after_landing_leaves_no_line_and_the_next_pass_adds_it(corpus_dir, tmp_path):
    src, root = tmp_path / "src", tmp_path / "data"
    (src / PROJECT).mkdir(parents=True)
    shutil.copy(corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl", src / PROJECT)
    args = ["collect", "--once", "--source", str(src), "--root", str(root), "--jobs", "1"]
    killed = subprocess.run([sys.executable, "-c", KILLED_AFTER_FIRST, *args], capture_output=True, text=True,
                            timeout=300, cwd=tmp_path)
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    assert list((root / SID).rglob("*.sd")), "the kill came after the first landed file"
    assert listed_ids(root) == []  # the list was made at the pass's start (a new root), the line not written yet

    done = asz(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "_sessions.list" not in done.stderr  # the root had its list: no note about sessions before it
    assert listed_ids(root) == [SID]
    assert stamp_time_of(root, SID) == stamp_time(root / SID)  # the pass that first landed it, not the one that listed it

    shutil.rmtree(root / SID)
    shutil.rmtree(root / "_conversations" / SID)
    v = asz("verify", "--root", str(root))
    assert v.returncode == 1 and f"{root}/_sessions.list:2: missing session: session {SID} " in v.stdout, v.stdout


def test_a_root_from_before_the_list_gets_a_note_then_its_list(corpus_copy, corpus_dir, tmp_path):
    root = corpus_copy()
    projects = corpus_dir / "claude-code" / "projects"
    (root / "_sessions.list").unlink()  # as an asz before the list left it: no list, and no _README.txt naming it
    (root / "_README.txt").unlink()
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr
    assert (f"{root}: no _sessions.list: this root was last collected by an asz that did not keep the list of landed "
            "sessions, so a session removed whole (its directory and its chain) cannot be found; the next asz collect "
            "writes the list from the sessions present") in v.stdout.splitlines()
    assert v.stdout.splitlines()[-1] == "all landed data is contiguous and matches its digests"
    (root / "_received").mkdir()  # a receiving root: asz receive writes it, nobody collects into it (trial 33c F7)
    v = asz("verify", "--root", str(root))
    assert (f"{root}: no _sessions.list: this root was last written by an asz that did not keep the list of landed "
            "sessions, so a session removed whole (its directory and its chain) cannot be found; the next start of "
            "asz receive on this root writes the list from the sessions present") in v.stdout.splitlines(), v.stdout
    (root / "_received").rmdir()
    (root / "_collect").rename(tmp_path / "collect-state")  # neither: an asz receive built before 2026-12-05 wrote no
    v = asz("verify", "--root", str(root))                   # _received/ (trial 37c F4), so both writers are named
    assert (f"{root}: no _sessions.list: this root was last written by an asz that did not keep the list of landed "
            "sessions, so a session removed whole (its directory and its chain) cannot be found; the next start of "
            "asz receive on this root, or the next asz collect, writes the list from the sessions present (it holds no "
            "collect state, _collect/: asz receive or a copy wrote it)") in v.stdout.splitlines(), v.stdout
    (tmp_path / "collect-state").rename(root / "_collect")
    # as an asz before its 077 umask left it (trial 37c F5): the root folder and one landed file open to others
    os.chmod(root, 0o755)
    sd = sorted(root.glob("*/streams/main/*.sd"))[0]
    os.chmod(sd, 0o644)

    def console(*args: str) -> subprocess.CompletedProcess:  # a real process (forked): asz sets its 077 umask at its start
        return forked.run([sys.executable, "-m", "asz_core.cli.main", *args], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)

    c = console("collect", "--once", "--source", str(projects), "--root", str(root))
    assert c.returncode == 0, c.stdout + c.stderr
    said = [ln for ln in c.stderr.splitlines() if "open to more users" in ln]  # once, in asz verify's words
    assert said == [f"note: {root}: 2 file(s) and folder(s) of {root} are open to more users than asz allows now (the "
                    f"first: {root}; umask 077): made by an older asz or under a looser umask; chmod -R go-rwx {root} "
                    "closes them (docs/storage-root.md, Who can read a root)"], c.stderr
    v = console("verify", "--root", str(root))
    assert said[0].split(": ", 2)[2] in v.stderr, v.stderr  # the same words verify says
    os.chmod(root, 0o700)
    os.chmod(sd, 0o600)
    n = len(corpus_sessions(projects))
    assert (f"note: {root}/_sessions.list: wrote _sessions.list from the {n} session(s) already in this root: from now on "
            "asz verify finds a session removed whole; a session removed from this root before now cannot be found") \
        in c.stderr.splitlines()
    assert sorted(listed_ids(root)) == sorted(corpus_sessions(projects))
    again = asz("collect", "--once", "--source", str(projects), "--root", str(root), cwd=tmp_path)
    assert again.returncode == 0 and "_sessions.list" not in again.stderr and "open to more" not in again.stderr  # said once
    assert "no _sessions.list" not in asz("verify", "--root", str(root)).stdout


def test_a_list_deleted_from_a_root_that_kept_one_fails_and_collect_says_it_wrote_it_anew(corpus_copy, corpus_dir,
                                                                                          tmp_path):
    """Trial 41b F2: the list deleted from a root this asz collected (its _README.txt names the list) is no old root's
    missing list: verify fails (``missing list``, exit 1) and says how to get it back; the next collect writes it anew
    from the sessions present with a warning, and verify is whole again."""
    root = corpus_copy()
    projects = corpus_dir / "claude-code" / "projects"
    readme = (root / "_README.txt").read_text()
    build = readme.split("This file was written by ", 1)[1].split(", when", 1)[0]
    (root / "_sessions.list").unlink()
    v = asz("verify", "--root", str(root))
    assert v.returncode == 1, v.stdout + v.stderr
    kept = f"its _README.txt shows {build} wrote here, which keeps the list"
    assert (f"{root}/_sessions.list: missing list: the root's list of landed sessions is gone, although {kept}: it was "
            "deleted or moved, so a session removed whole (its directory and its chain) cannot be found; put the list back "
            "from a backup or a copy of this root") in v.stdout, v.stdout
    assert "did not keep the list" not in v.stdout
    c = asz("collect", "--once", "--source", str(projects), "--root", str(root), cwd=tmp_path)
    assert c.returncode == 0, c.stdout + c.stderr
    n = len(corpus_sessions(projects))
    assert (f"warning: {root}/_sessions.list: was gone, although {kept}: wrote a new one from the {n} session(s) in this "
            "root; a session removed whole before now cannot be found (asz verify said missing list)") in c.stderr.splitlines()
    assert sorted(listed_ids(root)) == sorted(corpus_sessions(projects))
    assert asz("verify", "--root", str(root)).returncode == 0


def test_a_line_cut_short_is_a_warning_and_the_next_line_starts_afresh(corpus_copy, corpus_dir, tmp_path):
    root = corpus_copy()
    with open(root / "_sessions.list", "ab") as f:
        f.write(b"ffff00b4-57a5-4f26")  # a write cut short by a crash of the machine, of a session listed nowhere
    v = asz("verify", "--root", str(root))
    n = len(list_lines(root))
    assert v.returncode == 0, v.stdout
    assert (f"warning: {root}/_sessions.list:{n}: unreadable list line: not '<session> <first landed, UTC> <adapter>': "
            "'ffff00b4-57a5-4f26' (a write cut short by a crash or a full disk, or an edit) and no whole line of the "
            "list begins so: the session it named, if any, is not checked; the next asz collect gives a session still "
            "here a whole line, which settles this warning") in v.stdout.splitlines()
    src = tmp_path / "src"  # a new session lands: its line is written after the cut one, on a line of its own
    (src / "p").mkdir(parents=True)
    lines = (corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl").read_bytes().splitlines(keepends=True)
    (src / "p" / "0000aaaa-0000-4000-8000-000000000001.jsonl").write_bytes(
        b"".join(ln.replace(SID.encode(), b"0000aaaa-0000-4000-8000-000000000001") for ln in lines))
    c = asz("collect", "--once", "--source", str(src), "--root", str(root), "--no-parse", cwd=tmp_path)
    assert c.returncode == 0, c.stdout + c.stderr
    assert list_lines(root)[n - 1:n + 1][0] == "ffff00b4-57a5-4f26"
    assert list_lines(root)[n].startswith("0000aaaa-0000-4000-8000-000000000001 ")


def test_a_line_cut_short_then_written_whole_is_no_warning(corpus_copy):
    """Trial 26a F4: a full disk cut a line of the list short; a later pass wrote the same line whole. Before, verify
    warned on every run for the life of the root that the session 'is not checked' while it was listed and checked."""
    root = corpus_copy()
    lines = list_lines(root)
    victim = next(ln for ln in lines if ln and not ln.startswith("#"))
    name = victim.split()[0]
    rest = "\n".join(ln for ln in lines if ln != victim)
    (root / "_sessions.list").write_text(rest + "\n" + victim[:len(name) + 2] + "\n" + victim + "\n")
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0 and "unreadable list line" not in v.stdout, v.stdout
    assert f"{name}" not in [p.split()[0] for p in v.stdout.splitlines() if "missing session" in p]
    (root / "_sessions.list").write_text(rest + "\n" + victim[:len(name) + 2] + "\n")  # no whole line of it: warned
    v = asz("verify", "--root", str(root))
    n = len(lines)
    assert (f"warning: {root}/_sessions.list:{n}: unreadable list line: not '<session> <first landed, UTC> <adapter>': "
            f"'{victim[:len(name) + 2]}' (a write cut short") in v.stdout


def test_prune_keeps_every_session_present_and_a_receiver_keeps_its_own_list(corpus_copy, tmp_path):
    from asz_core.export.push import push
    from asz_core.export.receive import Receiver
    from asz_core.export.settings import ExportConfig, RetentionConfig
    from asz_core.retention.prune import prune

    root = corpus_copy(tmp_path / "data")
    received = tmp_path / "received"
    rcv = Receiver(received, "127.0.0.1:0").start().serve_in_thread()
    try:
        assert push(root, ExportConfig(), endpoint=f"grpc://{rcv.address}").ok
    finally:
        rcv.stop()
    listed = (root / "_sessions.list").read_bytes()
    rep = prune(root, RetentionConfig(after=3600.0), endpoint=f"grpc://{rcv.address}", instance_id="me@laptop")
    assert rep.removed and not rep.problems
    assert not list(root.rglob("*.sd")) and list(root.rglob("*.sk"))  # every landed file is a skeleton now
    assert (root / "_sessions.list").read_bytes() == listed
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0 and "missing session" not in v.stdout, v.stdout + v.stderr

    # the receiver listed each session it landed, with the time and adapter of its first file
    assert sorted(listed_ids(received)) == sorted(listed_ids(root))
    for sid in listed_ids(root):
        assert stamp_time_of(received, sid) == stamp_time_of(root, sid) == stamp_time(received / sid)
    shutil.rmtree(received / SID)
    shutil.rmtree(received / "_conversations" / SID)
    assert asz("verify", "--root", str(received)).returncode == 1


def test_repack_lists_the_sessions_it_writes_with_their_first_landed_time(corpus_copy, tmp_path):
    root = corpus_copy()
    dest = tmp_path / "dest"
    p = asz("repack", str(dest), "--root", str(root), cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert sorted(listed_ids(dest)) == sorted(listed_ids(root))
    assert {s: stamp_time_of(dest, s) for s in listed_ids(dest)} == {s: stamp_time_of(root, s) for s in listed_ids(root)}
    one = tmp_path / "one"
    assert asz("repack", str(one), SID, "--root", str(root), cwd=tmp_path).returncode == 0
    assert listed_ids(one) == [SID]
    shutil.rmtree(root / SID)
    r = asz("repack", str(tmp_path / "refused"), "--root", str(root), cwd=tmp_path)
    assert r.returncode != 0 and "missing session" in r.stdout + r.stderr  # a root missing a session is not repacked
