"""``asz export --out`` says on stderr when it replaces a file already there (trial 12: it overwrote silently); the
exit status is the one it has without it (0 written).

Real input: the corpus project -home-user-spotter (two conversations), collected by the real ``asz collect --once``.
"""

from __future__ import annotations

import shutil

import pytest
from reading_helpers import asz

SID = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
OLD = b"an earlier copy\n"


@pytest.fixture(scope="module")
def spotter(corpus_dir, tmp_path_factory):
    base = tmp_path_factory.mktemp("export-replaced")
    proj = corpus_dir / "claude-code" / "projects" / "-home-user-spotter"
    shutil.copytree(proj, base / "projects" / proj.name)
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    return base / "root", sorted(p.stem for p in proj.glob("*.jsonl"))


def test_one_file_replaced_is_said(spotter, tmp_path):
    root, _ = spotter
    want = asz("export", SID, "--root", str(root)).stdout.encode()
    out = tmp_path / "copy.md"
    fresh = asz("export", SID, "--out", str(out), "--root", str(root))
    assert fresh.returncode == 0 and "asz export: replaced" not in fresh.stderr and out.read_bytes() == want
    out.write_bytes(OLD)
    again = asz("export", SID, "--out", str(out), "--root", str(root))
    assert again.returncode == 0
    lines = again.stderr.splitlines()
    i = lines.index(f"asz export: replaced {out} (the {len(OLD)} bytes it held)")
    assert lines[i + 1] == f"wrote {out} ({len(want):,} bytes)"
    assert out.read_bytes() == want


def test_files_replaced_in_a_folder_are_counted(spotter, tmp_path):
    root, sids = spotter
    first = asz("export", "--project", "spotter", "--format", "html", "--out", str(tmp_path), "--root", str(root))
    assert first.returncode == 0 and "asz export: replaced" not in first.stderr
    first_index = (tmp_path / "index.html").read_bytes()
    # the same export again: every file made byte for byte again is left as it is, and said so (trial 31b F3)
    same = asz("export", "--project", "spotter", "--format", "html", "--out", str(tmp_path), "--root", str(root))
    assert same.returncode == 0 and "asz export: replaced" not in same.stderr
    assert f"asz export: in {tmp_path}: 0 conversation(s) changed, {len(sids)} unchanged (left as they were, byte for " \
           "byte), 0 new" in same.stderr.splitlines()
    for s in sids:  # an earlier export's files that differ (here: another copy's bytes) are replaced, and said
        (tmp_path / f"{s}.html").write_bytes(OLD)
    (tmp_path / "index.html").write_bytes(OLD)
    again = asz("export", "--project", "spotter", "--format", "html", "--out", str(tmp_path), "--root", str(root))
    assert again.returncode == 0
    said = [x for x in again.stderr.splitlines() if x.startswith("asz export: replaced")]
    head = f"asz export: replaced {len(sids)} file(s) already in {tmp_path}: "
    assert len(said) == 2 and said[0].startswith(head)
    assert said[1] == f"asz export: replaced the index page {tmp_path / 'index.html'} (the {len(OLD):,} bytes it held)"
    assert sorted(said[0][len(head):].split(", ")) == [f"{s}.html" for s in sids]  # in export order, newest first
    assert (tmp_path / "index.html").read_bytes() == first_index


@pytest.mark.parametrize("fmt,index", [("html", "index.html"), ("md", "index.md"), ("json", "index.json")])
def test_index_page_replaced_is_said(spotter, tmp_path, fmt, index):
    """The index page of a folder export is a file of an earlier export too: replacing it is said (it was silent)."""
    root, sids = spotter
    (tmp_path / index).write_bytes(OLD)  # an earlier export's index page, and no conversation file yet
    got = asz("export", "--project", "spotter", "--format", fmt, "--out", str(tmp_path), "--root", str(root))
    assert got.returncode == 0
    said = [x for x in got.stderr.splitlines() if x.startswith("asz export: replaced")]
    assert said == [f"asz export: replaced the index page {tmp_path / index} (the {len(OLD)} bytes it held)"]
    assert (tmp_path / index).read_bytes() != OLD
    fresh = asz("export", "--project", "spotter", "--format", fmt, "--out", str(tmp_path / "new"), "--root", str(root))
    assert fresh.returncode == 0 and "asz export: replaced" not in fresh.stderr
