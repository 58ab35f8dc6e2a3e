"""``asz ls`` says which changes have lines that are not known (kiro21's leftovers, 3): a Kiro CLI 2.x file write
records what the file became, not what it held, so its diff is unavailable (docs/adapters/kiro.md, Changes and shell
runs); it counts as a change with 0 lines, and the listing says so under the table and in ``--json``
(``changes_lines_unknown``), as it says the changes it could not derive. Real input: the Kiro corpus, collected."""

from __future__ import annotations

import json

from cli_helpers import asz_in_process
from test_usage_kiro import CLI_SESSION, _lines

V2 = "8e247382-c779-440f-b1db-ed9bad1afaee"


def _file_writes() -> int:
    """The 2.x log's ``FileWrite`` ``create`` results (each a written file whose earlier content is not recorded)."""
    n = 0
    for d in _lines(CLI_SESSION):
        for r in ((d.get("data") or {}).get("results") or {}).values() if d["kind"] == "ToolResults" else ():
            n += '"FileWrite": {"command": "create"' in json.dumps(r["tool"])
    return n


def test_ls_says_the_changes_whose_lines_are_not_known(kiro_root):
    n = _file_writes()
    assert n == 2
    rows = {r["id"]: r for r in json.loads(asz_in_process("ls", "--json", "--root", str(kiro_root)).stdout)}
    v2 = rows.pop(V2)
    assert (v2["changes"], v2["lines_added"], v2["lines_removed"], v2["changes_lines_unknown"]) == (n, 0, 0, n)
    (ide,) = rows.values()  # the 3.x writes record the content before and after: their lines are known
    assert ide["changes_lines_unknown"] == 0 and ide["lines_added"] == 10
    out = asz_in_process("ls", "--root", str(kiro_root)).stdout.splitlines()
    assert (f"CHANGES with lines not known: {n} changed file(s) in 1 conversation(s) (8e247382) whose diff is unavailable, "
            "the earlier content not being recorded (Kiro CLI 2.x file writes, Kiro IDE edits and deletes): counted as "
            "changes, their lines in no "
            "count (--json: changes_lines_unknown)") in out
