"""A folder export into a folder holding another export (trial 37a F3): the second week's export into the first's
folder left the first's copies beside the new index, and ``asz verify --export DIR`` then failed ("in the folder, not
in its manifest"). Now such a folder is refused, naming what is there (exit 1, nothing written); ``--replace``
removes exactly the files the earlier folder manifest lists that this export does not make, never another file; the
same export again needs nothing (as before).

Real input: the corpus collected (tests/conftest.py). Two exports by project, claude-code-log's three conversations
and spotter's two (``asz ls --json`` of the root gives which ids each holds); expected names and digests read from
the folder with hashlib."""

from __future__ import annotations

import hashlib
import json

from reading_helpers import asz


def _files(out) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.iterdir()) if p.is_file()}


def _ids(root, project: str) -> set[str]:
    rows = json.loads(asz("ls", "--json", "--project", project, "--root", str(root)).stdout)
    rows = rows["conversations"] if isinstance(rows, dict) else rows
    return {r["id"] for r in rows}


def test_a_folder_holding_another_export_is_refused_then_replaced(corpus_root, tmp_path):
    out = tmp_path / "week"
    first, second = _ids(corpus_root, "claude-code-log"), _ids(corpus_root, "/spotter")
    assert len(first) == 3 and len(second) == 2 and not first & second
    asz("export", "--project", "claude-code-log", "--out", str(out), "--root", str(corpus_root))
    (out / "README.md").write_text("the team's own notes\n")
    before = _files(out)
    p = asz("export", "--project", "/spotter", "--out", str(out), "--root", str(corpus_root), check=False)
    assert p.returncode == 1
    assert _files(out) == before  # nothing written, nothing removed
    said = [x for x in p.stderr.splitlines() if "holds another export" in x]
    assert len(said) == 1 and "3 file(s)" in said[0] and "--replace" in said[0] and "exactly those 6 file(s)" in said[0]
    assert all(f"{cid}.md" in said[0] for cid in first)

    p = asz("export", "--project", "/spotter", "--out", str(out), "--replace", "--root", str(corpus_root))
    assert f"asz export: removed 6 file(s) an earlier export left in {out}" in p.stderr
    assert sorted(_files(out)) == sorted(["README.md", "index.md", "export.manifest.json"]
                                         + [f"{c}.md{m}" for c in second for m in ("", ".manifest.json")])
    assert (out / "README.md").read_text() == "the team's own notes\n"  # never another file
    index = (out / "index.md").read_text()
    assert not any(c[:8] in index for c in first) and all(c[:8] in index for c in second)
    # a file of its own, there before the export: the manifest's beside, not "added since" (trial 39d F2)
    assert json.loads((out / "export.manifest.json").read_bytes())["beside"] == ["README.md"]
    v = asz("verify", "--export", str(out), "--root", str(corpus_root), check=False)
    assert v.returncode == 0 and "before the export and are not part of it (the manifest's beside): README.md" \
        in v.stdout, v.stdout

    # the same export again: no --replace needed, each copy left byte for byte
    kept = _files(out)
    again = asz("export", "--project", "/spotter", "--out", str(out), "--root", str(corpus_root))
    assert "0 conversation(s) changed, 2 unchanged" in again.stderr and "removed" not in again.stderr
    assert _files(out) == kept


def test_another_format_into_the_folder_is_refused_naming_its_index(corpus_root, tmp_path):
    out = tmp_path / "both"
    asz("export", "--project", "/spotter", "--out", str(out), "--root", str(corpus_root))
    before = _files(out)
    p = asz("export", "--project", "/spotter", "--format", "html", "--out", str(out), "--root", str(corpus_root),
            check=False)
    assert p.returncode == 1 and _files(out) == before
    said = next(x for x in p.stderr.splitlines() if "holds another export" in x)
    assert "index.md" in said and "exactly those 5 file(s)" in said  # 2 copies + index, 2 manifests
    asz("export", "--project", "/spotter", "--format", "html", "--out", str(out), "--replace", "--root",
        str(corpus_root))
    assert not any(n.endswith(".md") or n.endswith(".md.manifest.json") for n in _files(out))
    assert asz("verify", "--export", str(out), "--root", str(corpus_root), check=False).returncode == 0


def test_a_stopped_export_of_other_conversations_is_named_from_its_partial_manifest(corpus_root, tmp_path):
    out = tmp_path / "stopped"
    asz("export", "--project", "claude-code-log", "--out", str(out), "--root", str(corpus_root))
    body = json.loads((out / "export.manifest.json").read_bytes())
    # what a stopped run leaves: the copies its partial manifest lists, no index page and no folder manifest
    lines = [json.dumps({"conversation": f["conversation"], "file": f["file"], "sha256": f["sha256"],
                         "manifest_sha256": f["manifest"]["sha256"], "key": "x"}) for f in body["files"]]
    (out / "export.partial.jsonl").write_text("\n".join(lines) + "\n")
    (out / "export.manifest.json").unlink()
    (out / "index.md").unlink()
    p = asz("export", "--project", "/spotter", "--out", str(out), "--root", str(corpus_root), check=False)
    assert p.returncode == 1 and "3 file(s)" in p.stderr and "holds another export" in p.stderr
