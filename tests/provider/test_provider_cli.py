"""``asz collect`` runs the provider pass; ``asz provider enable|disable|status`` edit Claude Code's settings (issue 10)."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from asz_core.cli.main import app

from pb_capture import write_capture

runner = CliRunner()


def test_collect_lands_bodies_from_the_default_directory(tmp_path, monkeypatch):
    claude = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.chdir(tmp_path)
    write_capture(claude / "asz" / "provider-bodies", calls=3)
    (claude / "projects").mkdir(parents=True)
    r = runner.invoke(app, ["collect", "--once", "--root", str(tmp_path / "data"), "--no-parse"])
    assert r.exit_code == 0, r.output
    line = r.output.strip().splitlines()[-1]
    assert re.search(r" landed=1 records=10 ", line) and "bodies_waiting=2" in line and "bodies_unreadable" not in line
    assert (tmp_path / "data" / "_provider" / "seen.state").exists()
    r = runner.invoke(app, ["verify", "--root", str(tmp_path / "data")])
    assert r.exit_code == 0, r.output
    assert "checked 10 provider bodies: 10 rebuilt to their digest" in r.output


def test_a_chosen_adapter_or_source_never_reads_the_default_body_directory(tmp_path, monkeypatch):
    """Bodies hold whole system prompts: ``--adapter``/``--source`` mean only what they name is read."""
    claude = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    write_capture(claude / "asz" / "provider-bodies", calls=3)
    (tmp_path / "elsewhere").mkdir()
    for i, args in enumerate((["--adapter", "claude-code-local", "--source", str(tmp_path / "elsewhere")],
                              ["--source", str(tmp_path / "elsewhere")],
                              ["--adapter", "claude-code-local"])):
        (claude / "projects").mkdir(parents=True, exist_ok=True)
        root = tmp_path / f"data{i}"
        r = runner.invoke(app, ["collect", "--once", "--root", str(root), "--no-parse", *args])
        assert "bodies_" not in r.output and not (root / "_provider").exists(), (args, r.output)
        assert not list(root.rglob("provider_body-*.sd"))
    r = runner.invoke(app, ["collect", "--once", "--root", str(tmp_path / "named"), "--no-parse",
                            "--adapter", "claude-code-provider", "--source", str(claude / "asz" / "provider-bodies")])
    assert re.search(r" records=10 ", r.output) and "bodies_waiting=2" in r.output, r.output


def test_collect_without_a_body_directory_says_nothing_of_bodies(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    (tmp_path / "claude" / "projects").mkdir(parents=True)
    r = runner.invoke(app, ["collect", "--once", "--root", str(tmp_path / "data"), "--no-parse"])
    assert r.exit_code == 0, r.output
    assert "bodies_" not in r.output and not (tmp_path / "data" / "_provider").exists()


def test_enable_status_disable(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    settings = tmp_path / "settings.json"
    settings.write_text('{"model": "opus", "env": {"KEEP": "1"}}\n')
    r = runner.invoke(app, ["provider", "enable"])
    assert r.exit_code == 0, r.output
    env = json.loads(settings.read_text())["env"]
    assert env == {"KEEP": "1", "OTEL_LOG_RAW_API_BODIES": f"file:{tmp_path / 'asz' / 'provider-bodies'}"}
    assert "backup at" in r.output and (tmp_path / "asz" / "provider-bodies").is_dir()
    assert "unchanged" in runner.invoke(app, ["provider", "enable"]).output
    r = runner.invoke(app, ["provider", "status", "--json"])
    st = json.loads(r.output)
    assert st["exists"] and st["requests"] == 0 and st["directory"].endswith("provider-bodies")
    r = runner.invoke(app, ["provider", "disable"])
    assert r.exit_code == 0 and json.loads(settings.read_text()) == {"model": "opus", "env": {"KEEP": "1"}}
    assert "capture is off" in runner.invoke(app, ["provider", "status"]).output
