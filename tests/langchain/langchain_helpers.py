"""Helpers for the LangChain tests: a real receiver subprocess on a free loopback port, replay, an independent multipart reader."""

from __future__ import annotations

import gzip
import json
import os
import select
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import forked


ASZ = [sys.executable, "-c", "import sys; sys.argv[0] = 'asz'; from asz_core.cli.entry import main; main()"]
#: Headers a replay must not copy from a capture: the transport sets them for the bytes actually sent.
_HOP = {"content-length", "host", "connection", "transfer-encoding"}
#: The User-Agent the installed LangSmith client sends (langsmith/client.py ``_compute_headers``), given to a request
#: a test builds without one: the receiver takes a multipart request only with it or a key (trial 34c F2).
CLIENT_AGENT = "langsmith-py/0.15.1-httpx2"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Receiver:
    """``asz ingest langsmith`` running in a subprocess (the console entry, :data:`ASZ`, forked from the pre-imported
    server of tests/forked.py: a real process without the interpreter's start-up); ``url`` is its base address."""

    def __init__(self, root: Path, cwd: Path, *extra: str):
        self.root = root
        self.err = ""  # its stderr, once stopped
        deadline = time.monotonic() + 60  # a start, not a timing: a machine at load 18 took over 20 s (review32)
        for _ in range(5):  # another process may take the free port before the receiver binds it: a new port then
            self.port = free_port()
            self.url = f"http://127.0.0.1:{self.port}"
            self.proc = forked.Popen(
                [*ASZ, "ingest", "langsmith", "--root", str(root), "--listen", f"127.0.0.1:{self.port}", *extra],
                cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            # The receiver says "listening: http://HOST:PORT/" on stdout only once it holds the port (ingest_cmd):
            # polling the port instead took another process's answer for the receiver's (fix37e saw it at load 16).
            said = self._said_until_listening(deadline)
            if "\nlistening: " in "\n" + said and self._answers(deadline):
                return
            if self.proc.poll() is None:  # never left running after the test gave up on it (review32)
                self.proc.kill()
            out, err = self.proc.communicate(timeout=30)
            if b"in use" not in err or time.monotonic() > deadline:
                break
        raise RuntimeError(f"receiver did not start: {said!r} {err.decode()}")

    def _answers(self, deadline: float) -> bool:
        """Whether the receiver, having bound its port, answers HTTP before ``deadline`` (it listens only after)."""
        while self.proc.poll() is None and time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + "/info", timeout=1)
                return True
            except urllib.error.HTTPError:
                return True  # it answers (e.g. 401 with a token): it is up
            except OSError:
                time.sleep(0.1)
        return False

    def _said_until_listening(self, deadline: float) -> str:
        """What the receiver wrote on stdout until its ``listening:`` line, its exit or ``deadline`` (monotonic s).
        Read from the descriptor itself, so no byte waits in a buffer that ``select`` cannot see."""
        fd = self.proc.stdout.fileno()
        said = b""
        while time.monotonic() < deadline and b"listening: " not in said:
            if select.select([fd], [], [], 0.2)[0]:
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                said += chunk
            elif self.proc.poll() is not None:
                break
        return said.decode(errors="replace")

    def send(self, method: str, path: str, body: bytes, headers: dict) -> tuple[int, dict]:
        """Send one request as the LangSmith client does (its User-Agent unless ``headers`` name one); returns
        (status, decoded JSON answer)."""
        sent = {k: v for k, v in headers.items() if k.lower() not in _HOP}
        if not any(k.lower() == "user-agent" for k in sent):
            sent["User-Agent"] = CLIENT_AGENT
        req = urllib.request.Request(self.url + path, data=body, method=method, headers=sent)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def replay(self, request_dir: Path, *, compress: bool = False) -> tuple[int, dict]:
        """Send a recorded request (``body.bin`` with ``meta.json``'s method, path and headers)."""
        meta = json.loads((request_dir / "meta.json").read_text())
        body = (request_dir / "body.bin").read_bytes()
        headers = dict(meta["headers"])
        if compress:
            body = gzip.compress(body)
            headers["Content-Encoding"] = "gzip"
        return self.send(meta["method"], meta["path"], body, headers)

    def stop(self) -> None:
        """Stop the receiver by its own process id (terminate, then kill)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if self.proc.stderr and not self.proc.stderr.closed:
            self.err = self.proc.stderr.read().decode()  # what it said, kept for the test
        for f in (self.proc.stdout, self.proc.stderr):
            if f:
                f.close()



def run_traced(rcv: Receiver, cwd: Path, app: str, *args: str, project: str, says: str) -> None:
    """Run ``app`` (a script beside this file) in its own process with the official LangSmith client pointed at the
    receiver ``rcv`` (project ``project``, any key), hold it to exit 0 having printed ``says``, then stop ``rcv``."""
    env = {**os.environ, "LANGSMITH_TRACING": "true", "LANGSMITH_ENDPOINT": rcv.url, "LANGSMITH_API_KEY": "any",
           "LANGSMITH_PROJECT": project, "PYTHONWARNINGS": "ignore"}
    script = Path(__file__).resolve().parent / app
    p = subprocess.run([sys.executable, str(script), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and p.stdout.strip() == says, p.stdout + p.stderr
    rcv.stop()


def staged_arrivals(root: Path) -> list[dict]:
    """Every arrival the receiver staged in ``root`` and collect moved to ``done`` (what the client posted), in order:
    ``{"op", "id", "run", ...}``, read from the files, never from what asz landed."""
    done = root / "_ingest" / "langsmith" / "done"
    return [json.loads(line) for f in sorted(done.glob("*.jsonl")) for line in f.read_text().splitlines() if line]


def traced_and_collected(rcv: Receiver, cwd: Path, app: str, run_asz, *, project: str, says: str) -> list[dict]:
    """:func:`run_traced` of ``app`` to ``rcv``, then the real ``asz collect --once`` of its root (held to no error):
    the arrivals it staged (:func:`staged_arrivals`)."""
    run_traced(rcv, cwd, app, project=project, says=says)
    assert "errors=0" in run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(rcv.root)).stdout
    return staged_arrivals(rcv.root)


def multipart_runs(body: bytes) -> list[tuple[str, str, dict]]:
    """(op, run id, run with its out-of-band fields) of a recorded multipart body, read independently of the receiver."""
    boundary = body.split(b"\r\n", 1)[0]
    runs: dict[tuple[str, str], dict] = {}
    for chunk in body.split(boundary)[1:-1]:
        head, _, data = chunk.partition(b"\r\n\r\n")
        name = head.split(b'name="', 1)[1].split(b'"', 1)[0].decode()
        op, _, rest = name.partition(".")
        rid, _, field = rest.partition(".")
        value = json.loads(data[:-2])
        run = runs.setdefault((op, rid), {})
        if field:
            run[field] = value
        else:
            run.update(value)
    return [(op, rid, run) for (op, rid), run in runs.items()]


def landed_records(root: Path) -> dict:
    """Every record with an id landed in the storage root ``root`` (its sessions' landed ``.sd`` files), by id."""
    from asz_core.sessiondata import SDReader
    from asz_core.storage.layout import landed_files

    out = {}
    for sdir in root.iterdir():
        if not sdir.name.startswith("_"):
            for _, p in landed_files(sdir):
                if p.suffix == ".sd":
                    out.update((r.id, r) for _, r in SDReader(p) if r.id)
    return out


def graph_runs(doc: dict) -> tuple[dict, dict, dict]:
    """(the trace's first run, its first ``RunnableSequence`` step, its first model call) of the tracer batch ``doc``
    (conftest's ``tracer_batch``, copied): the three kinds of run the dialect trims or reads."""
    runs = doc["post"]
    return runs[0], next(r for r in runs if r["name"] == "RunnableSequence"), next(r for r in runs if r["run_type"] == "llm")



def document_steps(node: dict):
    """``node`` (a talk or step of an asz.view document) and every node under it, depth first (its ``children``)."""
    yield node
    for c in node.get("children", []):
        yield from document_steps(c)


def thread_invocation(runs: list[dict], n: int, question: str) -> list[dict]:
    """The tracer batch's ``runs`` (conftest's ``tracer_batch["post"]``) as invocation ``n`` (0, 1, …) of one thread:
    ``n`` hours later, every run id new, the person's message ``question`` in its first run's inputs and outputs."""
    import uuid

    text = json.dumps(runs)
    for r in runs:
        text = text.replace(r["id"], str(uuid.uuid4()))
    text = text.replace("2026-11-29T17:", f"2026-11-29T{17 + n}:").replace("20261129T17", f"20261129T{17 + n}")
    out = json.loads(text)
    for m in [*out[0]["inputs"]["messages"], *(out[0].get("outputs") or {}).get("messages", [])]:
        if m.get("type") == "human":
            m["content"] = question
    return out
