"""The --help texts (docs/cli.md is generated from them, and tests/docs checks it is current) name nothing a user
cannot look up: no issue or trial number, no seed or origin-digest section (trial 17, F8); docs/*.md may."""

from __future__ import annotations

import re
from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
JARGON = re.compile(r"\bissue \d+|\btrial \d+|\bseed 0\d\d|origin-digest|\bF\d+\)")


def test_help_texts_hold_no_internal_references():
    found = [(n, m.group(0)) for n, line in enumerate(CLI.read_text(encoding="utf-8").splitlines(), 1)
             for m in JARGON.finditer(line)]
    assert found == []
