"""The docs cannot drift from the code.

* ``docs/cli.md`` is exactly what ``scripts/gen_cli_docs.py`` writes from the
  CLI now (regenerate with ``python scripts/gen_cli_docs.py``).
* Every ``asz …`` command in a fenced ``sh`` block of README.md and docs/ is
  run, in page order (a plain line in this process through the console
  script's dispatch, a line that needs the shell with bash), from a
  temporary copy of the repository's ``examples/`` with ``CLAUDE_CONFIG_DIR`` pointing at a temporary copy of the example
  projects and ``./data`` already collected from them. It must exit 0, or the
  code a trailing ``# exit N`` / ``# exits N`` comment states. A line whose
  trailing comment starts with ``not run:`` is skipped; only commands that
  serve or watch until stopped may carry it, and each of those must.
* Every configuration key ``docs/configuration.md`` lists is one the loader
  accepts, and every key the loader accepts is listed; the page's full YAML
  example loads and equals the built-in defaults.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from cli_helpers import asz_in_process

REPO = Path(__file__).resolve().parents[2]
DOC_FILES = sorted([REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))])
#: How long one documented command may take.
COMMAND_TIMEOUT = 60
#: Commands that serve or watch until they are stopped: exactly these carry ``# not run: <reason>``.
LONG_RUNNING = re.compile(r"^asz (view|server|receive|ingest langsmith)\b|^asz collect\b(?!.*--once)")


# ---------------------------------------------------------------------------------------------- helpers


def load_generator():
    """The module ``scripts/gen_cli_docs.py``, imported from its path."""
    spec = importlib.util.spec_from_file_location("gen_cli_docs", REPO / "scripts" / "gen_cli_docs.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def split_comment(line: str) -> tuple[str, str]:
    """``(command, comment)``: the trailing ``# …`` comment of a shell line (outside quotes) taken off."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def split_and(command: str) -> list[str]:
    """The commands of a shell line joined by ``&&`` (outside quotes), each stripped."""
    parts, quote, start, i = [], "", 0, 0
    while i < len(command):
        ch = command[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif command.startswith("&&", i):
            parts.append(command[start:i].strip())
            start = i + 2
            i += 1
        i += 1
    parts.append(command[start:].strip())
    return [p for p in parts if p]


def sh_lines(path: Path) -> list[tuple[int, str]]:
    """``(line number, text)`` of every line inside a fenced ```` ```sh ```` block of ``path``, continuations joined."""
    out: list[tuple[int, str]] = []
    inside = False
    pending, pending_no = "", 0
    for no, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        stripped = raw.strip()
        if stripped.startswith("```"):
            inside = (not inside) and stripped[3:].strip() == "sh"
            continue
        if not inside:
            continue
        if pending:
            raw = pending + " " + stripped
            no = pending_no
        if raw.rstrip().endswith("\\"):
            pending, pending_no = raw.rstrip()[:-1].rstrip(), no
            continue
        pending = ""
        if raw.strip():
            out.append((no, raw.strip()))
    return out


def documented_commands(path: Path) -> list[dict]:
    """Every ``asz`` command of the ``sh`` blocks of ``path``: line, command, expected exit code, skip reason."""
    found = []
    for no, line in sh_lines(path):
        command, comment = split_comment(line)
        skip = comment[len("not run:"):].strip() if comment.startswith("not run:") else None
        m = re.match(r"exits?\s+(\d+)\b", comment)
        expect = int(m.group(1)) if m else 0
        segments = [s for s in split_and(command) if s.startswith("asz ") or s == "asz"]
        for i, seg in enumerate(segments):
            found.append({
                "where": f"{path.relative_to(REPO)}:{no}",
                "command": seg,
                "expect": expect if i == len(segments) - 1 else 0,
                "skip": skip,
            })
    return found


#: What only a shell gives a command line: redirects, pipes, globs, variables, command lists.
SHELL_SYNTAX = re.compile(r"[<>|*?$;&`(){}\[\]~\\]")
#: Commands that run in a child even when the line is plain (gRPC must not start in the test process).
CHILD_COMMANDS = ("push", "receive")


def run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run one documented command in ``cwd`` with exactly the environment ``env``.

    A plain ``asz …`` line (no shell syntax but quotes) runs in this process,
    through the console script's own dispatch (tests/cli_helpers.py); a line
    that needs the shell, and a push, runs with bash and the ``asz`` on
    ``env``'s PATH."""
    words = shlex.split(command) if not SHELL_SYNTAX.search(command) else []
    if words[:1] != ["asz"] or words[1:2] == [] or words[1] in CHILD_COMMANDS:
        return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT)
    changes: dict[str, str | None] = {k: None for k in os.environ if k not in env}
    changes.update({k: v for k, v in env.items() if os.environ.get(k) != v})
    return asz_in_process(*words[1:], cwd=cwd, env=changes)


