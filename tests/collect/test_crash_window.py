"""A collector killed between a landed file and its cursor lands nothing twice (origin-digest §2.1, docs/storage-root.md).

The kill is real: ``asz collect`` runs as its own process, which sends itself SIGKILL right after its Nth landed file
is linked (``durable.data``, the moment a landed file joins the session's batch), before the cursor that names it is
written. The next pass must find those files and move the cursors past them: every source line lands exactly once,
``asz verify`` counts no record landed more than once, and ``asz usage`` adds up to the transcripts' own counts.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import forked
import pytest

from collect_helpers import ASZ, collect_once, env
from asz_core.sessiondata import SDReader
from asz_core.storage.layout import landed_files, session_dirs

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view"))
from test_view_usage import sessions_of, transcript_truth  # noqa: E402
from cli_helpers import usage_json  # noqa: E402

# The collector as a real process that kills itself with SIGKILL after its Nth landed file (argv[1]).
KILLED_AFTER = """
import os, signal, sys
from asz_core.sessiondata import durable
n, landed = int(sys.argv.pop(1)), [0]
data = durable.data
def data_then_die(path, size=0):
    took = data(path, size)
    if str(path).endswith(".sd"):
        landed[0] += 1
        if landed[0] >= n:
            os.kill(os.getpid(), signal.SIGKILL)
    return took
durable.data = data_then_die
from asz_core.cli.main import main
sys.argv[0] = "asz"
main()
"""


def _collect(projects: Path, root: Path, cwd: Path, kill_after: int = 0) -> subprocess.CompletedProcess:
    args = ["collect", "--once", "--source", str(projects), "--root", str(root), "--max-delta-bytes", "100000", "--jobs", "1"]
    cmd = [sys.executable, "-c", KILLED_AFTER, str(kill_after), *args] if kill_after else [*ASZ, *args]
    return (subprocess.run if kill_after else forked.run)(cmd, cwd=cwd, env=env(), capture_output=True, text=True, timeout=300)


def _landed_lines(root: Path) -> dict[str, Counter]:
    """Per source (the header's ``src``): how many times each ``ord`` landed, over transcript files."""
    out: dict[str, Counter] = {}
    for sdir in session_dirs(root):
        for ln, path in landed_files(sdir):
            if ln.kind != "transcript":
                continue
            r = SDReader(path, decode=False)
            ords = [rec["ord"] for _, rec in r]
            out.setdefault(r.header.src, Counter()).update(ords)
    return out


def test_a_pass_killed_between_file_and_cursor_lands_nothing_twice(corpus_dir, tmp_path):
    projects = corpus_dir / "claude-code" / "projects"
    if not projects.is_dir():
        pytest.skip(f"{projects} is absent")
    root = tmp_path / "data"
    for n in (1, 4, 9, 25):  # the Nth file of the whole pass, in whichever session it falls
        killed = _collect(projects, root, tmp_path, kill_after=n)
        assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    done = _collect(projects, root, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    again = _collect(projects, root, tmp_path)
    assert " landed=0 " in again.stdout, again.stdout + again.stderr

    # every line of every source transcript landed exactly once
    landed = _landed_lines(root)
    for f in sorted(projects.rglob("*.jsonl")):
        src = f.relative_to(projects).as_posix()
        lines = f.read_bytes().count(b"\n")
        assert landed.get(src) == Counter(range(1, lines + 1)), src

    verify = forked.run([*ASZ, "verify", "--root", str(root)], cwd=tmp_path, env=env(), capture_output=True, text=True)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "more than once" not in verify.stdout

    usage = forked.run([*ASZ, "usage", "session", "--json", "--root", str(root)], cwd=tmp_path, env=env(),
                           capture_output=True, text=True)
    assert usage.returncode == 0, usage.stderr
    rows = {r["conversation"]: r for r in json.loads(usage.stdout)}
    truth = sessions_of(projects)
    for sid, files in truth.items():
        want, calls = transcript_truth(files)
        assert rows[sid]["usage"] == usage_json(want), sid
        assert rows[sid]["calls"] == calls, sid
    assert "cursor moves past them from the landed files" in done.stderr  # each kill fell in the window, and was told


def test_a_lost_cursor_is_rebuilt_from_the_landed_files(tmp_path):
    """A cursor that was never written (the first file of a stream landed, then the kill) or was removed: the
    next pass moves a new cursor past what landed, as long as the source still holds it."""
    src = tmp_path / "src" / "s1"
    src.mkdir(parents=True)
    lines = [json.dumps({"type": "user", "uuid": f"u{i}", "i": i}).encode() for i in range(40)]
    (src / "main.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    (src / "main.meta.json").write_text('{"agentType": "general-purpose"}\n')  # a snapshot source
    root = tmp_path / "data"
    assert collect_once(src.parent, root, "--max-delta-bytes", "2000").returncode == 0
    cursor = root / "s1" / "streams" / "main" / "transcript.cursor"
    before = {k: v for k, v in (ln.split(None, 1) for ln in cursor.read_text().splitlines()) if k != "updated_at"}
    cursor.unlink()
    (cursor.parent / "meta.cursor").unlink()
    with open(src / "main.jsonl", "ab") as f:
        f.write(b'{"type": "user", "uuid": "u40", "i": 40}\n')
    p = collect_once(src.parent, root, "--max-delta-bytes", "2000")
    assert p.returncode == 0, p.stderr
    assert "lines 1 to 40 " in p.stderr and "nothing lands twice" in p.stderr, p.stderr
    assert "meta.cursor: the document landed in seq " in p.stderr, p.stderr
    assert " landed=1 records=1 " in p.stdout, p.stdout
    got = Counter()
    for ln, path in landed_files(root / "s1"):
        if ln.kind == "transcript":
            got.update(rec["ord"] for _, rec in SDReader(path, decode=False))
    assert [ln.kind for ln, _ in landed_files(root / "s1")].count("agent_meta") == 1
    assert got == Counter(range(1, 42))
    after = {k: v for k, v in (ln.split(None, 1) for ln in cursor.read_text().splitlines()) if k != "updated_at"}
    assert after["ord"] == "41" and int(after["offset"]) == (src / "main.jsonl").stat().st_size
    assert int(after["last_seq"]) > int(before["last_seq"])
