"""A damaged ``_index/search.sqlite`` (trial: ``database disk image is malformed``, exit 1, no remedy on the CLI).

Real input: the corpus collected by the real ``asz collect --once`` (tests/conftest.py), its search index built by
``asz search``, then bytes of the index file overwritten as a failing disk would. The index is derived data: the
CLI says what it found with the remedy the server gives (one wording, ``REINDEX_REMEDY``), builds it again, and
answers as the undamaged index did; the hit is the prompt's own line of the transcript.
"""

from __future__ import annotations

import json

from asz_core.reading.search import INDEX_PATH
from asz_core.reading.search_place import REINDEX_REMEDY
from cli_helpers import asz_in_process

PHRASE = '"Write a shell script called hello"'


def _search(root, *extra):
    return asz_in_process("search", PHRASE, "--json", *extra, "--root", str(root))


def test_a_malformed_index_is_said_with_its_remedy_and_built_again(corpus_source, corpus_copy):
    # the phrase is in one conversation's first prompt (its transcript's own line)
    [src] = [p for p in corpus_source.rglob("*.jsonl") if "Write a shell script called hello" in p.read_text("utf-8", "replace")]
    root = corpus_copy()
    first = _search(root)
    assert first.returncode == 0, first.stderr
    before = json.loads(first.stdout)
    assert {h["conversation"] for h in before} == {src.stem}
    index = root / INDEX_PATH
    data = bytearray(index.read_bytes())
    data[4096:4096 * 6] = b"\xab" * (4096 * 5)  # pages 2-6: what SQLite calls a malformed disk image
    index.write_bytes(bytes(data))
    for log in ("-wal", "-shm"):
        index.with_name(index.name + log).unlink(missing_ok=True)
    p = _search(root)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"asz search: warning: cannot write the search index {index}: database disk image is malformed " \
           f"({REINDEX_REMEDY}); it is derived data: deleted and built again now (as --reindex does)" in p.stderr
    assert json.loads(p.stdout) == before
    again = _search(root)
    assert again.returncode == 0 and "warning" not in again.stderr and json.loads(again.stdout) == before

