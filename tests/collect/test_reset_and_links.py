"""Recoverable states have commands (issue 23): ``asz sources --reset-conflict`` and links that lead nowhere.

The ``asz`` command line (run in process, tests/cli_helpers.py) over a copy of the bundled Claude Code example
(examples/claude-code/projects): a conflict is made by rewriting the
transcript, cleared by the command only once the bytes are back, and what
landed stays; broken links in a source folder are skipped, not errors, unless
one is a session's own file.
"""

from __future__ import annotations

import os
import shutil

import orjson
import pytest

from collect_helpers import REPO, asz, summary

EXAMPLE = REPO / "examples" / "claude-code" / "projects"
SESSION = "7d2f1c3e-5b8a-4e61-9f0d-2a4c6e8b1d35"


@pytest.fixture()
def src(tmp_path):
    if not EXAMPLE.is_dir():
        pytest.skip(f"{EXAMPLE} is absent")
    return shutil.copytree(EXAMPLE, tmp_path / "src")


def _collect(src, root):
    return asz("collect", "--once", "--source", str(src), "--root", str(root))


def _landed_files(root):
    return sorted(p.relative_to(root).as_posix() for p in (root / SESSION).rglob("*.sd"))


def test_reset_conflict_reads_on_once_the_bytes_are_back_and_keeps_what_landed(src, tmp_path):
    root = tmp_path / "data"
    main = src / "-home-dev-hello-app" / f"{SESSION}.jsonl"
    assert _collect(src, root).returncode == 0
    before = _landed_files(root)
    original = main.read_bytes()
    extra = b'{"type":"user","uuid":"after-reset","sessionId":"' + SESSION.encode() + b'"}\n'
    main.write_bytes(original.replace(b"Run the tests", b"Run THE tests", 1) + extra)  # an editor rewrote the transcript
    p = _collect(src, root)
    assert p.returncode == 1 and summary(p.stdout)["conflicts"] == "1"
    p = asz("sources", "--source", str(src), "--root", str(root), "--reset-conflict", SESSION)
    assert p.returncode == 1  # the bytes are not back yet: the conflict stays, and says why
    assert p.stdout.startswith(f"conflict: -home-dev-hello-app/{SESSION}.jsonl: still rewritten: the 5645 bytes before offset 5645")
    main.write_bytes(original + extra)  # the bytes are back, and the runtime wrote one more line
    p = asz("sources", "--source", str(src), "--root", str(root), "--reset-conflict", SESSION[:4], "--json")  # a unique prefix
    assert p.returncode == 0, p.stderr
    assert orjson.loads(p.stdout)["session"] == SESSION
    rows = orjson.loads(p.stdout)["cursors"]
    assert [(r["src"], r["reset"]) for r in rows] == [(f"-home-dev-hello-app/{SESSION}.jsonl", True)]
    p = _collect(src, root)
    assert p.returncode == 0, p.stderr
    assert summary(p.stdout)["records"] == "1" and summary(p.stdout)["conflicts"] == "0"  # only the new line
    after = _landed_files(root)
    assert set(before) < set(after) and len(after) == len(before) + 1  # every file that landed is still there
    assert asz("verify", "--root", str(root)).returncode == 0
    p = asz("sources", "--source", str(src), "--root", str(root), "--reset-conflict", SESSION)
    assert p.returncode == 1 and "has no source in conflict" in p.stderr
    p = asz("sources", "--source", str(src), "--root", str(root), "--reset-conflict", "0000")  # a prefix of nothing
    assert p.returncode == 1 and "no such session" in p.stderr


