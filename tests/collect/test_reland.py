"""``asz sources --reland SESSION``: a landed file deleted from the root comes back from its source, byte for byte.

A lost file leaves a gap ``asz verify`` names, and no pass fills it (the cursor is past it). verify names the
command; the command rebuilds each lost file the session's index names from the source and lands it only when its
SHA-256 is the one that landed (asz_core/collect/reland.py, docs/storage-root.md).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from collect_helpers import asz, projects_copy
from asz_core.storage.layout import landed_files


def _main_files(root: Path) -> tuple[str, list[Path]]:
    """The session whose main transcript landed in the most files, and those files in seq order."""
    best: tuple[str, list[Path]] = ("", [])
    for sdir in sorted(p for p in root.iterdir() if not p.name.startswith("_")):
        files = [p for ln, p in landed_files(sdir) if ln.kind == "transcript" and p.parent.name == "main"]
        if len(files) > len(best[1]):
            best = (sdir.name, files)
    return best


@pytest.fixture
def collected(corpus_dir, tmp_path):
    src = projects_copy(corpus_dir, tmp_path / "projects")
    (tmp_path / "asz.yaml").write_text("adapters:\n  - name: claude-code-local\n    collector: {max_delta_bytes: 60000}\n")
    root = tmp_path / "data"
    p = asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    return src, root


def _lose(files: list[Path]) -> dict[Path, bytes]:
    """Delete ``files`` from the root; returns their bytes."""
    kept = {f: f.read_bytes() for f in files}
    for f in files:
        os.chmod(f.parent, 0o755)
        f.unlink()
    return kept


def test_lost_files_come_back_byte_for_byte_and_verify_says_how(collected, tmp_path):
    src, root = collected
    session, files = _main_files(root)
    assert len(files) >= 4, files
    usage = asz("usage", "session", "--json", "--root", str(root), cwd=tmp_path).stdout
    lost = _lose([files[1], files[2], files[-1]])  # two in the middle, and the last (the cursor is past all three)

    got = asz("verify", "--root", str(root), cwd=tmp_path)
    assert got.returncode == 1
    gaps = [ln for ln in got.stdout.splitlines() if " ord gap " in ln or " end gap " in ln]
    command = f"asz sources --reland {session} --root {root} --source DIR lands it again"
    assert len(gaps) == 2 and all(command in ln for ln in gaps), got.stdout
    assert command in next(ln for ln in got.stdout.splitlines() if "no longer on disk" in ln)
    again = asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp_path)
    assert " landed=0 " in again.stdout and all(not f.exists() for f in lost)  # a pass never fills the gap

    p = asz("sources", "--source", str(src), "--root", str(root), "--reland", session[:8], cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    told = p.stdout.splitlines()
    assert [ln.split(": ", 2)[:2] for ln in told] == [["relanded", str(f)] for f in sorted(lost)]
    assert all("byte for byte the file that landed" in ln for ln in told)
    for f, data in lost.items():
        assert f.read_bytes() == data and (f.stat().st_mode & 0o777) == 0o444
    got = asz("verify", "--root", str(root), cwd=tmp_path)
    assert got.returncode == 0 and got.stdout.splitlines()[-1] == "all landed data is contiguous and matches its digests", got.stdout
    assert asz("usage", "session", "--json", "--root", str(root), cwd=tmp_path).stdout == usage

    p = asz("sources", "--source", str(src), "--root", str(root), "--reland", session, "--json", cwd=tmp_path)
    assert p.returncode == 1 and json.loads(p.stdout)["files"] == []  # nothing lost any more


def test_a_lost_file_whose_source_changed_is_not_landed_again(collected, tmp_path):
    """The source no longer holds what landed there (or the file rebuilt is not the one that landed): nothing is
    written, the reason is told, exit 1."""
    src, root = collected
    session, files = _main_files(root)
    first = json.loads(files[1].read_bytes().split(b"\n")[1])  # the lost file's first record: where its line is
    [lost] = _lose([files[1]])
    (transcript,) = [p for p in src.rglob(f"{session}.jsonl")]
    data = bytearray(transcript.read_bytes())
    i = first["off"] + first["bytes"] // 2
    data[i] = ord("x") if data[i] != ord("x") else ord("y")  # one byte of a line the lost file held: same length
    os.chmod(transcript, 0o644)
    transcript.write_bytes(bytes(data))
    p = asz("sources", "--source", str(src), "--root", str(root), "--reland", session, cwd=tmp_path)
    assert p.returncode == 1
    assert p.stdout.startswith(f"not relanded: {lost}: "), p.stdout
    assert "nothing written" in p.stdout or "the source does not hold what landed" in p.stdout, p.stdout
    assert not lost.exists()


def test_the_command_verify_prints_runs_as_printed(collected, tmp_path):
    """Trial 7: verify of a root that is not the default printed ``asz sources --reland S`` alone, which looked in
    ./data (``no session is or starts with``), and with ``--root`` alone said only that no source lands into the stream.
    verify prints ``--root R --source DIR``; run with DIR the folder the session came from, it relands; without
    ``--source`` the refusal says what to pass."""
    src, root = collected
    session, files = _main_files(root)
    lost = _lose([files[1]])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    got = asz("verify", "--root", str(root), cwd=elsewhere)
    assert got.returncode == 1
    gap = next(ln for ln in got.stdout.splitlines() if " ord gap " in ln)
    command = gap.split("if a landed file was lost (deleted), ", 1)[1].split(" lands it again", 1)[0]
    assert command == f"asz sources --reland {session} --root {root} --source DIR", gap
    assert "(DIR: the folder the session was collected from; the root does not record it" in gap

    words = command.split()[1:]
    p = asz(*words[: words.index("--source")], cwd=elsewhere)  # --source left out: the default source is elsewhere
    assert p.returncode == 1
    assert p.stdout.splitlines() == [f"not relanded: {f}: no source of this session lands into its stream now: pass "
                                     "--source DIR, the folder the session was collected from" for f in sorted(lost)], p.stdout
    p = asz(*[str(src) if w == "DIR" else w for w in words], cwd=elsewhere)
    assert p.returncode == 0, p.stdout + p.stderr
    assert [ln.split(": ", 2)[:2] for ln in p.stdout.splitlines()] == [["relanded", str(f)] for f in sorted(lost)]
    assert all(f.read_bytes() == data for f, data in lost.items())


def test_a_damaged_file_is_set_aside_and_landed_again_byte_for_byte(collected, tmp_path):
    """Trial 13: a landed file damaged in place (not deleted) had no way back; --reland keeps the damaged bytes
    under _set_aside/ and lands the file again when the rebuilt bytes are the ones the index names."""
    src, root = collected
    session, files = _main_files(root)
    f = files[1]
    good = f.read_bytes()
    i = good.index(b'"text"') + 10
    bad = good[:i] + bytes([good[i] ^ 1]) + good[i + 1:]
    os.chmod(f, 0o644)
    f.write_bytes(bad)
    os.chmod(f, 0o444)

    command = f"asz sources --reland {session} --root {root} --source DIR keeps the damaged file aside"
    got = asz("verify", "--root", str(root), cwd=tmp_path)
    assert got.returncode == 1
    told = [ln for ln in got.stdout.splitlines() if ln.startswith(f"{f}:") and command in ln]
    assert len(told) == 1 and (": damaged record: " in told[0] or ": damaged line: " in told[0]), got.stdout

    p = asz("sources", "--source", str(src), "--root", str(root), "--reland", session, cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    kept = list((root / "_set_aside").glob(f"*/{f.relative_to(root)}"))
    assert len(kept) == 1 and kept[0].read_bytes() == bad  # the damage is kept as evidence, byte for byte
    assert p.stdout.splitlines() == [ln for ln in p.stdout.splitlines() if ln.startswith(f"relanded: {f}: ")]
    assert f"the damaged file was kept as {kept[0]}" in p.stdout and f.read_bytes() == good
    got = asz("verify", "--root", str(root), cwd=tmp_path)
    assert got.returncode == 0 and got.stdout.splitlines()[-1] == "all landed data is contiguous and matches its digests", got.stdout
    p = asz("sources", "--source", str(src), "--root", str(root), "--reland", session, "--json", cwd=tmp_path)
    assert p.returncode == 1 and json.loads(p.stdout)["files"] == []  # nothing lost or damaged any more


def test_skeletons_of_a_pruned_session_are_neither_lost_nor_damaged(collected, tmp_path):
    """Review of the damaged-file reland: after retention the index names ``.sk`` skeletons, whose digest is their
    header's ``removed.digest`` (not the SHA-256 of the gzip bytes); --reland must not class them as damaged, set
    them aside or write ``.sd`` bytes under their names."""
    from asz_core.export.settings import RetentionConfig
    from asz_core.retention.prune import prune

    src, root = collected
    session, _ = _main_files(root)
    rep = prune(root, RetentionConfig(after=3600.0, require_accepted=False))
    assert not rep.problems and session in rep.removed, (rep.problems, rep.removed)
    sdir = root / session
    skeletons = {p: p.read_bytes() for _, p in landed_files(sdir, skeletons=True)}
    assert skeletons and all(p.suffix == ".sk" for p in skeletons), sorted(skeletons)

    p = asz("sources", "--source", str(src), "--root", str(root), "--reland", session, cwd=tmp_path)
    assert p.returncode == 1 and p.stdout == "", p.stdout + p.stderr
    assert f"session {session} has no lost file its index names, and no damaged one" in p.stderr, p.stderr
    assert not (root / "_set_aside").exists()
    assert {q: q.read_bytes() for _, q in landed_files(sdir, skeletons=True)} == skeletons
