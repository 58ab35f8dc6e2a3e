"""``asz collect`` says which source lines the adapter could not describe at all (trial 12: garbage and lines that
are not JSON landed as unknown parts with ``errors=0`` and nothing said): one ``warning:`` per source file naming it,
the line numbers and that they landed verbatim as unknown parts; the summary line's keys and the exit stay as they were.

Real input: a corpus session (../shared/corpus/claude-code/projects/-home-user-claude-reliability) with garbage lines
written between its real lines, beside the untouched project -home-user-spotter, collected by the real
``asz collect --once``.
``asz`` runs in the test's process (:func:`cli_helpers.asz_in_process`): no signal, pipe or exit status of a process
is tested here (session 33: a child process each cost about 0.4 s of CPU).
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from asz_core.collect.report import SUMMARY_KEYS
from cli_helpers import asz_in_process

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
GARBAGE = {4: b"garbage here, not a record", 6: b"[1,2,3]", 8: b'{"type":"user","message":{"cut sh'}  # line number in the new file -> bytes


def _asz(*args):
    return asz_in_process(*args)


@pytest.fixture(scope="module")
def collected(corpus_dir, tmp_path_factory):
    projects = tmp_path_factory.mktemp("undescribed-lines") / "projects"
    for name in ("-home-user-claude-reliability", "-home-user-spotter"):  # the spotter project: four clean sources
        shutil.copytree(corpus_dir / "claude-code" / "projects" / name, projects / name)
    path = projects / "-home-user-claude-reliability" / f"{SID}.jsonl"
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) > 9
    for n, junk in sorted(GARBAGE.items()):
        lines.insert(n - 1, junk)
    path.write_bytes(b"\n".join(lines))
    root = projects.parent / "root"
    return path, root, _asz("collect", "--once", "--source", str(projects), "--root", str(root))


def test_one_warning_names_the_file_and_lines(collected):
    path, _, p = collected
    assert p.returncode == 0, p.stdout + p.stderr
    said = [x for x in p.stderr.splitlines() if x.startswith(f"warning: {path}: ")]
    assert len(said) == 1, p.stderr
    # each reason with its own lines (trial 17, F6: line 6 is valid JSON, not an object, and was said to be "not valid JSON")
    assert (f"{len(GARBAGE)} line(s) adapter claude-code-local could not describe (lines 4, 8: the record is not valid "
            "JSON; line 6: the record is JSON but not an object): ") in said[0], said[0]
    assert said[0].endswith("): their source bytes landed verbatim, as written, as unknown parts (asz conversation lists "
                            "them under undescribed)")


def test_summary_keys_unchanged_and_the_lines_are_kept(collected):
    _, root, p = collected
    last = p.stdout.strip().splitlines()[-1]
    keys = re.findall(r"(\w+)=", last)
    assert keys[:len(SUMMARY_KEYS)] == list(SUMMARY_KEYS) and "errors=0" in last
    doc = json.loads(_asz("conversation", SID, "--json", "--root", str(root)).stdout)
    kept = sorted(u["ref"]["row"] for u in doc["undescribed"])
    assert len(kept) == len(GARBAGE)


def test_the_other_sources_say_nothing(collected):
    path, _, p = collected
    said = [x for x in p.stderr.splitlines() if "could not describe" in x]
    assert len(said) == 1 and said[0].startswith(f"warning: {path}: "), p.stderr
