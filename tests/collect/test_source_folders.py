"""Several source folders of one adapter into one storage root (asz_core/collect/folders.py; docs/storage-root.md,
Several source folders). Real transcripts from ../shared/corpus/claude-code/projects split over two temporary folders;
every count is the source files' own. HOME is a temporary folder in every CLI call: the machine's ~/.claude is never read.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from asz_adapters_claude.plugin import ClaudeCodeLocal
from asz_core.collect.collector import Collector, CollectOptions, Report
from asz_core.storage.cursor import read_cursor
from cli_helpers import asz_in_process

LOG_SAMPLE = "-Users-alex-workspace-claude-code-log-sample"  # three sessions, no subagents
SPOTTER = "-home-user-spotter"  # two sessions, 8463c716 with subagents
SAMPLE = "-home-user-sample-project"
STAMP = 1_764_000_000_000_000_000


def _project(corpus_dir: Path, name: str, projects: Path) -> Path:
    shutil.copytree(corpus_dir / "claude-code" / "projects" / name, projects / name)
    return projects


def _collect(tmp: Path, *args: str, root: str = "root"):
    return asz_in_process("collect", "--once", "--no-parse", "--adapter", "claude-code-local", "--root", str(tmp / root),
                          *args, cwd=tmp, env={"HOME": str(tmp / "home"), "CLAUDE_CONFIG_DIR": None, "XDG_CONFIG_HOME": None})


def _summary(stdout: str) -> dict[str, int]:
    return {k: int(v) for k, v in (f.split("=", 1) for f in stdout.split() if "=" in f)}


def _files(root: Path, sessions: set[str]) -> dict[str, bytes]:
    """Every landed file (``.sd``) of ``sessions``, by its path under the root, and its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for s in sessions for p in (root / s).rglob("*.sd")}


def _cursors(root: Path, sessions: set[str]) -> dict[str, bytes]:
    """Every cursor of ``sessions`` without its ``updated_at`` line (the clock's)."""
    return {p.relative_to(root).as_posix(): b"".join(ln for ln in p.read_bytes().splitlines(True)
                                                     if not ln.startswith(b"updated_at"))
            for s in sessions for p in (root / s).rglob("*.cursor")}


def _pass(root: Path, first: Path, *more: Path) -> None:
    c = Collector(root, ClaudeCodeLocal(), first, options=CollectOptions(stamp_ns=STAMP, fsync=False), report=Report(),
                  more_roots=more).run_pass()
    assert c.errors == 0 and c.conflicts == 0


def test_the_first_folder_lands_byte_for_byte_as_alone(corpus_dir, tmp_path):
    """A root collected from one folder stays what it was: the first folder's sessions land the same files and cursors
    whether a second folder is read beside it or not; the second folder's land under their own session ids."""
    a = _project(corpus_dir, LOG_SAMPLE, tmp_path / "a")
    _project(corpus_dir, SPOTTER, a)
    b = _project(corpus_dir, SAMPLE, tmp_path / "b")
    own = {f.stem for f in a.glob("*/*.jsonl")}
    _pass(tmp_path / "alone", a)
    _pass(tmp_path / "both", a, b)
    assert _files(tmp_path / "alone", own) == _files(tmp_path / "both", own) != {}
    assert _cursors(tmp_path / "alone", own) == _cursors(tmp_path / "both", own)
    assert sorted(p.name for p in (tmp_path / "both").iterdir() if not p.name.startswith("_")) == sorted(
        own | {f.stem for f in b.glob("*/*.jsonl")})


