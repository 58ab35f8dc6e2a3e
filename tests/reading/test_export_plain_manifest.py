"""Every file export gets ``FILE.manifest.json``, masked or not (trial 29a F6: an unmasked md, html, json, prose or
``--audit --no-redact`` copy, which disclosure may require, had none, so no third party could check it): the head
round, the landed files' digests, the asz version, the window and the time zone; ``asz verify --export FILE`` checks
it alone and with ``--root`` against the landed files, and names a changed line.

Real input: the corpus project -Users-alex-workspace-coderabbit-review-helper collected; its conversation cb2e607c
exported in each form with ``--no-redact``. The landed files' digests are counted from the root's files."""

from __future__ import annotations

import hashlib
import json

import pytest

from reading_helpers import asz, collected_project

PROJECT = "-Users-alex-workspace-coderabbit-review-helper"
SID = "cb2e607c-c758-415a-8b45-c49e4631906a"
FORMS = {"md": ["--format", "md", "--no-redact"], "html": ["--format", "html", "--no-redact"], "json": ["--format", "json"],
         "prose": ["--format", "prose"], "jsonl": ["--audit", "--no-redact"], "text": ["--format", "text", "--no-redact"]}


@pytest.fixture(scope="module")
def root(corpus_source, tmp_path_factory):
    base = tmp_path_factory.mktemp("plain-manifest")
    return collected_project(corpus_source, base, PROJECT)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_an_unmasked_copy_has_a_manifest_a_third_party_checks(root, tmp_path, form):
    from asz_core import __version__

    copy = tmp_path / f"c.{form}"
    p = asz("export", SID[:8], *FORMS[form], "--out", str(copy), "--root", str(root))
    manifest = tmp_path / f"c.{form}.manifest.json"
    body = json.loads(manifest.read_bytes())
    assert f"asz export: manifest {manifest} SHA-256 {hashlib.sha256(manifest.read_bytes()).hexdigest()}" in p.stderr
    data = copy.read_bytes()
    assert body["export"]["sha256"] == hashlib.sha256(data).hexdigest() and body["export"]["bytes"] == len(data)
    assert body["asz"] == __version__ and body["made"]["redact"] is False and body["masks"] == []
    assert "tz" in body["made"] and "window" in body["made"]
    (conv,) = body["conversations"]
    landed = {f.relative_to(root).as_posix(): hashlib.sha256(f.read_bytes()).hexdigest()
              for f in (root / SID).rglob("*.sd")}
    assert conv["conversation"] == SID and {f["file"]: f["digest"] for f in conv["files"] if f["file"].endswith(".sd")} == landed
    assert conv["head"]["round"] == 1 and len(conv["head"]["digest"]) == 64
    alone = asz("verify", "--export", str(copy), check=False)
    assert alone.returncode == 0 and alone.stdout.splitlines()[-1] == "the copy checks against its manifest"
    held = asz("verify", "--export", str(copy), "--root", str(root), check=False)
    assert held.returncode == 0 and held.stdout.splitlines()[-1] == "the copy checks against the root", held.stdout
    # one character changed (its manifest written again for it): the root's holder finds it
    forged = data.replace(b"help you", b"help U", 1)  # a reply's words: in every form
    assert forged != data
    (tmp_path / f"x.{form}").write_bytes(forged)
    from asz_core.reading.export_manifest import line_digests

    body["export"] = {**body["export"], "file": f"x.{form}", "bytes": len(forged),
                      "sha256": hashlib.sha256(forged).hexdigest(), "lines": line_digests(forged)}
    (tmp_path / f"x.{form}.manifest.json").write_text(json.dumps(body))
    bad = asz("verify", "--export", str(tmp_path / f"x.{form}"), "--root", str(root), check=False)
    assert bad.returncode == 1 and f"x.{form}: line " in bad.stdout, bad.stdout
