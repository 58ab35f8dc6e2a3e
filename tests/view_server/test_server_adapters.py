"""``asz server --adapter A --adapter B`` collects both, as ``asz collect`` does (trial 21: only the last was kept,
silently, so a server started with the collect flags that worked never followed the Claude Code sessions)."""

from __future__ import annotations

import time

from view_server_helpers import EXAMPLE_SESSION, Served, copy_example, counted_rows


def test_a_repeated_adapter_flag_collects_each(tmp_path):
    claude, kiro, work = tmp_path / "claude-home", tmp_path / "kiro-home", tmp_path / "work"
    copy_example(claude / "projects")
    kiro.mkdir()
    work.mkdir()
    env = {"CLAUDE_CONFIG_DIR": str(claude), "KIRO_HOME": str(kiro), "HOME": str(tmp_path / "home")}
    served = Served(["server", "--root", str(tmp_path / "root"), "--interval", "1h",
                     "--adapter", "claude-code-local", "--adapter", "kiro"], work, env=env)
    try:
        deadline = time.monotonic() + 120
        while not (status := served.get("/api/status").json()).get("last_pass"):
            assert time.monotonic() < deadline, served.output()
            time.sleep(0.2)
        out = served.output()
        assert "source   : claude-code-local from " in out and "source   : kiro from " in out, out
        assert status["last_pass"]["sessions"] == 1 and status["last_pass"]["errors"] == 0, (status, out)
        assert [r["id"] for r in counted_rows(served)] == [EXAMPLE_SESSION], out
    finally:
        served.stop()
