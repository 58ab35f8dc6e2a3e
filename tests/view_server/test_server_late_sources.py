"""Sources that appear while ``asz server`` and a watching ``asz collect`` run are collected, no restart
(trial 42c F1; asz_core/cli/late_sources.py).

Both start with Claude Code sessions and no hook data; then the real ``asz hook`` records MCP calls under the
observers' default folder (``<config dir>/plugins/data/<data>``), as a Claude Code hook would (each hook and the
watching collect a real process forked from tests/forked.py's pre-imported server, not a fresh interpreter). The server says once
``now collecting: changes from …/plugins/data``, follows one folder more, and its passes land every record the hook
wrote (counted from the files), then those it writes later; the watching collector does the same at its next
interval.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import forked
import pytest

from view_server_helpers import EXAMPLE_SESSION, Served, copy_example

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::ResourceWarning")]  # two real commands waiting for passes
GENEROUS = 90.0


def _homes(tmp_path: Path) -> tuple[dict, Path]:
    claude = tmp_path / "claude-home"
    copy_example(claude / "projects")
    (tmp_path / "kiro-home").mkdir()
    (tmp_path / "home").mkdir()
    (tmp_path / "work").mkdir()
    env = {"CLAUDE_CONFIG_DIR": str(claude), "KIRO_HOME": str(tmp_path / "kiro-home"), "HOME": str(tmp_path / "home")}
    return env, claude / "plugins" / "data"


def _hook_records(data: Path, env: dict) -> int:
    """The real ``asz hook`` records three MCP calls of the example session under ``data/asz``; the lines of every
    record file there."""
    for n in range(3):
        for event in ("PreToolUse", "PostToolUse"):
            ev = {"hook_event_name": event, "tool_name": "mcp__probe__echo", "session_id": EXAMPLE_SESSION,
                  "tool_use_id": f"toolu_{n}", "tool_input": {"n": n}, "cwd": "/home/dev/hello-app"}
            if event == "PostToolUse":
                ev["tool_response"] = {"ok": n}
            p = forked.run([sys.executable, "-m", "asz_core.cli.main", "hook", "--data", str(data / "asz")],
                           input=json.dumps(ev).encode(), env={**_env(), **env}, capture_output=True, timeout=60)
            assert p.returncode == 0 and p.stdout == b"", p  # the hook's own start-up is tested fresh in tests/observer
    files = list((data / "asz" / "output").rglob("*.jsonl"))
    assert files, "asz hook wrote no record file"
    return sum(len(f.read_bytes().splitlines()) for f in files)


def _appear(tmp_path: Path, data: Path, env: dict) -> int:
    """The hook's records made aside, then the observers' default folder appearing with them at once (a rename);
    the record lines it holds."""
    records = _hook_records(tmp_path / "aside", env)
    data.parent.mkdir(parents=True)
    (tmp_path / "aside").rename(data)
    return records


def _landed_after(text: str, line: str) -> int:
    """The records the pass lines after ``line`` in ``text`` landed, summed."""
    return sum(int(n) for n in re.findall(r" records=(\d+) ", text.partition(line)[2] if line else text))


def _env() -> dict:
    import os

    return {k: v for k, v in os.environ.items() if k != "ASZ_DISABLE_ADAPTERS"}


def _until(check, what: str, out) -> object:
    deadline = time.monotonic() + GENEROUS
    while not (got := check()):
        assert time.monotonic() < deadline, f"{what} not seen within {GENEROUS:g} s\n{out()}"
        time.sleep(0.3)
    return got


def test_a_server_collects_and_follows_hook_data_that_appears_after_its_start(tmp_path):
    env, data = _homes(tmp_path)
    # the server's timed look for new sources every 1 s, not its default 10 s (server_pass.LATE_SETTING): the same
    # look, found without a pass or a restart, waited for 1 s rather than up to 10 s
    s = Served(["server", "--root", str(tmp_path / "root"), "--interval", "1h"], tmp_path / "work",
               env={**env, "ASZ_SERVER_LATE_EVERY": "1"}, timeout=60)
    try:
        _until(lambda: s.get("/api/status").json().get("last_pass"), "the first pass", s.output)
        follows = s.get("/api/status").json()["follows"]
        assert f"follows  : {follows} folder(s)" in s.output() and "changes from" not in s.output()
        assert "warning: ASZ_SERVER_LATE_EVERY" not in s.output()  # taken
        records = _appear(tmp_path, data, env)
        said = f"now collecting: changes from {data} (appeared since the start)"
        _until(lambda: said in s.output(), "the now collecting line", s.output)
        # the pass after it lands every record (interval 1h: the look's pass, not the interval's)
        _until(lambda: _landed_after(s.output(), said) == records, f"passes landing the {records} records", s.output)
        assert s.output().count("now collecting:") == 1, s.output()
        assert s.get("/api/status").json()["follows"] == follows + 1
        records = _hook_records(data, env)  # followed from now on: more records make passes long before the interval
        _until(lambda: _landed_after(s.output(), said) == records, f"passes landing {records} records in all", s.output)
        assert s.output().count("now collecting:") == 1, s.output()
    finally:
        s.stop()


def test_a_watching_collect_collects_hook_data_that_appears_after_its_start(tmp_path):
    env, data = _homes(tmp_path)
    err = tmp_path / "collect.err"
    with open(tmp_path / "collect.out", "wb") as out, open(err, "wb") as errf:
        proc = forked.Popen([sys.executable, "-m", "asz_core.cli.main", "collect", "--root", str(tmp_path / "root"),
                                 "--interval", "1s", "--jobs", "1"], cwd=tmp_path / "work", env={**_env(), **env},
                                stdout=out, stderr=errf)
    said = lambda: (tmp_path / "collect.out").read_text() + err.read_text()  # noqa: E731
    try:
        _until(lambda: "sessions=1 " in said(), "the first pass line", said)
        records = _appear(tmp_path, data, env)
        line = f"now collecting: changes from {data} (appeared since the start)"
        _until(lambda: line in said(), "the now collecting line", said)
        passes = lambda: (tmp_path / "collect.out").read_text().partition("\n")[2]  # noqa: E731 (after the first)
        _until(lambda: _landed_after(passes(), "") == records, f"passes landing the {records} records", said)
        assert said().count("now collecting:") == 1
    finally:
        proc.terminate()
        proc.wait(30)


def test_a_late_look_interval_not_taken_is_said_and_the_default_kept(monkeypatch):
    """``ASZ_SERVER_LATE_EVERY`` as the server reads it (server_pass.LATE_SETTING, said by ``asz server`` as it
    starts): 1 and 0.5 taken; ``10s``, 0, -1 and 3601 not, the 10 s kept and the line naming the value."""
    from asz_core.cli.server_pass import LATE_SETTING
    from asz_core.envsetting import unused_lines

    for text, value in (("1", 1.0), ("0.5", 0.5), ("10s", 10.0), ("0", 10.0), ("-1", 10.0), ("3601", 10.0)):
        monkeypatch.setenv("ASZ_SERVER_LATE_EVERY", text)
        assert LATE_SETTING.value() == value, text
        said = unused_lines((LATE_SETTING,), "asz server")
        assert said == ([] if value != 10.0 else [f"asz server: warning: ASZ_SERVER_LATE_EVERY={text} is no number of "
                                                  "seconds above 0 up to 3600: the interval in force is 10 s"]), said
