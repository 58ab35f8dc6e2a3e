"""One broken or uninstalled plugin listed in asz.yaml stops no other adapter's collection (trial 35a F2).

docs/adapters.md (Loading): a plugin's problem "never stops another plugin or command"; docs/configuration.md: the
listed adapter that is not loaded is an ``error:`` line naming it and why, the others are collected, ``collect --once``
exits 1; exit 2 stays for when nothing could run. Before, ``asz collect`` said ``adapter 'forge' is failed: …`` or
``no adapter named 'forge' is installed`` and exited 2 with nothing landed.
"""

from __future__ import annotations

import os
import subprocess
import sys

import orjson

from cli_helpers import pip_installed_plugins
from collect_helpers import ADAPTER_FILE, REPO, append, asz, landed, line, source_lines, summary

YAML = ("storage: {root: ./d}\nadapters:\n  - name: mini-jsonl\n    source_root: ./src\n"
        "  - name: %s\n    source_root: ./elsewhere\n")

BROKEN = '''
import nosuch_missing_dependency  # not installed: the plugin fails on import

from asz_core import hookimpl


@hookimpl
def asz_register_adapters():
    return []
'''


def test_an_uninstalled_adapter_listed_is_said_and_the_others_collected(tmp_path):
    src = tmp_path / "src" / "s1" / "main.jsonl"
    append(src, line(0), line(1))
    (tmp_path / "asz.yaml").write_text(YAML % "nosuch")
    p = asz("collect", "--once", "--adapter-file", str(ADAPTER_FILE), cwd=tmp_path)
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert (summary(p.stdout)["landed"], summary(p.stdout)["records"], summary(p.stdout)["errors"]) == ("1", "2", "0")
    assert landed(tmp_path / "d", "s1") == source_lines(src)
    assert (f"error: adapter 'nosuch' of {tmp_path / 'asz.yaml'} is not collected: no adapter named 'nosuch' is "
            "installed; the other adapters are (see asz adapters list)") in p.stderr.splitlines()
    q = asz("sources", "--json", "--adapter-file", str(ADAPTER_FILE), cwd=tmp_path)
    assert q.returncode == 1, q.stderr
    assert [a["adapter"] for a in orjson.loads(q.stdout)["adapters"]] == ["mini-jsonl"]
    assert "adapter 'nosuch' of" in q.stderr


def test_nothing_left_to_run_or_the_broken_one_named_is_exit_2(tmp_path):
    (tmp_path / "asz.yaml").write_text("storage: {root: ./d}\nadapters:\n  - name: nosuch\n    source_root: ./x\n")
    p = asz("collect", "--once", cwd=tmp_path)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "asz collect: adapter 'nosuch' of" in p.stderr and "no adapter named 'nosuch' is installed" in p.stderr
    assert not (tmp_path / "d").exists()
    (tmp_path / "asz.yaml").write_text(YAML % "nosuch")
    p = asz("collect", "--once", "--adapter", "nosuch", "--adapter-file", str(ADAPTER_FILE), cwd=tmp_path)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "asz collect: no adapter named 'nosuch' is installed (see asz adapters list)" in p.stderr


def test_a_plugin_that_fails_on_import_stops_no_other_adapter(tmp_path):
    site = pip_installed_plugins(tmp_path, [("asz-adapter-nosuch-broken", "asz_adapter_nosuch_broken", BROKEN, "nosuch")])
    src = tmp_path / "src" / "s1" / "main.jsonl"
    append(src, line(0), line(1), line(2))
    (tmp_path / "asz.yaml").write_text(YAML % "nosuch")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(REPO), os.environ.get("PYTHONPATH", "")]),
               CLAUDE_CONFIG_DIR="/nonexistent-claude-home")
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--adapter-file", str(ADAPTER_FILE)],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert summary(p.stdout)["records"] == "3"
    assert landed(tmp_path / "d", "s1") == source_lines(src)
    said = [ln for ln in p.stderr.splitlines() if ln.startswith("error: adapter 'nosuch'")]
    assert len(said) == 1, p.stderr
    assert "is not collected: adapter 'nosuch' is failed: ModuleNotFoundError: No module named 'nosuch_missing_dependency'" \
        in said[0] and said[0].endswith("; the other adapters are (see asz adapters list)")
