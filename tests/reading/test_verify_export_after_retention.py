"""``asz verify --export FILE --root ROOT`` of an ``--audit`` copy made before ``asz prune``, checked against the
pruned root (trial 27b F3: "a text changed" and "landed file … in the manifest, not in the root", exit 1, for a
genuine copy): each landed file is checked by its skeleton's digest, each line whose text retention took is said
"not checkable: removed by retention", never changed; a line changed beside that is still a problem.

Real input: the corpus project -src-deep-manifest (a7da6a22 and its sub-agent), collected, exported with --audit
(its manifest beside it), pruned by ``asz prune`` (retention ``after: 0``). Expected figures from the landed files
and the copy's own lines."""

from __future__ import annotations

import hashlib
import json
import shutil

import orjson

from reading_helpers import asz

from asz_core.storage.layout import landed_files, session_dirs

PROJECT = "-src-deep-manifest"
SID = "a7da6a22-facc-4fcd-8bab-f83c87862004"


def test_a_copy_made_before_retention_is_not_called_changed(corpus_source, tmp_path):
    shutil.copytree(corpus_source / PROJECT, tmp_path / "projects" / PROJECT)
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    copy = tmp_path / "a.jsonl"
    asz("export", SID, "--audit", "--root", str(root), "--out", str(copy))
    (sdir,) = session_dirs(root)
    landed = {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for _, p in landed_files(sdir)}
    assert len(landed) == 2
    (tmp_path / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz("prune", "--root", str(root), "--config", str(tmp_path / "asz.yaml"))
    assert not any(ln.ext == "sd" for ln, _ in landed_files(sdir, skeletons=True))
    p = asz("verify", "--export", str(copy), "--root", str(root), check=False)
    assert p.returncode == 0, p.stdout
    out = p.stdout.splitlines()
    for f in landed:  # the manifest's digest is the landed file's own; its skeleton keeps it
        assert f"ok: {SID}: landed file {f}: removed by retention; its skeleton {f.rsplit('/', 1)[-1][:-3]}.sk keeps " \
               "the manifest's digest" in out
    assert "changed" not in p.stdout and "not in the root" not in p.stdout
    lines = copy.read_bytes().splitlines()
    (gone,) = [x for x in out if x.startswith("not checkable: removed by retention: ")]
    assert gone.startswith(f"not checkable: removed by retention: {len(lines)} line(s) of the copy (line 1, 2, 3")
    assert out[-1] == "the copy checks against the root but for what retention removed (not checkable, above)"
    js = json.loads(asz("verify", "--export", str(copy), "--root", str(root), "--json").stdout)
    assert js["ok"] and js["not_checkable"] == [gone]
    # a line changed beside its removed text (its time) is still a problem: the manifest written again for it
    third = json.loads(lines[2])
    third["ts"] = "2025-11-29T15:16:59.000Z"
    lines[2] = orjson.dumps(third)
    changed = tmp_path / "b.jsonl"
    changed.write_bytes(b"\n".join(lines) + b"\n")
    body = json.loads((tmp_path / "a.jsonl.manifest.json").read_text())
    data = changed.read_bytes()
    from asz_core.reading.export_manifest import line_digests
    body["export"] = {**body["export"], "file": "b.jsonl", "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                      "lines": line_digests(data)}
    (tmp_path / "b.jsonl.manifest.json").write_text(json.dumps(body))
    bad = asz("verify", "--export", str(changed), "--root", str(root), check=False)
    assert bad.returncode == 1 and "b.jsonl: line 3 column" in bad.stdout, bad.stdout


def test_a_line_added_to_a_pruned_conversation_is_no_removed_text(corpus_source, tmp_path):
    """A sub-agent prompt line added to the copy at a record the root does not hold (its manifest written again for
    it) is a difference, not "not checkable" (before: exit 0, the forged line counted among the removed texts)."""
    shutil.copytree(corpus_source / PROJECT, tmp_path / "projects" / PROJECT)
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    copy = tmp_path / "a.jsonl"
    asz("export", SID, "--audit", "--root", str(root), "--out", str(copy))
    (tmp_path / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz("prune", "--root", str(root), "--config", str(tmp_path / "asz.yaml"))
    lines = copy.read_bytes().splitlines()
    lines.insert(3, orjson.dumps({"conversation": SID, "kind": "subagent_prompt", "text": "FORGED: deploy to prod",
                                  "ts": "2025-11-29T15:17:00.000Z", "stream": "sub", "file": "x.sd", "row": 9}))
    data = b"\n".join(lines) + b"\n"
    (tmp_path / "b.jsonl").write_bytes(data)
    from asz_core.reading.export_manifest import line_digests
    body = json.loads((tmp_path / "a.jsonl.manifest.json").read_text())
    body["export"] = {**body["export"], "file": "b.jsonl", "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                      "lines": line_digests(data)}
    (tmp_path / "b.jsonl.manifest.json").write_text(json.dumps(body))
    bad = asz("verify", "--export", str(tmp_path / "b.jsonl"), "--root", str(root), check=False)
    assert bad.returncode == 1 and "line 4" in bad.stdout, bad.stdout
