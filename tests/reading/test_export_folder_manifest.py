"""A folder export as one dataset (trial 31b F2, F3): ``export.manifest.json`` lists the index page and every copy with
its manifest, by size and SHA-256; ``asz verify --export DIR [--root R]`` checks the folder (a file or its manifest
removed, added or changed is named; a json index's rows are held to the copies' figures; each copy is checked as one
file is); a re-export leaves byte-identical files as they are and says which conversations changed, round N → M; a
file in the folder before the export is listed as beside it, not said "added since" (trial 39d F2).

Real input: the corpus collected (tests/conftest.py), and for F3 two corpus conversations, one of which grows (its
first 30 of 46 source lines, then the rest). Expected digests computed with hashlib over the files written."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from reading_helpers import GROWS, STAYS, asz, growing_pair



def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def folder(corpus_root, tmp_path_factory):
    out = tmp_path_factory.mktemp("folder") / "dir"
    p = asz("export", "--since", "2000-01-01", "--format", "json", "--whole", "--out", str(out), "--root", str(corpus_root))
    return corpus_root, out, p


def test_the_folder_manifest_lists_every_file_by_its_digest(folder):
    root, out, p = folder
    body = json.loads((out / "export.manifest.json").read_bytes())
    copies = sorted(x.name for x in out.glob("*.json") if x.name not in ("index.json", "export.manifest.json")
                    and not x.name.endswith(".manifest.json"))
    assert body["schema"] == "asz.export-folder/1" and len(copies) >= 11
    assert body["index"] == {"file": "index.json", "bytes": (out / "index.json").stat().st_size, "sha256": _sha(out / "index.json")}
    assert sorted(f["file"] for f in body["files"]) == copies
    for f in body["files"]:
        assert (f["bytes"], f["sha256"]) == ((out / f["file"]).stat().st_size, _sha(out / f["file"]))
        assert f["manifest"] == {"file": f["file"] + ".manifest.json", "sha256": _sha(out / (f["file"] + ".manifest.json"))}
        assert f["conversation"] == f["file"][:-len(".json")]
    own = _sha(out / "export.manifest.json")
    assert f"asz export: folder manifest {out / 'export.manifest.json'} SHA-256 {own} (the index page and every file " \
           "with its own manifest beside it)" in p.stderr.splitlines()
    assert "asz export: manifest " not in p.stderr  # one line for the folder, not one per file
    # one note for the clipped texts of the whole folder (trial 31b F6), not one per conversation
    assert sum(x.startswith("asz export: note:") and "clipped at 2,000 bytes" in x for x in p.stderr.splitlines()) == 1
    alone = asz("verify", "--export", str(out), "--sha256", own)
    assert f"ok: the folder manifest is the one vouched for (SHA-256 {own})" in alone.stdout
    assert alone.stdout.splitlines()[-1] == "the folder checks against its manifest"
    full = asz("verify", "--export", str(out), "--root", str(root))
    assert f"ok: {len(copies)} of {len(copies)} copies check against the root" in full.stdout.splitlines()
    assert f"ok: the index's {len(copies)} row(s) are the copies' figures" in full.stdout
    assert full.stdout.splitlines()[-1] == "the folder checks against the root"
    wrong = asz("verify", "--export", str(out), "--sha256", "0" * 64, check=False)
    assert wrong.returncode == 1 and f"export.manifest.json: its SHA-256 is {own}, not the {'0' * 64} given" in wrong.stdout


def test_a_file_removed_added_or_changed_is_named(folder, tmp_path):
    root, out, _ = folder
    bad = tmp_path / "bad"
    shutil.copytree(out, bad)
    body = json.loads((bad / "export.manifest.json").read_bytes())
    gone, changed = body["files"][0]["file"], body["files"][1]["file"]
    (bad / gone).unlink()
    (bad / (gone + ".manifest.json")).unlink()
    (bad / "extra.json").write_text("{}")
    doc = (bad / changed).read_bytes()
    at = doc.index(b'"talks":') + len(b'"talks":')
    (bad / changed).write_bytes(doc[:at] + b"9" + doc[at + 1:])  # the copy's talk count changed
    rows = json.loads((bad / "index.json").read_bytes())
    rows[2]["llm_calls"] += 1
    (bad / "index.json").write_text(json.dumps(rows, indent=2))
    p = asz("verify", "--export", str(bad), "--root", str(root), check=False)
    assert p.returncode == 1
    lines = p.stdout.splitlines()
    assert f"bad/{gone}: in the folder manifest, not in the folder (a file removed since the export)" in lines
    assert f"bad/{gone}.manifest.json: in the folder manifest, not in the folder (a file removed since the export)" in lines
    assert "bad/extra.json: in the folder, not in its manifest (a file added since the export)" in lines
    assert any(x.startswith(f"bad/{changed}: its SHA-256 is {_sha(bad / changed)}, not the folder manifest's") for x in lines)
    assert any(x.startswith(f"bad/{changed}: line 1 column ") and "outside the masks" in x for x in lines)  # its own check
    assert any(x.startswith(f"bad/index.json: row 3 ({rows[2]['id']}): llm_calls {rows[2]['llm_calls']}, its copy") for x in lines)
    assert lines[-1].endswith("problem(s)")


def test_a_folder_without_its_manifest_is_a_usage_error(tmp_path):
    (tmp_path / "d").mkdir()
    p = asz("verify", "--export", str(tmp_path / "d"), check=False)
    assert p.returncode == 2 and "no folder manifest at" in p.stderr


def test_copies_with_no_manifest_say_the_way_to_checkable_ones_not_a_circle(tmp_path):
    """Trial 33c F4: a folder an asz before session 29 exported (no folder manifest, no file manifest) said "check each
    file", and each file said there was no manifest: now the folder says none of its files has one, and both say how
    to get copies that can be checked; a folder whose files have their own manifests still says to check each."""
    d = tmp_path / "old"
    d.mkdir()
    for name in ("a.json", "b.json", "index.json"):
        (d / name).write_text("{}\n")
    way = ("a copy with no manifest is checked only against the root, made again from it (asz verify --export DIR/FILE "
           "--root ROOT, when this asz still draws it so; nothing says what it held when written): else export the "
           "conversations again with this asz")
    p = asz("verify", "--export", str(d), check=False)
    assert p.returncode == 2 and "nor has any of its 2 file(s) a manifest beside it; " + way in p.stderr, p.stderr
    assert "check each file" not in p.stderr
    f = asz("verify", "--export", str(d / "a.json"), check=False)
    assert f.returncode == 2 and f"no manifest at {d / 'a.json.manifest.json'}" in f.stderr, f.stderr
    assert f"only the root's holder can check such a copy, by making it again from the root (asz verify --export {d / 'a.json'} --root ROOT); else " in f.stderr, f.stderr
    (d / "a.json.manifest.json").write_text("{}\n")
    p = asz("verify", "--export", str(d), check=False)
    assert p.returncode == 2 and "check each file (1 of 2 have a manifest beside them), asz verify --export DIR/FILE" \
        in p.stderr, p.stderr


def test_a_re_export_says_what_changed_and_leaves_the_rest(corpus_source, tmp_path):
    proj, root, live, lines = growing_pair(corpus_source, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "README.md").write_text("the audit's notes\n")  # there before: not part of the export (trial 39d F2)
    asz("export", "--since", "2000-01-01", "--format", "json", "--out", str(out), "--root", str(root))
    assert json.loads((out / "export.manifest.json").read_bytes())["beside"] == ["README.md"]
    v = asz("verify", "--export", str(out)).stdout.splitlines()  # exit 0: not "added since the export"
    assert "ok: 1 other file(s) were in the folder before the export and are not part of it (the manifest's beside): " \
        "README.md" in v and v[-1] == "the folder checks against its manifest", v
    kept = out / f"{STAYS[1]}.json"
    before = (kept.stat().st_ino, kept.stat().st_mtime_ns, (out / f"{STAYS[1]}.json.manifest.json").stat().st_mtime_ns)
    old = out.with_name("old")
    shutil.copytree(out, old)
    live.write_bytes(b"".join(lines))
    asz("collect", "--once", "--source", str(proj), "--root", str(root))
    p = asz("export", "--since", "2000-01-01", "--format", "json", "--out", str(out), "--root", str(root))
    said = p.stderr.splitlines()
    assert f"asz export: in {out}: 1 conversation(s) changed ({GROWS[1][:8]}: round 1 → 2, +1 landed file(s)), " \
           "1 unchanged (left as they were, byte for byte), 0 new" in said, p.stderr
    assert f"asz export: replaced 1 file(s) already in {out}: {GROWS[1]}.json" in said
    assert before == (kept.stat().st_ino, kept.stat().st_mtime_ns, (out / f"{STAYS[1]}.json.manifest.json").stat().st_mtime_ns)
    assert kept.read_bytes() == (old / kept.name).read_bytes()
    # both folders check against the grown root: the old one as of round 1 (its manifests name it)
    for d in (out, old):
        v = asz("verify", "--export", str(d), "--root", str(root))
        assert v.stdout.splitlines()[-1] == "the folder checks against the root"
    moved = asz("verify", "--export", str(old), "--root", str(root)).stdout
    assert "ok: 2 of 2 copies check against the root (1 as of the round their manifest names: the root moved on since)" in moved
    (out / "later.txt").write_text("after\n")  # one added since is still a problem; the one there before is not
    v = asz("verify", "--export", str(out), check=False)
    assert v.returncode == 1 and "out/later.txt: in the folder, not in its manifest (a file added since the export)" \
        in v.stdout.splitlines() and "README.md: in the folder" not in v.stdout, v.stdout


def test_a_masked_copy_to_stdout_says_it_has_no_manifest(folder):
    """README and reading.md agree (trial 31b F10): a masked copy written to stdout, of one conversation too, says on
    stderr that it has no manifest; an unmasked one (the landed text) says nothing of it."""
    root, _, _ = folder
    sid = "55604662-cf2a-4331-851a-ec234028f8ca"
    masked = asz("export", sid, "--redact", "--root", str(root))
    assert masked.stdout and "asz export: note: no manifest for stdout: a masked copy written to stdout has none; " \
        "--out FILE.md writes FILE.md.manifest.json beside it" in masked.stderr
    plain = asz("export", sid, "--root", str(root))
    assert plain.stdout and "no manifest" not in plain.stderr
