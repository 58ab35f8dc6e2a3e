"""After ``asz prune`` every reader says the conversation was removed by retention (trial 15, F5): ``asz conversation``
and ``asz export`` (md, html) title it ``(removed by retention)`` as ``asz ls`` does, place it ``(removed by
retention)`` instead of "no working directory recorded", and say when and what the skeletons keep; ``asz search``
notes the pruned sessions are not searchable. Trial 19: the title is the document's own, so ``asz ls --json``, the
``--audit`` header and the document say ``(removed by retention)`` too, never ``(no prompt)`` (F15); the document's
``summary.removed`` says what went, from the skeletons' headers; a pruned tool call's input says it was removed in the
audit form (F16); and what is said of the working directory is true of the skeleton's header, which keeps ``src``
(F14).

Real input: the corpus project -home-user-claude-reliability (one session), collected by ``asz collect --once`` and
pruned by ``asz prune`` (retention ``after: 0``). The expected figures are read from the landed files before the
prune (their count and bytes) and from the skeletons' own headers (``removed.at``).
"""

from __future__ import annotations

import gzip
import shutil

import orjson
import pytest
from reading_helpers import asz, asz_json

from asz_core.storage.layout import landed_files, session_dirs

PROJECT = "-home-user-claude-reliability"


@pytest.fixture(scope="module")
def pruned(corpus_dir, tmp_path_factory):
    base = tmp_path_factory.mktemp("pruned")
    shutil.copytree(corpus_dir / "claude-code" / "projects" / PROJECT, base / "projects" / PROJECT)
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    (sdir,) = session_dirs(root)
    before = [p for _, p in landed_files(sdir)]
    size = sum(p.stat().st_size for p in before)
    (base / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz("prune", "--root", str(root), "--config", str(base / "asz.yaml"))
    skeletons = [p for ln, p in landed_files(sdir, skeletons=True) if ln.ext == "sk"]
    assert len(skeletons) == len(before)
    at = max(orjson.loads(gzip.open(p).readline())["removed"]["at"] for p in skeletons)
    return root, sdir.name, len(before), size, at


def _skeleton_records(root):
    """(header, records) of each skeleton under ``root``, read as any reader reads them (gzip, one JSON per line)."""
    out = []
    for sdir in session_dirs(root):
        for ln, p in landed_files(sdir, skeletons=True):
            lines = [orjson.loads(x) for x in gzip.open(p).read().splitlines()]
            out.append((lines[0], lines[1:-1]))
    return out


def test_conversation_says_it(pruned):
    root, cid, n, size, at = pruned
    out = asz("conversation", cid, "--root", str(root)).stdout.splitlines()
    assert out[0] == f"conversation {cid}: (removed by retention)"
    assert out[1].startswith(f"removed by retention at {at}: {n} of {n} landed file(s) ({size:,} bytes) are skeletons")
    assert out[2].startswith("project (removed by retention), claude-code")
    assert not any("no prompt" in x or "no working directory" in x for x in out)


def test_export_says_it(pruned):
    root, cid, n, size, at = pruned
    md = asz("export", cid, "--root", str(root), "--format", "md").stdout
    assert md.startswith("# (removed by retention)\n")
    assert f"- removed by retention at {at}: {n} of {n} landed file(s) ({size:,} bytes)" in md
    assert "- project (removed by retention), claude-code" in md and "no working directory" not in md
    page = asz("export", cid, "--root", str(root), "--format", "html").stdout
    assert f"removed by retention at {at}: {n} of {n} landed file(s)" in page and "(no prompt)" not in page


def test_search_notes_the_pruned_sessions(pruned):
    root, cid, _, _, _ = pruned
    r = asz("search", "the", "--root", str(root))
    assert r.returncode == 0
    want = (f"1 session(s) in this root were removed by retention (asz prune): their skeletons keep no text (only the records' "
            f"labels, a runtime's title among them, kept for the structure and never shown), so they are not searchable: {cid[:8]}")
    assert f"asz search: note: {want}" in r.stderr.splitlines() and f"! {want}" in r.stdout.splitlines()
    # trial 36b F1: every form says it; --conversations printed "0 conversation(s)" and nothing else
    r = asz("search", "the", "--conversations", "--root", str(root))
    assert r.stdout.splitlines()[-2:] == ["0 conversation(s) in " + r.stdout.splitlines()[-2].split(" in ", 1)[1],
                                          f"! {want}"], r.stdout
    assert f"asz search: note: {want}" in r.stderr.splitlines()
    for form in (("--json",), ("--json", "--conversations"), ("--json", "--held-back")):
        r = asz("search", "the", *form, "--root", str(root))
        assert f"asz search: note: {want}" in r.stderr.splitlines(), form
        assert orjson.loads(r.stdout) in ([], {"hits": [], "held_back": [], "partial": False, "indexing": 0, "across": 0}) or \
            orjson.loads(r.stdout).get("hits") == [], (form, r.stdout)


def test_every_json_reader_titles_it_as_the_table_does(pruned):
    """F15: ``asz ls --json``, the ``--audit`` header and the document carry the title the table shows."""
    root, cid, n, size, at = pruned
    (row,) = asz_json("ls", "--root", str(root), "--json")
    assert (row["title"], row["removed_files"]) == ("(removed by retention)", n)
    doc = asz_json("conversation", cid, "--root", str(root), "--json")
    assert doc["summary"]["title"] == "(removed by retention)"
    assert doc["summary"]["removed"] == {"files": n, "landed": n, "bytes": size, "at": at}
    head = orjson.loads(asz("export", cid, "--root", str(root), "--format", "prose", "--audit").stdout.splitlines()[0])
    assert (head["title"], head["removed_files"]) == ("(removed by retention)", n)
    table = asz("ls", "--root", str(root)).stdout
    assert "(removed by retention)" in table and "(no prompt)" not in table
    # the skeleton's header is the landed one whole: the row keeps its dialect, and --dialect finds it
    assert row["dialect"] == "claude-code/1"
    assert [r["id"] for r in asz_json("ls", "--root", str(root), "--json", "--dialect", "claude-code")] == [cid]


def test_a_pruned_tool_call_says_its_input_was_removed(pruned):
    """F16: each call part of the skeletons is a ``tool_call`` line ``NAME: [removed by retention: BYTES bytes]``, with
    the part's own ``bytes`` (the size of the input that went)."""
    root, cid, _, _, _ = pruned
    calls = [(p["name"], p["bytes"]) for _, recs in _skeleton_records(root) for r in recs for p in r.get("parts", ())
             if p.get("k") == "call"]
    assert calls and all(isinstance(b, int) and b > 0 for _, b in calls)
    lines = [orjson.loads(x) for x in asz("export", cid, "--root", str(root), "--format", "prose", "--audit").stdout.splitlines()]
    said = [x["text"] for x in lines if x["kind"] == "tool_call"]
    assert said == [f"{name}: [removed by retention: {b:,} bytes]" for name, b in calls]


def test_what_is_said_of_the_working_directory_is_true_of_the_skeleton(pruned):
    """F14: the skeleton's header is the landed header whole (seed 000), so it keeps ``src`` (the Claude Code project
    folder's name); the line every reader prints names that field instead of saying the directory went, and no
    record of the skeleton keeps a ``cwd``."""
    root, cid, _, _, _ = pruned
    got = _skeleton_records(root)
    assert got and all(h["src"].startswith(PROJECT + "/") for h, _ in got)
    assert not any("cwd" in orjson.dumps(r).decode() for _, recs in got for r in recs)
    line = asz("conversation", cid, "--root", str(root)).stdout.splitlines()[1]
    assert "each record's working directory (cwd) went with the text" in line
    assert line.endswith("each skeleton's header keeps src, the source file's path as the runtime named it (it may hold the "
                         "working directory's name), and asz reads no project from it")


def test_usage_dialect_keeps_a_pruned_conversation_as_ls_does(pruned, corpus_dir):
    """``asz usage --dialect`` read a conversation's dialect from its landed ``.sd`` files alone, so a pruned one (its
    files skeletons) matched no dialect there while ``asz ls --dialect`` kept it (session 24): one rule now
    (:func:`asz_core.view.titles.dialect_of`, a skeleton's header too). The dialect is the skeleton's own header's."""
    root, cid, n, size, at = pruned
    calls = set()  # the source's model calls: one per message id and request id of its assistant lines
    for path in (corpus_dir / "claude-code" / "projects" / PROJECT).glob("*.jsonl"):
        for line in path.read_bytes().splitlines():
            d = orjson.loads(line)
            if d.get("type") == "assistant" and d["message"].get("model") != "<synthetic>":
                calls.add((d["message"]["id"], d.get("requestId")))
    (sk, *_) = [p for ln, p in landed_files(root / cid, skeletons=True)]
    dialect = orjson.loads(gzip.open(sk).readline())["dialect"]
    (row,) = asz_json("ls", "--json", "--dialect", dialect.split("/")[0], "--root", str(root))
    assert (row["id"], row["dialect"]) == (cid, dialect)
    for asked in (dialect, dialect.split("/")[0]):
        got = asz_json("usage", "session", "--json", "--dialect", asked, "--root", str(root))
        assert [r["conversation"] for r in got] == [cid] and got[0]["calls"] == len(calls) > 0, got
