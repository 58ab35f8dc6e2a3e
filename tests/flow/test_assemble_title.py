"""A conversation's title (origin-digest §4.4, the session node's ``title``): a label on a record with no id of
its own, in a transcript or in the main stream's own metadata document, never a child's sidecar.

The main-stream metadata document is what Kiro writes (``session.json`` / ``<id>.json`` ``title``, landed as
``agent_meta`` on ``main``; docs/adapters/kiro.md); ``tests/adapters/kiro/test_kiro_view.py`` checks it on the
real corpus sessions.
"""

from __future__ import annotations

from pathlib import Path

from asz_core.testing.asm_build import SessionBuilder, part, prompt, rec, sidecar, title
from asz_core.flow.assemble import assemble
from asz_core.flow.index import update_index

SESSION = "00000002-0000-4000-8000-000000000002"
T0 = 1767225600000


def _title(root: Path, *files: tuple[str, list, str]) -> str:
    b = SessionBuilder(root, SESSION)
    for kind, records, stream in files:
        b.land(kind, records, stream=stream)
    asm = assemble(update_index(b.session_dir), len(files))
    return asm.counts.get("title", "")


def _meta(label: str, child: str = ""):
    return rec(part("data", data={"title": label}), label=label, child=child, from_="runtime")


def test_the_main_metadata_document_titles_the_conversation(tmp_path: Path) -> None:
    got = _title(tmp_path, ("transcript", [prompt("p1", "p1", "do it", T0)], "main"),
                 ("agent_meta", [_meta("Nimble Haze")], "main"))
    assert got == "Nimble Haze"


def test_a_child_sidecar_never_titles_it(tmp_path: Path) -> None:
    got = _title(tmp_path, ("transcript", [prompt("p1", "p1", "do it", T0)], "main"),
                 ("transcript", [prompt("c1", "c1", "sub work", T0 + 10)], "kid"),
                 ("agent_meta", [sidecar("kid", "checker")], "kid"),
                 ("agent_meta", [_meta("named child", child="kid")], "main"))
    assert got == ""


def test_the_last_title_written_wins(tmp_path: Path) -> None:
    got = _title(tmp_path, ("agent_meta", [_meta("first name")], "main"),
                 ("transcript", [title("renamed"), prompt("p1", "p1", "do it", T0)], "main"))
    assert got == "renamed"