def test_a_same_size_edit_in_place_is_a_conflict_and_reset_conflict_reads_on_once_it_is_undone(src, tmp_path):
    """Session 13: an editor changed landed bytes in place, size and inode as they were (no line appended): the pass
    notices it by the mtime its cursor holds and refuses the source as rewritten, keeping what landed; once the bytes
    are back, --reset-conflict reads on and nothing lands again."""
    root = tmp_path / "data"
    main = src / "-home-dev-hello-app" / f"{SESSION}.jsonl"
    assert _collect(src, root).returncode == 0
    before = _landed_files(root)
    original = main.read_bytes()
    edited = original.replace(b"Run the tests", b"Run THE tests", 1)
    assert len(edited) == len(original) == 5645 and edited != original
    with open(main, "r+b") as f:  # in place: the same inode
        f.write(edited)
    st = main.stat()
    os.utime(main, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # a later write, whatever the clock's tick
    p = _collect(src, root)
    assert p.returncode == 1 and summary(p.stdout)["conflicts"] == "1" and summary(p.stdout)["landed"] == "0"
    line = next(n for n, ln in enumerate(original.splitlines(), 1) if b"Run the tests" in ln)
    assert (f"conflict: {main}: rewritten in place (same size, modified since it landed): the 5645 bytes before "
            f"offset 5645 changed; line {line} changed; what landed is kept") in p.stderr  # the line: trial 34a F1
    assert _landed_files(root) == before
    with open(main, "r+b") as f:
        f.write(original)
    p = asz("sources", "--source", str(src), "--root", str(root), "--reset-conflict", SESSION)
    assert p.returncode == 0, p.stdout + p.stderr
    p = _collect(src, root)
    assert p.returncode == 0 and summary(p.stdout)["records"] == "0" and summary(p.stdout)["conflicts"] == "0", p.stderr
    assert _landed_files(root) == before
    assert asz("verify", "--root", str(root)).returncode == 0


def test_a_truncated_source_stays_in_conflict(src, tmp_path):
    root = tmp_path / "data"
    main = src / "-home-dev-hello-app" / f"{SESSION}.jsonl"
    p = _collect(src, root)
    assert p.returncode == 0 and " skipped=0 busy=0 " in p.stdout, p.stdout  # no hint when nothing was skipped
    main.write_bytes(main.read_bytes()[:100])
    assert _collect(src, root).returncode == 1
    p = asz("sources", "--source", str(src), "--root", str(root), "--reset-conflict", SESSION)
    assert p.returncode == 1
    assert "still truncated: the source has 100 bytes, 5645 landed" in p.stdout


def test_links_that_lead_nowhere_are_skipped_not_errors(src, tmp_path):
    root = tmp_path / "data"
    proj = src / "-home-dev-hello-app"
    os.symlink("missing.jsonl", proj / "notes.jsonl")
    os.symlink("loop", proj / "loop")  # a link to itself
    os.symlink("../nothere.jsonl", proj / SESSION / "subagents" / "agent-a0000000000000000.jsonl")
    os.symlink("gone", src / "-home-dev-other")  # a project folder that is a broken link
    for _ in range(2):  # every pass, not only the first
        p = _collect(src, root)
        assert p.returncode == 0, p.stderr
        assert summary(p.stdout)["errors"] == "0" and summary(p.stdout)["skipped"] == "4"
        assert " skipped=4 (asz sources lists them) busy=0 " in p.stdout, p.stdout  # where to see them (trial 17, F13)
    p = asz("sources", "--source", str(src), "--root", str(root))
    assert p.returncode == 0
    skipped = sorted(line for line in p.stdout.splitlines() if line.startswith("skipped:"))
    assert skipped == [
        "skipped: -home-dev-hello-app/7d2f1c3e-5b8a-4e61-9f0d-2a4c6e8b1d35/subagents/agent-a0000000000000000.jsonl: "
        "a symbolic link to ../nothere.jsonl, which leads nowhere",
        "skipped: -home-dev-hello-app/loop: a symbolic link to loop, which leads nowhere",
        "skipped: -home-dev-hello-app/notes.jsonl: a symbolic link to missing.jsonl, which leads nowhere",
        "skipped: -home-dev-other: a symbolic link to gone, which leads nowhere",
    ]


def test_a_session_file_that_leads_nowhere_is_an_error(src, tmp_path):
    root = tmp_path / "data"
    other = "11111111-2222-4333-8444-555555555555"
    os.symlink("missing.jsonl", src / "-home-dev-hello-app" / f"{other}.jsonl")
    third = "33333333-2222-4333-8444-555555555555"
    outside = tmp_path / "elsewhere" / "gone.jsonl"  # out of the source root, and not there either
    os.symlink(outside, src / "-home-dev-hello-app" / f"{third}.jsonl")
    p = _collect(src, root)
    assert p.returncode == 1
    assert f"{other}.jsonl: the session file is a symbolic link to missing.jsonl, which leads nowhere" in p.stderr
    assert f"{third}.jsonl: the session file is a symbolic link to {outside}, which leads nowhere" in p.stderr
    assert summary(p.stdout)["records"] == "14"  # the other session still landed whole


def test_reread_reads_a_really_rewritten_source_again_and_keeps_what_landed(src, tmp_path):
    """The runtime really rewrote its transcript (a prompt's words changed, a line added): --reset-conflict alone
    leaves it in conflict; with --reread the next pass lands the whole new version after what landed, every file
    that landed stays byte for byte, verify walks the two readings and says clean, and the conversation shows
    both versions of the changed record."""
    root = tmp_path / "data"
    main = src / "-home-dev-hello-app" / f"{SESSION}.jsonl"
    assert _collect(src, root).returncode == 0
    before = {f: (root / f).read_bytes() for f in _landed_files(root)}
    original = main.read_bytes()
    n_lines = original.count(b"\n")
    extra = b'{"type":"user","uuid":"after-rewrite","sessionId":"' + SESSION.encode() + b'"}\n'
    rewritten = original.replace(b"Run the tests", b"Run THE tests", 1) + extra
    assert rewritten != original + extra
    main.write_bytes(rewritten)
    assert _collect(src, root).returncode == 1
    p = asz("sources", "--source", str(src), "--root", str(root), "--reset-conflict", SESSION)
    assert p.returncode == 1 and "add --reread to read the new version from its start" in p.stdout
    p = asz("sources", "--source", str(src), "--root", str(root), "--reset-conflict", SESSION, "--reread")
    assert p.returncode == 0, p.stdout + p.stderr
    top = max(int(f.rsplit("-", 1)[1][:-3]) for f in before)
    assert p.stdout == (f"reset: -home-dev-hello-app/{SESSION}.jsonl: read again from its start (rewritten): its {len(rewritten)} "
                        f"bytes land from seq {top + 1} on; the {len(original)} bytes that landed before stay as they are\n")
    p = _collect(src, root)
    assert p.returncode == 0, p.stdout + p.stderr
    assert summary(p.stdout)["records"] == str(n_lines + 1) and summary(p.stdout)["conflicts"] == "0"
    after = _landed_files(root)
    assert all((root / f).read_bytes() == data for f, data in before.items())  # what landed is evidence, and stays
    new = [f for f in after if f not in before]
    assert new and all(int(f.rsplit("-", 1)[1][:-3]) > top for f in new)
    lines = [ln for f in new if "/streams/main/" in f for ln in (root / f).read_bytes().split(b"\n")[1:-2]]
    assert [orjson.loads(ln)["ord"] for ln in lines] == list(range(1, n_lines + 2))  # the new reading, whole, from ord 1
    assert orjson.loads(lines[0])["off"] == 0
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr
    assert _collect(src, root).returncode == 0 and summary(_collect(src, root).stdout)["records"] == "0"  # read on as usual
    doc = asz("conversation", SESSION, "--root", str(root), "--json")
    assert doc.returncode == 0, doc.stderr
    text = doc.stdout
    assert "Run the tests" in text and "Run THE tests" in text  # both versions of the rewritten prompt are shown

    # rewritten a second time: the cursor keeps one re-read point, so a second --reread is refused, saying why, and
    # the root stays one that verifies (two re-reads made verify see the first two readings as one: ord 16 then 4)
    main.write_bytes(rewritten.replace(b"Run THE tests", b"Run the TESTS", 1))
    assert _collect(src, root).returncode == 1
    p = asz("sources", "--source", str(src), "--root", str(root), "--reset-conflict", SESSION, "--reread")
    assert p.returncode == 1
    assert f"read again from its start once already (from seq {top + 1})" in p.stdout and "--root NEW" in p.stdout
    assert asz("verify", "--root", str(root)).returncode == 0
