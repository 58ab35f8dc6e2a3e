"""``asz verify --export`` of every corpus conversation's copy made before ``asz prune``, in md, html, json and
``--format text`` (trial 29a F1; review A 29: after the prune md copies of 6 of the 11 conversations, html of 2 and
text of 1 still said "the copy's text is not the landed text", exit 1: a tool's input drawn as ``- file_path:``
lines, an "Asked" prompt, a step of blank text, a runtime notice's label, a pasted image's line): each of the 44
copies "checks against the root but for what retention removed", exit 0; a copy of each form with a model's name
changed (a value the skeletons keep, docs/push.md) is a problem, exit 1.

Real input: the whole corpus (../shared/corpus/claude-code/projects), collected (a copy of the run's once-collected root,
tests/conftest.py corpus_copy), every conversation exported in the
four forms, then pruned by ``asz prune`` (retention ``after: "0"``). The conversations are the source's distinct
``sessionId`` values; the forged model name is the one the source records (``message.model``)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

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
def test_every_corpus_copy_made_before_retention_checks_and_a_forged_one_does_not(corpus_source, corpus_copy, tmp_path):
    sessions = _sessions(corpus_source)
    assert len(sessions) == 11 and FORGED in sessions and sessions[FORGED]
    root = corpus_copy(tmp_path / "root")  # the corpus as the real ``asz collect --once`` landed it, the test's own copy
    copies = {}
    for sid in sessions:
        for form, args in FORMS.items():
            copies[sid, form] = tmp_path / f"{sid[:8]}.{form}"
            asz("export", sid[:8], *args, "--out", str(copies[sid, form]), "--root", str(root))
    _pruned_and_checked(root, copies, tmp_path, set(sessions))
    for form in FORMS:
        _forged_fails(copies[FORGED, form], sessions[FORGED], sessions[FORGED] + "-x", tmp_path / f"forged.{form}", root)


def _pruned_and_checked(root: Path, copies: dict[tuple[str, str], Path], at: Path, sessions: set[str]) -> None:
    """``root`` pruned (retention ``after: "0"``, its config in ``at``): each of ``sessions`` has skeletons only, and
    each copy (by (id, form)) checks against it but for what retention removed, exit 0."""
    (at / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz("prune", "--root", str(root), "--config", str(at / "asz.yaml"))
    assert not list(root.rglob("*.sd")) and {p.parts[-4] for p in root.glob("*/streams/*/*.sk")} == sessions
    failed = {}
    for (sid, form), copy in copies.items():
        p = asz("verify", "--export", str(copy), "--root", str(root), check=False)
        if p.returncode != 0 or p.stdout.splitlines()[-1] != CHECKS \
                or not any(x.startswith("not checkable: removed by retention: ") for x in p.stdout.splitlines()):
            failed[f"{sid[:8]}.{form}"] = (p.returncode, p.stdout[-1500:])
    assert not failed, (sorted(failed), failed)


def _forged_fails(copy: Path, old: str, new: str, to: Path, root: Path) -> None:
    """``copy`` with ``old`` (a value the skeletons keep) said ``new`` and its manifest written again for it (at
    ``to``): against the pruned ``root`` it is a problem, exit 1."""
    data = copy.read_bytes()
    assert old.encode() in data, (copy.name, old)
    p = asz("verify", "--export", str(_forge(copy, data.replace(old.encode(), new.encode()), to)), "--root", str(root),
            check=False)
    assert p.returncode == 1 and "problem(s)" in p.stdout.splitlines()[-1], (copy.name, p.stdout[-1500:])


# --------------------------------------------------------------------------- Kiro (recheck 29 of trial 29a F1)

REPO = Path(__file__).resolve().parents[2]
KIRO_HOME = REPO.parent / "shared" / "corpus" / "kiro" / "home"
REAL_IDE = REPO / "tests" / "adapters" / "kiro" / "real_ide"
#: Every form, masked and plain (``md``, ``html`` and ``json`` are plain unless ``--redact``; the text and audit forms
#: masked unless ``--no-redact``).
ALL_FORMS = {**FORMS, "md.plain": ["--format", "md"], "html.plain": ["--format", "html"], "json.plain": ["--format", "json"],
              "text.plain": ["--format", "text", "--no-redact"], "audit": ["--audit"], "audit.plain": ["--audit", "--no-redact"]}


def _kiro_sessions(home: Path) -> dict[str, tuple[int, str]]:
    """Each Kiro session's id under ``home``'s ``.kiro/sessions`` -> (the notices its source gives, a tool name its
    calls use), read from the source files: a 3.x ``messages.jsonl``'s approval asked (``pending_interaction``) or
    answered (``interaction_resolved``) and context usage (``session_metadata`` ``contextUsage``) lines, its longest
    ``tool_call`` name; a 2.x ``<id>.jsonl``'s longest ``toolUse`` name (it writes no notice)."""
    out = {}
    for f in sorted(home.glob(".kiro/sessions/*/sess_*/messages.jsonl")):
        lines = [json.loads(x)["payload"] for x in f.read_text().splitlines() if x.strip()]
        notices = sum(p["type"] in ("pending_interaction", "interaction_resolved")
                      or (p["type"] == "session_metadata" and p.get("key") == "contextUsage") for p in lines)
        out[f.parent.name] = (notices, max((p["toolName"] for p in lines if p["type"] == "tool_call"), key=len))
    for f in sorted(home.glob(".kiro/sessions/cli/*.jsonl")):
        names = [b["data"]["name"] for x in f.read_text().splitlines() if x.strip()
                 for b in (json.loads(x)["data"].get("content") or ()) if b.get("kind") == "toolUse"]
        out[f.stem] = (0, max(names, key=len))
    return out


