"""``--out DIR/`` names a folder for one conversation too (trial 38c F6: ``asz export ID --format json --out
exp/newdir/`` with ``newdir`` missing wrote a regular file ``exp/newdir`` and ``exp/newdir.manifest.json``). A
trailing slash, or a folder already there, makes it a folder export: the folder made when missing (never its
parents), the conversation's copy, its manifest, the index page and the folder's ``export.manifest.json`` in it, as
for several; ``asz verify --export DIR`` passes it.

Real input: the corpus collected (tests/conftest.py), the spotter conversation."""

from __future__ import annotations

import json

from reading_helpers import asz

SID = "55604662-cf2a-4331-851a-ec234028f8ca"


def test_a_trailing_slash_makes_the_folder_and_writes_the_folder_export(corpus_root, tmp_path):
    (tmp_path / "exp").mkdir()
    p = asz("export", SID[:8], "--root", str(corpus_root), "--format", "json", "--out", str(tmp_path / "exp" / "newdir") + "/",
            check=False)
    assert p.returncode == 0, p.stderr
    out = tmp_path / "exp" / "newdir"
    assert out.is_dir() and not (tmp_path / "exp" / "newdir.manifest.json").exists()
    assert sorted(x.name for x in out.iterdir()) == sorted(
        [f"{SID}.json", f"{SID}.json.manifest.json", "index.json", "export.manifest.json"])
    assert json.loads((out / f"{SID}.json").read_bytes())["conversation"] == SID
    assert f"exported 1 conversation(s) to {out}" in p.stderr
    assert asz("verify", "--export", str(out), check=False).returncode == 0


def test_a_folder_already_there_gets_the_folder_export_and_a_missing_parent_is_refused(corpus_root, tmp_path):
    out = tmp_path / "there"
    out.mkdir()
    p = asz("export", SID, "--root", str(corpus_root), "--format", "md", "--out", str(out), check=False)
    assert p.returncode == 0, p.stderr
    assert (out / f"{SID}.md").is_file() and (out / "index.md").is_file() and (out / "export.manifest.json").is_file()
    gone = tmp_path / "nonexistent"
    p = asz("export", SID, "--root", str(corpus_root), "--out", str(gone / "dir") + "/", check=False)
    assert p.returncode == 1 and f"no such folder {gone} " in p.stderr and not gone.exists()
