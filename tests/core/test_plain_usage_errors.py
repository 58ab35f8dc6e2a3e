"""A usage error is one plain ``asz CMD: …`` line when stderr is no terminal (trial 31a F7: cron's log held Typer's
Rich box, ``╭─ Error ───``, 80 columns of UTF-8 frame, where every other error is one line), exit 2 as before; on a
terminal the box stays. Real ``asz`` processes, stderr a pipe or a pseudo-terminal. The 13 usage errors on a pipe are
forked from the pre-imported server (tests/forked.py: what is tested is the command's error line, not the interpreter's
start-up; about 0.3 s of CPU each fewer); the terminal's box keeps a fresh interpreter (its stderr encoding is the
locale's at start-up)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

import forked

ASZ = [sys.executable, "-m", "asz_core.cli.main"]
POSIX = {**os.environ, "LC_ALL": "POSIX", "LANG": "C"}


@pytest.mark.parametrize("args, line", [
    (["usage", "--json", "--bogus"], "asz usage: No such option: --bogus (Possible options: --out); see 'asz usage --help'"),
    (["--bogus"], "asz: No such option: --bogus; see 'asz --help'"),
    (["nosuchcmd"], "asz: No such command 'nosuchcmd'; see 'asz --help'"),
    (["usage", "--root"], "asz usage: Option '--root' requires an argument; see 'asz usage --help'"),
    (["hooks", "install", "--bogus"], "asz hooks install: No such option: --bogus; see 'asz hooks install --help'"),
    (["usage", "nosuchview"], "asz usage: 'nosuchview' is not a view (one of daily, weekly, monthly, blocks, session, "
                              "project, model, instance, tools)"),  # the command's own usage error, every view named (trial 33a F7)
    (["--root", "data", "ls"], "asz: No such option: --root: it goes after the command, asz ls --root data; "
                               "see 'asz --help'"),  # as git and ccusage users type it (trial 38a F8)
    (["--root", "d d", "usage", "daily"], "asz: No such option: --root: it goes after the command, asz usage daily "
                                          "--root 'd d'; see 'asz --help'"),
    (["--interval", "1m", "verify"], "asz: No such option: --interval; see 'asz --help'"),  # verify has no --interval: nothing to move
    # a ccusage flag says what docs/ccusage.md maps it to, not click's nearest name (trial 40b F5: --instance, --model)
    (["usage", "monthly", "--instances"], "asz usage: No such option: --instances: ccusage's --instances is asz usage "
                                          "project here; see docs/ccusage.md; see 'asz usage --help'"),
    (["usage", "--mode", "calculate"], "asz usage: No such option: --mode: asz always prices every call from its tokens "
                                       "(ccusage's --mode calculate); asz usage --prices shows the rates; see "
                                       "docs/ccusage.md; see 'asz usage --help'"),
    # trial 44a F6: --recent was told "(Possible options: --prices, --project)", -s nothing of ccusage's --since
    (["usage", "blocks", "--recent"], "asz usage: No such option: --recent: ccusage's blocks --recent (its last 3 "
                                      "days) is asz usage blocks --since 3d; see docs/ccusage.md; see 'asz usage --help'"),
    (["usage", "-s", "20260101"], "asz usage: No such option: -s: ccusage's -s is --since here; see docs/ccusage.md; "
                                  "see 'asz usage --help'"),
], ids=["option", "top-option", "command", "missing-value", "group", "own", "root-first", "root-first-view", "not-its",
        "ccusage-instances", "ccusage-mode", "ccusage-recent", "ccusage-short"])
def test_a_usage_error_in_a_log_is_one_plain_line_exit_2(args, line, tmp_path):
    p = forked.run([*ASZ, *args], capture_output=True, env=POSIX, stdin=subprocess.DEVNULL, cwd=tmp_path, timeout=120)
    assert p.returncode == 2
    assert p.stdout == b""
    assert p.stderr.decode("ascii") == line + "\n"  # one line, nothing but ASCII: no box, no Usage: lines


def test_on_a_terminal_the_box_stays(tmp_path):
    primary, secondary = pty.openpty()
    try:
        p = subprocess.run([*ASZ, "usage", "--bogus"], stdout=subprocess.PIPE, stderr=secondary,
                           stdin=subprocess.DEVNULL, cwd=tmp_path, timeout=120)
        os.close(secondary)
        secondary = -1
        said = b""
        while True:
            try:
                got = os.read(primary, 65536)
            except OSError:  # EIO: the terminal's other end is closed, all read
                break
            if not got:
                break
            said += got
    finally:
        os.close(primary)
        if secondary >= 0:
            os.close(secondary)
    assert p.returncode == 2
    text = said.decode("utf-8", "replace")
    assert "╭─" in text and "Error" in text and "No such option" in text


def test_every_ccusage_flag_said_is_mapped_in_docs_ccusage():
    """Each ccusage flag whose usage error points at docs/ccusage.md has a line of its mapping there (trial 44a F6),
    and the usage error names what to use, never click's nearest names."""
    from asz_core.cli.plain_errors import CCUSAGE_FLAGS

    doc = (Path(__file__).resolve().parents[2] / "docs" / "ccusage.md").read_text(encoding="utf-8")
    mapped = doc.split("## Flags", 1)[1].split("## Where", 1)[0]
    assert len(CCUSAGE_FLAGS) >= 18
    assert [f for f in CCUSAGE_FLAGS if f"`{f}" not in mapped and f" {f} " not in mapped.replace("`", " ")] == []
