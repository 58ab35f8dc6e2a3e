"""A session whose source the collector stopped reading (its cursor in ``conflict``) is said by every reader, and a
watching collector names what it counts (trial 19, F5, F6, F18).

A user rotated a live transcript (renamed to ``A.jsonl.1``, a new ``A.jsonl`` started with later lines): the collector
found it cut shorter than what had landed, kept what landed and stopped reading it, which one stderr line said once;
``asz ls`` and ``asz conversation`` went on showing the conversation ``verified`` with no word, and a collector started
later printed ``conflicts=1`` on every pass and never which source. Real input: the corpus's 8463c716 transcript, its
first 60 lines landed, then rotated in a tmp dir; the real collect, ls, conversation and sources.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from cli_helpers import rotated_source
from collect_helpers import ASZ, asz, env

from asz_core.storage.layout import CONVERSATIONS
from asz_core.view.state import files_fingerprint

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "claude-code" / "projects"
SID = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
SOURCE = CORPUS / "-home-user-spotter" / f"{SID}.jsonl"
def _next(root: Path) -> str:
    """The next step said with the conflict: the command, with the root it was found in (trial 33a F2) and the folder
    the pass read, the rotated source's (``root``'s sibling ``src``: not the default folder; trial 34a F1)."""
    return (f"asz sources --reset-conflict {SID} --root {root} --adapter claude-code-local --source {root.parent / 'projects'} "
            "reads it again once its bytes are back, or from its start with --reread")


@pytest.fixture
def rotated(tmp_path: Path) -> dict:
    """The corpus transcript's first 60 lines landed, then rotated (:func:`cli_helpers.rotated_source`)."""
    return rotated_source(tmp_path, SOURCE)


def test_ls_and_conversation_say_the_source_no_longer_read(rotated):
    root, landed, size = rotated["root"], rotated["landed"], rotated["size"]
    why = f"truncated: the source has {size} bytes, {landed} already landed; line 1 changed"  # a new file: trial 34a F1
    (row,) = json.loads(asz("ls", "--json", "--root", str(root)).stdout)
    (c,) = row["conflicts"]
    assert row["state"] == "verified"  # what landed still verifies
    assert c["file"] == f"-p/{SID}.jsonl" and c["why"] == why and (c["kept_lines"], c["kept_bytes"]) == (60, landed)
    assert c["cursor"] == f"{SID}/streams/main/transcript.cursor" and c["next"] == _next(root)
    cursor = (root / c["cursor"]).read_text()
    assert f"updated_at      {c['since']}\n" in cursor and "state           conflict\n" in cursor
    since = c["since"].split(".")[0].replace("T", " ") + " UTC"
    said = (f"its source -p/{SID}.jsonl is no longer read since {since} ({why}); what landed is kept "
            f"(60 lines, {landed:,} bytes); {_next(root)}")
    ls = asz("ls", "--root", str(root))
    table = ls.stdout.splitlines()
    assert table[1].startswith("8463c716 ") and table[1].endswith("verified stopped")
    # the lines it holds past those are in no figure: said, and exit 1 (trial 46a F1)
    assert f"stopped: 8463c716: {said.replace('; asz sources', '; lines it holds past those are in no figure; asz sources')}" in table
    assert ls.returncode == 1 and "asz ls: the answer is incomplete (exit 1): 1 conversation(s) have a source" in ls.stderr
    summary = asz("conversation", SID, "--root", str(root))
    assert summary.returncode == 0 and f"stopped: {said}" in summary.stdout.splitlines()
    doc = json.loads(asz("conversation", SID, "--json", "--root", str(root)).stdout)
    assert doc["summary"]["conflicts"] == [c]


def test_a_reset_source_is_said_no_more(rotated):
    src, root = rotated["src"], rotated["root"]
    assert asz("sources", "--reset-conflict", SID, "--reread", "--source", str(src), "--root", str(root)).returncode == 0
    (row,) = json.loads(asz("ls", "--json", "--root", str(root)).stdout)
    assert row["conflicts"] == []
    assert "stopped" not in asz("ls", "--root", str(root)).stdout
    doc = json.loads(asz("conversation", SID, "--json", "--root", str(root)).stdout)
    assert "conflicts" not in doc["summary"]


def test_a_pass_over_the_conflicted_session_leaves_its_fingerprint(rotated):
    """F6: each pass takes the conflicted session's lock (rewriting its ``.lock``) and lands nothing: the files the
    view's state is bound to are unchanged, so the state found is kept instead of dropped on every pass."""
    src, root = rotated["src"], rotated["root"]
    lock = root / SID / ".lock"
    before, stamp = files_fingerprint(root, SID, SID), lock.stat().st_mtime_ns
    time.sleep(0.01)
    assert asz("collect", "--once", "--source", str(src), "--root", str(root)).returncode == 1
    assert lock.stat().st_mtime_ns != stamp  # the pass did take and rewrite it
    assert files_fingerprint(root, SID, SID) == before
    assert not any(name == ".lock" for name, *_ in before)
    cursor = next(f for f in (root / SID / "streams" / "main").iterdir() if f.suffix == ".cursor")
    os.utime(cursor)  # a cursor rewritten (sources gone or back) is no evidence a build reads: kept (found25)
    assert files_fingerprint(root, SID, SID) == before
    landed = next(f for f in (root / SID / "streams" / "main").iterdir() if f.suffix == ".sd")
    os.utime(landed)  # evidence (a landed file, a round) still changes it
    assert files_fingerprint(root, SID, SID) != before
    assert any(name.endswith(".sf") for name, *_ in before) and (root / CONVERSATIONS / SID).is_dir()


