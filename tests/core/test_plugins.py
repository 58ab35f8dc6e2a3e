"""Adapter discovery through real entry points (issue 2: throwaway distributions, installed with pip)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import orjson
import pytest

from asz_core import Adapter, hookimpl
from asz_core.plugins import get_plugin_manager
from cli_helpers import pip_installed_plugins

GOOD = '''
from pathlib import Path

import typer

from asz_core import Adapter, Discovery, Setting, hookimpl


def _greeting(value):
    if not isinstance(value, str) or not value:
        raise ValueError(f"expected a non-empty string, got {value!r}")
    return value


class EchoAdapter(Adapter):
    """A throwaway adapter used by asz's own plugin tests."""
    name = "echo-test"
    version = "9.9.9"
    dialects = ("echo/1",)
    kinds = ("transcript",)
    greeting = "hello"

    def configure(self, entry):
        self.greeting = entry.options.get("greeting", "hello")

    def default_source_root(self, env=None):
        return Path("echo")

    def discover(self, source_root, *, include=(), exclude=()):
        return Discovery()

    def convert_line(self, source, line, ord, off):
        raise NotImplementedError

    def convert_document(self, source, data):
        raise NotImplementedError


@hookimpl
def asz_register_adapters():
    return [EchoAdapter]


@hookimpl
def asz_register_settings():
    return {"echo-test": [Setting("greeting", "hello", _greeting, "what echo-greet prints")]}


@hookimpl
def asz_register_commands(cli):
    @cli.command("echo-greet")
    def echo_greet(config: str = typer.Option(None, "--config")):
        """Print the greeting of the echo-test entry of asz.yaml."""
        from asz_core.config import load_config
        from asz_core.plugins import get_plugin_manager

        cfg = load_config(config)
        adapter = get_plugin_manager().get("echo-test")
        adapter.configure(cfg.adapter("echo-test"))
        typer.echo(adapter.greeting)
'''

BROKEN = '''
raise ImportError("this plugin is broken on purpose")
'''

#: A hook implementation whose name is no hook (``regster``).
MISSPELLED = '''
from asz_core import hookimpl

@hookimpl
def asz_regster_adapters():
    return []
'''

#: A second adapter named ``echo-test`` from another distribution.
DUPLICATE = GOOD.replace("version = \"9.9.9\"", "version = \"0.0.1\"").replace("@hookimpl\ndef asz_register_commands", "def _no_commands")

#: An adapter class that leaves out the required methods (Adapter is an abstract base class).
ABSTRACT = '''
from asz_core import Adapter, hookimpl

class HalfAdapter(Adapter):
    name = "half-test"
    dialects = ("half/1",)
    kinds = ("transcript",)

@hookimpl
def asz_register_adapters():
    return [HalfAdapter]
'''

#: A command hook that raises: its plugin is a failed row, every other command stays.
BAD_COMMANDS = '''
import os
import time

from asz_core import hookimpl

time.sleep(float(os.environ.get("ASZ_TEST_SLOW_IMPORT", "0")))  # a slow import, when a test asks for one

@hookimpl
def asz_register_commands(cli):
    raise RuntimeError("no commands today")
