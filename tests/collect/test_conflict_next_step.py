"""Every conflict message says the command that resolves it (trial gap: ``asz sources`` showed a source rewritten
after it landed as state ``conflict`` with no reason and no next step; a second source into one stream was refused with
no way on). Real input: the first 20 lines of the corpus's 8463c716 transcript."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from collect_helpers import asz

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "claude-code" / "projects"
SID = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
SOURCE = CORPUS / "-home-user-spotter" / f"{SID}.jsonl"
RESET = ("asz sources --reset-conflict {sid} --root {root} --adapter claude-code-local --source {src} reads it again once "
         "its bytes are back, or from its start with --reread")  # the root it was found in (trial 33a F2), and the
#   folder the pass read when it was not the default (trial 34a F1)


@pytest.fixture
def rewritten(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A source landed, then its third line rewritten (one byte) and a line appended: ``(src, root, file)``."""
    if not SOURCE.is_file():
        pytest.skip(f"the corpus is absent ({SOURCE})")
    src, root = tmp_path / "projects", tmp_path / "root"
    f = src / "-p" / f"{SID}.jsonl"
    f.parent.mkdir(parents=True)
    lines = SOURCE.read_bytes().splitlines(keepends=True)[:20]
    f.write_bytes(b"".join(lines))
    assert asz("collect", "--once", "--source", str(src), "--root", str(root)).returncode == 0
    lines[2] = lines[2].replace(b"a", b"b", 1)
    assert lines[2] != SOURCE.read_bytes().splitlines(keepends=True)[2]
    f.write_bytes(b"".join(lines) + lines[3])
    return src, root, f


def test_a_rewritten_source_says_how_it_is_resolved_in_collect_and_sources(rewritten):
    src, root, f = rewritten
    reset = RESET.format(sid=SID, root=root, src=src)
    p = asz("collect", "--once", "--source", str(src), "--root", str(root))
    said = [x for x in p.stderr.splitlines() if x.startswith("conflict:")]
    assert p.returncode == 1 and len(said) == 1 and said[0].startswith(f"conflict: {f}: rewritten") and said[0].endswith(reset)
    s = asz("sources", "--source", str(src), "--root", str(root))
    assert [x for x in s.stdout.splitlines() if x.startswith(SID)][0].split()[-2] == "conflict"
    listed = [x for x in s.stderr.splitlines() if x.startswith("conflict:")]
    assert len(listed) == 1 and listed[0].startswith(f"conflict: {f}: rewritten: the ") and listed[0].endswith("; " + reset)
    (row,) = json.loads(asz("sources", "--json", "--source", str(src), "--root", str(root)).stdout)["adapters"][0]["sessions"]
    assert row["sources"][0]["state"] == "conflict" and row["sources"][0]["next"] == reset


def test_a_second_source_says_how_it_is_resolved(rewritten, tmp_path):
    src, root, f = rewritten
    f.write_bytes(b"".join(SOURCE.read_bytes().splitlines(keepends=True)[:20]))  # its bytes back: no conflict
    copy = src / "-q" / f.name
    copy.parent.mkdir()
    copy.write_bytes(f.read_bytes() + b"\n")
    p = asz("collect", "--once", "--source", str(src), "--root", str(root))
    (said,) = [x for x in p.stderr.splitlines() if x.startswith("conflict:")]
    assert said == (f"conflict: {copy}: transcript of stream 'main' in session {SID} already comes from -p/{SID}.jsonl; "
                    f"the second source is refused: move it out of its source folder (a stray copy), or move -p/{SID}.jsonl "
                    "away to land this one instead (the cursor follows a source that holds what landed); asz sources lists both")
    copy.rename(tmp_path / "stray.jsonl")  # the step it names resolves it
    assert asz("collect", "--once", "--source", str(src), "--root", str(root)).returncode == 0


def test_lines_appended_to_a_source_in_conflict_count_in_conflicts_not_pending(rewritten):
    """Trial 22b: a line appended to a source in conflict is not read, so ``pending=`` does not count it (a source the
    pass read with lines left, docs/storage-root.md step 8); the pass counts the source in ``conflicts=`` and
    ``asz sources`` shows the unread bytes."""
    src, root, f = rewritten
    assert asz("collect", "--once", "--source", str(src), "--root", str(root)).returncode == 1  # the conflict found
    landed = (root / SID / "streams" / "main" / "transcript.cursor").read_bytes()
    line = SOURCE.read_bytes().splitlines(keepends=True)[20]
    with f.open("ab") as out:
        out.write(line)
    p = asz("collect", "--once", "--source", str(src), "--root", str(root))
    assert p.returncode == 1 and " conflicts=1 pending=0 " in p.stdout and " landed=0 " in p.stdout, p.stdout
    assert (root / SID / "streams" / "main" / "transcript.cursor").read_bytes() == landed  # nothing read
    (row,) = json.loads(asz("sources", "--json", "--source", str(src), "--root", str(root)).stdout)["adapters"][0]["sessions"]
    s = row["sources"][0]
    assert s["state"] == "conflict" and s["size"] == f.stat().st_size and s["unread"] == s["size"] - s["landed"] > len(line), s
