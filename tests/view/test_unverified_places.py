"""A conversation's project comes only from landed files that verify (as its title does, test_unverified_titles): a
damaged only file gives none, as a deleted one gives none, in ``asz ls --json``. Its runtime is named by what landed
(session 24: a held-back row read RUNTIME ``-``): a damaged file whose header line is still the one the session index
kept when it landed names it (the damage is in a record); a deleted one names none."""

from __future__ import annotations

import json

from claude_lines import collect_claude
from cli_helpers import asz_in_process
from test_unverified_titles import S, _lines, _spoil


def test_a_deleted_and_a_damaged_only_file_give_no_project_and_no_runtime(tmp_path):
    seen = {}
    for how in ("whole", "deleted", "damaged"):
        root = collect_claude(tmp_path / how, {S: _lines(True)})
        if how != "whole":
            _spoil(root, how)
        p = asz_in_process("ls", "--json", "--root", str(root))
        assert p.returncode == 0, p.stderr
        (row,) = json.loads(p.stdout)
        seen[how] = (row["project"], row["git_branch"], row["runtime"])
    cwd = next(d["cwd"] for d in _lines(True) if d.get("cwd"))  # what the transcript itself recorded
    assert seen["whole"][0] == cwd and seen["whole"][2]["name"] == "claude-code"
    assert seen["deleted"] == ("", "", {"name": "", "version": ""})
    assert seen["damaged"] == ("", "", {"name": "claude-code", "version": ""})  # no version: that is a record's field
