"""A Kiro continuation copy counts none of the changes it repeats, in every changes figure (trial 46d F1).

Real input: the corpus Kiro home in a temporary HOME, plus two copies of its CLI 2.x session (``.json`` and
``.jsonl``) under new session ids with nothing else changed, as trial 46d's history had them. Each copy repeats the
original's records: it ``continues`` it, and docs/reading.md says a continuing copy counts none of the records it
repeats. Before, each copy's row said ``changes`` 0 but ``changes_lines_unknown`` 2, and the note under ``asz ls``
said 6 changed files in 3 conversations where the files hold 2 in 1. The figures expected are counted here from the
source ``.jsonl``: the paths of its ``write`` tool uses (Kiro CLI 2.x records no earlier content, so their lines are
not known).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import forked
from kiro_copies import CLI, writable_kiro_home

ASZ = [sys.executable, "-m", "asz_core.cli.main"]
COPIES = ("8e247381-c779-440f-b1db-ed9bad1afae1", "8e247383-c779-440f-b1db-ed9bad1afae3")


def _asz(home: Path, cwd: Path, *args: str):
    env = {k: v for k, v in os.environ.items() if k not in ("KIRO_HOME", "USERPROFILE", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME")}
    env["HOME"] = str(home)
    p = forked.run([*ASZ, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    return p


def _written(jsonl: Path) -> set[str]:
    """The paths the session's ``write`` tool uses name, from its transcript."""
    out = set()
    for line in jsonl.read_text(encoding="utf-8").splitlines():
        for c in (json.loads(line).get("data") or {}).get("content") or ():
            if isinstance(c, dict) and c.get("kind") == "toolUse" and c["data"]["name"] == "write":
                out.add(c["data"]["input"]["path"])
    return out


def test_copies_count_none_of_the_changes_they_repeat(corpus_dir: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    kiro = writable_kiro_home(corpus_dir, home / ".kiro")
    cli = kiro / "sessions" / "cli"
    for copy in COPIES:
        for ext in ("json", "jsonl"):
            text = (cli / f"{CLI}.{ext}").read_text(encoding="utf-8")
            (cli / f"{copy}.{ext}").write_text(text.replace(CLI, copy), encoding="utf-8")
    files = len(_written(cli / f"{CLI}.jsonl"))
    assert files == 2  # the premise: the corpus session writes two files
    run = tmp_path / "run"
    run.mkdir()
    _asz(home, run, "collect", "--once", "--adapter", "kiro")
    rows = {r["id"]: r for r in json.loads(_asz(home, run, "ls", "--json").stdout)}
    (first,) = [i for i in (CLI, *COPIES) if not rows[i]["continues"]]  # the one the others continue
    for i in (CLI, *COPIES):
        r = rows[i]
        want = files if i == first else 0
        assert (r["changes"], r["changes_lines_unknown"], r["lines_added"], r["lines_removed"], r["changes_not_derived"]) \
            == (want, want, 0, 0, 0), (i, r)
    note = [ln for ln in _asz(home, run, "ls").stdout.splitlines() if ln.startswith("CHANGES with lines not known")]
    assert note and note[0].startswith(f"CHANGES with lines not known: {files} changed file(s) in 1 conversation(s) "
                                       f"({first[:8]})"), note
    for i in (CLI, *COPIES):  # the conversation's own summary says the same
        summary = json.loads(_asz(home, run, "conversation", i, "--json").stdout)["summary"]
        want = files if i == first else 0
        assert (summary["changes"], summary.get("changes_lines_unknown", 0)) == (want, want), (i, summary)
