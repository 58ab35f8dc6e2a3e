"""Writers a stop reaches just after they made their temporary file leave none behind (session 41).

Session 40 found SDWriter opening its temporary before the ``try`` that removes it: a SIGTERM arriving as the open
returned left a ``.sd.PID.tmp`` (1a45a82b). Each writer below made a temporary (or an export's ``.part``) the same
way, outside any cleanup, or with none at all. Each case runs the real writer on real files and raises a real SIGINT
(the KeyboardInterrupt asz's Ctrl-C and SIGTERM both become) at the first instruction Python runs once the temporary
is on disk (tests/stop_at.py), or, for a round, once its link returned (the round landed, its temporary not yet
removed): the writer raises KeyboardInterrupt and its folder holds what it held before (and that round), nothing else.
The first three were closed already (their open inside the ``try``): they guard it; each other case failed on main
before session 41's fixes (a temporary or ``.part`` left), 12 of 12.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from stop_at import sigint_once, temporaries

from asz_core.flow.chain import Chain
from asz_core.flow.round import RoundHeader, build_round

SESSION = "0b5e6d1c-1111-4222-8333-444455556666"


def _landed_once(tmp: Path):  # every landed file's and skeleton's way, and asz receive's (export/land.py)
    from asz_core.sessiondata.durable import write_once

    return tmp, temporaries(tmp), lambda: write_once(tmp / "x.sd", b"whole\n", tmp / f".x.sd.{os.getpid()}.tmp")


def _state_file(tmp: Path):  # session.state, index.state, push.state (write_at_once)
    from asz_core.storage.root import write_state

    return tmp, temporaries(tmp), lambda: write_state(tmp / "session.state", [("next_seq", 2)], fsync=False)


def _cursor_file(tmp: Path):
    from asz_core.storage.cursor import _replace

    return tmp, temporaries(tmp), lambda: _replace(tmp / "main.transcript.cursor", b"state active\n")


def _mask_key(tmp: Path):
    from asz_core.storage.mask_key import linked_whole

    return tmp, temporaries(tmp), lambda: linked_whole(tmp / "mask.key", b"00ff\n", 0o600)


def _export_stream(tmp: Path):
    import asz_core.reading.export_manifest  # noqa: F401  (imported by the writer: loaded before the trace)
    from asz_core.cli.export_write import stream_to

    (tmp / "day.md").write_bytes(b"an earlier export\n")
    return tmp, temporaries(tmp, ".part"), lambda: stream_to(tmp / "day.md", lambda f: f.write(b"# one\n"))


def _export_file(tmp: Path):
    import asz_core.reading.export_manifest  # noqa: F401  (imported by the writer: loaded before the trace)
    from asz_core.cli.export_write import file_to

    (tmp / "one.md").write_bytes(b"an earlier export\n")
    return tmp, temporaries(tmp, ".part"), lambda: file_to(tmp / "one.md", b"# one\n")


def _export_whole(tmp: Path):
    from asz_core.reading.export_manifest import write_whole

    return tmp, temporaries(tmp, ".part"), lambda: write_whole(tmp / "one.md.manifest.json", b"{}\n")


def _metrics_sent(tmp: Path):
    from asz_core.export.metrics import _write

    d = tmp / SESSION / "metrics"
    d.mkdir(parents=True)
    return d, temporaries(d), lambda: _write(d / "sent-x.json", {"calls": {"n1": [1, 2, 3, 4]}})


def _rests_list(tmp: Path):
    from asz_core.export.push_rest import list_rests

    d = tmp / "_export"
    d.mkdir()
    return d, temporaries(d), lambda: list_rests(tmp, [f"{SESSION}/streams/main/x.sd"])


def _found_record(tmp: Path):
    from asz_core.view.found_store import FoundStore

    store = FoundStore(tmp, mark="build")
    d = store.path(SESSION, []).parent
    d.mkdir(parents=True)
    return d, temporaries(d), lambda: store.write(SESSION, [], (("x.sd", 1),), None, {"state": "ended"})


def _round(tmp: Path):
    chain = Chain(tmp, SESSION)
    d = chain.rounds_dir
    d.mkdir(parents=True)
    r = build_round(RoundHeader(SESSION, SESSION, 1, 1, 1, "00" * 32))

    def install():
        with chain.lock():
            chain.install(r)

    install.lands = {r.file_name: r.data}  # stopped as its link returned: the round stays whole, its temporary goes
    return d, (d / r.file_name).exists, install


def _room_probe(tmp: Path):
    from asz_core.flow.shared_ids import room_refused

    d = tmp / "_index"
    d.mkdir()
    return d, temporaries(d, ".room."), lambda: room_refused(tmp)


def _langsmith_inbox(tmp: Path):
    from asz_adapters_langchain.receiver import inbox_dir, stage

    d = inbox_dir(tmp)
    d.mkdir(parents=True)
    return d, temporaries(d, ".tmp-"), lambda: stage(tmp, [{"id": "run-1"}])


def _langsmith_state(tmp: Path):
    from asz_adapters_langchain.inbox_state import write_atomic

    return tmp, temporaries(tmp, ".tmp-"), lambda: write_atomic(tmp / "state.json", b"{}")


def _hooks_settings(tmp: Path):
    from asz_adapters_claude.hooks_settings import _write_atomic

    (tmp / "settings.json").write_text("{}\n")
    return tmp, temporaries(tmp, ".tmp"), lambda: _write_atomic(tmp / "settings.json", '{"hooks": {}}\n')


@pytest.mark.parametrize("case", [_landed_once, _state_file, _cursor_file, _mask_key, _export_stream, _export_file,
                                  _export_whole, _metrics_sent, _rests_list, _found_record, _round, _room_probe,
                                  _langsmith_inbox, _langsmith_state, _hooks_settings],
                         ids=lambda c: c.__name__.lstrip("_"))
def test_a_writer_stopped_just_after_making_its_temporary_leaves_none(case, tmp_path):
    folder, made, write = case(tmp_path)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    with pytest.raises(KeyboardInterrupt), sigint_once(made) as fired:
        write()
    assert fired, "the writer never made its temporary"
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == {**before, **getattr(write, "lands", {})}, fired


_SYNCED = """
import sys
from pathlib import Path
from asz_core.export.state import PushState
from asz_core.sessiondata import Header, Part, Record
from asz_core.sessiondata.skeleton import write_skeleton
from asz_core.storage.root import SessionWriter
root = Path(sys.argv[1])
w = SessionWriter.open(root, sys.argv[2], fsync=False)
sd = w.start(Header(kind="transcript", session=sys.argv[2], src="a.jsonl", dialect="toy/1", adapter="toy", stream=""))
sd.write(Record(ord=1, off=0, bytes=2, from_="runtime", parts=[Part(k="text", text="hi", state="available", bytes=2)]))
write_skeleton(w.finish(sd).path, at="2026-12-06T00:00:00Z", generation=1, receiver="accepted", owner="")
st = PushState.load(root)
st.endpoint = "http://127.0.0.1:1"
st.save()
"""


@pytest.mark.skipif(not shutil.which("strace"), reason="no strace on this machine")
def test_a_skeleton_and_push_state_have_their_names_synced(tmp_path):
    """A skeleton is linked into place before its landed file is deleted, and push.state is renamed over after each
    answer (docs/push.md: crash-safe; a crash repeats at most the request in flight): each name is made durable, its
    directory synced after the link or rename (session 41: the file's bytes were, its name was not). Seen in the
    system calls of a real process (strace), no mock."""
    trace = tmp_path / "strace.txt"
    root = tmp_path / "root"
    root.mkdir()
    subprocess.run(["strace", "-f", "-qq", "-o", str(trace), "-e", "trace=link,rename,openat,fsync", sys.executable,
                    "-c", _SYNCED, str(root), SESSION], check=True, timeout=120)
    calls = [ln.split(None, 1)[1] for ln in trace.read_text().splitlines() if ln.split(None, 1)[1:]]

    def synced_after(made: str, folder: Path) -> bool:
        """After the first call naming ``made`` as its target, ``folder`` opened and that descriptor fsynced."""
        at = next(i for i, c in enumerate(calls) if c.startswith(("link(", "rename(")) and f', "{made}")' in c)
        opened = [c.rsplit("= ", 1)[1] for c in calls[at:] if c.startswith(f'openat(AT_FDCWD, "{folder}", ')]
        return any(c.startswith(f"fsync({fd})") for fd in opened for c in calls[at:])

    sk = next(root.glob(f"{SESSION}/streams/*/*.sk"))
    assert synced_after(str(sk), sk.parent), "\n".join(calls[-40:])
    assert synced_after(str(root / "push.state"), root), "\n".join(calls[-40:])
