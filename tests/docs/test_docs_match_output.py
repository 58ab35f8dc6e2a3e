"""The docs say what the commands really print and create (a new user's findings).

Every check runs the real ``asz`` in a process of its own (forked from the pre-imported server), or builds a real storage
root from the Claude Code corpus; nothing is mocked.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import forked
import pytest

REPO = Path(__file__).resolve().parents[2]
ASZ = [sys.executable, "-m", "asz_core.cli.main"]
CORPUS = REPO.parent / "shared" / "corpus" / "claude-code" / "projects"


def asz(*args: str, cwd: Path, env: dict | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    """The real ``asz`` in a process of its own, never the machine's own Claude home: forked from the pre-imported
    server (tests/forked.py: its own pid, environment, working directory, stdin and exit status, without the
    interpreter's 0.4 s start-up)."""
    e = dict(os.environ, CLAUDE_CONFIG_DIR=str(cwd / "claude-home"), **(env or {}))
    return forked.run([*ASZ, *args], cwd=cwd, env=e, input=stdin, capture_output=True, text=True, timeout=120)


def page(name: str) -> str:
    return (REPO / name).read_text(encoding="utf-8")


def block_after(text: str, marker: str) -> list[str]:
    """The lines of the first fenced block after ``marker``."""
    rest = text[text.index(marker):]
    body = rest.split("```", 2)[1]
    return body.split("\n", 1)[1].rstrip("\n").splitlines()


def leaf_commands() -> list[tuple[str, ...]]:
    """Every visible command path without subcommands, as ``gen_cli_docs.walk`` finds them."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen_cli_docs", REPO / "scripts" / "gen_cli_docs.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return [p for p, c in gen.walk(gen.root_command()) if len(p) > 1 and not getattr(c, "commands", None)]


def test_readme_command_table_names_every_command() -> None:
    table = [ln for ln in page("README.md").split("## Commands", 1)[1].splitlines() if ln.startswith("| `asz")]
    for path in leaf_commands():
        group, leaf = " ".join(path[:-1]), path[-1]
        rows = [r for r in table if f"`{' '.join(path)}" in r or (f"`{group} " in r and re.search(rf"\b{leaf}\b", re.split(r"(?<!\\)\|", r)[1]))]
        assert rows, f"README's command table lacks {' '.join(path)}"


def test_readme_names_the_exit_code_exceptions(tmp_path: Path) -> None:
    text = page("README.md")
    assert "`asz hook` always\nexits 0" in text or "`asz hook` always exits 0" in text
    got = asz("hook", cwd=tmp_path, env={"ASZ_HOOK_DATA": str(tmp_path / "hook")}, stdin="not json")
    assert got.returncode == 0 and got.stdout == ""


def test_glossary_json_help_names_the_keys_it_prints(tmp_path: Path) -> None:
    from asz_core.cli.adapters_cmd import glossary
    import inspect

    help_text = inspect.signature(glossary).parameters["as_json"].default.help
    every = json.loads(asz("glossary", "--json", cwd=tmp_path).stdout)
    one = json.loads(asz("glossary", "claude-code/1", "--json", cwd=tmp_path).stdout)
    assert help_text.startswith("Print JSON: {" + ", ".join(k for k in every if k != "glossaries") + ", glossaries: [{"
                                + ", ".join(every["glossaries"][0]) + "}")
    assert help_text.endswith("with DIALECT, {" + ", ".join(one) + "}.")


def test_scenario_build_says_its_options_are_required(tmp_path: Path) -> None:
    got = asz("scenario", "build", "--help", cwd=tmp_path)
    assert "scenario build --format FORMAT --out DIR [OPTIONS]" in " ".join(got.stdout.split())
    cli = page("docs/cli.md")
    assert "| `--format` | str | required |" in cli and "| `--out` | path | required |" in cli
    assert asz("scenario", "build", "x.yaml", cwd=tmp_path).returncode == 2


def test_configuration_error_example_is_real_output(tmp_path: Path) -> None:
    """docs/configuration.md's example, with its /home/me/work replaced by a real working directory."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "asz.yaml").write_text("adapters:\n  - name: claude-code-local\n    colector: {}\n")
    shown = block_after(page("docs/configuration.md"), "For a misspelt `collector`")
    got = [asz("collect", "--once", cwd=work), asz("verify", cwd=work)]
    assert [g.returncode for g in got] == [2, 2]
    assert [g.stderr.rstrip("\n") for g in got] == [line.replace("/home/me/work", str(work)) for line in shown]


def test_storage_root_layout_names_what_a_real_root_holds(tmp_path: Path) -> None:
    """Collect the corpus and parse it; every name the root holds (sessions' streams and runs aside) is on the page."""
    if not CORPUS.is_dir():
        pytest.skip(f"{CORPUS} is absent")
    root = tmp_path / "root"
    got = asz("collect", "--once", "--source", str(CORPUS), "--root", str(root), cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    assert asz("parse", "--root", str(root), cwd=tmp_path).returncode == 0
    layout = "\n".join(block_after(page("docs/storage-root.md"), "## Layout"))
    names = set()
    for p in root.rglob("*"):
        rel = p.relative_to(root).parts
        if len(rel) > 1 and rel[1] in ("streams", "runs", "provider_body"):
            continue
        names.add(p.name if not re.fullmatch(r"[0-9a-f-]{36}", p.name) else "")
    names.discard("")
    names = {re.sub(r"^r\d{6}-[0-9a-f]{12}\.sf$", "rounds", n) for n in names}
    assert {"_conversations", "index", "entries.jsonl", "index.state", "conversation.state"} <= names
    missing = sorted(n for n in names if n not in layout)
    assert missing == []
    from asz_adapters_langchain.inbox import INGEST
    from asz_core.collect.provider_bodies import PROVIDER_DIR, TABLE

    for name in (f"{PROVIDER_DIR}/", TABLE, f"{INGEST.as_posix()}/"):
        assert name in layout, name