def _watch(src: Path, root: Path, passes: int) -> tuple[list[str], list[str]]:
    """A watching ``asz collect --interval 1s`` run (a real child) until it printed ``passes`` pass lines, then stopped
    with SIGTERM: (its pass lines, its stderr lines)."""
    p = subprocess.Popen([*ASZ, "collect", "--interval", "1s", "--source", str(src), "--root", str(root)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(None))
    out = []
    try:
        deadline = time.monotonic() + 60
        while len(out) < passes and time.monotonic() < deadline:
            line = p.stdout.readline()
            if not line:
                break
            out.append(line.rstrip("\n"))
    finally:
        p.send_signal(signal.SIGTERM)
        rest, err = p.communicate(timeout=60)
    return out + rest.splitlines(), err.splitlines()


def test_a_collector_started_after_the_conflict_names_it_once(rotated):
    """F18: the pass lines count it each pass; the source is named on the first pass, once, with its next step."""
    src, root, f = rotated["src"], rotated["root"], rotated["file"]
    lines, err = _watch(src, root, 3)
    assert len([x for x in lines if " conflicts=1 " in x]) >= 3
    said = [x for x in err if x.startswith("conflict:")]
    assert len(said) == 1 and said[0].startswith(f"conflict: {f}: truncated: the source has {rotated['size']} bytes")
    assert said[0].endswith(f"(cursor {root / SID / 'streams' / 'main' / 'transcript.cursor'}); {_next(root)}")


def test_a_source_gone_is_named_by_the_pass_that_counts_it(rotated):
    """F18: ``gone=1`` and one ``gone:`` line naming the source and its session; the next pass neither."""
    src, root, f = rotated["src"], rotated["root"], rotated["file"]
    assert asz("sources", "--reset-conflict", SID, "--reread", "--source", str(src), "--root", str(root)).returncode == 0
    assert asz("collect", "--once", "--source", str(src), "--root", str(root)).returncode == 0
    f.unlink()
    p = asz("collect", "--once", "--source", str(src), "--root", str(root))
    assert " gone=1 " in p.stdout
    cursor = root / SID / "streams" / "main" / "transcript.cursor"
    assert [x for x in p.stderr.splitlines() if x.startswith("gone:")] == [
        f"gone: {f}: the source is gone since the last pass; what landed is kept and reads as before (session {SID}, "
        f"cursor {cursor} now source_gone); nothing more of it will land"]
    assert "state           source_gone\n" in cursor.read_text()
    again = asz("collect", "--once", "--source", str(src), "--root", str(root))
    assert " gone=0 " in again.stdout and "gone:" not in again.stderr


def test_a_conflict_told_again_gives_the_source_size_now(rotated):
    """Trial 26a F8: the source rewritten after the conflict was found (here grown past what landed) is told by a
    later collector with its size now and when the size in the reason was measured, not only the stale size."""
    src, root, f = rotated["src"], rotated["root"], rotated["file"]
    lines = SOURCE.read_bytes().splitlines(keepends=True)
    f.write_bytes(b"".join(lines[60:90]))
    now = f.stat().st_size
    assert now != rotated["size"]
    p = subprocess.run([*ASZ, "collect", "--once", "--source", str(src), "--root", str(root)], env=env(None),
                       capture_output=True, text=True, timeout=120)
    said = [x for x in p.stderr.splitlines() if x.startswith("conflict:")]
    cursor = (root / SID / "streams" / "main" / "transcript.cursor").read_text()
    found = next(ln.split()[1] for ln in cursor.splitlines() if ln.startswith("updated_at "))
    assert len(said) == 1 and said[0].startswith(
        f"conflict: {f}: truncated: the source has {rotated['size']} bytes, {rotated['landed']} already landed; "
        f"line 1 changed (found {found}; the source has {now} bytes now); "), said
    # asz sources says the same (recheck 26 N4: its note gave the stale size alone while its table showed the size
    # now), and asz verify, which reads no source, dates the figure: one function words the three (dated_reason)
    s = asz("sources", "--source", str(src), "--root", str(root))
    notes = [x for x in s.stderr.splitlines() if x.startswith("conflict:")]
    assert notes == [f"conflict: {f}: truncated: the source has {rotated['size']} bytes, {rotated['landed']} already landed; "
                     f"line 1 changed (found {found}; the source has {now} bytes now); {_next(root)}"], notes
    [row] = [x.split() for x in s.stdout.splitlines() if x.startswith(SID)]
    assert row[3:5] == [str(now), str(rotated["landed"])] and row[6] == "conflict"
    j = json.loads(asz("sources", "--json", "--source", str(src), "--root", str(root)).stdout)
    conflicts = [r for a in j["adapters"] for sess in a["sessions"] for r in sess["sources"] if r["state"] == "conflict"]
    assert [(r["size"], r["since"]) for r in conflicts] == [(now, found)]  # when the figure was found: the cursor's
    v = asz("verify", "--root", str(root))
    assert (f"truncated: the source has {rotated['size']} bytes, {rotated['landed']} already landed; line 1 changed (since {found}); "
            in v.stdout), v.stdout
