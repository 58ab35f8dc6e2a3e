"""``asz verify --export`` of every corpus conversation's copy made before ``asz prune``, in md, html, json and
``--format text`` (trial 29a F1; review A 29: after the prune md copies of 6 of the 11 conversations, html of 2 and
text of 1 still said "the copy's text is not the landed text", exit 1: a tool's input drawn as ``- file_path:``
lines, an "Asked" prompt, a step of blank text, a runtime notice's label, a pasted image's line): each of the 44
copies "checks against the root but for what retention removed", exit 0; a copy of each form with a model's name
changed (a value the skeletons keep, docs/push.md) is a problem, exit 1.

Real input: the whole corpus (../shared/corpus/claude-code/projects), collected, every conversation exported in the
four forms, then pruned by ``asz prune`` (retention ``after: "0"``). The conversations are the source's distinct
``sessionId`` values; the forged model name is the one the source records (``message.model``)."""

from __future__ import annotations

import json
import shutil

import pytest

from reading_helpers import asz
from test_verify_export_forms_after_retention import FORMS, _forge

CHECKS = "the copy checks against the root but for what retention removed (not checkable, above)"
FORGED = "8463c716-a2ea-4c14-9efa-87158ebd9f20"  # the largest: laid run by run (md, html), not as a whole


def _sessions(source) -> dict[str, str]:
    """Each conversation's id -> the first model its source records (read from the source files)."""
    out: dict[str, str] = {}
    for f in sorted(source.glob("*/*.jsonl")):
        for line in f.read_text().splitlines():
            rec = json.loads(line) if line.strip() else {}
            if rec.get("sessionId"):
                model = (rec.get("message") or {}).get("model") or ""
                if out.get(rec["sessionId"]) is None or (not out[rec["sessionId"]] and not model.startswith("<")):
                    out[rec["sessionId"]] = model if not model.startswith("<") else ""
    return out


@pytest.mark.slow
def test_every_corpus_copy_made_before_retention_checks_and_a_forged_one_does_not(corpus_source, tmp_path):
    sessions = _sessions(corpus_source)
    assert len(sessions) == 11 and FORGED in sessions and sessions[FORGED]
    shutil.copytree(corpus_source, tmp_path / "projects")
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    copies = {}
    for sid in sessions:
        for form, args in FORMS.items():
            copies[sid, form] = tmp_path / f"{sid[:8]}.{form}"
            asz("export", sid[:8], *args, "--out", str(copies[sid, form]), "--root", str(root))
    (tmp_path / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz("prune", "--root", str(root), "--config", str(tmp_path / "asz.yaml"))
    assert not list(root.glob("*/streams/*/*.sd")) and len({p.parts[-4] for p in root.glob("*/streams/*/*.sk")}) == 11
    failed = {}
    for (sid, form), copy in copies.items():
        p = asz("verify", "--export", str(copy), "--root", str(root), check=False)
        if p.returncode != 0 or p.stdout.splitlines()[-1] != CHECKS \
                or not any(x.startswith("not checkable: removed by retention: ") for x in p.stdout.splitlines()):
            failed[f"{sid[:8]}.{form}"] = (p.returncode, p.stdout[-1500:])
    assert not failed, (sorted(failed), failed)
    model = sessions[FORGED]
    for form in FORMS:
        data = copies[FORGED, form].read_bytes()
        assert model.encode() in data
        forged = _forge(copies[FORGED, form], data.replace(model.encode(), (model + "-x").encode()),
                        tmp_path / f"forged.{form}")
        p = asz("verify", "--export", str(forged), "--root", str(root), check=False)
        assert p.returncode == 1 and "problem(s)" in p.stdout.splitlines()[-1], (form, p.stdout[-1500:])
