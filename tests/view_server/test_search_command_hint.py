"""The page's "There may be more" hint names the command that gets the rest (session 22): by conversation it named
``asz search --limit N``, which lists hits, not conversations. The page's ``searchCommand`` (app.js) is run in Node
on the page's filters and compared with the words the CLI's count line names (``asz_core.cli.search_cmd.again``), and
each command is read back by a POSIX shell's rules (``shlex.split``) to the words asked. Skipped without Node."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from asz_core.cli.search_cmd import again

APP = Path(__file__).resolve().parents[2] / "asz_core" / "view" / "static" / "app.js"

CASES = [
    ({"q": "hypothesis testing"}, True),
    ({"q": "hypothesis testing"}, False),
    ({"q": "phx -server", "project": "spotter", "since": "2026-01-01"}, True),
    ({"q": "-draft notes", "dialect": "claude-code", "model": "opus", "until": "7d"}, True),
    ({"q": "it's \"quoted\"", "project": "a b"}, False),
]


def _page_commands(root: str) -> list[str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node to run app.js's searchCommand")
    src = APP.read_text()
    fn = re.search(r"\n  function searchCommand\(f, byconv\) \{\n.*?\n  \}\n", src, re.S)
    assert fn, "app.js has no searchCommand"
    script = (f"const LIST = {{root: {json.dumps(root)}}};\n{fn.group(0)}\n"
              f"const cases = {json.dumps(CASES)};\n"
              "const F = ['project', 'model', 'dialect', 'since', 'until'];\n"
              "console.log(JSON.stringify(cases.map(function (c) { const f = Object.assign({}, c[0]);"
              " F.forEach(function (k) { f[k] = f[k] || ''; }); return searchCommand(f, c[1]); })));")
    p = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_the_page_names_the_command_the_cli_names():
    root = "/tmp/a root/it's"
    for (f, byconv), page in zip(CASES, _page_commands(root)):
        given = [a for k in ("project", "model", "dialect", "since", "until") if f.get(k) for a in (f"--{k}", f[k])]
        cli = again(f["q"], given + ["--root", root], byconv, True)
        assert page == cli, (f, byconv)
        words = shlex.split(page)
        assert words[:2] == ["asz", "search"] and words[-1] == f["q"]
        assert ("--conversations" in words) == byconv and words[words.index("--limit") + 1] == "0"
        assert words[words.index("--root") + 1] == root
        assert (words[-2] == "--") == f["q"].startswith("-")
