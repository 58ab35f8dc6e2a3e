"""``asz.conversation.title`` on the wire is the title ``asz ls`` gives (trial 7, title gap 5).

A round header's title is assembly's: the last label on a record with no id of its own, read from the index, which
holds no content, so it cannot tell a Claude Code ``summary`` record written for another session's message. Two small
transcripts of one project (tests/view/test_view_summary_titles.py): A's last summary names B's message, B's only
summary names A's. Pushed to a receiver built straight on opentelemetry-proto's service definition, every round of
each conversation carries the title ``asz ls --json`` lists, not the header's.
"""

from __future__ import annotations

import json
import sys
from concurrent import futures
from pathlib import Path

import grpc
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2_grpc

from asz_core.export.push import push
from asz_core.export.settings import ExportConfig

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view"))
from claude_lines import collect_claude  # noqa: E402
from cli_helpers import asz_in_process  # noqa: E402
from test_view_summary_titles import A, B, SESSIONS  # noqa: E402
from test_wire import _Collector, _kv  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))
import test_continued_title as resumed  # noqa: E402


def _sent_titles(root: Path) -> dict[str, set]:
    """Push ``root`` to a receiver built on opentelemetry-proto's service definition; conversation -> the
    ``asz.conversation.title`` values its rounds were sent with."""
    col = _Collector()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(col, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        rep = push(root, ExportConfig(instance_id="me@laptop", metrics=False), endpoint=f"grpc://127.0.0.1:{port}")
    finally:
        server.stop(0)
    assert rep.problems == []
    sent: dict[str, set] = {}
    for req in col.requests:
        for rl in req.resource_logs:
            for rec in (r for sl in rl.scope_logs for r in sl.log_records):  # a pass's probe: a resource, no record
                a = _kv(rec.attributes)
                if a["asz.file.kind"][1] == "round":
                    sent.setdefault(a["asz.conversation"][1], set()).add(a.get("asz.conversation.title", ("", ""))[1])
    return sent


def test_a_resumed_copy_is_sent_with_the_continued_title(corpus_dir, tmp_path):
    """A resumed copy with no prompt of its own (tests/view_server/test_continued_title.py builds it from the corpus's
    326189cf) goes out titled ``(continues 326189cf) ! uv run ty check``, as asz ls lists it, not with the title of
    the records it repeats; the conversation it continues keeps its own."""
    root, want = resumed.resumed_root(corpus_dir, tmp_path)
    p = asz_in_process("ls", "--json", "--root", str(root))
    listed = {r["id"]: r["title"] for r in json.loads(p.stdout)}
    assert listed[resumed.B] == want and listed[resumed.A] == "! uv run ty check"
    sent = _sent_titles(root)
    assert sent[resumed.B] == {want} and sent[resumed.A] == {"! uv run ty check"}


def test_each_round_carries_the_title_asz_ls_gives(tmp_path):
    root = collect_claude(tmp_path, SESSIONS)
    p = asz_in_process("ls", "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    listed = {r["id"]: r["title"] for r in json.loads(p.stdout)}
    assert listed == {A: "Parser fixes in session A", B: "Docs written in session B"}  # A's summary for B's message (trial 41c F2)
    headers = {c: json.loads(next((root / "_conversations" / c / "rounds").glob("*.sf")).read_bytes().split(b"\n", 1)[0])["title"]
               for c in listed}
    assert headers == {A: "Docs written in session B", B: "Parser fixes in session A"}  # assembly's: another session's
    assert _sent_titles(root) == {c: {t} for c, t in listed.items()}


def test_the_corpus_rounds_are_sent_with_the_titles_asz_ls_lists(corpus_copy):
    """On the shared corpus (three transcripts hold ``summary`` records, each naming another session's message), every
    round's ``asz.conversation.title`` as push makes it is the title ``asz ls`` lists."""
    from asz_core.export.wire import RoundTitles, log_record, outbox

    root = corpus_copy()
    p = asz_in_process("ls", "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    listed = {r["id"]: r["title"] for r in json.loads(p.stdout)}
    assert len(listed) == 11 and all(listed.values())
    titles, sent = RoundTitles(root), {}
    for f in outbox(root):
        if f.fmt == "sf":
            data = f.path.read_bytes()
            a = _kv(log_record(f, data, title=titles(data)).record.attributes)
            sent[a["asz.conversation"][1]] = a["asz.conversation.title"][1]
    assert sent == listed
