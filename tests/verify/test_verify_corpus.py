"""``asz collect`` then ``asz verify`` on the real Claude Code corpus (../shared/corpus/claude-code/projects).

Real processes, a temporary root, and ``CLAUDE_CONFIG_DIR`` pointed away from
the machine's own ~/.claude. Skipped when the corpus or the collector is absent.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import asz_in_process, land_again
from verify_landing import change_byte, overwrite

from asz_core.storage import landed_files, session_dirs
from asz_core.verify.walk import DUPLICATES_LINE, OK_LINE, verify_root

ASZ = [sys.executable, "-m", "asz_core.cli.main"]


@pytest.fixture(scope="module")
def projects() -> Path:
    d = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "claude-code" / "projects"
    if not d.is_dir():
        pytest.skip(f"the Claude Code corpus is absent ({d})")
    try:
        import asz_core.collect.collector  # noqa: F401
        import asz_adapters_claude  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"the collector or the Claude Code adapter is not here yet ({exc})")
    return d


def asz(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess:
    """``asz ARGS`` in this process (tests/cli_helpers.py), in ``cwd`` with CLAUDE_CONFIG_DIR at ``home``."""
    return asz_in_process(*args, cwd=cwd, env={"CLAUDE_CONFIG_DIR": str(home), "XDG_CONFIG_HOME": None})


CACHED = re.compile(r"(\d+) cached figure entries \(_index/summaries\.sqlite\) not counted again: asz verify --figures does$")


def verdict(out: list[str], conversations: int) -> list[str]:
    """The verdict lines of ``asz verify`` (after its two ``checked`` lines), less the cached-figures line.

    ``asz collect --once`` keeps each conversation it parsed as a list row, a usage summary and its tool calls (since
    154a4213), so plain verify says it did not count those 3 × ``conversations`` entries again (docs/verify.md); that
    line comes first.
    """
    m = CACHED.match(out[2]) if len(out) > 2 else None
    assert m is not None and int(m.group(1)) == 3 * conversations, out
    return out[3:]


def collect(source: Path, root: Path, tmp: Path) -> dict[str, int]:
    """One collect pass; returns the counts of its report line."""
    got = asz("collect", "--once", "--source", str(source), "--root", str(root), cwd=tmp, home=tmp / "claude-home")
    assert got.returncode == 0, got.stdout + got.stderr
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", got.stdout.splitlines()[-1])}


@pytest.fixture(scope="module")
def collected(projects: Path, tmp_path_factory) -> tuple[Path, dict[str, int]]:
    """The corpus collected once into a root shared by the read-only tests of this module."""
    tmp = tmp_path_factory.mktemp("corpus")
    (tmp / "claude-home").mkdir()
    counts = collect(projects, tmp / "root", tmp)
    return tmp / "root", counts


def test_the_collected_corpus_verifies_clean(collected: tuple[Path, dict[str, int]], tmp_path: Path) -> None:
    root, counts = collected
    got = asz("verify", "--root", str(root), cwd=tmp_path, home=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    out = got.stdout.splitlines()
    assert out[0] == f"checked {counts['sessions']} session(s), {counts['sources']} source file(s), {counts['records']} records"
    assert re.fullmatch(r"checked \d+ conversation chain\(s\), \d+ round\(s\)", out[1])  # collect may parse too
    assert verdict(out, counts["sessions"]) == [OK_LINE]


def test_each_collected_file_verifies_on_its_own(collected: tuple[Path, dict[str, int]], tmp_path: Path) -> None:
    root, _ = collected
    files = [p for s in session_dirs(root) for _, p in landed_files(s)]
    assert files
    biggest = max(files, key=lambda p: p.stat().st_size)
    got = asz("verify", str(biggest), cwd=tmp_path, home=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr


def _copy_root(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, symlinks=True)
    return dest


def test_random_byte_changes_in_the_largest_landed_files_are_found(collected: tuple[Path, dict[str, int]], tmp_path: Path) -> None:
    """About 200 seeded positions over the three largest landed files: every change found, the file named."""
    root = _copy_root(collected[0], tmp_path / "root")
    files = sorted((p for s in session_dirs(root) for _, p in landed_files(s)), key=lambda p: -p.stat().st_size)[:3]
    rng = random.Random(20261129)
    for f in files:
        original = f.read_bytes()
        session = f.relative_to(root).parts[0]
        for _ in range(67):
            pos = rng.randrange(len(original))
            value = (original[pos] + rng.randrange(1, 256)) % 256
            change_byte(f, pos, value)
            report = verify_root(root, session, jobs=1)
            assert not report.ok, f"{f.name} byte {pos} -> {value:#04x} went unnoticed"
            assert any(p.file == str(f) for p in report.problems), report.lines()
        overwrite(f, original)
    assert verify_root(root).ok


def test_deleting_the_last_landed_file_of_the_largest_stream(collected: tuple[Path, dict[str, int]], tmp_path: Path) -> None:
    root = _copy_root(collected[0], tmp_path / "root")
    groups: dict[tuple[Path, str], list[Path]] = {}
    for s in session_dirs(root):
        for ln, p in landed_files(s):
            if ln.kind == "transcript":
                groups.setdefault((p.parent, ln.kind), []).append(p)
    stream = max(groups.values(), key=lambda ps: sum(p.stat().st_size for p in ps))
    last = stream[-1]
    os.chmod(last.parent, 0o755)
    last.unlink()
    got = asz("verify", "--root", str(root), cwd=tmp_path, home=tmp_path)
    assert got.returncode == 1
    problems = verdict(got.stdout.splitlines(), collected[1]["sessions"])
    gaps = [line for line in problems if " end gap " in line]
    assert len(gaps) == 1 and gaps[0].startswith(str(last.parent / "transcript.cursor")), problems
    # Anything else is the round chain missing the same file, if collect parsed.
    assert all(": chain [" in line for line in problems if line not in gaps), problems


def test_an_interrupted_pass_lands_nothing_again_and_verify_counts_repeats(projects: Path, tmp_path: Path) -> None:
    """A pass whose file landed but whose cursor did not move: the next pass moves the cursor past that file from the
    landed files and lands nothing again; records landed twice all the same (an older asz, a third-party writer) are
    counted by verify, not failed."""
    source = tmp_path / "projects"
    shutil.copytree(projects, source)
    (tmp_path / "claude-home").mkdir()
    root = tmp_path / "root"
    sessions = collect(source, root, tmp_path)["sessions"]
    # The largest main transcript grows by three lines...
    main = max(source.glob("*/*.jsonl"), key=lambda p: p.stat().st_size)
    session = main.stem
    cursor = root / session / "streams" / "main" / "transcript.cursor"
    before = cursor.read_bytes()
    lines = main.read_bytes().splitlines(keepends=True)
    with open(main, "ab") as f:
        f.writelines(lines[-3:])
    assert collect(source, root, tmp_path)["records"] == 3
    after = cursor.read_bytes()
    # ...and the pass "dies" before its cursor commits: the old cursor is what the next pass reads.
    cursor.write_bytes(before)
    assert collect(source, root, tmp_path)["records"] == 0
    assert [ln for ln in cursor.read_bytes().splitlines() if not ln.startswith(b"updated_at")] == \
        [ln for ln in after.splitlines() if not ln.startswith(b"updated_at")]
    got = asz("verify", "--root", str(root), cwd=tmp_path, home=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    assert verdict(got.stdout.splitlines(), sessions) == [OK_LINE]
    again = land_again(root, session)
    assert again == len(lines) + 3
    got = asz("verify", "--root", str(root), cwd=tmp_path, home=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    said = verdict(got.stdout.splitlines(), sessions)
    # the files landed again were never parsed: no round reads them, and verify says so (trial 24a F1)
    unread = [ln for ln in said if " landed file(s) of 1 session(s) are read by no round" in ln and session in ln]
    assert [ln for ln in said if ln not in unread] == [DUPLICATES_LINE.format(n=again), OK_LINE] and len(unread) == 1


def test_parsed_chains_are_checked_too(collected: tuple[Path, dict[str, int]], tmp_path: Path) -> None:
    """After ``asz parse`` the round chains are verified as well; a lost file shows in both checks."""
    root = _copy_root(collected[0], tmp_path / "root")
    counts = collected[1]
    got = asz("parse", "--root", str(root), cwd=tmp_path, home=tmp_path)
    if got.returncode != 0:
        pytest.skip(f"asz parse does not run here yet: {got.stderr.strip()[-200:]}")
    got = asz("verify", "--root", str(root), cwd=tmp_path, home=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    out = got.stdout.splitlines()
    assert out[1] == f"checked {counts['sessions']} conversation chain(s), {counts['sessions']} round(s)" and verdict(out, counts["sessions"]) == [OK_LINE]
    # Lose the only file of a child stream (the original's lost-file case: missing file + end gap).
    child = next(p for s in session_dirs(root) for ln, p in landed_files(s)
                 if ln.kind == "transcript" and p.parent.name != "main" and len(list(p.parent.glob("transcript-*.sd"))) == 1)
    os.chmod(child.parent, 0o755)
    child.unlink()
    got = asz("verify", "--root", str(root), "--json", cwd=tmp_path, home=tmp_path)
    assert got.returncode == 1
    import json

    found = json.loads(got.stdout)
    assert sorted(p["problem"] for p in found["problems"]) == ["chain", "end gap"]
    assert all(str(child.relative_to(root).parts[0]) in p["file"] for p in found["problems"])
