"""A stop that reaches ``asz receive`` while a request thread holds landed files whose sender lines are not written
yet (the pair: docs/storage-root.md, Crash behaviour) no longer ends the process between the two once its drain
(``ASZ_RECEIVE_DRAIN``) is over: the request threads are counted (``asz_core.sessiondata.durable.held_open``) and the
stopping receiver waits for them (``durable.settle``).

A real ``asz receive`` process whose first request, its files landed, sends SIGINT to its own process and pauses
past the drain before their sender lines (the point is chosen by the hook, no sleep of the test decides it); a real
``asz push`` sends it a copy of the corpus root. Before: the receiver ended 0.5 s into the pause, its landed files
without sender lines (``asz verify`` of the receiving root fails). Now every landed file has its line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import forked
import pytest

from asz_core.export.state import PushState
from asz_core.storage.senders import file_senders
from asz_core.storage.layout import landed_files, session_dirs

from export_helpers import ASZ, free_port, sent_files

#: argv: asz's arguments. The first call of ``receive.$ASZ_TEST_STOP_AT`` given something to do (``record_senders``:
#: the recording of landed files' senders; ``assemble_held``: the chain assembly after them; ``answer_logs``: a
#: request holding records, before anything of it is begun) sends SIGINT to this process, then pauses ASZ_TEST_PAUSE
#: seconds before doing it, or less with ASZ_TEST_UNTIL_STOPPING: until the stopping process called ``durable.settle``.
#: No ASZ_TEST_STOP_AT: a plain asz receive.
STOPPED_AT = """
import os, signal, sys, time
from asz_core.export import receive
from asz_core.sessiondata import durable
at, done = os.environ.get("ASZ_TEST_STOP_AT"), []
def given(x):
    logs = getattr(x, "resource_logs", None)
    return any(sl.log_records for rl in logs for sl in rl.scope_logs) if logs is not None else bool(x)
if at:
    real = getattr(receive, at)
    def stop_then(*args, **kw):
        if given(args[1]) and not kw.get("unless_named") and not done:
            done.append(1)
            os.kill(os.getpid(), signal.SIGINT)
            end = time.monotonic() + float(os.environ["ASZ_TEST_PAUSE"])
            while time.monotonic() < end and not (os.environ.get("ASZ_TEST_UNTIL_STOPPING") and durable.stopping()):
                time.sleep(0.01)
        return real(*args, **kw)
    setattr(receive, at, stop_then)