def test_the_same_project_folder_name_in_two_folders_never_collides(corpus_dir, tmp_path):
    """One project folder name in both folders, a different session in each: each lands whole, its cursor names its
    own file (relative in the first folder, absolute in the second), and later passes find nothing gone."""
    src = corpus_dir / "claude-code" / "projects" / SPOTTER
    one, two = tmp_path / "home" / "one", tmp_path / "home" / "two"
    (one / SPOTTER).mkdir(parents=True)
    (two / SPOTTER).mkdir(parents=True)
    shutil.copy(src / "55604662-cf2a-4331-851a-ec234028f8ca.jsonl", one / SPOTTER)
    shutil.copy(src / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl", two / SPOTTER)
    p = _collect(tmp_path, "--source", str(one), "--source", str(two))
    assert p.returncode == 0, p.stdout + p.stderr
    assert _summary(p.stdout)["sessions"] == 2
    for folder, sid, source in ((one, "55604662-cf2a-4331-851a-ec234028f8ca", f"{SPOTTER}/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"),
                                (two, "8463c716-a2ea-4c14-9efa-87158ebd9f20", f"{two}/{SPOTTER}/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")):
        cur = read_cursor(tmp_path / "root" / sid / "streams" / "main" / "transcript.cursor")
        assert (cur.source, cur.ord, cur.state) == (source, (folder / SPOTTER / f"{sid}.jsonl").read_bytes().count(b"\n"), "active")
    for _ in range(2):
        again = _collect(tmp_path, "--source", str(one), "--source", str(two))
        assert again.returncode == 0 and _summary(again.stdout)["gone"] == 0 and _summary(again.stdout)["landed"] == 0


def test_a_copied_configuration_folder_lands_each_session_once(corpus_dir, tmp_path):
    """The same sessions in both folders (a copied configuration folder): each lands once, from the first folder; a
    copy holding the same bytes, or the first bytes of a session that grew, is skipped (not a conflict); a copy that
    grew past it, holding what landed and a line more, is its growth: its cursor follows the copy and only the new
    line lands (trial 37a F4; before, a conflict until the first folder's file went)."""
    a = _project(corpus_dir, SPOTTER, tmp_path / "home" / ".claude" / "projects")
    b = tmp_path / "home" / ".config" / "claude" / "projects"
    shutil.copytree(a, b)
    sources = len(list(a.rglob("*.jsonl"))) + len(list(a.rglob("*.meta.json")))
    p = _collect(tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    s = _summary(p.stdout)
    assert (s["sessions"], s["sources"], s["skipped"], s["conflicts"]) == (2, sources, sources, 0)
    lines = sum(f.read_bytes().count(b"\n") for f in a.rglob("*.jsonl")) + len(list(a.rglob("*.meta.json")))
    assert s["records"] == lines  # every line once, not twice
    live = "55604662-cf2a-4331-851a-ec234028f8ca"
    line = (a / SPOTTER / f"{live}.jsonl").read_bytes().splitlines(True)[-1]
    with open(a / SPOTTER / f"{live}.jsonl", "ab") as f:  # the first folder's session grows: the copy is its first bytes
        f.write(line)
    p = _collect(tmp_path)
    assert p.returncode == 0 and (_summary(p.stdout)["records"], _summary(p.stdout)["conflicts"]) == (1, 0), p.stdout + p.stderr
    with open(b / SPOTTER / f"{live}.jsonl", "ab") as f:  # the copy grows past it: what landed and one line more
        f.write(line + line)
    p = _collect(tmp_path)  # its growth, not a rival (trial 37a F4): its cursor follows the copy, the new line lands
    assert p.returncode == 0 and (_summary(p.stdout)["records"], _summary(p.stdout)["conflicts"]) == (1, 0), p.stdout + p.stderr
    assert f"note: {b / SPOTTER / (live + '.jsonl')}: holds every byte of {a / SPOTTER / (live + '.jsonl')} (" in p.stderr
    cur = read_cursor(tmp_path / "root" / live / "streams" / "main" / "transcript.cursor")
    assert cur.source == f"{b}/{SPOTTER}/{live}.jsonl" and cur.ord == (b / SPOTTER / f"{live}.jsonl").read_bytes().count(b"\n")
    os.remove(a / SPOTTER / f"{live}.jsonl")  # the first folder's file goes: nothing of it was left out
    p = _collect(tmp_path)
    assert p.returncode == 0 and _summary(p.stdout)["records"] == 0, p.stdout + p.stderr
    v = asz_in_process("verify", "--root", str(tmp_path / "root"))
    assert v.returncode == 0, v.stdout + v.stderr


def test_a_missing_folder_among_several_is_said_and_the_others_land(corpus_dir, tmp_path):
    """A folder that does not exist is a note when others are read (exit 0); when none exists it is the error of a
    missing source root (exit 1). A source_root list in asz.yaml reads the folders as --source given again does."""
    a = _project(corpus_dir, LOG_SAMPLE, tmp_path / "a")
    missing = tmp_path / "nowhere"
    p = _collect(tmp_path, "--source", str(missing), "--source", str(a))
    assert p.returncode == 0 and _summary(p.stdout)["sessions"] == 3, p.stdout + p.stderr
    assert f"note: {missing}: no such source folder for adapter claude-code-local" in p.stderr
    p = _collect(tmp_path, "--source", str(missing), "--source", str(tmp_path / "gone"), root="r2")
    assert p.returncode == 1 and f"error: {missing}: no such source root" in p.stderr, p.stdout + p.stderr
    b = _project(corpus_dir, SPOTTER, tmp_path / "b")
    (tmp_path / "asz.yaml").write_text(f"adapters:\n  - name: claude-code-local\n    source_root: [{a}, {b}]\n", encoding="utf-8")
    p = _collect(tmp_path, "--config", str(tmp_path / "asz.yaml"), root="r3")
    assert p.returncode == 0 and _summary(p.stdout)["sessions"] == 5, p.stdout + p.stderr
    listing = asz_in_process("sources", "--root", str(tmp_path / "r3"), "--config", str(tmp_path / "asz.yaml"), cwd=tmp_path,
                             env={"HOME": str(tmp_path / "home")})
    assert listing.returncode == 0 and f"claude-code-local from {a} and {b} into" in listing.stdout, listing.stdout


def test_reland_reads_a_second_folders_source(corpus_dir, tmp_path):
    """asz sources --reland rebuilds a lost landed file of a session of the second folder from its source, with the
    same --source list a pass uses."""
    a = _project(corpus_dir, LOG_SAMPLE, tmp_path / "a")
    b = _project(corpus_dir, SAMPLE, tmp_path / "b")
    args = ("--source", str(a), "--source", str(b))
    p = asz_in_process("collect", "--once", "--adapter", "claude-code-local", "--root", str(tmp_path / "root"), *args,
                       cwd=tmp_path, env={"HOME": str(tmp_path / "home")})
    assert p.returncode == 0, p.stdout + p.stderr
    sid = next(b.glob("*/*.jsonl")).stem
    lost = next((tmp_path / "root" / sid / "streams" / "main").glob("transcript-*.sd"))
    kept = lost.read_bytes()
    lost.unlink()
    r = asz_in_process("sources", "--reland", sid, "--adapter", "claude-code-local", "--root", str(tmp_path / "root"), *args,
                       cwd=tmp_path, env={"HOME": str(tmp_path / "home")})
    assert r.returncode == 0 and f"relanded: {lost}" in r.stdout, r.stdout + r.stderr
    assert lost.read_bytes() == kept


def test_a_source_root_list_in_the_file(tmp_path, monkeypatch):
    """``source_root`` as a list: the first the root's own, the rest read after it, each ``~`` expanded and relative
    to the file; an empty list or entry is the file's error (exit 2)."""
    from asz_core.config import ConfigError, load_config

    f = tmp_path / "asz.yaml"
    f.write_text("adapters:\n  - name: claude-code-local\n    source_root: [one, ~/two]\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    e = load_config(f).adapter("claude-code-local")
    assert (e.source_root, e.more_source_roots) == (str(tmp_path / "one"), [str(tmp_path / "home" / "two")])
    for bad in ("[]", "[a, '']"):
        f.write_text(f"adapters:\n  - name: claude-code-local\n    source_root: {bad}\n", encoding="utf-8")
        try:
            load_config(f)
        except ConfigError as exc:
            assert "adapters[0].source_root" in str(exc) and "expected folders" in str(exc)
        else:
            raise AssertionError(f"source_root: {bad} was taken")


def test_a_default_folder_that_appears_later_is_read_by_a_watching_collector(corpus_dir, tmp_path, monkeypatch):
    """A collector reading the adapter's default folders (no --source: asz collect watching, asz server) adds one that
    appears after it started at its next pass: ~/.config/claude/projects made while it runs lands whole."""
    from asz_core.cli.jobs import resolve_jobs
    from asz_core.config import load_config

    home = tmp_path / "home"
    dot = _project(corpus_dir, LOG_SAMPLE, home / ".claude" / "projects")
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    [job] = resolve_jobs("collect", load_config(None), adapter="claude-code-local")
    assert (job.source_roots, job.default_folders) == ([dot], True)
    col = Collector(tmp_path / "root", job.adapter, job.source_root, options=CollectOptions(fsync=False), report=Report(),
                    more_roots=job.more_roots, default_folders=job.default_folders)
    assert col.run_pass().sessions == 3
    config = _project(corpus_dir, SAMPLE, home / ".config" / "claude" / "projects")
    c = col.run_pass()
    assert (c.sessions, c.landed, c.errors, c.conflicts) == (4, 1, 0, 0)
    assert col.source_roots == [dot, config]
    sid = next(config.glob("*/*.jsonl"))
    cur = read_cursor(tmp_path / "root" / sid.stem / "streams" / "main" / "transcript.cursor")
    assert (cur.source, cur.ord) == (f"{config}/{sid.relative_to(config).as_posix()}", sid.read_bytes().count(b"\n"))
    [given] = resolve_jobs("collect", load_config(None), adapter="claude-code-local", source=[dot])
    assert not given.default_folders  # folders named by the user are the folders read


def _source_files(folder: Path) -> list[Path]:
    """The files under ``folder``: in these corpus projects every one is a source of claude-code-local (main
    transcripts and subagents' transcripts)."""
    return sorted(f for f in folder.rglob("*") if f.is_file())


def _not_looked(stderr: str) -> list[tuple[int, str]]:
    """Each note of landed sources in no folder the pass was given: (how many, the folders named)."""
    head, out = "landed source(s) of claude-code-local are in no folder this pass was given (", []
    for ln in stderr.splitlines():
        if ln.startswith("note: ") and head in ln:
            n, _, rest = ln.split(": ", 2)[2].partition(" ")
            assert rest.startswith(head) and "not looked at, so not counted gone" in rest, ln
            out.append((int(n), rest[len(head):].partition(")")[0]))
    return out


def _states(root: Path, sessions: set[str]) -> dict[str, tuple[str, str]]:
    """Every cursor of ``sessions``: (its ``state``, its ``source``)."""
    return {p.relative_to(root).as_posix(): (read_cursor(p).state, read_cursor(p).source)
            for s in sessions for p in (root / s).rglob("*.cursor")}


def test_one_folder_at_a_time_calls_no_source_of_the_other_gone(corpus_dir, tmp_path):
    """Trial 30c F5: a root collected from folder ``a``, then from ``b`` alone, called every source of ``a`` gone
    (705 ``gone:`` lines) though each file was in place. ``a``'s project folders are in no folder that pass was given:
    none is gone, ``gone=0``, exit 0, one note counts them (the files of ``a``), their cursors stay active. A file
    deleted under ``b`` (its project folder there) is gone, one ``gone:`` line; and ``a`` read again lands a line
    appended there meanwhile."""
    a = _project(corpus_dir, LOG_SAMPLE, tmp_path / "a")
    _project(corpus_dir, SPOTTER, a)
    b = _project(corpus_dir, SAMPLE, tmp_path / "b")
    mine, theirs = {f.stem for f in a.glob("*/*.jsonl")}, {f.stem for f in b.glob("*/*.jsonl")}
    first = _collect(tmp_path, "--source", str(a))
    assert first.returncode == 0 and _summary(first.stdout)["sessions"] == len(mine) == 5, first.stdout + first.stderr
    root = tmp_path / "root"
    before = _states(root, mine)
    assert len(before) == len(_source_files(a)) == 7 and {s for s, _ in before.values()} == {"active"}

    p = _collect(tmp_path, "--source", str(b))
    s = _summary(p.stdout)
    assert p.returncode == 0 and (s["sessions"], s["gone"], s["errors"], s["conflicts"]) == (1, 0, 0, 0), p.stdout + p.stderr
    assert "gone:" not in p.stderr and _not_looked(p.stderr) == [(7, str(b))], p.stderr
    assert _states(root, mine) == before  # untouched: active, relative to a

    [deleted] = _source_files(b)
    deleted.unlink()  # its project folder stays in b: b was looked at
    p = _collect(tmp_path, "--source", str(b))
    s = _summary(p.stdout)
    assert p.returncode == 0 and s["gone"] == 1 and _not_looked(p.stderr) == [(7, str(b))], p.stdout + p.stderr
    assert [ln.split(": ")[1] for ln in p.stderr.splitlines() if ln.startswith("gone: ")] == [str(deleted)]
    assert set(_states(root, theirs).values()) == {("source_gone", deleted.relative_to(b).as_posix())}

    grown = a / LOG_SAMPLE / "0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl"
    with open(grown, "ab") as f:
        f.write(grown.read_bytes().splitlines(True)[-1])
    p = _collect(tmp_path, "--source", str(a))
    s = _summary(p.stdout)
    assert p.returncode == 0 and (s["landed"], s["gone"]) == (1, 0) and not _not_looked(p.stderr), p.stdout + p.stderr
    cur = read_cursor(root / grown.stem / "streams" / "main" / "transcript.cursor")
    assert (cur.state, cur.ord) == ("active", grown.read_bytes().count(b"\n"))


def test_a_further_folder_left_out_is_not_gone(corpus_dir, tmp_path):
    """A root collected from ``a`` and ``b`` together (``b``'s sources named by absolute path), then from ``a`` alone:
    ``b``'s files are found where their names say (nothing to tell); one of them deleted is under no folder that pass
    was given, so not gone (one note counts it); the pass given ``b`` again finds it gone."""
    a = _project(corpus_dir, LOG_SAMPLE, tmp_path / "a")
    b = _project(corpus_dir, SPOTTER, tmp_path / "b")
    assert _collect(tmp_path, "--source", str(a), "--source", str(b)).returncode == 0
    theirs = {f.stem for f in b.glob("*/*.jsonl")}
    before = _states(tmp_path / "root", theirs)
    assert len(before) == len(_source_files(b)) == 4 and {src.startswith(f"{b}/") for _, src in before.values()} == {True}
    p = _collect(tmp_path, "--source", str(a))
    assert p.returncode == 0 and _summary(p.stdout)["gone"] == 0 and not _not_looked(p.stderr), p.stdout + p.stderr
    deleted = b / SPOTTER / "8463c716-a2ea-4c14-9efa-87158ebd9f20" / "subagents" / "agent-a7be2f0.jsonl"
    deleted.unlink()
    p = _collect(tmp_path, "--source", str(a))
    assert p.returncode == 0 and _summary(p.stdout)["gone"] == 0 and "gone:" not in p.stderr, p.stdout + p.stderr
    assert _not_looked(p.stderr) == [(1, str(a))]
    assert _states(tmp_path / "root", theirs) == before
    p = _collect(tmp_path, "--source", str(a), "--source", str(b))
    assert p.returncode == 0 and _summary(p.stdout)["gone"] == 1 and not _not_looked(p.stderr), p.stdout + p.stderr
    assert [ln.split(": ")[1] for ln in p.stderr.splitlines() if ln.startswith("gone: ")] == [str(deleted)]


def test_a_folder_given_once_is_not_gone_from_the_default_folders(corpus_dir, tmp_path):
    """``--source x`` once, then plain ``asz collect`` (its default folders: ~/.claude/projects here, and
    ~/.config/claude/projects, which does not exist and which asz would not read first): ``x``'s sources are not
    gone; a file deleted from ~/.claude/projects is."""
    x = _project(corpus_dir, LOG_SAMPLE, tmp_path / "x")
    dot = _project(corpus_dir, SAMPLE, tmp_path / "home" / ".claude" / "projects")
    assert _collect(tmp_path, "--source", str(x)).returncode == 0
    p = _collect(tmp_path)
    s = _summary(p.stdout)
    assert p.returncode == 0 and (s["sessions"], s["gone"]) == (1, 0), p.stdout + p.stderr
    assert _not_looked(p.stderr) == [(len(_source_files(x)), str(dot))] == [(3, str(dot))]
    [deleted] = _source_files(dot)
    deleted.unlink()
    p = _collect(tmp_path)
    assert p.returncode == 0 and _summary(p.stdout)["gone"] == 1 and p.stderr.count("gone: ") == 1, p.stdout + p.stderr