# ---------------------------------------------------------------------------------------------- (a) cli.md


def test_cli_reference_is_generated_from_the_cli() -> None:
    """docs/cli.md equals what scripts/gen_cli_docs.py produces from the CLI now."""
    gen = load_generator()
    on_disk = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    assert on_disk == gen.render(), "docs/cli.md is stale: run `python scripts/gen_cli_docs.py` and commit docs/cli.md"


def test_cli_reference_names_every_command_and_option() -> None:
    """Every command path and every option name of the CLI appears in docs/cli.md."""
    gen = load_generator()
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    for path, command in gen.walk(gen.root_command()):
        assert f"`{' '.join(path)}`" in text, path
        for p in command.params:
            for opt in getattr(p, "opts", []):
                if opt.startswith("-"):
                    assert f"`{opt}`" in text, (path, opt)


# ---------------------------------------------------------------------------------------------- (b) commands


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A directory holding a copy of ``examples/``, a Claude config dir whose ``projects`` is the example, a home,
    and ``./data`` collected from the example; with the environment the documented commands run in."""
    base = tmp_path_factory.mktemp("docs-workspace")
    shutil.copytree(REPO / "examples", base / "examples")
    claude = base / "claude-config"
    shutil.copytree(REPO / "examples" / "claude-code" / "projects", claude / "projects")
    (base / "home").mkdir()
    bindir = base / "bin"
    bindir.mkdir()
    shim = bindir / "asz"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m asz_core.cli.entry "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASZ_", "CLAUDE_", "XDG_", "KIRO_", "CODEX_"))}
    env.update(PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}", HOME=str(base / "home"), CLAUDE_CONFIG_DIR=str(claude))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    r = run("asz collect --once --source examples/claude-code/projects --root ./data", base, env)
    assert r.returncode == 0, r.stdout + r.stderr
    return base, env


@pytest.mark.parametrize("doc", [p for p in DOC_FILES if documented_commands(p)], ids=lambda p: str(p.relative_to(REPO)))
def test_documented_commands_run(doc: Path, workspace, tmp_path: Path) -> None:
    """Every asz command in the page's sh blocks exits as the page says, run in page order against the example."""
    commands = documented_commands(doc)
    base, env = workspace
    cwd = tmp_path / "work"
    shutil.copytree(base, cwd, symlinks=True)
    env = {**env, "HOME": str(cwd / "home"), "CLAUDE_CONFIG_DIR": str(cwd / "claude-config")}
    env["PATH"] = env["PATH"].replace(str(base / "bin"), str(cwd / "bin"), 1)
    failures = []
    for c in commands:
        long_running = bool(LONG_RUNNING.search(c["command"]))
        if c["skip"] is not None:
            assert c["skip"], f"{c['where']}: `# not run:` needs a reason"
            assert long_running, f"{c['where']}: only a command that serves or watches until stopped may be left unrun: {c['command']}"
            continue
        assert not long_running, f"{c['where']}: {c['command']!r} runs until stopped; end its line with `# not run: <reason>`"
        r = run(c["command"], cwd, env)
        if r.returncode != c["expect"]:
            failures.append(f"{c['where']}: `{c['command']}` exited {r.returncode}, the page says {c['expect']}\n"
                            f"stdout:\n{r.stdout[-2000:]}\nstderr:\n{r.stderr[-2000:]}")
    assert not failures, "\n\n".join(failures)


def test_the_pages_show_commands() -> None:
    """The parser finds the commands the README shows (so the test above cannot pass by finding none)."""
    readme = documented_commands(REPO / "README.md")
    assert any(c["command"].startswith("asz collect --once") and c["skip"] is None for c in readme)
    assert any(c["command"].startswith("asz view") and c["skip"] for c in readme)
    total = sum(len(documented_commands(p)) for p in DOC_FILES)
    assert total >= 15, total


def test_comment_and_chain_parsing() -> None:
    """Comments inside quotes stay; ``&&`` splits; ``# exit N`` sets the last command's expected code."""
    assert split_comment("asz x '#no' # exit 1") == ("asz x '#no'", "exit 1")
    assert split_comment("asz view --port 1#2") == ("asz view --port 1#2", "")
    assert split_and("asz a && asz 'b && c' && pip x") == ["asz a", "asz 'b && c'", "pip x"]


# ---------------------------------------------------------------------------------------------- (c) configuration


