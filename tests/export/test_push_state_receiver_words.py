"""A receiver's words stored in ``push.state`` stay one word each (review35, fix36c item 3).

``asz push`` keeps two things a receiver's answer names: the file it holds a refused one in (``elsewhere <path>
all|part <its path>``) and the credentials of a session it holds as another's (``owned <path> <credential> all|part
<credential>``). A receiver (or anything answering on its address) chose those words. Before, a newline in one split
its ``push.state`` line in two, so the next ``asz push`` refused the whole file (``not a printable ASCII key``) and a
tab or a no-break space made the line's fields wrong. Now each word is stored with every line break, control, white
space and hidden character written as its escape (``asz_core.export.state.receiver_word``).

Real input: a corpus transcript collected by a real ``asz collect``; a real ``asz push`` child against a hostile
OTLP/HTTP server on loopback that accepts every request with a partial success naming each landed file as held
elsewhere and as another credential's, in words holding LF, U+2028, NEL, a tab, a no-break space and ESC.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceResponse

from asz_core.export.admit import ELSEWHERE
from asz_core.export.owners import CANNOT_ADD, OWNED_AT
from asz_core.export.state import PushState

from export_helpers import asz, collected_session

PROJECT = "-home-user-spotter"
SID = "55604662-cf2a-4331-851a-ec234028f8ca"
#: The words the hostile receiver gives: the path it holds the file in, the owner's and this root's credentials.
OTHER = "S/x.sd\nforged\u00a0line\u2028more\x1b]0;T\x07"
OWNER = "mal\nlory\tx"
MINE = "bob\x85pushed\u200b"


def _rels(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.glob("*/streams/*/*.sd"))


def _hostile(rels: list[str]):
    why = "; ".join(f"rejected {rel}: seq 1 {ELSEWHERE} {OTHER} (ord 0), so it cannot land beside them; the session "
                    f"{OWNED_AT}{OWNER}{CANNOT_ADD}{MINE} adds nothing" for rel in rels)

    class Hostile(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path.endswith("/logs"):
                resp = ExportLogsServiceResponse()
                resp.partial_success.rejected_log_records = len(rels)
                resp.partial_success.error_message = why
            else:
                resp = ExportMetricsServiceResponse()
            body = resp.SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    return Hostile


def test_a_receivers_words_in_push_state_break_no_line(tmp_path):
    host = collected_session(tmp_path, PROJECT, SID)  # skips where the corpus is absent
    rels = _rels(host)
    assert rels
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _hostile(rels))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        endpoint = f"http://127.0.0.1:{srv.server_port}"
        first = asz("push", "--root", str(host), "--endpoint", endpoint, cwd=tmp_path, child=True)
        state = (host / "push.state").read_bytes().decode()
        lines = state.splitlines()
        # every line one of push.state's own, every word as its escape (before: 'forged\xa0line' read as a key)
        assert all(line.split(" ", 1)[0] in ("schema", "updated_at", "endpoint", "pushed", "rejected", "elsewhere",
                                             "owned") for line in lines), state
        assert not any(c in state for c in ("\t", "\x1b", "\x07", "\x85", "\u2028", "\u00a0", "\u200b")), state
        st = PushState.load(host)  # reads: before, ValueError naming the line the newline began
        shown_other = "S/x.sd\\nforged\\u00a0line\\u2028more\\x1b]0;T\\x07"
        assert {rel: v for rel, v in st.elsewhere.items()} == {rel: ("part", shown_other) for rel in rels}, st.elsewhere
        assert st.owned == {rel: ("mal\\nlory\\tx", "part", "bob\\x85pushed\\u200b") for rel in rels}, st.owned
        assert sum(line.startswith("elsewhere ") for line in lines) == len(rels)
        again = asz("push", "--root", str(host), "--endpoint", endpoint, cwd=tmp_path, child=True)
    finally:
        srv.shutdown()
        srv.server_close()
    for p in (first, again):
        out = p.stdout + p.stderr
        assert "push.state: line" not in out and not any(c in out for c in ("\x1b", "\x07", "\x85", "\u2028")), out
        assert p.returncode == 1, out  # the receiver is short of this root's records: an error every pass
    assert "mal\\nlory\\tx" in again.stderr, again.stderr  # the owner as stored, on one line
