"""Every Claude Code adapter and command takes its folders from one list (``asz_adapters_claude.roots.config_dirs``):
the transcripts' ``projects``, the observers' ``plugins/data``, the provider bodies' ``asz/provider-bodies`` and the
user settings file. Session 18 left the provider-body adapter reading one folder, and a comma-separated
``CLAUDE_CONFIG_DIR`` (ccusage's form, read by asz) gave the observer and the provider the folder ``"c1, c2/…"``, which
is no folder. Real folder layouts in tmp dirs: HOME and CLAUDE_CONFIG_DIR are set for each call, never the machine's
~/.claude."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from asz_adapters_claude.hooks_settings import settings_path
from asz_adapters_claude.observer_adapter import ClaudeCodeObserver
from asz_adapters_claude.plugin import ClaudeCodeLocal
from asz_adapters_claude.provider import ClaudeCodeProvider
from cli_helpers import asz_in_process
from pb_capture import write_capture

SAMPLES = Path(__file__).resolve().parent.parent / "observer" / "samples"
ADAPTERS = ((ClaudeCodeLocal(), "projects"), (ClaudeCodeObserver(), "plugins/data"),
            (ClaudeCodeProvider(), "asz/provider-bodies"))


def test_a_comma_separated_claude_config_dir_gives_every_adapter_real_folders(tmp_path):
    c1, c2 = tmp_path / "c1", tmp_path / "c2"
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": f"{c1}, {c2}"}
    for a, sub in ADAPTERS:  # nothing exists: the first entry's folder (before: "c1, c2/plugins/data" for two of them)
        assert (a.default_source_root(env), a.unread_default_sources(env)) == (c1 / sub, []), a.name
    assert settings_path("user", env) == c1 / "settings.json"  # Claude Code reads the variable as one path: the first
    shutil.copytree(SAMPLES, c2 / "plugins" / "data")
    write_capture(c2 / "asz" / "provider-bodies", calls=2)
    (c2 / "projects" / "-p").mkdir(parents=True)
    (c2 / "projects" / "-p" / "9a91c2d4-0000-4000-8000-000000000001.jsonl").write_bytes(b"{}\n")
    for a, sub in ADAPTERS:  # the only entry holding each: it is the default, as for the transcripts
        assert (a.default_source_root(env), a.unread_default_sources(env)) == (c2 / sub, []), a.name
    for a, sub in ADAPTERS:
        (c1 / sub).mkdir(parents=True, exist_ok=True)  # the first entry's, empty: first again, c2's read after it
        assert a.default_source_roots(env) == [c1 / sub, c2 / sub], a.name
    assert settings_path("user", env) == c1 / "settings.json"


def test_bodies_in_two_configuration_folders_are_both_collected(tmp_path):
    """~/.claude/asz/provider-bodies and ~/.config/claude/asz/provider-bodies each hold one capture (two sessions):
    a plain ``asz collect`` lands both (it read the default folder only), and ``asz verify`` rebuilds every body."""
    home = tmp_path / "home"
    one = write_capture(home / ".claude" / "asz" / "provider-bodies", calls=3)
    two = write_capture(home / ".config" / "claude" / "asz" / "provider-bodies", calls=2, seed=2,
                        session="9a91c2d4-0000-4000-8000-000000000002")
    (home / ".claude" / "projects").mkdir(parents=True)
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": None, "XDG_CONFIG_HOME": None, "KIRO_HOME": str(tmp_path / "no")}
    p = asz_in_process("collect", "--once", "--no-parse", "--root", str(tmp_path / "data"), cwd=tmp_path, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    line = p.stdout.strip().splitlines()[-1]
    bodies = len(one) + len(two)
    waiting = 4  # two responses of each capture's subagent chain wait for their session (as with one folder)
    assert re.search(rf" landed=2 records={bodies - waiting} ", line) and f"bodies_waiting={waiting}" in line, line
    assert {p.name for p in (tmp_path / "data").glob("*-0000-4000-8000-*")} == {
        "9a91c2d4-0000-4000-8000-000000000001", "9a91c2d4-0000-4000-8000-000000000002"}
    v = asz_in_process("verify", "--root", str(tmp_path / "data"), cwd=tmp_path, env=env)
    assert v.returncode == 0 and f"checked {bodies - waiting} provider bodies: {bodies - waiting} rebuilt" in v.stdout, v.stdout