'''


DISTS = [
    ("asz-adapter-echo-test", "asz_adapter_echo_test", GOOD, "echo-test"),
    ("asz-adapter-broken-test", "asz_adapter_broken_test", BROKEN, "broken-test"),
    ("asz-adapter-typo-test", "asz_adapter_typo_test", MISSPELLED, "typo-test"),
    ("asz-adapter-echo-again", "asz_adapter_echo_again", DUPLICATE, "echo-again"),
    ("asz-adapter-half-test", "asz_adapter_half_test", ABSTRACT, "half-test"),
    ("asz-adapter-badcmd-test", "asz_adapter_badcmd_test", BAD_COMMANDS, "badcmd-test"),
]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """Install the throwaway distributions (one working, the others broken in one way each) with pip into a private target dir."""
    return pip_installed_plugins(tmp_path_factory.mktemp("dists"), DISTS)


def _asz(site: Path, *args: str, env_extra: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(site) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "asz_core.cli.entry", *args], capture_output=True, text=True, env=env, cwd=cwd)


def test_adapters_list_shows_installed_and_failed(site):
    proc = _asz(site, "adapters", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = {}
    for r in orjson.loads(proc.stdout):
        rows.setdefault(r["name"], []).append(r)
    # entry points load in distribution-name order: asz-adapter-echo-again keeps the name, echo-test's is a failed row
    [echo, again] = rows["echo-test"]
    assert echo["distribution"] == "asz-adapter-echo-again" and echo["version"] == "1.2.3"
    assert echo["dialects"] == ["echo/1"] and echo["kinds"] == ["transcript"] and echo["status"] == "ok"
    assert again["distribution"] == "asz-adapter-echo-test" and again["dialects"] == []
    assert again["status"] == ("failed: adapter name 'echo-test' is registered twice: by asz-adapter-echo-again (kept) "
                               "and by asz-adapter-echo-test")
    [broken] = rows["broken-test"]
    assert broken["status"].startswith("failed: ImportError: this plugin is broken on purpose")
    # where it raised: the last frame in the plugin's own files (trial 20: only the exception was said)
    assert broken["status"].endswith(f" (raised at {site / 'asz_adapter_broken_test.py'}:2)"), broken["status"]
    [typo] = rows["typo-test"]
    assert typo["status"].startswith("failed: asz_regster_adapters is no asz hook (hooks: asz_register_adapters, ")
    [half] = rows["half-test"]
    assert half["status"].startswith("failed: TypeError: Can't instantiate abstract class HalfAdapter")
    assert "convert_line" in half["status"] and "discover" in half["status"]
    # the built-in adapters are found through the same group, from asz's own distribution, and still work
    assert [r["status"] for r in rows["claude-code-local"]] == ["ok"]
    assert rows["claude-code-local"][0]["distribution"] == "asz"
    # the table form works too
    table = _asz(site, "adapters", "list")
    assert table.returncode == 0 and "echo-test" in table.stdout and "failed (below)" in table.stdout
    # each failed row's reason whole under the table, where it raised included (trial 43b F7: the column cut it)
    assert f"broken-test (asz-adapter-broken-test): {broken['status']}" in table.stdout.splitlines()


def test_a_failing_command_hook_is_a_row_and_other_commands_stay(site):
    proc = _asz(site, "--help")
    assert proc.returncode == 0, proc.stderr
    for name in ("echo-greet", "hook", "hooks", "provider", "ingest", "collect"):
        assert name in proc.stdout, name
    # adapters list builds the whole application, so the failing command hook shows as a row
    rows = [r for r in orjson.loads(_asz(site, "adapters", "list", "--json").stdout) if r["name"] == "badcmd-test"]
    assert [r["status"] for r in rows] == ["failed: asz_register_commands: RuntimeError: no commands today"]


def test_broken_plugins_never_break_another_command(site):
    proc = _asz(site, "glossary", "no-such/1")
    assert proc.returncode == 2
    assert "no installed adapter speaks dialect 'no-such/1'" in proc.stderr
    proc = _asz(site, "glossary", "claude-code/1")
    assert proc.returncode == 0 and "claude-code/1" in proc.stdout


def test_a_plugin_adds_a_command_and_its_own_config_keys(site, tmp_path):
    proc = _asz(site, "echo-greet")
    assert (proc.returncode, proc.stdout) == (0, "hello\n"), proc.stderr
    cfg = tmp_path / "asz.yaml"
    cfg.write_text("adapters:\n  - name: echo-test\n    greeting: good morning\n")
    proc = _asz(site, "echo-greet", "--config", str(cfg))
    assert (proc.returncode, proc.stdout) == (0, "good morning\n"), proc.stderr
    cfg.write_text("adapters:\n  - name: echo-test\n    greeting: ''\n")
    proc = _asz(site, "sources", "--config", str(cfg), "--root", str(tmp_path / "root"))
    assert proc.returncode == 2
    assert f"{cfg}: adapters[0].greeting: expected a non-empty string, got ''" in proc.stderr
    cfg.write_text("adapters:\n  - name: echo-test\n    greting: hi\n")
    proc = _asz(site, "sources", "--config", str(cfg), "--root", str(tmp_path / "root"))
    assert proc.returncode == 2
    assert f"{cfg}: adapters[0].greting: unknown key (known here: name, enabled, source_root, include, exclude, collector, greeting)" in proc.stderr


def test_disable_adapters_blocks_by_name(site):
    proc = _asz(site, "adapters", "list", "--json", env_extra={"ASZ_DISABLE_ADAPTERS": "echo-test, other"})
    rows = {r["name"]: r for r in orjson.loads(proc.stdout)}
    assert rows["echo-test"]["status"] == "blocked: ASZ_DISABLE_ADAPTERS"


class _A(Adapter):
    name = "dup"
    dialects = ("dup/1",)

    def default_source_root(self, env=None):
        return Path("dup")

    def discover(self, source_root, *, include=(), exclude=()):
        raise NotImplementedError

    def convert_line(self, source, line, ord, off):
        raise NotImplementedError

    def convert_document(self, source, data):
        raise NotImplementedError


def _plugin(modname: str, cls):
    mod = types.ModuleType(modname)

    @hookimpl
    def asz_register_adapters():
        return [cls]

    mod.asz_register_adapters = asz_register_adapters
    return mod


def test_duplicate_name_is_a_failed_row_naming_both():
    reg = get_plugin_manager(entrypoints=False, extra=[_plugin("first_mod", _A), _plugin("second_mod", _A)])
    first, second = reg.entries
    assert first.status == "ok" and reg.get("dup") is first.adapter
    assert second.status == "failed" and second.reason == "adapter name 'dup' is registered twice: by first_mod (kept) and by second_mod"


def test_misspelled_hook_is_a_failed_row():
    mod = types.ModuleType("typo_mod")

    @hookimpl
    def asz_regster_adapters():
        return []

    mod.asz_regster_adapters = asz_regster_adapters
    reg = get_plugin_manager(entrypoints=False, extra=[mod, _plugin("fine_mod", _A)])
    typo, fine = reg.entries
    assert typo.status == "failed" and typo.reason.startswith("asz_regster_adapters is no asz hook")
    assert fine.status == "ok"


def test_registering_a_non_adapter_is_listed_failed():
    reg = get_plugin_manager(entrypoints=False, extra=[_plugin("bad_mod", dict)])
    [row] = reg.entries
    assert row.status == "failed" and "not an asz_core.Adapter subclass" in row.reason
    with pytest.raises(KeyError, match="failed"):
        reg.get(row.name)


def test_os_errors_are_said_plainly(tmp_path):
    """``os_error_text`` / ``discovery_failure``: no class names for what is on disk; an adapter bug keeps its class."""
    from asz_core import os_error_text
    from asz_core.plugins.adapter import discovery_failure

    regular = tmp_path / "plain.txt"
    regular.write_text("x")
    for path, what, want in [(tmp_path / "missing", "directory", "no such directory"), (regular, "directory", "not a directory")]:
        with pytest.raises(OSError) as info:
            os.scandir(path)
        assert os_error_text(info.value, what) == want
    with pytest.raises(OSError) as info:
        open(tmp_path / "missing.jsonl", "rb")
    assert os_error_text(info.value) == "no such file"
    assert discovery_failure(info.value) == "discovery failed: no such file or directory"
    assert discovery_failure(KeyError("x")) == "discovery failed: KeyError: 'x'"


def test_an_entry_of_a_blocked_or_missing_adapter_keeps_its_keys_unchecked(site, tmp_path):
    """Trial 20: a blocked plugin's ``greeting:`` (or an uninstalled one's ``depth:``) stopped every command, exit 2."""
    root = tmp_path / "root"
    root.mkdir()
    cfg = tmp_path / "asz.yaml"
    cfg.write_text("adapters:\n  - name: claude-code-local\n  - name: echo-test\n    greeting: hi\n"
                   "  - name: not-installed\n    depth: 5\n")
    for env in ({"ASZ_DISABLE_ADAPTERS": "echo-test"}, {}):
        proc = _asz(site, "ls", "--config", str(cfg), "--root", str(root), env_extra=env)
        assert proc.returncode == 0, proc.stderr
        assert "unknown key" not in proc.stderr
    # a loaded adapter's keys are still checked, in the same file
    cfg.write_text("adapters:\n  - name: echo-test\n    greting: hi\n  - name: not-installed\n    depth: 5\n")
    proc = _asz(site, "ls", "--config", str(cfg), "--root", str(root))
    assert proc.returncode == 2
    assert f"{cfg}: adapters[0].greting: unknown key (known here: name, enabled, source_root, include, exclude, collector, greeting)" in proc.stderr
    cfg.write_text("adapters:\n  - name: not-installed\n    depth: 5\n")
    proc = _asz(site, "collect", "--once", "--config", str(cfg), "--root", str(root), "--adapter", "not-installed")
    assert proc.returncode == 2 and "no adapter named 'not-installed' is installed" in proc.stderr


def test_an_adapter_file_raising_on_import_names_its_file_and_line(tmp_path):
    bad = tmp_path / "bad_config.py"
    bad.write_text("import json\n\ndef settings():\n    raise ValueError('bad config')\n\nSETTINGS = settings()\n")
    proc = _asz(tmp_path, "collect", "--once", "--adapter-file", str(bad), "--root", str(tmp_path / "d"))
    assert proc.returncode == 2
    assert f"asz collect: --adapter-file {bad}: ValueError: bad config (raised at {bad}:4)" in proc.stderr


class _Evil(_A):
    name = "evil"
    dialects = ("evil/1", "claude-code/1")


def test_a_dialect_spoken_already_is_a_failed_row_and_the_first_keeps_it():
    """Trial 20: a plugin declaring ``claude-code/1`` was an ``ok`` row beside the built-in adapter, silently."""
    reg = get_plugin_manager(extra=[_plugin("evil_mod", _Evil)])
    rows = {e.name: e for e in reg.entries}
    assert rows["claude-code-local"].status == "ok" and rows["claude-code-local"].distribution == "asz"
    assert rows["evil"].status == "failed"
    assert rows["evil"].reason == "dialect 'claude-code/1' is spoken already by claude-code-local of asz (kept)"
    assert reg.by_dialect("claude-code/1") is rows["claude-code-local"].adapter
    assert "evil/1" not in reg.dialects()



def test_a_slow_plugin_is_told_once_naming_it_and_its_seconds(site):
    """Trial 20: a plugin sleeping 4 s at import taxed every reader that loads adapters, silently."""
    proc = _asz(site, "adapters", "list", env_extra={"ASZ_TEST_SLOW_IMPORT": "1.3"})
    assert proc.returncode == 0, proc.stderr
    notes = [ln for ln in proc.stderr.splitlines() if ln.startswith("note: loading adapter plugin")]
    assert len(notes) == 1, proc.stderr  # once a process, however often the command loads the plugins
    assert notes[0].startswith("note: loading adapter plugin badcmd-test (asz-adapter-badcmd-test) took 1.")
    assert notes[0].endswith(" s; commands that load the adapters wait for it (ASZ_DISABLE_ADAPTERS=badcmd-test skips it)")
    proc = _asz(site, "adapters", "list")
    assert "note: loading adapter plugin" not in proc.stderr


#: An ``--adapter-file`` whose adapter is named as an installed one, with its hook misspelt (trial 25a F5).
FILE_TYPO = GOOD.replace("@hookimpl\ndef asz_register_adapters", "@hookimpl\ndef asz_regster_adapters").replace(
    "@hookimpl\ndef asz_register_commands", "def _no_commands").replace("@hookimpl\ndef asz_register_settings", "def _no_settings")


@pytest.mark.parametrize("case", ["typo", "nothing", "taken"])
def test_an_adapter_file_that_loads_no_adapter_is_a_usage_error_naming_the_file(site, tmp_path, case):
    """Trial 25a F5: ``--adapter-file F`` with a misspelt hook was ignored, silently, and the installed adapter of the
    same name collected; a file registering nothing said nothing either. Each is exit 2 naming the file and the
    reason its row would say (docs/adapters.md, Loading), and nothing lands."""
    f = tmp_path / f"{case}.py"
    f.write_text({"typo": textwrap.dedent(FILE_TYPO),
                  "nothing": "from asz_core import hookimpl\n\n@hookimpl\ndef asz_register_adapters():\n    return []\n",
                  "taken": textwrap.dedent(GOOD).replace("@hookimpl\ndef asz_register_commands", "def _no_commands")
                  .replace("@hookimpl\ndef asz_register_settings", "def _no_settings")}[case])
    src, root = tmp_path / "echo", tmp_path / "root"
    src.mkdir()
    proc = _asz(site, "collect", "--once", "--adapter-file", str(f), "--adapter", "echo-test", "--source", str(src),
                "--root", str(root))
    assert proc.returncode == 2, proc.stderr
    said = {"typo": "asz_regster_adapters is no asz hook (hooks: asz_register_adapters, asz_register_commands, asz_register_settings)",
            "nothing": "registers no adapter",
            "taken": f"adapter name 'echo-test' is registered twice: by asz-adapter-echo-again (kept) and by {f}"}[case]
    assert f"asz collect: --adapter-file {f}: {said}\n" in proc.stderr
    assert not root.exists()
    proc = _asz(site, "sources", "--adapter-file", str(f), "--adapter", "echo-test", "--source", str(src), "--root", str(root))
    assert (proc.returncode, proc.stderr) == (2, f"asz sources: --adapter-file {f}: {said}\n")
