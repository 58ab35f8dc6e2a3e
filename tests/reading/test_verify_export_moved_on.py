"""``asz verify --export FILE --root ROOT`` of an honest copy whose conversation grew after the export (trial 31b F1:
exit 1, "its head round is now 2 … not the manifest's 1" and "a text changed", though round 1 and its landed files
are still in the root, write-once). The copy is made again as of the manifest's head round: exit 0 with a line that
the root moved on (round N → M and what the rounds after it add); a real change of the copy is still named by line
and column, exit 1; after ``asz prune`` of the grown conversation the copy checks but for what retention removed.

Real input: the corpus conversation b25638d7 (46 source lines), its first 30 lines collected and exported, then the
other 16 appended (as the running agent writes them) and collected again. Expected figures read from the source
transcript and the landed files, not from asz's own output."""

from __future__ import annotations

import hashlib
import json
import shutil


from reading_helpers import asz

from asz_core.reading.export_manifest import line_digests
from asz_core.storage.layout import landed_files, session_dirs

PROJECT = "-Users-alex-workspace-personal-site-next"
SID = "b25638d7-b104-4f06-a797-70ac33d069ed"
FIRST = 30  # source lines collected before the export


def _grown(corpus_source, tmp_path, forms):
    """The root with the first FIRST lines collected, each form exported then, the rest appended and collected."""
    src = corpus_source / PROJECT / f"{SID}.jsonl"
    lines = src.read_bytes().splitlines(keepends=True)
    assert len(lines) == 46
    proj = tmp_path / "projects" / PROJECT
    proj.mkdir(parents=True)
    live = proj / f"{SID}.jsonl"
    live.write_bytes(b"".join(lines[:FIRST]))
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    copies = {}
    for name, args in forms.items():
        copies[name] = tmp_path / name
        asz("export", SID, *args, "--root", str(root), "--out", str(copies[name]))
    (sdir,) = session_dirs(root)
    before = {ln.seq for ln, _ in landed_files(sdir)}
    with live.open("ab") as f:
        f.write(b"".join(lines[FIRST:]))
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    added = sorted({ln.seq for ln, _ in landed_files(sdir)} - before)
    assert added, "the second collect landed nothing"
    return root, copies, added


FORMS = {"c.json": ["--format", "json", "--whole"], "c.md": ["--format", "md"], "c.jsonl": ["--audit"],
         "c.html": ["--format", "html"]}


def test_a_grown_conversation_checks_as_of_the_manifests_round(corpus_source, tmp_path):
    root, copies, added = _grown(corpus_source, tmp_path, FORMS)
    rounds = sorted((root / "_conversations" / SID / "rounds").iterdir())
    assert len(rounds) == 2  # the export's round and the one the second collect wrote
    for name, copy in copies.items():
        body = json.loads((tmp_path / f"{name}.manifest.json").read_text())
        assert body["conversations"][0]["head"]["round"] == 1
        p = asz("verify", "--export", str(copy), "--root", str(root), check=False)
        assert p.returncode == 0, (name, p.stdout)
        (moved,) = [x for x in p.stdout.splitlines() if "the root moved on since the export" in x]
        seqs = f"seq {added[0]}" + (f"–{added[-1]}" if len(added) > 1 else "")
        assert moved.startswith(f"ok: {SID}: the root moved on since the export: round 1 → 2 (")
        assert f"adding {len(added)} landed file(s) ({seqs})" in moved, moved
        assert "so the copy is made again as of round 1" in moved
        assert "changed" not in p.stdout and "problem" not in p.stdout
        assert p.stdout.splitlines()[-1] == "the copy checks against the root"
        js = json.loads(asz("verify", "--export", str(copy), "--root", str(root), "--json").stdout)
        assert js["ok"] and moved[4:] in js["checked"]