def _except(rows: list[dict], keys: tuple[str, ...]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in keys} for r in rows]


def checked_after_prune(root: Path, tools: dict[str, str], at: Path) -> dict[tuple[str, str], Path]:
    """Each conversation of ``root`` (``tools``: its id -> a tool name its calls use, read from its source) exported
    in every form (:data:`ALL_FORMS`) into ``at``, then the root pruned (retention ``after: "0"``): each copy checks
    against the pruned root but for what retention removed, exit 0; ``asz usage --json`` is the same and ``asz ls
    --json`` differs only in ``project`` and its ``project_label`` (``""``: the records' ``cwd`` went), ``removed_files`` (the skeletons) and
    ``title`` (``(removed by retention)``: a runtime title the skeletons keep as a label is never shown, trial 32b F1);
    the tool's name (kept by the skeletons) changed in a copy of each form is a problem, exit 1. Returns the copies
    by (id, form)."""
    copies = {}
    for sid in tools:
        for form, args in ALL_FORMS.items():
            copies[sid, form] = at / f"{sid[:8]}.{form}"
            asz("export", sid, *args, "--out", str(copies[sid, form]), "--root", str(root))
    ls_before, usage_before = json.loads(asz("ls", "--json", "--root", str(root)).stdout), asz("usage", "--json", "--root", str(root)).stdout
    _pruned_and_checked(root, copies, at, set(tools))
    assert asz("usage", "--json", "--root", str(root)).stdout == usage_before
    ls_after = json.loads(asz("ls", "--json", "--root", str(root)).stdout)
    went = ("project", "project_label", "removed_files", "title")
    assert _except(ls_after, went) == _except(ls_before, went)
    assert {r["id"]: (r["project"], r.get("project_label", ""), r["removed_files"], r["title"]) for r in ls_after} == {
        sid: ("", "", len(list((root / sid).rglob("*.sk"))), "(removed by retention)") for sid in tools}
    for sid, tool in tools.items():
        for form in ALL_FORMS:
            _forged_fails(copies[sid, form], tool, tool + "x", at / f"forged-{sid[:8]}.{form}", root)
    return copies


@pytest.mark.slow
def test_every_kiro_copy_made_before_retention_checks_and_a_forged_one_does_not(tmp_path):
    """The corpus's Kiro CLI 3.x and 2.x sessions and the real Kiro IDE session, collected, every form of each checked
    after the prune (:func:`checked_after_prune`; recheck 29: the text, audit and json copies of the two 3.x sessions
    said "changed", exit 1: kiro's notices lost their line, role and kind, the text header's credential counts and
    a ``usage_summary``'s kept figures were held to the copy); the pruned root reads the same shape: as many notices,
    role ``system``, as the source gives (docs/adapters/kiro.md, Retention)."""
    if not KIRO_HOME.is_dir():
        pytest.skip(f"the corpus is absent ({KIRO_HOME})")
    home = tmp_path / "home"
    shutil.copytree(KIRO_HOME, home)
    shutil.copytree(REAL_IDE / "9f3c1d0b7a4e2856", home / ".kiro" / "sessions" / "9f3c1d0b7a4e2856",
                    ignore=shutil.ignore_patterns("README.md"))
    sessions = _kiro_sessions(home)
    assert len(sessions) == 3 and sorted(n for n, _ in sessions.values()) == [0, 18, 20]
    root = tmp_path / "root"
    asz("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root))
    copies = checked_after_prune(root, {sid: tool for sid, (_, tool) in sessions.items()}, tmp_path)
    for sid, (notices, _) in sessions.items():
        lines = [json.loads(x) for x in asz("export", sid, "--audit", "--root", str(root)).stdout.splitlines()]
        said = [x for x in lines if x.get("kind") == "notice"]
        assert len(said) == notices == lines[0]["lines"].get("notice", 0)
        assert all(x["role"] == "system" and x["text"].startswith("[removed by retention: ") for x in said)
    _usage_summary_held(home, copies, tmp_path, root)


def _usage_summary_held(home: Path, copies: dict, tmp_path: Path, root: Path) -> None:
    """A json copy's step of the 3.x session's ``usage_summary`` line: its credit figure (kept by the skeleton,
    docs/adapters/kiro.md) changed is a problem, its ``usedTools`` (gone with the prune) changed is not checkable."""
    (f,) = home.glob(".kiro/sessions/*/sess_5e80*/messages.jsonl")
    (line,) = [x for x in f.read_text().splitlines() if '"usage_summary"' in x]
    figure = re.search(r'"usage":\s*([0-9.eE+-]+)', line).group(1)  # as the source wrote it
    tool = json.loads(line)["payload"]["promptTurnSummaries"][0]["usedTools"][0]
    sid = next(k for k, _ in copies if k.startswith("sess_5e80"))
    data = copies[sid, "json"].read_bytes()
    for old, new, rc in ((f'\\"usage\\":{figure}', f'\\"usage\\":{float(figure) + 1}', 1),
                         (f'\\"usedTools\\":[\\"{tool}\\"', f'\\"usedTools\\":[\\"{tool}x\\"', 0)):
        assert data.count(old.encode()) == 1, old
        forged = _forge(copies[sid, "json"], data.replace(old.encode(), new.encode()), tmp_path / f"usage-{rc}.json")
        p = asz("verify", "--export", str(forged), "--root", str(root), check=False)
        assert p.returncode == rc, p.stdout[-1500:]
        assert ("the copy's data does not hold what the root's skeleton keeps of it" in p.stdout) == bool(rc)
