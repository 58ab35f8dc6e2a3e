"""Error messages that stop short (trial 33a F7), each said whole now:

- ``asz usage dayly`` lists every view, ``tools`` included (the tools view is taken before the others), and the
  nearest one;
- a ``--since`` that reads as a date but names no day (``2026-13-01``) lists every accepted form, as ``--since foo``
  does: one function words both (``asz_core.view.match.not_a_time``);
- ``asz conversation`` with a one-character typo of an id's prefix names that id first (``did you mean …?``), before
  the first ids of the root;
- a directory named like a transcript (``<session id>.jsonl``) is said to be a directory, not ``not a session id``.

Real input: the bundled example transcript (examples/claude-code/projects) collected by the real ``asz collect``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

REPO = Path(__file__).resolve().parents[2]
SID = "7d2f1c3e-5b8a-4e61-9f0d-2a4c6e8b1d35"
FORMS = "is not a date (YYYY-MM-DD), a month (YYYY-MM), an instant (RFC 3339), a time back from now (30m, 12h, 7d, 2w), today or yesterday"


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("words")
    src = base / "projects"
    shutil.copytree(REPO / "examples" / "claude-code" / "projects", src)
    root = base / "root"
    p = asz_in_process("collect", "--once", "--source", str(src), "--root", str(root))
    assert p.returncode == 0, p.stderr
    return src, root


def test_a_mistyped_view_names_every_view_and_the_nearest(example):
    _, root = example
    p = asz_in_process("usage", "dayly", "--root", str(root))
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr.strip() == ("asz usage: 'dayly' is not a view (one of daily, weekly, monthly, blocks, session, "
                                "project, model, instance, tools); did you mean 'daily'?")
    assert asz_in_process("usage", "tools", "--root", str(root)).returncode == 0  # the view it names works


def test_a_day_that_does_not_exist_lists_every_form(example):
    _, root = example
    said = {}
    for given in ("2026-13-01", "foo"):
        p = asz_in_process("usage", "--since", given, "--root", str(root))
        assert p.returncode == 2, p.stderr
        said[given] = p.stderr.strip()
    assert said["foo"] == f"asz usage: --since/--until: 'foo' {FORMS}"
    assert said["2026-13-01"] == f"asz usage: --since/--until: '2026-13-01' (no such day) {FORMS}"


def test_a_one_character_typo_names_the_id_meant_first(example):
    _, root = example
    p = asz_in_process("conversation", "7d2f1c3f", "--root", str(root))
    assert p.returncode == 1
    assert p.stderr.strip() == (f"asz conversation: no conversation '7d2f1c3f' in {root}; did you mean {SID}?; "
                                f"conversations in {root}: {SID}")
    far = asz_in_process("conversation", "00000000", "--root", str(root))
    assert "did you mean" not in far.stderr  # nothing near: the root's ids only


def test_a_directory_named_like_a_transcript_is_said_to_be_a_directory(example, tmp_path):
    src, root = example
    (src / "-home-me-newproj" / "cccc3333-0000-4000-8000-000000000003.jsonl").mkdir(parents=True)
    p = asz_in_process("sources", "--source", str(src), "--root", str(root))
    assert ("skipped: -home-me-newproj/cccc3333-0000-4000-8000-000000000003.jsonl: a directory named like a transcript "
            "(<session id>.jsonl): a transcript is a file") in (p.stdout + p.stderr).splitlines(), p.stdout + p.stderr
