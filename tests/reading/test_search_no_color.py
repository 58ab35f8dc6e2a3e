"""``NO_COLOR`` on a terminal: ``asz search`` marks each match between « and », as piped, not in bold yellow (trial
29b F7: the progress bar dropped its colours under NO_COLOR, the match highlight kept them; no-color.org).

Real input: the collected corpus copy; ``asz search`` runs as a real child on a real pseudo-terminal (``script``),
so its stdout is a terminal. The match is the corpus's one ``/context`` output (found in the transcripts by
tests/reading/test_search_terminal_colours.py).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from reading_helpers import REPO

QUERY = '"Context Usage"'


def _on_a_terminal(root, no_color: str | None) -> str:
    """What ``asz search QUERY --limit 1`` printed on a pseudo-terminal, with ``NO_COLOR`` as given (None: unset)."""
    if shutil.which("script") is None:
        pytest.skip("script (util-linux) is absent: no pseudo-terminal to run on")
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env.update({"PYTHONPATH": str(REPO), "COLUMNS": "200", **({"NO_COLOR": no_color} if no_color is not None else {})})
    cmd = f"{sys.executable} -m asz_core.cli.main search '{QUERY}' --limit 1 --root {root}"
    p = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True, text=True, env=env, timeout=120,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_no_color_marks_the_match_with_guillemets_on_a_terminal(corpus_copy):
    root = corpus_copy()
    coloured = _on_a_terminal(root, None)
    assert "\x1b[1;33mContext Usage\x1b[0m" in coloured
    plain = _on_a_terminal(root, "1")
    assert "«Context Usage»" in plain and "\x1b[1;33m" not in plain
    assert "\x1b[1;33mContext Usage" in _on_a_terminal(root, "")  # empty: not set (no-color.org)
