"""``asz verify --export`` lays a copy over the manifest's lines and over the copy made again from the root as
:class:`difflib.SequenceMatcher` lays them (``autojunk=False``), without its cost on lines that repeat
(asz_core/reading/line_diff.py, fix50c; session 49: 37 of a test's 80 s under cProfile in its ``find_longest_match``).

The opcodes are held to difflib's own on lists of few distinct lines (each repeats, as blank lines do) and on a case
where laying the common head first would lay them otherwise; and a real copy (the corpus's spotter transcript,
collected and exported) with lines added, removed and changed is said line for line as difflib's laying says it."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from asz_core.reading import export_manifest
from asz_core.reading.line_diff import differing
from cli_helpers import asz_in_process
from reading_helpers import SPOTTER, planted_root


def _difflib(a, b) -> list:
    return [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]


LINES = st.lists(st.sampled_from(["", "", "|", "| ```", "a", "b", "c"]), max_size=40)


@settings(max_examples=1500, deadline=None)
@given(LINES, LINES)
def test_the_opcodes_are_difflibs_on_lines_that_repeat(a, b):
    assert differing(a, b) == _difflib(a, b)


@settings(max_examples=500, deadline=None)
@given(LINES, st.lists(st.tuples(st.integers(0, 40), st.integers(0, 2), st.sampled_from(["", "|", "x", "a"])), max_size=6))
def test_the_opcodes_are_difflibs_on_a_list_edited_in_places(a, edits):
    b = list(a)
    for at, how, line in edits:
        at = min(at, len(b))
        if how == 0:
            b.insert(at, line)
        elif b:
            b[min(at, len(b) - 1):min(at, len(b) - 1) + (how == 1)] = [] if how == 1 else [line]
    assert differing(a, b) == _difflib(a, b)


def test_a_head_in_common_is_laid_where_difflib_lays_it():
    """The common head ``A`` is not kept as the first line: difflib lays ``A B C`` over the copy's last three, so
    the copy's first two lines are the ones added (a head trimmed first would say lines 2 and 3)."""
    was, now = ["A", "B", "C"], ["A", "X", "A", "B", "C"]
    assert differing(was, now) == _difflib(was, now) == [("insert", 0, 0, 0, 2)]
    assert list(export_manifest._line_changes(was, now)) == [(0, None, 0), (1, None, 0)]
    assert differing(was, was) == []


def _edited(copy: Path) -> tuple[list[int], int]:
    """``copy`` with a line changed, two removed and three added (blank and ``|`` lines, which repeat in it): the
    changed line's and the first added line's numbers (from 1) and how many lines the copy had."""
    lines = copy.read_bytes().split(b"\n")
    n = len(lines)
    changed = next(k for k in range(n // 3, n) if lines[k].strip() and lines.count(lines[k]) == 1)
    lines[changed] = lines[changed] + b" (edited)"
    del lines[2 * n // 3:2 * n // 3 + 2]
    added = next(k for k in range(n // 2, n) if lines[k].strip() and lines.count(lines[k]) == 1) + 1
    lines[added:added] = [b"", b"|", b"an added line"]
    copy.write_bytes(b"\n".join(lines))
    return [changed + 1, added + 1], n


#: The corpus's largest transcript (spotter's second session: 1,878 lines of text form, 305 of them blank).
LARGEST = "claude-code/projects/-home-user-spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"


@pytest.fixture(scope="module")
def spotter(tmp_path_factory, corpus_dir) -> Path:
    return planted_root(corpus_dir, tmp_path_factory.mktemp("line-diff"), {SPOTTER: lambda lines: None,
                                                                          LARGEST: lambda lines: None})


@pytest.mark.parametrize("fmt,transcript", [("md", SPOTTER), ("text", LARGEST)])
def test_a_copy_with_lines_added_removed_and_changed_is_said_as_difflib_lays_it(spotter, tmp_path, monkeypatch, fmt,
                                                                                transcript):
    copy = tmp_path / f"c.{fmt}"
    made = asz_in_process("export", transcript.rsplit("/", 1)[1][:8], "--format", fmt, "--redact", "--out", str(copy),
                          "--root", str(spotter))
    assert made.returncode == 0, made.stdout + made.stderr
    (changed, added), n = _edited(copy)
    said = {how: asz_in_process("verify", "--export", str(copy), *more) for how, more in
            (("alone", ()), ("root", ("--root", str(spotter))))}
    assert all(p.returncode == 1 for p in said.values()), {k: p.stdout for k, p in said.items()}
    assert f"c.{fmt}: line {changed}: changed since the manifest was written, outside any mask" in said["alone"].stdout
    assert f"c.{fmt}: line {added + 2}: added since the manifest was written, outside any mask" in said["alone"].stdout
    assert f"c.{fmt}: line {added + 2}: not in the landed text (added)" in said["root"].stdout
    assert f"c.{fmt}: line {changed} column " in said["root"].stdout
    assert " line(s) of the manifest's copy are gone here" in said["alone"].stdout
    assert " line(s) of the landed text are missing from the copy here" in said["root"].stdout
    monkeypatch.setattr(export_manifest, "differing", _difflib)  # the laying difflib gives, said the same
    assert {how: asz_in_process("verify", "--export", str(copy), *more).stdout for how, more in
            (("alone", ()), ("root", ("--root", str(spotter))))} == {k: p.stdout for k, p in said.items()}
