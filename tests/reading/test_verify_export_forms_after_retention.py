"""``asz verify --export FILE --root ROOT`` of md, html, json and ``--format text`` copies made before ``asz prune``
(trial 29a F1: each said "a text changed" and exited 1 against the pruned root; only ``--audit`` was handled): each
line whose landed text retention took is "not checkable: removed by retention", never changed, exit 0; a value the
skeletons keep (a model's name, a tool call's id), changed in the copy, is still a problem, exit 1.

Real input: the corpus project -Users-alex-workspace-coderabbit-review-helper (cb2e607c and its sub-agents, the
trial's conversation), collected, exported in each form (masked: each with its manifest), pruned by ``asz prune``
(retention ``after: 0``). The model's name is the one the corpus's source records (``message.model``)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from reading_helpers import asz, collected_project

from asz_core.reading.export_manifest import line_digests

PROJECT = "-Users-alex-workspace-coderabbit-review-helper"
CHECKS = "the copy checks against the root but for what retention removed (not checkable, above)"
SID = "cb2e607c-c758-415a-8b45-c49e4631906a"
FORMS = {"text": ["--format", "text"], "md": ["--format", "md", "--redact"], "html": ["--format", "html", "--redact"],
         "json": ["--format", "json", "--redact"]}


@pytest.fixture(scope="module")
def pruned(corpus_source, tmp_path_factory):
    """The project collected, each form exported (``FORM`` -> its copy), then the root pruned."""
    base = tmp_path_factory.mktemp("forms-after-retention")
    root = collected_project(corpus_source, base, PROJECT)
    copies = {}
    for form, args in FORMS.items():
        copies[form] = base / f"cb.{form}"
        asz("export", SID[:8], *args, "--out", str(copies[form]), "--root", str(root))
        before = asz("verify", "--export", str(copies[form]), "--root", str(root), check=False)
        assert before.returncode == 0 and "not checkable" not in before.stdout, before.stdout
    copies["brief"] = base / "cb.brief.md"  # the brief md (fix48l), not in FORMS: the corpus-wide tests stay as they were
    asz("export", SID[:8], "--format", "md", "--brief", "--out", str(copies["brief"]), "--root", str(root))
    (base / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz("prune", "--root", str(root), "--config", str(base / "asz.yaml"))
    assert not list(root.glob(f"{SID}/streams/*/*.sd")) and list(root.glob(f"{SID}/streams/*/*.sk"))
    return root, copies


def _model(corpus_source) -> str:
    """The first model the source records (counted from the source file, not from asz)."""
    for line in (corpus_source / PROJECT / f"{SID}.jsonl").read_text().splitlines():
        model = (json.loads(line).get("message") or {}).get("model")
        if model and not model.startswith("<"):
            return model
    raise AssertionError("no model in the source")


def _forge(copy: Path, forged: bytes, to: Path) -> Path:
    """``forged`` written at ``to`` with ``copy``'s manifest written again for it (bytes, SHA-256, line digests), so
    the forged copy checks against its own manifest and only the root can tell: ``to``."""
    to.write_bytes(forged)
    body = json.loads(copy.with_name(copy.name + ".manifest.json").read_text())
    body["export"] = {**body["export"], "bytes": len(forged), "sha256": hashlib.sha256(forged).hexdigest(),
                      "lines": line_digests(forged)}
    to.with_name(to.name + ".manifest.json").write_text(json.dumps(body))
    return to


@pytest.mark.parametrize("form", sorted(FORMS))
def test_each_form_made_before_retention_checks_but_for_what_went(pruned, form):
    root, copies = pruned
    p = asz("verify", "--export", str(copies[form]), "--root", str(root), check=False)
    assert p.returncode == 0, p.stdout[-3000:]
    out = p.stdout.splitlines()
    assert out[-1] == "the copy checks against the root but for what retention removed (not checkable, above)"
    (gone,) = [x for x in out if x.startswith("not checkable: removed by retention: ")]
    assert "changed" not in p.stdout.replace("differ from the root only", "")
    js = json.loads(asz("verify", "--export", str(copies[form]), "--root", str(root), "--json").stdout)
    assert js["ok"] and js["not_checkable"] == [gone] and js["problems"] == []


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_kept_value_changed_after_retention_is_a_problem(pruned, corpus_source, tmp_path, form):
    """The model's name (kept by the skeletons: docs/push.md) changed in the copy, its manifest written again for
    it (so the copy checks against its manifest): against the root it is a problem, exit 1."""
    root, copies = pruned
    model = _model(corpus_source)
    data = copies[form].read_bytes()
    assert model.encode() in data
    forged = data.replace(model.encode(), (model[:-1] + ("8" if model.endswith("9") else "9")).encode())
    assert forged != data
    copy = _forge(copies[form], forged, tmp_path / copies[form].name)
    p = asz("verify", "--export", str(copy), "--root", str(root), check=False)
    assert p.returncode == 1, p.stdout[-3000:]
    assert f"{copy.name}: " in p.stdout and "problem(s)" in p.stdout.splitlines()[-1]


def test_a_json_copy_with_an_image_made_before_retention_checks(corpus_source, tmp_path):
    """The corpus conversation with a pasted image (0d3a8e6f: an ``image`` block in its source), its json copy made
    before ``asz prune``: the image's ``kept`` true in the copy, false in the pruned root (its bytes went, state
    ``removed``), is not checkable, exit 0 (review A 29: it was "media[0].kept: the copy holds true, the root false",
    exit 1)."""
    project, sid = "-Users-alex-workspace-claude-code-log-sample", "0d3a8e6f-290f-4105-a327-a2496e5e2a83"
    assert '"type":"image"' in (corpus_source / project / f"{sid}.jsonl").read_text().replace('": "', '":"')
    shutil.copytree(corpus_source / project, tmp_path / "projects" / project)
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    copy = tmp_path / "image.json"
    asz("export", sid[:8], "--format", "json", "--redact", "--out", str(copy), "--root", str(root))
    (tmp_path / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz("prune", "--root", str(root), "--config", str(tmp_path / "asz.yaml"))
    p = asz("verify", "--export", str(copy), "--root", str(root), check=False)
    assert p.returncode == 0, p.stdout[-3000:]
    assert p.stdout.splitlines()[-1] == "the copy checks against the root but for what retention removed (not checkable, above)"


def _exit_plan_results(corpus_source) -> list[int]:
    """The UTF-8 sizes of the results of the source's ``ExitPlanMode`` calls, in order (read from the JSONL)."""
    names, out = {}, []
    for line in (corpus_source / PROJECT / f"{SID}.jsonl").read_text().splitlines():
        for b in (json.loads(line).get("message") or {}).get("content") or ():
            if isinstance(b, dict) and b.get("type") == "tool_use":
                names[b["id"]] = b["name"]
            elif isinstance(b, dict) and b.get("type") == "tool_result" and names.get(b["tool_use_id"]) == "ExitPlanMode":
                c = b["content"]
                out.append(len((c if isinstance(c, str) else "".join(x.get("text", "") for x in c)).encode()))
    return out