from asz_core.cli.entry import main
sys.argv[0] = "asz"
main()
"""


def _stopped_receiving(root: Path, received: Path, tmp: Path, at: str | None, proto: str = "http",
                       until_stopping: bool = False) -> tuple[str, str]:
    """A real ``asz receive`` into ``received`` (:data:`STOPPED_AT` at ``at``, its drain 0.5 s, its pause 3 s, or until
    it settles with ``until_stopping``) taking a real ``asz push`` of ``root`` over ``proto`` (http, grpc); (the
    receiver's stderr, the push's exit, stdout and stderr). With ``at`` the receiver stops itself and must end 0;
    without, it is stopped (SIGINT) once the push ended, which must exit 0."""
    port = free_port()
    env = {**os.environ, "ASZ_RECEIVE_DRAIN": "0.5", "ASZ_TEST_PAUSE": "3", **({"ASZ_TEST_STOP_AT": at} if at else {}),
           **({"ASZ_TEST_UNTIL_STOPPING": "1"} if until_stopping else {})}
    push, pushed = None, ("", "")
    rcv = subprocess.Popen([sys.executable, "-c", STOPPED_AT, "receive", "--no-token", "--root", str(received),
                            "--listen", f"127.0.0.1:{port}"], cwd=tmp, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        assert rcv.stderr.readline().startswith("receiving:")
        push = forked.Popen([*ASZ, "push", "--root", str(root), "--endpoint", f"{proto}://127.0.0.1:{port}"],
                            cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if not at:
            pushed = push.communicate(timeout=120)
            rcv.send_signal(signal.SIGINT)
        _, err = rcv.communicate(timeout=120)
        assert rcv.returncode == 0, err
        if at:  # its answer came, or it never will (a push retries a receiver gone: killed below, exit -9)
            try:
                pushed = push.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                push.kill()
                pushed = push.communicate()
    finally:
        for p in (q for q in (rcv, push) if q is not None):
            if p.poll() is None:
                p.kill()
                p.communicate()
    return err, f"exit {push.returncode}\n{pushed[0]}{pushed[1]}"


def test_a_stop_past_the_drain_waits_for_the_sender_lines_of_the_files_a_request_landed(corpus_copy, tmp_path):
    root = corpus_copy(tmp_path / "data")
    received = tmp_path / "received"
    port = free_port()
    err, _ = _stopped_receiving(root, received, tmp_path, "record_senders")
    landed = {(s.name, os.path.relpath(p, s)) for s in session_dirs(received) for _, p in landed_files(s)}
    assert landed, err  # the first request landed files before the stop
    unnamed = [f for f in landed if f"{f[0]}/{Path(f[1]).as_posix()}" not in file_senders(received, f[0])]
    assert not unnamed, (unnamed, err)
    v = forked.run([*ASZ, "verify", "--root", str(received)], capture_output=True, text=True, cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr


LOG_SAMPLE = ("-Users-alex-workspace-claude-code-log-sample", "0d3a8e6f-290f-4105-a327-a2496e5e2a83")


def test_a_stop_at_the_assembly_after_the_sender_lines_answers_the_request(tmp_path):
    """fix43c's leftover: a stop that came while a request, its files landed and their sender lines written, was to
    assemble its session's chain here (``receive.assemble_held``: a root re-made, its rounds held back) ended that
    request with a StopBeforePair and no answer. Now the request is answered, its files taken; the chain is the next
    pass's work, as after a crash: the next push's request assembles it, and the root verifies with no file unread. The old root pushed 30 of the session's lines with no round (``--no-parse``), the
    re-made root all of them."""
    corpus = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "claude-code" / "projects"
    source = corpus / LOG_SAMPLE[0] / f"{LOG_SAMPLE[1]}.jsonl"
    if not source.is_file():
        pytest.skip(f"the corpus is absent ({source})")
    lines = source.read_bytes().splitlines(keepends=True)
    f = tmp_path / "src" / LOG_SAMPLE[0] / source.name
    f.parent.mkdir(parents=True)
    f.write_bytes(b"".join(lines[:30]))
    team, data = tmp_path / "team", tmp_path / "data"
    for extra in (["--no-parse"], []):
        if extra == []:  # the old root is lost; the re-made one collects the whole session
            data.rename(tmp_path / "data.lost")
            f.write_bytes(b"".join(lines))
        c = forked.run([*ASZ, "collect", "--once", "--source", str(f.parent.parent), "--root", str(data), *extra],
                       capture_output=True, text=True, cwd=tmp_path)
        assert c.returncode == 0, c.stdout + c.stderr
        err, pushed = _stopped_receiving(data, team, tmp_path, "assemble_held" if extra == [] else None)
    assert "Traceback" not in err and "StopBeforePair" not in err, err
    assert f"not assembled {LOG_SAMPLE[1]}: asz receive is stopping" in err, err
    assert "logs: 1 file(s): 1 landed, 0 already there" in err, err  # the rest of the stream, answered
    # answered: the seq refused, its round, and the rest of the stream (at main 2: that request got no answer); the
    # request after it came to a receiver gone (its files left for the next pass)
    assert pushed.startswith("exit 1\n") and " files=3 " in pushed and "left for the next pass" in pushed, pushed
    named = file_senders(team, LOG_SAMPLE[1])
    landed = [os.path.relpath(p, team).replace(os.sep, "/") for s in session_dirs(team) for _, p in landed_files(s)]
    assert len(landed) == 2 and all(r in named for r in landed), (landed, named)
    err, pushed = _stopped_receiving(data, team, tmp_path, None)  # the next pass: its chain assembled
    assert pushed.startswith("exit 0\n") and f"assembled {LOG_SAMPLE[1]}: round(s) 1-1 read seq 1-2" in err, err
    v = forked.run([*ASZ, "verify", "--root", str(team)], capture_output=True, text=True, cwd=tmp_path)
    assert v.returncode == 0 and "read by no round" not in v.stdout, v.stdout + v.stderr


def _sent_again(root: Path, received: Path, tmp: Path) -> None:
    """The next push of ``root`` to a plain receiver on ``received``: exit 0, every file of ``root`` there byte for
    byte, and the receiving root verifies."""
    err, pushed = _stopped_receiving(root, received, tmp, None)
    assert pushed.startswith("exit 0\n"), pushed + err
    assert sent_files(received) == sent_files(root)
    v = forked.run([*ASZ, "verify", "--root", str(received)], capture_output=True, text=True, cwd=tmp)
    assert v.returncode == 0, v.stdout + v.stderr


@pytest.mark.slow
def test_a_request_reaching_its_landing_once_the_receiver_settled_is_answered_busy_and_sent_again(corpus_copy, tmp_path):
    """The request's thread comes to its landing (``answer_logs``) past the drain, once ``durable.settle`` ran: the pair
    is not begun (``StopBeforePair``), the request is answered busy (HTTP 503, Retry-After), nothing of it lands, and
    the push, finding the receiver gone when it asks again, exits 1 with the files due; the next push sends them."""
    root = corpus_copy(tmp_path / "data")
    received = tmp_path / "received"
    err, pushed = _stopped_receiving(root, received, tmp_path, "answer_logs", until_stopping=True)
    assert "asz receive: 1 request(s) still landing after 0.5 s" in err, err
    assert "answered 1 request(s) busy, nothing of them landed" in err, err
    assert "Traceback" not in err and "StopBeforePair" not in err, err
    assert sent_files(received) == {} and PushState.load(root).pushed == {}, err
    assert pushed.startswith("exit 1\n") and "left for the next pass" in pushed and " paused=1s " in pushed, pushed
    _sent_again(root, received, tmp_path)


@pytest.mark.slow
def test_a_grpc_call_still_landing_past_the_drain_is_answered(corpus_copy, tmp_path):
    """A gRPC call whose method lands its files past the drain is waited for and answered, as an HTTP request is
    (receive_grpc.stop_calls): every file it landed is in push.state. Before fix45b grpcio aborted it at the grace's end
    (``gRPC UNAVAILABLE: Cancelling all calls``): its files landed with their sender lines, the push counted none and
    sent them again on its next pass."""
    root = corpus_copy(tmp_path / "data")
    received = tmp_path / "received"
    err, pushed = _stopped_receiving(root, received, tmp_path, "answer_logs", proto="grpc")
    landed = sent_files(received)
    assert landed and PushState.load(root).pushed == landed, (pushed, err)
    assert "Cancelling all calls" not in pushed and f" files={len(landed)} " in pushed, pushed
    # said as an HTTP request still landing then is (fix46a: the gRPC side said nothing)
    assert ("asz receive: 1 gRPC call(s) still landing after 0.5 s; it takes no other and ends once they have (each "
            "file whole with its sender line, or absent; the sender sends what was not answered again)") in err, err
    assert "aborted the gRPC call(s)" not in err, err
