"""``asz ls`` says a conversation whose document lists problems, though its state is ``verified`` (trial 12): the
state stays (it is about the evidence), STATE is marked ``!``, a line under the table counts and names them, and
``--json`` rows carry ``problems``, the document's own ``summary.problems`` list.

Real input: the corpus project -home-user-spotter, whose session 8463c716 cites a companion file under
``tool-results/`` that the corpus does not hold, collected by the real ``asz collect --once``.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest
from reading_helpers import asz

SID = "8463c716-a2ea-4c14-9efa-87158ebd9f20"


@pytest.fixture(scope="module")
def spotter(corpus_dir, tmp_path_factory):
    base = tmp_path_factory.mktemp("ls-problems")
    proj = corpus_dir / "claude-code" / "projects" / "-home-user-spotter"
    cited = sorted(set(re.findall(r"tool-results/[A-Za-z0-9_]+\.txt", (proj / f"{SID}.jsonl").read_text(encoding="utf-8"))))
    absent = [c for c in cited if not (proj / SID / c).exists()]
    assert absent, "the corpus session cites a companion file it does not hold"
    shutil.copytree(proj, base / "projects" / proj.name)
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    return root, absent


def test_json_rows_carry_the_documents_problems(spotter):
    root, absent = spotter
    rows = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout)}
    for cid, row in rows.items():
        doc = json.loads(asz("conversation", cid, "--json", "--root", str(root)).stdout)
        assert row["problems"] == doc["summary"]["problems"]
        assert row["state"] == doc["summary"]["state"]
    row = rows[SID]
    assert row["state"] == "verified"
    assert [p.split(":")[0] for p in row["problems"]] == [f"missing companion file {c}" for c in absent]


def test_the_table_marks_and_names_them(spotter):
    root, absent = spotter
    out = asz("ls", "--root", str(root)).stdout.splitlines()
    line = next(x for x in out if x.startswith(SID[:8]))
    assert line.endswith("verified !")
    other = [x for x in out if x[:8] != SID[:8] and x.rstrip().endswith("verified")]
    assert other and not any(x.endswith("!") for x in other)
    note = next(x for x in out if x.startswith(f"! problems in {SID[:8]}"))
    assert note.startswith(f"! problems in {SID[:8]} ({len(absent)}): missing companion file {absent[0]}: ")
    assert note.endswith(f"asz conversation {SID[:8]} names them")