def _tampered(copy, manifest, old: bytes, new: bytes):
    """``copy`` with its first ``old`` made ``new`` and its manifest's digests written again for it (so only the root
    can tell): the path of the changed copy."""
    data = copy.read_bytes()
    assert old in data
    data = data.replace(old, new, 1)
    bad = copy.with_name("bad-" + copy.name)
    bad.write_bytes(data)
    body = json.loads(manifest.read_text())
    body["export"] = {**body["export"], "file": bad.name, "bytes": len(data),
                      "sha256": hashlib.sha256(data).hexdigest(), "lines": line_digests(data)}
    bad.with_name(bad.name + ".manifest.json").write_text(json.dumps(body))
    return bad, data[:data.index(new)].count(b"\n") + 1


def test_a_changed_copy_of_a_grown_conversation_still_fails(corpus_source, tmp_path):
    root, copies, _ = _grown(corpus_source, tmp_path, {"c.json": FORMS["c.json"], "c.md": FORMS["c.md"]})
    for name, copy in copies.items():
        plain = asz("verify", "--export", str(copy), "--root", str(root), check=False)
        assert plain.returncode == 0, plain.stdout
        # a word of the first prompt, as the source holds it, changed in the copy
        bad, line = _tampered(copy, tmp_path / f"{name}.manifest.json", b"supported by Chrome", b"supported by Chromf")
        p = asz("verify", "--export", str(bad), "--root", str(root), check=False)
        assert p.returncode == 1, p.stdout
        assert "the root moved on since the export: round 1 → 2" in p.stdout
        assert f"bad-{name}: line {line} column " in p.stdout and "outside the masks: the copy's text is not the landed text" in p.stdout
        # and the untouched copy without --root-side help: its own digest still names the change
        alone = asz("verify", "--export", str(bad), "--manifest", str(tmp_path / f"{name}.manifest.json"), check=False)
        assert alone.returncode == 1 and f"line {line}: changed since the manifest was written" in alone.stdout


def test_a_grown_then_pruned_conversation(corpus_source, tmp_path):
    """Retention after the growth: the landed files of round 1 (and the later ones) become skeletons; the rounds stay.
    The copy is made as of round 1 from the skeletons: it checks but for what retention removed (exit 0), and the
    moved-on line still comes first."""
    root, copies, _ = _grown(corpus_source, tmp_path, {"c.json": FORMS["c.json"], "c.jsonl": FORMS["c.jsonl"]})
    (tmp_path / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz("prune", "--root", str(root), "--config", str(tmp_path / "asz.yaml"))
    (sdir,) = session_dirs(root)
    assert not any(ln.ext == "sd" for ln, _ in landed_files(sdir, skeletons=True))
    assert len(list((root / "_conversations" / SID / "rounds").iterdir())) == 2  # rounds stay
    for name, copy in copies.items():
        p = asz("verify", "--export", str(copy), "--root", str(root), check=False)
        assert p.returncode == 0, (name, p.stdout)
        out = p.stdout.splitlines()
        assert any("the root moved on since the export: round 1 → 2" in x for x in out)
        assert any(x.startswith("not checkable: removed by retention: ") for x in out)
        assert out[-1] == "the copy checks against the root but for what retention removed (not checkable, above)"
        assert "changed" not in p.stdout


def test_a_round_the_root_does_not_hold_is_a_problem(corpus_source, tmp_path):
    """A manifest naming a head round whose digest the root's round does not have (another root, or a chain made
    again) is a problem, not a moved-on root."""
    root, copies, _ = _grown(corpus_source, tmp_path, {"c.md": FORMS["c.md"]})
    m = tmp_path / "c.md.manifest.json"
    body = json.loads(m.read_text())
    body["conversations"][0]["head"]["digest"] = "0" * 64
    m.write_text(json.dumps(body))
    p = asz("verify", "--export", str(copies["c.md"]), "--root", str(root), check=False)
    assert p.returncode == 1
    assert f"{SID}: its head round is now 2 (" in p.stdout and "and the root does not hold the manifest's round" in p.stdout
    assert "moved on since the export:" not in p.stdout
