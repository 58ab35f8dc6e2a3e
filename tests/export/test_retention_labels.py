"""After ``asz prune`` a runtime's title stays only where seed 000 and the round chain keep it (trial 32b F1).

Real input: the corpus's Claude Code session 326189cf, whose second line is a ``summary`` record, and the corpus's
Kiro CLI 2.x session 8e247382, whose ``session.json`` ``title`` is the start of its first prompt; in copies, a name
is planted into that summary's text and that title (nothing else changed). Collected, listed, searched, exported,
then pruned (retention ``after: "0"``, ``require_accepted: false``) and read again by every reader: a byte grep of
the whole root, skeletons decompressed, finds the name only in a skeleton's record ``label``, the session's
``index/entries.jsonl`` and the rounds (docs/push.md, Retention and skeletons), never under ``_index/`` nor in what
a reader prints. Before the fix ``_index/summaries.sqlite`` held it and ``asz ls`` printed it.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from export_helpers import asz

NAME = "Zebedee Quarterfield"
CLAUDE = ("-Users-alex-workspace-claude-code-log-sample", "326189cf-5676-4237-8cde-1ce80aae4a9f")
KIRO = "8e247382-c779-440f-b1db-ed9bad1afaee"


def _planted(corpus: Path, tmp: Path) -> tuple[Path, Path]:
    """Copies of the Claude Code project and the Kiro home with :data:`NAME` in the summary and the title."""
    src = corpus / "claude-code" / "projects" / CLAUDE[0] / f"{CLAUDE[1]}.jsonl"
    kiro = corpus / "kiro" / "home"
    if not src.is_file() or not kiro.is_dir():
        pytest.skip(f"the corpus is absent ({src}, {kiro})")
    projects = tmp / "projects"
    (projects / CLAUDE[0]).mkdir(parents=True)
    lines = src.read_bytes().split(b"\n")
    summary = json.loads(lines[1])
    assert summary["type"] == "summary" and summary["summary"] == "Ruff Linting Fixes in Test Files"
    summary["summary"] = f"Ruff fixes for {NAME}"
    lines[1] = json.dumps(summary).encode()
    (projects / CLAUDE[0] / src.name).write_bytes(b"\n".join(lines))
    home = tmp / "home"
    shutil.copytree(kiro, home)
    doc = home / ".kiro" / "sessions" / "cli" / f"{KIRO}.json"
    d = json.loads(doc.read_text(encoding="utf-8"))
    assert d["title"].startswith("Do these six steps in order.")
    d["title"] = f"Call {NAME} about the six steps"
    doc.chmod(0o644)
    doc.write_text(json.dumps(d), encoding="utf-8")
    return projects, home


def _holding(root: Path, needle: bytes) -> dict[str, list[str]]:
    """Each file of ``root`` (relative path) whose bytes hold ``needle``, a ``.sk`` decompressed; for a ``.sk``, the
    keys of its records that hold it (``label``), else ``[]``."""
    out: dict[str, list[str]] = {}
    for p in sorted(root.rglob("*")):
        if not p.is_file():
            continue
        data = p.read_bytes()
        if p.suffix == ".sk":
            data = gzip.decompress(data)
        if needle not in data:
            continue
        keys = []
        if p.suffix == ".sk":
            for line in data.split(b"\n"):
                if needle in line:
                    rec = json.loads(line)
                    keys += sorted(k for k, v in rec.items() if needle.decode() in json.dumps(v, ensure_ascii=False))
        out[p.relative_to(root).as_posix()] = keys
    return out


def _read_all(root: Path, tmp: Path) -> str:
    """What every reader prints of the root: ``asz ls`` (table and ``--json``), ``asz search`` (which updates the
    search index), ``asz conversation`` and ``asz export`` (json, md) of each conversation."""
    out = [asz("ls", "--root", str(root), cwd=tmp).stdout, asz("ls", "--json", "--root", str(root), cwd=tmp).stdout,
           asz("search", NAME.split()[0], "--json", "--root", str(root), cwd=tmp).stdout]
    for cid in (CLAUDE[1], KIRO):
        out.append(asz("conversation", cid[:8], "--root", str(root), cwd=tmp).stdout)
        for form in ("json", "md"):
            out.append(asz("export", cid[:8], "--format", form, "--root", str(root), cwd=tmp).stdout)
    return "\n".join(out)


def test_prune_leaves_a_planted_title_only_in_skeleton_labels_the_session_index_and_the_rounds(corpus_dir, tmp_path):
    projects, home = _planted(corpus_dir, tmp_path)
    root = tmp_path / "root"
    env = {"HOME": str(home), "KIRO_HOME": str(home / ".kiro")}
    assert asz("collect", "--once", "--source", str(projects), "--root", str(root), cwd=tmp_path).returncode == 0
    p = asz("collect", "--once", "--adapter", "kiro", "--root", str(root), cwd=tmp_path, env=env)
    assert p.returncode == 0, p.stderr
    before = _read_all(root, tmp_path)
    assert f"Call {NAME}" in before  # the Kiro title, before the prune
    assert any(k.startswith("_index/") for k in _holding(root, NAME.encode()))

    (tmp_path / "ret.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    p = asz("prune", "--root", str(root), "--config", str(tmp_path / "ret.yaml"), cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.splitlines()[-1].startswith("prune: sessions=3 "), p.stdout + p.stderr
    after = _read_all(root, tmp_path)
    assert NAME not in after and NAME.split()[0] not in after
    rows = {r["id"]: r["title"] for r in json.loads(asz("ls", "--json", "--root", str(root), cwd=tmp_path).stdout)}
    assert rows[KIRO] == rows[CLAUDE[1]] == "(removed by retention)"

    held = _holding(root, NAME.encode())
    assert {f for f in held if f.endswith(".sk")} and all(held[f] == ["label"] for f in held if f.endswith(".sk"))
    assert f"{KIRO}/index/entries.jsonl" in held and f"{CLAUDE[1]}/index/entries.jsonl" in held
    assert not [f for f in held if not (f.endswith(".sk") or f.endswith("/index/entries.jsonl")
                                        or (f.startswith("_conversations/") and f.endswith(".sf")))], held


def test_search_finds_a_planted_title_by_its_label_until_the_prune(corpus_dir, tmp_path):
    """trial 32b F4: ``asz search`` read texts only, so a name standing only in a Claude Code ``summary`` record and a
    Kiro session title was found by no search (``[]``). Now each label is a hit of kind ``label`` naming the record
    that carries it (its landed file and row), ``--conversations`` lists both conversations, and after the prune
    neither is found (a skeleton's labels are not searched)."""
    projects, home = _planted(corpus_dir, tmp_path)
    root = tmp_path / "root"
    env = {"HOME": str(home), "KIRO_HOME": str(home / ".kiro")}
    assert asz("collect", "--once", "--source", str(projects), "--root", str(root), cwd=tmp_path).returncode == 0
    assert asz("collect", "--once", "--adapter", "kiro", "--root", str(root), cwd=tmp_path, env=env).returncode == 0
    hits = json.loads(asz("search", "Quarterfield", "--json", "--root", str(root), cwd=tmp_path).stdout)
    assert sorted((h["conversation"], h["kind"], h["snippet_text"]) for h in hits) == [
        (CLAUDE[1], "label", f"Ruff fixes for {NAME}"), (KIRO, "label", f"Call {NAME} about the six steps")]
    for h in hits:  # the row named is the landed record whose label it is
        line = (root / h["file"]).read_bytes().split(b"\n")[h["row"]]
        assert json.loads(line)["label"] == h["snippet_text"]
    assert json.loads(asz("search", "Quarterfield", "--kind", "prompt,reply,text", "--json", "--root", str(root),
                          cwd=tmp_path).stdout) == []
    convs = json.loads(asz("search", NAME, "--conversations", "--json", "--root", str(root), cwd=tmp_path).stdout)
    assert sorted(c["conversation"] for c in convs) == sorted([CLAUDE[1], KIRO])

    (tmp_path / "ret.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    assert asz("prune", "--root", str(root), "--config", str(tmp_path / "ret.yaml"), cwd=tmp_path).returncode == 0
    assert json.loads(asz("search", "Quarterfield", "--json", "--root", str(root), cwd=tmp_path).stdout) == []
