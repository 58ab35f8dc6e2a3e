"""A hint prints a prefix that works (trial 43b F3: ``asz conversation toyrun-0000`` hinted ``asz show toyrun-0 ID``,
and ``asz show toyrun-0`` said it is the start of 19 sessions): the one function of shortest unique prefixes
(:func:`~asz_core.storage.ids.shown_names`) gives the hint its prefix, the one ``asz ls`` shows.

Real input: the corpus's 55604662 and a copy of it under the id ``55604662-0000-4000-8000-000000000001`` (the same
first 8 characters), collected with the smallest cut budget so that texts are cut and ``asz conversation`` lists them
with its ``asz show`` hint.
"""

from __future__ import annotations

import re
import shutil

from reading_helpers import asz

SID = "55604662-cf2a-4331-851a-ec234028f8ca"
TWIN = "55604662-0000-4000-8000-000000000001"


def test_the_cut_text_hint_prints_a_prefix_asz_show_takes(corpus_source, tmp_path):
    proj = tmp_path / "src" / "-home-user-spotter"
    proj.mkdir(parents=True)
    for name in (SID, TWIN):
        shutil.copyfile(corpus_source / proj.name / f"{SID}.jsonl", proj / f"{name}.jsonl")
    (tmp_path / "asz.yaml").write_text("adapters:\n  - name: claude-code-local\n    collector:\n      max_delta_bytes: 1024\n")
    root = str(tmp_path / "root")
    asz("collect", "--once", "--config", str(tmp_path / "asz.yaml"), "--source", str(tmp_path / "src"), "--root", root)
    listed = {x.split()[0] for x in asz("ls", "--root", root).stdout.splitlines()[1:3]}
    assert listed == {SID[:10], TWIN[:10]}, listed  # the table's ids: 8 characters would name both
    hinted = 0  # one of the two repeats the other's records (it continues it): its cut text is listed there only
    for cid in (SID, TWIN):
        out = asz("conversation", cid, "--root", root).stdout
        hints = re.findall(r"^  \(asz show (\S+) ID prints a step's record", out, re.M)
        if not hints:
            continue
        hinted += 1
        assert hints == [cid[:10]], hints
        hint = hints[0]
        step = re.search(r"^  (\S+) \([a-z.]+\): text too large to land", out, re.M).group(1)
        shown = asz("show", hint, step, "--root", root)  # the hint typed back: the step's record, of this session
        assert cid in shown.stdout, shown.stdout
        assert asz("show", cid[:8], step, "--root", root, check=False).returncode == 2  # what it hinted before
    assert hinted
