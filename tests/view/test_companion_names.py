"""A tool result cut to a preview names its companion file in ``dropped`` as ``what: "full output in <path>"``; drawing
(``full_output``), coverage (the companion is shown by its step) and a list row's problems (``build_summary``) find
the landed companion by one name rule, ``companion_file_name`` (the last part of the path, split on ``\\`` in a Windows
path, else on ``/``), which is also the rule the Claude Code adapter labels the landed companion by.

Input: the small transcript of tests/adapters/claude/test_claude_companions.py, in the shape of the corpus session 8463c716 (a Bash result whose text opens with
``<persisted-output>`` and says ``Full output saved to: …/<session>/tool-results/<tool_use_id>.txt``) with its
companion file beside it, collected by the real Claude Code adapter. The adapter writes ``tool-results/<name>`` for a
POSIX and for a Windows preview path alike; the ``what`` without ``/`` and the ``what`` holding a Windows path are
the same landed session with only that ``dropped`` entry written differently (a thin subclass of the real adapter),
as another adapter or an older one may write it.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from asz_adapters_claude.companions import companion_record
from asz_adapters_claude.plugin import ClaudeCodeLocal
from asz_core import Record, Source
from asz_core.sessiondata import COMPANION_WHAT, companion_file_name
from asz_core.flow.parse import parse_root
from asz_core.testing.landing import collect_once
from asz_core.view import build_view
from asz_core.view.document import build_summary

from claude_lines import walk_nodes

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "adapters" / "claude"))
from test_claude_companions import FULL, SID, TOOL, _session  # noqa: E402  (the same transcript, in its place)

NAME = f"{TOOL}.txt"
POSIX_DIR = f"/home/u/.claude/projects/-home-u-p/{SID}"
WINDOWS_DIR = f"C:\\Users\\u\\.claude\\projects\\C--Users-u-p\\{SID}"


class _Rewritten(ClaudeCodeLocal):
    """The real adapter, with each companion ``what`` it writes replaced by ``full output in <path>``."""

    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def convert_line(self, source, line, ord, off):
        rec = super().convert_line(source, line, ord, off)
        for d in rec.dropped:
            if d.what.startswith(COMPANION_WHAT):
                d.what = COMPANION_WHAT + self.path
        return rec


def _landed(tmp_path: Path, saved_to: str, what_path: str | None, with_companion: bool = True):
    """(document, list-row problems) of the session collected from the transcript, by the real adapter (or with
    its companion ``what`` rewritten to ``what_path``)."""
    src = _session(tmp_path, with_companion, saved_to)
    root = tmp_path / "root"
    collect_once(root, ClaudeCodeLocal() if what_path is None else _Rewritten(what_path), src)
    told = io.StringIO()
    assert not parse_root(root, err=told).problems, told.getvalue()
    doc = build_view(root, SID)
    head, _, _, _ = build_summary(root, SID)
    return doc, head["summary"]["problems"]


CASES = {
    # (the preview's "saved to" path, the what's path (None: as the real adapter writes it), the what's path)
    "slash": (f"{POSIX_DIR}/tool-results/{NAME}", None, f"tool-results/{NAME}"),
    "windows-preview": (f"{WINDOWS_DIR}\\tool-results\\{NAME}", None, f"tool-results/{NAME}"),
    "no-slash": (f"{POSIX_DIR}/tool-results/{NAME}", NAME, NAME),
    "windows-what": (f"{POSIX_DIR}/tool-results/{NAME}", f"{WINDOWS_DIR}\\tool-results\\{NAME}", f"{WINDOWS_DIR}\\tool-results\\{NAME}"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_landed_companion_is_linked_shown_and_not_missing(tmp_path: Path, case: str) -> None:
    saved_to, what_path, file = CASES[case]
    doc, row_problems = _landed(tmp_path, saved_to, what_path)
    [step] = [n for n in walk_nodes(doc) if "full_output" in n]
    fo = step["full_output"]
    # a snapshot document lands without its trailing newlines (docs/storage-root.md, snapshot cursors)
    assert (fo["state"], fo["file"], fo["bytes"]) == ("available", file, len(FULL.rstrip("\n").encode()))
    assert doc["summary"]["problems"] == [] and row_problems == []  # linked, so missing nowhere
    cov = doc["summary"]["coverage"]
    assert cov["cited"] == cov["records"]  # the companion record is shown by the step it completes


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_absent_companion_is_missing_in_the_document_and_the_row_alike(tmp_path: Path, case: str) -> None:
    saved_to, what_path, file = CASES[case]
    doc, row_problems = _landed(tmp_path, saved_to, what_path, with_companion=False)
    [step] = [n for n in walk_nodes(doc) if "full_output" in n]
    assert step["full_output"] == {"file": file, "state": "missing"}
    want = [f"missing companion file {file}: the result holds only a preview; the full output did not land"]
    assert [p for p in doc["summary"]["problems"] if p.startswith("missing companion")] == want
    assert [p for p in row_problems if p.startswith("missing companion")] == want


def test_the_adapter_labels_a_companion_by_the_name_the_view_looks_up(tmp_path: Path) -> None:
    """A source's ``src`` is relative with forward slashes (``Source``); the label is its file name, the name
    ``companion_file_name`` gives every shape of ``what`` path above."""
    rel = f"-home-u-p/{SID}/tool-results/{NAME}"
    rec = Record(ord=1, off=0)
    companion_record(rec, Source(session=SID, kind="tool_output", path=tmp_path / NAME, src=rel, dialect="claude-code/1",
                                 stream=f"tool-results_{NAME}"), FULL.encode())
    assert (rec.label, rec.tool) == (NAME, TOOL)
    assert {companion_file_name(p) for _, _, p in CASES.values()} == {NAME}