def loader_keys() -> set[str]:
    """Every key path the configuration loader accepts, found by asking it.

    At each mapping the loader names the keys it knows when it meets an
    unknown one; a key whose value the loader walks into as a mapping (or a
    list of mappings, written ``key[]``) is explored the same way. An entry of
    ``adapters`` needs its ``name`` before the loader looks deeper.
    """
    from asz_core.config import ConfigError, parse_config

    probe = "__probe__"
    required = {"adapters[]": {"name": "claude-code-local"}}  # a loaded adapter: a not-loaded one's keys go unchecked

    def build(path: list[str], leaf: object) -> object:
        """A configuration whose value at ``path`` is ``leaf`` (``key[]`` makes a one-entry list)."""
        value = leaf
        for i in range(len(path) - 1, -1, -1):
            key = path[i]
            if key.endswith("[]"):
                item = dict(required.get(".".join(path[: i + 1]), {}))
                if isinstance(value, dict):
                    item.update(value)
                value = {key[:-2]: [item]}
            else:
                value = {key: value}
        return value

    def known(path: list[str]) -> list[str] | None:
        """The keys the loader knows in the mapping at ``path``, or None when it is not a mapping."""
        shown = ".".join(path).replace("[]", "[0]")
        try:
            parse_config(build(path, {probe: 1}) if path else {probe: 1})
        except ConfigError as exc:
            where = exc.where.split(": ", 1)[1] if ": " in exc.where else ""
            if where == (f"{shown}.{probe}" if shown else probe):
                m = re.search(r"known here: (.*)\)$", exc.message)
                return [k.strip() for k in m.group(1).split(",")] if m else None
        return None

    found: set[str] = set()

    def explore(path: list[str]) -> None:
        """Add every key below ``path`` to ``found``."""
        for key in known(path) or []:
            child = path + [key]
            if known(child) is not None:
                found.add(".".join(child))
                explore(child)
            elif known(path + [key + "[]"]) is not None:
                found.add(".".join(child))
                explore(path + [key + "[]"])
            else:
                found.add(".".join(child))

    explore([])
    return found


def documented_keys() -> set[str]:
    """The keys of the Keys table of docs/configuration.md (first column, in backticks)."""
    text = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    section = text.split("## Keys", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([^`]+)` \|", section, re.MULTILINE))


def test_configuration_keys_match_the_loader() -> None:
    """Every documented key is accepted by the loader and every accepted key is documented."""
    accepted = loader_keys()
    assert {"storage.root", "adapters[].collector.max_delta_bytes", "view.hide_override"} <= accepted, accepted
    documented = documented_keys()
    assert not documented - accepted, f"documented but refused by the loader: {sorted(documented - accepted)}"
    assert not accepted - documented, f"accepted by the loader but not in docs/configuration.md: {sorted(accepted - documented)}"


def test_adapter_keys_match_the_installed_plugins() -> None:
    """The table of an adapter's own keys lists exactly what the installed plugins declare (asz_register_settings)."""
    from asz_core.plugins import get_plugin_manager

    text = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    section = text.split("## An adapter's own keys", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `([^`]+)` \| `([^`]+)` \|", section, re.MULTILINE))
    declared = {(name, s.key) for name, keys in get_plugin_manager().settings.items() for s in keys}
    assert documented == declared


def test_configuration_example_is_the_defaults() -> None:
    """The page's full YAML example loads and equals the built-in defaults."""
    from asz_core.config import Config, parse_config

    text = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(.*?)```", text, re.DOTALL)
    assert block, "docs/configuration.md has no yaml block"
    cfg = parse_config(yaml.safe_load(block.group(1)), "docs/configuration.md")
    assert cfg == Config(), "the example in docs/configuration.md differs from the defaults in asz_core/config.py"


def test_readme_says_how_often_collect_watches() -> None:
    """Trial 36b F3: the README said ``asz collect`` "keeps watching", which reads as a file watcher, while it runs one
    pass every ``collector.interval`` (10 minutes by default: :data:`asz_core.config.DEFAULT_INTERVAL`). The README's
    watch line and its commands table say the interval and ``--interval``, and name ``asz server`` as the one that
    follows files live."""
    from asz_core.config import DEFAULT_INTERVAL

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    minutes = f"every {DEFAULT_INTERVAL / 60:.0f} minutes"
    watch = next(c for c in documented_commands(REPO / "README.md") if c["command"].strip() == "asz collect")
    assert minutes in watch["skip"] and "--interval" in watch["skip"], watch
    assert any(c["command"].strip() == "asz server" and "follow" in c["skip"] for c in documented_commands(REPO / "README.md"))
    row = next(x for x in readme.splitlines() if x.startswith("| `asz collect [--once]"))
    assert f"{DEFAULT_INTERVAL / 60:.0f} minutes" in row and "--interval" in row and "asz server" in row, row
    assert "keeps watching" not in readme
