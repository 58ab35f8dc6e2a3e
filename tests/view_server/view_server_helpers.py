"""Helpers for the asz view / asz server tests: real servers in subprocesses, raw HTTP, scenario sources.

Everything here talks to a real ``asz view`` over loopback: the server runs as
``python -m asz_core.cli.main view --root … --port …`` (a child forked from tests/forked.py's pre-imported server
unless a prefix, a preexec_fn or other code on PYTHONPATH asks for a new interpreter) and requests go out with
``http.client`` so a path is sent exactly as written (no ``..`` folding).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

import forked

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "claude-code" / "projects"
EXAMPLE_SESSION = "7d2f1c3e-5b8a-4e61-9f0d-2a4c6e8b1d35"
CANARY_SESSION = "c0ffee00-0000-4000-8000-00000000ca11"
#: A string that appears only in the canary session's system prompt and tool schemas.
MARKER = "CANARY-7f3a9d1e-SYSTEM-AND-TOOLS"
#: A colour CSI, DEL, NEL, a one-byte C1 CSI (screen clear), a C1 OSC window title ended by ST, a right-to-left
#: override closed by PDF, and a left-to-right isolate (:func:`control_lines`).
ODD = "esc \x1b[31mred\x1b[0m del \x7f nel \x85 csi \x9b2J osc \x9d0;t\x9c rlo \u202eevil\u202c iso \u2066x\u2069 end"
#: ``ODD`` as the terminal's escapes write it (asz_core.reading.termtext.visible): the colour CSI, terminal formatting,
#: removed; every other control written as its escape.
ODD_SHOWN = ("esc red del \\x7f nel \\x85 csi \\x9b2J osc \\x9d0;t\\x9c rlo \\u202eevil\\u202c"
             " iso \\u2066x\\u2069 end")
XSS_PROMPT = 'Please check <script>window.__pwned=1</script> and <img src=x onerror="window.__pwned=2"> & report'
LONG_LINE = "log line {:04d}: the quick brown fox jumps over the lazy dog\n"


def browser_or_none(request):
    """The run's browser (tests/conftest.py), or None when it is skipped (not installed): for a test whose API
    assertions hold either way and that checks the page too when it can."""
    import pytest

    try:
        return request.getfixturevalue("browser")
    except pytest.skip.Exception:
        return None


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def asz(*args: str, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the ``asz`` command line in a child process forked from the pre-imported server (:func:`forked.run`: its
    own pid, exit status and output, without the interpreter's 0.4 s start-up); raise on a non-zero exit when
    ``check``. A test about start-up or ``/proc/PID/cmdline`` starts its own interpreter (tests/forked.py)."""
    p = forked.run([sys.executable, "-m", "asz_core.cli.main", *args], capture_output=True, text=True, timeout=timeout, cwd=REPO)
    if check and p.returncode != 0:
        raise AssertionError(f"asz {' '.join(args)} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def asz_here(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """:func:`asz` run in this process (:func:`cli_helpers.asz_in_process`, from the repository's folder): the same
    command code, some 0.4 s of CPU less a command, for set-ups and readers where the process is not what is tested."""
    from cli_helpers import asz_in_process

    p = asz_in_process(*args, cwd=REPO)
    if check and p.returncode != 0:
        raise AssertionError(f"asz {' '.join(args)} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def parse(root: Path) -> None:
    """Assemble every session of ``root`` into rounds (the parse that ``asz collect`` is followed by)."""
    from asz_core.flow.parse import parse_root

    report = parse_root(root)
    assert report.ok, report.problems


def collect_and_parse(source: Path, root: Path) -> None:
    """``asz collect --once --source SOURCE --root ROOT``, then parse."""
    asz("collect", "--once", "--source", str(source), "--root", str(root))
    parse(root)


class Resp:
    """One HTTP answer: ``status``, ``headers`` (lower-case names), ``body`` bytes."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        """The body decoded as JSON."""
        return orjson.loads(self.body)

    def __repr__(self) -> str:
        return f"Resp({self.status}, {self.body[:200]!r})"


class Served:
    """A running ``asz view`` (or ``asz server``) subprocess on a loopback port.

    ``get(path)`` sends ``path`` as written (query included) and returns a
    :class:`Resp`. ``stop()`` terminates the process; ``output()`` is what it
    printed on stdout and stderr. ``prefix``: what runs it (``setpriv … --``, so that file modes bind it as root).
    The process is forked from the pre-imported server (:class:`forked.Popen`), or a new interpreter with a
    ``prefix``, a ``preexec_fn`` or a ``PYTHONPATH`` in ``env`` (other code: a forked child has the server's modules;
    tests/forked.py says what a forked child is not).
    """

    def __init__(self, args: list[str], workdir: Path, *, timeout: float = 30.0, env: dict | None = None, preexec_fn=None,
                 probe: str = "/api/status", prefix: list[str] = (), token: bool = False, port: int | None = None):
        """``token``: ``args`` hold ``--token``; :attr:`token` is the banner's, and every request carries it as
        ``Authorization: Bearer``. ``port``: the one to listen on (a server started again where a page still polls),
        else a free one."""
        self.token = None
        self.port = port or free_port()
        self.host = "127.0.0.1"
        self.log = workdir / f"server-{self.port}.log"
        self.err = workdir / f"server-{self.port}.err"
        full_env = dict(os.environ)
        full_env.pop("ASZ_DISABLE_ADAPTERS", None)
        full_env.update(env or {})
        self.started = time.monotonic()
        popen = subprocess.Popen if prefix or preexec_fn or "PYTHONPATH" in (env or {}) else forked.Popen
        self.proc = popen(
            [*prefix, sys.executable, "-m", "asz_core.cli.main", *args, "--port", str(self.port)],
            stdout=open(self.log, "wb"), stderr=open(self.err, "wb"), cwd=workdir, env=full_env, preexec_fn=preexec_fn,
        )
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"asz {' '.join(args)} exited {self.proc.returncode} before serving:\n{self.output()}")
            if token and self.token is None:  # the banner's address holds it (/t/TOKEN/)
                said = self.log.read_text(errors="replace") if self.log.exists() else ""
                if m := re.search(r"^listening: http://\S+?/t/([A-Za-z0-9_-]+)/$", said, re.M):
                    self.token = m.group(1)
                else:
                    assert time.monotonic() < deadline, self.output()
                    time.sleep(0.1)
                    continue
            try:
                self.first = self.get(probe)  # the first request the server answers (``probe``, by default /api/status)
                if self.first.status == 200:
                    self.answered = time.monotonic() - self.started  # seconds from start to the first answer
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"asz {' '.join(args)} did not answer within {timeout}s:\n{self.output()}")
            time.sleep(0.1)

    @property
    def base(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://{self.host}:{self.port}"

    def get(self, path: str, headers: dict[str, str] | None = None, method: str = "GET") -> Resp:
        """Send one request with ``path`` exactly as given."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            conn.putrequest(method, path, skip_accept_encoding=True)
            if self.token and not any(k.lower() in ("authorization", "cookie") for k in (headers or {})):
                conn.putheader("Authorization", f"Bearer {self.token}")
            for k, v in (headers or {}).items():
                conn.putheader(k, v)
            conn.endheaders()
            r = conn.getresponse()
            return Resp(r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
        finally:
            conn.close()

    def output(self) -> str:
        """stdout then stderr of the server so far."""
        out = self.log.read_text(errors="replace") if self.log.exists() else ""
        err = self.err.read_text(errors="replace") if self.err.exists() else ""
        return out + ("\n--- stderr ---\n" + err if err else "")

    def stop(self) -> None:
        """Terminate the server (SIGTERM, then SIGKILL after 10 s)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def first_pass(served: "Served", timeout: float = 120.0) -> dict:
    """``asz server``'s ``/api/status`` ``last_pass`` once its first collect pass ended; polls until then, failing
    after ``timeout`` seconds with what the server printed."""
    deadline = time.monotonic() + timeout
    while not (status := served.get("/api/status").json()).get("last_pass"):
        assert time.monotonic() < deadline, served.output()
        time.sleep(0.2)
    return status["last_pass"]


def counted_rows(served: "Served", query: str = "", timeout: float = 180.0) -> list[dict]:
    """The ``/api/conversations`` rows once none is still being counted (issue 22: the list answers at once and its
    rows fill in behind); polls until then, failing after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        rows = served.get("/api/conversations" + query).json()["conversations"]
        if not any(r.get("counting") for r in rows):
            return rows
        assert time.monotonic() < deadline, f"rows still counted after {timeout}s: {[r['id'] for r in rows if r.get('counting')]}"
        time.sleep(0.1)


def write_config(path: Path, *, hide: list[str] | None = None, override: bool | None = None) -> Path:
    """An asz.yaml with a ``view`` section (``hide`` list, ``hide_override``)."""
    lines = ["view:"]
    lines.append(f"  hide: {json.dumps(hide or [])}")
    if override is not None:
        lines.append(f"  hide_override: {'true' if override else 'false'}")
    path.write_text("\n".join(lines) + "\n")
    return path


def collect_one(source: Path, base: Path) -> Path:
    """``base/root``: one source transcript (a corpus file) copied into ``base/projects/<its project>`` and collected
    by the real ``asz collect --once``."""
    projects = base / "projects" / source.parent.name
    projects.mkdir(parents=True)
    shutil.copy(source, projects)
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    return base / "root"


def copy_example(dest: Path) -> Path:
    """A copy of the bundled example projects dir at ``dest``; returns ``dest``."""
    shutil.copytree(EXAMPLE, dest)
    return dest


# --------------------------------------------------------------------------- the canary session


def _env(uuid: str, parent: str | None, t: str, type_: str, **kw: Any) -> dict:
    d = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/canary", "sessionId": CANARY_SESSION,
         "version": "2.1.114", "gitBranch": "main", "entrypoint": "cli", "type": type_, "uuid": uuid, "timestamp": t}
    d.update(kw)
    return d


def _assistant(uuid: str, parent: str, t: str, msg: str, content: list, stop: str | None, prompt: str) -> dict:
    return _env(uuid, parent, t, "assistant", promptId=prompt, requestId=f"req_{msg}",
                message={"id": msg, "type": "message", "role": "assistant", "model": "claude-opus-5", "content": content,
                         "stop_reason": stop, "usage": {"input_tokens": 10, "output_tokens": 20}})


def canary_lines() -> list[dict]:
    """A Claude Code session whose system prompt and tool schemas carry :data:`MARKER`.

    One talk: a prompt holding markup (:data:`XSS_PROMPT`), a prompt snapshot
    (system prompt + tool schemas), a deferred tools record, a Bash call with a
    5,000-byte result (clipped in the document), a failed Bash call and a reply.
    """
    p = "p-canary-0001"
    big = "".join(LONG_LINE.format(i) for i in range(80))
    return [
        _env("u-1", None, "2026-11-21T10:00:00.000Z", "user", promptId=p, origin={"kind": "human"},
             message={"role": "user", "content": XSS_PROMPT}),
        _env("att-1", "u-1", "2026-11-21T10:00:00.100Z", "attachment", promptId=p,
             attachment={"type": "prompt_snapshot", "systemPrompt": f"You are a careful agent. {MARKER} (system prompt)",
                         "tools": [{"name": "Bash", "description": f"Run a command. {MARKER} (tool schema)",
                                    "input_schema": {"type": "object", "properties": {"command": {"type": "string", "description": MARKER}}}}]}),
        _env("att-2", "att-1", "2026-11-21T10:00:00.200Z", "attachment", promptId=p,
             attachment={"type": "deferred_tools_record", "tools": [{"name": "WebFetch", "description": f"Fetch a page. {MARKER} (deferred)"}]}),
        _assistant("a-1", "att-2", "2026-11-21T10:00:02.000Z", "msg_c1",
                   [{"type": "tool_use", "id": "toolu_c1", "name": "Bash", "input": {"command": "cat build.log", "description": "Read the build log"}}],
                   "tool_use", p),
        _env("u-2", "a-1", "2026-11-21T10:00:03.500Z", "user", promptId=p, sourceToolAssistantUUID="a-1",
             message={"role": "user", "content": [{"tool_use_id": "toolu_c1", "type": "tool_result", "content": big, "is_error": False}]},
             toolUseResult={"stdout": big, "stderr": "", "interrupted": False, "isImage": False}),
        _assistant("a-2", "u-2", "2026-11-21T10:00:05.000Z", "msg_c2",
                   [{"type": "tool_use", "id": "toolu_c2", "name": "Bash", "input": {"command": "make deploy", "description": "Deploy"}}],
                   "tool_use", p),
        _env("u-3", "a-2", "2026-11-21T10:00:06.000Z", "user", promptId=p, sourceToolAssistantUUID="a-2",
             message={"role": "user", "content": [{"tool_use_id": "toolu_c2", "type": "tool_result", "content": "make: *** No rule to make target 'deploy'.  Stop.", "is_error": True}]},
             toolUseResult="Error: make: *** No rule to make target 'deploy'.  Stop."),
        _assistant("a-3", "u-3", "2026-11-21T10:00:08.000Z", "msg_c3",
                   [{"type": "text", "text": "The log is long and deploy has no make target."}], "end_turn", p),
        {"type": "ai-title", "aiTitle": "Canary check", "sessionId": CANARY_SESSION},
    ]


def control_lines() -> list[dict]:
    """The canary session as one talk whose prompt is :data:`ODD` and whose reply is ``"reply " + ODD``."""
    return [_env("u-1", None, "2026-11-21T10:00:00.000Z", "user", promptId="p1", origin={"kind": "human"},
                 message={"role": "user", "content": ODD}),
            _assistant("a-1", "u-1", "2026-11-21T10:00:02.000Z", "msg_1", [{"type": "text", "text": "reply " + ODD}],
                       "end_turn", "p1")]


def control_root(base: Path) -> Path:
    """:func:`control_lines` written under ``base/src``, collected and parsed into ``base/root`` (returned)."""
    write_session(base / "src", control_lines())
    collect_and_parse(base / "src", base / "root")
    return base / "root"


def second_talk_lines() -> list[dict]:
    """Lines appended to the canary session later: a second talk (a new question and its reply)."""
    p = "p-canary-0002"
    return [
        _env("u-10", "a-3", "2026-11-21T10:05:00.000Z", "user", promptId=p, origin={"kind": "human"},
             message={"role": "user", "content": "Second question: is the log still long?"}),
        _assistant("a-10", "u-10", "2026-11-21T10:05:02.000Z", "msg_c10",
                   [{"type": "text", "text": "Yes, still 80 lines."}], "end_turn", p),
    ]


def write_session(source: Path, lines: list[dict], *, append: bool = False) -> Path:
    """Write (or append) ``lines`` as the canary session's transcript under ``source`` (a projects dir)."""
    proj = source / "-home-dev-canary"
    proj.mkdir(parents=True, exist_ok=True)
    path = proj / f"{CANARY_SESSION}.jsonl"
    with open(path, "ab" if append else "wb") as f:
        for d in lines:
            f.write(orjson.dumps(d) + b"\n")
    return path


def add_provider_body(root: Path, session: str, *, garbage: bool = False) -> tuple[int, Path]:
    """Land one provider_body file after the session's last seq (``garbage``: a file whose header does not read)."""
    from asz_core.sessiondata import SDWriter
    from asz_core.sessiondata.model import Header, Part, Record
    from asz_core.storage.layout import landed_files, landed_name

    sdir = root / session
    seq = max(ln.seq for ln, _ in landed_files(sdir)) + 1
    d = sdir / "provider_body"
    d.mkdir(exist_ok=True)
    path = d / landed_name("provider_body", "20261121T100100.000000000Z", seq)
    if garbage:
        path.write_bytes(b"this is not a header\n{\"t\":\"end\",\"records\":0,\"digest\":\"00\"}\n")
        return seq, path
    w = SDWriter(path, Header(kind="provider_body", session=session, src=".", dialect="claude-code-provider/1", adapter="test/0.0.0", seq=seq,
                              at="2026-11-21T10:01:00Z"), fsync=False)
    w.write(Record(ord=1, off=0, bytes=40, id="body-1", call="msg_c1", model="claude-opus-5",
                   parts=[Part(k="data", data={"role": "response", "id": "msg_c1"}, state="available", bytes=40)]))
    w.close()
    return seq, path


def all_landed_rows(root: Path, session: str) -> list[tuple[int, int]]:
    """(seq, row) of every record of every landed file of ``session``."""
    from asz_core.sessiondata import SDReader
    from asz_core.storage.layout import landed_files

    out = []
    for ln, path in landed_files(root / session):
        try:
            for row, _ in SDReader(path):
                out.append((ln.seq, row))
        except Exception:
            continue
    return out


#: The corpus session whose first prompt :func:`corpus_with_guillemets` rewrites, and what it puts before that prompt.
HELLO_SESSION = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
GUILLEMET_PREFIX = "Le mot «bonjour» se dit «hello» ; "


def corpus_with_guillemets(corpus_projects: Path, dest: Path) -> Path:
    """A projects folder holding the corpus's ``-home-user-claude-reliability`` project with its first prompt (``Write a
    shell script called hello.sh …``) starting with :data:`GUILLEMET_PREFIX`: literal « and » in a real transcript."""
    src = corpus_projects / "-home-user-claude-reliability" / f"{HELLO_SESSION}.jsonl"
    out = dest / "-home-user-claude-reliability"
    out.mkdir(parents=True, exist_ok=True)
    text = src.read_text(encoding="utf-8")
    before = '"content":"Write a shell script called hello.sh'
    assert text.count(before) == 1, "the corpus's hello session changed"
    (out / src.name).write_text(text.replace(before, before.replace("Write", GUILLEMET_PREFIX + "Write")), encoding="utf-8")
    return dest


def edit_keeping_times(path: Path, old: bytes, new: bytes, timeout: float = 30.0) -> os.stat_result:
    """Change ``old`` (found once) to ``new`` (as long) inside landed file ``path`` in place, as an editor hiding its
    trace would (trial 3, F1/F7/F18): same inode and size, its mode (0444) back and atime/mtime put back with
    ``os.utime``. Only the change time moves (nobody can set it); on a file system whose clock ticks coarsely the edit
    is repeated until it has moved. Returns the file's stat before the edit."""
    assert len(old) == len(new)
    before = path.stat()
    at = path.read_bytes().index(old)
    deadline = time.monotonic() + timeout
    while True:
        os.chmod(path, 0o600)
        with open(path, "r+b") as f:
            f.seek(at)
            f.write(new)
        os.chmod(path, before.st_mode & 0o7777)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        after = path.stat()
        if after.st_ctime_ns != before.st_ctime_ns:
            break
        assert time.monotonic() < deadline, f"the change time of {path} did not move in {timeout}s"
        time.sleep(0.01)
    assert (after.st_size, after.st_mtime_ns, after.st_ino, after.st_mode) == (before.st_size, before.st_mtime_ns, before.st_ino, before.st_mode)
    assert path.read_bytes().count(new) >= 1
    return before


def whole_usage(served: "Served", timeout: float = 120.0) -> dict:
    """``/api/usage`` once every conversation is counted (``complete``: the server counts them behind its first
    answer); fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        u = served.get("/api/usage").json()
        if u["complete"]:
            return u
        assert time.monotonic() < deadline, f"/api/usage not complete after {timeout}s: {u.get('counted')} of {u.get('conversations')}"
        time.sleep(0.2)


def until(get, ok, timeout: float, what: str, served: "Served"):
    """``get()`` polled every 0.2 s until ``ok`` holds for what it returns (returned); fails after ``timeout`` seconds
    naming ``what``, the last answer and the server's output."""
    deadline = time.monotonic() + timeout
    while True:
        got = get()
        if ok(got):
            return got
        assert time.monotonic() < deadline, f"{what} not seen within {timeout}s; last: {got!r}\n{served.output()}"
        time.sleep(0.2)


def one_search_slot_app(root):
    """``(app, held, release)``: the real app over ``root`` with the reading room's routes (as ``asz view`` serves
    them), its searches bounded to one at a time, and ``/api/slow``, a request that takes that slot (``held`` set
    once it does) and keeps it until ``release`` is set (60 s at most): past it, ``/api/search`` is a 503 ``busy``."""
    import threading

    from asz_core.cli import server_cmd
    from asz_core.view.app import json_answer
    from asz_core.view.at_once import AtOnce
    from asz_core.view.server import ViewState, create_app

    bound, held, release = AtOnce(1, "searches"), threading.Event(), threading.Event()

    def slow(root, pairs, hide, error):  # what takes the one slot: a search still running
        held.set()
        release.wait(60)
        return {}

    extra = [*server_cmd._reading_routes(bound), ("/api/slow", json_answer(bound.bounded(slow)))]
    return create_app(ViewState(root), extra=extra), held, release
