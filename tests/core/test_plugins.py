"""Adapter discovery through real entry points (issue 2: throwaway distributions, installed with pip)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import orjson
import pluggy
import pytest

from asz_core import Adapter, hookimpl
from asz_core.plugins import DuplicateAdapterError, get_plugin_manager

GOOD = '''
from asz_core import Adapter, hookimpl

class EchoAdapter(Adapter):
    """A throwaway adapter used by asz's own plugin tests."""
    name = "echo-test"
    version = "9.9.9"
    dialects = ("echo/1",)
    kinds = ("transcript",)

@hookimpl
def asz_register_adapters():
    return [EchoAdapter]
'''

BROKEN = '''
raise ImportError("this plugin is broken on purpose")
'''


def _make_dist(base: Path, name: str, module: str, source: str, ep_name: str) -> Path:
    pkg = base / name
    pkg.mkdir()
    (pkg / f"{module}.py").write_text(textwrap.dedent(source))
    (pkg / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""
            [build-system]
            requires = ["setuptools>=61"]
            build-backend = "setuptools.build_meta"
            [project]
            name = "{name}"
            version = "1.2.3"
            [project.entry-points.asz]
            {ep_name} = "{module}"
            [tool.setuptools]
            py-modules = ["{module}"]
            """
        )
    )
    return pkg


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """Install two throwaway distributions (one working, one broken) with pip into a private target dir."""
    base = tmp_path_factory.mktemp("dists")
    target = base / "site"
    good = _make_dist(base, "asz-adapter-echo-test", "asz_adapter_echo_test", GOOD, "echo-test")
    broken = _make_dist(base, "asz-adapter-broken-test", "asz_adapter_broken_test", BROKEN, "broken-test")
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index", "--target", str(target), str(good), str(broken)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"pip install of the throwaway distributions failed: {proc.stderr}")
    return target


def _asz(site: Path, *args: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(site) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "asz_core.cli.main", *args], capture_output=True, text=True, env=env)


def test_adapters_list_shows_installed_and_failed(site):
    proc = _asz(site, "adapters", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = {r["name"]: r for r in orjson.loads(proc.stdout)}
    echo = rows["echo-test"]
    assert echo["distribution"] == "asz-adapter-echo-test" and echo["version"] == "1.2.3"
    assert echo["dialects"] == ["echo/1"] and echo["kinds"] == ["transcript"] and echo["status"] == "ok"
    broken = rows["broken-test"]
    assert broken["status"].startswith("failed: ImportError: this plugin is broken on purpose")
    # the built-in adapter is found through the same group, from asz's own distribution
    assert rows["claude-code-local"]["distribution"] == "asz"
    # the table form works too
    table = _asz(site, "adapters", "list")
    assert table.returncode == 0 and "echo-test" in table.stdout and "failed" in table.stdout


def test_disable_adapters_blocks_by_name(site):
    proc = _asz(site, "adapters", "list", "--json", env_extra={"ASZ_DISABLE_ADAPTERS": "echo-test, other"})
    rows = {r["name"]: r for r in orjson.loads(proc.stdout)}
    assert rows["echo-test"]["status"] == "blocked: ASZ_DISABLE_ADAPTERS"


def test_broken_plugin_never_breaks_another_command(site):
    proc = _asz(site, "glossary", "no-such/1")
    assert proc.returncode == 2
    assert "no installed adapter speaks dialect 'no-such/1'" in proc.stderr


class _A(Adapter):
    name = "dup"
    dialects = ("dup/1",)


def _plugin(modname: str, cls):
    mod = types.ModuleType(modname)

    @hookimpl
    def asz_register_adapters():
        return [cls]

    mod.asz_register_adapters = asz_register_adapters
    return mod


def test_duplicate_name_is_an_error_naming_both():
    with pytest.raises(DuplicateAdapterError, match="first_mod.*second_mod"):
        get_plugin_manager(entrypoints=False, extra=[_plugin("first_mod", _A), _plugin("second_mod", _A)])


def test_misspelled_hook_fails_loudly():
    mod = types.ModuleType("typo_mod")

    @hookimpl
    def asz_regster_adapters():
        return []

    mod.asz_regster_adapters = asz_regster_adapters
    with pytest.raises(pluggy.PluginValidationError, match="asz_regster_adapters"):
        get_plugin_manager(entrypoints=False, extra=[mod])


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
