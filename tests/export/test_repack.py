"""asz repack of the corpus root (issue 21; origin-digest §2.6): verify clean, documents equal but for file names and rows."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from asz_core.sessiondata import read_file
from asz_core.storage.layout import landed_files, session_dirs
from asz_core.view import build_view

from export_helpers import asz, conversations

#: Keys that name files, rows, seqs or the digests that bind them: all a repack changes.
_PLACES = {"files", "ref", "refs", "seq", "row", "digest", "head", "rounds", "from_seq", "through_seq", "input_digest", "usage_at",
           "file", "previous", "problems_at", "rows"}


#: Positional ids name a record by seq and row (``input/1/1``, ``segment/at_15_1``): rows a repack renumbers.
_POSITION = re.compile(r"at_\d+_\d+|(?<=/)\d+/\d+(?=$|[/:_])|(?<=[a-z]_)\d+_\d+(?=$|/)")


def _structure(x):
    if isinstance(x, dict):
        return {_POSITION.sub("#", k): _structure(v) for k, v in x.items() if k not in _PLACES}
    if isinstance(x, list):
        return sorted((_structure(v) for v in x), key=repr)
    if isinstance(x, str):
        return _POSITION.sub("#", x)
    return x


@pytest.fixture(scope="module")
def corpus_root(corpus_copy) -> Path:
    """The corpus collected (a copy of the run's once-collected root, tests/conftest.py)."""
    return corpus_copy()


def _records(root: Path) -> dict[tuple, list[bytes]]:
    """(session, directory, kind) → every record line in seq order."""
    out: dict[tuple, list[bytes]] = {}
    for sdir in session_dirs(root):
        for ln, p in landed_files(sdir):
            key = (sdir.name, p.parent.relative_to(sdir).as_posix(), ln.kind)
            out.setdefault(key, []).extend(p.read_bytes().split(b"\n")[1:-2])
    return out


@pytest.fixture(scope="module")
def reparsed(corpus_root, tmp_path_factory) -> tuple[list[str], dict[str, object]]:
    """The corpus root parsed again from its landed files by ``asz parse`` (its rounds removed first), once for
    the module: its conversation ids, and each one's asz.view document with positions left out (:func:`_structure`).
    Read only; what a repack must give back whatever its budget."""
    a = tmp_path_factory.mktemp("reparsed") / "root"
    shutil.copytree(corpus_root, a, symlinks=True)
    shutil.rmtree(a / "_conversations")
    assert asz("parse", "--root", str(a), cwd=a.parent).returncode == 0
    convs = conversations(a)
    return convs, {c: _structure(build_view(a, c)) for c in convs}


@pytest.mark.parametrize("budget", [4096, 1 << 21])
def test_repack_of_the_corpus_keeps_records_and_structure(corpus_root, reparsed, tmp_path, budget):
    dest = tmp_path / "repacked"
    p = asz("repack", str(dest), "--root", str(corpus_root), "--max-delta-bytes", str(budget), cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.strip().splitlines()
    assert lines[0].split() == ["SESSION", "FILES", "IN", "FILES", "OUT", "RECORDS", "BYTES"]
    assert len(lines) == 1 + len(session_dirs(corpus_root))
    assert _records(dest) == _records(corpus_root)  # every record line, byte for byte, in order
    for sdir in session_dirs(dest):
        for ln, f in landed_files(sdir):
            h, recs, _ = read_file(f)
            assert h.seq == ln.seq
            body = sum(len(x) + 1 for x in f.read_bytes().split(b"\n")[1:-2])
            assert body <= budget or len(recs) == 1
    v = asz("verify", "--root", str(dest), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr
    # the same documents, apart from file names, rows and the digests that bind them
    convs, structures = reparsed
    assert conversations(dest) == convs
    for c in convs:
        assert _structure(build_view(dest, c)) == structures[c], c


def test_repack_refuses_a_dest_that_holds_anything(corpus_root, tmp_path):
    (tmp_path / "dest").mkdir()
    (tmp_path / "dest" / "x").write_text("x")
    p = asz("repack", str(tmp_path / "dest"), "--root", str(corpus_root), cwd=tmp_path)
    assert p.returncode == 2 and "new or empty" in p.stderr
    one = session_dirs(corpus_root)[0].name
    p = asz("repack", str(tmp_path / "one"), one, "--root", str(corpus_root), cwd=tmp_path)
    assert p.returncode == 0 and [s.name for s in session_dirs(tmp_path / "one")] == [one]


#: A session of the corpus and the text its person typed (../shared/corpus/claude-code/projects/-home-user-claude-reliability).
_SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
_TYPED = b"Write a shell script called hello.sh"


@pytest.mark.parametrize("reseal", [True, False], ids=["closing line written again", "closing line left"])
def test_repack_refuses_a_root_that_does_not_verify_and_writes_nothing(corpus_copy, tmp_path, reseal):
    """Trial 2, finding 1: a landed file changed after it landed (its closing line written again over the new bytes,
    or left as it was) fails asz verify; a repack would build new chains over it that verify. It is refused with
    exit 1 (problems found, as asz verify), the problems named on stderr, and DEST never made."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "verify"))
    from verify_landing import edit_records

    root = corpus_copy(tmp_path / "root")
    (path,) = sorted((root / _SID / "streams" / "main").glob("transcript-*.sd"))
    edit_records(path, lambda recs: [r.replace(_TYPED, b"Write a shell script called HACKED") for r in recs], fix_closing=reseal)
    (rnd,) = (root / "_conversations" / _SID / "rounds").glob("r000001-*.sf")
    v = asz("verify", "--root", str(root), cwd=tmp_path)
    assert v.returncode == 1
    dest = tmp_path / "repacked"
    p = asz("repack", str(dest), "--root", str(root), cwd=tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr
    assert not dest.exists() and p.stdout == ""
    lines = p.stderr.splitlines()
    assert lines[0].startswith(f"asz repack: {root} does not verify (")
    # every problem asz verify names, as it names them
    named = [ln for ln in v.stdout.splitlines() if ln.startswith(str(root))]
    assert named and [ln[2:] for ln in lines[1:-1]] == named
    assert f"{rnd}: chain [round 1]: input digest recomputed from the landed files of seq 1–1 does not match the header" in named
    assert any(ln.startswith(f"{path}:") and "digest mismatch" in ln for ln in named) is (not reseal)
    assert lines[-1] == f"asz repack: `asz verify --root {root}` lists the problems"
    # one session: the same refusal for the session that does not verify
    one = asz("repack", str(dest), _SID[:8], "--root", str(root), cwd=tmp_path)
    assert one.returncode == 1 and not dest.exists()
    assert one.stderr.splitlines()[-1] == f"asz repack: `asz verify {_SID} --root {root}` lists the problems"


def _tree(d: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``d``: relative path → (bytes, permission bits)."""
    return {p.relative_to(d).as_posix(): (p.read_bytes(), p.stat().st_mode & 0o777) for p in sorted(d.rglob("*")) if p.is_file()}


def test_repack_carries_what_was_set_aside(corpus_copy, tmp_path):
    """Evidence set aside (``asz parse SESSION --anew`` moves the old chain to ``_set_aside/<stamp>/``) is carried into
    DEST byte for byte, modes kept: a repack must not lose it (storage-root.md, When something is lost). A one-session
    repack carries what was set aside of that session only."""
    root = corpus_copy(tmp_path / "root")
    sessions = [s.name for s in session_dirs(root)]
    for sid in sessions[:2]:
        old = {p.name for p in (root / "_conversations" / sid / "rounds").iterdir()}
        p = asz("parse", sid, "--anew", "--root", str(root), cwd=tmp_path)
        assert p.returncode == 0, p.stdout + p.stderr
        (kept,) = (root / "_set_aside").glob(f"*/_conversations/{sid}")
        assert {q.name for q in (kept / "rounds").iterdir()} == old
    aside = _tree(root / "_set_aside")
    assert len([k for k in aside if "/rounds/r" in k]) >= 2
    p = asz("repack", str(tmp_path / "all"), "--root", str(root), cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert _tree(tmp_path / "all" / "_set_aside") == aside
    one = asz("repack", str(tmp_path / "one"), sessions[1], "--root", str(root), cwd=tmp_path)
    assert one.returncode == 0, one.stdout + one.stderr
    assert _tree(tmp_path / "one" / "_set_aside") == {k: v for k, v in aside.items() if f"/_conversations/{sessions[1]}/" in k}
    assert asz("verify", "--root", str(tmp_path / "all"), cwd=tmp_path).returncode == 0