def test_a_brief_copy_made_before_retention_checks_and_says_the_kept_sizes(pruned, corpus_source, tmp_path):
    """fix48l (fix48a's finding): a ``--brief`` md copy made before ``asz prune`` said 11 problems against the pruned
    root, from a ``## Talk 4: Subagent`` line on (its left-out figures, talk headings, "Asked" prompts, a report's
    line, read from texts that went); now it checks but for what retention removed, exit 0, and a value the skeletons
    keep changed in it (the model's name, a tool's name) is a problem, exit 1. The brief form of the pruned root says
    each ``ExitPlanMode`` result by the size the skeleton keeps (render 43; render 42 said the marker's, 33 and 242
    bytes), as the copy made before did: the sizes of the source's results (308, the refusal, and 103)."""
    root, copies = pruned
    p = asz("verify", "--export", str(copies["brief"]), "--root", str(root), check=False)
    assert p.returncode == 0 and p.stdout.splitlines()[-1] == CHECKS, p.stdout[-3000:]
    data = copies["brief"].read_bytes()
    for old, new in ((_model(corpus_source), _model(corpus_source) + "-x"), ("- Tool **ExitPlanMode**", "- Tool **ExitPlanModeX**")):
        assert old.encode() in data
        copy = _forge(copies["brief"], data.replace(old.encode(), new.encode(), 1), tmp_path / f"forged{len(new)}.md")
        p = asz("verify", "--export", str(copy), "--root", str(root), check=False)
        assert p.returncode == 1 and "problem(s)" in p.stdout.splitlines()[-1], (old, p.stdout[-3000:])
    sizes = _exit_plan_results(corpus_source)
    assert sizes == [308, 103]
    # fix49b: from render 48 the copy says each result by its landed size, the skeleton's: a figure changed is a problem
    old, new = f"- Tool **ExitPlanMode** · result {sizes[0]:,} bytes left out", f"· result {sizes[0] + 1:,} bytes left out"
    line = next(x for x in data.decode().splitlines() if x.startswith("- Tool **ExitPlanMode**"))
    forged = data.replace(line.encode(), line.rsplit(" · result ", 1)[0].encode() + b" " + new.encode(), 1)
    p = asz("verify", "--export", str(_forge(copies["brief"], forged, tmp_path / "forged-size.md")), "--root", str(root), check=False)
    assert p.returncode == 1 and "problem(s)" in p.stdout.splitlines()[-1], (old, p.stdout[-3000:])
    now = asz("export", SID[:8], "--format", "md", "--brief", "--root", str(root)).stdout
    said = [x.rsplit(" · result ", 1)[1] for x in now.splitlines() if x.startswith("- Tool **ExitPlanMode**")]
    assert said == [f"{n:,} bytes left out" for n in sizes]
    assert [x.rsplit(" · result ", 1)[1] for x in data.decode().splitlines() if x.startswith("- Tool **ExitPlanMode**")] == said
