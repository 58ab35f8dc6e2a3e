"""The pass that keeps the list rows keeps what ``/api/usage`` and ``asz usage tools`` read too (trial 46c F3, 46d F3/F8).

``/api/usage`` summed only what the server's background checker built after the pass, one conversation at a time, so
it said ``complete: false`` for minutes after the first pass; and a cold ``asz usage tools`` read every conversation
from its files (10-19 s over 250 MB). Now each row the pass counts comes from one whole build that also writes the
record the checker reads (``_index/found``, keyed as the server keys it) and the tools entry ``asz usage tools`` reads
(asz_core/reading/kept_whole.py). Real input: the corpus's Claude Code transcripts collected by the real ``asz
collect --once``; the figures are counted here straight from the JSONL (tests/source_calls.py), never from asz's output.
A record of another build of asz, and a root whose rows were kept before records were (no record), are built again by
the checker and give the same answer.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path

import orjson
import pytest

from source_calls import source_calls, source_tool_ids
from view_server_helpers import asz


@pytest.fixture(scope="module")
def collected(corpus_projects: Path, tmp_path_factory) -> Path:
    """The corpus collected into a root of this module's own (a copy's files have new inodes and change times, so a
    copy's records and rows are keyed to other files: only the collected root itself shows what its pass kept)."""
    root = tmp_path_factory.mktemp("pass-keeps") / "root"
    asz("collect", "--once", "--source", str(corpus_projects), "--root", str(root))
    return root


def _checked(root: Path) -> tuple[dict, int, int]:
    """``(/api/usage's answer, conversations the checker built, conversations it read from records)`` of a fresh
    :class:`~asz_core.view.state.ViewState` over ``root`` (asz server's, with no worker) once its checker is done."""
    from asz_core.view.state import ViewState

    state = ViewState(root, mode="server")
    state.check_all(threading.Event(), pause=0)
    return state.usage(), state.checked_built, state.kept_read


def test_usage_is_complete_from_what_the_pass_kept(collected: Path, corpus_projects: Path):
    calls, _ = source_calls(corpus_projects)
    conversations = sorted(p.name for p in (collected / "_conversations").iterdir())
    answer, built, read = _checked(collected)
    assert (built, read) == (0, len(conversations))  # every conversation's record kept by the pass: none built
    assert answer["complete"] is True and answer["counted"] == answer["conversations"] == len(conversations)
    t = answer["total"]
    assert t["calls"] == len(calls)
    assert t["in"] + t["out"] + t["cache_read"] + t["cache_write"] == sum(c["tokens"] for c in calls)


def test_a_cold_usage_tools_reads_the_entries_the_pass_kept(collected: Path, corpus_projects: Path):
    db = collected / "_index" / "summaries.sqlite"

    def entries() -> dict:
        with sqlite3.connect(db) as con:
            return {r[0]: r[1] for r in con.execute("SELECT id, entry FROM tools")}

    kept = entries()
    assert sorted(kept) == sorted(p.name for p in (collected / "_conversations").iterdir())
    got = json.loads(asz("usage", "tools", "--json", "--root", str(collected)).stdout)
    assert got["total"]["calls"] == len(source_tool_ids(corpus_projects)) and got["held_back"] == []
    assert entries() == kept  # read, none counted again from the files



def test_the_servers_first_tools_answer_reads_the_entries_the_pass_kept(collected: Path, corpus_projects: Path,
                                                                      monkeypatch):
    """``/api/tools``' answer in a fresh server reads the entries too, and gives ``asz usage tools --json``'s object
    (trial 48b F3: a server's first ``/api/tools`` read every conversation's files, 25.3 s over 295 MB)."""
    from asz_core.reading import tool_use
    from asz_core.view import document

    read, real = [], document.conversation_tool_calls
    monkeypatch.setattr(document, "conversation_tool_calls", lambda root, cid, hide: read.append(cid) or real(root, cid, hide))
    monkeypatch.setattr(tool_use, "_KEPT", {})
    got = tool_use.answer(collected, [], [], RuntimeError)
    assert read == []  # every conversation's calls from its kept entry
    assert got == json.loads(asz("usage", "tools", "--json", "--root", str(collected)).stdout)
    assert got["total"]["calls"] == len(source_tool_ids(corpus_projects)) and got["held_back"] == []

def test_a_record_of_another_build_and_a_missing_one_are_built_again(collected: Path):
    from asz_core.view.found_store import DIR, FoundStore

    answer, _, _ = _checked(collected)
    records = sorted((collected / DIR).glob("*/*.found"))
    older = records[0]  # sealed whole, its key made by another build of asz (another build mark): a miss, built again
    head = orjson.loads(older.read_bytes().split(b"\n")[0])
    head["key"] = FoundStore(collected, mark="0" * 16).key(older.parent.name, (), ("files",), None)
    data = orjson.dumps(head)
    older.write_bytes(data + b"\n" + hashlib.sha256(data).hexdigest().encode())
    again, built, read = _checked(collected)
    assert (built, read) == (1, len(records) - 1) and again == answer
    for r in records:  # a root whose rows were kept before the pass kept records: every conversation built
        r.unlink()
    again, built, read = _checked(collected)
    assert (built, read) == (len(records), 0) and again == answer


def test_the_records_are_keyed_as_the_server_keys_them_with_a_price_table_and_withheld_names(tmp_path: Path):
    """asz.yaml's ``prices`` and ``view.hide`` (in another order than the server's): the server, made from the same
    configuration as ``asz server`` makes it, reads every record the pass kept and builds none."""
    from asz_core.cli.server_cmd import _prices
    from asz_core.config import load_config
    from asz_core.view.state import ViewState
    from view_server_helpers import EXAMPLE

    conf = tmp_path / "asz.yaml"
    conf.write_text("view:\n  hide: [tool_schemas, system_prompt]\nprices:\n"
                    "  claude-opus-4-7: {input: 5, output: 25, cache_write: 6.25, cache_read: 0.5}\n")
    root = tmp_path / "root"
    asz("collect", "--once", "--source", str(EXAMPLE), "--root", str(root), "--config", str(conf))
    cfg = load_config(conf)
    state = ViewState(root, hide=cfg.view_hide, prices=_prices(cfg), mode="server")
    state.check_all(threading.Event(), pause=0)
    n = len(list((root / "_conversations").iterdir()))
    assert n and (state.checked_built, state.kept_read) == (0, n) and state.usage()["complete"] is True
